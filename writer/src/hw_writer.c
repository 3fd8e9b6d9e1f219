/*
 * hw_writer.c: the HPROF encoder: header, records, heap dump segmenting,
 * the sticky error, and the optional I/O thread.
 *
 * Owns the writer's output buffer(s). Invariants:
 *  - An open, patchable segment (seg_open) lives entirely in the active
 *    buffer from seg_start, so its length can be written when it closes
 *    without seeking the sink. Before opening one, the buffer is flushed if
 *    it could not hold a full segment; so segmented mode never has to flush
 *    while a segment is open. Single mode (one 0x0C) grows the buffer instead.
 *  - A sub-record bigger than segment_size is written under a segment header
 *    that already carries its exact length; its bytes may be flushed freely.
 *  - Every sub-record's size is computed before its first byte; a size that
 *    does not fit a u4 length is refused before anything is written.
 *  - After the first error every entry point returns it and writes nothing.
 */
#include "hprof/hw_writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw_sink.h"

#define HW_SEG_HDR HPROF_RECORD_HEADER_SIZE
#define HW_MIN_SEGMENT 64u

/* With io_thread, the writer cycles through HW_NBUF buffers: the caller
 * fills one while the I/O thread writes the filled ones, oldest first. More
 * than two buffers let the encoder and the writes overlap on a busy
 * machine, where either side stalls now and then. */
#define HW_NBUF 4

typedef struct hw_io {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned head;  /* index of the oldest queued buffer */
    unsigned count; /* queued buffers: head, head + 1, ... (mod HW_NBUF) */
    size_t qlen[HW_NBUF];
    int stop;
    int err;
} hw_io;

struct hw_writer {
    hw_sink *sink;
    hw_options opt;
    unsigned idsz;
    /* output buffers: bufs[active] is being filled (only bufs[0] without
     * the I/O thread); with it, active == (io->head + io->count) % HW_NBUF */
    uint8_t *bufs[HW_NBUF];
    size_t caps[HW_NBUF];
    unsigned active;
    uint8_t *buf;
    size_t cap, len;
    uint64_t flushed; /* bytes handed to the sink */
    /* sticky error; err_io: the sink failed, so nothing more can be written */
    int err;
    int err_io;
    char errmsg[256];
    /* start, in the active buffer, of the unit (record or sub-record) being
     * written: everything before it is complete. mark_ok is cleared when a
     * drain passes the mark (the unit then started in an earlier buffer). */
    size_t mark;
    int mark_ok;
    uint64_t unit_end; /* absolute offset where that unit ends */
    /* clock */
    struct timespec t0;
    /* heap dump state */
    int in_heap;
    int seg_open;      /* a patchable segment starts at seg_start */
    size_t seg_start;
    /* Fast path of the heap walk: a sub-record of n bytes may be appended at
     * buf + len with no other check while len + n <= seg_limit. Non-zero
     * only while a HEAP DUMP SEGMENT is open, no error is latched and ids
     * are 8 bytes (4-byte ids need a range check). */
    size_t seg_limit;
    uint64_t nsegments;
    uint64_t sub_left; /* bytes still owed by a streaming sub-record */
    int in_sub;
    hw_io *io;
};

/* ------------------------------------------------------------ error latch */

static int hw_fail(hw_writer *w, int e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int hw_fail(hw_writer *w, int e, const char *fmt, ...)
{
    if (w->err)
        return w->err;
    w->err = e ? e : EIO;
    w->seg_limit = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->errmsg, sizeof w->errmsg, fmt, ap);
    va_end(ap);
    return w->err;
}

static int hw_fail_io(hw_writer *w, int e)
{
    if (!w->err)
        w->err_io = 1;
    /* with the I/O thread, `flushed` counts bytes handed over, not written */
    if (w->io)
        return hw_fail(w, e, "write to %s failed: %s", hw_sink_describe(w->sink), strerror(e));
    return hw_fail(w, e, "write to %s failed after %llu bytes: %s", hw_sink_describe(w->sink),
                   (unsigned long long)w->flushed, strerror(e));
}

/* --------------------------------------------------------------- I/O path */

static void *hw_io_main(void *arg)
{
    hw_writer *w = arg;
    hw_io *io = w->io;
    pthread_mutex_lock(&io->mu);
    for (;;) {
        while (!io->count && !io->stop)
            pthread_cond_wait(&io->cv, &io->mu);
        if (!io->count && io->stop)
            break;
        /* the queued buffer is not touched by the caller until dequeued */
        const uint8_t *d = w->bufs[io->head];
        size_t n = io->qlen[io->head];
        int had_err = io->err;
        pthread_mutex_unlock(&io->mu);
        int e = had_err ? 0 : hw_sink_write(w->sink, d, n);
        pthread_mutex_lock(&io->mu);
        if (e && !io->err)
            io->err = e;
        io->head = (io->head + 1) % HW_NBUF;
        io->count--;
        pthread_cond_broadcast(&io->cv);
    }
    pthread_mutex_unlock(&io->mu);
    return NULL;
}

/* Waits for the I/O thread to finish its buffer; returns its error. */
static int hw_io_wait(hw_io *io)
{
    pthread_mutex_lock(&io->mu);
    while (io->count)
        pthread_cond_wait(&io->cv, &io->mu);
    int e = io->err;
    pthread_mutex_unlock(&io->mu);
    return e;
}

static int hw_io_start(hw_writer *w)
{
    hw_io *io = calloc(1, sizeof *io);
    if (!io)
        return ENOMEM;
    pthread_mutex_init(&io->mu, NULL);
    pthread_cond_init(&io->cv, NULL);
    w->io = io;
    int e = pthread_create(&io->thread, NULL, hw_io_main, w);
    if (e) {
        pthread_mutex_destroy(&io->mu);
        pthread_cond_destroy(&io->cv);
        free(io);
        w->io = NULL;
    }
    return e;
}

static void hw_io_stop(hw_writer *w)
{
    hw_io *io = w->io;
    if (!io)
        return;
    pthread_mutex_lock(&io->mu);
    io->stop = 1;
    pthread_cond_broadcast(&io->cv);
    pthread_mutex_unlock(&io->mu);
    pthread_join(io->thread, NULL);
    pthread_mutex_destroy(&io->mu);
    pthread_cond_destroy(&io->cv);
    free(io);
    w->io = NULL;
}

/* Hands the filled part of the active buffer to the sink (directly, or to
 * the I/O thread, swapping buffers). Never called with a segment open. */
static int hw_drain_raw(hw_writer *w);

static int hw_drain(hw_writer *w)
{
    if (w->err)
        return w->err;
    return hw_drain_raw(w);
}

/* hw_drain without the error gate, for the final flush of a clean prefix. */
static int hw_drain_raw(hw_writer *w)
{
    if (w->len == 0)
        return 0;
    w->mark_ok = 0;
    if (!w->io) {
        int e = hw_sink_write(w->sink, w->buf, w->len);
        if (e)
            return hw_fail_io(w, e);
        w->flushed += w->len;
        w->len = 0;
        return 0;
    }
    hw_io *io = w->io;
    unsigned next = (w->active + 1) % HW_NBUF;
    if (!w->bufs[next]) {
        w->bufs[next] = malloc(w->caps[w->active]);
        if (w->bufs[next])
            w->caps[next] = w->caps[w->active];
    }
    pthread_mutex_lock(&io->mu);
    /* the next buffer must not be queued: at most HW_NBUF - 1 in flight */
    while (io->count >= HW_NBUF - 1 || (!w->bufs[next] && io->count))
        pthread_cond_wait(&io->cv, &io->mu);
    int e = io->err;
    if (!e && !w->bufs[next]) {
        pthread_mutex_unlock(&io->mu);
        /* no memory for another buffer: write this one synchronously */
        e = hw_sink_write(w->sink, w->buf, w->len);
        if (e)
            return hw_fail_io(w, e);
        w->flushed += w->len;
        w->len = 0;
        return 0;
    }
    if (e) {
        pthread_mutex_unlock(&io->mu);
        return hw_fail_io(w, e);
    }
    io->qlen[w->active] = w->len;
    io->count++;
    pthread_cond_broadcast(&io->cv);
    pthread_mutex_unlock(&io->mu);
    w->flushed += w->len;
    w->active = next;
    w->buf = w->bufs[next];
    w->cap = w->caps[next];
    w->len = 0;
    return 0;
}

/* Grows the active buffer to hold `need` more bytes (single-mode dumps). */
static int hw_grow(hw_writer *w, size_t need)
{
    size_t ncap = w->cap;
    while (ncap - w->len < need) {
        if (ncap > SIZE_MAX / 2)
            return hw_fail(w, ENOMEM, "out of memory growing the heap dump buffer");
        ncap *= 2;
    }
    uint8_t *nb = realloc(w->buf, ncap);
    if (!nb)
        return hw_fail(w, ENOMEM, "out of memory growing the heap dump buffer to %zu bytes", ncap);
    w->buf = w->bufs[w->active] = nb;
    w->cap = w->caps[w->active] = ncap;
    return 0;
}

/* Makes room for `n` contiguous bytes (n <= cap unless a segment is open in
 * single mode). Returns a pointer or NULL with the error latched. */
static uint8_t *hw_room(hw_writer *w, size_t n)
{
    if (w->cap - w->len >= n)
        return w->buf + w->len;
    if (w->seg_open) {
        if (w->opt.heap_mode != HW_HEAP_SINGLE) {
            hw_fail(w, EINVAL, "internal error: segment overflow (%zu bytes needed)", n);
            return NULL;
        }
        if (hw_grow(w, n))
            return NULL;
        return w->buf + w->len;
    }
    if (hw_drain(w))
        return NULL;
    if (w->cap < n) {
        hw_fail(w, EINVAL, "internal error: %zu-byte put exceeds the buffer", n);
        return NULL;
    }
    return w->buf + w->len;
}

/* ------------------------------------------------------------- encoding */

static inline void hw_be2(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void hw_be4(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}
static inline void hw_be8(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}
/* Writes an id at p; returns the bytes written. The 4-byte range was checked
 * by the caller (hw_check_ids). */
static inline size_t hw_beid(const hw_writer *w, uint8_t *p, hprof_id v)
{
    if (w->idsz == 4) {
        hw_be4(p, (uint32_t)v);
        return 4;
    }
    hw_be8(p, v);
    return 8;
}

static int hw_check_id(hw_writer *w, hprof_id v)
{
    if (w->idsz == 4 && v > HPROF_U4_MAX)
        return hw_fail(w, EOVERFLOW, "id 0x%llx does not fit the file's 4-byte ids",
                       (unsigned long long)v);
    return 0;
}

static int hw_check_ids(hw_writer *w, const hprof_id *v, size_t n)
{
    if (w->idsz != 4)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > HPROF_U4_MAX)
            return hw_check_id(w, v[i]);
    return 0;
}

static uint32_t hw_now_us(const hw_writer *w)
{
    if (w->opt.clock == HW_CLOCK_FIXED)
        return 0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    int64_t us = (int64_t)(t.tv_sec - w->t0.tv_sec) * 1000000 + (t.tv_nsec - w->t0.tv_nsec) / 1000;
    return (uint32_t)(uint64_t)us; /* wraps after ~71 minutes, as the format says */
}

/* --------------------------------------------------------------- records */

static int hw_close_segment(hw_writer *w)
{
    if (!w->seg_open)
        return 0;
    size_t body = w->len - w->seg_start - HW_SEG_HDR;
    w->seg_open = 0;
    w->seg_limit = 0;
    if (body == 0) {
        w->len = w->seg_start; /* never emit an empty segment */
        return 0;
    }
    hw_be4(w->buf + w->seg_start + 5, (uint32_t)body);
    if (w->opt.heap_mode != HW_HEAP_SINGLE)
        w->nsegments++;
    return 0;
}

/* Common gate of plain records: no streaming sub-record half done, and in a
 * segmented dump close the open segment first. */
static int hw_plain_gate(hw_writer *w, const char *what)
{
    if (w->err)
        return w->err;
    if (w->in_sub)
        return hw_fail(w, EINVAL, "%s written inside an unfinished heap sub-record", what);
    if (w->in_heap) {
        if (w->opt.heap_mode == HW_HEAP_SINGLE)
            return hw_fail(w, EINVAL, "%s written inside a single-record (0x0C) heap dump", what);
        hw_close_segment(w);
    }
    return 0;
}

/* Starts a plain record of body length `blen`: gate, length check, header.
 * Returns a pointer to room for the header + min(blen, fixed) bytes. */
static uint8_t *hw_rec_begin(hw_writer *w, uint8_t tag, uint64_t blen, size_t fixed)
{
    const char *name = hprof_tag_name(tag);
    if (hw_plain_gate(w, name ? name : "record"))
        return NULL;
    if (blen > HPROF_U4_MAX) {
        hw_fail(w, EFBIG, "%s record of %llu bytes does not fit a u4 length", name ? name : "record",
                (unsigned long long)blen);
        return NULL;
    }
    uint8_t *p = hw_room(w, HPROF_RECORD_HEADER_SIZE + fixed);
    if (!p)
        return NULL;
    w->mark = w->len;
    w->mark_ok = 1;
    w->unit_end = w->flushed + w->len + HPROF_RECORD_HEADER_SIZE + blen;
    p[0] = tag;
    hw_be4(p + 1, hw_now_us(w));
    hw_be4(p + 5, (uint32_t)blen);
    return p + HPROF_RECORD_HEADER_SIZE;
}

/* Appends bytes of arbitrary length (flushing as needed). */
static int hw_put_bytes(hw_writer *w, const void *data, size_t n)
{
    const uint8_t *d = data;
    while (n > 0) {
        if (w->cap == w->len && !hw_room(w, 1))
            return w->err;
        size_t k = w->cap - w->len;
        if (k > n)
            k = n;
        memcpy(w->buf + w->len, d, k);
        w->len += k;
        d += k;
        n -= k;
    }
    return w->err;
}

int hw_utf8(hw_writer *w, hprof_id id, const char *s, size_t len)
{
    if (w->err)
        return w->err;
    if (hw_check_id(w, id))
        return w->err;
    uint64_t blen = (uint64_t)w->idsz + len;
    uint8_t *p = hw_rec_begin(w, HPROF_TAG_UTF8, blen, w->idsz);
    if (!p)
        return w->err;
    hw_beid(w, p, id);
    w->len += HPROF_RECORD_HEADER_SIZE + w->idsz;
    return hw_put_bytes(w, s, len);
}

int hw_utf8z(hw_writer *w, hprof_id id, const char *s)
{
    return hw_utf8(w, id, s, strlen(s));
}

int hw_load_class(hw_writer *w, uint32_t class_serial, hprof_id class_id, uint32_t trace_serial,
                  hprof_id name_id)
{
    hprof_id ids[2] = {class_id, name_id};
    if (w->err || hw_check_ids(w, ids, 2))
        return w->err;
    size_t blen = 8 + 2 * (size_t)w->idsz;
    uint8_t *p = hw_rec_begin(w, HPROF_TAG_LOAD_CLASS, blen, blen);
    if (!p)
        return w->err;
    hw_be4(p, class_serial);
    p += 4;
    p += hw_beid(w, p, class_id);
    hw_be4(p, trace_serial);
    p += 4;
    hw_beid(w, p, name_id);
    w->len += HPROF_RECORD_HEADER_SIZE + blen;
    return 0;
}

/* Records whose body is a list of u4 values. */
static int hw_u4_record(hw_writer *w, uint8_t tag, const uint32_t *v, size_t n)
{
    uint8_t *p = hw_rec_begin(w, tag, 4 * n, 4 * n);
    if (!p)
        return w->err;
    for (size_t i = 0; i < n; i++)
        hw_be4(p + 4 * i, v[i]);
    w->len += HPROF_RECORD_HEADER_SIZE + 4 * n;
    return 0;
}

int hw_unload_class(hw_writer *w, uint32_t class_serial)
{
    return hw_u4_record(w, HPROF_TAG_UNLOAD_CLASS, &class_serial, 1);
}

int hw_end_thread(hw_writer *w, uint32_t thread_serial)
{
    return hw_u4_record(w, HPROF_TAG_END_THREAD, &thread_serial, 1);
}

int hw_frame(hw_writer *w, hprof_id frame_id, hprof_id method_name_id, hprof_id method_sig_id,
             hprof_id source_file_id, uint32_t class_serial, int32_t line)
{
    hprof_id ids[4] = {frame_id, method_name_id, method_sig_id, source_file_id};
    if (w->err || hw_check_ids(w, ids, 4))
        return w->err;
    size_t blen = 4 * (size_t)w->idsz + 8;
    uint8_t *p = hw_rec_begin(w, HPROF_TAG_FRAME, blen, blen);
    if (!p)
        return w->err;
    for (int i = 0; i < 4; i++)
        p += hw_beid(w, p, ids[i]);
    hw_be4(p, class_serial);
    hw_be4(p + 4, (uint32_t)line);
    w->len += HPROF_RECORD_HEADER_SIZE + blen;
    return 0;
}

int hw_trace(hw_writer *w, uint32_t trace_serial, uint32_t thread_serial, uint32_t nframes,
             const hprof_id *frame_ids)
{
    uint64_t blen = 12 + (uint64_t)nframes * w->idsz;
    if (w->err)
        return w->err;
    /* the length first: the ids are only read once they are known to fit */
    if (blen > HPROF_U4_MAX)
        return hw_fail(w, EFBIG, "TRACE record of %llu bytes does not fit a u4 length",
                       (unsigned long long)blen);
    if (hw_check_ids(w, frame_ids, nframes))
        return w->err;
    uint8_t *p = hw_rec_begin(w, HPROF_TAG_TRACE, blen, 12);
    if (!p)
        return w->err;
    hw_be4(p, trace_serial);
    hw_be4(p + 4, thread_serial);
    hw_be4(p + 8, nframes);
    w->len += HPROF_RECORD_HEADER_SIZE + 12;
    for (uint32_t i = 0; i < nframes; i++) {
        uint8_t *q = hw_room(w, w->idsz);
        if (!q)
            return w->err;
        w->len += hw_beid(w, q, frame_ids[i]);
    }
    return 0;
}

#define HW_SITE_SIZE 25u       /* u1 + 6 x u4 */
#define HW_SITES_HEAD_SIZE 34u /* u2 + 3 x u4 + 2 x u8 + u4 */

int hw_alloc_sites(hw_writer *w, const hw_alloc_sites_head *h, const hw_alloc_site *sites,
                   uint32_t nsites)
{
    uint64_t blen = HW_SITES_HEAD_SIZE + (uint64_t)nsites * HW_SITE_SIZE;
    uint8_t *p = hw_rec_begin(w, HPROF_TAG_ALLOC_SITES, blen, HW_SITES_HEAD_SIZE);
    if (!p)
        return w->err;
    uint32_t cutoff_bits;
    memcpy(&cutoff_bits, &h->cutoff, 4);
    hw_be2(p, h->flags);
    hw_be4(p + 2, cutoff_bits);
    hw_be4(p + 6, h->total_live_bytes);
    hw_be4(p + 10, h->total_live_instances);
    hw_be8(p + 14, h->total_alloc_bytes);
    hw_be8(p + 22, h->total_alloc_instances);
    hw_be4(p + 30, nsites);
    w->len += HPROF_RECORD_HEADER_SIZE + HW_SITES_HEAD_SIZE;
    for (uint32_t i = 0; i < nsites; i++) {
        const hw_alloc_site *s = &sites[i];
        uint8_t *q = hw_room(w, HW_SITE_SIZE);
        if (!q)
            return w->err;
        q[0] = s->array_type;
        hw_be4(q + 1, s->class_serial);
        hw_be4(q + 5, s->trace_serial);
        hw_be4(q + 9, s->live_bytes);
        hw_be4(q + 13, s->live_instances);
        hw_be4(q + 17, s->alloc_bytes);
        hw_be4(q + 21, s->alloc_instances);
        w->len += HW_SITE_SIZE;
    }
    return 0;
}

int hw_heap_summary(hw_writer *w, uint32_t live_bytes, uint32_t live_instances,
                    uint64_t alloc_bytes, uint64_t alloc_instances)
{
    uint8_t *p = hw_rec_begin(w, HPROF_TAG_HEAP_SUMMARY, 24, 24);
    if (!p)
        return w->err;
    hw_be4(p, live_bytes);
    hw_be4(p + 4, live_instances);
    hw_be8(p + 8, alloc_bytes);
    hw_be8(p + 16, alloc_instances);
    w->len += HPROF_RECORD_HEADER_SIZE + 24;
    return 0;
}

int hw_start_thread(hw_writer *w, uint32_t thread_serial, hprof_id thread_id,
                    uint32_t trace_serial, hprof_id name_id, hprof_id group_name_id,
                    hprof_id parent_group_name_id)
{
    hprof_id ids[4] = {thread_id, name_id, group_name_id, parent_group_name_id};
    if (w->err || hw_check_ids(w, ids, 4))
        return w->err;
    size_t blen = 8 + 4 * (size_t)w->idsz;
    uint8_t *p = hw_rec_begin(w, HPROF_TAG_START_THREAD, blen, blen);
    if (!p)
        return w->err;
    hw_be4(p, thread_serial);
    p += 4;
    p += hw_beid(w, p, thread_id);
    hw_be4(p, trace_serial);
    p += 4;
    p += hw_beid(w, p, name_id);
    p += hw_beid(w, p, group_name_id);
    hw_beid(w, p, parent_group_name_id);
    w->len += HPROF_RECORD_HEADER_SIZE + blen;
    return 0;
}

int hw_cpu_samples(hw_writer *w, uint32_t total, const hw_cpu_sample *s, uint32_t n)
{
    uint64_t blen = 8 + (uint64_t)n * 8;
    uint8_t *p = hw_rec_begin(w, HPROF_TAG_CPU_SAMPLES, blen, 8);
    if (!p)
        return w->err;
    hw_be4(p, total);
    hw_be4(p + 4, n);
    w->len += HPROF_RECORD_HEADER_SIZE + 8;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *q = hw_room(w, 8);
        if (!q)
            return w->err;
        hw_be4(q, s[i].count);
        hw_be4(q + 4, s[i].trace_serial);
        w->len += 8;
    }
    return 0;
}

int hw_control_settings(hw_writer *w, uint32_t flags, uint16_t depth)
{
    uint8_t *p = hw_rec_begin(w, HPROF_TAG_CONTROL_SETTINGS, 6, 6);
    if (!p)
        return w->err;
    hw_be4(p, flags);
    hw_be2(p + 4, depth);
    w->len += HPROF_RECORD_HEADER_SIZE + 6;
    return 0;
}

int hw_raw_bytes(hw_writer *w, const void *data, size_t len)
{
    if (hw_plain_gate(w, "raw bytes"))
        return w->err;
    if (w->in_heap)
        return hw_fail(w, EINVAL, "raw bytes written inside a heap dump");
    w->mark = w->len;
    w->mark_ok = 1;
    w->unit_end = w->flushed + w->len + len;
    return hw_put_bytes(w, data, len);
}

int hw_raw_record(hw_writer *w, uint8_t tag, const void *body, uint32_t len)
{
    if (w->err)
        return w->err;
    if (tag == HPROF_TAG_HEAP_DUMP || tag == HPROF_TAG_HEAP_DUMP_SEGMENT ||
        tag == HPROF_TAG_HEAP_DUMP_END)
        return hw_fail(w, EINVAL, "raw record with heap dump tag 0x%02X refused: use hw_heap_*", tag);
    uint8_t *p = hw_rec_begin(w, tag, len, 0);
    if (!p)
        return w->err;
    w->len += HPROF_RECORD_HEADER_SIZE;
    return hw_put_bytes(w, body, len);
}

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

/* --------------------------------------------------------------- lifecycle */

void hw_options_init(hw_options *o)
{
    memset(o, 0, sizeof *o);
    o->id_size = 8;
    o->version = HPROF_VERSION_1_0_2;
    o->heap_mode = HW_HEAP_SEGMENTED;
    o->clock = HW_CLOCK_REAL;
    o->buffer_size = HW_DEFAULT_BUFFER_SIZE;
    o->segment_size = HW_DEFAULT_SEGMENT_SIZE;
}

static const char *hw_magic(hprof_version v)
{
    switch (v) {
    case HPROF_VERSION_1_0_1: return HPROF_MAGIC_1_0_1;
    case HPROF_VERSION_1_0_2: return HPROF_MAGIC_1_0_2;
    case HPROF_VERSION_1_0_3: return HPROF_MAGIC_1_0_3;
    }
    return NULL;
}

hw_writer *hw_writer_open(hw_sink *sink, const hw_options *o, int *err)
{
    hw_options def;
    if (!o) {
        hw_options_init(&def);
        o = &def;
    }
    int e = 0;
    hw_writer *w = NULL;
    if (!sink) {
        e = EINVAL;
        goto fail;
    }
    if ((o->id_size != 4 && o->id_size != 8) || !hw_magic(o->version) ||
        o->segment_size < HW_MIN_SEGMENT || o->segment_size > HPROF_U4_MAX - HW_SEG_HDR) {
        e = EINVAL;
        goto fail;
    }
    w = calloc(1, sizeof *w);
    if (!w) {
        e = ENOMEM;
        goto fail;
    }
    w->sink = sink;
    w->opt = *o;
    w->idsz = o->id_size;
    size_t cap = o->buffer_size ? o->buffer_size : HW_DEFAULT_BUFFER_SIZE;
    if (cap < (size_t)o->segment_size + HW_SEG_HDR + 256)
        cap = (size_t)o->segment_size + HW_SEG_HDR + 256;
    if (cap < 4096)
        cap = 4096;
    w->buf = w->bufs[0] = malloc(cap);
    if (!w->buf) {
        e = ENOMEM;
        goto fail;
    }
    w->cap = w->caps[0] = cap;
    if (o->io_thread && hw_io_start(w) != 0)
        w->io = NULL; /* fall back to synchronous writes */
    clock_gettime(CLOCK_MONOTONIC, &w->t0);
    uint64_t ts = o->timestamp_ms;
    if (o->clock == HW_CLOCK_REAL) {
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        ts = (uint64_t)rt.tv_sec * 1000u + (uint64_t)rt.tv_nsec / 1000000u;
    }
    if (o->raw) {
        w->unit_end = 0;
        return w; /* text output: no HPROF header */
    }
    /* header: magic + NUL, u4 id size, u4 high + u4 low timestamp */
    uint8_t *p = w->buf;
    memcpy(p, hw_magic(o->version), HPROF_MAGIC_LEN);
    p[HPROF_MAGIC_LEN] = 0;
    hw_be4(p + HPROF_MAGIC_LEN + 1, w->idsz);
    hw_be8(p + HPROF_MAGIC_LEN + 5, ts);
    w->len = HPROF_HEADER_SIZE;
    w->unit_end = HPROF_HEADER_SIZE; /* the header is a complete unit */
    return w;
fail:
    if (w) {
        free(w->bufs[0]);
        free(w);
    }
    if (sink && !hw_sink_is_memory(sink))
        hw_sink_free(sink);
    if (err)
        *err = e;
    return NULL;
}

int hw_writer_error(const hw_writer *w)
{
    return w->err;
}

const char *hw_writer_error_text(const hw_writer *w)
{
    return w->err ? w->errmsg : "";
}

uint64_t hw_writer_offset(const hw_writer *w)
{
    return w->flushed + w->len;
}

int hw_writer_can_patch(const hw_writer *w)
{
    return !w->err && hw_sink_can_patch(w->sink);
}

int hw_writer_patch(hw_writer *w, uint64_t offset, const void *data, size_t len)
{
    if (w->err)
        return w->err;
    if (!hw_sink_can_patch(w->sink))
        return hw_fail(w, EINVAL, "hw_writer_patch: the sink cannot be overwritten (a pipe or socket)");
    if (hw_writer_flush(w)) /* may drop an empty open segment: check after it */
        return w->err;
    if (offset > w->flushed || len > w->flushed - offset)
        return hw_fail(w, EINVAL, "hw_writer_patch: the range was not written yet");
    int e = hw_sink_patch(w->sink, offset, data, len);
    if (e) {
        w->err_io = 1;
        return hw_fail(w, e, "overwriting %zu bytes at offset %llu of %s failed: %s", len,
                       (unsigned long long)offset, hw_sink_describe(w->sink), strerror(e));
    }
    return 0;
}

unsigned hw_writer_id_size(const hw_writer *w)
{
    return w->idsz;
}

int hw_writer_flush(hw_writer *w)
{
    if (w->err)
        return w->err;
    if (w->in_sub)
        return hw_fail(w, EINVAL, "flush inside an unfinished heap sub-record");
    if (w->seg_open) {
        if (w->opt.heap_mode == HW_HEAP_SINGLE)
            return hw_fail(w, EINVAL, "flush inside a single-record heap dump");
        hw_close_segment(w);
    }
    if (hw_drain(w))
        return w->err;
    if (w->io) {
        int e = hw_io_wait(w->io);
        if (e)
            return hw_fail_io(w, e);
    }
    return 0;
}

int hw_writer_splice(hw_writer *w, const void *data, size_t len, unsigned flags, uint64_t plain_len)
{
    int e = hw_writer_flush(w); /* the I/O thread is idle after it */
    if (e)
        return e;
    int gz = (flags & HW_SPLICE_GZIP) != 0;
    if (!gz && plain_len != len)
        return hw_fail(w, EINVAL, "plain bytes spliced with plain_len %llu for %zu bytes",
                       (unsigned long long)plain_len, len);
    if ((flags & HW_SPLICE_HEAP_END) && (!w->in_heap || w->opt.heap_mode == HW_HEAP_SINGLE))
        return hw_fail(w, EINVAL, "a spliced HEAP DUMP END without an open segmented heap dump");
    e = len == 0 ? 0 : gz ? hw_sink_gzip_pass(w->sink, data, len, plain_len) : hw_sink_write(w->sink, data, len);
    if (e == EINVAL && gz)
        return hw_fail(w, EINVAL, "gzip members spliced into %s, which is no gzip sink at a block boundary",
                       hw_sink_describe(w->sink));
    if (e)
        return hw_fail_io(w, e);
    w->flushed += plain_len;
    if (flags & HW_SPLICE_HEAP_END)
        w->in_heap = 0;
    return 0;
}

/* After a refused record (a logical error, the sink still healthy), delivers
 * every unit completed before it: the open segment or single 0x0C record is
 * cut at the mark and given its true length. The file then ends cleanly
 * before the refused unit (without HEAP DUMP END if a dump was open). */
static void hw_flush_prefix(hw_writer *w)
{
    if (w->flushed + w->len != w->unit_end) { /* the error came mid-unit */
        if (!w->mark_ok)
            return; /* part of the unfinished unit already reached the sink */
        w->len = w->mark;
    }
    if (w->seg_open) {
        size_t body = w->len > w->seg_start + HW_SEG_HDR ? w->len - w->seg_start - HW_SEG_HDR : 0;
        if (body == 0 && w->opt.heap_mode != HW_HEAP_SINGLE)
            w->len = w->seg_start;
        else
            hw_be4(w->buf + w->seg_start + 5, (uint32_t)body);
        w->seg_open = 0;
        w->seg_limit = 0;
    }
    if (hw_drain_raw(w) == 0 && w->io)
        hw_io_wait(w->io);
}

int hw_writer_close(hw_writer *w, char *msg, size_t msglen)
{
    if (!w)
        return EINVAL;
    if (!w->err && w->in_heap)
        hw_heap_end(w);
    if (!w->err)
        hw_writer_flush(w);
    else if (!w->err_io)
        hw_flush_prefix(w);
    if (w->io) {
        int e = hw_io_wait(w->io);
        if (e && !w->err)
            hw_fail_io(w, e);
        hw_io_stop(w);
    }
    int ce = hw_sink_close(w->sink);
    if (ce && !w->err)
        hw_fail(w, ce, "closing %s failed: %s", hw_sink_describe(w->sink), strerror(ce));
    int rc = w->err;
    if (msg && msglen) {
        snprintf(msg, msglen, "%s", rc ? w->errmsg : "");
    }
    if (!hw_sink_is_memory(w->sink))
        hw_sink_free(w->sink);
    for (unsigned i = 0; i < HW_NBUF; i++)
        free(w->bufs[i]);
    free(w);
    return rc;
}
