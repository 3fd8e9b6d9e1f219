/*
 * hw_internal.h: the writer's state and the helpers its two halves share
 * (hw_writer.c: records, buffers, I/O thread, lifecycle; hw_heap.c: heap
 * dump segments and sub-records). Private to libhprofwriter: nothing here
 * is exported (the library is built with hidden visibility).
 *
 * Contract of every helper: after the first error (hw_fail) the writer
 * is latched; helpers return the error or NULL and write nothing.
 */
#ifndef HW_INTERNAL_H
#define HW_INTERNAL_H

#include "hprof/hw_writer.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

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

/* ----------------------------------------------------- shared helpers */

/* Latches the first error (e, or EIO if 0) with its message; returns it. */
int hw_fail(hw_writer *w, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Hands the filled part of the active buffer to the sink. Never called
 * with a segment open. */
int hw_drain(hw_writer *w);

/* Grows the active buffer to hold `need` more bytes (single-mode dumps). */
int hw_grow(hw_writer *w, size_t need);

uint8_t *hw_room_slow(hw_writer *w, size_t n);

/* Makes room for `n` contiguous bytes (n <= cap unless a segment is open in
 * single mode). Returns a pointer or NULL with the error latched. */
static inline uint8_t *hw_room(hw_writer *w, size_t n)
{
    if (w->cap - w->len >= n)
        return w->buf + w->len;
    return hw_room_slow(w, n);
}

/* An id that does not fit the file's 4-byte ids is an error. */
int hw_check_id(hw_writer *w, hprof_id v);

static inline int hw_check_ids(hw_writer *w, const hprof_id *v, size_t n)
{
    if (w->idsz != 4)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > HPROF_U4_MAX)
            return hw_check_id(w, v[i]);
    return 0;
}

/* A record's time stamp: microseconds since the header (0 with a fixed clock). */
uint32_t hw_now_us(const hw_writer *w);

/* Patches the open segment's length (an empty one is dropped). */
int hw_close_segment(hw_writer *w);

/* Starts a plain record of body length `blen`: gate, length check, header.
 * Returns a pointer to room for the header + min(blen, fixed) bytes. */
uint8_t *hw_rec_begin(hw_writer *w, uint8_t tag, uint64_t blen, size_t fixed);

/* Appends bytes of arbitrary length (flushing as needed). */
int hw_put_bytes(hw_writer *w, const void *data, size_t n);

#endif
