/*
 * hdmirror.c: the objects java.lang.Class objects hold in their own
 * instance fields, for a heap dump (see hdmirror.h). Runs on the dumping
 * thread before the walk: JNI and JVMTI allowed, dump_lock held; takes
 * data_lock only around str_intern.
 */
#include "hdmirror.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "hdstate.h"
#include "jx.h"
#include "names.h"

#define HDM_ACC_STATIC 0x0008 /* JVM access flag of a static field */
#define HDM_NAME_MAX 256 /* "<field>": a field of java.lang.Class is far shorter */
/* local references one class's fields need at most at a time */
#define HDM_FRAME 8
/* the primitive types' mirrors are the TYPE statics of their box classes */
static const char *const hdm_boxes[] = {
    "java/lang/Boolean", "java/lang/Byte", "java/lang/Character", "java/lang/Short",
    "java/lang/Integer", "java/lang/Long", "java/lang/Float", "java/lang/Double",
    "java/lang/Void",
};

/* An instance field of java.lang.Class */
typedef struct hdm_field {
    jfieldID fid;
    char sig;         /* first character of its signature */
    int32_t off;      /* byte offset in an INSTANCE DUMP of java.lang.Class, or -1 */
    uint32_t name_id; /* "<name>" (object fields that become extra statics), or 0 */
} hdm_field;

void hdm_init(hdm_state *m)
{
    memset(m, 0, sizeof *m);
    hu_map_init(&m->extra);
    hu_map_init(&m->prim);
    hu_map_init(&m->own);
    hu_map_init(&m->loader);
}

jlong hdm_keep(hd_state *st, JNIEnv *env, jobject v)
{
    hdm_state *m = &st->mirrors;
    jvmtiEnv *j = st->j;
    jlong t = 0;
    if ((*j)->GetTag(j, v, &t) != JVMTI_ERROR_NONE)
        return 0;
    if (t == 0 && (*j)->SetTag(j, v, t = hd_new_tag(st)) != JVMTI_ERROR_NONE)
        return 0;
    int ins = 0;
    uint64_t *n = hu_map_upsert(&m->own, (uint64_t)t, 1, &ins);
    if (!n)
        return 0;
    if (ins) { /* one reference per object, however many classes hold it */
        if (m->nglobals == m->capglobals) {
            uint32_t cap = m->capglobals ? 2 * m->capglobals : 256;
            jobject *g = realloc(m->globals, sizeof *g * cap);
            if (!g) {
                *n = 0; /* not held: hide no root of the program's */
                return 0;
            }
            m->globals = g;
            m->capglobals = cap;
        }
        jobject g = (*env)->NewGlobalRef(env, v);
        if (!g) {
            *n = 0;
            return 0;
        }
        m->globals[m->nglobals++] = g;
    }
    return t;
}

/* The id in the dump of object v (not a Class), held as hdm_keep does; 0
 * when out of memory. */
static uint64_t hdm_hold(hd_state *st, JNIEnv *env, jobject v)
{
    jlong t = hdm_keep(st, env, v);
    return t ? hd_id(st, t) : 0;
}

/* The instance fields of java.lang.Class (class cc), with their offsets
 * in its layout L; *nout of them. NULL on failure. */
static hdm_field *hdm_fields(hd_state *st, jclass cc, const hd_layout *L, uint32_t *nout)
{
    jvmtiEnv *j = st->j;
    jint nf = 0;
    jfieldID *fids = NULL;
    *nout = 0;
    if ((*j)->GetClassFields(j, cc, &nf, &fids) != JVMTI_ERROR_NONE)
        return NULL;
    hdm_field *out = calloc(nf ? (size_t)nf : 1, sizeof *out);
    uint32_t *names = out ? realloc(st->mirrors.names, sizeof *names * (st->mirrors.nnames + (size_t)nf + 1)) : NULL;
    if (!names) {
        free(out);
        jx_free(j, fids);
        return NULL;
    }
    st->mirrors.names = names;
    for (jint i = 0; i < nf; i++) {
        char *name = NULL, *sig = NULL;
        jint mod = 0;
        if ((*j)->GetFieldName(j, cc, fids[i], &name, &sig, NULL) == JVMTI_ERROR_NONE &&
            (*j)->GetFieldModifiers(j, cc, fids[i], &mod) == JVMTI_ERROR_NONE &&
            !(mod & HDM_ACC_STATIC) && name && sig) {
            hdm_field *f = &out[(*nout)++];
            uint32_t idx = L->first_idx + (uint32_t)i;
            f->fid = fids[i];
            f->sig = sig[0];
            f->off = idx < L->nidx ? L->idx_off[idx] : -1;
            /* the loader is the CLASS DUMP's own; a Class is a class of the dump */
            if ((sig[0] == 'L' || sig[0] == '[') && strcmp(name, "classLoader") != 0 &&
                strcmp(sig, "Ljava/lang/Class;") != 0) {
                char buf[HDM_NAME_MAX];
                int n = snprintf(buf, sizeof buf, "<%s>", name);
                if (n > 0 && (size_t)n < sizeof buf) {
                    jx_lock(j, g_hp.data_lock);
                    f->name_id = str_intern(buf, (size_t)n);
                    jx_unlock(j, g_hp.data_lock);
                    if (f->name_id)
                        st->mirrors.names[st->mirrors.nnames++] = f->name_id;
                }
            }
        }
        jx_free(j, name);
        jx_free(j, sig);
    }
    jx_free(j, fids);
    return out;
}

/* Class k's extra statics (its mirror's non-null object fields), or NULL
 * when it has none; `tmp` holds nf of them, the result only those found
 * (thousands of classes: the dump's memory stays small). */
static hdm_extra *hdm_class_extra(hd_state *st, JNIEnv *env, jclass k, jclass cc,
                                  const hdm_field *fs, uint32_t nf, hdm_extra *tmp)
{
    hdm_extra *ex = NULL;
    tmp->n = 0;
    if ((*env)->PushLocalFrame(env, HDM_FRAME) != 0)
        return NULL;
    for (uint32_t i = 0; i < nf; i++) {
        if (!fs[i].name_id)
            continue;
        jobject v = (*env)->GetObjectField(env, k, fs[i].fid);
        if (!v || (*env)->IsInstanceOf(env, v, cc)) {
            (*env)->DeleteLocalRef(env, v);
            continue;
        }
        uint64_t id = hdm_hold(st, env, v);
        (*env)->DeleteLocalRef(env, v);
        if (!id)
            continue;
        tmp->f[tmp->n].name_id = fs[i].name_id;
        tmp->f[tmp->n].id = id;
        tmp->n++;
    }
    (*env)->PopLocalFrame(env, NULL);
    size_t bytes = sizeof *tmp + sizeof tmp->f[0] * tmp->n;
    if (tmp->n && (ex = malloc(bytes)))
        memcpy(ex, tmp, bytes);
    return ex;
}

/* The instance data of primitive mirror pm (layout L): every field's value,
 * the objects held like the classes' (hdm_hold). */
static uint8_t *hdm_prim_instance(hd_state *st, JNIEnv *env, jobject pm, jclass cc,
                                  const hd_layout *L, const hdm_field *fs, uint32_t nf)
{
    uint8_t *d = calloc(L->inst_bytes ? L->inst_bytes : 1, 1);
    for (uint32_t i = 0; d && i < nf; i++) {
        const hdm_field *f = &fs[i];
        if (f->off < 0)
            continue;
        if (st->redact && f->sig != 'L' && f->sig != '[')
            continue; /* redact=y: primitive values stay zero */
        uint8_t *p = d + f->off;
        switch (f->sig) {
        case 'L':
        case '[': {
            jobject v = (*env)->GetObjectField(env, pm, f->fid);
            if (v && !(*env)->IsInstanceOf(env, v, cc))
                hd_put_be(p, st->idsz, hdm_hold(st, env, v));
            (*env)->DeleteLocalRef(env, v);
            break;
        }
        case 'Z': *p = (*env)->GetBooleanField(env, pm, f->fid); break;
        case 'B': *p = (uint8_t)(*env)->GetByteField(env, pm, f->fid); break;
        case 'C': hd_put_be(p, 2, (*env)->GetCharField(env, pm, f->fid)); break;
        case 'S': hd_put_be(p, 2, (uint16_t)(*env)->GetShortField(env, pm, f->fid)); break;
        case 'I': hd_put_be(p, 4, (uint32_t)(*env)->GetIntField(env, pm, f->fid)); break;
        case 'J': hd_put_be(p, 8, (uint64_t)(*env)->GetLongField(env, pm, f->fid)); break;
        case 'F': {
            jfloat x = (*env)->GetFloatField(env, pm, f->fid);
            uint32_t u;
            memcpy(&u, &x, sizeof u);
            hd_put_be(p, 4, u);
            break;
        }
        case 'D': {
            jdouble x = (*env)->GetDoubleField(env, pm, f->fid);
            uint64_t u;
            memcpy(&u, &x, sizeof u);
            hd_put_be(p, 8, u);
            break;
        }
        default: break;
        }
    }
    return d;
}

/* The primitive types' mirrors: tagged (the walk meets them by these tags
 * and writes them as plain instances, heapdump.c's mirror_set), with their
 * instance data. */
static int hdm_primitives(hd_state *st, JNIEnv *env, jclass cc, const hd_layout *L,
                          const hdm_field *fs, uint32_t nf)
{
    jvmtiEnv *j = st->j;
    int rc = 0;
    for (size_t b = 0; b < sizeof hdm_boxes / sizeof hdm_boxes[0]; b++) {
        if ((*env)->PushLocalFrame(env, HDM_FRAME) != 0)
            return -1;
        jclass box = (*env)->FindClass(env, hdm_boxes[b]);
        jfieldID tf = box ? (*env)->GetStaticFieldID(env, box, "TYPE", "Ljava/lang/Class;") : NULL;
        jobject pm = tf ? (*env)->GetStaticObjectField(env, box, tf) : NULL;
        if ((*env)->ExceptionCheck(env))
            (*env)->ExceptionClear(env);
        jlong t = 0;
        if (pm && (*j)->GetTag(j, pm, &t) == JVMTI_ERROR_NONE && t == 0 &&
            (*j)->SetTag(j, pm, t = hd_new_tag(st)) != JVMTI_ERROR_NONE)
            t = 0;
        if (t && !HP_TAG_IS_CLASS((uint64_t)t) && !hu_map_get(&st->mirrors.prim, (uint64_t)t)) {
            uint8_t *d = hdm_prim_instance(st, env, pm, cc, L, fs, nf);
            if (!d || hu_map_put(&st->mirrors.prim, (uint64_t)t, (uint64_t)(uintptr_t)d)) {
                free(d);
                rc = -1;
            }
        }
        (*env)->PopLocalFrame(env, NULL);
    }
    return rc;
}

int hdm_collect(hd_state *st, JNIEnv *env, const jclass *ks, int nk)
{
    hp_class *ccls = cls_at(st->class_class);
    const hd_layout *L = ccls->layout;
    if (!L || (*env)->PushLocalFrame(env, HDM_FRAME) != 0)
        return -1;
    int rc = 0;
    uint32_t nf = 0;
    jclass cc = (*env)->FindClass(env, "java/lang/Class");
    hdm_field *fs = cc ? hdm_fields(st, cc, L, &nf) : NULL;
    hdm_extra *tmp = fs ? malloc(sizeof *tmp + sizeof tmp->f[0] * (nf ? nf : 1)) : NULL;
    if (!tmp) {
        free(fs);
        (*env)->PopLocalFrame(env, NULL);
        return -1;
    }
    for (int i = 0; i < nk; i++) {
        hp_class *c = cls_get(st->j, ks[i]);
        if (!c || !c->layout || hu_map_get(&st->mirrors.extra, c->index))
            continue;
        /* the mirror itself: JVMTI reaches the classes of the boot loader
         * (SYSTEM_CLASS roots) and those referred to, but not a class of
         * another loader that nothing refers to (no instance, no use):
         * its statics, loader and protection domain would be missing */
        if (!hdm_keep(st, env, ks[i]))
            rc = -1;
        /* JVMTI reports nothing of a class never linked, not even its
         * loader, which HotSpot's CLASS DUMP names */
        jobject ld = NULL;
        jlong lt = 0;
        if ((*st->j)->GetClassLoader(st->j, ks[i], &ld) == JVMTI_ERROR_NONE && ld &&
            (*st->j)->GetTag(st->j, ld, &lt) == JVMTI_ERROR_NONE && lt == 0 &&
            (*st->j)->SetTag(st->j, ld, lt = hd_new_tag(st)) != JVMTI_ERROR_NONE)
            lt = 0;
        if (lt && !HP_TAG_IS_CLASS((uint64_t)lt) && hu_map_put(&st->mirrors.loader, c->index, hd_id(st, lt)))
            rc = -1;
        (*env)->DeleteLocalRef(env, ld);
        hdm_extra *ex = hdm_class_extra(st, env, ks[i], cc, fs, nf, tmp);
        if (ex && hu_map_put(&st->mirrors.extra, c->index, (uint64_t)(uintptr_t)ex)) {
            free(ex);
            rc = -1;
        }
    }
    if (hdm_primitives(st, env, cc, L, fs, nf))
        rc = -1;
    free(tmp);
    free(fs);
    (*env)->PopLocalFrame(env, NULL);
    return rc;
}

int hdm_own_root(hdm_state *m, jlong tag)
{
    uint64_t *n = m->own.count ? hu_map_get(&m->own, (uint64_t)tag) : NULL;
    if (!n || !*n)
        return 0;
    (*n)--;
    return 1;
}

const hdm_extra *hdm_extra_of(const hdm_state *m, uint32_t index)
{
    uint64_t *v = m->extra.count ? hu_map_get(&m->extra, index) : NULL;
    return v ? (const hdm_extra *)(uintptr_t)*v : NULL;
}

uint64_t hdm_loader_of(const hdm_state *m, uint32_t index)
{
    uint64_t *v = m->loader.count ? hu_map_get(&m->loader, index) : NULL;
    return v ? *v : 0;
}

const uint8_t *hdm_prim_data(const hdm_state *m, jlong tag)
{
    uint64_t *v = m->prim.count ? hu_map_get(&m->prim, (uint64_t)tag) : NULL;
    return v ? (const uint8_t *)(uintptr_t)*v : NULL;
}

void hdm_release(hdm_state *m, JNIEnv *env)
{
    for (uint32_t i = 0; i < m->nglobals; i++)
        (*env)->DeleteGlobalRef(env, m->globals[i]);
    m->nglobals = 0;
}

void hdm_cleanup(hdm_state *m, JNIEnv *env)
{
    if (env)
        hdm_release(m, env);
    uint64_t k, v;
    for (size_t it = 0; hu_map_next(&m->extra, &it, &k, &v);)
        free((void *)(uintptr_t)v);
    for (size_t it = 0; hu_map_next(&m->prim, &it, &k, &v);)
        free((void *)(uintptr_t)v);
    hu_map_cleanup(&m->extra);
    hu_map_cleanup(&m->prim);
    hu_map_cleanup(&m->own);
    hu_map_cleanup(&m->loader);
    free(m->globals);
    free(m->names);
    memset(m, 0, sizeof *m);
}
