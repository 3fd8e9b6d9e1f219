/*
 * test_verify.c: the verifier (hv_verify) against the pitfall matrix of
 * readers-and-hotspot.md section 4.
 *
 * A HotSpot-shaped baseline (1.0.2, UTF8s, LOAD CLASS incl. array classes,
 * empty TRACE serial 1, a thread's FRAME + TRACE, CLASS DUMPs, instances,
 * arrays, THREAD OBJECT then JAVA FRAME roots, END) is built with the writer
 * and must verify clean at id sizes 4 and 8. Each bad variant changes one
 * thing and must give exactly the expected kind, at the expected offset
 * where that is easy to know. Structural damage the writer cannot produce
 * (split sub-records, empty segments, unknown sub-tags) is hand-assembled.
 * Also: max_per_kind, the ignore list, a non-rewindable source (pipe), and
 * every truncation and many byte flips of a file, which must never crash.
 * The readers' verdicts (hv_readers.h): for each reader, the baseline reads
 * clean and each record, sub-record, header and kind in its table gives
 * exactly the expected verdict, reason kind and offset; `hprof verify
 * --reader` exits by that reader's verdict.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "hprof/hv_readers.h"
#include "hprof/hv_verify.h"

/* ------------------------------------------------------ problem capture */

typedef struct tv_prob {
    char kind[40];
    hr_severity sev;
    uint64_t off;
    char msg[720];
} tv_prob;

typedef struct tv_col {
    tv_prob p[64];
    unsigned n;     /* stored */
    unsigned calls; /* on_problem calls */
} tv_col;

static void tv_on_problem(void *ctx, const hv_problem *p)
{
    tv_col *c = ctx;
    c->calls++;
    if (c->n >= sizeof c->p / sizeof c->p[0])
        return;
    tv_prob *q = &c->p[c->n++];
    snprintf(q->kind, sizeof q->kind, "%s", p->kind);
    q->sev = p->severity;
    q->off = p->offset;
    snprintf(q->msg, sizeof q->msg, "%s", p->message ? p->message : "(null)");
}

static void tv_dump(const char *what, const tv_col *c, const hv_result *r)
{
    fprintf(stderr, "\n  [%s] %u problem(s) delivered, errors=%llu warnings=%llu status=%d\n", what,
            c->calls, (unsigned long long)r->errors, (unsigned long long)r->warnings,
            (int)r->parse_status);
    for (unsigned i = 0; i < c->n; i++)
        fprintf(stderr, "    %s %s @%llu: %s\n", c->p[i].sev == HR_ERROR ? "ERROR" : "WARN",
                c->p[i].kind, (unsigned long long)c->p[i].off, c->p[i].msg);
}

static int tv_verify(const uint8_t *data, size_t len, unsigned max_per_kind,
                     const char *const *ignore, tv_col *col, hv_result *res)
{
    memset(col, 0, sizeof *col);
    hr_source *src = hr_source_memory(data, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    hv_options o;
    hv_options_init(&o);
    o.max_per_kind = max_per_kind;
    o.ignore = ignore;
    o.on_problem = tv_on_problem;
    o.ctx = col;
    int rc = hv_verify(src, &o, res);
    hr_source_close(src);
    return rc;
}

static uint64_t tv_kind_count(const hv_result *r, const char *kind)
{
    for (unsigned i = 0; i < r->nkinds; i++)
        if (strcmp(r->kinds[i].kind, kind) == 0)
            return r->kinds[i].count;
    return 0;
}

/* Asserts that the file gives no problem at all. */
static void tv_expect_clean(const char *what, const uint8_t *data, size_t len)
{
    tv_col col;
    hv_result res;
    int rc = tv_verify(data, len, 0, NULL, &col, &res);
    int ok = rc == 0 && res.errors == 0 && res.warnings == 0 && res.nkinds == 0 &&
             col.calls == 0 && res.parse_status == HR_OK && res.resolved_refs == 1;
    if (!ok)
        tv_dump(what, &col, &res);
    CU_ASSERT(ok);
}

/* Asserts that every problem is of `kind` with severity `sev`, that there
 * are `n` of them (0: at least one), and, if `off` != UINT64_MAX, that the
 * first is at `off`. Returns the first one (or NULL) for message checks. */
static const tv_prob *tv_expect_only(const char *what, const uint8_t *data, size_t len,
                                     const char *kind, hr_severity sev, unsigned n, uint64_t off,
                                     tv_col *col)
{
    hv_result res;
    int rc = tv_verify(data, len, 0, NULL, col, &res);
    int ok = rc == 1 && res.nkinds == 1 && strcmp(res.kinds[0].kind, kind) == 0 &&
             res.kinds[0].severity == sev && col->calls >= 1 && col->calls == res.kinds[0].count &&
             (n == 0 || col->calls == n) &&
             (sev == HR_ERROR ? res.errors == col->calls && res.warnings == 0
                              : res.warnings == col->calls && res.errors == 0);
    for (unsigned i = 0; ok && i < col->n; i++)
        ok = strcmp(col->p[i].kind, kind) == 0 && col->p[i].sev == sev && col->p[i].msg[0] != 0;
    if (ok && off != UINT64_MAX)
        ok = col->p[0].off == off;
    if (!ok) {
        fprintf(stderr, "\n  expected only %s (n=%u, offset %lld)", kind, n,
                off == UINT64_MAX ? -1LL : (long long)off);
        tv_dump(what, col, &res);
    }
    CU_ASSERT(ok);
    return ok ? &col->p[0] : NULL;
}

static void tv_expect_msg(const tv_prob *p, const char *needle)
{
    int ok = p && strstr(p->msg, needle) != NULL;
    if (!ok)
        fprintf(stderr, "\n  message lacks \"%s\": %s\n", needle, p ? p->msg : "(no problem)");
    CU_ASSERT(ok);
}

/* ------------------------------------------------------ the baseline */

/* ids: UTF8 0x1xx, classes 0x10xx, frames 0x5xx, objects 0x2000+ */
enum {
    U_OBJECT = 0x100, U_THREAD, U_FOO, U_SUBFOO, U_INTARR, U_FOOARR, U_BYTEARR,
    U_COUNT = 0x110, U_NEXT, U_BIG, U_PEER, U_INSTANCE,
    U_MAIN = 0x120, U_SIG, U_SRC, U_TNAME = 0x130, U_TGROUP
};
enum {
    C_OBJECT = 0x1000, C_THREAD, C_FOO, C_SUBFOO, C_INTARR, C_FOOARR, C_BYTEARR
};
enum { F_MAIN = 0x500, F_MISSING = 0x501 };
enum { O_THREAD = 0x2000, O_FOO = 0x3000, O_SUBFOO = 0x3001, O_INTS = 0x4000, O_FOOS = 0x4001,
       O_BYTES = 0x4002 };

/* Variants: each changes one thing of the baseline. */
#define V_LEGACY (1ull << 0)          /* CONTROL, START/END THREAD, SITES, SUMMARY, SAMPLES */
#define V_DOTTED (1ull << 1)          /* java.lang.Object, int[] */
#define V_UNKNOWN_TAG (1ull << 2)     /* a 0x50 record */
#define V_NO_TRACES (1ull << 3)       /* serial 0 everywhere, no TRACE/FRAME */
#define V_MULTI (1ull << 4)           /* a second heap dump */
#define V_NO_CLASSDUMP (1ull << 5)    /* Thread instance without Thread's CLASS DUMP */
#define V_CLASS_AFTER (1ull << 6)     /* Thread's CLASS DUMP after the instances */
#define V_NO_LOADCLASS (1ull << 7)    /* Thread's CLASS DUMP without LOAD CLASS */
#define V_LC_AFTER (1ull << 8)        /* Thread's LOAD CLASS after the heap dump */
#define V_UTF8_AFTER (1ull << 9)      /* every UTF8 at the end */
#define V_TRACE_FIRST (1ull << 10)    /* TRACE 2 before its FRAME */
#define V_FRAME_ROOT_FIRST (1ull << 11) /* JAVA FRAME root before THREAD OBJECT */
#define V_NO_INT_CLASS (1ull << 12)   /* no LOAD CLASS/CLASS DUMP of [I */
#define V_INT_NO_DUMP (1ull << 13)    /* LOAD CLASS of [I, no CLASS DUMP */
#define V_INST_SHORT (1ull << 14)     /* Foo instance 4 bytes short */
#define V_DUP_ID (1ull << 15)         /* a second object with id O_INTS */
#define V_DANGLING (1ull << 16)       /* Foo[] holds 0xdead */
#define V_NO_UTF8_FIELD (1ull << 17)  /* Foo.next's name has no UTF8 */
#define V_BAD_FRAME (1ull << 18)      /* TRACE 2 lists an undefined frame */
#define V_BAD_CSER (1ull << 19)       /* FRAME class serial 99 */
#define V_BAD_ROOT_THREAD (1ull << 20) /* JAVA FRAME root of thread 5 */
#define V_BAD_TRACE_THREAD (1ull << 21) /* TRACE 2 of thread 9 */
#define V_BAD_TRACE (1ull << 22)      /* Foo instance with trace serial 7 */
#define V_BAD_SAMPLES (1ull << 23)    /* CPU SAMPLES total below the sum */
#define V_BAD_SITES (1ull << 24)      /* ALLOC SITES totals below the sums */
#define V_BAD_SUPER (1ull << 25)      /* SubFoo's super has no CLASS DUMP */
#define V_BAD_ARRCLASS (1ull << 26)   /* Foo[] of a class with no CLASS DUMP */
#define V_MANY_DANGLING (1ull << 27)  /* Foo[] holds 25 unknown ids */
#define V_LEGACY_AFTER (1ull << 28)   /* legacy records after the heap dump END */
#define V_DANGLING_FIELD (1ull << 29) /* Foo.next of the Foo instance holds 0xbeef */
#define V_EXTRA_ROOT (1ull << 30)     /* one more sub-record: tv_extra_tag, after the roots */

/* The sub-record V_EXTRA_ROOT adds (a root of O_FOO, thread 1; or HEAP DUMP INFO). */
static uint8_t tv_extra_tag;

typedef struct tv_file {
    uint8_t *data;
    size_t len;
    uint64_t off_trace2, off_frame, off_unknown, off_samples, off_sites;
} tv_file;

static void tv_be(uint8_t *p, uint64_t v, unsigned size)
{
    for (unsigned i = 0; i < size; i++)
        p[i] = (uint8_t)(v >> (8 * (size - 1 - i)));
}

static void tv_utf8s(hw_writer *w, uint64_t v)
{
    int dot = (v & V_DOTTED) != 0;
    hw_utf8z(w, U_OBJECT, dot ? "java.lang.Object" : "java/lang/Object");
    hw_utf8z(w, U_THREAD, dot ? "java.lang.Thread" : "java/lang/Thread");
    hw_utf8z(w, U_FOO, dot ? "app.Foo" : "app/Foo");
    hw_utf8z(w, U_SUBFOO, dot ? "app.SubFoo" : "app/SubFoo");
    hw_utf8z(w, U_INTARR, dot ? "int[]" : "[I");
    hw_utf8z(w, U_FOOARR, dot ? "app.Foo[]" : "[Lapp/Foo;");
    hw_utf8z(w, U_BYTEARR, dot ? "byte[]" : "[B");
    hw_utf8z(w, U_COUNT, "count");
    if (!(v & V_NO_UTF8_FIELD))
        hw_utf8z(w, U_NEXT, "next");
    hw_utf8z(w, U_BIG, "big");
    hw_utf8z(w, U_PEER, "peer");
    hw_utf8z(w, U_INSTANCE, "INSTANCE");
    hw_utf8z(w, U_MAIN, "main");
    hw_utf8z(w, U_SIG, "([Ljava/lang/String;)V");
    hw_utf8z(w, U_SRC, "Foo.java");
    if (v & V_LEGACY) {
        hw_utf8z(w, U_TNAME, "main");
        hw_utf8z(w, U_TGROUP, "main");
    }
}

static void tv_legacy(hw_writer *w, uint64_t v, tv_file *f)
{
    hw_alloc_site sites[2] = {
        {0, 3, 1, 100, 2, 300, 6},
        {HPROF_TYPE_INT, 5, 1, 40, 1, 80, 2},
    };
    hw_alloc_sites_head h = {0, 0.0001f, 140, 3, 380, 8};
    if (v & V_BAD_SITES)
        h.total_live_bytes = 139;
    f->off_sites = hw_writer_offset(w);
    hw_alloc_sites(w, &h, sites, 2);
    hw_heap_summary(w, 140, 3, 380, 8);
    hw_cpu_sample samples[2] = {{3, 2}, {1, 1}};
    f->off_samples = hw_writer_offset(w);
    hw_cpu_samples(w, (v & V_BAD_SAMPLES) ? 3 : 5, samples, 2);
    hw_end_thread(w, 1);
}

static void tv_class(hw_writer *w, hprof_id id, uint32_t ts, hprof_id super, uint32_t isize,
                     uint16_t nstatics, const hw_static_field *st, uint16_t nfields,
                     const hw_field *fl)
{
    hw_class c;
    memset(&c, 0, sizeof c);
    c.class_id = id;
    c.trace_serial = ts;
    c.super_id = super;
    c.instance_size = isize;
    c.nstatics = nstatics;
    c.statics = st;
    c.nfields = nfields;
    c.fields = fl;
    hw_class_dump(w, &c);
}

static void tv_thread_class(hw_writer *w, uint32_t ts)
{
    tv_class(w, C_THREAD, ts, C_OBJECT, 0, 0, NULL, 0, NULL);
}

/* Builds the baseline with variants `v`; version/mode/id size as given. */
static void tv_build(tv_file *f, unsigned idsz, hprof_version ver, hw_heap_mode mode, uint64_t v)
{
    memset(f, 0, sizeof *f);
    hw_options o;
    hw_options_init(&o);
    o.id_size = idsz;
    o.version = ver;
    o.heap_mode = mode;
    o.clock = HW_CLOCK_FIXED;
    o.timestamp_ms = 1700000000000ULL;
    hw_sink *sink = hw_sink_memory(0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sink);
    hw_writer *w = hw_writer_open(sink, &o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    uint32_t ts = (v & V_NO_TRACES) ? 0 : 1;

    if (v & V_LEGACY)
        hw_control_settings(w, HPROF_CTRL_ALLOC_TRACES | HPROF_CTRL_CPU_SAMPLING, 4);
    if (!(v & V_UTF8_AFTER))
        tv_utf8s(w, v);
    hw_load_class(w, 1, C_OBJECT, ts, U_OBJECT);
    if (!(v & (V_NO_LOADCLASS | V_LC_AFTER)))
        hw_load_class(w, 2, C_THREAD, ts, U_THREAD);
    hw_load_class(w, 3, C_FOO, ts, U_FOO);
    hw_load_class(w, 4, C_SUBFOO, ts, U_SUBFOO);
    if (!(v & V_NO_INT_CLASS))
        hw_load_class(w, 5, C_INTARR, ts, U_INTARR);
    hw_load_class(w, 6, C_FOOARR, ts, U_FOOARR);
    hw_load_class(w, 7, C_BYTEARR, ts, U_BYTEARR);
    if (!(v & V_NO_TRACES)) {
        hw_trace(w, 1, 0, 0, NULL); /* HotSpot's empty trace */
        hprof_id frames[2] = {F_MAIN, F_MISSING};
        uint32_t tthread = (v & V_BAD_TRACE_THREAD) ? 9 : 1;
        uint32_t nfr = (v & V_BAD_FRAME) ? 2 : 1;
        uint32_t cser = (v & V_BAD_CSER) ? 99 : 3;
        if (v & V_TRACE_FIRST) {
            f->off_trace2 = hw_writer_offset(w);
            hw_trace(w, 2, tthread, nfr, frames);
        }
        f->off_frame = hw_writer_offset(w);
        hw_frame(w, F_MAIN, U_MAIN, U_SIG, U_SRC, cser, 10);
        if (!(v & V_TRACE_FIRST)) {
            f->off_trace2 = hw_writer_offset(w);
            hw_trace(w, 2, tthread, nfr, frames);
        }
    }
    if (v & V_LEGACY)
        hw_start_thread(w, 1, O_THREAD, ts, U_TNAME, U_TGROUP, 0);
    if (v & V_UNKNOWN_TAG) {
        f->off_unknown = hw_writer_offset(w);
        hw_raw_record(w, 0x50, "abc", 3);
    }
    if ((v & V_LEGACY) && !(v & V_LEGACY_AFTER))
        tv_legacy(w, v, f);

    hw_heap_begin(w);
    /* CLASS DUMPs first, as HotSpot writes them */
    tv_class(w, C_OBJECT, ts, 0, 0, 0, NULL, 0, NULL);
    if (!(v & (V_NO_CLASSDUMP | V_CLASS_AFTER)))
        tv_thread_class(w, ts);
    hw_static_field foo_static = {U_INSTANCE, {HPROF_TYPE_OBJECT, O_FOO}};
    hw_field foo_fields[2] = {{U_COUNT, HPROF_TYPE_INT}, {U_NEXT, HPROF_TYPE_OBJECT}};
    hw_field sub_fields[2] = {{U_BIG, HPROF_TYPE_LONG}, {U_PEER, HPROF_TYPE_OBJECT}};
    tv_class(w, C_FOO, ts, C_OBJECT, 4 + idsz, 1, &foo_static, 2, foo_fields);
    tv_class(w, C_SUBFOO, ts, (v & V_BAD_SUPER) ? 0x1999 : C_FOO, 16 + 2 * idsz, 0, NULL, 2,
             sub_fields);
    if (!(v & (V_NO_INT_CLASS | V_INT_NO_DUMP)))
        tv_class(w, C_INTARR, ts, C_OBJECT, 0, 0, NULL, 0, NULL);
    tv_class(w, C_FOOARR, ts, C_OBJECT, 0, 0, NULL, 0, NULL);
    tv_class(w, C_BYTEARR, ts, C_OBJECT, 0, 0, NULL, 0, NULL);

    /* instances: own fields first, then the super's */
    uint8_t vals[64];
    hw_instance_dump(w, O_THREAD, ts, C_THREAD, NULL, 0);
    tv_be(vals, 7, 4);
    tv_be(vals + 4, (v & V_DANGLING_FIELD) ? 0xbeef : O_SUBFOO, idsz);
    if (v & V_INST_SHORT)
        hw_instance_dump(w, O_FOO, (v & V_BAD_TRACE) ? 7 : ts, C_FOO, vals + 4, idsz);
    else
        hw_instance_dump(w, O_FOO, (v & V_BAD_TRACE) ? 7 : ts, C_FOO, vals, 4 + idsz);
    tv_be(vals, 0x0102030405060708ull, 8);
    tv_be(vals + 8, O_INTS, idsz);
    tv_be(vals + 8 + idsz, 9, 4);
    tv_be(vals + 12 + idsz, 0, idsz);
    hw_instance_dump(w, O_SUBFOO, ts, C_SUBFOO, vals, 12 + 2 * idsz);
    if (v & V_CLASS_AFTER)
        tv_thread_class(w, ts);

    /* arrays */
    int32_t ints[3] = {1, 2, 3};
    hw_prim_array_dump(w, O_INTS, ts, HPROF_TYPE_INT, 3, ints);
    hprof_id foos[25] = {O_FOO, O_SUBFOO, 0};
    uint32_t nfoos = 3;
    if (v & V_DANGLING)
        foos[2] = 0xdead;
    if (v & V_MANY_DANGLING) {
        nfoos = 25;
        for (unsigned i = 0; i < 25; i++)
            foos[i] = 0xd000 + i;
    }
    hw_obj_array_dump(w, O_FOOS, ts, (v & V_BAD_ARRCLASS) ? 0x1777 : C_FOOARR, nfoos, foos);
    uint8_t bytes[5] = {1, 2, 3, 4, 5};
    hw_prim_array_dump(w, O_BYTES, ts, HPROF_TYPE_BYTE, 5, bytes);
    if (v & V_DUP_ID)
        hw_prim_array_dump(w, O_INTS, ts, HPROF_TYPE_BYTE, 5, bytes);

    /* roots, JDK 17 style: per thread, THREAD OBJECT then its frames */
    uint32_t rthread = (v & V_BAD_ROOT_THREAD) ? 5 : 1;
    if (v & V_FRAME_ROOT_FIRST)
        hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, O_FOO, rthread, 0, 0);
    hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, O_THREAD, 1, (v & V_NO_TRACES) ? 0 : 2, 0);
    if (!(v & V_FRAME_ROOT_FIRST))
        hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, O_FOO, rthread, 0, 0);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, O_FOOS, 0, 0, 0x9999);
    hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, C_OBJECT, 0, 0, 0);
    if ((v & V_EXTRA_ROOT) && tv_extra_tag == HPROF_GC_HEAP_DUMP_INFO) {
        CU_ASSERT_EQUAL(hw_heap_dump_info(w, 0, U_MAIN), 0);
    } else if (v & V_EXTRA_ROOT) {
        CU_ASSERT_EQUAL(hw_root(w, tv_extra_tag, O_FOO, 1, 0, 0x9998), 0);
    }
    hw_heap_end(w);

    if (v & V_MULTI) {
        hw_heap_begin(w);
        hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, C_OBJECT, 0, 0, 0);
        hw_heap_end(w);
    }
    if (v & V_LC_AFTER)
        hw_load_class(w, 2, C_THREAD, ts, U_THREAD);
    if ((v & V_LEGACY) && (v & V_LEGACY_AFTER))
        tv_legacy(w, v, f);
    if (v & V_UTF8_AFTER)
        tv_utf8s(w, v);

    char msg[200];
    int rc = hw_writer_close(w, msg, sizeof msg);
    if (rc)
        fprintf(stderr, "\n  writer failed: %s\n", msg);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    f->data = tu_sink_copy(sink, &f->len);
    hw_sink_free(sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->data);
}

static void tv_free(tv_file *f)
{
    free(f->data);
    f->data = NULL;
}

/* Offsets found with the reader: the (skip+1)-th sub-record with `tag`
 * whose object/class id is `id`, or the (skip+1)-th record with `tag`. */
typedef struct tv_find {
    uint8_t tag;
    hprof_id id;
    unsigned skip;
    uint64_t off;
} tv_find;

static int tv_find_sub(void *ctx, const hr_sub *s)
{
    tv_find *q = ctx;
    hprof_id id = 0;
    switch (s->tag) {
    case HPROF_GC_CLASS_DUMP: id = s->u.cls.class_id; break;
    case HPROF_GC_INSTANCE_DUMP: id = s->u.inst.id; break;
    case HPROF_GC_OBJ_ARRAY_DUMP: id = s->u.oarr.id; break;
    case HPROF_GC_PRIM_ARRAY_DUMP: id = s->u.parr.id; break;
    default: id = s->u.root.id; break;
    }
    if (s->tag == q->tag && id == q->id && q->off == UINT64_MAX && q->skip-- == 0)
        q->off = s->offset;
    return 0;
}

static int tv_find_rec(void *ctx, const hr_record *r)
{
    tv_find *q = ctx;
    if (r->tag == q->tag && q->off == UINT64_MAX && q->skip-- == 0)
        q->off = r->offset;
    return 0;
}

static uint64_t tv_find_run(const tv_file *f, tv_find *q, int subs)
{
    hr_callbacks cb = {NULL, subs ? NULL : tv_find_rec, subs ? tv_find_sub : NULL, NULL, NULL};
    hr_source *src = hr_source_memory(f->data, f->len);
    hr_parse(src, &cb, q, NULL);
    hr_source_close(src);
    CU_ASSERT(q->off != UINT64_MAX);
    return q->off;
}

static uint64_t tv_sub_offset_nth(const tv_file *f, uint8_t tag, hprof_id id, unsigned nth)
{
    tv_find q = {tag, id, nth, UINT64_MAX};
    return tv_find_run(f, &q, 1);
}

static uint64_t tv_sub_offset(const tv_file *f, uint8_t tag, hprof_id id)
{
    return tv_sub_offset_nth(f, tag, id, 0);
}

static uint64_t tv_rec_offset(const tv_file *f, uint8_t tag, unsigned nth)
{
    tv_find q = {tag, 0, nth, UINT64_MAX};
    return tv_find_run(f, &q, 0);
}

/* ------------------------------------------------------ hand assembly */

typedef struct tb {
    uint8_t b[1024];
    size_t n;
    unsigned idsz;
} tb;

static void tb_bytes(tb *t, const void *p, size_t n)
{
    memcpy(t->b + t->n, p, n);
    t->n += n;
}

static void tb_u1(tb *t, uint8_t v) { t->b[t->n++] = v; }

static void tb_u4(tb *t, uint32_t v)
{
    tv_be(t->b + t->n, v, 4);
    t->n += 4;
}

static void tb_id(tb *t, uint64_t v)
{
    tv_be(t->b + t->n, v, t->idsz);
    t->n += t->idsz;
}

static void tb_header(tb *t, const char *magic, unsigned idsz)
{
    t->n = 0;
    t->idsz = idsz;
    tb_bytes(t, magic, strlen(magic) + 1);
    tb_u4(t, idsz);
    tb_u4(t, 0);
    tb_u4(t, 0);
}

/* Starts a record; returns the position of its length, for tb_end. */
static size_t tb_begin(tb *t, uint8_t tag)
{
    tb_u1(t, tag);
    tb_u4(t, 0);
    size_t at = t->n;
    tb_u4(t, 0);
    return at;
}

static void tb_end(tb *t, size_t at)
{
    tv_be(t->b + at, t->n - at - 4, 4);
}

/* ------------------------------------------------------------- tests */

static void test_options_init(void)
{
    hv_options o;
    memset(&o, 0x5a, sizeof o);
    hv_options_init(&o);
    CU_ASSERT_EQUAL(o.max_per_kind, 10);
    CU_ASSERT_PTR_NULL(o.ignore);
    CU_ASSERT_PTR_NULL(o.on_problem);
    CU_ASSERT_PTR_NULL(o.ctx);
}

static void test_clean_baseline(void)
{
    static const unsigned sizes[2] = {8, 4};
    for (int i = 0; i < 2; i++) {
        tv_file f;
        tv_build(&f, sizes[i], HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, 0);
        tv_expect_clean(sizes[i] == 8 ? "baseline id8" : "baseline id4", f.data, f.len);
        /* options and result may be NULL */
        hr_source *src = hr_source_memory(f.data, f.len);
        CU_ASSERT_EQUAL(hv_verify(src, NULL, NULL), 0);
        hr_source_close(src);
        tv_free(&f);
    }
}

static void test_clean_variants(void)
{
    tv_file f;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SINGLE, 0);
    tv_expect_clean("ok-0c", f.data, f.len);
    /* 1.0.1 + one 0x0C: the header differs only in its last digit */
    f.data[17] = '1';
    tv_expect_clean("ok-101-0c", f.data, f.len);
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_LEGACY);
    tv_expect_clean("ok-legacy", f.data, f.len);
    tv_free(&f);
    tv_build(&f, 4, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_LEGACY | V_LEGACY_AFTER);
    tv_expect_clean("ok-legacy-after-end", f.data, f.len);
    tv_free(&f);
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_DOTTED);
    tv_expect_clean("ok-dotted", f.data, f.len);
    tv_free(&f);

    /* many small segments: sub-records never cross, all resolve */
    hw_options o;
    hw_options_init(&o);
    o.clock = HW_CLOCK_FIXED;
    o.segment_size = 64;
    hw_sink *sink = hw_sink_memory(0);
    hw_writer *w = hw_writer_open(sink, &o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_utf8z(w, U_OBJECT, "java/lang/Object");
    hw_utf8z(w, U_INTARR, "[I");
    hw_load_class(w, 1, C_OBJECT, 1, U_OBJECT);
    hw_load_class(w, 2, C_INTARR, 1, U_INTARR);
    hw_trace(w, 1, 0, 0, NULL);
    hw_heap_begin(w);
    tv_class(w, C_OBJECT, 1, 0, 0, 0, NULL, 0, NULL);
    tv_class(w, C_INTARR, 1, C_OBJECT, 0, 0, NULL, 0, NULL);
    int32_t ints[40] = {0};
    for (unsigned i = 0; i < 20; i++)
        hw_prim_array_dump(w, 0x4000 + i, 1, HPROF_TYPE_INT, i * 2, ints);
    hw_heap_end(w);
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, NULL, 0), 0);
    f.data = tu_sink_copy(sink, &f.len);
    hw_sink_free(sink);
    tv_expect_clean("ok-resegmented", f.data, f.len);
    tv_free(&f);
}

static void test_unknown_toptag(void)
{
    tv_file f;
    tv_col col;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_UNKNOWN_TAG);
    tv_expect_only("ok-unknown-toptag", f.data, f.len, "unknown-tag", HR_WARNING, 1, f.off_unknown,
                   &col);
    tv_free(&f);
}

static void test_no_traces(void)
{
    tv_file f;
    tv_col col;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_NO_TRACES);
    /* one report for serial 0, first used by the first LOAD CLASS */
    const tv_prob *p = tv_expect_only("ok-no-traces", f.data, f.len, "unresolved-trace", HR_WARNING,
                                      1, tv_rec_offset(&f, HPROF_TAG_LOAD_CLASS, 0), &col);
    tv_expect_msg(p, "stack trace serial 0");
    tv_expect_msg(p, "Stack trace not found for serial #");
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_BAD_TRACE);
    p = tv_expect_only("bad-trace", f.data, f.len, "unresolved-trace", HR_WARNING, 1,
                       tv_sub_offset(&f, HPROF_GC_INSTANCE_DUMP, O_FOO), &col);
    tv_expect_msg(p, "stack trace serial 7");
    tv_free(&f);
}

static void test_no_end_and_truncation(void)
{
    tv_file f;
    tv_col col;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, 0);
    CU_ASSERT_EQUAL(f.data[f.len - 9], HPROF_TAG_HEAP_DUMP_END);
    /* cut only the END record */
    tv_expect_only("bad-no-end", f.data, f.len - 9, "no-heap-end", HR_ERROR, 1, f.len - 9, &col);
    /* cut inside the last sub-record (a root: nothing refers to it) */
    hv_result res;
    tv_expect_only("bad-truncated", f.data, f.len - 11, "truncated", HR_ERROR, 1, UINT64_MAX, &col);
    tv_verify(f.data, f.len - 11, 0, NULL, &col, &res);
    CU_ASSERT_EQUAL(res.parse_status, HR_MALFORMED);
    tv_free(&f);
}

static void test_zero_length_segment(void)
{
    tv_file f;
    tv_col col;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, 0);
    /* splice an empty segment in front of the END */
    uint8_t *d = malloc(f.len + 9);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    memcpy(d, f.data, f.len - 9);
    static const uint8_t empty[9] = {HPROF_TAG_HEAP_DUMP_SEGMENT, 0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(d + f.len - 9, empty, 9);
    memcpy(d + f.len, f.data + f.len - 9, 9);
    tv_expect_only("bad-zero-length", d, f.len + 9, "zero-length-segment", HR_ERROR, 1, f.len - 9,
                   &col);
    free(d);
    tv_free(&f);

    /* an empty 0x0C is just as broken for VisualVM */
    tb t;
    tb_header(&t, HPROF_MAGIC_1_0_2, 8);
    size_t at = tb_begin(&t, HPROF_TAG_HEAP_DUMP);
    tb_end(&t, at);
    tv_expect_only("empty-0c", t.b, t.n, "zero-length-segment", HR_ERROR, 1, HPROF_HEADER_SIZE,
                   &col);
}

static void test_split_subrecord(void)
{
    tb t;
    tv_col col;
    hv_result res;
    tb_header(&t, HPROF_MAGIC_1_0_2, 8);
    size_t at = tb_begin(&t, HPROF_TAG_HEAP_DUMP_SEGMENT);
    size_t sub = t.n;
    tb_u1(&t, HPROF_GC_ROOT_STICKY_CLASS); /* needs 8 id bytes, only 4 here */
    tb_u4(&t, 0);
    tb_end(&t, at);
    at = tb_begin(&t, HPROF_TAG_HEAP_DUMP_SEGMENT);
    tb_u4(&t, 0x1000);
    tb_end(&t, at);
    at = tb_begin(&t, HPROF_TAG_HEAP_DUMP_END);
    tb_end(&t, at);
    int rc = tv_verify(t.b, t.n, 0, NULL, &col, &res);
    /* the rest of the split record lands in the next segment, where it
     * reads as an unknown sub-tag: nothing else may be reported */
    int ok = rc == 1 && col.n >= 1 && strcmp(col.p[0].kind, "crosses-segment") == 0 &&
             col.p[0].off == sub && col.p[0].sev == HR_ERROR && res.errors >= 1;
    for (unsigned i = 1; i < col.n; i++)
        ok = ok && strcmp(col.p[i].kind, "unknown-subtag") == 0;
    if (!ok)
        tv_dump("bad-split-subrecord", &col, &res);
    CU_ASSERT(ok);
}

static void test_unknown_subtag(void)
{
    tb t;
    tv_col col;
    tb_header(&t, HPROF_MAGIC_1_0_2, 8);
    size_t at = tb_begin(&t, HPROF_TAG_HEAP_DUMP_SEGMENT);
    size_t sub = t.n;
    tb_u1(&t, 0x24);
    tb_id(&t, 0x1000);
    tb_end(&t, at);
    at = tb_begin(&t, HPROF_TAG_HEAP_DUMP_END);
    tb_end(&t, at);
    tv_expect_only("bad-unknown-subtag", t.b, t.n, "unknown-subtag", HR_ERROR, 1, sub, &col);
}

static void test_multiple_dumps(void)
{
    tv_file f;
    tv_col col;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SINGLE, V_MULTI);
    tv_expect_only("bad-multi-0c", f.data, f.len, "multiple-heap-dumps", HR_ERROR, 1,
                   tv_rec_offset(&f, HPROF_TAG_HEAP_DUMP, 1), &col);
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_MULTI);
    /* the second dump's segment follows the first dump's END */
    tv_expect_only("segments-after-end", f.data, f.len, "sub-after-end", HR_ERROR, 1,
                   tv_rec_offset(&f, HPROF_TAG_HEAP_DUMP_SEGMENT, 1), &col);
    tv_free(&f);
}

static void test_segments_in_101(void)
{
    tv_file f;
    tv_col col;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, 0);
    f.data[17] = '1';
    tv_expect_only("bad-101-segments", f.data, f.len, "segments-in-1.0.1", HR_ERROR, 1,
                   tv_rec_offset(&f, HPROF_TAG_HEAP_DUMP_SEGMENT, 0), &col);
    tv_free(&f);
}

static void test_class_records(void)
{
    tv_file f;
    tv_col col;
    const tv_prob *p;

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_NO_CLASSDUMP);
    p = tv_expect_only("bad-no-classdump", f.data, f.len, "missing-class-dump", HR_ERROR, 1,
                       tv_sub_offset(&f, HPROF_GC_INSTANCE_DUMP, O_THREAD), &col);
    tv_expect_msg(p, "java/lang/Thread");
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_CLASS_AFTER);
    tv_expect_only("bad-class-after-inst", f.data, f.len, "class-dump-after-instance", HR_ERROR, 1,
                   tv_sub_offset(&f, HPROF_GC_INSTANCE_DUMP, O_THREAD), &col);
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_NO_LOADCLASS);
    tv_expect_only("bad-no-loadclass", f.data, f.len, "missing-load-class", HR_WARNING, 1,
                   tv_sub_offset(&f, HPROF_GC_CLASS_DUMP, C_THREAD), &col);
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_LC_AFTER);
    p = tv_expect_only("bad-loadclass-after", f.data, f.len, "load-class-after-class-dump",
                       HR_WARNING, 1, tv_sub_offset(&f, HPROF_GC_CLASS_DUMP, C_THREAD), &col);
    tv_expect_msg(p, "defined only later");
    tv_free(&f);

    tv_build(&f, 4, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_BAD_SUPER);
    p = tv_expect_only("bad-super", f.data, f.len, "missing-class-dump", HR_ERROR, 1,
                       tv_sub_offset(&f, HPROF_GC_CLASS_DUMP, C_SUBFOO), &col);
    tv_expect_msg(p, "0x1999");
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_BAD_ARRCLASS);
    tv_expect_only("bad-objarray-class", f.data, f.len, "missing-array-class", HR_WARNING, 1,
                   tv_sub_offset(&f, HPROF_GC_OBJ_ARRAY_DUMP, O_FOOS), &col);
    tv_free(&f);
}

static void test_prim_array_class(void)
{
    tv_file f;
    tv_col col;
    const tv_prob *p;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_NO_INT_CLASS);
    p = tv_expect_only("bad-no-primarray-class", f.data, f.len, "missing-array-class", HR_ERROR, 1,
                       tv_sub_offset(&f, HPROF_GC_PRIM_ARRAY_DUMP, O_INTS), &col);
    tv_expect_msg(p, "Invalid type 10");
    tv_expect_msg(p, "[I");
    tv_free(&f);

    tv_build(&f, 4, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_INT_NO_DUMP);
    p = tv_expect_only("primarray-class-no-dump", f.data, f.len, "missing-array-class", HR_ERROR, 1,
                       tv_sub_offset(&f, HPROF_GC_PRIM_ARRAY_DUMP, O_INTS), &col);
    tv_expect_msg(p, "no CLASS DUMP");
    tv_free(&f);

    /* dotted names satisfy it too, but only for the right type */
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_DOTTED | V_NO_INT_CLASS);
    tv_expect_only("dotted-no-int[]", f.data, f.len, "missing-array-class", HR_ERROR, 1,
                   tv_sub_offset(&f, HPROF_GC_PRIM_ARRAY_DUMP, O_INTS), &col);
    tv_free(&f);
}

static void test_ordering(void)
{
    tv_file f;
    tv_col col;
    const tv_prob *p;

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_UTF8_AFTER);
    /* every used name is late: all reports are utf8-after-use; the first
     * use is the name of the first LOAD CLASS */
    p = tv_expect_only("bad-utf8-after", f.data, f.len, "utf8-after-use", HR_WARNING, 0,
                       tv_rec_offset(&f, HPROF_TAG_LOAD_CLASS, 0), &col);
    tv_expect_msg(p, "UTF8 id 0x100");
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_TRACE_FIRST);
    p = tv_expect_only("bad-trace-before-frame", f.data, f.len, "frame-after-trace", HR_ERROR, 1,
                       f.off_trace2, &col);
    tv_expect_msg(p, "0x500");
    tv_free(&f);

    tv_build(&f, 4, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_FRAME_ROOT_FIRST);
    p = tv_expect_only("bad-frame-root-first", f.data, f.len, "root-before-thread-object", HR_ERROR,
                       1, tv_sub_offset(&f, HPROF_GC_ROOT_JAVA_FRAME, O_FOO), &col);
    tv_expect_msg(p, "thread serial 1");
    tv_free(&f);
}

static void test_resolution(void)
{
    tv_file f;
    tv_col col;
    const tv_prob *p;

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_NO_UTF8_FIELD);
    p = tv_expect_only("bad-no-utf8-field", f.data, f.len, "unresolved-utf8", HR_WARNING, 1,
                       tv_sub_offset(&f, HPROF_GC_CLASS_DUMP, C_FOO), &col);
    tv_expect_msg(p, "0x111");
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_BAD_FRAME);
    tv_expect_only("unresolved-frame", f.data, f.len, "unresolved-frame", HR_ERROR, 1, f.off_trace2,
                   &col);
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_BAD_CSER);
    p = tv_expect_only("unresolved-class-serial", f.data, f.len, "unresolved-class-serial",
                       HR_WARNING, 1, f.off_frame, &col);
    tv_expect_msg(p, "class serial 99");
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_BAD_ROOT_THREAD);
    tv_expect_only("root-thread-missing", f.data, f.len, "unresolved-thread", HR_ERROR, 1,
                   tv_sub_offset(&f, HPROF_GC_ROOT_JAVA_FRAME, O_FOO), &col);
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_BAD_TRACE_THREAD);
    tv_expect_only("trace-thread-missing", f.data, f.len, "unresolved-thread", HR_WARNING, 1,
                   f.off_trace2, &col);
    tv_free(&f);
}

static void test_layout(void)
{
    tv_file f;
    tv_col col;
    const tv_prob *p;
    static const unsigned sizes[2] = {8, 4};
    for (int i = 0; i < 2; i++) {
        tv_build(&f, sizes[i], HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_INST_SHORT);
        p = tv_expect_only("bad-inst-length", f.data, f.len, "instance-size-mismatch", HR_ERROR, 1,
                           tv_sub_offset(&f, HPROF_GC_INSTANCE_DUMP, O_FOO), &col);
        tv_expect_msg(p, "app/Foo -> java/lang/Object");
        char needs[64];
        snprintf(needs, sizeof needs, "has %u bytes of field values", sizes[i]);
        tv_expect_msg(p, needs);
        snprintf(needs, sizeof needs, "needs %u", 4 + sizes[i]);
        tv_expect_msg(p, needs);
        tv_free(&f);
    }

    /* reported at the second object with that id */
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_DUP_ID);
    p = tv_expect_only("bad-dup-id", f.data, f.len, "duplicate-id", HR_ERROR, 1,
                       tv_sub_offset_nth(&f, HPROF_GC_PRIM_ARRAY_DUMP, O_INTS, 1), &col);
    tv_expect_msg(p, "0x4000");
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_LEGACY | V_BAD_SAMPLES);
    tv_expect_only("samples-total", f.data, f.len, "samples-total-mismatch", HR_WARNING, 1,
                   f.off_samples, &col);
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_LEGACY | V_BAD_SITES);
    tv_expect_only("sites-total", f.data, f.len, "sites-total-mismatch", HR_WARNING, 1, f.off_sites,
                   &col);
    tv_free(&f);
}

static void test_dangling_and_options(void)
{
    tv_file f;
    tv_col col;
    hv_result res;
    const tv_prob *p;

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_DANGLING);
    p = tv_expect_only("bad-dangling-ref", f.data, f.len, "dangling-ref", HR_WARNING, 1,
                       tv_sub_offset(&f, HPROF_GC_OBJ_ARRAY_DUMP, O_FOOS), &col);
    tv_expect_msg(p, "0xdead");
    tv_expect_msg(p, "Element 2");
    tv_free(&f);

    tv_build(&f, 4, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_DANGLING_FIELD);
    p = tv_expect_only("dangling-field", f.data, f.len, "dangling-ref", HR_WARNING, 1,
                       tv_sub_offset(&f, HPROF_GC_INSTANCE_DUMP, O_FOO), &col);
    tv_expect_msg(p, "Field next of class 0x1002 (app/Foo) in INSTANCE DUMP of object 0x3000");
    tv_expect_msg(p, "0xbeef");
    tv_free(&f);

    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_DANGLING);
    /* ignored: counted in kinds, nothing delivered, nothing in the totals */
    static const char *const ign[] = {"dangling-ref", NULL};
    int rc = tv_verify(f.data, f.len, 0, ign, &col, &res);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(col.calls, 0);
    CU_ASSERT_EQUAL(res.errors + res.warnings, 0);
    CU_ASSERT_EQUAL(tv_kind_count(&res, "dangling-ref"), 1);
    tv_free(&f);

    /* max_per_kind: the first N in full, the rest counted */
    tv_build(&f, 4, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_MANY_DANGLING);
    rc = tv_verify(f.data, f.len, 10, NULL, &col, &res);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_EQUAL(col.calls, 10);
    CU_ASSERT_EQUAL(res.warnings, 25);
    CU_ASSERT_EQUAL(tv_kind_count(&res, "dangling-ref"), 25);
    rc = tv_verify(f.data, f.len, 0, NULL, &col, &res);
    CU_ASSERT_EQUAL(col.calls, 25);
    CU_ASSERT_EQUAL(res.warnings, 25);
    tv_free(&f);
}

/* A pipe cannot be rewound: no reference pass, everything else still works. */
static void test_pipe_source(void)
{
    tv_file f;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_TRACE_FIRST | V_DANGLING);
    CU_ASSERT_FATAL(f.len < 60000); /* fits the pipe buffer: no writer thread needed */
    int fds[2];
    CU_ASSERT_FATAL(pipe(fds) == 0);
    CU_ASSERT_EQUAL((size_t)write(fds[1], f.data, f.len), f.len);
    close(fds[1]);
    int err = 0;
    hr_source *src = hr_source_fd(fds[0], &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    tv_col col;
    memset(&col, 0, sizeof col);
    hv_options o;
    hv_options_init(&o);
    o.on_problem = tv_on_problem;
    o.ctx = &col;
    hv_result res;
    int rc = hv_verify(src, &o, &res);
    hr_source_close(src);
    close(fds[0]);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_EQUAL(res.resolved_refs, 0);
    CU_ASSERT_EQUAL(res.parse_status, HR_OK);
    CU_ASSERT_EQUAL(tv_kind_count(&res, "frame-after-trace"), 1);
    CU_ASSERT_EQUAL(tv_kind_count(&res, "dangling-ref"), 0);
    CU_ASSERT_EQUAL(res.nkinds, 1);
    tv_free(&f);
}

/* Super chains that loop (A -> B -> A, C -> C) must neither hang nor
 * produce a size verdict; the classes' missing LOAD CLASS is all there is. */
/* Classes 0xc1..0xc0+n whose supers form one cycle (0xc1 -> 0xc2 -> ... ->
 * 0xc1; n = 1: 0xc1 is its own super), written after a class 0xd0 whose
 * super leads into the cycle and before one of each's instances. Every
 * class has its LOAD CLASS and name, so the cycle is the only problem. */
static void tv_cycle_file(tv_file *f, unsigned n)
{
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(8, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    static const char *const names[] = {"A", "B", "C", "D", "E", "F", "G", "H", "I", "Lead"};
    for (unsigned i = 0; i <= n; i++) {
        hprof_id cid = i < n ? 0xc1 + i : 0xd0;
        hw_utf8z(w, 0x700 + i, i < n ? names[i] : "Lead");
        hw_load_class(w, i + 1, cid, 1, 0x700 + i);
    }
    hw_trace(w, 1, 0, 0, NULL);
    hw_heap_begin(w);
    tv_class(w, 0xd0, 1, 0xc1, 4, 0, NULL, 0, NULL);
    for (unsigned i = 0; i < n; i++)
        tv_class(w, 0xc1 + i, 1, 0xc1 + (i + 1) % n, 4, 0, NULL, 0, NULL);
    uint8_t four[4] = {0};
    for (unsigned i = 0; i < n; i++)
        hw_instance_dump(w, 0x100 + i, 1, 0xc1 + i, four, 4);
    hw_instance_dump(w, 0x1d0, 1, 0xd0, four, 4);
    hw_heap_end(w);
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, NULL, 0), 0);
    memset(f, 0, sizeof *f);
    f->data = tu_sink_copy(sink, &f->len);
    hw_sink_free(sink);
}

/* A class its own super, A -> B -> A, A -> B -> C -> A: one super-cycle
 * error each, at the offset of the cycle's first CLASS DUMP, naming the
 * classes; the class that only leads into a cycle is not a second one. */
/* Closes w (a memory writer on `sink`) and takes its bytes into f. */
static void tv_close_into(hw_writer *w, hw_sink *sink, tv_file *f)
{
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, NULL, 0), 0);
    memset(f, 0, sizeof *f);
    f->data = tu_sink_copy(sink, &f->len);
    hw_sink_free(sink);
}

static void test_super_cycle(void)
{
    static const struct {
        unsigned n;
        const char *chain;
    } cases[] = {{1, "class A at offset"}, {2, "(A -> B -> A)"}, {3, "(A -> B -> C -> A)"},
                 {9, "(A -> B -> C -> D -> E -> F -> G -> H -> ...)"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tv_file f;
        tv_cycle_file(&f, cases[i].n);
        uint64_t off = tv_sub_offset(&f, HPROF_GC_CLASS_DUMP, 0xc1);
        CU_ASSERT_NOT_EQUAL(off, UINT64_MAX);
        tv_col col;
        char what[32];
        snprintf(what, sizeof what, "super-cycle of %u", cases[i].n);
        const tv_prob *p = tv_expect_only(what, f.data, f.len, "super-cycle", HR_ERROR, 1, off, &col);
        tv_expect_msg(p, cases[i].chain);
        tv_expect_msg(p, cases[i].n == 1 ? "names itself as its super class" : "starts a cycle of");
        tv_free(&f);
    }
    /* two cycles and classes without LOAD CLASS: one report per cycle */
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(8, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_trace(w, 1, 0, 0, NULL);
    hw_heap_begin(w);
    tv_class(w, 0xa, 1, 0xb, 4, 0, NULL, 0, NULL);
    tv_class(w, 0xb, 1, 0xa, 4, 0, NULL, 0, NULL);
    tv_class(w, 0xc, 1, 0xc, 4, 0, NULL, 0, NULL);
    uint8_t four[4] = {0};
    hw_instance_dump(w, 0x100, 1, 0xa, four, 4);
    hw_instance_dump(w, 0x101, 1, 0xc, four, 4);
    hw_heap_end(w);
    tv_file f;
    tv_close_into(w, sink, &f);
    tv_col col;
    hv_result res;
    CU_ASSERT_EQUAL(tv_verify(f.data, f.len, 0, NULL, &col, &res), 1);
    CU_ASSERT_EQUAL(tv_kind_count(&res, "missing-load-class"), 3);
    CU_ASSERT_EQUAL(tv_kind_count(&res, "super-cycle"), 2);
    CU_ASSERT_EQUAL(res.errors, 2);
    CU_ASSERT_EQUAL(res.nkinds, 2);
    tv_free(&f);
}

/* A CLASS DUMP after the UNLOAD CLASS of its class (an agent that kept an
 * unloaded class in a later dump): one warning at the CLASS DUMP; a class
 * loaded again under the same id after its unload is loaded. */
static void test_class_dump_after_unload(void)
{
    for (int reload = 0; reload < 2; reload++) {
        hw_sink *sink;
        hw_writer *w = tu_mem_writer(8, &sink);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        hw_utf8(w, 1, "java/lang/Object", 16);
        hw_utf8(w, 2, "Gone", 4);
        hw_trace(w, 1, 0, 0, NULL);
        hw_load_class(w, 1, 0xa, 1, 1);
        hw_load_class(w, 2, 0xb, 1, 2);
        hw_unload_class(w, 2);
        if (reload)
            hw_load_class(w, 3, 0xb, 1, 2);
        hw_heap_begin(w);
        tv_class(w, 0xa, 1, 0, 0, 0, NULL, 0, NULL);
        tv_class(w, 0xb, 1, 0xa, 0, 0, NULL, 0, NULL);
        hw_heap_end(w);
        tv_file f;
        tv_close_into(w, sink, &f);
        tv_col col;
        hv_result res;
        tv_verify(f.data, f.len, 0, NULL, &col, &res);
        CU_ASSERT_EQUAL(tv_kind_count(&res, "class-dump-after-unload"), reload ? 0 : 1);
        CU_ASSERT_EQUAL(res.warnings, reload ? 0 : 1);
        CU_ASSERT_EQUAL(res.errors, 0);
        if (!reload) {
            const tv_prob *p = tv_expect_only("class-dump-after-unload", f.data, f.len,
                                              "class-dump-after-unload", HR_WARNING, 1,
                                              tv_sub_offset(&f, HPROF_GC_CLASS_DUMP, 0xb), &col);
            tv_expect_msg(p, "after its UNLOAD CLASS");
        }
        tv_free(&f);
    }
}

/* Every prefix and many byte flips: the verifier must finish without a
 * crash (run under ASan+UBSan in the sanitizer build) and never claim a
 * damaged file is clean when the parser saw a problem. */
static void test_hostile(void)
{
    tv_file f;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_LEGACY);
    hv_result res;
    tv_col col;
    int bad = 0, open_heap = 0;
    uint64_t heap = tv_rec_offset(&f, HPROF_TAG_HEAP_DUMP_SEGMENT, 0);
    for (size_t n = 0; n < f.len; n++) {
        int rc = tv_verify(f.data, n, 3, NULL, &col, &res);
        if (rc < 0)
            bad++;
        /* a prefix that ends after the heap dump began cannot be clean:
         * either truncated or without END */
        if (n > heap && rc != 1)
            open_heap++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(open_heap, 0);
    uint8_t *d = malloc(f.len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    uint32_t seed = 12345;
    for (int round = 0; round < 3000; round++) {
        memcpy(d, f.data, f.len);
        for (int k = 0; k < 1 + round % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = HPROF_HEADER_SIZE + (seed >> 8) % (f.len - HPROF_HEADER_SIZE);
            seed = seed * 1103515245u + 12345u;
            d[at] = (round & 1) ? (uint8_t)(seed >> 16) : (uint8_t)(d[at] ^ (1u << ((seed >> 16) & 7)));
        }
        int rc = tv_verify(d, f.len, 2, NULL, &col, &res);
        if (rc < 0)
            bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    free(d);
    tv_free(&f);
}

/* The original agent's files and jmap's, when the corpus is there: the
 * verifier must run them to the end; the known quirks are reported. */
static void test_corpus(void)
{
    static const char *const files[] = {"minimal.bin", "hprof.bin", "jmap.bin"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/original-agent/%s", HPROF_CORPUS_DIR, files[i]);
        if (access(path, R_OK) != 0) {
            fprintf(stderr, "\n  skipped %s: corpus not present\n", path);
            continue;
        }
        int err = 0;
        hr_source *src = hr_source_file(path, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(src);
        tv_col col;
        memset(&col, 0, sizeof col);
        hv_options o;
        hv_options_init(&o);
        o.on_problem = tv_on_problem;
        o.ctx = &col;
        o.max_per_kind = 2;
        hv_result res;
        int rc = hv_verify(src, &o, &res);
        hr_source_close(src);
        CU_ASSERT(rc == 0 || rc == 1);
        CU_ASSERT_EQUAL(res.parse_status, HR_OK);
        CU_ASSERT_EQUAL(res.resolved_refs, 1);
        /* structure is sound in all three: no parser kind */
        CU_ASSERT_EQUAL(tv_kind_count(&res, "truncated") + tv_kind_count(&res, "bad-length") +
                            tv_kind_count(&res, "unknown-tag") + tv_kind_count(&res, "unknown-subtag"),
                        0);
        /* the original agent writes CLASS DUMPs after the instances
         * (original-agent.md 4.3), which jhat-style readers reject */
        if (strcmp(files[i], "hprof.bin") == 0)
            CU_ASSERT(tv_kind_count(&res, "class-dump-after-instance") > 0);
        /* no heap dump, so nothing a heap reader could fail on */
        if (strcmp(files[i], "minimal.bin") == 0)
            CU_ASSERT_EQUAL(res.errors, 0);
        if (getenv("TV_VERBOSE"))
            tv_dump(files[i], &col, &res);
    }
}

/* ------------------------------------------------------ readers' verdicts */

enum { R_GO, R_JHAT, R_EAFTAN, R_PY, R_VVM, R_N };
static const char *const tr_names[R_N] = {"go-hprof", "jhat", "eaftan", "py-hprof", "visualvm"};

typedef struct tr_col {
    unsigned n;
    char kind[4][24];
    hv_verdict verdict[4];
    uint64_t offset[4], count[4];
    char msg[4][520];
} tr_col;

static void tr_on_reason(void *ctx, const hv_reason *r)
{
    tr_col *c = ctx;
    if (c->n < 4) {
        snprintf(c->kind[c->n], sizeof c->kind[0], "%s", r->kind);
        c->verdict[c->n] = r->verdict;
        c->offset[c->n] = r->offset;
        c->count[c->n] = r->count;
        snprintf(c->msg[c->n], sizeof c->msg[0], "%s", r->message);
    }
    c->n++;
}

/* Verifies `data` and checks every reader's verdict against `want` (one per
 * reader, in tr_names order); a reader that does not read it must give one
 * reason of `kind` (NULL: any) whose message holds `needle` (NULL: any). */
static void tr_expect(const char *what, const uint8_t *data, size_t len, const hv_verdict *want,
                      const char *kind, const char *needle, uint64_t off)
{
    tv_col col;
    hv_result res;
    CU_ASSERT(tv_verify(data, len, 0, NULL, &col, &res) >= 0);
    for (unsigned i = 0; i < R_N; i++) {
        int r = hv_reader_find(tr_names[i]);
        CU_ASSERT_FATAL(r >= 0);
        tr_col c;
        memset(&c, 0, sizeof c);
        hv_verdict v = hv_reader_judge((unsigned)r, &res, tr_on_reason, &c);
        int ok = v == want[i] && (v == HV_READS) == (c.n == 0);
        if (ok && v != HV_READS)
            ok = c.n == 1 && c.verdict[0] == v && (!kind || strcmp(c.kind[0], kind) == 0) &&
                 (!needle || strstr(c.msg[0], needle)) && (off == UINT64_MAX || c.offset[0] == off);
        if (!ok) {
            fprintf(stderr, "\n  [%s] %s: %s, expected %s; %u reason(s)", what, tr_names[i],
                    hv_verdict_name(v), hv_verdict_name(want[i]), c.n);
            for (unsigned k = 0; k < c.n && k < 4; k++)
                fprintf(stderr, "\n    %s %s @%llu: %s", hv_verdict_name(c.verdict[k]), c.kind[k],
                        (unsigned long long)c.offset[k], c.msg[k]);
            fprintf(stderr, "\n");
        }
        CU_ASSERT(ok);
    }
}

static void test_readers_table(void)
{
    CU_ASSERT_EQUAL(hv_reader_count(), R_N);
    for (unsigned i = 0; i < R_N; i++) {
        CU_ASSERT_EQUAL(hv_reader_find(tr_names[i]), (int)i);
        CU_ASSERT_STRING_EQUAL(hv_reader_name(i), tr_names[i]);
        CU_ASSERT(hv_reader_about(i) && hv_reader_about(i)[0]);
    }
    CU_ASSERT_EQUAL(hv_reader_find("mat"), -1);
    CU_ASSERT_PTR_NULL(hv_reader_name(R_N));
    CU_ASSERT_STRING_EQUAL(hv_verdict_name(HV_REJECTS), "rejects");
}

static void test_readers_records(void)
{
    const hv_verdict all[R_N] = {HV_READS, HV_READS, HV_READS, HV_READS, HV_READS};
    tv_file f;
    /* HotSpot's shape: every reader reads it, at both id sizes */
    for (unsigned idsz = 4; idsz <= 8; idsz += 4) {
        tv_build(&f, idsz, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, 0);
        tr_expect("baseline", f.data, f.len, all, NULL, NULL, UINT64_MAX);
        tv_free(&f);
    }
    /* the original agent's records: the Go reader stops at the first, which
     * is CONTROL SETTINGS right after the 31-byte header */
    const hv_verdict go_only[R_N] = {HV_REJECTS, HV_READS, HV_READS, HV_READS, HV_READS};
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_LEGACY);
    tr_expect("legacy", f.data, f.len, go_only, "record", "CONTROL SETTINGS (0x0E, 1 from offset 31)",
              31);
    tv_free(&f);
    /* an unknown top-level tag: the Go and eaftan readers stop */
    const hv_verdict go_eaftan[R_N] = {HV_REJECTS, HV_READS, HV_REJECTS, HV_READS, HV_READS};
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_UNKNOWN_TAG);
    tr_expect("unknown-tag", f.data, f.len, go_eaftan, "record", "(0x50, 1 from offset",
              f.off_unknown);
    tv_free(&f);
    /* the Android header: jhat only */
    const hv_verdict jhat_only[R_N] = {HV_READS, HV_REJECTS, HV_READS, HV_READS, HV_READS};
    tv_build(&f, 4, HPROF_VERSION_1_0_3, HW_HEAP_SEGMENTED, 0);
    tr_expect("1.0.3", f.data, f.len, jhat_only, "header", "Version string not recognized", 0);
    tv_free(&f);
    /* no heap dump: VisualVM only (cut before the first segment) */
    const hv_verdict vvm_only[R_N] = {HV_READS, HV_READS, HV_READS, HV_READS, HV_REJECTS};
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, 0);
    size_t cut = (size_t)tv_rec_offset(&f, HPROF_TAG_HEAP_DUMP_SEGMENT, 0);
    tr_expect("no-heap", f.data, cut, vvm_only, "no-heap-dump", "Invalid segment 0", UINT64_MAX);
    tv_free(&f);
}

static void test_readers_subrecords(void)
{
    static const struct {
        uint8_t tag;
        hv_verdict want[R_N]; /* go-hprof, jhat, eaftan, py-hprof, visualvm */
    } cases[] = {
        {HPROF_GC_ROOT_MONITOR_USED, {HV_READS, HV_READS, HV_READS, HV_READS, HV_READS}},
        {HPROF_GC_ROOT_UNKNOWN, {HV_REJECTS, HV_READS, HV_READS, HV_READS, HV_READS}},
        {HPROF_GC_ROOT_NATIVE_STACK, {HV_REJECTS, HV_READS, HV_READS, HV_READS, HV_READS}},
        {HPROF_GC_ROOT_THREAD_BLOCK, {HV_REJECTS, HV_READS, HV_READS, HV_READS, HV_READS}},
        {HPROF_GC_ROOT_INTERNED_STRING, {HV_REJECTS, HV_REJECTS, HV_REJECTS, HV_READS, HV_READS}},
        {HPROF_GC_ROOT_FINALIZING, {HV_REJECTS, HV_REJECTS, HV_REJECTS, HV_REJECTS, HV_READS}},
        {HPROF_GC_ROOT_REFERENCE_CLEANUP,
         {HV_REJECTS, HV_REJECTS, HV_REJECTS, HV_REJECTS, HV_READS}},
        {HPROF_GC_ROOT_UNREACHABLE, {HV_REJECTS, HV_REJECTS, HV_REJECTS, HV_REJECTS, HV_READS}},
        {HPROF_GC_ROOT_JNI_MONITOR, {HV_REJECTS, HV_REJECTS, HV_REJECTS, HV_READS, HV_REJECTS}},
        {HPROF_GC_HEAP_DUMP_INFO, {HV_REJECTS, HV_REJECTS, HV_REJECTS, HV_READS, HV_READS}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tv_file f;
        tv_extra_tag = cases[i].tag;
        tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_EXTRA_ROOT);
        uint64_t off = tv_sub_offset(&f, cases[i].tag,
                                     cases[i].tag == HPROF_GC_HEAP_DUMP_INFO ? U_MAIN : O_FOO);
        char needle[80], what[40];
        snprintf(needle, sizeof needle, "%s (0x%02X, 1 from offset %llu)",
                 hprof_sub_name(cases[i].tag), cases[i].tag, (unsigned long long)off);
        snprintf(what, sizeof what, "sub 0x%02X", cases[i].tag);
        tr_expect(what, f.data, f.len, cases[i].want, "sub-record", needle, off);
        tv_free(&f);
    }
    tv_extra_tag = 0;
}

static void test_readers_kinds(void)
{
    tv_file f;
    /* HotSpot's CDS dumps hold dangling ids: only py-hprof stops */
    const hv_verdict py_only[R_N] = {HV_READS, HV_READS, HV_READS, HV_REJECTS, HV_READS};
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_DANGLING);
    tr_expect("dangling", f.data, f.len, py_only, "dangling-ref", "MissingObject", UINT64_MAX);
    tv_free(&f);
    /* a TRACE before its FRAME: the single-pass readers */
    const hv_verdict jhat_py[R_N] = {HV_READS, HV_REJECTS, HV_READS, HV_REJECTS, HV_READS};
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_TRACE_FIRST);
    tr_expect("trace-first", f.data, f.len, jhat_py, "frame-after-trace", NULL, UINT64_MAX);
    tv_free(&f);
    /* segments without END: VisualVM and py-hprof */
    const hv_verdict py_vvm[R_N] = {HV_READS, HV_READS, HV_READS, HV_REJECTS, HV_REJECTS};
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, 0);
    tr_expect("no-end", f.data, f.len - 9, py_vvm, "no-heap-end", NULL, f.len - 9);
    tv_free(&f);
    /* instances of a class without CLASS DUMP: jhat and eaftan stop,
     * VisualVM drops them */
    const hv_verdict nocd[R_N] = {HV_READS, HV_REJECTS, HV_REJECTS, HV_READS, HV_MISREADS};
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_NO_CLASSDUMP);
    tr_expect("no-classdump", f.data, f.len, nocd, "missing-class-dump", NULL, UINT64_MAX);
    tv_free(&f);
}

/* gzip: VisualVM 2.1.5 cannot open it; the others are not judged on it. */
static void test_readers_gzip(void)
{
    tv_file f;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, 0);
    char path[] = "/tmp/test_verify_gzXXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    gzFile gz = gzdopen(fd, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
    CU_ASSERT_EQUAL(gzwrite(gz, f.data, (unsigned)f.len), (int)f.len);
    CU_ASSERT_EQUAL(gzclose(gz), Z_OK);
    int err = 0;
    hr_source *src = hr_source_file(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    hv_result res;
    CU_ASSERT_EQUAL(hv_verify(src, NULL, &res), 0);
    hr_source_close(src);
    unlink(path);
    CU_ASSERT_EQUAL(res.profile.gzip, 1);
    tr_col c;
    memset(&c, 0, sizeof c);
    CU_ASSERT_EQUAL(hv_reader_judge(R_VVM, &res, tr_on_reason, &c), HV_REJECTS);
    CU_ASSERT(c.n == 1 && strcmp(c.kind[0], "gzip") == 0);
    CU_ASSERT_EQUAL(hv_reader_judge(R_GO, &res, NULL, NULL), HV_READS);
    tv_free(&f);
}

/* `hprof verify --reader NAME` exits by that reader's verdict alone. */
static void test_readers_cli(void)
{
    tv_file f;
    tv_build(&f, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED, V_LEGACY);
    char path[] = "/tmp/test_verify_cliXXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(write(fd, f.data, f.len), (ssize_t)f.len);
    close(fd);
    char cmd[1024];
    static const struct { const char *args; int rc; } runs[] = {
        {"--reader go-hprof", 1}, {"--reader jhat", 0}, {"--reader visualvm", 0},
        {"", 0}, {"--reader nosuch", 2}};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        snprintf(cmd, sizeof cmd, "'%s' verify %s %s >/dev/null 2>&1", HPROF_TOOL, runs[i].args,
                 path);
        int st = system(cmd);
        int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (rc != runs[i].rc)
            fprintf(stderr, "\n  %s: exit %d, expected %d\n", cmd, rc, runs[i].rc);
        CU_ASSERT_EQUAL(rc, runs[i].rc);
    }
    /* the verdict and the first record the Go reader stops at */
    snprintf(cmd, sizeof cmd, "'%s' verify --reader go-hprof %s 2>&1", HPROF_TOOL, path);
    FILE *p = popen(cmd, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    char line[1024];
    int verdict = 0, reason = 0, others = 0;
    while (fgets(line, sizeof line, p)) {
        verdict |= strstr(line, "go-hprof   rejects") != NULL;
        reason |= strstr(line, "rejects: CONTROL SETTINGS (0x0E, 1 from offset 31)") != NULL;
        others |= strstr(line, "jhat ") != NULL;
    }
    pclose(p);
    CU_ASSERT(verdict && reason && !others);
    unlink(path);
    tv_free(&f);
}

static int tv_suites(void)
{
    CU_pSuite s = CU_add_suite("verify", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "options_init", test_options_init) ||
        !CU_add_test(s, "clean_baseline_id8_id4", test_clean_baseline) ||
        !CU_add_test(s, "clean_variants", test_clean_variants) ||
        !CU_add_test(s, "unknown_toptag", test_unknown_toptag) ||
        !CU_add_test(s, "no_traces", test_no_traces) ||
        !CU_add_test(s, "no_end_and_truncation", test_no_end_and_truncation) ||
        !CU_add_test(s, "zero_length_segment", test_zero_length_segment) ||
        !CU_add_test(s, "split_subrecord", test_split_subrecord) ||
        !CU_add_test(s, "unknown_subtag", test_unknown_subtag) ||
        !CU_add_test(s, "multiple_dumps", test_multiple_dumps) ||
        !CU_add_test(s, "segments_in_101", test_segments_in_101) ||
        !CU_add_test(s, "class_records", test_class_records) ||
        !CU_add_test(s, "prim_array_class", test_prim_array_class) ||
        !CU_add_test(s, "ordering", test_ordering) ||
        !CU_add_test(s, "resolution", test_resolution) ||
        !CU_add_test(s, "layout", test_layout) ||
        !CU_add_test(s, "dangling_and_options", test_dangling_and_options) ||
        !CU_add_test(s, "pipe_source", test_pipe_source) ||
        !CU_add_test(s, "super_cycle", test_super_cycle) ||
        !CU_add_test(s, "class_dump_after_unload", test_class_dump_after_unload) ||
        !CU_add_test(s, "hostile", test_hostile) ||
        !CU_add_test(s, "corpus", test_corpus) ||
        !CU_add_test(s, "readers_table", test_readers_table) ||
        !CU_add_test(s, "readers_records", test_readers_records) ||
        !CU_add_test(s, "readers_subrecords", test_readers_subrecords) ||
        !CU_add_test(s, "readers_kinds", test_readers_kinds) ||
        !CU_add_test(s, "readers_gzip", test_readers_gzip) ||
        !CU_add_test(s, "readers_cli", test_readers_cli))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(tv_suites);
}
