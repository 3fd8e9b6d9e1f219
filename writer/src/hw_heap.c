/*
 * hw_heap.c: the heap dump half of the encoder: HEAP DUMP (0x0C) and HEAP
 * DUMP SEGMENT (0x1C) records, their placement of sub-records (roots,
 * class, instance and array dumps, and the streaming hw_put_* form), and
 * the heap walk's fast path (hw_sub_fast).
 *
 * Owns no state of its own: the segment fields of struct hw_writer
 * (hw_internal.h), whose invariants hw_writer.c's header states.
 */
#include "hw_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------------- heap dump */

static int hw_open_segment(hw_writer *w, uint8_t tag)
{
    if (w->cap - w->len < HW_SEG_HDR + (size_t)w->opt.segment_size && hw_drain(w))
        return w->err;
    w->seg_start = w->len;
    uint8_t *p = w->buf + w->len;
    p[0] = tag;
    hw_be4(p + 1, hw_now_us(w));
    hw_be4(p + 5, 0);
    w->len += HW_SEG_HDR;
    w->seg_open = 1;
    /* hw_drain above left room for a whole segment */
    if (tag == HPROF_TAG_HEAP_DUMP_SEGMENT && w->idsz == 8)
        w->seg_limit = w->seg_start + HW_SEG_HDR + w->opt.segment_size;
    return 0;
}

int hw_heap_begin(hw_writer *w)
{
    if (w->err)
        return w->err;
    if (w->in_heap)
        return hw_fail(w, EINVAL, "hw_heap_begin called inside a heap dump");
    if (w->in_sub)
        return hw_fail(w, EINVAL, "hw_heap_begin called inside a sub-record");
    w->in_heap = 1;
    if (w->opt.heap_mode == HW_HEAP_SINGLE)
        return hw_open_segment(w, HPROF_TAG_HEAP_DUMP);
    return 0;
}

int hw_heap_end(hw_writer *w)
{
    if (w->err)
        return w->err;
    if (!w->in_heap)
        return hw_fail(w, EINVAL, "hw_heap_end called outside a heap dump");
    if (w->in_sub)
        return hw_fail(w, EINVAL, "heap dump ended inside an unfinished sub-record");
    if (w->opt.heap_mode == HW_HEAP_SINGLE) {
        /* an empty 0x0C is dropped: VisualVM rejects zero-length records */
        size_t body = w->len - w->seg_start - HW_SEG_HDR;
        if (body == 0)
            w->len = w->seg_start;
        else
            hw_be4(w->buf + w->seg_start + 5, (uint32_t)body);
        w->seg_open = 0;
        w->seg_limit = 0;
        w->in_heap = 0;
        return 0;
    }
    hw_close_segment(w);
    w->in_heap = 0;
    uint8_t *p = hw_rec_begin(w, HPROF_TAG_HEAP_DUMP_END, 0, 0);
    if (!p)
        return w->err;
    w->len += HPROF_RECORD_HEADER_SIZE;
    return 0;
}

int hw_heap_segment_raw(hw_writer *w, const void *body, uint32_t len)
{
    if (w->err)
        return w->err;
    if (!w->in_heap || w->opt.heap_mode == HW_HEAP_SINGLE)
        return hw_fail(w, EINVAL, "hw_heap_segment_raw needs an open segmented heap dump");
    if (w->in_sub)
        return hw_fail(w, EINVAL, "hw_heap_segment_raw called inside a sub-record");
    if (len == 0)
        return 0;
    hw_close_segment(w);
    uint8_t *p = hw_room(w, HW_SEG_HDR);
    if (!p)
        return w->err;
    w->mark = w->len; /* the segment is one unit: all of it or none */
    w->mark_ok = 1;
    w->unit_end = w->flushed + w->len + HW_SEG_HDR + len;
    p[0] = HPROF_TAG_HEAP_DUMP_SEGMENT;
    hw_be4(p + 1, hw_now_us(w));
    hw_be4(p + 5, len);
    w->len += HW_SEG_HDR;
    w->nsegments++;
    return hw_put_bytes(w, body, len);
}

uint64_t hw_heap_segments(const hw_writer *w)
{
    return w->nsegments;
}

/* Places the next sub-record of `size` bytes (sub-tag included): in the open
 * segment if it fits, else in a new one, or alone in a segment of its exact
 * size when it is larger than segment_size. Returns 0 or the error. */
static int hw_sub_place(hw_writer *w, uint64_t size, uint8_t subtag)
{
    if (w->err)
        return w->err;
    if (!w->in_heap)
        return hw_fail(w, EINVAL, "%s written outside a heap dump (call hw_heap_begin)",
                       hprof_sub_name(subtag));
    if (w->in_sub)
        return hw_fail(w, EINVAL, "%s started before the previous sub-record was finished",
                       hprof_sub_name(subtag));
    if (w->opt.heap_mode == HW_HEAP_SINGLE) {
        uint64_t used = w->len - w->seg_start - HW_SEG_HDR;
        if (size > HPROF_U4_MAX - used)
            return hw_fail(w, EFBIG,
                           "%s of %llu bytes would make the single HEAP DUMP record exceed "
                           "a u4 length (use segments)",
                           hprof_sub_name(subtag), (unsigned long long)size);
        if (w->cap - w->len < size && size <= SIZE_MAX && hw_grow(w, (size_t)size))
            return w->err;
        w->mark = w->len;
        w->mark_ok = 1;
        w->unit_end = w->flushed + w->len + size;
        return 0;
    }
    if (size > HPROF_U4_MAX)
        return hw_fail(w, EFBIG,
                       "%s of %llu bytes does not fit the u4 length of a HEAP DUMP SEGMENT; "
                       "refused",
                       hprof_sub_name(subtag), (unsigned long long)size);
    if (size > w->opt.segment_size) {
        hw_close_segment(w);
        uint8_t *p = hw_room(w, HW_SEG_HDR);
        if (!p)
            return w->err;
        w->mark = w->len; /* the segment header belongs to this sub-record */
        w->mark_ok = 1;
        w->unit_end = w->flushed + w->len + HW_SEG_HDR + size;
        p[0] = HPROF_TAG_HEAP_DUMP_SEGMENT;
        hw_be4(p + 1, hw_now_us(w));
        hw_be4(p + 5, (uint32_t)size);
        w->len += HW_SEG_HDR;
        w->nsegments++;
        return 0;
    }
    if (w->seg_open && w->len - w->seg_start - HW_SEG_HDR + size > w->opt.segment_size)
        hw_close_segment(w);
    if (!w->seg_open && hw_open_segment(w, HPROF_TAG_HEAP_DUMP_SEGMENT))
        return w->err;
    w->mark = w->len;
    w->mark_ok = 1;
    w->unit_end = w->flushed + w->len + size;
    return 0;
}

int hw_root(hw_writer *w, uint8_t tag, hprof_id obj, uint32_t thread_serial, uint32_t frame,
            hprof_id ref)
{
    unsigned u4s = 0, ids = 1;
    switch (tag) {
    case HPROF_GC_ROOT_UNKNOWN:
    case HPROF_GC_ROOT_STICKY_CLASS:
    case HPROF_GC_ROOT_MONITOR_USED:
    case HPROF_GC_ROOT_INTERNED_STRING:
    case HPROF_GC_ROOT_FINALIZING:
    case HPROF_GC_ROOT_DEBUGGER:
    case HPROF_GC_ROOT_REFERENCE_CLEANUP:
    case HPROF_GC_ROOT_VM_INTERNAL:
    case HPROF_GC_ROOT_UNREACHABLE:
        break;
    case HPROF_GC_ROOT_JNI_GLOBAL: ids = 2; break;
    case HPROF_GC_ROOT_JNI_LOCAL:
    case HPROF_GC_ROOT_JAVA_FRAME:
    case HPROF_GC_ROOT_JNI_MONITOR:
    case HPROF_GC_ROOT_THREAD_OBJ: u4s = 2; break;
    case HPROF_GC_ROOT_NATIVE_STACK:
    case HPROF_GC_ROOT_THREAD_BLOCK: u4s = 1; break;
    default:
        if (w->err)
            return w->err;
        return hw_fail(w, EINVAL, "hw_root: 0x%02X is not a GC root sub-record tag", tag);
    }
    hprof_id idv[2] = {obj, ref};
    if (w->err || hw_check_ids(w, idv, ids))
        return w->err;
    size_t size = 1 + ids * (size_t)w->idsz + 4 * u4s;
    if (hw_sub_place(w, size, tag))
        return w->err;
    uint8_t *p = hw_room(w, size);
    if (!p)
        return w->err;
    p[0] = tag;
    size_t o = 1 + hw_beid(w, p + 1, obj);
    if (ids == 2)
        o += hw_beid(w, p + o, ref);
    if (u4s >= 1) {
        hw_be4(p + o, thread_serial);
        o += 4;
    }
    if (u4s == 2)
        hw_be4(p + o, frame);
    w->len += size;
    return 0;
}

int hw_heap_dump_info(hw_writer *w, uint32_t heap_type, hprof_id heap_name_id)
{
    if (w->err || hw_check_id(w, heap_name_id))
        return w->err;
    size_t size = 5 + (size_t)w->idsz;
    if (hw_sub_place(w, size, HPROF_GC_HEAP_DUMP_INFO))
        return w->err;
    uint8_t *p = hw_room(w, size);
    if (!p)
        return w->err;
    p[0] = HPROF_GC_HEAP_DUMP_INFO;
    hw_be4(p + 1, heap_type);
    hw_beid(w, p + 5, heap_name_id);
    w->len += size;
    return 0;
}

/* Encodes a typed value; returns its size or 0 for an invalid type. */
static size_t hw_value_put(const hw_writer *w, uint8_t *p, const hw_value *v)
{
    switch (hprof_type_size(v->type, w->idsz)) {
    case 1: p[0] = (uint8_t)v->u; return 1;
    case 2: hw_be2(p, (uint16_t)v->u); return 2;
    case 4: hw_be4(p, (uint32_t)v->u); return 4;
    case 8: hw_be8(p, v->u); return 8;
    default: return 0;
    }
}

int hw_class_dump(hw_writer *w, const hw_class *c)
{
    if (w->err)
        return w->err;
    hprof_id ids[7] = {c->class_id, c->super_id, c->loader_id, c->signers_id,
                       c->protection_domain_id, c->reserved1, c->reserved2};
    if (hw_check_ids(w, ids, 7))
        return w->err;
    uint64_t size = 1 + HPROF_CLASS_DUMP_FIXED(w->idsz) + 6;
    for (unsigned i = 0; i < c->ncp; i++) {
        unsigned ts = hprof_type_size(c->cp[i].value.type, w->idsz);
        if (!ts)
            return hw_fail(w, EINVAL, "CLASS DUMP 0x%llx: constant pool entry %u has bad type %u",
                           (unsigned long long)c->class_id, i, c->cp[i].value.type);
        if (c->cp[i].value.type == HPROF_TYPE_OBJECT && hw_check_id(w, c->cp[i].value.u))
            return w->err;
        size += 3 + ts;
    }
    for (unsigned i = 0; i < c->nstatics; i++) {
        unsigned ts = hprof_type_size(c->statics[i].value.type, w->idsz);
        if (!ts)
            return hw_fail(w, EINVAL, "CLASS DUMP 0x%llx: static field %u has bad type %u",
                           (unsigned long long)c->class_id, i, c->statics[i].value.type);
        if (hw_check_id(w, c->statics[i].name_id) ||
            (c->statics[i].value.type == HPROF_TYPE_OBJECT && hw_check_id(w, c->statics[i].value.u)))
            return w->err;
        size += w->idsz + 1 + ts;
    }
    for (unsigned i = 0; i < c->nfields; i++) {
        if (!hprof_type_size(c->fields[i].type, w->idsz))
            return hw_fail(w, EINVAL, "CLASS DUMP 0x%llx: instance field %u has bad type %u",
                           (unsigned long long)c->class_id, i, c->fields[i].type);
        if (hw_check_id(w, c->fields[i].name_id))
            return w->err;
        size += w->idsz + 1;
    }
    if (hw_sub_place(w, size, HPROF_GC_CLASS_DUMP))
        return w->err;
    /* a class dump is at most ~1.2 MB (3 x 65535 entries): write it in parts */
    uint8_t *p = hw_room(w, 1 + HPROF_CLASS_DUMP_FIXED(w->idsz));
    if (!p)
        return w->err;
    uint8_t *q = p;
    *q++ = HPROF_GC_CLASS_DUMP;
    q += hw_beid(w, q, c->class_id);
    hw_be4(q, c->trace_serial);
    q += 4;
    for (int i = 1; i < 7; i++)
        q += hw_beid(w, q, ids[i]);
    hw_be4(q, c->instance_size);
    q += 4;
    w->len += (size_t)(q - p);
    if (!(p = hw_room(w, 2)))
        return w->err;
    hw_be2(p, c->ncp);
    w->len += 2;
    for (unsigned i = 0; i < c->ncp; i++) {
        if (!(p = hw_room(w, 3 + 8)))
            return w->err;
        hw_be2(p, c->cp[i].index);
        p[2] = c->cp[i].value.type;
        w->len += 3 + hw_value_put(w, p + 3, &c->cp[i].value);
    }
    if (!(p = hw_room(w, 2)))
        return w->err;
    hw_be2(p, c->nstatics);
    w->len += 2;
    for (unsigned i = 0; i < c->nstatics; i++) {
        if (!(p = hw_room(w, 8 + 1 + 8)))
            return w->err;
        size_t o = hw_beid(w, p, c->statics[i].name_id);
        p[o] = c->statics[i].value.type;
        w->len += o + 1 + hw_value_put(w, p + o + 1, &c->statics[i].value);
    }
    if (!(p = hw_room(w, 2)))
        return w->err;
    hw_be2(p, c->nfields);
    w->len += 2;
    for (unsigned i = 0; i < c->nfields; i++) {
        if (!(p = hw_room(w, 8 + 1)))
            return w->err;
        size_t o = hw_beid(w, p, c->fields[i].name_id);
        p[o] = c->fields[i].type;
        w->len += o + 1;
    }
    return 0;
}

static void hw_swap_elems(uint8_t *dst, const uint8_t *src, size_t k, unsigned es);

/* The heap walk's common case: the whole sub-record of `size` bytes fits
 * the open segment. Returns where to write it (already accounted as one
 * complete unit), or NULL for the general path. */
static inline uint8_t *hw_sub_fast(hw_writer *w, uint64_t size)
{
    if (w->len + size > w->seg_limit || w->in_sub)
        return NULL;
    uint8_t *p = w->buf + w->len;
    w->mark = w->len;
    w->mark_ok = 1;
    w->len += (size_t)size;
    w->unit_end = w->flushed + w->len;
    return p;
}

int hw_instance_begin(hw_writer *w, hprof_id obj, uint32_t trace_serial, hprof_id class_id,
                      uint32_t nbytes)
{
    hprof_id ids[2] = {obj, class_id};
    if (w->err || hw_check_ids(w, ids, 2))
        return w->err;
    size_t fixed = 1 + HPROF_INSTANCE_DUMP_FIXED(w->idsz);
    if (hw_sub_place(w, (uint64_t)fixed + nbytes, HPROF_GC_INSTANCE_DUMP))
        return w->err;
    uint8_t *p = hw_room(w, fixed);
    if (!p)
        return w->err;
    p[0] = HPROF_GC_INSTANCE_DUMP;
    size_t o = 1 + hw_beid(w, p + 1, obj);
    hw_be4(p + o, trace_serial);
    o += 4;
    o += hw_beid(w, p + o, class_id);
    hw_be4(p + o, nbytes);
    w->len += fixed;
    w->in_sub = 1;
    w->sub_left = nbytes;
    return 0;
}

int hw_instance_dump(hw_writer *w, hprof_id obj, uint32_t trace_serial, hprof_id class_id,
                     const void *values, uint32_t nbytes)
{
    uint8_t *p = hw_sub_fast(w, 1 + HPROF_INSTANCE_DUMP_FIXED(8) + (uint64_t)nbytes);
    if (p) {
        p[0] = HPROF_GC_INSTANCE_DUMP;
        hw_be8(p + 1, obj);
        hw_be4(p + 9, trace_serial);
        hw_be8(p + 13, class_id);
        hw_be4(p + 21, nbytes);
        if (nbytes) /* values may be NULL then */
            memcpy(p + 25, values, nbytes);
        return 0;
    }
    if (hw_instance_begin(w, obj, trace_serial, class_id, nbytes))
        return w->err;
    w->in_sub = 0;
    w->sub_left = 0;
    return hw_put_bytes(w, values, nbytes);
}

int hw_obj_array_begin(hw_writer *w, hprof_id obj, uint32_t trace_serial, hprof_id array_class_id,
                       uint32_t n)
{
    hprof_id ids[2] = {obj, array_class_id};
    if (w->err || hw_check_ids(w, ids, 2))
        return w->err;
    size_t fixed = 1 + HPROF_OBJ_ARRAY_DUMP_FIXED(w->idsz);
    if (hw_sub_place(w, (uint64_t)fixed + (uint64_t)n * w->idsz, HPROF_GC_OBJ_ARRAY_DUMP))
        return w->err;
    uint8_t *p = hw_room(w, fixed);
    if (!p)
        return w->err;
    p[0] = HPROF_GC_OBJ_ARRAY_DUMP;
    size_t o = 1 + hw_beid(w, p + 1, obj);
    hw_be4(p + o, trace_serial);
    hw_be4(p + o + 4, n);
    o += 8;
    hw_beid(w, p + o, array_class_id);
    w->len += fixed;
    w->in_sub = 1;
    w->sub_left = (uint64_t)n * w->idsz;
    return 0;
}

int hw_obj_array_dump(hw_writer *w, hprof_id obj, uint32_t trace_serial, hprof_id array_class_id,
                      uint32_t n, const hprof_id *elems)
{
    uint8_t *fp = hw_sub_fast(w, 1 + HPROF_OBJ_ARRAY_DUMP_FIXED(8) + 8 * (uint64_t)n);
    if (fp) {
        fp[0] = HPROF_GC_OBJ_ARRAY_DUMP;
        hw_be8(fp + 1, obj);
        hw_be4(fp + 9, trace_serial);
        hw_be4(fp + 13, n);
        hw_be8(fp + 17, array_class_id);
        hw_swap_elems(fp + 25, (const uint8_t *)elems, n, 8);
        return 0;
    }
    if (w->err)
        return w->err;
    /* the length first: the elements are only read once they are known to fit */
    uint64_t size = 1 + HPROF_OBJ_ARRAY_DUMP_FIXED(w->idsz) + (uint64_t)n * w->idsz;
    if (size > HPROF_U4_MAX)
        return hw_fail(w, EFBIG, "OBJ ARRAY DUMP of %llu bytes does not fit a u4 length; refused",
                       (unsigned long long)size);
    if (hw_check_ids(w, elems, n))
        return w->err;
    if (hw_obj_array_begin(w, obj, trace_serial, array_class_id, n))
        return w->err;
    w->in_sub = 0;
    w->sub_left = 0;
    uint32_t i = 0;
    while (i < n) {
        if (w->cap - w->len < w->idsz && !hw_room(w, w->idsz))
            return w->err;
        size_t k = (w->cap - w->len) / w->idsz;
        if (k > n - i)
            k = n - i;
        uint8_t *p = w->buf + w->len;
        if (w->idsz == 8)
            for (size_t j = 0; j < k; j++)
                hw_be8(p + 8 * j, elems[i + j]);
        else
            for (size_t j = 0; j < k; j++)
                hw_be4(p + 4 * j, (uint32_t)elems[i + j]);
        w->len += k * w->idsz;
        i += (uint32_t)k;
    }
    return 0;
}

/* Copies `k` native elements of size `es` to big-endian at dst. 2- and
 * 4-byte elements are swapped a 64-bit word at a time (4 or 2 elements per
 * step): char[] and int[] are a good part of a heap's bytes, and a loop
 * per element costs about as much as the rest of the writer together. */
static void hw_swap_elems(uint8_t *dst, const uint8_t *src, size_t k, unsigned es)
{
    size_t j = 0;
    if (k == 0)
        return; /* src may be NULL */
    switch (es) {
    case 1: memcpy(dst, src, k); break;
    case 2:
        for (; j + 4 <= k; j += 4) {
            uint64_t v;
            memcpy(&v, src + 2 * j, 8);
            v = ((v & 0x00FF00FF00FF00FFull) << 8) | ((v >> 8) & 0x00FF00FF00FF00FFull);
            memcpy(dst + 2 * j, &v, 8);
        }
        for (; j < k; j++) {
            uint16_t v;
            memcpy(&v, src + 2 * j, 2);
            v = __builtin_bswap16(v);
            memcpy(dst + 2 * j, &v, 2);
        }
        break;
    case 4:
        for (; j + 2 <= k; j += 2) {
            uint64_t v;
            memcpy(&v, src + 4 * j, 8);
            v = __builtin_bswap64(v);
            v = (v << 32) | (v >> 32);
            memcpy(dst + 4 * j, &v, 8);
        }
        for (; j < k; j++) {
            uint32_t v;
            memcpy(&v, src + 4 * j, 4);
            v = __builtin_bswap32(v);
            memcpy(dst + 4 * j, &v, 4);
        }
        break;
    default:
        for (; j < k; j++) {
            uint64_t v;
            memcpy(&v, src + 8 * j, 8);
            v = __builtin_bswap64(v);
            memcpy(dst + 8 * j, &v, 8);
        }
        break;
    }
}

int hw_prim_array_dump(hw_writer *w, hprof_id obj, uint32_t trace_serial, uint8_t type, uint32_t n,
                       const void *elems)
{
    unsigned fes = hprof_type_is_primitive(type) ? hprof_type_size(type, 8) : 0;
    uint8_t *fp = fes ? hw_sub_fast(w, 1 + HPROF_PRIM_ARRAY_DUMP_FIXED(8) + (uint64_t)n * fes) : NULL;
    if (fp) {
        fp[0] = HPROF_GC_PRIM_ARRAY_DUMP;
        hw_be8(fp + 1, obj);
        hw_be4(fp + 9, trace_serial);
        hw_be4(fp + 13, n);
        fp[17] = type;
        hw_swap_elems(fp + 18, elems, n, fes);
        return 0;
    }
    if (w->err || hw_check_id(w, obj))
        return w->err;
    if (!hprof_type_is_primitive(type))
        return hw_fail(w, EINVAL, "PRIM ARRAY DUMP 0x%llx: %u is not a primitive type",
                       (unsigned long long)obj, type);
    unsigned es = hprof_type_size(type, w->idsz);
    size_t fixed = 1 + HPROF_PRIM_ARRAY_DUMP_FIXED(w->idsz);
    if (hw_sub_place(w, (uint64_t)fixed + (uint64_t)n * es, HPROF_GC_PRIM_ARRAY_DUMP))
        return w->err;
    uint8_t *p = hw_room(w, fixed);
    if (!p)
        return w->err;
    p[0] = HPROF_GC_PRIM_ARRAY_DUMP;
    size_t o = 1 + hw_beid(w, p + 1, obj);
    hw_be4(p + o, trace_serial);
    hw_be4(p + o + 4, n);
    p[o + 8] = type;
    w->len += fixed;
    const uint8_t *src = elems;
    size_t left = n;
    while (left > 0) {
        if (w->cap - w->len < es && !hw_room(w, es))
            return w->err;
        size_t k = (w->cap - w->len) / es;
        if (k > left)
            k = left;
        hw_swap_elems(w->buf + w->len, src, k, es);
        w->len += k * es;
        src += k * es;
        left -= k;
    }
    return 0;
}

/* Streaming puts: only inside hw_instance_begin/hw_obj_array_begin. */
static uint8_t *hw_sub_room(hw_writer *w, size_t n)
{
    if (w->err)
        return NULL;
    if (!w->in_sub) {
        hw_fail(w, EINVAL, "hw_put_* called outside a streaming sub-record");
        return NULL;
    }
    if (w->sub_left < n) {
        hw_fail(w, EINVAL, "streaming sub-record overrun: %zu bytes put, %llu declared left", n,
                (unsigned long long)w->sub_left);
        return NULL;
    }
    uint8_t *p = hw_room(w, n);
    if (p) {
        w->sub_left -= n;
        w->len += n;
    }
    return p;
}

int hw_put_u1(hw_writer *w, uint8_t v)
{
    uint8_t *p = hw_sub_room(w, 1);
    if (p)
        p[0] = v;
    return w->err;
}

int hw_put_u2(hw_writer *w, uint16_t v)
{
    uint8_t *p = hw_sub_room(w, 2);
    if (p)
        hw_be2(p, v);
    return w->err;
}

int hw_put_u4(hw_writer *w, uint32_t v)
{
    uint8_t *p = hw_sub_room(w, 4);
    if (p)
        hw_be4(p, v);
    return w->err;
}

int hw_put_u8(hw_writer *w, uint64_t v)
{
    uint8_t *p = hw_sub_room(w, 8);
    if (p)
        hw_be8(p, v);
    return w->err;
}

int hw_put_id(hw_writer *w, hprof_id v)
{
    if (w->err || hw_check_id(w, v))
        return w->err;
    uint8_t *p = hw_sub_room(w, w->idsz);
    if (p)
        hw_beid(w, p, v);
    return w->err;
}

int hw_sub_end(hw_writer *w)
{
    if (w->err)
        return w->err;
    if (!w->in_sub)
        return hw_fail(w, EINVAL, "hw_sub_end without a streaming sub-record");
    if (w->sub_left)
        return hw_fail(w, EINVAL, "streaming sub-record ended %llu bytes short of its declared length",
                       (unsigned long long)w->sub_left);
    w->in_sub = 0;
    return 0;
}
