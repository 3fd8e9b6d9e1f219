/*
 * cv_in.h: libhprofconvert's input: a window over a file, standard input
 * or memory, plain or gzip (multi-member too), that can go back to an
 * earlier offset (the 1.0.1 output's second pass).
 *
 * Contract: cv_in_fill makes up to CV_WINDOW bytes available at
 * buf + pos; offsets are of the uncompressed stream. Errors are values:
 * -1, with `err` and `errmsg` set for a read error (a truncated or corrupt
 * gzip stream included), `eof` for the end of the input. Internal to the
 * library (no symbols exported).
 */
#ifndef HPROF_CV_IN_H
#define HPROF_CV_IN_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define CV_WINDOW (4u << 20) /* most bytes taken from the input at once */

typedef struct cv_in {
    gzFile gz;              /* a file or fd (zlib reads plain and gzip alike) */
    const uint8_t *mem;     /* memory input */
    size_t mem_len, mem_pos;
    int mem_gz;             /* memory input is gzip: inflated here */
    z_stream z;
    int z_live;
    uint8_t *buf;
    size_t pos, len;
    uint64_t base;          /* input offset of buf[0] */
    int eof;
    int err;                /* a read error (not truncation) */
    char errmsg[160];
} cv_in;

/* Opens memory (not copied) or a path ("-": standard input). 0, or -1
 * (errno set) when the file cannot be opened or memory runs out. */
int cv_in_open_mem(cv_in *in, const void *p, size_t n);
int cv_in_open_file(cv_in *in, const char *path);
void cv_in_close(cv_in *in);
/* Makes n (<= CV_WINDOW) bytes available at buf + pos: 0, or -1 when the
 * input ends first (eof) or fails (err). */
int cv_in_fill(cv_in *in, size_t n);
/* The offset of buf[pos]. */
uint64_t cv_in_off(const cv_in *in);
/* Goes to offset `off` (back or forward): 0, or -1 when the source cannot
 * seek (a pipe). */
int cv_in_seek(cv_in *in, uint64_t off);

#endif
