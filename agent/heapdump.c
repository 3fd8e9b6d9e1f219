/*
 * heapdump.c: heap=dump|all (see heapdump.h).
 *
 * Owns the dump tag sequence (g_hp.dump_seq) and, for the length of one
 * dump, the walk state (hd_state, hdstate.h). Class layouts: hdlayout.c;
 * what the walk meets of classes loaded meanwhile: logged in hdlate.c,
 * resolved and written after the walk by hdresolve.c.
 *
 * The walk's callbacks run on the VM thread inside one VM operation: they
 * may call no JNI or JVMTI function and take no agent lock (a Java thread
 * stopped at the safepoint may hold one). They only read tables that are
 * complete before the walk and write to the output, which the dumping
 * thread holds (out_dump_begin) for them.
 *
 * HotSpot reports an object's references, primitive fields and array
 * contents together when it visits the object, the class reference first,
 * and array elements in index order: the walk keeps one "current" object
 * and emits it when the next one starts.
 */
#include "heapdump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "classes.h"
#include "hprof/hprof_format.h"
#include "hprof/hw_writer.h"
#include "hdgz.h"
#include "hdmirror.h"
#include "hdresolve.h"
#include "hdtimes.h"
#include "hdvthread.h"
#include "jx.h"
#include "names.h"
#include "out.h"
#include "print.h"
#include "sites.h"
#include "threads.h"
#include "traces.h"

#define HD_PAGE 4096u        /* madvise granularity (a multiple of every page size is fine) */
#define HD_DROP_EVERY (64u << 20) /* bytes of a copied file between two MADV_DONTNEED */
/* A file the dump overwrites in place reserves this many bytes before its
 * heap dump for the names and LOAD CLASS records of classes loaded during
 * the walk (about 300 classes), as an unused UTF8 record of this id, far
 * above the name table's ids and below the in-band messages' */
#define HD_RESERVE 65536u
#define HD_RESERVE_ID 0x7FFFFFF0u

/* The class of the dump's set that `class_tag` names; NULL for any other
 * (untagged, late). */
static inline hp_class *hd_class_of_tag(const hd_state *st, jlong class_tag)
{
    if (!HP_TAG_IS_CLASS((uint64_t)class_tag))
        return NULL;
    uint32_t i = (uint32_t)((uint64_t)class_tag & 0xFFFFFFFFu);
    return i && i < st->ncls && st->incl[i] ? cls_at(i) : NULL;
}

/* The bits of primitive value v of HPROF type `type`. */
static uint64_t hd_prim_bits(jvalue v, int type)
{
    switch (type) {
    case HPROF_TYPE_BOOLEAN: return v.z;
    case HPROF_TYPE_BYTE: return (uint8_t)v.b;
    case HPROF_TYPE_CHAR: return v.c;
    case HPROF_TYPE_SHORT: return (uint16_t)v.s;
    case HPROF_TYPE_INT: return (uint32_t)v.i;
    case HPROF_TYPE_FLOAT: {
        uint32_t u;
        memcpy(&u, &v.f, 4);
        return u;
    }
    case HPROF_TYPE_LONG: return (uint64_t)v.j;
    case HPROF_TYPE_DOUBLE: {
        uint64_t u;
        memcpy(&u, &v.d, 8);
        return u;
    }
    default: return 0;
    }
}

/* The CLASS DUMP of c into w, with what the walk found (cs), or zeros and
 * null references when it found nothing: the same length either way, so
 * the dumps written before the walk can be overwritten after it. */
void hd_class_dump(hd_state *st, hw_writer *w, hp_class *c, const hd_cstat *cs)
{
    hd_layout *L = c->layout;
    if (!L) {
        /* registered while the dump was being prepared (loaded meanwhile):
         * no layout, but references to it still resolve */
        hw_class bare = {.class_id = hd_class_id(st, c), .trace_serial = HP_TRACE_SERIAL0};
        hw_class_dump(w, &bare);
        return;
    }
    const hdm_extra *ex = hdm_extra_of(&st->mirrors, c->index);
    uint32_t nstatic = (uint32_t)L->nstatic + (ex ? ex->n : 0);
    if (nstatic > UINT16_MAX) { /* a CLASS DUMP's u2: its own statics first */
        ex = NULL;
        nstatic = L->nstatic;
    }
    size_t need = (size_t)nstatic * sizeof(hw_static_field) + (size_t)L->ninst * sizeof(hw_field);
    if (need > st->cdcap) {
        void *nb = realloc(st->cdbuf, need);
        if (!nb) {
            st->err = ENOMEM;
            return;
        }
        st->cdbuf = nb;
        st->cdcap = need;
    }
    hw_static_field *sf = st->cdbuf;
    hw_field *ff = (hw_field *)(sf + nstatic);
    for (uint16_t f = 0; f < L->nown; f++) {
        uint16_t s = L->own_slot[f];
        if (L->own_static[f]) {
            sf[s].name_id = L->own_name[f];
            sf[s].value.type = L->own_type[f];
            sf[s].value.u = cs ? cs->statics[s].u : 0;
        } else {
            ff[s].name_id = L->own_name[f];
            ff[s].type = L->own_type[f];
        }
    }
    /* the objects its mirror holds, after its own statics (hdmirror.h) */
    for (uint16_t e = 0; ex && e < ex->n; e++) {
        sf[L->nstatic + e].name_id = ex->f[e].name_id;
        sf[L->nstatic + e].value.type = HPROF_TYPE_OBJECT;
        sf[L->nstatic + e].value.u = ex->f[e].id;
    }
    /* an interface's super is java.lang.Object, as in HotSpot's dumps (its
     * Klass has that super; JNI's GetSuperclass says none) */
    uint32_t sup = L->super;
    if (!sup && c->index != st->object_class && !c->array_type)
        sup = st->object_class;
    hw_class cd = {
        .class_id = hd_class_id(st, c),
        .trace_serial = HP_TRACE_SERIAL0,
        .super_id = sup ? hd_class_id(st, cls_at(sup)) : 0,
        .loader_id = cs && cs->loader ? cs->loader : hdm_loader_of(&st->mirrors, c->index),
        .signers_id = cs ? cs->signers : 0,
        .protection_domain_id = cs ? cs->pd : 0,
        .instance_size = L->inst_bytes,
        .nstatics = nstatic,
        .statics = sf,
        .nfields = L->ninst,
        .fields = ff,
    };
    hw_class_dump(w, &cd);
}

/* Every class of the dump (those with a LOAD CLASS), in index order. */
static void hd_class_dumps(hd_state *st, hw_writer *w)
{
    for (uint32_t i = 1; i < st->ncls; i++)
        if (st->incl[i])
            hd_class_dump(st, w, cls_at(i), st->cstat[i]);
}

/* Keeps what the walk found of the class being visited. Called on the VM
 * thread: malloc only. */
static void hd_class_keep(hd_state *st)
{
    hp_class *c = st->cls;
    uint32_t ns = c->layout->nstatic;
    if (st->cstat[c->index])
        return; /* visited once per walk; a second report changes nothing */
    hd_cstat *cs = malloc(sizeof *cs + sizeof cs->statics[0] * ns);
    if (!cs) {
        st->err = ENOMEM;
        return;
    }
    cs->loader = st->loader;
    cs->signers = st->signers;
    cs->pd = st->pd;
    if (ns)
        memcpy(cs->statics, st->statics, sizeof cs->statics[0] * ns);
    st->cstat[c->index] = cs;
}

/* Emits the current object. */
static void hd_finish(hd_state *st)
{
    switch (st->kind) {
    case HD_INSTANCE:
        hw_instance_dump(st->tw, hd_id(st, st->cur), hd_trace_serial(st, st->cur),
                         cls_object_id(st->cls), st->buf, st->L->inst_bytes);
        break;
    case HD_OBJARRAY:
        while (st->next < st->n) {
            hw_put_id(st->tw, 0); /* trailing nulls are kept */
            st->next++;
        }
        hw_sub_end(st->tw);
        break;
    case HD_PRIMARRAY: /* no contents reported: an empty array */
        hw_prim_array_dump(st->tw, hd_id(st, st->cur), hd_trace_serial(st, st->cur),
                           st->cls->array_type, 0, NULL);
        break;
    case HD_CLASS:
        hd_class_keep(st);
        break;
    default:
        break;
    }
    st->kind = HD_NONE;
    st->cur = 0;
}

/* Starts logging object `tag`, of a class outside the dump's set (or a
 * late class's mirror) */
static int hd_late(hd_state *st, jlong tag, jlong class_tag, int is_class)
{
    uint64_t len = 0;
    int64_t length = -1;
    if (!is_class && hu_map_del(&st->arrlen, (uint64_t)tag, &len))
        length = (int64_t)len;
    uint64_t ct = (uint64_t)(is_class ? tag : class_tag);
    if (hl_begin(&st->late, (uint64_t)tag, (uint64_t)class_tag, length, is_class) ||
        (HP_TAG_IS_CLASS(ct) && hl_need(&st->late, (uint32_t)(ct & 0xFFFFFFFFu)))) {
        st->err = ENOMEM;
        return -1;
    }
    st->kind = HD_LATE;
    return 0;
}

/* Starts object `tag` (of class `class_tag`) unless it is the current one.
 * Returns 0, or -1 when the object cannot be followed. */
static int hd_start(hd_state *st, jlong tag, jlong class_tag)
{
    if (tag != st->live_last) { /* each object once: every one reports its class first */
        st->live_last = tag;
        if (st->live.n)
            site_live_count(&st->live, (uint64_t)tag); /* out of memory: a scan instead */
    }
    if (tag == st->cur && st->kind != HD_NONE)
        return 0;
    hd_finish(st);
    if (tag == st->cut && tag != 0) {
        st->err = EPROTO;
        return -1;
    }
    st->cur = tag;
    if (HP_TAG_IS_CLASS((uint64_t)tag)) {
        hp_class *c = hd_class_of_tag(st, tag);
        if (!c || !c->layout)
            return hd_late(st, tag, class_tag, 1);
        st->kind = HD_CLASS;
        st->cls = c;
        uint32_t ns = c->layout->nstatic;
        if (ns > st->stcap) {
            hw_value *nv = realloc(st->statics, sizeof *nv * ns);
            if (!nv) {
                st->err = ENOMEM;
                return -1;
            }
            st->statics = nv;
            st->stcap = ns;
        }
        memset(st->statics, 0, sizeof *st->statics * (ns ? ns : 0));
        st->loader = st->signers = st->pd = 0;
        return 0;
    }
    hp_class *c = hd_class_of_tag(st, class_tag);
    if (c && c->index == st->class_class)
        return -1; /* the mirror of a class not registered yet (linked, its
                      ClassPrepare not seen): written once after the walk,
                      as a plain Class object (mirror_set), never twice */
    if (!c || !c->layout)
        return hd_late(st, tag, class_tag, 0);
    st->cls = c;
    st->L = c->layout;
    if (st->L->kind == HD_INSTANCE) {
        if (st->L->inst_bytes > st->bufcap) {
            uint8_t *nb = realloc(st->buf, st->L->inst_bytes);
            if (!nb) {
                st->err = ENOMEM;
                return -1;
            }
            st->buf = nb;
            st->bufcap = st->L->inst_bytes;
        }
        memset(st->buf, 0, st->L->inst_bytes);
        st->kind = HD_INSTANCE;
    } else if (st->L->kind == HD_OBJARRAY) {
        uint64_t len = 0;
        if (!hu_map_del(&st->arrlen, (uint64_t)tag, &len)) {
            st->err = EPROTO; /* visited before it was ever referenced */
            return -1;
        }
        st->n = (uint32_t)len;
        st->next = 0;
        hw_obj_array_begin(st->tw, hd_id(st, tag), hd_trace_serial(st, tag), cls_object_id(c), st->n);
        st->kind = HD_OBJARRAY;
    } else {
        st->kind = HD_PRIMARRAY;
    }
    return 0;
}

/* The serial of the thread whose object is tagged `ttag`, after its THREAD
 * OBJECT root (written once, before any root of its stack: readers need
 * it first). A thread the dump's list of threads missed (it started since)
 * gets a serial of the dump's own and the empty trace. 0: no such thread
 * (an untagged thread object). */
static uint32_t hd_thread_root(hd_state *st, jlong ttag)
{
    if (!ttag)
        return 0;
    int ins = 0;
    uint64_t *v = hu_map_upsert(&st->threads, (uint64_t)ttag,
                                (HD_LATE_THREAD_SERIAL0 + st->late_threads) |
                                    ((uint64_t)HP_TRACE_SERIAL0 << 32),
                                &ins);
    if (!v) {
        st->err = ENOMEM;
        return 0;
    }
    if (ins)
        st->late_threads++;
    uint32_t ser = (uint32_t)*v;
    if (!(*v & HD_THR_WRITTEN)) {
        *v |= HD_THR_WRITTEN;
        hw_root(st->rw, HPROF_GC_ROOT_THREAD_OBJ, hd_id(st, ttag), ser,
                (uint32_t)((*v >> 32) & 0x7FFFFFFFu), 0);
    }
    return ser;
}

/* A root the VM holds itself (see hd_root): JNI GLOBAL, or with
 * shape=original the kind the original wrote, `orig`. */
static void hd_vm_root(hd_state *st, hprof_id id, uint8_t orig)
{
    if (st->jvmti_roots)
        hw_root(st->rw, orig, id, 0, 0, 0);
    else
        hw_root(st->rw, HPROF_GC_ROOT_JNI_GLOBAL, id, 0, 0, ++st->jni_globals);
}

/* A root. `is_class`: the object is a class (a mirror).
 *
 * By default only the kinds HotSpot's own dumper writes (JNI GLOBAL, JNI
 * LOCAL, JAVA FRAME, STICKY CLASS, THREAD OBJECT: readers such as
 * google/hprof-parser stop at any other). What JVMTI reports besides
 * (SYSTEM_CLASS reports of objects that are not classes: objects the VM's
 * class loader data and its own handles hold, preallocated errors...;
 * MONITOR; OTHER) is held by the VM through OopStorage handles, which is
 * what a JNI global reference is in HotSpot: written as JNI GLOBAL, so every
 * object stays reachable. Never written (shape=original neither): the JNI
 * locals of the dumping thread (the agent's own references, which HotSpot's
 * dumper, run by the VM thread, has not) and the agent's references to the
 * mirrors and what they hold (hdmirror.h), reachable from their classes
 * instead. */
static void hd_root(hd_state *st, jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                    jlong tag, jlong class_tag, hprof_id id, int is_class)
{
    uint32_t tser = 0;
    /* a carrier's mounted virtual thread, whose frames follow (hdvthread.h) */
    int vthread = kind == JVMTI_HEAP_REFERENCE_OTHER && st->vthread_class &&
                  class_tag == (jlong)(HP_TAG_CLASS | st->vthread_class);
    if (vthread)
        st->vt_cur = tag;
    else if (kind == JVMTI_HEAP_REFERENCE_THREAD)
        st->vt_cur = 0;
    /* the agent's own references are no roots of the program's, whatever
     * the shape asked for */
    if (kind == JVMTI_HEAP_REFERENCE_JNI_GLOBAL && hdm_own_root(&st->mirrors, tag))
        return;
    if (kind == JVMTI_HEAP_REFERENCE_JNI_LOCAL && st->self_tag && info->jni_local.thread_tag == st->self_tag)
        return;
    /* HotSpot reports every root before it visits any object; were one to
     * come inside an object, the object is ended there and the rest of it
     * is refused (EPROTO), never written twice or around the root */
    if (st->rw == st->tw && st->kind != HD_NONE) {
        st->cut = st->cur; /* should it come back, it is refused */
        hd_finish(st);
    }
    if (kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL || kind == JVMTI_HEAP_REFERENCE_JNI_LOCAL) {
        jlong ttag = kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL ? info->stack_local.thread_tag
                                                              : info->jni_local.thread_tag;
        if (!ttag) /* a virtual thread that had no tag when the walk began */
            ttag = st->vt_cur;
        tser = hd_thread_root(st, ttag);
        if (!tser) { /* a stack of no known thread: no serial to name */
            hd_vm_root(st, id, HPROF_GC_ROOT_UNKNOWN);
            return;
        }
    }
    if (vthread && !st->jvmti_roots) { /* a thread of the dump, as HotSpot writes it */
        hd_thread_root(st, tag);
        return;
    }
    switch (kind) {
    case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS:
        if (is_class)
            hw_root(st->rw, HPROF_GC_ROOT_STICKY_CLASS, id, 0, 0, 0);
        else /* an object that is no class: one the VM holds (see above) */
            hd_vm_root(st, id, HPROF_GC_ROOT_UNKNOWN);
        break;
    case JVMTI_HEAP_REFERENCE_JNI_GLOBAL:
        hw_root(st->rw, HPROF_GC_ROOT_JNI_GLOBAL, id, 0, 0, ++st->jni_globals);
        break;
    case JVMTI_HEAP_REFERENCE_MONITOR:
        hd_vm_root(st, id, HPROF_GC_ROOT_MONITOR_USED);
        break;
    case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
        hw_root(st->rw, HPROF_GC_ROOT_JAVA_FRAME, id, tser, (uint32_t)info->stack_local.depth, 0);
        break;
    case JVMTI_HEAP_REFERENCE_JNI_LOCAL:
        hw_root(st->rw, HPROF_GC_ROOT_JNI_LOCAL, id, tser, (uint32_t)info->jni_local.depth, 0);
        break;
    case JVMTI_HEAP_REFERENCE_THREAD:
        hd_thread_root(st, tag);
        break;
    default: /* OTHER: no other root kind exists in JVMTI */
        hd_vm_root(st, id, HPROF_GC_ROOT_UNKNOWN);
        break;
    }
}

/* called at a safepoint on the VM thread: no JNI, no JVMTI, no locks */
static jint JNICALL hd_ref_cb(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                              jlong class_tag, jlong referrer_class_tag, jlong size, jlong *tag_ptr,
                              jlong *referrer_tag_ptr, jint length, void *ud)
{
    (void)size;
    hd_state *st = ud;
    if (st->err)
        return JVMTI_VISIT_ABORT;
    if (!st->walk_tid) { /* the walk's first callback (a root): the thread's counters now */
        st->walk_tid = (long)syscall(SYS_gettid);
        if (hdt_sched_read(st->walk_tid, st->walk_sched))
            st->walk_tid = -1;
    }
    jlong t = *tag_ptr;
    hp_class *rc = hd_class_of_tag(st, class_tag); /* the referee's class */
    if (t == 0) {
        t = hd_new_tag(st);
        *tag_ptr = t;
    }
    if (rc && rc->index == st->class_class && !HP_TAG_IS_CLASS((uint64_t)t)) {
        /* a Class object that is no registered class (a primitive type's
         * mirror, a CDS-archived class not loaded): the walk never visits
         * it; written as an instance of java.lang.Class, once per dump,
         * after the walk (an object array may be half written now) */
        int ins = 0;
        if (!hu_map_upsert(&st->mirror_set, (uint64_t)t, 1, &ins)) {
            st->err = ENOMEM;
            return JVMTI_VISIT_ABORT;
        }
    }
    /* object arrays need their length when visited; so do arrays of a
     * class outside the dump's set (hd_late) */
    if (length >= 0 && (!rc || (rc->layout && rc->layout->kind == HD_OBJARRAY))) {
        int ins = 0;
        if (!hu_map_upsert(&st->arrlen, (uint64_t)t, (uint64_t)length, &ins)) {
            st->err = ENOMEM;
            return JVMTI_VISIT_ABORT;
        }
    }
    hprof_id id = hd_id(st, t);
    if (!referrer_tag_ptr) {
        if (id)
            hd_root(st, kind, info, t, class_tag, id,
                    HP_TAG_IS_CLASS((uint64_t)t) || (rc && rc->index == st->class_class));
        return JVMTI_VISIT_OBJECTS;
    }
    jlong r = *referrer_tag_ptr;
    if (hd_start(st, r, referrer_class_tag))
        return st->err ? JVMTI_VISIT_ABORT : JVMTI_VISIT_OBJECTS;
    switch (st->kind) {
    case HD_INSTANCE:
        if (kind == JVMTI_HEAP_REFERENCE_FIELD) {
            uint32_t i = (uint32_t)info->field.index;
            if (i < st->L->nidx && st->L->idx_off[i] >= 0)
                hd_put_be(st->buf + st->L->idx_off[i], st->idsz, id);
        }
        break;
    case HD_LATE: {
        uint32_t i = 0;
        if (kind == JVMTI_HEAP_REFERENCE_CLASS) { /* its class's mirror: the raw tag */
            if (hl_value(&st->late, (uint8_t)kind, 0, HPROF_TYPE_OBJECT, (uint64_t)t)) {
                st->err = ENOMEM;
                return JVMTI_VISIT_ABORT;
            }
            break;
        }
        if (kind == JVMTI_HEAP_REFERENCE_FIELD || kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD)
            i = (uint32_t)info->field.index;
        else if (kind == JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT)
            i = (uint32_t)info->array.index;
        else if (kind != JVMTI_HEAP_REFERENCE_CLASS_LOADER && kind != JVMTI_HEAP_REFERENCE_SIGNERS &&
                 kind != JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN)
            break;
        if (hl_value(&st->late, (uint8_t)kind, i, HPROF_TYPE_OBJECT, id)) {
            st->err = ENOMEM;
            return JVMTI_VISIT_ABORT;
        }
        break;
    }
    case HD_OBJARRAY:
        if (kind == JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT) {
            uint32_t i = (uint32_t)info->array.index;
            if (i < st->next || i >= st->n) {
                st->err = EPROTO; /* not in index order */
                return JVMTI_VISIT_ABORT;
            }
            while (st->next < i) {
                hw_put_id(st->tw, 0);
                st->next++;
            }
            hw_put_id(st->tw, id);
            st->next++;
        }
        break;
    case HD_CLASS: {
        hd_layout *L = st->cls->layout;
        if (kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD) {
            uint32_t i = (uint32_t)info->field.index;
            if (i >= L->first_idx && i < L->nidx && L->own_static[i - L->first_idx])
                st->statics[L->own_slot[i - L->first_idx]].u = id;
        } else if (kind == JVMTI_HEAP_REFERENCE_CLASS_LOADER) {
            st->loader = id;
        } else if (kind == JVMTI_HEAP_REFERENCE_SIGNERS) {
            st->signers = id;
        } else if (kind == JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN) {
            st->pd = id;
        }
        break;
    }
    default:
        break;
    }
    return JVMTI_VISIT_OBJECTS;
}

static jint JNICALL hd_prim_cb(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info,
                               jlong object_class_tag, jlong *object_tag_ptr, jvalue value,
                               jvmtiPrimitiveType value_type, void *ud)
{
    hd_state *st = ud;
    if (st->err)
        return JVMTI_VISIT_ABORT;
    if (hd_start(st, *object_tag_ptr, object_class_tag))
        return st->err ? JVMTI_VISIT_ABORT : 0;
    int type = cls_prim_type((char)value_type);
    uint32_t i = (uint32_t)info->field.index;
    /* redact=y: the value never reaches the output; String.coder (its only
     * byte field) is kept so that readers tell a string's length in chars */
    uint64_t bits = hd_prim_bits(value, type);
    if (st->redact && !(st->kind == HD_INSTANCE && st->cls && st->string_class &&
                        st->cls->index == st->string_class && type == HPROF_TYPE_BYTE))
        bits = 0;
    if (st->kind == HD_INSTANCE && kind == JVMTI_HEAP_REFERENCE_FIELD) {
        if (i < st->L->nidx && st->L->idx_off[i] >= 0 && st->L->idx_type[i] == type)
            hd_put_be(st->buf + st->L->idx_off[i], hprof_type_size((unsigned)type, st->idsz),
                      bits);
    } else if (st->kind == HD_CLASS && kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD) {
        hd_layout *L = st->cls->layout;
        if (i >= L->first_idx && i < L->nidx && L->own_static[i - L->first_idx])
            st->statics[L->own_slot[i - L->first_idx]].u = bits;
    } else if (st->kind == HD_LATE && (kind == JVMTI_HEAP_REFERENCE_FIELD ||
                                       kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD)) {
        if (hl_value(&st->late, (uint8_t)kind, i, (uint8_t)type, bits)) {
            st->err = ENOMEM;
            return JVMTI_VISIT_ABORT;
        }
    }
    return 0;
}

/* redact=y: `n` bytes of zeros, from a read-only anonymous mapping (the
 * kernel's zero page: no memory, whatever the largest array), grown as
 * needed. No JNI or JVMTI: a walk callback may call it. */
static const void *hd_zeros(hd_state *st, size_t n)
{
    if (n <= st->nzeros)
        return st->zeros;
    size_t want = (n + (1u << 20)) & ~(size_t)((1u << 20) - 1);
    void *m = mmap(NULL, want, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        st->err = ENOMEM;
        return NULL;
    }
    if (st->zeros)
        munmap((void *)st->zeros, st->nzeros);
    st->zeros = m;
    st->nzeros = want;
    return m;
}

static jint JNICALL hd_array_cb(jlong class_tag, jlong size, jlong *tag_ptr, jint count,
                                jvmtiPrimitiveType type, const void *elements, void *ud)
{
    (void)size;
    hd_state *st = ud;
    if (st->err)
        return JVMTI_VISIT_ABORT;
    if (*tag_ptr == 0)
        *tag_ptr = hd_new_tag(st);
    jlong t = *tag_ptr;
    if (hd_start(st, t, class_tag))
        return st->err ? JVMTI_VISIT_ABORT : 0;
    uint8_t ht = (uint8_t)cls_prim_type((char)type);
    if (st->redact && count > 0) {
        elements = hd_zeros(st, (size_t)count * hprof_type_size(ht, st->idsz));
        if (!elements)
            return JVMTI_VISIT_ABORT;
    }
    if (st->kind == HD_LATE) {
        hl_obj *o = &st->late.objs[st->late.nobj - 1];
        o->length = count;
        if (hl_elements(&st->late, ht, elements, (size_t)count * hprof_type_size(ht, st->idsz))) {
            st->err = ENOMEM;
            return JVMTI_VISIT_ABORT;
        }
    } else {
        hw_prim_array_dump(st->tw, hd_id(st, t), hd_trace_serial(st, t), ht, (uint32_t)count, elements);
    }
    st->kind = HD_DONE;
    return 0;
}

/* ------------------------------------------------------------ the dump */

/* The next HEAP DUMP SEGMENT's body in the complete HPROF file p[0..n): a
 * walk of the record headers only (hr_parse would decode every sub-record,
 * and delivers segments by sub-record). *pos starts at 0 (the file header
 * is skipped then). Returns 1 with *body and *len set, 0 at the end, or -1
 * when the file is cut short. */
static int hd_next_segment(const uint8_t *p, size_t n, size_t *pos, const uint8_t **body,
                           uint32_t *len)
{
    if (*pos == 0) { /* header: "JAVA PROFILE 1.0.2\0", u4 id size, u8 time */
        const uint8_t *z = memchr(p, 0, n);
        if (!z || (size_t)(p + n - z) < 13)
            return -1;
        *pos = (size_t)(z - p) + 13;
    }
    while (n - *pos >= HPROF_RECORD_HEADER_SIZE) {
        const uint8_t *q = p + *pos;
        uint32_t rl = (uint32_t)q[5] << 24 | (uint32_t)q[6] << 16 | (uint32_t)q[7] << 8 | q[8];
        if (n - *pos - HPROF_RECORD_HEADER_SIZE < rl)
            return -1;
        *pos += HPROF_RECORD_HEADER_SIZE + (size_t)rl;
        if (q[0] == HPROF_TAG_HEAP_DUMP_SEGMENT) {
            *body = q + HPROF_RECORD_HEADER_SIZE;
            *len = rl;
            return 1;
        }
    }
    return *pos == n ? 0 : -1;
}

/* Copies the temporary file's heap segments into the output, verbatim. */
static int hd_copy_segments(hd_state *st, int fd)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return errno;
    if (sb.st_size == 0)
        return 0;
    void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED)
        return errno;
    madvise(map, (size_t)sb.st_size, MADV_SEQUENTIAL);
    size_t pos = 0, dropped = 0;
    const uint8_t *body;
    uint32_t len;
    int r;
    while ((r = hd_next_segment(map, (size_t)sb.st_size, &pos, &body, &len)) == 1) {
        if (hw_heap_segment_raw(st->mw, body, len))
            break;
        /* what is copied leaves the process's memory (RSS): the file's pages
         * stay in the page cache for the kernel to keep or drop */
        size_t done = pos & ~(size_t)(HD_PAGE - 1);
        if (done > dropped + HD_DROP_EVERY) {
            madvise((uint8_t *)map + dropped, done - dropped, MADV_DONTNEED);
            dropped = done;
        }
    }
    munmap(map, (size_t)sb.st_size);
    return r < 0 ? EPROTO : 0;
}

/* Tags every live thread's object, maps tag -> serial, writes its stack as
 * a TRACE later (returned in traces[]). */
static hd_thread *hd_threads(jvmtiEnv *j, JNIEnv *env, hd_state *st, uint32_t *nout)
{
    *nout = 0;
    jint n = 0;
    jthread *ts = NULL;
    if (jx_report(j, (*j)->GetAllThreads(j, &n, &ts), "GetAllThreads") != JVMTI_ERROR_NONE)
        return NULL;
    hd_thread *out = calloc(n ? (size_t)n : 1, sizeof *out);
    jvmtiFrameInfo *fr = malloc(sizeof *fr * HD_MAX_FRAMES);
    jthread self = NULL;
    if ((*j)->GetCurrentThread(j, &self) != JVMTI_ERROR_NONE)
        self = NULL;
    for (jint i = 0; out && fr && i < n; i++) {
        int framed = (*env)->PushLocalFrame(env, 16) == 0;
        hp_thread *th = thr_other(j, env, ts[i]);
        jlong tag = 0;
        (*j)->GetTag(j, ts[i], &tag);
        if (tag == 0 && (*j)->SetTag(j, ts[i], tag = hd_new_tag(st)) != JVMTI_ERROR_NONE)
            tag = 0;
        if (self && (*env)->IsSameObject(env, self, ts[i]))
            st->self_tag = tag;
        if (tag && !hdm_keep(st, env, ts[i]))
            st->err = ENOMEM;
        jint nf = 0;
        if ((*j)->GetStackTrace(j, ts[i], 0, HD_MAX_FRAMES, fr, &nf) != JVMTI_ERROR_NONE)
            nf = 0;
        if (th && tag) {
            uint32_t ser = th->serial;
            hp_trace *t = trace_get(j, fr, nf, ser, trace_hash(fr, nf, ser));
            out[*nout] = (hd_thread){.tag = tag, .serial = ser, .trace = t ? t : trace_at(1)};
            hp_trace *tt = t ? t : trace_at(1);
            hu_map_put(&st->threads, (uint64_t)tag, ser | ((uint64_t)tt->serial << 32));
            (*nout)++;
        }
        if (framed)
            (*env)->PopLocalFrame(env, NULL);
    }
    /* our JNI locals are no roots (hd_root): hdm_keep holds the threads */
    for (jint i = 0; i < n; i++)
        (*env)->DeleteLocalRef(env, ts[i]);
    (*env)->DeleteLocalRef(env, self);
    free(fr);
    jx_free(j, ts);
    return out;
}

/* UTF8 record of name `id`, once per file (`seen`: ids written). */
void hd_utf8_once(hw_writer *w, hu_map *seen, uint32_t id)
{
    int ins = 0;
    if (!id || !hu_map_upsert(seen, id, 1, &ins) || !ins)
        return;
    hp_str *s = str_get(id);
    hw_utf8(w, id, s->s, s->len);
}


/* A frame's class in a file of its own: its LOAD CLASS, once, whether or
 * not the dump has its CLASS DUMP (a class unloaded since still names the
 * frames of allocation sites; an UNLOAD CLASS follows it then). */
static void hd_frame_class_once(hw_writer *w, hu_map *seen, uint32_t class_serial)
{
    if (class_serial < HP_CLASS_SERIAL0)
        return;
    uint32_t i = class_serial - HP_CLASS_SERIAL0 + 1;
    int ins = 0;
    if (i >= cls_count() || !hu_map_upsert(seen, HD_SEEN_CLASS | i, 1, &ins) || !ins)
        return;
    hp_class *c = cls_at(i);
    if (c->serial != class_serial)
        return;
    hd_utf8_once(w, seen, c->name_vm);
    hw_load_class(w, c->serial, cls_object_id(c), HP_TRACE_SERIAL0, c->name_vm);
    if (c->unloaded)
        hw_unload_class(w, c->serial);
}

static void hd_trace_once(hw_writer *w, hu_map *seen, hu_map *frames, hp_trace *t)
{
    int ins = 0;
    if (!hu_map_upsert(seen, (uint64_t)t->serial << 32, 1, &ins) || !ins)
        return; /* traces keyed apart from UTF8 ids (< 2^32) */
    hprof_id ids[64];
    hprof_id *fid = t->nframes <= 64 ? ids : malloc(sizeof *fid * t->nframes);
    if (!fid)
        return;
    for (uint32_t i = 0; i < t->nframes; i++) {
        hp_frame *f = frame_at(t->frame[i]);
        fid[i] = t->frame[i];
        if (!hu_map_upsert(frames, t->frame[i], 1, &ins) || !ins)
            continue;
        hd_utf8_once(w, seen, f->method_name);
        hd_utf8_once(w, seen, f->method_sig);
        hd_utf8_once(w, seen, f->source);
        hd_frame_class_once(w, seen, f->class_serial);
        hw_frame(w, t->frame[i], f->method_name, f->method_sig, f->source, f->class_serial, f->line);
    }
    hw_trace(w, t->serial, t->thread_serial, t->nframes, fid);
    if (fid != ids)
        free(fid);
}

/* The trace of site i, or NULL: site_get publishes a new site (the count)
 * before it fills it in under data_lock, which a dump does not hold. */
static hp_trace *hd_site_trace(uint32_t i)
{
    return __atomic_load_n(&site_at(i)->trace, __ATOMIC_ACQUIRE);
}

/* A file of its own: everything its heap dump refers to, first: the names
 * of classes and fields, and (with `traces`) the TRACEs with their FRAMEs. */
static void hd_prelude(hd_state *st, const hd_thread *thr, uint32_t nthr, int traces)
{
    hu_map *seen = &st->seen, *frames = &st->frames;
    if (traces)
        hd_trace_once(st->mw, seen, frames, trace_at(1));
    for (uint32_t i = 1; i < st->ncls; i++) {
        hp_class *c = cls_at(i);
        if (!st->incl[i])
            continue;
        hd_utf8_once(st->mw, seen, c->name_vm);
        hu_map_put(seen, HD_SEEN_CLASS | i, 1);
        hw_load_class(st->mw, c->serial, cls_object_id(c), HP_TRACE_SERIAL0, c->name_vm);
        for (uint16_t f = 0; c->layout && f < c->layout->nown; f++)
            hd_utf8_once(st->mw, seen, c->layout->own_name[f]);
    }
    for (uint32_t i = 0; i < st->mirrors.nnames; i++) /* the mirrors' fields as statics */
        hd_utf8_once(st->mw, seen, st->mirrors.names[i]);
    for (uint32_t i = 0; traces && i < nthr; i++)
        hd_trace_once(st->mw, seen, frames, thr[i].trace);
    uint32_t ns = traces ? site_count() : 0;
    if (traces)
        st->site_limit = ns;
    for (uint32_t i = 1; i < ns; i++)
        if (hd_site_trace(i))
            hd_trace_once(st->mw, seen, frames, hd_site_trace(i));
}

#define HD_CUT_MAX 256

/* Keeps the first reason a text dump is incomplete (later ones follow from
 * it) in cut[HD_CUT_MAX]. */
static void hd_cut(char *cut, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hd_cut(char *cut, const char *fmt, ...)
{
    if (cut[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cut, HD_CUT_MAX, fmt, ap);
    va_end(ap);
}

static const char *hd_tmpdir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

/* A temporary file of a heap dump: in $TMPDIR (else /tmp), under a name
 * nobody can guess (mkostemp: O_EXCL, mode 0600), unlinked at once, so
 * nothing is left behind whatever happens, and nobody who can write into
 * the output's directory (or the output itself, /dev/null) can make the
 * dump fail or read it. Returns its fd, or -1 after an HPROF ERROR. */
static int hd_tmpfile(void)
{
    const char *dir = hd_tmpdir();
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/hprof-heapdump.XXXXXX", dir);
    if (n < 0 || (size_t)n >= sizeof path) {
        hp_error("heap dump: cannot create a temporary file in %s: the name is too long "
                 "(set TMPDIR to another directory)", dir);
        return -1;
    }
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        hp_error("heap dump: cannot create a temporary file in %s: %s (set TMPDIR to a "
                 "writable directory with room for the dump)", dir, strerror(errno));
        return -1;
    }
    unlink(path);
    return fd;
}

/* A binary writer into the temporary file `fd` (not closed with it); with
 * `gz`, the file holds gzip members made on its I/O thread (hdgz.h). */
static hw_writer *hd_tmp_writer(int fd, unsigned idsz, hdgz **gz)
{
    hw_options wo;
    hw_options_init(&wo);
    wo.id_size = idsz;
    wo.io_thread = 1;
    hw_sink *sink = NULL;
    if (gz)
        *gz = hdgz_open(fd, &sink);
    else
        sink = hw_sink_fd(fd, 0);
    hw_writer *w = sink ? hw_writer_open(sink, &wo, NULL) : NULL;
    if (!w)
        hp_error("heap dump: out of memory");
    return w;
}

/* format=a: the complete binary dump in `fd` becomes a HEAP DUMP BEGIN ...
 * END section of the text output (tools/print.c renders it, reading the
 * file as a stream: none of it is mapped into the process). The TRACE
 * blocks it refers to (the empty trace, each thread's, each allocation
 * site's) come first, printed once in the whole
 * file like every section's (out.c's written marks). Sites are counted
 * after the walk, so every site an object names is among them. The output
 * stays locked until the section is complete, so no other line falls
 * inside it. `cut` (NULL: the dump is complete) says why the temporary
 * file holds less than the whole heap: the section then says so in a line
 * HEAP DUMP INCOMPLETE before its END, so that nobody reads a cut dump as
 * a small heap. Returns 0, or -1 after an HPROF ERROR. */
static int hd_render_text(int fd, const hd_thread *thr, uint32_t nthr, const char *cut)
{
    hp_out *o = out_dump_begin();
    if (!o)
        return 0; /* the output is closed: nothing to do */
    out_dump_trace(o, trace_at(1));
    for (uint32_t i = 0; i < nthr; i++)
        out_dump_trace(o, thr[i].trace);
    uint32_t ns = site_count();
    for (uint32_t i = 1; i < ns; i++)
        if (hd_site_trace(i))
            out_dump_trace(o, hd_site_trace(i));
    int rc = -1, err = 0;
    hr_source *src = lseek(fd, 0, SEEK_SET) == 0 ? hr_source_fd(fd, &err) : NULL;
    if (!src) {
        hp_error("heap dump: cannot read the temporary file: %s", strerror(err ? err : errno));
        goto out;
    }
    FILE *f = out_dump_text(o);
    if (f) {
        char msg[256];
        int pe = print_heap_dumps_cut(src, f, 0, cut, msg, sizeof msg);
        int oe = out_dump_text_close(o, f); /* a write error is reported by out.c */
        if (pe && !oe)
            hp_error("heap dump: the text of the dump is incomplete: %s", msg);
        rc = pe || oe ? -1 : 0;
    }
    hr_source_close(src);
out:
    out_dump_end(o);
    return rc;
}

/* A writer into memory (*ms) with the dump's id size, for bytes that are
 * copied into the output later; NULL (and *ms NULL) when out of memory. */
static hw_writer *hd_mem_writer(const hd_state *st, hw_sink **ms)
{
    hw_options o;
    hw_options_init(&o);
    o.id_size = st->idsz;
    o.clock = HW_CLOCK_FIXED;
    *ms = hw_sink_memory(0);
    hw_writer *w = *ms ? hw_writer_open(*ms, &o, NULL) : NULL;
    if (!w) {
        hw_sink_free(*ms);
        *ms = NULL;
    }
    return w;
}

/* Every CLASS DUMP of the dump as bare sub-records (the bodies of the
 * segments a memory writer cut them into), malloc'ed; NULL if out of memory
 * (or a u4 would not hold them). With `late`, what hdr_write_heap writes
 * follows them. */
static uint8_t *hd_class_bytes(hd_state *st, uint32_t *len, int late)
{
    hw_sink *ms;
    hw_writer *w = hd_mem_writer(st, &ms);
    uint8_t *out = NULL;
    if (!w)
        goto done;
    hw_heap_begin(w);
    hd_class_dumps(st, w);
    if (late) {
        hw_writer *mw = st->mw;
        st->mw = w;
        hdr_write_heap(st);
        st->mw = mw;
    }
    hw_heap_end(w);
    if (hw_writer_close(w, NULL, 0) || st->err)
        goto done;
    size_t n = 0, k = 0, pos = 0;
    const uint8_t *d = hw_sink_memory_data(ms, &n), *body;
    uint32_t bl;
    if (n > HPROF_U4_MAX || !(out = malloc(n ? n : 1)))
        goto done;
    int r;
    while ((r = hd_next_segment(d, n, &pos, &body, &bl)) == 1) {
        memcpy(out + k, body, bl);
        k += bl;
    }
    if (r < 0) {
        free(out);
        out = NULL;
        goto done;
    }
    *len = (uint32_t)k;
done:
    hw_sink_free(ms);
    if (!out && !st->err)
        st->err = ENOMEM;
    return out;
}

/* An unused UTF8 record of `len` bytes in all (never less than a record
 * header and an id), at the writer's current offset */
static void hd_reserve(hw_writer *w, uint32_t len)
{
    uint32_t text = len - HPROF_RECORD_HEADER_SIZE - hw_writer_id_size(w);
    char *t = malloc(text);
    if (t) {
        memset(t, ' ', text);
        hw_utf8(w, HD_RESERVE_ID, t, text);
    }
    free(t);
}

/* At most the bytes hdr_write_names writes (every name counted) */
static uint64_t hd_names_bound(const hd_state *st)
{
    uint64_t n = 0, rec = HPROF_RECORD_HEADER_SIZE + st->idsz;
    for (uint32_t i = 0; i < st->nlate; i++) {
        hp_class *c = cls_at(st->late_list[i]);
        n += rec + str_get(c->name_vm)->len + rec + 8 + st->idsz;
        for (uint16_t f = 0; c->layout && f < c->layout->nown; f++)
            n += rec + str_get(c->layout->own_name[f])->len;
    }
    return n;
}

/* The reserved region, overwritten with the late classes' names and LOAD
 * CLASS records, then an unused UTF8 record to its end. Should they not
 * fit, they follow the heap dump's end instead (VisualVM reads them there;
 * a single-pass reader names those classes late), and the agent says so. */
static void hd_fill_reserve(hd_state *st, uint64_t at, uint64_t len)
{
    if (hd_names_bound(st) + HPROF_RECORD_HEADER_SIZE + st->idsz > len) {
        st->reserve_short = 1; /* hd_dump writes them after the dump's end */
        return;
    }
    hw_sink *ms;
    hw_writer *w = hd_mem_writer(st, &ms);
    if (!w) {
        st->err = ENOMEM;
        return;
    }
    hdr_write_names(st, w);
    size_t n = 0;
    const uint8_t *d = hw_writer_close(w, NULL, 0) ? NULL : hw_sink_memory_data(ms, &n);
    /* the memory file's header: "JAVA PROFILE 1.0.2\0", u4 id size, u8 time */
    const uint8_t *z = d ? memchr(d, 0, n) : NULL;
    size_t hdr = z ? (size_t)(z - d) + 1 + 4 + 8 : n;
    size_t body = d && n >= hdr ? n - hdr : 0;
    size_t pad = HPROF_RECORD_HEADER_SIZE + st->idsz;
    uint8_t *buf = d && body + pad <= len ? malloc(len) : NULL;
    if (buf) {
        memcpy(buf, d + hdr, body);
        uint8_t *r = buf + body;
        uint64_t tl = len - body - HPROF_RECORD_HEADER_SIZE; /* id + text */
        r[0] = HPROF_TAG_UTF8;
        hd_put_be(r + 1, 4, 0);
        hd_put_be(r + 5, 4, tl);
        hd_put_be(r + 9, st->idsz, HD_RESERVE_ID);
        memset(r + 9 + st->idsz, ' ', tl - st->idsz);
        if (hw_writer_patch(st->mw, at, buf, (size_t)len))
            st->err = EIO;
    }
    if (!buf && !st->err)
        st->err = ENOMEM; /* cannot be short: hd_names_bound said it fits */
    free(buf);
    hw_sink_free(ms);
}

int hd_dump(jvmtiEnv *j, JNIEnv *env, int *counted)
{
    *counted = 0;
    if (!env)
        return -1;
    hd_state st;
    memset(&st, 0, sizeof st);
    st.site_limit = UINT32_MAX;
    st.j = j;
    /* idsize= is for binary output; text shows the ids (the tags) whole */
    int text = !g_hp.o.binary;
    st.idsz = !text && g_hp.o.id_size ? g_hp.o.id_size : 8;
    hu_map_init(&st.threads);
    hu_map_init(&st.arrlen);
    hu_map_init(&st.mirror_set);
    hu_map_init(&st.seen);
    hu_map_init(&st.frames);
    hu_map_init(&st.alias);
    hu_map_init(&st.aliased);
    hdm_init(&st.mirrors);
    st.jvmti_roots = g_hp.o.shape_original;
    st.redact = g_hp.o.redact;
    hl_init(&st.late);
    uint32_t *loaded = NULL;
    int rc = -1, tfd = -1, afd = -1, walked = 0;
    char cut[HD_CUT_MAX] = ""; /* why the dump is incomplete: the first reason */
    hd_thread *thr = NULL;
    hdgz *gz = NULL;
    uint32_t nthr = 0;
    char fpath[sizeof g_hp.outname + 16];
    /* the pause: the VM operations that stop the program (the GC, the
     * walks), timed apart from the whole dump (hdt_report) */
    int64_t t_begin = hp_now_ns(), t_gc = 0, t_walk = 0, t_vt = 0;

    /* not at VM death: the heap walk itself visits only live objects */
    int gc_forced = hp_gc(j);
    t_gc = hp_now_ns() - t_begin;
    /* every loaded class registered, with its layout */
    if ((*env)->PushLocalFrame(env, 64) != 0)
        return -1;
    jint nk = 0;
    jclass *ks = NULL;
    if (jx_report(j, (*j)->GetLoadedClasses(j, &nk, &ks), "GetLoadedClasses") != JVMTI_ERROR_NONE) {
        (*env)->PopLocalFrame(env, NULL);
        return -1;
    }
    (*env)->EnsureLocalCapacity(env, nk + 64);
    /* the dump's classes: those loaded now (after the GC: an unloaded class
     * has none), each laid out */
    loaded = malloc(sizeof *loaded * (nk ? (size_t)nk : 1));
    uint32_t nloaded = 0;
    for (jint i = 0; loaded && i < nk; i++) {
        hp_class *c = cls_get(j, ks[i]);
        if (c && hd_layout_of(j, env, c, ks[i], st.idsz)) {
            loaded[nloaded++] = c->index;
        } else if (c) {
            char *sig = NULL;
            jx_class_signature(j, ks[i], &sig);
            hp_error("heap dump: cannot read the fields of class %s", sig ? sig : "?");
            jx_free(j, sig);
        }
    }
    hd_layout_freeze(1); /* the dump's CLASS DUMPs follow these layouts */
    jclass cc = (*env)->FindClass(env, "java/lang/Class");
    hp_class *ccls = cc ? cls_get(j, cc) : NULL;
    jclass oc = (*env)->FindClass(env, "java/lang/Object");
    hp_class *ocls = oc ? cls_get(j, oc) : NULL;
    if (ccls && ocls) {
        st.class_class = ccls->index;
        st.object_class = ocls->index;
        jclass sc = (*env)->FindClass(env, "java/lang/String");
        hp_class *scls = sc ? cls_get(j, sc) : NULL;
        st.string_class = scls ? scls->index : 0;
        /* before the dump's threads: the locals it makes are gone then */
        if (hdm_collect(&st, env, ks, nk))
            hp_error("heap dump: out of memory reading the fields of class objects; objects "
                     "held only by them may be missing");
    }
    jx_free(j, ks);
    (*env)->PopLocalFrame(env, NULL);
    if (!ccls || !ocls) {
        hp_error("heap dump: java.lang.Class or java.lang.Object not found");
        goto done;
    }
    thr = hd_threads(j, env, &st, &nthr);
    st.ncls = cls_count();
    st.cstat = calloc(st.ncls, sizeof *st.cstat);
    st.incl = calloc(st.ncls, 1);
    if (!st.cstat || !st.incl || !thr || !loaded)
        goto oom;
    for (uint32_t i = 0; i < nloaded; i++)
        st.incl[loaded[i]] = cls_at(loaded[i])->serial != 0;
    /* the supers of laid-out classes are laid out too (hd_layout_of) and
     * loaded; so is java.lang.Class */
    st.incl[st.class_class] = 1;
    t_vt = hp_now_ns();
    int vt_rc = hdv_mounted(&st, env, &thr, &nthr);
    t_vt = hp_now_ns() - t_vt;
    if (vt_rc)
        goto oom;

    /* binary: readers see one heap dump per file (jhat stops at the first
     * END, VisualVM opens dump #0): the first goes into the output, each
     * later one into a complete file of its own, <output>.<n> (with net=
     * every dump goes down the socket: the front end splits them; hprof-ctl
     * writes <file>.<n>; so it does into a FIFO or /dev/null). Text: every
     * dump is a section of the one text file, written in binary into a
     * temporary file first (the walk's callbacks can take no lock, so they
     * cannot write into the shared text output) and rendered once complete */
    uint32_t nth = ++g_hp.heap_dumps;
    if (text) {
        afd = hd_tmpfile();
        if (afd < 0 || !(st.mw = hd_tmp_writer(afd, st.idsz, NULL)))
            goto done;
        hd_prelude(&st, thr, nthr, 0); /* the traces are printed by out.c */
    } else if (nth == 1 || g_hp.net_fd >= 0 || out_dump_streamed()) {
        st.o = out_dump_begin();
        if (!st.o)
            goto done; /* the output is closed: nothing to do */
        st.mw = out_dump_writer(st.o);
        /* names, classes and traces before the heap dump (single-pass readers) */
        for (uint32_t i = 1; i < st.ncls; i++) {
            hp_class *c = cls_at(i);
            if (!st.incl[i])
                continue;
            out_dump_load_class(st.o, c);
            for (uint16_t f = 0; c->layout && f < c->layout->nown; f++)
                out_dump_utf8(st.o, c->layout->own_name[f]);
        }
        for (uint32_t i = 0; i < st.mirrors.nnames; i++)
            out_dump_utf8(st.o, st.mirrors.names[i]);
        for (uint32_t i = 0; i < nthr; i++)
            out_dump_trace(st.o, thr[i].trace);
        uint32_t ns = site_count();
        st.site_limit = ns;
        for (uint32_t i = 1; i < ns; i++)
            if (hd_site_trace(i))
                out_dump_trace(st.o, hd_site_trace(i));
    } else {
        snprintf(fpath, sizeof fpath, "%s.%u", g_hp.outname, nth);
        int err = 0;
        char why[256];
        /* the output's rules (out.c): force=n never overwrites anything */
        hw_sink *sink = hw_sink_file_ex(fpath, g_hp.o.force ? 0 : HW_FILE_NEW, &err, why, sizeof why);
        if (!sink) {
            hp_error("heap dump: cannot create %s: %s", fpath, why);
            goto done;
        }
        if (g_hp.o.gzip && !(sink = out_gzip_sink(sink))) { /* as the output (out.c) */
            hp_error("heap dump: out of memory");
            goto done;
        }
        hw_options fo;
        hw_options_init(&fo);
        fo.id_size = st.idsz;
        fo.io_thread = 1;
        st.mw = hw_writer_open(sink, &fo, &err);
        if (!st.mw) {
            hp_error("heap dump: cannot create %s: %s", fpath, strerror(err));
            goto done;
        }
        hd_prelude(&st, thr, nthr, 1);
        hp_info(" (heap dump %u: %s)", nth, fpath);
    }

    /* A binary file output gets the CLASS DUMPs first, as readers need them
     * before any instance, with null statics; the walk's objects follow them
     * directly, and the CLASS DUMPs are overwritten with the values the
     * walk found (the same length). A socket cannot be overwritten: the
     * objects go to a temporary file, copied in after the CLASS DUMPs. So
     * do they in text, where the binary dump is a temporary file itself:
     * the objects' file is the one a full disk or a size limit stops, and
     * the text of what came before them still ends with HEAP DUMP END. */
    uint8_t *cd = NULL;
    uint32_t cdlen = 0;
    uint64_t cdat = 0, resv_at = 0, resv_len = 0;
    int te = 0, ended = 0;
    if (!text && hw_writer_can_patch(st.mw)) {
        resv_at = hw_writer_offset(st.mw);
        hd_reserve(st.mw, HD_RESERVE);
        resv_len = hw_writer_offset(st.mw) - resv_at;
        hw_heap_begin(st.mw);
        if (!(cd = hd_class_bytes(&st, &cdlen, 0)))
            goto oom_output;
        hw_heap_segment_raw(st.mw, cd, cdlen);
        cdat = hw_writer_offset(st.mw) - cdlen;
        free(cd);
        cd = NULL;
        st.tw = st.rw = st.mw;
    } else {
        /* net=: the output's heap dump begins after the walk, once the
         * classes loaded meanwhile have their LOAD CLASS before it; the
         * roots go with the objects. Text: the temporary binary dump is
         * read by print.c alone, which takes records between segments: it
         * begins now, with the roots, so that a full disk still leaves a
         * section that says it is incomplete */
        if (text) {
            hw_heap_begin(st.mw);
            st.rw = st.mw;
        }
        tfd = hd_tmpfile();
        /* gzip=y: the objects' file is compressed as the walk goes */
        if (tfd < 0 || !(st.tw = hd_tmp_writer(tfd, st.idsz, !text && g_hp.o.gzip ? &gz : NULL))) {
            if (!text)
                hw_heap_begin(st.mw); /* an empty dump: the output goes on */
            hw_heap_end(st.mw);
            goto end_output;
        }
        hw_heap_begin(st.tw);
        if (!text)
            st.rw = st.tw;
    }
    /* THREAD OBJECT roots are written as the walk meets each thread (a
     * thread that ended meanwhile has none: its object may be gone) */
    walked = 1;

    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = hd_ref_cb;
    cb.primitive_field_callback = hd_prim_cb;
    cb.array_primitive_value_callback = hd_array_cb;
    /* heap=all, after a GC: the walk visits what a scan of the heap would
     * count (the objects that survived it); without a GC (at VM death, ZGC)
     * the heap still holds dead objects, which the scan counts as live */
    if (g_hp.o.heap_sites && gc_forced && site_live_init(&st.live))
        site_live_cleanup(&st.live); /* no memory: the scan will count */
    t_walk = hp_now_ns();
    jvmtiError e = (*j)->FollowReferences(j, 0, NULL, NULL, &cb, &st);
    t_walk = hp_now_ns() - t_walk;
    uint64_t sched[3] = {0, 0, 0};
    if (st.walk_tid > 0 && hdt_sched_read(st.walk_tid, sched) == 0)
        for (int i = 0; i < 3; i++)
            sched[i] -= st.walk_sched[i];
    hd_finish(&st);
    if (e != JVMTI_ERROR_NONE)
        jx_report(j, e, "FollowReferences");
    if (st.live.n && e == JVMTI_ERROR_NONE && !st.err && !st.live.oom) {
        site_live_publish(&st.live);
        *counted = 1;
    }
    site_live_cleanup(&st.live);
    hp_class *cl = cls_at(st.class_class);
    uint32_t nb = cl->layout ? cl->layout->inst_bytes : 0;
    uint8_t *zero = calloc(nb ? nb : 1, 1);
    uint64_t mt, one;
    /* threads of the dump's list that the walk did not meet (they ended
     * meanwhile): their objects are in the dump all the same (hdm_keep held
     * them), and their TRACE names them: the dump lists the threads alive
     * when it began */
    uint64_t tt, tv;
    for (size_t it = 0; hu_map_next(&st.threads, &it, &tt, &tv);)
        if (!(tv & HD_THR_WRITTEN))
            hd_thread_root(&st, (jlong)tt);
    hdm_release(&st.mirrors, env);
    if (e == JVMTI_ERROR_NONE)
        hdr_alias(&st, env);
    /* Class objects that are no class of the dump: a primitive type's
     * mirror (with its fields' values, hdmirror.h), a CDS-archived class
     * not loaded; a late class's mirror gets its CLASS DUMP instead */
    for (size_t it = 0; zero && hu_map_next(&st.mirror_set, &it, &mt, &one);) {
        if (hu_map_get(&st.aliased, mt))
            continue;
        const uint8_t *pd = hdm_prim_data(&st.mirrors, (jlong)mt);
        hw_instance_dump(st.tw, hd_id(&st, (jlong)mt), HP_TRACE_SERIAL0, cls_object_id(cl),
                         pd ? pd : zero, nb);
    }
    free(zero);
    if (st.tw == st.mw) {
        uint32_t n1 = 0;
        cd = hd_class_bytes(&st, &n1, 0);
        if (cd && n1 != cdlen && !st.err)
            st.err = EPROTO; /* cannot be: the same classes, the same fields */
        if (cd && !st.err)
            hw_writer_patch(st.mw, cdat, cd, cdlen);
        free(cd);
        st.tw = NULL;
        if (e == JVMTI_ERROR_NONE && hdr_resolve(&st, env) == 0 && st.nlate)
            hd_fill_reserve(&st, resv_at, resv_len);
        hdr_write_heap(&st);
    } else {
        if (e == JVMTI_ERROR_NONE && hdr_resolve(&st, env) == 0)
            hdr_write_names(&st, st.mw);
        if (gz) { /* the classes in one segment that ends at a block boundary */
            if (!(cd = hd_class_bytes(&st, &cdlen, 1)) && !st.err)
                st.err = ENOMEM;
            hdgz_align(st.mw, HD_RESERVE_ID, cdlen ? HPROF_RECORD_HEADER_SIZE + cdlen : 0);
            hw_heap_begin(st.mw);
            hw_heap_segment_raw(st.mw, cd, cd ? cdlen : 0);
            free(cd);
            cd = NULL;
        } else {
            if (!text)
                hw_heap_begin(st.mw);
            hd_class_dumps(&st, st.mw);
            hdr_write_heap(&st);
        }
        hw_heap_end(st.tw);
        char msg[256] = "";
        te = hw_writer_close(st.tw, msg, sizeof msg);
        st.tw = NULL;
        if (te) {
            hp_error("heap dump: writing its temporary file in %s failed: %s; the dump is "
                     "incomplete", hd_tmpdir(), msg);
            hd_cut(cut, "writing the temporary file in %s failed: %s", hd_tmpdir(), strerror(te));
        } else if ((te = gz ? hdgz_splice(gz, st.mw) : hd_copy_segments(&st, tfd)) != 0) {
            hp_error("heap dump: copying the temporary file failed: %s", strerror(te));
            hd_cut(cut, "copying the temporary file failed: %s", strerror(te));
        } else {
            ended = gz != NULL; /* with the temporary file's HEAP DUMP END */
        }
    }
    if (!ended)
        hw_heap_end(st.mw);
    if (st.reserve_short) {
        hdr_write_names(&st, st.mw);
        hp_error("heap dump: %u classes loaded during the dump did not fit the room kept for their "
                 "LOAD CLASS records, which follow the dump's end (readers that read the file in "
                 "one pass do not name them)", st.nlate);
    }
    if (st.err == EFBIG)
        hp_error("heap dump: more than 2^31 objects do not fit 4-byte ids (use idsize=8)");
    else if (st.err == EPROTO)
        hp_error("heap dump: the JVM reported the heap in an unexpected order; the dump is incomplete");
    else if (st.err)
        hp_error("heap dump: out of memory; the dump is incomplete");
    if (st.err)
        hd_cut(cut, "%s", st.err == EFBIG    ? "more than 2^31 objects do not fit 4-byte ids"
                          : st.err == EPROTO ? "the JVM reported the heap in an unexpected order"
                                             : "out of memory");
    if (e != JVMTI_ERROR_NONE)
        hd_cut(cut, "the JVM's heap walk (FollowReferences) failed with JVMTI error %d", (int)e);
    rc = (e == JVMTI_ERROR_NONE && !st.err && !te) ? 0 : -1;
    goto end_output;
oom_output:
    hp_error("heap dump: out of memory");
    hw_heap_end(st.mw); /* an empty dump */
end_output:
    if (st.o) {
        out_dump_end(st.o);
    } else if (text) {
        if (tfd >= 0) { /* its disk space back before the text is written */
            close(tfd);
            tfd = -1;
        }
        char amsg[256] = "";
        int ae = hw_writer_close(st.mw, amsg, sizeof amsg);
        if (ae) {
            hp_error("heap dump: writing its temporary file in %s failed: %s; the dump is "
                     "incomplete", hd_tmpdir(), amsg);
            hd_cut(cut, "writing the temporary file in %s failed: %s", hd_tmpdir(), strerror(ae));
            rc = -1;
        }
        st.mw = NULL;
        /* what the temporary file holds (all of it, or a prefix after an
         * error, which the text says, then closes with HEAP DUMP END) */
        if (walked && hd_render_text(afd, thr, nthr, cut[0] ? cut : NULL) != 0)
            rc = -1;
    } else if (st.mw) {
        char fmsg[256] = "";
        if (hw_writer_close(st.mw, fmsg, sizeof fmsg)) {
            hp_error("writing %s failed: %s", fpath, fmsg);
            rc = -1;
        }
    }
    goto done;
oom:
    hp_error("heap dump: out of memory");
done:
    hd_layout_freeze(0);
    if (walked)
        hdt_report(t_gc, t_vt, t_walk, sched, hp_now_ns() - t_begin);
    if (st.late_lost) {
        hp_error("heap dump: %u objects of classes loaded during the dump were gone before their "
                 "class could be read; they are shown as instances of java.lang.Object",
                 st.late_lost);
        out_message("HPROF ERROR: heap dump %u: %u objects of classes loaded during the dump are "
                    "shown as instances of java.lang.Object (their class was gone)",
                    g_hp.heap_dumps, st.late_lost);
    }
    if (st.mw && text) { /* the temporary writer, when the dump stopped early */
        hw_writer_close(st.mw, NULL, 0);
        st.mw = NULL;
    }
    if (afd >= 0)
        close(afd);
    hdgz_free(gz);
    if (tfd >= 0)
        close(tfd);
    free(thr);
    for (uint32_t i = 0; st.cstat && i < st.ncls; i++)
        free(st.cstat[i]);
    free(st.cstat);
    free(st.incl);
    free(st.buf);
    free(st.statics);
    if (st.zeros)
        munmap((void *)st.zeros, st.nzeros);
    free(st.cdbuf);
    hu_map_cleanup(&st.threads);
    hu_map_cleanup(&st.arrlen);
    hu_map_cleanup(&st.mirror_set);
    hu_map_cleanup(&st.seen);
    hu_map_cleanup(&st.frames);
    hu_map_cleanup(&st.alias);
    hu_map_cleanup(&st.aliased);
    hl_cleanup(&st.late);
    hdm_cleanup(&st.mirrors, env);
    free(st.late_list);
    free(loaded);
    return rc;
}
