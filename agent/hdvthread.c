/*
 * hdvthread.c: the virtual threads mounted when a heap dump begins (see
 * hdvthread.h). Runs on the dumping thread under dump_lock alone: the
 * FollowReferences here waits for a safepoint (docs/deadlocks.md, rule 1).
 */
#include "hdvthread.h"

#include <stdlib.h>
#include <string.h>

#include "jx.h"
#include "names.h"
#include "traces.h"

#define HDV_CLASS_NAME "java/lang/VirtualThread"

uint32_t hdv_class(const hd_state *st)
{
    for (uint32_t i = 1; i < st->ncls; i++) {
        if (!st->incl[i])
            continue;
        hp_str *s = str_get(cls_at(i)->name_vm);
        if (s && s->len == sizeof HDV_CLASS_NAME - 1 && memcmp(s->s, HDV_CLASS_NAME, s->len) == 0)
            return i;
    }
    return 0;
}

/* What the roots-only walk finds */
typedef struct hdv_scan {
    hd_state *st;
    jlong vt_class_tag;
    jlong *tags;
    jint n, cap;
    int err;
} hdv_scan;

/* called at a safepoint on the VM thread: no JNI, no JVMTI, no locks. A
 * mounted virtual thread is a root of kind OTHER; nothing is visited. */
static jint JNICALL hdv_root_cb(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                                jlong class_tag, jlong referrer_class_tag, jlong size, jlong *tag_ptr,
                                jlong *referrer_tag_ptr, jint length, void *ud)
{
    (void)info, (void)referrer_class_tag, (void)size, (void)length;
    hdv_scan *sc = ud;
    if (referrer_tag_ptr || kind != JVMTI_HEAP_REFERENCE_OTHER || class_tag != sc->vt_class_tag)
        return 0;
    if (sc->n == sc->cap) {
        jint cap = sc->cap ? 2 * sc->cap : 16;
        jlong *t = realloc(sc->tags, sizeof *t * (size_t)cap);
        if (!t) {
            sc->err = 1;
            return JVMTI_VISIT_ABORT;
        }
        sc->tags = t;
        sc->cap = cap;
    }
    if (*tag_ptr == 0)
        *tag_ptr = hd_new_tag(sc->st);
    sc->tags[sc->n++] = *tag_ptr;
    return 0;
}

int hdv_mounted(hd_state *st, JNIEnv *env, hd_thread **thr, uint32_t *nthr)
{
    jvmtiEnv *j = st->j;
    st->vthread_class = hdv_class(st);
    if (!st->vthread_class)
        return 0;
    hdv_scan sc = {.st = st, .vt_class_tag = (jlong)(HP_TAG_CLASS | st->vthread_class)};
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = hdv_root_cb;
    jvmtiError e = (*j)->FollowReferences(j, 0, NULL, NULL, &cb, &sc);
    if (e != JVMTI_ERROR_NONE || sc.err || sc.n == 0) {
        free(sc.tags);
        if (e != JVMTI_ERROR_NONE)
            jx_report(j, e, "FollowReferences (mounted virtual threads)");
        return sc.err ? -1 : 0;
    }
    int rc = 0;
    hd_thread *nt = realloc(*thr, sizeof *nt * (*nthr + (size_t)sc.n));
    jvmtiFrameInfo *fr = malloc(sizeof *fr * HD_MAX_FRAMES);
    jint cnt = 0;
    jobject *objs = NULL;
    jlong *got = NULL;
    if (!nt || !fr || (*env)->PushLocalFrame(env, sc.n + 16) != 0) {
        free(fr);
        free(sc.tags);
        if (nt)
            *thr = nt;
        return -1;
    }
    *thr = nt;
    if ((*j)->GetObjectsWithTags(j, sc.n, sc.tags, &cnt, &objs, &got) != JVMTI_ERROR_NONE)
        cnt = 0;
    for (jint i = 0; i < cnt; i++) {
        if (hu_map_get(&st->threads, (uint64_t)got[i]))
            continue; /* met twice (mounted on two carriers in a row): once */
        if (!hdm_keep(st, env, objs[i])) /* in the dump even if it ends now */
            rc = -1;
        jint nf = 0;
        if ((*j)->GetStackTrace(j, objs[i], 0, HD_MAX_FRAMES, fr, &nf) != JVMTI_ERROR_NONE)
            nf = 0; /* ended meanwhile */
        uint32_t ser = HD_LATE_THREAD_SERIAL0 + st->late_threads++;
        hp_trace *t = trace_get(j, fr, nf, ser, trace_hash(fr, nf, ser));
        if (!t)
            t = trace_at(1);
        nt[(*nthr)++] = (hd_thread){.tag = got[i], .serial = ser, .trace = t};
        if (hu_map_put(&st->threads, (uint64_t)got[i], ser | ((uint64_t)t->serial << 32)))
            rc = -1;
    }
    (*env)->PopLocalFrame(env, NULL);
    jx_free(j, objs);
    jx_free(j, got);
    free(fr);
    free(sc.tags);
    return rc;
}
