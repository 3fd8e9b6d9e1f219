/*
 * fuzz_reader.c: libFuzzer target for the reader and the verifier.
 *
 * Runs hr_parse over the input (memory source) with callbacks that touch
 * every byte of every pointer they are handed, the way a careless caller
 * would (class dumps walked with the hr_class_* iterators, all instance
 * values and array elements, every TRACE frame, ALLOC SITES site and CPU
 * SAMPLES pair), then hv_verify over the same input. A few invariants are
 * checked too; a violation aborts, so libFuzzer reports it with its input:
 *  - a memory source never gives HR_IO, and only our callbacks stop a parse;
 *  - stats.bytes never exceeds the input; HR_MALFORMED comes with a problem;
 *  - every pointer lies inside the input, and every announced element count
 *    fits in the record or sub-record it came with (a record flagged
 *    `malformed` has an all-zero `u`);
 *  - the verifier sees the same parse status as the parser and counts an
 *    error whenever the parse is malformed.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_reader
 * Run:   build-fuzz/tests/fuzz/fuzz_reader -max_total_time=60 tests/fuzz/corpus
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/hr_reader.h"
#include "hprof/hv_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz {
    const uint8_t *lo, *hi; /* the input */
    unsigned id_size;
    uint64_t events, stop_at;
    uint64_t problems;
    volatile uint64_t sum;
} fz;

#define FZ_CHECK(cond)                                                              \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "fuzz_reader: invariant failed: %s (line %d)\n", #cond,  \
                    __LINE__);                                                      \
            abort();                                                                \
        }                                                                           \
    } while (0)

/* [p, p+n) lies inside the input. */
static int inside(const fz *z, const void *p, uint64_t n)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)z->lo, hi = (uintptr_t)z->hi;
    return a >= lo && a <= hi && n <= (uint64_t)(hi - a);
}

static void touch(fz *z, const uint8_t *p, uint64_t n)
{
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++)
        s += p[i];
    z->sum += s;
}

static int stop_now(fz *z)
{
    return z->stop_at && ++z->events >= z->stop_at;
}

static int on_header(void *ctx, const hr_header *h)
{
    fz *z = ctx;
    FZ_CHECK(h->id_size == 4 || h->id_size == 8);
    FZ_CHECK(memchr(h->magic, 0, sizeof h->magic) != NULL);
    z->id_size = h->id_size;
    return 0;
}

static int on_record(void *ctx, const hr_record *r)
{
    fz *z = ctx;
    unsigned id = z->id_size;
    FZ_CHECK(inside(z, z->lo + r->offset, HPROF_RECORD_HEADER_SIZE));
    if (r->tag == HPROF_TAG_HEAP_DUMP || r->tag == HPROF_TAG_HEAP_DUMP_SEGMENT)
        return stop_now(z);
    FZ_CHECK(r->body != NULL);
    FZ_CHECK(r->body_len <= r->length && r->body_len <= HR_BODY_MAX);
    FZ_CHECK(r->cut == (r->body_len < r->length));
    FZ_CHECK(inside(z, r->body, r->body_len));
    touch(z, r->body, r->body_len);
    if (r->malformed) {
        /* the layout is contradicted: `u` is all zero and must not be used */
        static const uint8_t zero[sizeof r->u];
        FZ_CHECK(memcmp(&r->u, zero, sizeof r->u) == 0);
        return stop_now(z);
    }
    switch (r->tag) {
    case HPROF_TAG_UTF8:
        FZ_CHECK(r->u.utf8.len == 0 || inside(z, r->u.utf8.str, r->u.utf8.len));
        touch(z, (const uint8_t *)r->u.utf8.str, r->u.utf8.len);
        break;
    case HPROF_TAG_TRACE:
        FZ_CHECK(r->malformed || r->cut || 12 + (uint64_t)r->u.trace.nframes * id == r->length);
        for (uint32_t i = 0; i < r->u.trace.nframes; i++)
            z->sum += hr_trace_frame(r, id, i);
        break;
    case HPROF_TAG_ALLOC_SITES:
        FZ_CHECK(r->malformed || r->cut || 34 + (uint64_t)r->u.alloc_sites.nsites * 25 == r->length);
        for (uint32_t i = 0; i < r->u.alloc_sites.nsites; i++) {
            hr_alloc_site s;
            hr_alloc_site_at(r, i, &s);
            z->sum += s.array_type + s.class_serial + s.trace_serial + s.live_bytes +
                      s.live_instances + s.alloc_bytes + s.alloc_instances;
        }
        {
            /* its bits: a NaN or huge cutoff has no integer value (UBSan) */
            uint32_t bits;
            memcpy(&bits, &r->u.alloc_sites.cutoff, sizeof bits);
            z->sum += bits;
        }
        break;
    case HPROF_TAG_CPU_SAMPLES:
        FZ_CHECK(r->malformed || r->cut || 8 + (uint64_t)r->u.cpu_samples.ntraces * 8 == r->length);
        for (uint32_t i = 0; i < r->u.cpu_samples.ntraces; i++) {
            uint32_t c, t;
            hr_cpu_sample_at(r, i, &c, &t);
            z->sum += c + t;
        }
        break;
    default:
        z->sum += r->u.frame.frame_id + r->u.frame.line;
        break;
    }
    return stop_now(z);
}

static int on_sub(void *ctx, const hr_sub *s)
{
    fz *z = ctx;
    unsigned id = z->id_size;
    FZ_CHECK(s->length >= 1);
    if (s->part) {
        /* a later part of an object array: its elements only (hr_sub) */
        FZ_CHECK(s->tag == HPROF_GC_OBJ_ARRAY_DUMP && s->body == NULL);
        FZ_CHECK(s->u.oarr.first > 0 && s->u.oarr.count > 0);
        FZ_CHECK((uint64_t)s->u.oarr.first + s->u.oarr.count <= s->u.oarr.n);
        FZ_CHECK(inside(z, s->u.oarr.elems, (uint64_t)s->u.oarr.count * id));
        FZ_CHECK(s->u.oarr.elems == z->lo + s->offset + 1 + HPROF_OBJ_ARRAY_DUMP_FIXED(id) +
                                        (uint64_t)s->u.oarr.first * id);
        for (uint32_t i = 0; i < s->u.oarr.count; i++)
            z->sum += hr_get_id(s->u.oarr.elems + (size_t)i * id, id);
        return stop_now(z);
    }
    FZ_CHECK(s->body != NULL);
    FZ_CHECK(inside(z, s->body - 1, s->length));
    FZ_CHECK(s->body - 1 == z->lo + s->offset);
    const uint8_t *end = s->body + s->length - 1;
    touch(z, s->body, s->length - 1);
    switch (s->tag) {
    case HPROF_GC_CLASS_DUMP: {
        const uint8_t *p = s->u.cls.cp;
        for (unsigned i = 0; i < s->u.cls.ncp; i++) {
            hr_cp_entry c;
            FZ_CHECK(inside(z, p, 3));
            p = hr_class_cp_next(p, id, &c);
            FZ_CHECK(p <= end);
            z->sum += c.index + c.type + c.value;
        }
        p = s->u.cls.statics;
        for (unsigned i = 0; i < s->u.cls.nstatics; i++) {
            hr_static st;
            FZ_CHECK(inside(z, p, id + 1u));
            p = hr_class_static_next(p, id, &st);
            FZ_CHECK(p <= end);
            z->sum += st.name_id + st.type + st.value;
        }
        p = s->u.cls.fields;
        for (unsigned i = 0; i < s->u.cls.nfields; i++) {
            hr_field f;
            FZ_CHECK(inside(z, p, id + 1u));
            p = hr_class_field_next(p, id, &f);
            FZ_CHECK(p <= end);
            z->sum += f.name_id + f.type;
        }
        FZ_CHECK(p == end);
        break;
    }
    case HPROF_GC_INSTANCE_DUMP:
        FZ_CHECK(s->u.inst.values + s->u.inst.nbytes == end);
        touch(z, s->u.inst.values, s->u.inst.nbytes);
        break;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        FZ_CHECK(s->u.oarr.first == 0 && s->u.oarr.count <= s->u.oarr.n);
        FZ_CHECK(s->u.oarr.count == s->u.oarr.n || s->u.oarr.count * (uint64_t)id == HR_BODY_MAX / id * id);
        FZ_CHECK(s->u.oarr.elems + (uint64_t)s->u.oarr.n * id == end);
        for (uint32_t i = 0; i < s->u.oarr.count; i++)
            z->sum += hr_get_id(s->u.oarr.elems + (size_t)i * id, id);
        break;
    case HPROF_GC_PRIM_ARRAY_DUMP: {
        unsigned es = hprof_type_size(s->u.parr.type, id);
        FZ_CHECK(es != 0 && s->u.parr.type != 2);
        FZ_CHECK(s->cut || s->u.parr.elems + (uint64_t)s->u.parr.n * es == end);
        if (!s->cut)
            touch(z, s->u.parr.elems, (uint64_t)s->u.parr.n * es);
        break;
    }
    default:
        z->sum += s->u.root.id + s->u.root.thread_serial + s->u.root.frame + s->u.root.ref;
        break;
    }
    return stop_now(z);
}

static int on_record_end(void *ctx, const hr_record *r)
{
    fz *z = ctx;
    z->sum += r->tag;
    return stop_now(z);
}

static void on_problem(void *ctx, hr_severity sev, const char *kind, uint64_t offset,
                       const char *msg)
{
    fz *z = ctx;
    FZ_CHECK(sev == HR_WARNING || sev == HR_ERROR);
    FZ_CHECK(kind != NULL && msg != NULL);
    z->sum += strlen(kind) + strlen(msg) + offset;
    z->problems++;
}

static void on_vproblem(void *ctx, const hv_problem *p)
{
    fz *z = ctx;
    FZ_CHECK(p->kind != NULL && p->message != NULL);
    FZ_CHECK(p->severity == HR_WARNING || p->severity == HR_ERROR);
    z->sum += strlen(p->kind) + strlen(p->message) + p->offset;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const hr_callbacks cb = {on_header, on_record, on_sub, on_problem, on_record_end};
    fz z;
    memset(&z, 0, sizeof z);
    z.lo = data;
    z.hi = data + size;

    /* 1. a full parse */
    hr_source *src = hr_source_memory(data, size);
    if (!src)
        return 0;
    hr_stats st;
    hr_status rc = hr_parse(src, &cb, &z, &st);
    FZ_CHECK(rc == HR_OK || rc == HR_MALFORMED);
    FZ_CHECK(st.bytes <= size);
    FZ_CHECK(st.problems == z.problems);
    if (rc == HR_MALFORMED)
        FZ_CHECK(z.problems > 0);
    /* 2. the same source rewound, stopped by a callback part-way */
    uint64_t full_events = 0;
    {
        fz z2 = z;
        z2.sum = 0;
        z2.stop_at = 0;
        z2.events = 0;
        z2.problems = 0;
        full_events = (size % 7) + 1;
        z2.stop_at = full_events;
        FZ_CHECK(hr_source_rewind(src) == 0);
        hr_status rc2 = hr_parse(src, &cb, &z2, NULL);
        FZ_CHECK(rc2 == HR_OK || rc2 == HR_MALFORMED || rc2 == HR_STOPPED);
        if (rc2 == HR_STOPPED)
            FZ_CHECK(z2.events == z2.stop_at);
        z.sum += z2.sum;
    }
    hr_source_close(src);

    /* 3. the verifier over the same bytes */
    src = hr_source_memory(data, size);
    if (!src)
        return 0;
    hv_options o;
    hv_options_init(&o);
    o.max_per_kind = (size & 1) ? 0 : 3; /* 0: every problem reported in full */
    o.on_problem = on_vproblem;
    o.ctx = &z;
    hv_result res;
    memset(&res, 0, sizeof res);
    int v = hv_verify(src, &o, &res);
    hr_source_close(src);
    FZ_CHECK(v == 0 || v == 1 || v == -1);
    if (v != -1) {
        FZ_CHECK(res.parse_status == rc);
        FZ_CHECK(res.nkinds <= sizeof res.kinds / sizeof res.kinds[0]);
        /* per-kind totals add up (a kind may be reported at both severities,
         * so only the sum is compared) */
        uint64_t total = 0;
        for (unsigned i = 0; i < res.nkinds; i++) {
            FZ_CHECK(res.kinds[i].kind != NULL);
            total += res.kinds[i].count;
        }
        FZ_CHECK(res.errors + res.warnings == total);
        FZ_CHECK(v == ((res.errors + res.warnings) ? 1 : 0));
        if (rc == HR_MALFORMED)
            FZ_CHECK(res.errors > 0);
    }
    return 0;
}
