/*
 * hw_writer.c: the HPROF encoder: header, records, the sticky error, the
 * buffers and the optional I/O thread. The heap dump's segments and
 * sub-records are hw_heap.c's; the state both share is hw_internal.h's.
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
#include "hw_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw_sink.h"

/* ------------------------------------------------------------ error latch */

int hw_fail(hw_writer *w, int e, const char *fmt, ...)
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

int hw_drain(hw_writer *w)
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
int hw_grow(hw_writer *w, size_t need)
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

/* hw_room's slow path (hw_internal.h): the active buffer is too full. */
uint8_t *hw_room_slow(hw_writer *w, size_t n)
{
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

int hw_check_id(hw_writer *w, hprof_id v)
{
    if (w->idsz == 4 && v > HPROF_U4_MAX)
        return hw_fail(w, EOVERFLOW, "id 0x%llx does not fit the file's 4-byte ids",
                       (unsigned long long)v);
    return 0;
}

uint32_t hw_now_us(const hw_writer *w)
{
    if (w->opt.clock == HW_CLOCK_FIXED)
        return 0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    int64_t us = (int64_t)(t.tv_sec - w->t0.tv_sec) * 1000000 + (t.tv_nsec - w->t0.tv_nsec) / 1000;
    return (uint32_t)(uint64_t)us; /* wraps after ~71 minutes, as the format says */
}

/* --------------------------------------------------------------- records */

int hw_close_segment(hw_writer *w)
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
uint8_t *hw_rec_begin(hw_writer *w, uint8_t tag, uint64_t blen, size_t fixed)
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
int hw_put_bytes(hw_writer *w, const void *data, size_t n)
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
