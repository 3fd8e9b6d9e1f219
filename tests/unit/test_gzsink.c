/*
 * test_gzsink.c: the gzip sink (hw_sink_gzip) writes HotSpot's -gz layout.
 *
 * The output is taken apart here with zlib's inflate, member by member,
 * independently of the sink. Checked:
 *  - 2.5 MiB + 17 bytes in odd-sized writes: exactly 3 members, of 1 MiB,
 *    1 MiB and 524305 uncompressed bytes, each with FLG.FCOMMENT set, no
 *    FNAME, and the comment "HPROF BLOCKSIZE=1048576"; the concatenation
 *    is the input; hw_sink_gzip_members says 3;
 *  - exactly 2 MiB: 2 members, no empty third one;
 *  - nothing written: one member of 0 bytes (a valid gzip file);
 *  - through a writer (raw mode, the I/O thread): the same layout;
 *  - /dev/full: the write that completes the first block fails with
 *    ENOSPC, later writes return ENOSPC without reaching the device again,
 *    close returns ENOSPC; a writer over it latches ENOSPC with a message
 *    naming /dev/full;
 *  - a sink failing with EPIPE after its first member: never called again;
 *  - bad arguments: EINVAL;
 *  - hw_writer_splice: members made by another gzip sink, passed through at
 *    a block boundary, then plain bytes, then the writer's own: the members
 *    are those of the whole stream; refused (EINVAL, latched) off a block
 *    boundary, over a sink that is no gzip sink, with plain_len not len for
 *    plain bytes, and a HEAP DUMP END outside a heap dump.
 */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hw_sink.h"

#define MIB (1u << 20)

static uint8_t *gz_pattern(size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        /* compressible but not trivial: runs of a few values */
        p[i] = (uint8_t)((x >> 24) & 0x03);
    }
    return p;
}

/* Splits gzip bytes into members: their uncompressed sizes in sizes[],
 * the count returned (-1 on a malformed member). Each member's header
 * must carry exactly the FCOMMENT HW_GZIP_COMMENT. out gets the data. */
static int gz_members(const uint8_t *d, size_t n, size_t *sizes, int max, uint8_t *out,
                      size_t outcap)
{
    int count = 0;
    size_t pos = 0, opos = 0;
    while (pos < n) {
        if (count == max || n - pos < 10 || d[pos] != 0x1f || d[pos + 1] != 0x8b || d[pos + 2] != 8)
            return -1;
        uint8_t flg = d[pos + 3];
        if (flg != 0x10) /* FCOMMENT only */
            return -1;
        const char *comment = (const char *)d + pos + 10;
        if (strcmp(comment, HW_GZIP_COMMENT) != 0)
            return -1;
        z_stream z;
        memset(&z, 0, sizeof z);
        if (inflateInit2(&z, 15 + 16) != Z_OK)
            return -1;
        z.next_in = (Bytef *)(uintptr_t)(d + pos);
        z.avail_in = (uInt)(n - pos);
        z.next_out = out + opos;
        z.avail_out = (uInt)(outcap - opos);
        int r = inflate(&z, Z_FINISH);
        size_t used = (n - pos) - z.avail_in;
        size_t got = (outcap - opos) - z.avail_out;
        inflateEnd(&z);
        if (r != Z_STREAM_END)
            return -1;
        sizes[count++] = got;
        pos += used;
        opos += got;
    }
    return count;
}

/* Writes `n` pattern bytes through a gzip sink over memory, in writes of
 * 1, 7, 4093, 65536+3 ... bytes; returns the gzip bytes. */
static uint8_t *gz_through(const uint8_t *data, size_t n, size_t *outlen, uint64_t *members)
{
    hw_sink *mem = hw_sink_memory(0);
    int e = 0;
    hw_sink *gz = hw_sink_gzip(mem, 1, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
    static const size_t steps[] = {1, 7, 4093, 65539, 300001};
    size_t off = 0, k = 0;
    while (off < n) {
        size_t s = steps[k++ % 5];
        if (s > n - off)
            s = n - off;
        CU_ASSERT_EQUAL(hw_sink_write(gz, data + off, s), 0);
        off += s;
    }
    CU_ASSERT_EQUAL(hw_sink_close(gz), 0);
    *members = hw_sink_gzip_members(gz);
    hw_sink_free(gz); /* the memory sink stays */
    uint8_t *copy = tu_sink_copy(mem, outlen);
    hw_sink_free(mem);
    return copy;
}

static void test_layout(void)
{
    size_t n = 2 * MIB + MIB / 2 + 17;
    uint8_t *data = gz_pattern(n);
    size_t glen;
    uint64_t members;
    uint8_t *g = gz_through(data, n, &glen, &members);
    CU_ASSERT_EQUAL(members, 3);
    size_t sizes[8];
    uint8_t *out = malloc(n + 1);
    int m = gz_members(g, glen, sizes, 8, out, n + 1);
    CU_ASSERT_EQUAL(m, 3);
    if (m == 3) {
        CU_ASSERT_EQUAL(sizes[0], MIB);
        CU_ASSERT_EQUAL(sizes[1], MIB);
        CU_ASSERT_EQUAL(sizes[2], 524305);
        CU_ASSERT(memcmp(out, data, n) == 0);
    }
    CU_ASSERT(glen < n / 2); /* it did compress */
    free(out);
    free(g);
    free(data);
}

static void test_exact_blocks(void)
{
    size_t n = 2 * MIB;
    uint8_t *data = gz_pattern(n);
    size_t glen;
    uint64_t members;
    uint8_t *g = gz_through(data, n, &glen, &members);
    CU_ASSERT_EQUAL(members, 2);
    size_t sizes[8];
    uint8_t *out = malloc(n + 1);
    CU_ASSERT_EQUAL(gz_members(g, glen, sizes, 8, out, n + 1), 2);
    CU_ASSERT_EQUAL(sizes[0], MIB);
    CU_ASSERT_EQUAL(sizes[1], MIB);
    free(out);
    free(g);
    free(data);
}

static void test_empty(void)
{
    size_t glen;
    uint64_t members;
    uint8_t *g = gz_through(NULL, 0, &glen, &members);
    CU_ASSERT_EQUAL(members, 1);
    size_t sizes[2];
    uint8_t out[1];
    CU_ASSERT_EQUAL(gz_members(g, glen, sizes, 2, out, 1), 1);
    CU_ASSERT_EQUAL(sizes[0], 0);
    free(g);
}

static void test_through_writer(void)
{
    size_t n = MIB + 5;
    uint8_t *data = gz_pattern(n);
    hw_sink *mem = hw_sink_memory(0);
    int e = 0;
    hw_sink *gz = hw_sink_gzip(mem, 6, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
    hw_options o;
    hw_options_init(&o);
    o.raw = 1;
    o.io_thread = 1;
    hw_writer *w = hw_writer_open(gz, &o, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(hw_raw_bytes(w, data, 1000), 0);
    CU_ASSERT_EQUAL(hw_raw_bytes(w, data + 1000, n - 1000), 0);
    CU_ASSERT_EQUAL(hw_writer_close(w, NULL, 0), 0);
    size_t glen;
    uint8_t *g = tu_sink_copy(mem, &glen);
    hw_sink_free(mem);
    size_t sizes[4];
    uint8_t *out = malloc(n);
    CU_ASSERT_EQUAL(gz_members(g, glen, sizes, 4, out, n), 2);
    CU_ASSERT_EQUAL(sizes[0], MIB);
    CU_ASSERT_EQUAL(sizes[1], 5);
    CU_ASSERT(memcmp(out, data, n) == 0);
    free(out);
    free(g);
    free(data);
}

static void test_dev_full(void)
{
    int e = 0;
    hw_sink *f = hw_sink_file("/dev/full", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    hw_sink *gz = hw_sink_gzip(f, 1, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
    uint8_t *data = gz_pattern(MIB);
    CU_ASSERT_EQUAL(hw_sink_write(gz, data, MIB - 1), 0); /* buffered: no member yet */
    CU_ASSERT_EQUAL(hw_sink_write(gz, data, 1), ENOSPC);  /* the block is complete */
    CU_ASSERT_EQUAL(hw_sink_gzip_members(gz), 1);
    CU_ASSERT_EQUAL(hw_sink_write(gz, data, 10), ENOSPC); /* sticky */
    CU_ASSERT_EQUAL(hw_sink_close(gz), ENOSPC);
    hw_sink_free(gz);

    /* a writer over it: the error latched, with the path */
    f = hw_sink_file("/dev/full", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    gz = hw_sink_gzip(f, 1, &e);
    hw_options o;
    hw_options_init(&o);
    o.raw = 1;
    hw_writer *w = hw_writer_open(gz, &o, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (int i = 0; i < 3; i++)
        hw_raw_bytes(w, data, MIB);
    CU_ASSERT_EQUAL(hw_writer_error(w), ENOSPC);
    char msg[256];
    CU_ASSERT_EQUAL(hw_writer_close(w, msg, sizeof msg), ENOSPC);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "/dev/full"));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "No space left on device"));
    free(data);
}

typedef struct failing {
    int calls;
    size_t bytes;
} failing;

static int failing_write(void *ctx, const void *data, size_t len)
{
    failing *f = ctx;
    (void)data;
    f->calls++;
    if (f->calls > 1)
        return EPIPE;
    f->bytes += len;
    return 0;
}

static void test_sticky(void)
{
    failing f = {0, 0};
    hw_sink *c = hw_sink_custom(failing_write, NULL, &f);
    int e = 0;
    hw_sink *gz = hw_sink_gzip(c, 1, &e);
    uint8_t *data = gz_pattern(MIB);
    CU_ASSERT_EQUAL(hw_sink_write(gz, data, MIB), 0);     /* member 1 delivered */
    CU_ASSERT_EQUAL(hw_sink_write(gz, data, MIB), EPIPE); /* member 2 refused */
    CU_ASSERT_EQUAL(hw_sink_write(gz, data, MIB), EPIPE);
    CU_ASSERT_EQUAL(hw_sink_close(gz), EPIPE);
    CU_ASSERT_EQUAL(f.calls, 2); /* never asked again after the failure */
    CU_ASSERT(f.bytes > 30 && f.bytes < MIB);
    hw_sink_free(gz);
    free(data);
}

/* A raw writer with the I/O thread on a gzip sink over `mem` (or on `mem`
 * itself with gz 0). */
static hw_writer *splice_writer(hw_sink *mem, int gz)
{
    int e = 0;
    hw_sink *s = gz ? hw_sink_gzip(mem, 1, &e) : mem;
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hw_options o;
    hw_options_init(&o);
    o.raw = 1;
    o.io_thread = 1;
    hw_writer *w = hw_writer_open(s, &o, &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    return w;
}

static void test_splice(void)
{
    size_t n = 3 * MIB + 15;
    uint8_t *data = gz_pattern(n);
    size_t mlen;
    uint64_t nm;
    uint8_t *members = gz_through(data + MIB, 2 * MIB, &mlen, &nm);
    CU_ASSERT_EQUAL_FATAL(nm, 2);
    hw_sink *mem = hw_sink_memory(0);
    hw_writer *w = splice_writer(mem, 1);
    CU_ASSERT_EQUAL(hw_raw_bytes(w, data, MIB), 0);
    CU_ASSERT_EQUAL(hw_writer_splice(w, members, mlen, HW_SPLICE_GZIP, 2 * MIB), 0);
    CU_ASSERT_EQUAL(hw_writer_splice(w, data + 3 * MIB, 5, 0, 5), 0);
    CU_ASSERT_EQUAL(hw_writer_offset(w), 3 * MIB + 5);
    CU_ASSERT_EQUAL(hw_raw_bytes(w, data + 3 * MIB + 5, 10), 0);
    CU_ASSERT_EQUAL(hw_writer_close(w, NULL, 0), 0);
    size_t glen;
    uint8_t *g = tu_sink_copy(mem, &glen);
    hw_sink_free(mem);
    size_t sizes[8];
    uint8_t *out = malloc(n);
    CU_ASSERT_EQUAL(gz_members(g, glen, sizes, 8, out, n), 4);
    CU_ASSERT_EQUAL(sizes[0], MIB);
    CU_ASSERT_EQUAL(sizes[1], MIB);
    CU_ASSERT_EQUAL(sizes[2], MIB);
    CU_ASSERT_EQUAL(sizes[3], 15);
    CU_ASSERT(memcmp(out, data, n) == 0);
    free(out);
    free(g);

    /* refusals, each latched */
    char msg[256];
    mem = hw_sink_memory(0);
    w = splice_writer(mem, 1);
    CU_ASSERT_EQUAL(hw_raw_bytes(w, data, 3), 0);
    CU_ASSERT_EQUAL(hw_writer_splice(w, members, mlen, HW_SPLICE_GZIP, 2 * MIB), EINVAL);
    CU_ASSERT_EQUAL(hw_raw_bytes(w, data, 3), EINVAL);
    CU_ASSERT_EQUAL(hw_writer_close(w, msg, sizeof msg), EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "block boundary"));
    hw_sink_free(mem);
    mem = hw_sink_memory(0);
    w = splice_writer(mem, 0);
    CU_ASSERT_EQUAL(hw_writer_splice(w, members, mlen, HW_SPLICE_GZIP, 2 * MIB), EINVAL);
    hw_writer_close(w, NULL, 0);
    hw_sink_free(mem);
    mem = hw_sink_memory(0);
    w = splice_writer(mem, 1);
    CU_ASSERT_EQUAL(hw_writer_splice(w, data, 5, 0, 6), EINVAL);
    hw_writer_close(w, NULL, 0);
    hw_sink_free(mem);
    mem = hw_sink_memory(0);
    w = splice_writer(mem, 1);
    CU_ASSERT_EQUAL(hw_writer_splice(w, data, 5, HW_SPLICE_HEAP_END, 5), EINVAL);
    hw_writer_close(w, NULL, 0);
    hw_sink_free(mem);
    free(members);
    free(data);
}

static void test_bad_args(void)
{
    int e = 0;
    CU_ASSERT_PTR_NULL(hw_sink_gzip(NULL, 1, &e));
    CU_ASSERT_EQUAL(e, EINVAL);
    hw_sink *mem = hw_sink_memory(0);
    e = 0;
    CU_ASSERT_PTR_NULL(hw_sink_gzip(mem, 10, &e));
    CU_ASSERT_EQUAL(e, EINVAL);
    CU_ASSERT_EQUAL(hw_sink_gzip_members(mem), 0);
    hw_sink_free(mem);
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("gzip sink", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "2.5 MiB: 3 members with FCOMMENT", test_layout) ||
        !CU_add_test(s, "exactly 2 MiB: 2 members", test_exact_blocks) ||
        !CU_add_test(s, "empty: one empty member", test_empty) ||
        !CU_add_test(s, "through a writer with the I/O thread", test_through_writer) ||
        !CU_add_test(s, "/dev/full: ENOSPC, sticky", test_dev_full) ||
        !CU_add_test(s, "a failing sink is not called again", test_sticky) ||
        !CU_add_test(s, "bad arguments", test_bad_args) ||
        !CU_add_test(s, "hw_writer_splice", test_splice))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
