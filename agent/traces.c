/*
 * traces.c: the frame and trace tables (see traces.h).
 *
 * Resolution of a new frame calls JVMTI (method name, class, source file,
 * line table), so it runs outside the data lock; the insertion re-checks
 * under the lock, and a frame resolved twice by racing threads is simply
 * dropped by the loser.
 */
#include "traces.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "classes.h"
#include "hprof/hprof_format.h"
#include "jx.h"
#include "names.h"
#include "out.h"

int trace_init(void)
{
    hu_map_init(&g_hp.frame_index);
    hu_map_init(&g_hp.trace_index);
    if (vec_init(&g_hp.frames, sizeof(hp_frame)) || vec_init(&g_hp.traces, sizeof(hp_trace)))
        return -1;
    /* trace index 1: the empty system trace, serial 300000 */
    uint32_t i = vec_push(&g_hp.traces);
    if (!i)
        return -1;
    hp_trace *t = trace_at(i);
    t->serial = HP_TRACE_SERIAL0;
    t->hash = trace_hash(NULL, 0, 0);
    return hu_map_put(&g_hp.trace_index, t->hash, i);
}

void trace_cleanup(void)
{
    for (uint32_t i = 1; i < g_hp.frames.count; i++)
        free(frame_at(i)->text);
    for (uint32_t i = 1; i < g_hp.traces.count; i++) {
        free(trace_at(i)->frame);
        free(trace_at(i)->jf);
    }
    vec_cleanup(&g_hp.frames);
    vec_cleanup(&g_hp.traces);
    hu_map_cleanup(&g_hp.frame_index);
    hu_map_cleanup(&g_hp.trace_index);
}

hp_trace *trace_at(uint32_t index)
{
    return vec_at(&g_hp.traces, index);
}

uint32_t trace_count(void)
{
    return __atomic_load_n(&g_hp.traces.count, __ATOMIC_ACQUIRE);
}

hp_frame *frame_at(uint32_t index)
{
    return vec_at(&g_hp.frames, index);
}

static inline uint64_t trace_mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

uint64_t trace_hash(const jvmtiFrameInfo *f, int n, uint32_t thread_serial)
{
    uint64_t h = trace_mix(0x1234567ULL, ((uint64_t)thread_serial << 32) | (uint32_t)n);
    for (int i = 0; i < n; i++)
        h = trace_mix(trace_mix(h, (uint64_t)(uintptr_t)f[i].method), (uint64_t)f[i].location);
    return h ? h : 1;
}

int trace_equals(const hp_trace *t, const jvmtiFrameInfo *f, int n, uint32_t thread_serial)
{
    if (t->nframes != (uint32_t)n || t->thread_serial != thread_serial)
        return 0;
    for (int i = 0; i < n; i++)
        if (t->jf[i].method != f[i].method || t->jf[i].location != f[i].location)
            return 0;
    return 1;
}

static uint64_t frame_key(jmethodID m, jlocation loc)
{
    return trace_mix((uint64_t)(uintptr_t)m, (uint64_t)loc) | 1;
}

static uint32_t frame_find(jmethodID m, jlocation loc, uint64_t key)
{
    uint64_t *head = hu_map_get(&g_hp.frame_index, key);
    for (uint32_t i = head ? (uint32_t)*head : 0; i; i = frame_at(i)->next)
        if (frame_at(i)->method == m && frame_at(i)->location == loc)
            return i;
    return 0;
}

/* Resolves and inserts frame (m, loc); returns its index or 0. */
static uint32_t frame_get(jvmtiEnv *j, jmethodID m, jlocation loc)
{
    uint64_t key = frame_key(m, loc);
    jx_lock(j, g_hp.data_lock);
    uint32_t idx = frame_find(m, loc, key);
    jx_unlock(j, g_hp.data_lock);
    if (idx)
        return idx;

    char *mname = NULL, *msig = NULL, *src = NULL;
    jclass decl = NULL;
    jboolean native = 0;
    hp_class *c = NULL;
    int line = HPROF_LINE_UNKNOWN;
    if ((*j)->GetMethodName(j, m, &mname, &msig, NULL) == JVMTI_ERROR_NONE &&
        (*j)->GetMethodDeclaringClass(j, m, &decl) == JVMTI_ERROR_NONE) {
        /* a class first met here (loaded while the agent was enumerating)
         * gets its LOAD CLASS now, before any FRAME names its serial */
        c = cls_get(j, decl);
        jx_source_file(j, decl, &src);
        (*j)->IsMethodNative(j, m, &native);
        if (native)
            line = HPROF_LINE_NATIVE;
        else if (g_hp.o.lineno)
            line = jx_line_of(j, m, loc);
    }
    const char *cname = c ? c->name_java : "<Unknown Class>";
    const char *mn = mname ? mname : "<Unknown Method>";
    const char *sn = src ? src : "<Unknown Source>";
    char linebuf[32];
    if (line > 0)
        snprintf(linebuf, sizeof linebuf, "%d", line);
    else
        snprintf(linebuf, sizeof linebuf, "%s",
                 line == HPROF_LINE_NATIVE ? "Native method" : "Unknown line");
    size_t tl = strlen(cname) + strlen(mn) + strlen(sn) + strlen(linebuf) + 8;
    char *text = malloc(tl);
    if (text)
        snprintf(text, tl, "%s.%s(%s:%s)", cname, mn, sn, linebuf);

    jx_lock(j, g_hp.data_lock);
    idx = frame_find(m, loc, key);
    if (!idx && text) {
        uint32_t nm = str_intern(mn, strlen(mn));
        uint32_t ns = str_intern(msig ? msig : "()V", strlen(msig ? msig : "()V"));
        uint32_t sf = src ? str_intern(src, strlen(src)) : 0;
        idx = (nm && ns) ? vec_push(&g_hp.frames) : 0;
        uint64_t *head = idx ? hu_map_get(&g_hp.frame_index, key) : NULL;
        uint32_t first = head ? (uint32_t)*head : 0;
        if (idx && hu_map_put(&g_hp.frame_index, key, idx) == 0) {
            hp_frame *fr = frame_at(idx);
            fr->method = m;
            fr->location = loc;
            fr->next = first;
            fr->method_name = nm;
            fr->method_sig = ns;
            fr->source = sf;
            fr->class_serial = c ? c->serial : 0;
            fr->line = line;
            fr->text = text;
            text = NULL;
        } else {
            idx = 0;
        }
    }
    jx_unlock(j, g_hp.data_lock);
    free(text);
    jx_free(j, mname);
    jx_free(j, msig);
    jx_free(j, src);
    return idx;
}

static hp_trace *trace_find(const jvmtiFrameInfo *f, int n, uint32_t thread_serial, uint64_t hash)
{
    uint64_t *head = hu_map_get(&g_hp.trace_index, hash);
    for (uint32_t i = head ? (uint32_t)*head : 0; i; i = trace_at(i)->next)
        if (trace_equals(trace_at(i), f, n, thread_serial))
            return trace_at(i);
    return NULL;
}

hp_trace *trace_get(jvmtiEnv *j, const jvmtiFrameInfo *f, int n, uint32_t thread_serial, uint64_t hash)
{
    jx_lock(j, g_hp.data_lock);
    hp_trace *t = trace_find(f, n, thread_serial, hash);
    jx_unlock(j, g_hp.data_lock);
    if (t)
        return t;
    uint32_t *fidx = malloc(sizeof *fidx * (n ? (size_t)n : 1));
    jvmtiFrameInfo *jf = malloc(sizeof *jf * (n ? (size_t)n : 1));
    if (!fidx || !jf)
        goto fail;
    for (int i = 0; i < n; i++) {
        fidx[i] = frame_get(j, f[i].method, f[i].location);
        if (!fidx[i])
            goto fail;
        jf[i] = f[i];
    }
    jx_lock(j, g_hp.data_lock);
    t = trace_find(f, n, thread_serial, hash);
    if (!t) {
        uint32_t idx = vec_push(&g_hp.traces);
        uint64_t *head = idx ? hu_map_get(&g_hp.trace_index, hash) : NULL;
        uint32_t first = head ? (uint32_t)*head : 0;
        if (idx && hu_map_put(&g_hp.trace_index, hash, idx) == 0) {
            t = trace_at(idx);
            t->serial = HP_TRACE_SERIAL0 + idx - 1;
            t->thread_serial = thread_serial;
            t->nframes = (uint32_t)n;
            t->next = first;
            t->hash = hash;
            t->frame = fidx;
            t->jf = jf;
            fidx = NULL;
            jf = NULL;
        }
    }
    jx_unlock(j, g_hp.data_lock);
fail:
    free(fidx);
    free(jf);
    return t;
}
