/*
 * hw_sink.h: the writer's internal view of a sink (see hw_writer.h for the
 * public constructors). A sink only moves bytes; buffering is the writer's.
 */
#ifndef HPROF_HW_SINK_H
#define HPROF_HW_SINK_H

#include "hprof/hw_writer.h"

/* Delivers all `len` bytes; returns 0 or an errno value. */
int hw_sink_write(hw_sink *s, const void *data, size_t len);
/* Closes the sink's resource (fd) and returns 0 or an errno value. A memory
 * sink keeps its data. Idempotent. */
int hw_sink_close(hw_sink *s);
/* True when bytes already delivered can be overwritten: a regular file not
 * opened for appending, or memory. */
int hw_sink_can_patch(const hw_sink *s);
/* Overwrites `len` delivered bytes at `off` (counted from the sink's first
 * byte): 0, ESPIPE (not patchable), EINVAL (beyond what memory holds) or the
 * pwrite errno. */
int hw_sink_patch(hw_sink *s, uint64_t off, const void *data, size_t len);
/* True for the memory sink, which outlives its writer. */
int hw_sink_is_memory(const hw_sink *s);
/* Hands `len` bytes of complete gzip members, which inflate to `plain_len`
 * bytes (whole blocks: a multiple of HW_GZIP_BLOCK_SIZE), to a gzip sink's
 * inner sink as they are, when the sink holds no partial block: 0, EINVAL
 * (not a gzip sink, not at a block boundary, not whole blocks) or the inner
 * sink's errno (sticky, as any write's). */
int hw_sink_gzip_pass(hw_sink *s, const void *members, size_t len, uint64_t plain_len);
/* A short description for messages ("file /tmp/x.hprof", "fd 5"). */
const char *hw_sink_describe(const hw_sink *s);

#endif
