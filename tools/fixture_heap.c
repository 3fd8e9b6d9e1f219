/*
 * fixture_heap.c: the fixture's heap dump (fixture_heap.h): CLASS DUMPs,
 * roots, then the objects of the runtime (threads, loaders, System.props)
 * and the synthetic graph --objects sizes, then the arrays; each object
 * counted for ALLOC SITES and HEAP SUMMARY.
 */
#include "fixture_heap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURE_PROPS_TABLE 16
#define FIXTURE_MAX_CHAIN_FIELDS 24

/* Shallow size in the model the HEAP SUMMARY and ALLOC SITES report: a
 * two-word header, the data, 8-byte alignment. */
static uint64_t fixture_heap_align8(uint64_t v)
{
    return (v + 7) & ~(uint64_t)7;
}

static void fixture_heap_count(fixture_ctx *c, int cls, uint64_t bytes)
{
    c->cls[cls].count++;
    c->cls[cls].bytes += bytes;
    c->objects++;
}

/* INSTANCE DUMP of class `cls` with `vals` given for the whole chain: this
 * class's fields first, then the super's, in CLASS DUMP order. The number
 * of values is checked against the chain, so a fixture bug cannot write an
 * instance whose length disagrees with its class. */
static void fixture_heap_instance(fixture_ctx *c, int cls, hprof_id id, const uint64_t *vals,
                                  unsigned nvals)
{
    uint8_t data[FIXTURE_MAX_CHAIN_FIELDS * 8];
    uint32_t len = 0;
    unsigned v = 0;
    const fixture_class *k = &c->cls[cls];

    if (nvals != k->chain_fields) {
        fixture_model_fail(c, "internal: %u values for %s, whose chain has %u fields", nvals,
                           fx_classes[cls].name, k->chain_fields);
        return;
    }
    for (int s = cls; s >= 0; s = fx_classes[s].super) {
        for (unsigned f = 0; f < fx_classes[s].nfields; f++, v++) {
            unsigned sz = hprof_type_size(fx_classes[s].fields[f].type, c->idsz);
            for (unsigned b = 0; b < sz; b++)
                data[len + b] = (uint8_t)(vals[v] >> (8 * (sz - 1 - b)));
            len += sz;
        }
    }
    if (len != k->data_size) {
        fixture_model_fail(c, "internal: %s instance is %u bytes, chain says %u",
                           fx_classes[cls].name, len, k->data_size);
        return;
    }
    if (cls == FX_SUBNODE) {
        /* the same bytes through the streaming API the agent's heap walk
         * uses, so that a fixture exercises hw_put_u1/u2/u4/u8/id too */
        v = 0;
        hw_instance_begin(c->w, id, k->trace, k->id, len);
        for (int s = cls; s >= 0; s = fx_classes[s].super) {
            for (unsigned f = 0; f < fx_classes[s].nfields; f++, v++) {
                switch (fx_classes[s].fields[f].type) {
                case T_OBJ: hw_put_id(c->w, vals[v]); break;
                case T_Z: case T_B: hw_put_u1(c->w, (uint8_t)vals[v]); break;
                case T_C: case T_S: hw_put_u2(c->w, (uint16_t)vals[v]); break;
                case T_F: case T_I: hw_put_u4(c->w, (uint32_t)vals[v]); break;
                default: hw_put_u8(c->w, vals[v]); break;
                }
            }
        }
        hw_sub_end(c->w);
    } else {
        hw_instance_dump(c->w, id, k->trace, k->id, data, len);
    }
    fixture_heap_count(c, cls, fixture_heap_align8(2 * c->idsz + len));
}

static void fixture_heap_obj_array(fixture_ctx *c, int cls, hprof_id id, uint32_t n,
                                   const hprof_id *elems)
{
    hw_obj_array_dump(c->w, id, c->cls[cls].trace, c->cls[cls].id, n, elems);
    fixture_heap_count(c, cls, fixture_heap_align8(2 * c->idsz + 4 + (uint64_t)n * c->idsz));
}

static void fixture_heap_prim_array(fixture_ctx *c, uint8_t type, hprof_id id, uint32_t n,
                                    const void *elems)
{
    int cls = fx_prim_array_class[type - HPROF_TYPE_BOOLEAN];
    hw_prim_array_dump(c->w, id, c->cls[cls].trace, type, n, elems);
    fixture_heap_count(
        c, cls, fixture_heap_align8(2 * c->idsz + 4 + (uint64_t)n * hprof_type_size(type, 4)));
}

/* A java/lang/String in the JDK 9+ layout: byte[] value + byte coder.
 * Latin-1 text is stored as is (coder 0); anything else as UTF-16 in the
 * host's order, little-endian here, as HotSpot dumps it (coder 1). */
static void fixture_heap_string_obj(fixture_ctx *c, hprof_id id, hprof_id value_id,
                                    const char *utf8)
{
    uint8_t bytes[2 * 64];
    uint32_t nb = 0, nunits = 0;
    uint16_t units[64];
    int latin1 = 1;
    const unsigned char *p = (const unsigned char *)utf8;
    int32_t h = 0;

    while (*p && nunits < 62) {
        uint32_t cp;
        if (*p < 0x80) {
            cp = *p++;
        } else if ((*p & 0xE0) == 0xC0 && p[1]) {
            cp = ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
            p += 2;
        } else if ((*p & 0xF0) == 0xE0 && p[1] && p[2]) {
            cp = ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
            p += 3;
        } else if ((*p & 0xF8) == 0xF0 && p[1] && p[2] && p[3]) {
            cp = ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) |
                 ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
            p += 4;
        } else {
            cp = 0xFFFD;
            p++;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            units[nunits++] = (uint16_t)(0xD800 | (cp >> 10));
            units[nunits++] = (uint16_t)(0xDC00 | (cp & 0x3FF));
            latin1 = 0;
        } else {
            units[nunits++] = (uint16_t)cp;
            if (cp > 0xFF)
                latin1 = 0;
        }
    }
    for (uint32_t i = 0; i < nunits; i++) {
        h = (int32_t)(31u * (uint32_t)h + units[i]);
        if (latin1) {
            bytes[nb++] = (uint8_t)units[i];
        } else {
            bytes[nb++] = (uint8_t)(units[i] & 0xFF);
            bytes[nb++] = (uint8_t)(units[i] >> 8);
        }
    }
    fixture_heap_prim_array(c, HPROF_TYPE_BYTE, value_id, nb, bytes);
    {
        uint64_t v[] = {value_id, latin1 ? 0u : 1u, (uint32_t)h, h == 0};
        fixture_heap_instance(c, FX_STRING, id, v, NELEM(v));
    }
}

/* String.hashCode() spread as ConcurrentHashMap does; the text is ASCII. */
static uint32_t fixture_heap_chm_hash(const char *s)
{
    uint32_t h = 0;
    for (; *s; s++)
        h = 31u * h + (unsigned char)*s;
    return (h ^ (h >> 16)) & 0x7fffffffu;
}

static void fixture_heap_class_dumps(fixture_ctx *c)
{
    for (int i = 0; i < FX_NCLASSES; i++) {
        const fixture_classdef *d = &fx_classes[i];
        const fixture_class *k = &c->cls[i];
        hw_static_field st[12];
        hw_field fl[12];
        hw_cp_entry cp[9];
        hw_class cd;
        uint64_t sv[12] = {0};

        memset(&cd, 0, sizeof cd);
        cd.class_id = k->id;
        cd.trace_serial = FX_TRACE_EMPTY;
        cd.super_id = d->super >= 0 ? c->cls[d->super].id : 0;
        if (i >= FX_FIRST_APP) {
            cd.loader_id = c->apploader;
            cd.protection_domain_id = c->pd;
        }
        /* HotSpot writes the instance data length; java/lang/Object gets 16
         * so that VisualVM can size objects with 8-byte ids (pitfall 11). */
        cd.instance_size = i == FX_OBJECT ? 16 : d->array_type ? 0 : k->data_size;

        switch (i) {
        case FX_STRING:
            sv[0] = (uint64_t)-6849794470754667710LL;
            sv[1] = 1;
            break;
        case FX_STRINGUTF16:
            sv[0] = 0; /* HI_BYTE_SHIFT: little-endian host */
            sv[1] = 8;
            break;
        case FX_SYSTEM:
            sv[0] = c->props;
            sv[1] = fixture_model_str(c, c->s_linesep);
            sv[2] = 0;
            break;
        case FX_THREAD:
            sv[0] = FIXTURE_NTHREADS + 10;
            break;
        case FX_CHM:
            sv[0] = 2;
            sv[1] = 7249069246763182397ull;
            break;
        case FX_MAIN:
            sv[0] = c->resolved;
            sv[1] = c->node_array;
            sv[2] = c->string_array;
            sv[3] = c->mixed;
            sv[4] = c->arrays;
            sv[5] = c->matrix;
            break;
        case FX_NODE: {
            /* one static of every type, from the seeded stream */
            uint64_t r = fixture_model_rand(c);
            sv[0] = r & 1;
            sv[1] = (uint8_t)(r >> 8);
            sv[2] = 'a' + (r >> 16) % 26;
            sv[3] = (uint16_t)(r >> 24);
            sv[4] = (uint32_t)(r >> 32);
            sv[5] = fixture_model_rand(c);
            sv[6] = fixture_model_fbits((float)(int32_t)(fixture_model_rand(c) % 200001u) / 8.0f);
            sv[7] = fixture_model_dbits((double)(fixture_model_rand(c) >> 11) / 65536.0);
            sv[8] = c->node_array;
            sv[9] = fixture_model_str(c, c->s_node_static);
            /* a constant pool entry of every type (HotSpot writes none, the
             * format and VisualVM allow them) */
            for (unsigned e = 0; e < 9; e++) {
                static const uint8_t types[9] = {T_OBJ, T_Z, T_C, T_F, T_D, T_B, T_S, T_I, T_J};
                cp[e].index = (uint16_t)(e + 1);
                cp[e].value.type = types[e];
                cp[e].value.u = types[e] == T_OBJ ? fixture_model_str(c, c->s_cp)
                                : types[e] == T_F ? fixture_model_fbits(1.5f)
                                : types[e] == T_D ? fixture_model_dbits(-2.25)
                                : types[e] == T_Z ? 1
                                                  : 0x0102030405060708ull + e;
            }
            cd.ncp = 9;
            cd.cp = cp;
            break;
        }
        case FX_SUBNODE:
            /* HotSpot always writes 0 for signers; an empty Object[] checks
             * that readers resolve the field */
            cd.signers_id = c->signers;
            break;
        case FX_MARKER:
            sv[0] = 3;
            break;
        default:
            break;
        }
        for (unsigned f = 0; f < d->nstatics; f++) {
            st[f].name_id = k->static_utf8[f];
            st[f].value.type = d->statics[f].type;
            st[f].value.u = sv[f];
        }
        for (unsigned f = 0; f < d->nfields; f++) {
            fl[f].name_id = k->field_utf8[f];
            fl[f].type = d->fields[f].type;
        }
        cd.nstatics = (uint16_t)d->nstatics;
        cd.statics = st;
        cd.nfields = (uint16_t)d->nfields;
        cd.fields = fl;
        hw_class_dump(c->w, &cd);
    }
}

static void fixture_heap_roots(fixture_ctx *c)
{
    hw_writer *w = c->w;
    /* THREAD OBJECT first: single-pass readers look the thread up when
     * they meet its frame roots */
    for (uint32_t t = 0; t < 3; t++)
        hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, c->thread[t], t + 1, fx_thread_trace[t], 0);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, c->markers[0], 2, 1, 0);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, c->markers[1], 2, 2, 0);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, c->markers[2], 3, 0, 0);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, c->node_array, 1, 1, 0);
    hw_root(w, HPROF_GC_ROOT_JNI_LOCAL, fixture_model_str(c, c->s_fixture), 1, 0, 0);
    hw_root(w, HPROF_GC_ROOT_NATIVE_STACK, c->mixed, 2, 0, 0);
    hw_root(w, HPROF_GC_ROOT_THREAD_BLOCK, c->matrix, 3, 0, 0);
    hw_root(w, HPROF_GC_ROOT_MONITOR_USED, c->props, 0, 0, 0);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, c->apploader, 0, 0, c->jni_ref[0]);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, c->props, 0, 0, c->jni_ref[1]);
    c->roots += 3 + 4 + 1 + 1 + 1 + 1 + 2;
    for (int i = 0; i < FX_FIRST_APP; i++) {
        hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, c->cls[i].id, 0, 0, 0);
        c->roots++;
    }
    hw_root(w, HPROF_GC_ROOT_UNKNOWN, fixture_model_str(c, c->s_utf16), 0, 0, 0);
    c->roots++;
    if (c->o.android) {
        hw_root(w, HPROF_GC_ROOT_INTERNED_STRING, fixture_model_str(c, c->s_fixture), 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_FINALIZING, c->markers[2], 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_DEBUGGER, c->thread[0], 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_REFERENCE_CLEANUP, c->mixed, 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_VM_INTERNAL, c->apploader, 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_JNI_MONITOR, c->props, 1, 0, 0);
        hw_root(w, HPROF_GC_ROOT_UNREACHABLE, fixture_model_str(c, c->s_unreachable), 0, 0, 0);
        c->roots += 7;
    }
}

/* Threads, groups, loader, mirrors, fixed strings, System.props, markers. */
static void fixture_heap_runtime_objects(fixture_ctx *c)
{
    for (int t = 0; t < FIXTURE_NTHREADS; t++) {
        uint64_t v[] = {fixture_model_str(c, c->s_thread[t]), 5, t >= 1 && t <= 2,
                        (uint64_t)t + 1, c->group_main, c->apploader};
        fixture_heap_instance(c, FX_THREAD, c->thread[t], v, NELEM(v));
    }
    {
        uint64_t v[] = {0, fixture_model_str(c, c->s_group_system), 10, 0};
        fixture_heap_instance(c, FX_THREADGROUP, c->group_system, v, NELEM(v));
    }
    {
        uint64_t v[] = {c->group_system, fixture_model_str(c, c->s_group_main), 10, 0};
        fixture_heap_instance(c, FX_THREADGROUP, c->group_main, v, NELEM(v));
    }
    {
        uint64_t v[] = {0, fixture_model_str(c, c->s_loader)}; /* ClassLoader's fields */
        fixture_heap_instance(c, FX_APPLOADER, c->apploader, v, NELEM(v));
    }
    {
        uint64_t v[] = {0, 0};
        fixture_heap_instance(c, FX_PROTDOMAIN, c->pd, v, NELEM(v));
    }
    /* primitive mirrors: INSTANCE DUMPs of java/lang/Class, as HotSpot */
    for (int m = 0; m < 9; m++) {
        uint64_t v[] = {fixture_model_str(c, c->s_mirror[m]), 0, 0};
        fixture_heap_instance(c, FX_CLASS, c->mirror[m], v, NELEM(v));
    }
    for (unsigned s = 0; s < c->nfstr; s++)
        fixture_heap_string_obj(c, c->fstr[s].id, c->fstr[s].value_id, c->fstr[s].text);

    /* System.props: Properties -> map (ConcurrentHashMap) -> table -> nodes
     * with key/val/next, the JDK 9+ shape VisualVM walks (pitfall 11) */
    {
        hprof_id table[FIXTURE_PROPS_TABLE] = {0};
        hprof_id next[FIXTURE_NPROPS] = {0};
        uint32_t hash[FIXTURE_NPROPS];
        for (int p = 0; p < FIXTURE_NPROPS; p++) {
            unsigned slot;
            hash[p] = fixture_heap_chm_hash(fx_prop_keys[p]);
            slot = hash[p] & (FIXTURE_PROPS_TABLE - 1);
            next[p] = table[slot]; /* chain: newest first */
            table[slot] = c->chm_node[p];
        }
        for (int p = 0; p < FIXTURE_NPROPS; p++) {
            uint64_t v[] = {hash[p], fixture_model_str(c, c->s_pkey[p]),
                            fixture_model_str(c, c->s_pval[p]), next[p]};
            fixture_heap_instance(c, FX_CHM_NODE, c->chm_node[p], v, NELEM(v));
        }
        fixture_heap_obj_array(c, FX_ARR_CHM_NODE, c->chm_table, FIXTURE_PROPS_TABLE, table);
        {
            uint64_t v[] = {c->chm_table, 0, FIXTURE_NPROPS, 12, /* AbstractMap: */ 0, 0};
            fixture_heap_instance(c, FX_CHM, c->chm, v, NELEM(v));
        }
        {
            /* Hashtable.table stays null: JDK 9+ keeps the entries in map */
            uint64_t v[] = {0, c->chm, /* Hashtable: */ 0, 0, 0, fixture_model_fbits(0.75f), 0};
            fixture_heap_instance(c, FX_PROPERTIES, c->props, v, NELEM(v));
        }
    }
    for (int m = 0; m < 3; m++) {
        uint64_t v[] = {(uint64_t)m + 1, fixture_model_str(c, c->s_marker[m])};
        fixture_heap_instance(c, FX_MARKER, c->markers[m], v, NELEM(v));
    }
}

/* N Nodes, N/20 SubNodes and 16 + N/10 random strings, values from the seed. */
static void fixture_heap_synthetic_objects(fixture_ctx *c)
{
    char text[48];
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

    for (uint64_t i = 0; i < c->nrand && !hw_writer_error(c->w) && !c->err[0]; i++) {
        uint64_t r = fixture_model_rand(c);
        int len = snprintf(text, sizeof text, "s%" PRIu64 "-", i);
        unsigned extra = (unsigned)(r % 17);
        for (unsigned k = 0; k < extra && len + 1 < (int)sizeof text; k++) {
            if (k % 10 == 0)
                r = fixture_model_rand(c);
            text[len++] = letters[(r & 63) % (sizeof letters - 1)];
            r >>= 6;
        }
        text[len] = '\0';
        fixture_heap_string_obj(c, fixture_model_rstr(c, i), c->rval_base + 8 * i, text);
    }
    for (uint64_t i = 0; i < c->nnodes + c->nsub && !hw_writer_error(c->w) && !c->err[0]; i++) {
        uint64_t r = fixture_model_rand(c), r2 = fixture_model_rand(c), r3 = fixture_model_rand(c);
        int sub = i >= c->nnodes;
        hprof_id o;
        uint64_t v[12], *nv;
        switch (r3 & 3) {
        case 0: o = 0; break;
        case 1: o = c->nnodes ? fixture_model_node(c, (i + 1) % c->nnodes) : 0; break;
        case 2: o = fixture_model_rstr(c, (r3 >> 8) % c->nrand); break;
        default: o = c->nsub ? fixture_model_subnode(c, (r3 >> 8) % c->nsub) : 0; break;
        }
        nv = v;
        if (sub) {
            v[0] = r2 ^ r;
            v[1] = c->nnodes ? fixture_model_node(c, (r2 >> 3) % c->nnodes) : 0;
            nv = v + 2;
        }
        nv[0] = r & 1;
        nv[1] = (uint8_t)(r >> 8);
        nv[2] = 'A' + (r >> 16) % 26;
        nv[3] = (uint16_t)(r >> 24);
        nv[4] = (uint32_t)(r >> 32);
        nv[5] = r2;
        nv[6] = fixture_model_fbits((float)((int32_t)(r3 >> 40) - (1 << 23)) / 64.0f);
        nv[7] = fixture_model_dbits((double)(int64_t)(r2 >> 12) / 1048576.0);
        nv[8] = o;
        nv[9] = fixture_model_rstr(c, (r >> 40) % c->nrand);
        if (sub)
            fixture_heap_instance(c, FX_SUBNODE, fixture_model_subnode(c, i - c->nnodes), v, 12);
        else
            fixture_heap_instance(c, FX_NODE, fixture_model_node(c, i), v, 10);
    }
}

static int fixture_heap_arrays(fixture_ctx *c)
{
    uint32_t big = c->big_len;
    size_t cap = (size_t)(big > 8 ? big : 8) * 8;
    uint8_t *buf = malloc(cap);

    if (!buf) {
        fixture_model_fail(c, "out of memory");
        return -1;
    }
    /* Node[]: the nodes, then the subnodes, then nulls that must survive */
    {
        uint64_t n = c->nnodes + c->nsub + c->npad;
        if (n > 0xFFFFFFFFull / c->idsz) {
            fixture_model_fail(c, "too many objects for one Node[]");
        } else {
            hw_obj_array_begin(c->w, c->node_array, c->cls[FX_ARR_NODE].trace,
                               c->cls[FX_ARR_NODE].id, (uint32_t)n);
            for (uint64_t i = 0; i < c->nnodes; i++)
                hw_put_id(c->w, fixture_model_node(c, i));
            for (uint64_t i = 0; i < c->nsub; i++)
                hw_put_id(c->w, fixture_model_subnode(c, i));
            for (uint64_t i = 0; i < c->npad; i++)
                hw_put_id(c->w, 0);
            hw_sub_end(c->w);
            fixture_heap_count(c, FX_ARR_NODE, fixture_heap_align8(2 * c->idsz + 4 + n * c->idsz));
        }
    }
    /* String[]: every random string, then two nulls */
    {
        uint64_t n = c->nrand + 2;
        hw_obj_array_begin(c->w, c->string_array, c->cls[FX_ARR_STRING].trace,
                           c->cls[FX_ARR_STRING].id, (uint32_t)n);
        for (uint64_t i = 0; i < c->nrand; i++)
            hw_put_id(c->w, fixture_model_rstr(c, i));
        hw_put_id(c->w, 0);
        hw_put_id(c->w, 0);
        hw_sub_end(c->w);
        fixture_heap_count(c, FX_ARR_STRING, fixture_heap_align8(2 * c->idsz + 4 + n * c->idsz));
    }
    /* Object[] of mixed kinds, including a class (by its CLASS DUMP id) and
     * a primitive mirror (an INSTANCE DUMP of java/lang/Class) */
    {
        hprof_id m[] = {fixture_model_str(c, c->s_fixture),
                        c->nnodes ? fixture_model_node(c, 0) : 0,
                        c->prim[HPROF_TYPE_INT - HPROF_TYPE_BOOLEAN][0], c->cls[FX_NODE].id,
                        c->thread[0], c->props, c->matrix, c->mirror[6], 0, 0};
        fixture_heap_obj_array(c, FX_ARR_OBJECT, c->mixed, NELEM(m), m);
    }
    {
        hprof_id m[] = {fixture_model_str(c, c->s_fixture), c->cls[FX_MARKER].id};
        fixture_heap_obj_array(c, FX_ARR_OBJECT, c->resolved, NELEM(m), m);
    }
    fixture_heap_obj_array(c, FX_ARR_OBJECT, c->signers, 0, NULL);
    {
        hprof_id all[8 * 3 + 1];
        for (int t = 0; t < 8; t++)
            for (int k = 0; k < 3; k++)
                all[t * 3 + k] = c->prim[t][k];
        all[24] = 0;
        fixture_heap_obj_array(c, FX_ARR_OBJECT, c->arrays, NELEM(all), all);
    }
    /* int[3][7] */
    fixture_heap_obj_array(c, FX_ARR_II, c->matrix, 3, c->matrix_row);
    for (int r = 0; r < 3; r++) {
        int32_t row[7];
        for (int k = 0; k < 7; k++)
            row[k] = r * 7 + k;
        fixture_heap_prim_array(c, HPROF_TYPE_INT, c->matrix_row[r], 7, row);
    }
    /* every primitive type: a big array (scaled by --objects), an empty
     * one and one of 7 elements, in the host's order as the API takes them */
    for (uint8_t type = HPROF_TYPE_BOOLEAN; type <= HPROF_TYPE_LONG; type++) {
        const hprof_id *ids = c->prim[type - HPROF_TYPE_BOOLEAN];
        uint32_t lens[3] = {big, 0, 7};
        for (int k = 0; k < 3; k++) {
            uint32_t n = lens[k];
            for (uint32_t e = 0; e < n; e++) {
                uint64_t r = fixture_model_rand(c);
                switch (type) {
                case T_Z: buf[e] = (uint8_t)(r & 1); break;
                case T_B: buf[e] = (uint8_t)r; break;
                case T_C: {
                    uint16_t ch = (r & 7) == 0 ? (uint16_t)(0x3B1 + (r >> 8) % 24)
                                               : (uint16_t)(' ' + (r >> 8) % 95);
                    memcpy(buf + 2 * (size_t)e, &ch, 2);
                    break;
                }
                case T_S: {
                    uint16_t s = (uint16_t)r;
                    memcpy(buf + 2 * (size_t)e, &s, 2);
                    break;
                }
                case T_I: {
                    uint32_t i = (uint32_t)r;
                    memcpy(buf + 4 * (size_t)e, &i, 4);
                    break;
                }
                case T_F: {
                    float f = (float)((int32_t)(r >> 40) - (1 << 23)) / 256.0f;
                    memcpy(buf + 4 * (size_t)e, &f, 4);
                    break;
                }
                case T_J: memcpy(buf + 8 * (size_t)e, &r, 8); break;
                case T_D: {
                    double d = (double)(int64_t)(r >> 11) / 4096.0 - 1e12;
                    memcpy(buf + 8 * (size_t)e, &d, 8);
                    break;
                }
                }
            }
            fixture_heap_prim_array(c, type, ids[k], n, buf);
        }
        if (hw_writer_error(c->w) || c->err[0])
            break;
    }
    free(buf);
    return 0;
}


void fixture_heap_write(fixture_ctx *c)
{
    hw_writer *w = c->w;

    hw_heap_begin(w);
    if (c->o.android)
        hw_heap_dump_info(w, 'I', c->heap_image_utf8);
    fixture_heap_class_dumps(c);
    fixture_heap_roots(c);
    if (c->o.android)
        hw_heap_dump_info(w, 'A', c->heap_app_utf8);
    fixture_heap_runtime_objects(c);
    fixture_heap_synthetic_objects(c);
    if (!c->err[0] && !hw_writer_error(w))
        fixture_heap_arrays(c);
    hw_heap_end(w);
}
