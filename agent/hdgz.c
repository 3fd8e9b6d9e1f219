/*
 * hdgz.c: the walk's temporary file in the output's gzip members (see
 * hdgz.h for the layout and the contract).
 *
 * The sink runs on the temporary writer's I/O thread: it drops the HPROF
 * header, gathers blocks, and compresses each full one as a member through
 * a raw writer on a gzip sink over the file (the library's compressor, so
 * the members are the ones the output's gzip sink would make). Where each
 * member ends in the file is noted (lseek) so that the splice hands over
 * whole members, a few at a time, and the process's memory does not hold
 * the mapped file.
 */
#include "hdgz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hprof/hprof_format.h"

#define HDGZ_SPLICE_MEMBERS 64u /* members per splice call (~64 MiB plain) */

struct hdgz {
    int fd;
    hw_writer *zw;     /* raw writer -> gzip sink -> fd */
    uint32_t skip;     /* header bytes still to drop */
    uint8_t *blk;      /* the block being gathered (at the end: the last one) */
    size_t blen;
    uint64_t *ends;    /* file offset where member i ends */
    size_t nmem, cap;
    int err;
};

static int hdgz_write(void *ctx, const void *data, size_t len)
{
    hdgz *g = ctx;
    const uint8_t *p = data;
    if (g->err)
        return g->err;
    size_t k = len < g->skip ? len : g->skip;
    p += k;
    len -= k;
    g->skip -= (uint32_t)k;
    while (len) {
        k = HW_GZIP_BLOCK_SIZE - g->blen;
        if (k > len)
            k = len;
        memcpy(g->blk + g->blen, p, k);
        g->blen += k;
        p += k;
        len -= k;
        if (g->blen < HW_GZIP_BLOCK_SIZE)
            break;
        if (g->nmem == g->cap) {
            size_t nc = g->cap ? 2 * g->cap : 256;
            uint64_t *ne = realloc(g->ends, nc * sizeof *ne);
            if (!ne)
                return g->err = ENOMEM;
            g->ends = ne;
            g->cap = nc;
        }
        /* the flush hands the whole block to the gzip sink: one member */
        int e = hw_raw_bytes(g->zw, g->blk, g->blen);
        if (!e)
            e = hw_writer_flush(g->zw);
        off_t at = e ? -1 : lseek(g->fd, 0, SEEK_CUR);
        if (at < 0)
            return g->err = e ? e : errno;
        g->ends[g->nmem++] = (uint64_t)at;
        g->blen = 0;
    }
    return 0;
}

static int hdgz_close(void *ctx)
{
    (void)ctx; /* the file is the caller's; the raw writer goes in hdgz_free */
    return 0;
}

hdgz *hdgz_open(int fd, hw_sink **sink)
{
    *sink = NULL;
    hdgz *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->fd = fd;
    g->skip = HPROF_HEADER_SIZE;
    g->blk = malloc(HW_GZIP_BLOCK_SIZE);
    hw_sink *fs = hw_sink_fd(fd, 0);
    hw_sink *gs = fs ? hw_sink_gzip(fs, HPROF_GZIP_LEVEL, NULL) : NULL;
    if (!gs)
        hw_sink_free(fs);
    hw_options o;
    hw_options_init(&o);
    o.raw = 1;
    g->zw = gs ? hw_writer_open(gs, &o, NULL) : NULL;
    *sink = g->zw && g->blk ? hw_sink_custom(hdgz_write, hdgz_close, g) : NULL;
    if (!*sink) {
        hdgz_free(g);
        return NULL;
    }
    return g;
}

int hdgz_align(hw_writer *w, uint64_t id, uint64_t then)
{
    uint64_t min = HPROF_RECORD_HEADER_SIZE + hw_writer_id_size(w);
    uint64_t end = hw_writer_offset(w) + min + then;
    uint64_t pad = (HW_GZIP_BLOCK_SIZE - end % HW_GZIP_BLOCK_SIZE) % HW_GZIP_BLOCK_SIZE;
    char *text = malloc(pad ? pad : 1);
    if (!text)
        return ENOMEM;
    memset(text, ' ', pad);
    int e = hw_utf8(w, id, text, pad);
    free(text);
    return e;
}

int hdgz_splice(hdgz *g, hw_writer *w)
{
    if (g->err)
        return g->err;
    if (hw_writer_offset(w) % HW_GZIP_BLOCK_SIZE)
        return EPROTO;
    uint8_t *map = NULL;
    size_t size = g->nmem ? (size_t)g->ends[g->nmem - 1] : 0;
    if (size) {
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, g->fd, 0);
        if (map == MAP_FAILED)
            return errno;
        madvise(map, size, MADV_SEQUENTIAL);
    }
    int e = 0;
    uint64_t from = 0;
    for (size_t i = 0; i < g->nmem && !e; i += HDGZ_SPLICE_MEMBERS) {
        size_t n = g->nmem - i < HDGZ_SPLICE_MEMBERS ? g->nmem - i : HDGZ_SPLICE_MEMBERS;
        uint64_t to = g->ends[i + n - 1];
        e = hw_writer_splice(w, map + from, (size_t)(to - from), HW_SPLICE_GZIP,
                             (uint64_t)n * HW_GZIP_BLOCK_SIZE);
        /* what is handed over leaves the process's memory (RSS) */
        uint64_t lo = from & ~(uint64_t)4095, hi = to & ~(uint64_t)4095;
        if (hi > lo)
            madvise(map + lo, (size_t)(hi - lo), MADV_DONTNEED);
        from = to;
    }
    if (map)
        munmap(map, size);
    if (!e)
        e = hw_writer_splice(w, g->blk, g->blen, HW_SPLICE_HEAP_END, g->blen);
    return e;
}

void hdgz_free(hdgz *g)
{
    if (!g)
        return;
    if (g->zw)
        hw_writer_close(g->zw, NULL, 0);
    free(g->blk);
    free(g->ends);
    free(g);
}
