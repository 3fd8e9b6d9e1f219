/*
 * classes.c: the class table (see classes.h).
 */
#include "classes.h"

#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "agent.h"
#include "hprof/hprof_format.h"
#include "jx.h"
#include "names.h"
#include "out.h"

int cls_init(void)
{
    return vec_init(&g_hp.classes, sizeof(hp_class));
}

void cls_cleanup(void)
{
    for (uint32_t i = 1; i < g_hp.classes.count; i++)
        free(cls_at(i)->name_java);
    vec_cleanup(&g_hp.classes);
}

hp_class *cls_at(uint32_t index)
{
    return vec_at(&g_hp.classes, index);
}

uint32_t cls_count(void)
{
    return __atomic_load_n(&g_hp.classes.count, __ATOMIC_ACQUIRE);
}

int cls_prim_type(char c)
{
    switch (c) {
    case 'Z': return HPROF_TYPE_BOOLEAN;
    case 'C': return HPROF_TYPE_CHAR;
    case 'F': return HPROF_TYPE_FLOAT;
    case 'D': return HPROF_TYPE_DOUBLE;
    case 'B': return HPROF_TYPE_BYTE;
    case 'S': return HPROF_TYPE_SHORT;
    case 'I': return HPROF_TYPE_INT;
    case 'J': return HPROF_TYPE_LONG;
    default: return 0;
    }
}

static const char *cls_prim_name(char c)
{
    switch (c) {
    case 'Z': return "boolean";
    case 'C': return "char";
    case 'F': return "float";
    case 'D': return "double";
    case 'B': return "byte";
    case 'S': return "short";
    case 'I': return "int";
    case 'J': return "long";
    case 'V': return "void";
    default: return NULL;
    }
}

int cls_names_of_signature(const char *sig, char **vm, char **java)
{
    unsigned dims = 0;
    while (sig[dims] == '[')
        dims++;
    const char *elem = sig + dims;
    size_t elen = strlen(elem);
    int type = 0;
    /* VM form: arrays keep their descriptor, plain classes lose L...; */
    if (dims == 0 && elem[0] == 'L' && elen >= 2 && elem[elen - 1] == ';')
        *vm = strndup(elem + 1, elen - 2);
    else
        *vm = strdup(sig);
    /* a hidden class: JVMTI writes "Foo$$Lambda.0x1234", HotSpot's own
     * dumper "Foo$$Lambda+0x1234" ('.' is no legal class name char), in
     * array descriptors too; the Java form below keeps the '+', so text and
     * binary output spell it the same way, as HotSpot does */
    for (char *p = *vm; p && *p; p++)
        if (*p == '.')
            *p = '+';
    /* Java form: dots, and [] per dimension */
    const char *base;
    size_t blen;
    const char *prim = elen == 1 ? cls_prim_name(elem[0]) : NULL;
    if (prim) {
        base = prim;
        blen = strlen(prim);
    } else if (elem[0] == 'L' && elen >= 2 && elem[elen - 1] == ';') {
        base = elem + 1;
        blen = elen - 2;
    } else {
        base = elem;
        blen = elen;
    }
    *java = malloc(blen + 2 * dims + 1);
    if (*java) {
        for (size_t i = 0; i < blen; i++)
            (*java)[i] = base[i] == '.' ? '+' : base[i] == '/' ? '.' : base[i];
        for (unsigned d = 0; d < dims; d++)
            memcpy(*java + blen + 2 * d, "[]", 2);
        (*java)[blen + 2 * dims] = 0;
    }
    if (dims == 1 && elen == 1)
        type = cls_prim_type(elem[0]);
    else if (dims >= 1)
        type = HPROF_TYPE_OBJECT;
    return type;
}

hp_class *cls_get(jvmtiEnv *j, jclass k)
{
    jlong tag = 0;
    int is_new = 0;
    if ((*j)->GetTag(j, k, &tag) == JVMTI_ERROR_NONE && HP_TAG_IS_CLASS(tag))
        return cls_at((uint32_t)(tag & 0xFFFFFFFFu));
    char *sig = NULL;
    if (jx_class_signature(j, k, &sig) != JVMTI_ERROR_NONE || !sig)
        return NULL;
    char *vm = NULL, *java = NULL;
    int type = cls_names_of_signature(sig, &vm, &java);
    jx_free(j, sig);
    hp_class *c = NULL;
    if (!vm || !java)
        goto out;
    jx_lock(j, g_hp.data_lock);
    /* another thread may have registered it meanwhile: GetTag/SetTag are
     * quick and never call back into Java, so they are safe under the lock */
    if ((*j)->GetTag(j, k, &tag) == JVMTI_ERROR_NONE && HP_TAG_IS_CLASS(tag)) {
        c = cls_at((uint32_t)(tag & 0xFFFFFFFFu));
    } else {
        uint32_t name = str_intern(vm, strlen(vm));
        uint32_t idx = name ? vec_push(&g_hp.classes) : 0;
        if (idx) {
            /* every field is set before the tag publishes the entry: other
             * threads find it through GetTag without taking data_lock */
            c = cls_at(idx);
            c->index = idx;
            c->serial = HP_CLASS_SERIAL0 + idx - 1;
            c->name_vm = name;
            c->name_java = java;
            c->array_type = (uint8_t)type;
            if ((*j)->SetTag(j, k, (jlong)(HP_TAG_CLASS | idx)) == JVMTI_ERROR_NONE) {
                java = NULL;
                is_new = 1;
            } else {
                c->serial = 0; /* a dead slot: output skips serial 0 */
                c->name_java = NULL;
                c = NULL;
            }
        }
    }
    jx_unlock(j, g_hp.data_lock);
out:
    free(vm);
    free(java);
    if (c && is_new)
        out_load_class(c);
    return c;
}

int cls_scan_loaded(jvmtiEnv *j, JNIEnv *env)
{
    if (!env)
        return -1;
    /* only classes registered before GetLoadedClasses can be judged by its
     * answer; one registered meanwhile is loaded */
    uint32_t n = cls_count();
    uint8_t *seen = calloc(n ? n : 1, 1);
    if (!seen) {
        hp_error("out of memory looking for unloaded classes");
        return -1;
    }
    if ((*env)->PushLocalFrame(env, 64) != 0) {
        free(seen);
        return -1;
    }
    jint nk = 0;
    jclass *ks = NULL;
    if (jx_report(j, (*j)->GetLoadedClasses(j, &nk, &ks), "GetLoadedClasses") != JVMTI_ERROR_NONE) {
        (*env)->PopLocalFrame(env, NULL);
        free(seen);
        return -1;
    }
    (*env)->EnsureLocalCapacity(env, nk + 64);
    for (jint i = 0; i < nk; i++) {
        /* cls_get, not GetTag alone: a class another thread is registering
         * right now is not tagged yet, and must not be taken as unloaded */
        hp_class *c = cls_get(j, ks[i]);
        if (c && c->index < n)
            seen[c->index] = 1;
    }
    jx_free(j, ks);
    (*env)->PopLocalFrame(env, NULL);
    int gone = 0;
    for (uint32_t i = 1; i < n; i++) {
        hp_class *c = cls_at(i);
        if (!seen[i] && c->serial && !c->unloaded) {
            c->unloaded = 1;
            gone++;
        }
    }
    free(seen);
    return gone;
}
