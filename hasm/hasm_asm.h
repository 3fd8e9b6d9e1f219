/*
 * hasm_asm.h: the text form of docs/hprof-text.md -> HPROF bytes.
 *
 * Lengths and counts are computed unless the text gives them (length=,
 * count=), so hand-written files stay short and wrong values can be kept
 * on purpose. A record's body is built in memory before it is written
 * (its length comes first), so memory grows with the largest record;
 * unless the output can seek back (hasm_asm_stream_seek, no gzip): then a
 * heap dump record is written as it grows and its length patched at the end.
 */
#ifndef HASM_ASM_H
#define HASM_ASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Receives the output bytes; returns 0, or -1 with errno set. */
typedef int (*hasm_write_fn)(void *ctx, const void *buf, size_t len);

/* Assembles the text read from `in` (named `name` in messages).
 * Returns 0; 1 if the text is wrong (err: "NAME:LINE: what"); -1 if writing
 * failed or memory ran out (err says which). A `gzip` directive makes the
 * output a gzip stream. */
int hasm_asm_stream(FILE *in, const char *name, hasm_write_fn w, void *ctx, char *err,
                    size_t errlen);

/* Moves the output to byte `offset` for the next write; UINT64_MAX: back
 * to its end. Returns 0, or -1 with errno set. */
typedef int (*hasm_seek_fn)(void *ctx, uint64_t offset);

/* The same, over an output that can seek. */
int hasm_asm_stream_seek(FILE *in, const char *name, hasm_write_fn w, hasm_seek_fn seek,
                         void *ctx, char *err, size_t errlen);

#endif /* HASM_ASM_H */
