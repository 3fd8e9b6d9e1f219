/*
 * convert.c: libhprofconvert (convert.h): a streaming transcoder from one
 * HPROF variant to another.
 *
 * Owns: the record and sub-record rewriting (ids resized or renumbered,
 * Android tags mapped as AOSP's hprof-conv maps them), the output heap
 * layout (kept, re-cut into segments, or one 1.0.1 HEAP DUMP record), the
 * two-pass cases (1.0.1's measured length, the class pre-pass) and the
 * output through a raw hw_writer (over a gzip sink when asked). The input
 * window is cv_in.c's, the class layouts cv_classes.c's.
 *
 * Why not hr_reader: the reader hands over at most HR_BODY_MAX bytes of a
 * primitive array or record (it cuts longer ones), and a converter needs
 * every byte; it also cannot go back to a saved offset, which the 1.0.1
 * output (length first) and the class pre-pass need. The parsing rules
 * (lengths, sub-record shapes) are the same as the reader's.
 *
 * Errors: the first one is latched in cv.msg with its kind (input/output);
 * every step checks cv.err and stops. Ids that do not fit 4 bytes, a 1.0.1
 * heap dump past 4 GiB, an instance of a class never dumped: refused, with
 * the offset, before the output is renamed into place.
 */
#include "convert.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "cv_classes.h"
#include "cv_in.h"
#include "hu_map.h"

#define CV_CHUNK (256u << 10)   /* copy/convert unit for long arrays and records */
#define CV_OBUF (256u << 10)    /* output coalescing buffer */
/* Most value bytes an instance layout may take (INSTANCE DUMP's length is
 * a u4). A test build lowers it to reach it with a small file. */
#ifndef CV_LAYOUT_MAX
#define CV_LAYOUT_MAX HPROF_U4_MAX
#endif

/* ------------------------------------------------------------ converter */

enum cv_heap_mode {
    CV_KEEP,   /* heap records as they are (same ids, same version) */
    CV_RECUT,  /* 1.0.2 out: sub-records packed into new segments */
    CV_SINGLE  /* 1.0.1 out: one HEAP DUMP record per dump, length measured first */
};

enum cv_put { CV_PUT_NONE, CV_PUT_DIRECT, CV_PUT_SEGMENT };

typedef struct cv {
    const convert_options *o;
    convert_stats *st;
    cv_in in;
    const char *src_path;    /* for the pre-pass: NULL when the input is memory */
    const void *src_mem;
    size_t src_len;
    unsigned isz, osz;
    hprof_version iver, over;
    int android;             /* map Android sub-records (1.0.3 input) */
    enum cv_heap_mode mode;
    hw_writer *w;            /* NULL: no output (the pre-pass) */
    uint8_t *obuf;
    size_t olen;
    /* measuring: sub-records are read and checked, nothing is written,
     * their converted sizes summed in `measured` */
    int measuring;
    uint64_t measured;
    /* heap record being read: bytes of it left */
    int in_heap_rec;
    uint64_t rec_left;
    uint64_t rec_off;
    /* output segment */
    uint8_t *seg;
    size_t seg_len;
    uint32_t seg_size;
    uint32_t seg_time;
    int dump_open;           /* RECUT: a dump's segments written, END not yet */
    enum cv_put put;
    uint64_t sub_left;
    /* scratch for one sub-record or record piece */
    uint8_t *tmp;
    size_t tmp_cap;
    /* layouts: needed when ids change size */
    cv_classes *classes;
    int want_layouts;
    int collect;             /* the pre-pass: record layouts, ids unchanged */
    int prepass_done;
    uint32_t heap_type;      /* Android: current heap (HEAP DUMP INFO) */
    /* renumber: UTF8, FRAME and JNI global ref ids -> 1, 2, 3... in order
     * of first sight, one numbering per kind */
    hu_map names, frames, refs;
    int err;                 /* CONVERT_EINPUT / CONVERT_EOUTPUT */
    char msg[512];
} cv;

static void cv_fail(cv *c, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cv_fail(cv *c, int kind, const char *fmt, ...)
{
    if (c->err)
        return;
    c->err = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
}

#define CV_STAT(c, field, n)              \
    do {                                  \
        if (!(c)->measuring && (c)->st)   \
            (c)->st->field += (n);        \
    } while (0)

/* Takes n bytes of input (n <= CV_WINDOW), checking that a heap record
 * holds them. NULL after an error (latched). */
static const uint8_t *cv_take(cv *c, size_t n, const char *what)
{
    if (c->err)
        return NULL;
    uint64_t off = cv_in_off(&c->in);
    if (c->in_heap_rec && n > c->rec_left) {
        cv_fail(c, CONVERT_EINPUT,
                "offset %" PRIu64 ": %s needs %zu bytes, but its heap dump record (at offset %" PRIu64
                ") has only %" PRIu64 " left: the sub-record crosses the record's end",
                off, what, n, c->rec_off, c->rec_left);
        return NULL;
    }
    if (cv_in_fill(&c->in, n) != 0) {
        if (c->in.err)
            cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": %s", off, c->in.errmsg);
        else
            cv_fail(c, CONVERT_EINPUT,
                    "offset %" PRIu64 ": truncated: %s needs %zu bytes, the file has %zu more",
                    off, what, n, c->in.len - c->in.pos);
        return NULL;
    }
    const uint8_t *p = c->in.buf + c->in.pos;
    c->in.pos += n;
    if (c->in_heap_rec)
        c->rec_left -= n;
    if (c->st && cv_in_off(&c->in) > c->st->in_bytes)
        c->st->in_bytes = cv_in_off(&c->in);
    return p;
}

static uint64_t cv_get_id(const uint8_t *p, unsigned sz)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < sz; i++)
        v = (v << 8) | p[i];
    return v;
}

static void cv_put_be(uint8_t *p, uint64_t v, unsigned sz)
{
    for (unsigned i = sz; i-- > 0;) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

static uint32_t cv_u4(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint16_t cv_u2(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

enum cv_idkind { CV_OBJ, CV_NAME, CV_FRAME, CV_REF };

/* Converts the id at `in` (input size) into `out` (output size); refuses
 * one that does not fit. `at` is its input offset, for the message. With
 * `renumber`, ids of names (UTF8), frames and JNI global refs become
 * small numbers, the
 * same one for the same id everywhere (0 stays 0). */
static int cv_idk(cv *c, const uint8_t *in, uint8_t *out, uint64_t at, enum cv_idkind kind)
{
    uint64_t v = cv_get_id(in, c->isz);
    if (kind != CV_OBJ && c->o->renumber && v != 0) {
        hu_map *m = kind == CV_NAME ? &c->names : kind == CV_FRAME ? &c->frames : &c->refs;
        int ins = 0;
        uint64_t *slot = hu_map_upsert(m, v, m->count + 1, &ins);
        if (!slot) {
            cv_fail(c, CONVERT_EOUTPUT, "out of memory");
            return -1;
        }
        v = *slot;
    }
    if (c->osz < c->isz && v > HPROF_U4_MAX) {
        static const char *const kinds[] = {"an object's", "a name's (UTF8)", "a stack frame's",
                                            "a JNI global reference's"};
        cv_fail(c, CONVERT_EINPUT,
                "id 0x%" PRIx64 " at offset %" PRIu64 " does not fit 4 bytes: it is %s id. %s",
                v, at, kinds[kind],
                kind == CV_OBJ ? "Object ids are kept as they are (references hold them), so "
                                 "this dump cannot have 4-byte ids (HotSpot's are heap "
                                 "addresses: its heap lies above 4 GiB)"
                               : "HotSpot writes addresses there: --renumber gives such ids "
                                 "small numbers");
        return -1;
    }
    cv_put_be(out, v, c->osz);
    if (c->isz != c->osz)
        CV_STAT(c, ids, 1);
    return 0;
}

static int cv_id(cv *c, const uint8_t *in, uint8_t *out, uint64_t at)
{
    return cv_idk(c, in, out, at, CV_OBJ);
}

static int cv_tmp(cv *c, size_t n)
{
    if (n <= c->tmp_cap)
        return 0;
    size_t nc = c->tmp_cap ? c->tmp_cap : 65536;
    while (nc < n)
        nc *= 2;
    uint8_t *p = realloc(c->tmp, nc);
    if (!p) {
        cv_fail(c, CONVERT_EOUTPUT, "out of memory");
        return -1;
    }
    c->tmp = p;
    c->tmp_cap = nc;
    return 0;
}

/* ---------------------------------------------------------------- output */

static void cv_flush_obuf(cv *c)
{
    if (c->olen && c->w && !c->err) {
        if (hw_raw_bytes(c->w, c->obuf, c->olen) != 0)
            cv_fail(c, CONVERT_EOUTPUT, "%s", hw_writer_error_text(c->w));
    }
    c->olen = 0;
}

/* Appends output bytes (nothing while measuring or without output). */
static void cv_out(cv *c, const void *p, size_t n)
{
    if (c->err || c->measuring || !c->w)
        return;
    if (c->st)
        c->st->out_bytes += n;
    if (c->olen + n > CV_OBUF) {
        cv_flush_obuf(c);
        if (n >= CV_OBUF) {
            if (hw_raw_bytes(c->w, p, n) != 0)
                cv_fail(c, CONVERT_EOUTPUT, "%s", hw_writer_error_text(c->w));
            return;
        }
    }
    memcpy(c->obuf + c->olen, p, n);
    c->olen += n;
}

static void cv_out_rec_header(cv *c, uint8_t tag, uint32_t time, uint32_t len)
{
    uint8_t h[HPROF_RECORD_HEADER_SIZE];
    h[0] = tag;
    cv_put_be(h + HPROF_RECORD_TIME_AT, time, HPROF_U4_LEN);
    cv_put_be(h + HPROF_RECORD_LENGTH_AT, len, HPROF_U4_LEN);
    cv_out(c, h, sizeof h);
}

/* Writes the open output segment, if it holds anything. */
static void cv_seg_flush(cv *c)
{
    if (c->seg_len == 0 || c->measuring)
        return;
    cv_out_rec_header(c, HPROF_TAG_HEAP_DUMP_SEGMENT, c->seg_time, (uint32_t)c->seg_len);
    cv_out(c, c->seg, c->seg_len);
    CV_STAT(c, segments, 1);
    CV_STAT(c, records, 1);
    c->seg_len = 0;
}

/* Starts an output sub-record of `total` bytes (tag included): decides
 * where it goes. Every sub-record is begun, put whole, and ended. */
static void cv_sub_begin(cv *c, uint64_t total)
{
    c->sub_left = total;
    if (c->err)
        return;
    if (c->measuring) {
        c->measured += total;
        c->put = CV_PUT_NONE;
        return;
    }
    CV_STAT(c, subs, 1);
    if (c->mode != CV_RECUT) {
        c->put = CV_PUT_DIRECT;
        return;
    }
    c->dump_open = 1;
    if (c->seg_len && c->seg_len + total > c->seg_size)
        cv_seg_flush(c);
    if (total > c->seg_size) {
        /* a sub-record larger than a segment gets one of its own */
        if (total > HPROF_U4_MAX) {
            cv_fail(c, CONVERT_EINPUT,
                    "offset %" PRIu64 ": a sub-record of %" PRIu64 " bytes once converted does "
                    "not fit a HEAP DUMP SEGMENT (at most 4294967295 bytes)",
                    cv_in_off(&c->in), total);
            return;
        }
        cv_out_rec_header(c, HPROF_TAG_HEAP_DUMP_SEGMENT, c->seg_time, (uint32_t)total);
        CV_STAT(c, segments, 1);
        CV_STAT(c, records, 1);
        c->put = CV_PUT_DIRECT;
    } else {
        c->put = CV_PUT_SEGMENT;
    }
}

static void cv_sub_put(cv *c, const void *p, size_t n)
{
    if (c->err)
        return;
    if (n > c->sub_left) {
        cv_fail(c, CONVERT_EINPUT, "internal error: sub-record longer than announced");
        return;
    }
    c->sub_left -= n;
    if (c->put == CV_PUT_DIRECT) {
        cv_out(c, p, n);
    } else if (c->put == CV_PUT_SEGMENT) {
        memcpy(c->seg + c->seg_len, p, n);
        c->seg_len += n;
    }
}

static void cv_sub_end(cv *c)
{
    if (!c->err && c->sub_left != 0)
        cv_fail(c, CONVERT_EINPUT, "internal error: sub-record shorter than announced");
}

/* Copies n input bytes to the current sub-record, in chunks. */
static void cv_sub_copy(cv *c, uint64_t n, const char *what)
{
    while (n > 0 && !c->err) {
        size_t k = n > CV_CHUNK ? CV_CHUNK : (size_t)n;
        const uint8_t *p = cv_take(c, k, what);
        if (!p)
            return;
        cv_sub_put(c, p, k);
        n -= k;
    }
}

/* Copies n input bytes to the output as they are (top-level records). */
static void cv_copy(cv *c, uint64_t n, const char *what)
{
    while (n > 0 && !c->err) {
        size_t k = n > CV_CHUNK ? CV_CHUNK : (size_t)n;
        const uint8_t *p = cv_take(c, k, what);
        if (!p)
            return;
        cv_out(c, p, k);
        n -= k;
    }
}

/* --------------------------------------------------------- class layouts */

static int cv_prepass(cv *c);

/* The flattened layout of class `id`, computed once; NULL (latched) when a
 * class of the chain was never dumped, or the chain loops. */
static cv_class *cv_layout(cv *c, uint64_t id, uint64_t at)
{
    cv_classes *t = c->classes;
    cv_class *k = cv_classes_get(t, id);
    if (!k && cv_prepass(c) == 0)
        k = cv_classes_get(t, id);
    if (!k) {
        if (!c->err)
            cv_fail(c, CONVERT_EINPUT,
                    "offset %" PRIu64 ": INSTANCE DUMP of class 0x%" PRIx64 ", which has no CLASS "
                    "DUMP in the file: its values cannot be converted to another id size",
                    at, id);
        return NULL;
    }
    if (k->flat_state)
        return k;
    size_t idx = (size_t)(k - t->v);
    /* 64-bit sums: a long chain of 65 535-field classes passes 4 GiB */
    uint32_t flat_off = (uint32_t)t->pool_len, n = 0;
    uint64_t in_size = 0, out_size = 0;
    int has_obj = 0;
    uint64_t cur = id;
    size_t depth = 0;
    while (cur != 0) {
        cv_class *s = cv_classes_get(t, cur);
        if (!s && cv_prepass(c) == 0)
            s = cv_classes_get(t, cur);
        if (!s || ++depth > t->n) {
            if (!c->err)
                cv_fail(c, CONVERT_EINPUT,
                        "offset %" PRIu64 ": the superclass chain of class 0x%" PRIx64 " %s "
                        "(class 0x%" PRIx64 "): its instances cannot be converted",
                        at, id, s ? "loops" : "reaches a class without CLASS DUMP", cur);
            return NULL;
        }
        uint32_t off = s->own_off, cnt = s->own_n;
        uint64_t sup = s->super;
        for (uint32_t i = 0; i < cnt; i++) {
            uint8_t ty = t->pool[off + i];
            in_size += hprof_type_size(ty, c->isz);
            out_size += hprof_type_size(ty, c->osz);
            if (in_size > CV_LAYOUT_MAX || out_size > CV_LAYOUT_MAX) {
                cv_fail(c, CONVERT_EINPUT,
                        "offset %" PRIu64 ": the fields of class 0x%" PRIx64 " and its "
                        "superclasses take more than %" PRIu64 " bytes (at class 0x%" PRIx64
                        "): its instances cannot be converted",
                        at, id, (uint64_t)CV_LAYOUT_MAX, cur);
                return NULL;
            }
            has_obj |= ty == HPROF_TYPE_OBJECT;
            /* the pool may move: copy through a byte */
            if (cv_classes_pool_add(t, &ty, 1) != 0) {
                cv_fail(c, CONVERT_EOUTPUT, "out of memory");
                return NULL;
            }
        }
        n += cnt;
        cur = sup;
    }
    k = &t->v[idx];
    k->flat_state = 1;
    k->flat_off = flat_off;
    k->flat_n = n;
    k->in_size = (uint32_t)in_size; /* both at most CV_LAYOUT_MAX */
    k->out_size = (uint32_t)out_size;
    k->has_obj = has_obj;
    return k;
}

/* ----------------------------------------------------------- sub-records */

/* Bytes after the sub-tag of a root-like sub-record, split into leading
 * ids and a trailing fixed part; 0 for a tag that is not one. */
static int cv_root_shape(uint8_t tag, unsigned *nids, unsigned *tail)
{
    *nids = 1;
    *tail = 0;
    switch (tag) {
    case HPROF_GC_ROOT_UNKNOWN: case HPROF_GC_ROOT_STICKY_CLASS: case HPROF_GC_ROOT_MONITOR_USED:
    case HPROF_GC_ROOT_INTERNED_STRING: case HPROF_GC_ROOT_FINALIZING: case HPROF_GC_ROOT_DEBUGGER:
    case HPROF_GC_ROOT_REFERENCE_CLEANUP: case HPROF_GC_ROOT_VM_INTERNAL:
    case HPROF_GC_ROOT_UNREACHABLE:
        return 1;
    case HPROF_GC_ROOT_JNI_GLOBAL:
        *nids = 2;
        return 1;
    case HPROF_GC_ROOT_JNI_LOCAL: case HPROF_GC_ROOT_JAVA_FRAME: case HPROF_GC_ROOT_THREAD_OBJ:
    case HPROF_GC_ROOT_JNI_MONITOR:
        *tail = HPROF_ROOT_THREAD_FRAME_TAIL_LEN;
        return 1;
    case HPROF_GC_ROOT_NATIVE_STACK: case HPROF_GC_ROOT_THREAD_BLOCK:
        *tail = HPROF_ROOT_THREAD_TAIL_LEN;
        return 1;
    default:
        return 0;
    }
}

static int cv_is_android_root(uint8_t tag)
{
    return (tag >= HPROF_GC_ROOT_INTERNED_STRING && tag <= HPROF_GC_ROOT_JNI_MONITOR) ||
           tag == HPROF_GC_ROOT_UNREACHABLE;
}

static void cv_sub_root(cv *c, uint8_t tag, uint64_t at)
{
    unsigned nids, tail;
    cv_root_shape(tag, &nids, &tail);
    const uint8_t *p = cv_take(c, nids * c->isz + tail, hprof_sub_name(tag));
    if (!p)
        return;
    uint8_t out[HPROF_SUB_TAG_LEN + HPROF_ROOT_IDS_MAX * HPROF_ID_SIZE_MAX +
                HPROF_ROOT_THREAD_FRAME_TAIL_LEN];
    size_t n = HPROF_SUB_TAG_LEN;
    out[0] = tag;
    if (c->android && cv_is_android_root(tag)) {
        /* hprof-conv: every Android root becomes ROOT UNKNOWN with its
         * object id; JNI MONITOR's thread and frame are dropped */
        out[0] = HPROF_GC_ROOT_UNKNOWN;
        nids = 1;
        tail = 0;
        CV_STAT(c, android_roots, 1);
    }
    /* JNI GLOBAL's second id is the JNI reference, not an object */
    for (unsigned i = 0; i < nids; i++, n += c->osz)
        if (cv_idk(c, p + i * c->isz, out + n, at + HPROF_SUB_TAG_LEN + i * c->isz,
                   i ? CV_REF : CV_OBJ) != 0)
            return;
    memcpy(out + n, p + nids * c->isz, tail);
    n += tail;
    cv_sub_begin(c, n);
    cv_sub_put(c, out, n);
    cv_sub_end(c);
}

/* HEAP DUMP INFO: u4 heap type, id heap name. Dropped when mapping
 * Android (1.0.2 has no equivalent); the heap type drives app_only. */
static void cv_sub_heap_info(cv *c, uint64_t at)
{
    const uint8_t *p = cv_take(c, HPROF_HEAP_DUMP_INFO_FIXED(c->isz), "HEAP DUMP INFO");
    if (!p)
        return;
    c->heap_type = cv_u4(p);
    if (c->android) {
        CV_STAT(c, android_infos, 1);
        return;
    }
    uint8_t out[HPROF_SUB_TAG_LEN + HPROF_HEAP_DUMP_INFO_FIXED(HPROF_ID_SIZE_MAX)];
    const size_t name_at = HPROF_SUB_TAG_LEN + HPROF_U4_LEN;
    out[0] = HPROF_GC_HEAP_DUMP_INFO;
    memcpy(out + HPROF_SUB_TAG_LEN, p, HPROF_U4_LEN);
    if (cv_idk(c, p + HPROF_U4_LEN, out + name_at, at + name_at, CV_NAME) != 0)
        return;
    cv_sub_begin(c, name_at + c->osz);
    cv_sub_put(c, out, name_at + c->osz);
    cv_sub_end(c);
}

/* True while the objects read belong to a heap that -z drops. */
static int cv_dropping(const cv *c)
{
    return c->o->app_only &&
           (c->heap_type == HPROF_HEAP_ZYGOTE || c->heap_type == HPROF_HEAP_IMAGE);
}

/* Skips n input bytes of a dropped object. */
static void cv_skip(cv *c, uint64_t n, const char *what)
{
    while (n > 0 && !c->err) {
        size_t k = n > CV_CHUNK ? CV_CHUNK : (size_t)n;
        if (!cv_take(c, k, what))
            return;
        n -= k;
    }
}

static void cv_sub_class(cv *c, uint64_t at)
{
    unsigned is = c->isz, os = c->osz;
    const uint8_t *p = cv_take(c, HPROF_CLASS_DUMP_FIXED(is) + HPROF_U2_LEN, "CLASS DUMP");
    if (!p)
        return;
    /* built in tmp: its size is known only at its end (at most ~2.4 MB:
     * u2 counts) */
    if (cv_tmp(c, HPROF_SUB_TAG_LEN + HPROF_CLASS_DUMP_FIXED(HPROF_ID_SIZE_MAX) + HPROF_U2_LEN) != 0)
        return;
    uint8_t *o = c->tmp;
    size_t n = 0;
    /* id, u4 trace, then 6 ids (super first), u4 instance size, u2 count */
    const size_t ids_at = is + HPROF_U4_LEN, size_at = HPROF_CLASS_DUMP_FIXED(is) - HPROF_U4_LEN;
    uint64_t class_id = cv_get_id(p, is), super = cv_get_id(p + ids_at, is);
    o[n++] = HPROF_GC_CLASS_DUMP;
    if (cv_id(c, p, o + n, at + HPROF_SUB_TAG_LEN) != 0)
        return;
    n += os;
    memcpy(o + n, p + is, HPROF_U4_LEN);
    n += HPROF_U4_LEN;
    for (unsigned i = 0; i < 6; i++, n += os)
        if (cv_id(c, p + ids_at + i * is, o + n, at + HPROF_SUB_TAG_LEN + ids_at + i * is) != 0)
            return;
    memcpy(o + n, p + size_at, HPROF_U4_LEN + HPROF_U2_LEN); /* instance size, cp count */
    n += HPROF_U4_LEN + HPROF_U2_LEN;
    unsigned ncp = (unsigned)cv_u2(p + HPROF_CLASS_DUMP_FIXED(is));
    for (unsigned i = 0; i < ncp && !c->err; i++) {
        uint64_t eat = cv_in_off(&c->in);
        const uint8_t *e = cv_take(c, HPROF_CP_ENTRY_HEAD_LEN, "CLASS DUMP constant pool entry");
        if (!e)
            return;
        unsigned ty = e[HPROF_U2_LEN], sz = hprof_type_size(ty, is);
        if (!sz) {
            cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": CLASS DUMP 0x%" PRIx64 ": constant pool "
                    "entry %u has the invalid type %u", eat, class_id, i, ty);
            return;
        }
        uint8_t e3[HPROF_CP_ENTRY_HEAD_LEN];
        memcpy(e3, e, sizeof e3);
        const uint8_t *v = cv_take(c, sz, "CLASS DUMP constant pool value");
        /* room for this entry and the static count after the last one */
        if (!v || cv_tmp(c, n + HPROF_CP_ENTRY_HEAD_LEN + HPROF_ID_SIZE_MAX + HPROF_U2_LEN) != 0)
            return;
        o = c->tmp;
        memcpy(o + n, e3, sizeof e3);
        n += sizeof e3;
        if (ty == HPROF_TYPE_OBJECT) {
            if (cv_id(c, v, o + n, eat + HPROF_CP_ENTRY_HEAD_LEN) != 0)
                return;
            n += os;
        } else {
            memcpy(o + n, v, sz);
            n += sz;
        }
    }
    const uint8_t *q = cv_take(c, HPROF_U2_LEN, "CLASS DUMP static count");
    if (!q)
        return;
    unsigned nst = (unsigned)cv_u2(q);
    o = c->tmp;
    o[n++] = q[0];
    o[n++] = q[1];
    for (unsigned i = 0; i < nst && !c->err; i++) {
        uint64_t eat = cv_in_off(&c->in);
        const uint8_t *e = cv_take(c, HPROF_FIELD_HEAD_LEN(is), "CLASS DUMP static field");
        if (!e)
            return;
        unsigned ty = e[is], sz = hprof_type_size(ty, is);
        if (!sz) {
            cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": CLASS DUMP 0x%" PRIx64 ": static field "
                    "%u has the invalid type %u", eat, class_id, i, ty);
            return;
        }
        /* this static (name, type, value) and the field count after the last */
        if (cv_tmp(c, n + HPROF_FIELD_HEAD_LEN(HPROF_ID_SIZE_MAX) + HPROF_ID_SIZE_MAX + HPROF_U2_LEN) != 0)
            return;
        o = c->tmp;
        if (cv_idk(c, e, o + n, eat, CV_NAME) != 0)
            return;
        n += os;
        o[n++] = (uint8_t)ty;
        const uint8_t *v = cv_take(c, sz, "CLASS DUMP static value");
        if (!v)
            return;
        if (ty == HPROF_TYPE_OBJECT) {
            if (cv_id(c, v, o + n, eat + HPROF_FIELD_HEAD_LEN(is)) != 0)
                return;
            n += os;
        } else {
            memcpy(o + n, v, sz);
            n += sz;
        }
    }
    q = cv_take(c, HPROF_U2_LEN, "CLASS DUMP field count");
    if (!q)
        return;
    unsigned nf = (unsigned)cv_u2(q);
    o = c->tmp;
    o[n++] = q[0];
    o[n++] = q[1];
    uint8_t types[65535];
    for (unsigned i = 0; i < nf && !c->err; i++) {
        uint64_t eat = cv_in_off(&c->in);
        const uint8_t *e = cv_take(c, HPROF_FIELD_HEAD_LEN(is), "CLASS DUMP instance field");
        if (!e)
            return;
        unsigned ty = e[is];
        if (!hprof_type_size(ty, is)) {
            cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": CLASS DUMP 0x%" PRIx64 ": instance "
                    "field %u has the invalid type %u", eat, class_id, i, ty);
            return;
        }
        types[i] = (uint8_t)ty;
        if (cv_tmp(c, n + HPROF_FIELD_HEAD_LEN(HPROF_ID_SIZE_MAX)) != 0)
            return;
        o = c->tmp;
        if (cv_idk(c, e, o + n, eat, CV_NAME) != 0)
            return;
        n += os;
        o[n++] = (uint8_t)ty;
    }
    if (c->err)
        return;
    if (c->want_layouts && cv_classes_add(c->classes, class_id, super, types, nf) != 0) {
        cv_fail(c, CONVERT_EOUTPUT, "out of memory");
        return;
    }
    cv_sub_begin(c, n);
    cv_sub_put(c, c->tmp, n);
    cv_sub_end(c);
}

static void cv_sub_instance(cv *c, uint64_t at)
{
    unsigned is = c->isz, os = c->osz;
    const uint8_t *p = cv_take(c, HPROF_INSTANCE_DUMP_FIXED(is), "INSTANCE DUMP");
    if (!p)
        return;
    /* id, u4 trace, class id, u4 value bytes */
    uint8_t h[HPROF_SUB_TAG_LEN + HPROF_INSTANCE_DUMP_FIXED(HPROF_ID_SIZE_MAX)];
    const size_t cls_at = is + HPROF_U4_LEN;
    const size_t ocls_at = HPROF_SUB_TAG_LEN + os + HPROF_U4_LEN;
    uint64_t class_id = cv_get_id(p + cls_at, is);
    uint32_t nbytes = cv_u4(p + cls_at + is);
    if (cv_dropping(c)) {
        CV_STAT(c, app_only_dropped, 1);
        cv_skip(c, nbytes, "INSTANCE DUMP values");
        return;
    }
    h[0] = HPROF_GC_INSTANCE_DUMP;
    if (cv_id(c, p, h + HPROF_SUB_TAG_LEN, at + HPROF_SUB_TAG_LEN) != 0)
        return;
    memcpy(h + HPROF_SUB_TAG_LEN + os, p + is, HPROF_U4_LEN);
    if (cv_id(c, p + cls_at, h + ocls_at, at + HPROF_SUB_TAG_LEN + cls_at) != 0)
        return;
    size_t hn = HPROF_SUB_TAG_LEN + HPROF_INSTANCE_DUMP_FIXED(os);
    if (is == os) {
        cv_put_be(h + ocls_at + os, nbytes, HPROF_U4_LEN);
        cv_sub_begin(c, hn + (uint64_t)nbytes);
        cv_sub_put(c, h, hn);
        cv_sub_copy(c, nbytes, "INSTANCE DUMP values");
        cv_sub_end(c);
        return;
    }
    uint64_t vat = cv_in_off(&c->in);
    cv_class *k = cv_layout(c, class_id, at);
    if (!k)
        return;
    if (k->in_size != nbytes) {
        cv_fail(c, CONVERT_EINPUT,
                "offset %" PRIu64 ": INSTANCE DUMP 0x%" PRIx64 " holds %" PRIu32 " bytes of values, "
                "but the fields of class 0x%" PRIx64 " and its superclasses take %" PRIu32,
                at, cv_get_id(h + HPROF_SUB_TAG_LEN, os), nbytes, class_id, k->in_size);
        return;
    }
    if (nbytes > CV_WINDOW) {
        cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": INSTANCE DUMP of %" PRIu32 " value bytes: "
                "too large to convert", at, nbytes);
        return;
    }
    cv_put_be(h + ocls_at + os, k->out_size, HPROF_U4_LEN);
    uint32_t flat_off = k->flat_off, flat_n = k->flat_n, out_size = k->out_size;
    int has_obj = k->has_obj;
    const uint8_t *v = cv_take(c, nbytes, "INSTANCE DUMP values");
    if (!v || cv_tmp(c, out_size) != 0)
        return;
    cv_sub_begin(c, hn + out_size);
    cv_sub_put(c, h, hn);
    if (!has_obj) {
        cv_sub_put(c, v, nbytes);
    } else {
        const uint8_t *types = c->classes->pool + flat_off;
        size_t ip = 0, op = 0;
        for (uint32_t i = 0; i < flat_n; i++) {
            if (types[i] == HPROF_TYPE_OBJECT) {
                if (cv_id(c, v + ip, c->tmp + op, vat + ip) != 0)
                    return;
                ip += is;
                op += os;
            } else {
                unsigned sz = hprof_type_size(types[i], is);
                memcpy(c->tmp + op, v + ip, sz);
                ip += sz;
                op += sz;
            }
        }
        cv_sub_put(c, c->tmp, op);
    }
    cv_sub_end(c);
}

static void cv_sub_obj_array(cv *c, uint64_t at)
{
    unsigned is = c->isz, os = c->osz;
    const uint8_t *p = cv_take(c, HPROF_OBJ_ARRAY_DUMP_FIXED(is), "OBJECT ARRAY DUMP");
    if (!p)
        return;
    /* id, u4 trace, u4 count, class id */
    uint8_t h[HPROF_SUB_TAG_LEN + HPROF_OBJ_ARRAY_DUMP_FIXED(HPROF_ID_SIZE_MAX)];
    const size_t cls_at = is + 2 * HPROF_U4_LEN;
    uint32_t n = cv_u4(p + is + HPROF_U4_LEN);
    if (cv_dropping(c)) {
        CV_STAT(c, app_only_dropped, 1);
        cv_skip(c, (uint64_t)n * is, "OBJECT ARRAY DUMP elements");
        return;
    }
    h[0] = HPROF_GC_OBJ_ARRAY_DUMP;
    if (cv_id(c, p, h + HPROF_SUB_TAG_LEN, at + HPROF_SUB_TAG_LEN) != 0)
        return;
    memcpy(h + HPROF_SUB_TAG_LEN + os, p + is, 2 * HPROF_U4_LEN);
    if (cv_id(c, p + cls_at, h + HPROF_SUB_TAG_LEN + os + 2 * HPROF_U4_LEN,
              at + HPROF_SUB_TAG_LEN + cls_at) != 0)
        return;
    size_t hn = HPROF_SUB_TAG_LEN + HPROF_OBJ_ARRAY_DUMP_FIXED(os);
    cv_sub_begin(c, hn + (uint64_t)n * os);
    cv_sub_put(c, h, hn);
    if (is == os) {
        cv_sub_copy(c, (uint64_t)n * is, "OBJECT ARRAY DUMP elements");
    } else {
        uint32_t per = CV_CHUNK / 8;
        if (cv_tmp(c, (size_t)per * os) != 0)
            return;
        for (uint32_t done = 0; done < n && !c->err;) {
            uint32_t k = n - done > per ? per : n - done;
            uint64_t eat = cv_in_off(&c->in);
            const uint8_t *e = cv_take(c, (size_t)k * is, "OBJECT ARRAY DUMP elements");
            if (!e)
                return;
            for (uint32_t i = 0; i < k; i++)
                if (cv_id(c, e + (size_t)i * is, c->tmp + (size_t)i * os, eat + (uint64_t)i * is) != 0)
                    return;
            cv_sub_put(c, c->tmp, (size_t)k * os);
            done += k;
        }
    }
    cv_sub_end(c);
}

/* PRIMITIVE ARRAY DUMP, or Android's NODATA (same header, no elements),
 * which becomes a PRIMITIVE ARRAY DUMP of as many zeros. */
static void cv_sub_prim_array(cv *c, uint8_t tag, uint64_t at)
{
    unsigned is = c->isz, os = c->osz;
    const char *what = tag == HPROF_GC_PRIM_ARRAY_DUMP ? "PRIMITIVE ARRAY DUMP"
                                                        : "PRIMITIVE ARRAY NODATA DUMP";
    const uint8_t *p = cv_take(c, HPROF_PRIM_ARRAY_DUMP_FIXED(is), what);
    if (!p)
        return;
    /* id, u4 trace, u4 count, u1 type */
    uint8_t h[HPROF_SUB_TAG_LEN + HPROF_PRIM_ARRAY_DUMP_FIXED(HPROF_ID_SIZE_MAX)];
    uint32_t n = cv_u4(p + is + HPROF_U4_LEN);
    unsigned ty = p[is + 2 * HPROF_U4_LEN];
    if (!hprof_type_is_primitive(ty)) {
        cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": %s with the invalid element type %u", at,
                what, ty);
        return;
    }
    uint64_t data = (uint64_t)n * hprof_type_size(ty, is);
    int nodata = tag == HPROF_GC_PRIM_ARRAY_NODATA;
    if (cv_dropping(c)) {
        CV_STAT(c, app_only_dropped, 1);
        if (!nodata)
            cv_skip(c, data, "PRIMITIVE ARRAY DUMP elements");
        return;
    }
    h[0] = nodata && c->android ? HPROF_GC_PRIM_ARRAY_DUMP : tag;
    if (cv_id(c, p, h + HPROF_SUB_TAG_LEN, at + HPROF_SUB_TAG_LEN) != 0)
        return;
    memcpy(h + HPROF_SUB_TAG_LEN + os, p + is, HPROF_PRIM_ARRAY_DUMP_FIXED(is) - is);
    size_t hn = HPROF_SUB_TAG_LEN + HPROF_PRIM_ARRAY_DUMP_FIXED(os);
    if (nodata && !c->android) {
        cv_sub_begin(c, hn);
        cv_sub_put(c, h, hn);
        cv_sub_end(c);
        return;
    }
    cv_sub_begin(c, hn + data);
    cv_sub_put(c, h, hn);
    if (!nodata) {
        cv_sub_copy(c, data, "PRIMITIVE ARRAY DUMP elements");
    } else {
        CV_STAT(c, nodata_arrays, 1);
        if (cv_tmp(c, CV_CHUNK) != 0)
            return;
        memset(c->tmp, 0, CV_CHUNK);
        for (uint64_t left = data; left > 0 && !c->err;) {
            size_t k = left > CV_CHUNK ? CV_CHUNK : (size_t)left;
            cv_sub_put(c, c->tmp, k);
            left -= k;
        }
    }
    cv_sub_end(c);
}

/* One heap sub-record of the current heap record. */
static void cv_sub(cv *c)
{
    uint64_t at = cv_in_off(&c->in);
    const uint8_t *p = cv_take(c, HPROF_SUB_TAG_LEN, "heap sub-record tag");
    if (!p)
        return;
    uint8_t tag = p[0];
    unsigned nids, tail;
    if (cv_root_shape(tag, &nids, &tail)) {
        cv_sub_root(c, tag, at);
        return;
    }
    switch (tag) {
    case HPROF_GC_CLASS_DUMP: cv_sub_class(c, at); return;
    case HPROF_GC_INSTANCE_DUMP: cv_sub_instance(c, at); return;
    case HPROF_GC_OBJ_ARRAY_DUMP: cv_sub_obj_array(c, at); return;
    case HPROF_GC_PRIM_ARRAY_DUMP:
    case HPROF_GC_PRIM_ARRAY_NODATA: cv_sub_prim_array(c, tag, at); return;
    case HPROF_GC_HEAP_DUMP_INFO: cv_sub_heap_info(c, at); return;
    default:
        cv_fail(c, CONVERT_EINPUT,
                "offset %" PRIu64 ": unknown heap sub-record tag 0x%02X: its length, and so the "
                "rest of the heap dump, cannot be read",
                at, tag);
    }
}

/* The sub-records of one heap record whose header was read. */
static void cv_heap_body(cv *c, uint64_t rec_off, uint32_t len)
{
    c->in_heap_rec = 1;
    c->rec_left = len;
    c->rec_off = rec_off;
    while (c->rec_left > 0 && !c->err)
        cv_sub(c);
    c->in_heap_rec = 0;
}

/* ---------------------------------------------------------- top records */

/* Peeks at the next record's tag: 1 with *tag, 0 at the end of input. */
static int cv_peek_tag(cv *c, uint8_t *tag)
{
    if (c->err || cv_in_fill(&c->in, 1) != 0) {
        if (c->in.err)
            cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": %s", cv_in_off(&c->in), c->in.errmsg);
        return 0;
    }
    *tag = c->in.buf[c->in.pos];
    return 1;
}

static void cv_end_record(cv *c, uint32_t time)
{
    cv_seg_flush(c);
    cv_out_rec_header(c, HPROF_TAG_HEAP_DUMP_END, time, 0);
    CV_STAT(c, records, 1);
    c->dump_open = 0;
}

/* 1.0.1 output: measures the dump starting with the record whose header
 * was just read (a 0x0C, or a run of consecutive 0x1C), goes back, writes
 * one HEAP DUMP record and its sub-records. */
static void cv_single_dump(cv *c, uint8_t tag, uint32_t time, uint32_t len, uint64_t rec_off)
{
    uint64_t body = cv_in_off(&c->in);
    uint32_t heap_type = c->heap_type;
    c->measuring = 1;
    c->measured = 0;
    cv_heap_body(c, rec_off, len);
    if (tag == HPROF_TAG_HEAP_DUMP_SEGMENT) {
        uint8_t t;
        while (!c->err && cv_peek_tag(c, &t) && t == HPROF_TAG_HEAP_DUMP_SEGMENT) {
            uint64_t o = cv_in_off(&c->in);
            const uint8_t *h = cv_take(c, HPROF_RECORD_HEADER_SIZE, "record header");
            if (h)
                cv_heap_body(c, o, cv_u4(h + HPROF_RECORD_LENGTH_AT));
        }
    }
    c->measuring = 0;
    if (c->err)
        return;
    uint64_t total = c->measured;
    if (total > HPROF_U4_MAX) {
        cv_fail(c, CONVERT_EINPUT,
                "the heap dump at offset %" PRIu64 " is %" PRIu64 " bytes once converted: more than "
                "a 1.0.1 HEAP DUMP record can hold (4294967295 bytes). Keep --version 1.0.2, "
                "whose segments have no such limit",
                rec_off, total);
        return;
    }
    if (cv_in_seek(&c->in, body) != 0) {
        cv_fail(c, CONVERT_EINPUT, "converting to 1.0.1 reads each heap dump twice (its length "
                "comes first), and this input cannot be read again (a pipe?): convert a file");
        return;
    }
    c->heap_type = heap_type;
    /* VisualVM rejects a HEAP DUMP of length 0: an empty dump writes nothing */
    if (total > 0) {
        cv_out_rec_header(c, HPROF_TAG_HEAP_DUMP, time, (uint32_t)total);
        CV_STAT(c, records, 1);
        CV_STAT(c, heap_dumps, 1);
    }
    cv_heap_body(c, rec_off, len);
    if (tag == HPROF_TAG_HEAP_DUMP_SEGMENT) {
        uint8_t t;
        while (!c->err && cv_peek_tag(c, &t) && t == HPROF_TAG_HEAP_DUMP_SEGMENT) {
            uint64_t o = cv_in_off(&c->in);
            const uint8_t *h = cv_take(c, HPROF_RECORD_HEADER_SIZE, "record header");
            if (h)
                cv_heap_body(c, o, cv_u4(h + HPROF_RECORD_LENGTH_AT));
        }
    }
}

static void cv_heap_record(cv *c, uint8_t tag, uint32_t time, uint32_t len, uint64_t rec_off)
{
    switch (c->mode) {
    case CV_KEEP:
        cv_out_rec_header(c, tag, time, len);
        CV_STAT(c, records, 1);
        if (tag == HPROF_TAG_HEAP_DUMP_SEGMENT)
            CV_STAT(c, segments, 1);
        else
            CV_STAT(c, heap_dumps, 1);
        cv_heap_body(c, rec_off, len);
        return;
    case CV_RECUT:
        if (!c->dump_open || c->seg_len == 0)
            c->seg_time = time;
        cv_heap_body(c, rec_off, len);
        if (tag == HPROF_TAG_HEAP_DUMP && !c->err)
            cv_end_record(c, time); /* 1.0.1 input: the dump is this record */
        return;
    case CV_SINGLE:
        cv_single_dump(c, tag, time, len, rec_off);
        return;
    }
}

/* A plain record: ids resized when the id size changes; every other byte
 * as it is. `shape`: 'i' an object id, 'n' a name (UTF8) id, 'f' a frame
 * id, a digit that many bytes (a u4 is "4"). Each call spells out its
 * record's layout in a comment; the longest
 * (START THREAD, "4i4nnn") is 40 bytes with 8-byte ids: CV_FIXED_MAX. */
#define CV_FIXED_MAX (2u * HPROF_U4_LEN + 4u * HPROF_ID_SIZE_MAX)
static void cv_fixed_record(cv *c, uint8_t tag, uint32_t time, uint32_t len, uint64_t at,
                            const char *shape)
{
    uint32_t in_len = 0, out_len = 0;
    for (const char *s = shape; *s; s++) {
        int id = *s == 'i' || *s == 'n' || *s == 'f';
        in_len += id ? c->isz : (uint32_t)(*s - '0');
        out_len += id ? c->osz : (uint32_t)(*s - '0');
    }
    if (out_len > CV_FIXED_MAX) { /* a new shape longer than the buffer */
        cv_fail(c, CONVERT_EOUTPUT, "internal error: %s record shape too long", hprof_tag_name(tag));
        return;
    }
    if (len != in_len) {
        cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": %s record of length %" PRIu32 ", its layout "
                "says %" PRIu32 " with %u-byte ids", at, hprof_tag_name(tag), len, in_len, c->isz);
        return;
    }
    const uint8_t *p = cv_take(c, len, hprof_tag_name(tag));
    if (!p)
        return;
    uint8_t out[CV_FIXED_MAX];
    size_t ip = 0, op = 0;
    for (const char *s = shape; *s; s++) {
        if (*s == 'i' || *s == 'n' || *s == 'f') {
            enum cv_idkind k = *s == 'n' ? CV_NAME : *s == 'f' ? CV_FRAME : CV_OBJ;
            if (cv_idk(c, p + ip, out + op, at + HPROF_RECORD_HEADER_SIZE + ip, k) != 0)
                return;
            ip += c->isz;
            op += c->osz;
        } else {
            unsigned k = (unsigned)(*s - '0');
            memcpy(out + op, p + ip, k);
            ip += k;
            op += k;
        }
    }
    cv_out_rec_header(c, tag, time, out_len);
    cv_out(c, out, op);
}

static void cv_plain_record(cv *c, uint8_t tag, uint32_t time, uint32_t len, uint64_t at)
{
    CV_STAT(c, records, 1);
    int unknown = hprof_tag_name(tag) == NULL;
    if (unknown)
        CV_STAT(c, unknown_records, 1);
    if (c->isz == c->osz && !c->o->renumber) {
        cv_out_rec_header(c, tag, time, len);
        cv_copy(c, len, hprof_tag_name(tag) ? hprof_tag_name(tag) : "record");
        return;
    }
    switch (tag) {
    case HPROF_TAG_UTF8: {
        if (len < c->isz) {
            cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": UTF8 record of length %" PRIu32
                    ", shorter than its id", at, len);
            return;
        }
        const uint8_t *p = cv_take(c, c->isz, "UTF8 id");
        uint8_t id[HPROF_ID_SIZE_MAX];
        if (!p || cv_idk(c, p, id, at + HPROF_RECORD_HEADER_SIZE, CV_NAME) != 0)
            return;
        uint64_t out_len = (uint64_t)len - c->isz + c->osz;
        if (out_len > HPROF_U4_MAX) {
            cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": UTF8 record too long for 8-byte ids", at);
            return;
        }
        cv_out_rec_header(c, tag, time, (uint32_t)out_len);
        cv_out(c, id, c->osz);
        cv_copy(c, len - c->isz, "UTF8 text");
        return;
    }
    /* u4 class serial, class id, u4 trace serial, name */
    case HPROF_TAG_LOAD_CLASS: cv_fixed_record(c, tag, time, len, at, "4i4n"); return;
    /* frame id, method name, signature, source file, u4 class serial, u4 line */
    case HPROF_TAG_FRAME: cv_fixed_record(c, tag, time, len, at, "fnnn44"); return;
    /* u4 thread serial, thread id, u4 trace serial, name, group, parent group */
    case HPROF_TAG_START_THREAD: cv_fixed_record(c, tag, time, len, at, "4i4nnn"); return;
    case HPROF_TAG_TRACE: {
        const uint8_t *p = len >= HPROF_TRACE_FIXED ? cv_take(c, HPROF_TRACE_FIXED, "TRACE") : NULL;
        if (!p) {
            cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": TRACE record of length %" PRIu32, at, len);
            return;
        }
        uint8_t h[HPROF_TRACE_FIXED];
        memcpy(h, p, HPROF_TRACE_FIXED);
        uint32_t n = cv_u4(h + HPROF_TRACE_FIXED - HPROF_U4_LEN); /* frame count */
        if ((uint64_t)len != HPROF_TRACE_FIXED + (uint64_t)n * c->isz) {
            cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": TRACE record of length %" PRIu32 " for %"
                    PRIu32 " frames of %u-byte ids", at, len, n, c->isz);
            return;
        }
        uint64_t out_len = HPROF_TRACE_FIXED + (uint64_t)n * c->osz;
        if (out_len > HPROF_U4_MAX) {
            cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": TRACE record too long for 8-byte ids", at);
            return;
        }
        cv_out_rec_header(c, tag, time, (uint32_t)out_len);
        cv_out(c, h, HPROF_TRACE_FIXED);
        for (uint32_t i = 0; i < n && !c->err; i++) {
            uint64_t fat = cv_in_off(&c->in);
            const uint8_t *f = cv_take(c, c->isz, "TRACE frame id");
            uint8_t id[HPROF_ID_SIZE_MAX];
            if (!f || cv_idk(c, f, id, fat, CV_FRAME) != 0)
                return;
            cv_out(c, id, c->osz);
        }
        return;
    }
    default:
        /* Unknown: its ids, if any, cannot be found, and a copy would
         * keep them at the old size (or number): refused rather than a
         * file that reads wrong. */
        if (unknown) {
            cv_fail(c, CONVERT_EINPUT,
                    "offset %" PRIu64 ": record of unknown tag 0x%02X (%" PRIu32 " bytes): ids in "
                    "it, if any, cannot be %s; such a file converts only with its ids unchanged",
                    at, tag, len, c->isz != c->osz ? "resized" : "renumbered");
            return;
        }
        /* no ids in them (ALLOC SITES, CPU SAMPLES, ...): as they are */
        cv_out_rec_header(c, tag, time, len);
        cv_copy(c, len, "record");
        return;
    }
}

/* ------------------------------------------------------------- the run */

static const char *cv_magic(hprof_version v)
{
    return v == HPROF_VERSION_1_0_1 ? HPROF_MAGIC_1_0_1
           : v == HPROF_VERSION_1_0_3 ? HPROF_MAGIC_1_0_3 : HPROF_MAGIC_1_0_2;
}

static void cv_header(cv *c)
{
    if (cv_in_fill(&c->in, HPROF_HEADER_SIZE) != 0 ||
        memchr(c->in.buf + c->in.pos, 0, HPROF_MAGIC_LEN + 1) != c->in.buf + c->in.pos + HPROF_MAGIC_LEN) {
        if (c->in.err)
            cv_fail(c, CONVERT_EINPUT, "%s", c->in.errmsg);
        else
            cv_fail(c, CONVERT_EINPUT, "not an HPROF file: no \"JAVA PROFILE 1.0.x\" header");
        return;
    }
    const uint8_t *p = cv_take(c, HPROF_HEADER_SIZE, "header");
    if (!p)
        return;
    if (memcmp(p, HPROF_MAGIC_1_0_1, HPROF_MAGIC_LEN) == 0)
        c->iver = HPROF_VERSION_1_0_1;
    else if (memcmp(p, HPROF_MAGIC_1_0_2, HPROF_MAGIC_LEN) == 0)
        c->iver = HPROF_VERSION_1_0_2;
    else if (memcmp(p, HPROF_MAGIC_1_0_3, HPROF_MAGIC_LEN) == 0)
        c->iver = HPROF_VERSION_1_0_3;
    else {
        cv_fail(c, CONVERT_EINPUT, "not an HPROF file: unknown header \"%.18s\"", (const char *)p);
        return;
    }
    c->isz = cv_u4(p + HPROF_MAGIC_LEN + 1);
    if (c->isz != 4 && c->isz != 8) {
        cv_fail(c, CONVERT_EINPUT, "offset %u: id size %u; only 4 and 8 are known",
                HPROF_MAGIC_LEN + 1, c->isz);
        return;
    }
    c->osz = c->o->id_size ? c->o->id_size : c->isz;
    c->over = c->o->version ? c->o->version
              : c->iver == HPROF_VERSION_1_0_3 ? HPROF_VERSION_1_0_2 : c->iver;
    c->android = c->iver == HPROF_VERSION_1_0_3;
    if (c->over == HPROF_VERSION_1_0_1)
        c->mode = CV_SINGLE;
    else if (c->isz != c->osz || c->over != c->iver || c->o->segment_size || c->android ||
             c->o->app_only)
        c->mode = CV_RECUT;
    else
        c->mode = CV_KEEP;
    if (c->mode == CV_RECUT && c->st)
        c->st->recut = 1;
    c->want_layouts = c->isz != c->osz || c->collect;
    uint8_t h[HPROF_HEADER_SIZE];
    memcpy(h, cv_magic(c->over), HPROF_MAGIC_LEN);
    h[HPROF_MAGIC_LEN] = 0;
    cv_put_be(h + HPROF_MAGIC_LEN + 1, c->osz, 4);
    memcpy(h + HPROF_MAGIC_LEN + 5, p + HPROF_MAGIC_LEN + 5, 8);
    cv_out(c, h, sizeof h);
}

static void cv_run(cv *c)
{
    cv_header(c);
    uint8_t tag;
    while (!c->err && cv_peek_tag(c, &tag)) {
        uint64_t at = cv_in_off(&c->in);
        const uint8_t *h = cv_take(c, HPROF_RECORD_HEADER_SIZE, "record header");
        if (!h)
            break;
        uint32_t time = cv_u4(h + HPROF_RECORD_TIME_AT), len = cv_u4(h + HPROF_RECORD_LENGTH_AT);
        if (tag == HPROF_TAG_HEAP_DUMP || tag == HPROF_TAG_HEAP_DUMP_SEGMENT) {
            cv_heap_record(c, tag, time, len, at);
            continue;
        }
        if (tag == HPROF_TAG_HEAP_DUMP_END) {
            if (len != 0) {
                cv_fail(c, CONVERT_EINPUT, "offset %" PRIu64 ": HEAP DUMP END of length %" PRIu32
                        " (it has no body)", at, len);
                break;
            }
            if (c->mode == CV_KEEP) {
                cv_out_rec_header(c, tag, time, 0);
                CV_STAT(c, records, 1);
            } else if (c->mode == CV_RECUT) {
                cv_end_record(c, time);
            } /* 1.0.1 has no END */
            continue;
        }
        cv_seg_flush(c);
        cv_plain_record(c, tag, time, len, at);
    }
    cv_seg_flush(c);
    cv_flush_obuf(c);
}

/* Collects every CLASS DUMP of the input in one pass of its own (an
 * instance came before its class): 0, or -1 (error latched, or done once
 * already). */
static int cv_prepass(cv *c)
{
    if (c->prepass_done || c->err)
        return -1;
    c->prepass_done = 1;
    if (c->st)
        c->st->class_prepass = 1;
    cv_in in2;
    int r = c->src_path ? cv_in_open_file(&in2, c->src_path) : cv_in_open_mem(&in2, c->src_mem, c->src_len);
    if (r != 0 || (c->src_path && strcmp(c->src_path, "-") == 0)) {
        if (r == 0)
            cv_in_close(&in2);
        cv_fail(c, CONVERT_EINPUT, "an INSTANCE DUMP comes before its CLASS DUMP: converting it "
                "needs a first pass over the input, which cannot be read twice (a pipe): "
                "convert a file");
        return -1;
    }
    convert_options o2 = *c->o;
    o2.id_size = 0;
    o2.version = 0;
    o2.segment_size = 0;
    o2.app_only = 0;
    o2.renumber = 0;
    cv s;
    memset(&s, 0, sizeof s);
    s.o = &o2;
    s.in = in2;
    s.classes = c->classes;
    s.measuring = 1;
    s.prepass_done = 1;
    s.collect = 1;
    s.seg_size = HW_DEFAULT_SEGMENT_SIZE;
    cv_run(&s);
    cv_in_close(&s.in);
    free(s.tmp);
    if (s.err) {
        cv_fail(c, s.err, "%s", s.msg);
        return -1;
    }
    return 0;
}

void convert_options_init(convert_options *o)
{
    memset(o, 0, sizeof *o);
    o->gzip_level = 1;
}

static int cv_check_options(const convert_options *o, char *msg, size_t msglen)
{
    if (o->id_size != 0 && o->id_size != 4 && o->id_size != 8) {
        snprintf(msg, msglen, "id size %u: only 4 and 8", o->id_size);
        return -1;
    }
    if (o->version != 0 && o->version != HPROF_VERSION_1_0_1 && o->version != HPROF_VERSION_1_0_2) {
        snprintf(msg, msglen, "only 1.0.1 and 1.0.2 can be written");
        return -1;
    }
    if (o->gzip_level < -1 || o->gzip_level > 9) {
        snprintf(msg, msglen, "gzip level %d: -1 or 0-9", o->gzip_level);
        return -1;
    }
    return 0;
}

/* Disposes of a sink as hw_writer_close would (a memory sink is the
 * caller's): through a raw writer, which writes nothing. */
static void cv_dispose(hw_sink *sink)
{
    hw_options wo;
    hw_options_init(&wo);
    wo.raw = 1;
    hw_writer *w = hw_writer_open(sink, &wo, NULL);
    if (w)
        hw_writer_close(w, NULL, 0);
}

/* Runs the conversion from an open input into a sink (consumed). */
static int cv_convert(cv *c, hw_sink *sink, char *msg, size_t msglen)
{
    int e = 0;
    if (c->o->gzip) {
        hw_sink *gz = hw_sink_gzip(sink, c->o->gzip_level, &e);
        if (!gz) {
            cv_dispose(sink);
            snprintf(msg, msglen, "gzip output: %s", strerror(e));
            return CONVERT_EOUTPUT;
        }
        sink = gz;
    }
    hw_options wo;
    hw_options_init(&wo);
    wo.raw = 1;
    wo.io_thread = c->o->gzip; /* compression overlaps the parsing */
    c->w = hw_writer_open(sink, &wo, &e);
    if (!c->w) {
        snprintf(msg, msglen, "cannot open the output: %s", strerror(e));
        return CONVERT_EOUTPUT;
    }
    c->obuf = malloc(CV_OBUF);
    c->seg_size = c->o->segment_size ? c->o->segment_size : HW_DEFAULT_SEGMENT_SIZE;
    c->seg = malloc(c->seg_size);
    cv_classes classes;
    cv_classes_init(&classes);
    c->classes = &classes;
    hu_map_init(&c->names);
    hu_map_init(&c->frames);
    hu_map_init(&c->refs);
    if (!c->obuf || !c->seg)
        cv_fail(c, CONVERT_EOUTPUT, "out of memory");
    else
        cv_run(c);
    char wmsg[256];
    int we = hw_writer_close(c->w, wmsg, sizeof wmsg);
    c->w = NULL;
    if (we && !c->err)
        cv_fail(c, CONVERT_EOUTPUT, "%s", wmsg);
    cv_classes_cleanup(&classes);
    hu_map_cleanup(&c->names);
    hu_map_cleanup(&c->frames);
    hu_map_cleanup(&c->refs);
    free(c->obuf);
    free(c->seg);
    free(c->tmp);
    if (c->err)
        snprintf(msg, msglen, "%s", c->msg);
    return c->err;
}

int convert_memory(const void *in, size_t len, hw_sink *out, const convert_options *o,
                   convert_stats *st, char *msg, size_t msglen)
{
    convert_stats dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    if (cv_check_options(o, msg, msglen) != 0) {
        cv_dispose(out);
        return CONVERT_EINPUT;
    }
    cv c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.st = st;
    c.src_mem = in;
    c.src_len = len;
    if (cv_in_open_mem(&c.in, in, len) != 0) {
        snprintf(msg, msglen, "out of memory");
        cv_in_close(&c.in);
        cv_dispose(out);
        return CONVERT_EOUTPUT;
    }
    int r = cv_convert(&c, out, msg, msglen);
    cv_in_close(&c.in);
    return r;
}

int convert_file(const char *in, const char *out, const convert_options *o, convert_stats *st,
                 char *msg, size_t msglen)
{
    convert_stats dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    if (cv_check_options(o, msg, msglen) != 0)
        return CONVERT_EINPUT;
    cv c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.st = st;
    c.src_path = in;
    if (cv_in_open_file(&c.in, in) != 0) {
        snprintf(msg, msglen, "cannot read %s: %s", in, strerror(errno ? errno : ENOMEM));
        return CONVERT_EINPUT;
    }
    /* hw_outfile's rules: "-", a device or a FIFO written in place; a
     * regular OUT replaced by a rename when whole; a link or the input
     * refused. */
    int e = 0;
    char why[512];
    hw_outfile *of = hw_outfile_open(out, in, &e, why, sizeof why);
    if (!of) {
        cv_in_close(&c.in);
        snprintf(msg, msglen, "cannot write %s", why);
        return CONVERT_EOUTPUT;
    }
    hw_sink *sink = hw_sink_fd(hw_outfile_fd(of), 0);
    if (!sink) {
        cv_in_close(&c.in);
        hw_outfile_abort(of);
        snprintf(msg, msglen, "out of memory");
        return CONVERT_EOUTPUT;
    }
    int r = cv_convert(&c, sink, msg, msglen);
    cv_in_close(&c.in);
    if (r == 0 && hw_outfile_commit(of, why, sizeof why) != 0) {
        snprintf(msg, msglen, "cannot write %s", why);
        r = CONVERT_EOUTPUT;
    } else if (r != 0) {
        hw_outfile_abort(of);
    }
    return r;
}
