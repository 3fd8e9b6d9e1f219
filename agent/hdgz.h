/*
 * hdgz.h: heap=all with gzip=y: the walk's temporary file compressed while
 * the walk runs, spliced into the output without inflating it.
 *
 * A gzip output (hw_sink_gzip: HotSpot's -gz layout, a member per MiB)
 * cannot be overwritten, so the walk's objects go to a temporary file and
 * follow the CLASS DUMPs once the walk has found their statics (heapdump.c).
 * Compressing all of it after the walk would add the whole compression to
 * the dump's time; here the temporary writer's I/O thread compresses it
 * during the walk instead, into members that are the output's own:
 *  - the temporary stream, less its HPROF file header, is cut into blocks
 *    of HW_GZIP_BLOCK_SIZE, each compressed as one member of the layout into
 *    the temporary file; the last, partial block stays in memory, plain;
 *  - the output places the stream at a block boundary of its own plain
 *    bytes (hdgz_align: an unused UTF8 record before the heap dump pads to
 *    it), so those members are exactly the ones its gzip sink would make:
 *    hdgz_splice passes them through (hw_writer_splice), then the last
 *    block, plain, which ends with the temporary writer's HEAP DUMP END.
 * The file is then byte for byte what compressing the plain dump in
 * HotSpot's layout gives. Memory: two blocks.
 *
 * Contract: hdgz_open before the temporary writer opens on hdgz_sink; the
 * sink is called on that writer's I/O thread only; hdgz_splice after that
 * writer is closed without error; hdgz_free always.
 */
#ifndef HPROF_AGENT_HDGZ_H
#define HPROF_AGENT_HDGZ_H

#include <stdint.h>

#include "hprof/hw_writer.h"

typedef struct hdgz hdgz;

/* A compressor into the temporary file `fd` (not closed by it), and its
 * sink (owned by the writer opened on it); NULL when out of memory. */
hdgz *hdgz_open(int fd, hw_sink **sink);
/* Writes into `w` (a writer on a gzip sink, before its heap dump begins) an
 * unused UTF8 record of id `id` that brings its offset to
 * hdgz_align's block boundary once `then` more bytes are written after it.
 * Returns 0 or the writer's error. */
int hdgz_align(hw_writer *w, uint64_t id, uint64_t then);
/* The members, then the last block, into `w`, whose heap dump they end.
 * Returns 0 or an errno value (EPROTO: `w` is not at a block boundary). */
int hdgz_splice(hdgz *g, hw_writer *w);
void hdgz_free(hdgz *g);

#endif
