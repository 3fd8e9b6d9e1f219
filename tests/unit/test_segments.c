/*
 * test_segments.c: how the writer cuts a heap dump into HEAP DUMP SEGMENTs.
 *
 * The expected sub-record bytes are encoded here independently of the
 * writer; the top-level records of the output are walked here too, and the
 * reader is run over it as a second opinion. Checked:
 *  - a sub-record that exactly fills a segment: the next starts a new one,
 *    and no empty segment follows it;
 *  - a sub-record larger than segment_size gets a segment of its own, of
 *    exactly its length;
 *  - an empty dump is only a HEAP DUMP END (no 0x1C);
 *  - many random sub-records: every segment <= segment_size unless it holds
 *    a single oversized sub-record, segment boundaries fall on sub-record
 *    boundaries, the concatenated segment bodies equal every sub-record in
 *    order, no zero-length 0x1C, segments are filled (no early cut);
 *  - a plain record inside a dump closes the segment, without ever writing an
 *    empty one;
 *  - lengths that do not fit a u4 are refused with EFBIG before any byte;
 *  - hw_writer_patch: a raw segment overwritten after later records gives
 *    the same bytes as writing the final body in the first place (memory,
 *    a file with the I/O thread, an fd that did not start at offset 0), and
 *    pipes, appending fds and unwritten ranges are refused.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK_EQ(a, b)                                                              \
    do {                                                                            \
        unsigned long long a_ = (unsigned long long)(a);                            \
        unsigned long long b_ = (unsigned long long)(b);                            \
        if (a_ != b_)                                                               \
            fprintf(stderr, "\n  %s:%d: %s = %#llx, expected %s = %#llx\n",         \
                    __FILE__, __LINE__, #a, a_, #b, b_);                            \
        CU_ASSERT(a_ == b_);                                                        \
    } while (0)

/* ------------------------------------------------ expected encoding */

typedef struct bbuf {
    uint8_t *p;
    size_t n, cap;
} bbuf;

static void bb_need(bbuf *b, size_t more)
{
    if (b->n + more <= b->cap)
        return;
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->n + more)
        nc *= 2;
    uint8_t *np = realloc(b->p, nc);
    if (!np)
        abort();
    b->p = np;
    b->cap = nc;
}

static void bb_be(bbuf *b, uint64_t v, unsigned size)
{
    bb_need(b, size);
    for (unsigned i = 0; i < size; i++)
        b->p[b->n++] = (uint8_t)(v >> (8 * (size - 1 - i)));
}

static void bb_free(bbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* The sub-records written, in order: their sizes, and all their bytes. */
typedef struct subs {
    bbuf bytes;
    uint32_t *len;
    size_t n, cap;
} subs;

static void subs_add(subs *s, size_t before)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->len = realloc(s->len, s->cap * sizeof *s->len);
        if (!s->len)
            abort();
    }
    s->len[s->n++] = (uint32_t)(s->bytes.n - before);
}

static void subs_free(subs *s)
{
    bb_free(&s->bytes);
    free(s->len);
    memset(s, 0, sizeof *s);
}

/* Writes a sub-record with the writer and appends its expected bytes. */
static int put_root(hw_writer *w, subs *s, unsigned idsz, hprof_id obj)
{
    size_t b = s->bytes.n;
    bb_be(&s->bytes, HPROF_GC_ROOT_UNKNOWN, 1);
    bb_be(&s->bytes, obj, idsz);
    subs_add(s, b);
    return hw_root(w, HPROF_GC_ROOT_UNKNOWN, obj, 0, 0, 0);
}

static int put_thread_root(hw_writer *w, subs *s, unsigned idsz, hprof_id obj, uint32_t th,
                           uint32_t tr)
{
    size_t b = s->bytes.n;
    bb_be(&s->bytes, HPROF_GC_ROOT_THREAD_OBJ, 1);
    bb_be(&s->bytes, obj, idsz);
    bb_be(&s->bytes, th, 4);
    bb_be(&s->bytes, tr, 4);
    subs_add(s, b);
    return hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, obj, th, tr, 0);
}

/* A byte array of n elements: 1 + id + 9 + n bytes. */
static int put_bytes(hw_writer *w, subs *s, unsigned idsz, hprof_id obj, uint32_t n)
{
    uint8_t *v = malloc(n ? n : 1);
    if (!v)
        abort();
    for (uint32_t i = 0; i < n; i++)
        v[i] = (uint8_t)(obj * 31 + i);
    size_t b = s->bytes.n;
    bb_be(&s->bytes, HPROF_GC_PRIM_ARRAY_DUMP, 1);
    bb_be(&s->bytes, obj, idsz);
    bb_be(&s->bytes, 1, 4);
    bb_be(&s->bytes, n, 4);
    bb_be(&s->bytes, HPROF_TYPE_BYTE, 1);
    bb_need(&s->bytes, n);
    memcpy(s->bytes.p + s->bytes.n, v, n);
    s->bytes.n += n;
    subs_add(s, b);
    int r = hw_prim_array_dump(w, obj, 1, HPROF_TYPE_BYTE, n, v);
    free(v);
    return r;
}

static int put_ints(hw_writer *w, subs *s, unsigned idsz, hprof_id obj, uint32_t n)
{
    int32_t *v = malloc(n ? 4u * n : 1);
    if (!v)
        abort();
    size_t b = s->bytes.n;
    bb_be(&s->bytes, HPROF_GC_PRIM_ARRAY_DUMP, 1);
    bb_be(&s->bytes, obj, idsz);
    bb_be(&s->bytes, 2, 4);
    bb_be(&s->bytes, n, 4);
    bb_be(&s->bytes, HPROF_TYPE_INT, 1);
    for (uint32_t i = 0; i < n; i++) {
        v[i] = (int32_t)(0x01020304u * (i + 1) ^ (uint32_t)obj);
        bb_be(&s->bytes, (uint32_t)v[i], 4);
    }
    subs_add(s, b);
    int r = hw_prim_array_dump(w, obj, 2, HPROF_TYPE_INT, n, v);
    free(v);
    return r;
}

static int put_instance(hw_writer *w, subs *s, unsigned idsz, hprof_id obj, uint32_t nbytes)
{
    uint8_t *v = malloc(nbytes ? nbytes : 1);
    if (!v)
        abort();
    for (uint32_t i = 0; i < nbytes; i++)
        v[i] = (uint8_t)(i ^ obj);
    size_t b = s->bytes.n;
    bb_be(&s->bytes, HPROF_GC_INSTANCE_DUMP, 1);
    bb_be(&s->bytes, obj, idsz);
    bb_be(&s->bytes, 3, 4);
    bb_be(&s->bytes, 0x7000, idsz);
    bb_be(&s->bytes, nbytes, 4);
    bb_need(&s->bytes, nbytes);
    memcpy(s->bytes.p + s->bytes.n, v, nbytes);
    s->bytes.n += nbytes;
    subs_add(s, b);
    int r = hw_instance_dump(w, obj, 3, 0x7000, v, nbytes);
    free(v);
    return r;
}

/* Streamed object array (hw_obj_array_begin / hw_put_id / hw_sub_end). */
static int put_objs_streamed(hw_writer *w, subs *s, unsigned idsz, hprof_id obj, uint32_t n)
{
    size_t b = s->bytes.n;
    bb_be(&s->bytes, HPROF_GC_OBJ_ARRAY_DUMP, 1);
    bb_be(&s->bytes, obj, idsz);
    bb_be(&s->bytes, 4, 4);
    bb_be(&s->bytes, n, 4);
    bb_be(&s->bytes, 0x7100, idsz);
    int r = hw_obj_array_begin(w, obj, 4, 0x7100, n);
    for (uint32_t i = 0; i < n; i++) {
        hprof_id e = (i % 3 == 1) ? 0 : obj + i + 1;
        bb_be(&s->bytes, e, idsz);
        int r2 = hw_put_id(w, e);
        if (!r)
            r = r2;
    }
    subs_add(s, b);
    int r3 = hw_sub_end(w);
    return r ? r : r3;
}

/* ------------------------------------------------- output walking */

typedef struct rec {
    uint8_t tag;
    uint32_t len;
    size_t off; /* of the tag */
} rec;

/* Walks the top-level records; returns the count, or -1 if the walk does
 * not end exactly at the end of the data. */
static int walk(const uint8_t *d, size_t len, rec *out, int max)
{
    size_t o = HPROF_HEADER_SIZE;
    int n = 0;
    while (o < len) {
        if (len - o < HPROF_RECORD_HEADER_SIZE || n >= max)
            return -1;
        rec r = {d[o], hr_get_u4(d + o + 5), o};
        if (len - o - HPROF_RECORD_HEADER_SIZE < r.len)
            return -1;
        out[n++] = r;
        o += HPROF_RECORD_HEADER_SIZE + r.len;
    }
    return o == len ? n : -1;
}

static int g_problems;
static void count_problem(void *ctx, hr_severity sev, const char *kind, uint64_t off,
                          const char *msg)
{
    g_problems++;
    fprintf(stderr, "\n  [reader problem] %s at %llu: %s\n", kind, (unsigned long long)off,
            msg);
}

/* The reader agrees: clean parse, the expected number of sub-records. */
static void reader_agrees(const uint8_t *d, size_t len, size_t nsubs)
{
    hr_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.on_problem = count_problem;
    hr_stats st;
    memset(&st, 0, sizeof st);
    g_problems = 0;
    hr_source *src = hr_source_memory(d, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    CHECK_EQ(hr_parse(src, &cb, NULL, &st), HR_OK);
    hr_source_close(src);
    CHECK_EQ(g_problems, 0);
    uint64_t total = 0;
    for (unsigned t = 0; t < 256; t++)
        total += st.subs[t];
    CHECK_EQ(total, nsubs);
    CHECK_EQ(st.bytes, len);
}

static hw_writer *seg_writer(unsigned idsz, uint32_t segment_size, hw_sink **sink)
{
    hw_options o;
    hw_options_init(&o);
    o.id_size = idsz;
    o.clock = HW_CLOCK_FIXED;
    o.segment_size = segment_size;
    *sink = hw_sink_memory(0);
    if (!*sink)
        return NULL;
    return hw_writer_open(*sink, &o, NULL);
}

/* Segments as expected: `want` lists the top-level records as tag/length
 * pairs. Also checks the concatenated segment bodies equal `s`. */
static void expect_records(const uint8_t *d, size_t len, const uint32_t (*want)[2], int nwant,
                           const subs *s)
{
    rec r[64];
    int n = walk(d, len, r, 64);
    CHECK_EQ(n, nwant);
    if (n != nwant) {
        for (int i = 0; i < n; i++)
            fprintf(stderr, "    got record 0x%02X length %u\n", r[i].tag, r[i].len);
        return;
    }
    bbuf cat = {0};
    for (int i = 0; i < n; i++) {
        CHECK_EQ(r[i].tag, want[i][0]);
        CHECK_EQ(r[i].len, want[i][1]);
        if (r[i].tag == HPROF_TAG_HEAP_DUMP_SEGMENT) {
            bb_need(&cat, r[i].len);
            memcpy(cat.p + cat.n, d + r[i].off + HPROF_RECORD_HEADER_SIZE, r[i].len);
            cat.n += r[i].len;
        }
    }
    if (s) {
        CHECK_EQ(cat.n, s->bytes.n);
        CU_ASSERT(cat.n == s->bytes.n && memcmp(cat.p, s->bytes.p, cat.n) == 0);
        reader_agrees(d, len, s->n);
    }
    bb_free(&cat);
}

#define SEG HPROF_TAG_HEAP_DUMP_SEGMENT
#define END HPROF_TAG_HEAP_DUMP_END

/* ------------------------------------------------------- the tests */

/* segment_size 64: two 32-byte byte arrays fill a segment exactly. */
static void test_exact_fill(void)
{
    for (int variant = 0; variant < 3; variant++) {
        hw_sink *sink;
        hw_writer *w = seg_writer(4, 64, &sink);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        subs s = {0};
        CHECK_EQ(hw_heap_begin(w), 0);
        CHECK_EQ(put_bytes(w, &s, 4, 1, 18), 0); /* 14 + 18 = 32 */
        CHECK_EQ(put_bytes(w, &s, 4, 2, 18), 0);
        if (variant >= 1)
            CHECK_EQ(put_root(w, &s, 4, 3), 0);
        if (variant == 2)
            CHECK_EQ(put_bytes(w, &s, 4, 4, 45), 0); /* 59: 5 + 59 = 64 */
        CHECK_EQ(hw_heap_end(w), 0);
        uint64_t nseg = hw_heap_segments(w);
        CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
        size_t len;
        const uint8_t *d = hw_sink_memory_data(sink, &len);
        if (variant == 0) {
            /* the dump ends exactly at a full segment: no empty one after */
            static const uint32_t want[2][2] = {{SEG, 64}, {END, 0}};
            expect_records(d, len, want, 2, &s);
            CHECK_EQ(nseg, 1);
        } else if (variant == 1) {
            static const uint32_t want[3][2] = {{SEG, 64}, {SEG, 5}, {END, 0}};
            expect_records(d, len, want, 3, &s);
            CHECK_EQ(nseg, 2);
        } else {
            static const uint32_t want[3][2] = {{SEG, 64}, {SEG, 64}, {END, 0}};
            expect_records(d, len, want, 3, &s);
            CHECK_EQ(nseg, 2);
        }
        subs_free(&s);
        hw_sink_free(sink);
    }
}

/* A sub-record larger than the segment size gets a segment of its own. */
static void test_oversized(void)
{
    for (unsigned idsz = 4; idsz <= 8; idsz += 4) {
        hw_sink *sink;
        hw_writer *w = seg_writer(idsz, 64, &sink);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        subs s = {0};
        uint32_t big = 1 + idsz + 9 + 100;
        uint32_t root = 1 + idsz;
        CHECK_EQ(hw_heap_begin(w), 0);
        CHECK_EQ(put_bytes(w, &s, idsz, 1, 100), 0); /* first, oversized */
        CHECK_EQ(put_root(w, &s, idsz, 2), 0);
        CHECK_EQ(put_root(w, &s, idsz, 3), 0);
        CHECK_EQ(put_bytes(w, &s, idsz, 4, 100), 0); /* middle */
        CHECK_EQ(put_bytes(w, &s, idsz, 5, 200), 0); /* two in a row */
        CHECK_EQ(put_root(w, &s, idsz, 6), 0);
        CHECK_EQ(put_bytes(w, &s, idsz, 7, 64 - (1 + idsz + 9)), 0); /* exactly 64 */
        CHECK_EQ(put_root(w, &s, idsz, 8), 0);
        CHECK_EQ(put_ints(w, &s, idsz, 9, 1000), 0); /* last, oversized */
        CHECK_EQ(hw_heap_end(w), 0);
        uint64_t nseg = hw_heap_segments(w);
        CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
        size_t len;
        const uint8_t *d = hw_sink_memory_data(sink, &len);
        const uint32_t want[9][2] = {{SEG, big},      {SEG, 2 * root}, {SEG, big},
                                     {SEG, big + 100}, {SEG, root},     {SEG, 64},
                                     {SEG, root},     {SEG, 1 + idsz + 9 + 4000},
                                     {END, 0}};
        expect_records(d, len, want, 9, &s);
        CHECK_EQ(nseg, 8);
        subs_free(&s);
        hw_sink_free(sink);
    }
}

/* A dump with no sub-record: only HEAP DUMP END, no 0x1C at all. */
static void test_empty_dump(void)
{
    hw_sink *sink;
    hw_writer *w = seg_writer(8, 64, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CHECK_EQ(hw_heap_begin(w), 0);
    CHECK_EQ(hw_heap_end(w), 0);
    CHECK_EQ(hw_heap_segments(w), 0);
    /* also: the writer closing an open, empty dump */
    CHECK_EQ(hw_heap_begin(w), 0);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    size_t len;
    const uint8_t *d = hw_sink_memory_data(sink, &len);
    static const uint32_t want[2][2] = {{END, 0}, {END, 0}};
    expect_records(d, len, want, 2, NULL);
    CHECK_EQ(len, HPROF_HEADER_SIZE + 18);
    reader_agrees(d, len, 0);
    hw_sink_free(sink);
}

/* hw_writer_close ends an open dump with a segment. */
static void test_close_ends_dump(void)
{
    hw_sink *sink;
    hw_writer *w = seg_writer(4, 64, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    subs s = {0};
    CHECK_EQ(hw_heap_begin(w), 0);
    CHECK_EQ(put_root(w, &s, 4, 1), 0);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    size_t len;
    const uint8_t *d = hw_sink_memory_data(sink, &len);
    static const uint32_t want[2][2] = {{SEG, 5}, {END, 0}};
    expect_records(d, len, want, 2, &s);
    subs_free(&s);
    hw_sink_free(sink);
}

static uint32_t rng(uint64_t *st)
{
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*st >> 33);
}

/* Many random sub-records over several segment sizes. */
static void many(unsigned idsz, uint32_t segsz, uint64_t seed, int nsubs)
{
    hw_sink *sink;
    hw_writer *w = seg_writer(idsz, segsz, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    subs s = {0};
    uint64_t st = seed;
    int failed_calls = 0;
    CHECK_EQ(hw_utf8z(w, 1, "before"), 0);
    CHECK_EQ(hw_heap_begin(w), 0);
    for (int i = 0; i < nsubs; i++) {
        uint32_t k = rng(&st) % 100;
        hprof_id obj = 0x10000 + (hprof_id)i;
        int r;
        if (k < 40)
            r = put_root(w, &s, idsz, obj);
        else if (k < 50)
            r = put_thread_root(w, &s, idsz, obj, rng(&st), rng(&st));
        else if (k < 70)
            r = put_instance(w, &s, idsz, obj, rng(&st) % (segsz / 2 + 1));
        else if (k < 80)
            r = put_objs_streamed(w, &s, idsz, obj, rng(&st) % (segsz / idsz / 2 + 2));
        else if (k < 95)
            r = put_bytes(w, &s, idsz, obj, rng(&st) % segsz);
        else
            r = put_ints(w, &s, idsz, obj, rng(&st) % segsz); /* often oversized */
        if (r)
            failed_calls++;
    }
    CHECK_EQ(failed_calls, 0);
    CHECK_EQ(hw_heap_end(w), 0);
    CHECK_EQ(hw_utf8z(w, 2, "after"), 0);
    uint64_t nseg = hw_heap_segments(w);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    size_t len;
    const uint8_t *d = hw_sink_memory_data(sink, &len);

    int maxr = nsubs + 16;
    rec *r = malloc((size_t)maxr * sizeof *r);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    int n = walk(d, len, r, maxr);
    CU_ASSERT_FATAL(n >= 3);
    CHECK_EQ(r[0].tag, HPROF_TAG_UTF8);
    CHECK_EQ(r[n - 2].tag, END);
    CHECK_EQ(r[n - 2].len, 0);
    CHECK_EQ(r[n - 1].tag, HPROF_TAG_UTF8);
    CHECK_EQ(nseg, (uint64_t)(n - 3));

    /* walk segments and expected sub-records side by side */
    size_t si = 0;        /* next expected sub-record */
    size_t boff = 0;      /* its offset in the expected bytes */
    int bad_len = 0, bad_boundary = 0, bad_bytes = 0, early_cut = 0, empty = 0;
    for (int i = 1; i < n - 2; i++) {
        if (r[i].tag != SEG) {
            CU_FAIL("a record other than a segment inside the dump");
            break;
        }
        uint32_t L = r[i].len;
        if (L == 0)
            empty++;
        size_t first = si;
        uint64_t acc = 0;
        while (si < s.n && acc + s.len[si] <= L)
            acc += s.len[si++];
        if (acc != L) {
            bad_boundary++; /* a sub-record crosses the segment end */
            break;
        }
        size_t nin = si - first;
        if (L > segsz && !(nin == 1 && s.len[first] > segsz))
            bad_len++;
        if (memcmp(d + r[i].off + HPROF_RECORD_HEADER_SIZE, s.bytes.p + boff, L) != 0)
            bad_bytes++;
        boff += L;
        /* filled: the next sub-record would not have fitted */
        if (i + 1 < n - 2 && si < s.n && (uint64_t)L + s.len[si] <= segsz)
            early_cut++;
    }
    if (bad_len || bad_boundary || bad_bytes || early_cut || empty)
        fprintf(stderr,
                "\n  id %u seg %u: %d too long, %d crossing, %d wrong bytes, %d cut early, "
                "%d empty\n",
                idsz, segsz, bad_len, bad_boundary, bad_bytes, early_cut, empty);
    CHECK_EQ(empty, 0);
    CHECK_EQ(bad_len, 0);
    CHECK_EQ(bad_boundary, 0);
    CHECK_EQ(bad_bytes, 0);
    CHECK_EQ(early_cut, 0);
    CHECK_EQ(si, s.n);
    CHECK_EQ(boff, s.bytes.n);
    reader_agrees(d, len, s.n);
    free(r);
    subs_free(&s);
    hw_sink_free(sink);
}

static void test_many(void)
{
    static const uint32_t sizes[4] = {64, 100, 1000, 4096};
    for (unsigned idsz = 4; idsz <= 8; idsz += 4)
        for (unsigned k = 0; k < 4; k++)
            many(idsz, sizes[k], 0x1234 + k * 77 + idsz, 3000);
}

/* Default segment size (1 MiB): ~2.5 MB of sub-records -> several segments. */
static void test_many_default_size(void)
{
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(8, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    subs s = {0};
    CHECK_EQ(hw_heap_begin(w), 0);
    for (int i = 0; i < 2500; i++)
        CHECK_EQ(put_bytes(w, &s, 8, (hprof_id)i + 1, 1000), 0); /* 1018 each */
    CHECK_EQ(hw_heap_end(w), 0);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    size_t len;
    const uint8_t *d = hw_sink_memory_data(sink, &len);
    rec r[16];
    int n = walk(d, len, r, 16);
    CHECK_EQ(n, 4);
    const uint32_t per = (HW_DEFAULT_SEGMENT_SIZE / 1018) * 1018; /* 1030 subs */
    if (n == 4) {
        CHECK_EQ(r[0].len, per);
        CHECK_EQ(r[1].len, per);
        CHECK_EQ(r[2].len, 2500 * 1018 - 2 * per);
        CHECK_EQ(r[3].tag, END);
    }
    reader_agrees(d, len, s.n);
    subs_free(&s);
    hw_sink_free(sink);
}

/* A plain record written inside a dump closes the segment; no empty one is
 * written when there is nothing to close. */
static void test_plain_record_closes_segment(void)
{
    hw_sink *sink;
    hw_writer *w = seg_writer(4, 64, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    subs s = {0};
    CHECK_EQ(hw_heap_begin(w), 0);
    CHECK_EQ(hw_utf8z(w, 1, "first"), 0); /* nothing open yet */
    CHECK_EQ(put_root(w, &s, 4, 1), 0);
    CHECK_EQ(put_root(w, &s, 4, 2), 0);
    CHECK_EQ(hw_utf8z(w, 2, "middle"), 0);
    CHECK_EQ(hw_load_class(w, 1, 0x10, 1, 2), 0); /* two in a row */
    CHECK_EQ(put_root(w, &s, 4, 3), 0);
    CHECK_EQ(hw_utf8z(w, 3, "last"), 0);
    CHECK_EQ(hw_heap_end(w), 0); /* nothing open: only END */
    CHECK_EQ(hw_heap_segments(w), 2);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    size_t len;
    const uint8_t *d = hw_sink_memory_data(sink, &len);
    static const uint32_t want[7][2] = {{HPROF_TAG_UTF8, 4 + 5}, {SEG, 10},
                                        {HPROF_TAG_UTF8, 4 + 6}, {HPROF_TAG_LOAD_CLASS, 16},
                                        {SEG, 5},                {HPROF_TAG_UTF8, 4 + 4},
                                        {END, 0}};
    expect_records(d, len, want, 7, &s);
    subs_free(&s);
    hw_sink_free(sink);
}

/* A flush inside a segmented dump must not write an empty or partial
 * segment (the segment stays whole). */
static void test_flush_inside_dump(void)
{
    hw_sink *sink;
    hw_writer *w = seg_writer(4, 64, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    subs s = {0};
    CHECK_EQ(hw_heap_begin(w), 0);
    CHECK_EQ(hw_writer_flush(w), 0);
    CHECK_EQ(put_root(w, &s, 4, 1), 0);
    CHECK_EQ(hw_writer_flush(w), 0);
    CHECK_EQ(put_root(w, &s, 4, 2), 0);
    CHECK_EQ(hw_heap_end(w), 0);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    size_t len;
    const uint8_t *d = hw_sink_memory_data(sink, &len);
    rec r[8];
    int n = walk(d, len, r, 8);
    CU_ASSERT_FATAL(n >= 2);
    /* whatever the flushes did: no empty segment, sub-records whole */
    uint32_t total = 0;
    for (int i = 0; i < n - 1; i++) {
        CHECK_EQ(r[i].tag, SEG);
        CU_ASSERT(r[i].len == 5 || r[i].len == 10);
        total += r[i].len;
    }
    CHECK_EQ(total, 10);
    CHECK_EQ(r[n - 1].tag, END);
    reader_agrees(d, len, 2);
    subs_free(&s);
    hw_sink_free(sink);
}

/* ------------------------------------------------------ too big: EFBIG */

typedef int (*big_fn)(hw_writer *w, const void *small);

static int big_prim_longs(hw_writer *w, const void *p)
{
    return hw_prim_array_dump(w, 0x99, 0, HPROF_TYPE_LONG, 0x40000000u, p);
}
static int big_prim_longs_edge(hw_writer *w, const void *p)
{
    /* 0x1FFFFFFF longs: 0xFFFFFFF8 bytes of data + 14 of header > u4 */
    return hw_prim_array_dump(w, 0x99, 0, HPROF_TYPE_LONG, 0x1FFFFFFFu, p);
}
static int big_prim_bytes_edge(hw_writer *w, const void *p)
{
    /* 0xFFFFFFFF bytes of data: the sub-record is 14 bytes more than a u4 */
    return hw_prim_array_dump(w, 0x99, 0, HPROF_TYPE_BYTE, 0xFFFFFFFFu, p);
}
static int big_obj_array(hw_writer *w, const void *p)
{
    return hw_obj_array_dump(w, 0x99, 0, 0x98, 0x40000000u, p);
}
static int big_instance(hw_writer *w, const void *p)
{
    return hw_instance_dump(w, 0x99, 0, 0x98, p, 0xFFFFFFF0u);
}
static int big_instance_begin(hw_writer *w, const void *p)
{
    return hw_instance_begin(w, 0x99, 0, 0x98, 0xFFFFFFFFu);
}
static int big_obj_array_begin(hw_writer *w, const void *p)
{
    return hw_obj_array_begin(w, 0x99, 0, 0x98, 0x40000000u);
}
static int big_utf8(hw_writer *w, const void *p)
{
    return hw_utf8(w, 0x99, p, 0xFFFFFFFFu);
}
static int big_trace(hw_writer *w, const void *p)
{
    return hw_trace(w, 1, 1, 0x40000000u, p);
}
static int big_sites(hw_writer *w, const void *p)
{
    hw_alloc_sites_head h;
    memset(&h, 0, sizeof h);
    return hw_alloc_sites(w, &h, p, 0x0A3D70A4u); /* 25 bytes each: > 4 GiB */
}
static int big_samples(hw_writer *w, const void *p)
{
    return hw_cpu_samples(w, 1, p, 0x20000000u);
}

static const struct {
    const char *name;
    big_fn fn;
    int in_dump;
} BIG[] = {
    {"prim array of 2^30 longs", big_prim_longs, 1},
    {"prim array of 0x1FFFFFFF longs", big_prim_longs_edge, 1},
    {"prim array of 0xFFFFFFFF bytes", big_prim_bytes_edge, 1},
    {"obj array of 2^30 ids (id 4)", big_obj_array, 1},
    {"instance of 0xFFFFFFF0 bytes", big_instance, 1},
    {"hw_instance_begin of 0xFFFFFFFF bytes", big_instance_begin, 1},
    {"hw_obj_array_begin of 2^30 ids", big_obj_array_begin, 1},
    {"UTF8 of 0xFFFFFFFF bytes", big_utf8, 0},
    {"TRACE of 2^30 frames", big_trace, 0},
    {"ALLOC SITES of 0x0A3D70A4 sites", big_sites, 0},
    {"CPU SAMPLES of 2^29 pairs", big_samples, 0},
};

static void test_efbig(void)
{
    /* elems point at a small buffer: the writer must refuse before reading */
    static uint64_t small[4] = {1, 2, 3, 4};
    for (unsigned k = 0; k < sizeof BIG / sizeof BIG[0]; k++) {
        hw_sink *sink;
        hw_writer *w = seg_writer(4, 64, &sink);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        subs s = {0};
        CHECK_EQ(hw_utf8z(w, 1, "ok"), 0);
        if (BIG[k].in_dump) {
            CHECK_EQ(hw_heap_begin(w), 0);
            CHECK_EQ(put_root(w, &s, 4, 1), 0);
        }
        uint64_t off = hw_writer_offset(w);
        int r = BIG[k].fn(w, small);
        if (r != EFBIG)
            fprintf(stderr, "\n  %s: returned %d, expected EFBIG\n", BIG[k].name, r);
        CHECK_EQ(r, EFBIG);
        CHECK_EQ(hw_writer_error(w), EFBIG);
        CHECK_EQ(hw_writer_offset(w), off); /* nothing written for it */
        CU_ASSERT(strlen(hw_writer_error_text(w)) > 0);
        CHECK_EQ(hw_root(w, HPROF_GC_ROOT_UNKNOWN, 2, 0, 0, 0), EFBIG);
        CHECK_EQ(hw_utf8z(w, 2, "later"), EFBIG);
        CHECK_EQ(hw_writer_offset(w), off);
        char msg[256] = "";
        CHECK_EQ(hw_writer_close(w, msg, sizeof msg), EFBIG);
        CU_ASSERT(strlen(msg) > 0);
        /* the output: at close, every record completed before the refused
         * one, the open segment cut to its true length, nothing of it */
        size_t len;
        const uint8_t *d = hw_sink_memory_data(sink, &len);
        rec rr[8];
        int n = walk(d, len, rr, 8);
        CHECK_EQ(n, BIG[k].in_dump ? 2 : 1);
        if (n >= 1) {
            CHECK_EQ(rr[0].tag, HPROF_TAG_UTF8);
            CHECK_EQ(rr[0].len, 4 + 2);
        }
        if (n == 2) {
            /* the segment with the one root before the refused sub-record */
            CHECK_EQ(rr[1].tag, SEG);
            CHECK_EQ(rr[1].len, 5);
        }
        reader_agrees(d, len, BIG[k].in_dump ? 1 : 0);
        subs_free(&s);
        hw_sink_free(sink);
    }
}

/* ------------------------------------------------- hw_writer_patch */

/* Two ROOT UNKNOWN sub-records (id size 4) as a raw segment body. */
static void patch_body(uint8_t b[10], uint8_t x, uint8_t y)
{
    static const uint8_t tmpl[10] = {HPROF_GC_ROOT_UNKNOWN, 0, 0, 0, 0, HPROF_GC_ROOT_UNKNOWN, 0, 0, 0, 0};
    memcpy(b, tmpl, 10);
    b[4] = x;
    b[9] = y;
}

/* A dump with the raw segment `body` between two roots and a record after
 * the dump; *at receives where the body starts. */
static void patch_dump(hw_writer *w, const uint8_t body[10], uint64_t *at)
{
    CHECK_EQ(hw_heap_begin(w), 0);
    CHECK_EQ(hw_root(w, HPROF_GC_ROOT_UNKNOWN, 0x11, 0, 0, 0), 0);
    CHECK_EQ(hw_heap_segment_raw(w, body, 10), 0);
    *at = hw_writer_offset(w) - 10;
    CHECK_EQ(hw_root(w, HPROF_GC_ROOT_UNKNOWN, 0x12, 0, 0, 0), 0);
    CHECK_EQ(hw_heap_end(w), 0);
    CHECK_EQ(hw_utf8z(w, 9, "after"), 0);
}

/* The bytes of a dump written with the final body from the start. */
static uint8_t *patch_expected(size_t *len)
{
    hw_sink *sink;
    hw_writer *w = seg_writer(4, 64, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    uint8_t fin[10];
    uint64_t at;
    patch_body(fin, 0x71, 0x72);
    patch_dump(w, fin, &at);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    uint8_t *d = tu_sink_copy(sink, len);
    hw_sink_free(sink);
    return d;
}

static void test_patch_memory(void)
{
    size_t elen;
    uint8_t *exp = patch_expected(&elen);
    hw_sink *sink;
    hw_writer *w = seg_writer(4, 64, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT(hw_writer_can_patch(w));
    uint8_t first[10], fin[10];
    uint64_t at;
    patch_body(first, 0x01, 0x02);
    patch_body(fin, 0x71, 0x72);
    patch_dump(w, first, &at);
    CHECK_EQ(hw_writer_patch(w, at, fin, 10), 0);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    size_t len;
    const uint8_t *d = hw_sink_memory_data(sink, &len);
    CHECK_EQ(len, elen);
    CU_ASSERT(len == elen && memcmp(d, exp, len) == 0);
    reader_agrees(d, len, 4);
    hw_sink_free(sink);
    free(exp);
}

/* A file written by the I/O thread, through an fd that starts 7 bytes in:
 * offsets count from the writer's first byte. */
static void test_patch_file(void)
{
    size_t elen;
    uint8_t *exp = patch_expected(&elen);
    char path[] = "/tmp/hprof-test-patch.XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    unlink(path);
    CHECK_EQ(write(fd, "PREFIX\n", 7), 7);
    hw_options o;
    hw_options_init(&o);
    o.id_size = 4;
    o.clock = HW_CLOCK_FIXED;
    o.segment_size = 64;
    o.io_thread = 1;
    hw_sink *sink = hw_sink_fd(fd, 0);
    hw_writer *w = sink ? hw_writer_open(sink, &o, NULL) : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT(hw_writer_can_patch(w));
    uint8_t first[10], fin[10];
    uint64_t at;
    patch_body(first, 0x01, 0x02);
    patch_body(fin, 0x71, 0x72);
    patch_dump(w, first, &at);
    CHECK_EQ(hw_writer_patch(w, at, fin, 10), 0);
    CHECK_EQ(hw_utf8z(w, 10, "later"), 0); /* writing goes on at the end */
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    off_t size = lseek(fd, 0, SEEK_END);
    uint8_t *d = malloc((size_t)size);
    CU_ASSERT_FATAL(d != NULL);
    CHECK_EQ(pread(fd, d, (size_t)size, 0), size);
    close(fd);
    CU_ASSERT(memcmp(d, "PREFIX\n", 7) == 0);
    /* the expected bytes, then the later UTF8 record (4 + 4 + 5 bytes) */
    CHECK_EQ((size_t)size, 7 + elen + 9 + 4 + 5);
    CU_ASSERT((size_t)size >= 7 + elen && memcmp(d + 7, exp, elen) == 0);
    free(d);
    free(exp);
}

static void test_patch_refused(void)
{
    uint8_t b[10];
    patch_body(b, 1, 2);
    /* a pipe cannot be overwritten: refused, and latched */
    int p[2];
    CU_ASSERT_FATAL(pipe(p) == 0);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    hw_options o;
    hw_options_init(&o);
    o.id_size = 4;
    hw_writer *w = hw_writer_open(hw_sink_fd(p[1], 1), &o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT(!hw_writer_can_patch(w));
    CHECK_EQ(hw_writer_patch(w, 0, b, 4), EINVAL);
    CHECK_EQ(hw_writer_error(w), EINVAL);
    hw_writer_close(w, NULL, 0);
    close(p[0]);
    /* a file opened for appending: pwrite would append */
    char path[] = "/tmp/hprof-test-patch.XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    unlink(path);
    fcntl(fd, F_SETFL, O_APPEND);
    w = hw_writer_open(hw_sink_fd(fd, 1), &o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT(!hw_writer_can_patch(w));
    hw_writer_close(w, NULL, 0);
    /* a range not written yet */
    hw_sink *sink;
    w = seg_writer(4, 64, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    uint64_t end = hw_writer_offset(w);
    CHECK_EQ(hw_writer_patch(w, end - 4, b, 5), EINVAL);
    CU_ASSERT(strstr(hw_writer_error_text(w), "not written") != NULL);
    hw_writer_close(w, NULL, 0);
    hw_sink_free(sink);
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("segments", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "a sub-record exactly filling a segment", test_exact_fill) ||
        !CU_add_test(s, "oversized sub-records get their own segment", test_oversized) ||
        !CU_add_test(s, "empty dump: only HEAP DUMP END", test_empty_dump) ||
        !CU_add_test(s, "close ends an open dump", test_close_ends_dump) ||
        !CU_add_test(s, "many random sub-records", test_many) ||
        !CU_add_test(s, "default segment size", test_many_default_size) ||
        !CU_add_test(s, "a plain record closes the segment", test_plain_record_closes_segment) ||
        !CU_add_test(s, "flush inside a dump", test_flush_inside_dump) ||
        !CU_add_test(s, "lengths over u4 refused with EFBIG", test_efbig) ||
        !CU_add_test(s, "patch: memory sink", test_patch_memory) ||
        !CU_add_test(s, "patch: file, I/O thread, fd not at 0", test_patch_file) ||
        !CU_add_test(s, "patch: pipes, O_APPEND, unwritten ranges refused", test_patch_refused))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
