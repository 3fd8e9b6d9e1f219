/*
 * hasm_disasm.h: HPROF bytes -> the text form of docs/hprof-text.md.
 *
 * Every byte of the input is accounted for: what parses is written as
 * records, sub-records and values; what does not (a cut record, an unknown
 * tag, a sub-record crossing its segment, trailing garbage) as `raw` hex.
 * hasm_asm turns the text back into the same bytes. Streaming: memory grows
 * with the file's metadata (strings, classes), not with its size.
 */
#ifndef HASM_DISASM_H
#define HASM_DISASM_H

#include <stddef.h>
#include <stdio.h>

/* Disassembles the file at `path` ("-" = standard input) to `out`. A file
 * that starts with a valid gzip header (not merely 1f 8b) is inflated and
 * the text starts with a `gzip` directive. Returns 0, or -1 with a message
 * (naming `path`) in err. A gzip stream cut short returns -1 after the
 * whole text of what it gave (and a comment saying so) is written. */
int hasm_disasm_path(const char *path, FILE *out, char *err, size_t errlen);

/* The same over bytes in memory (no gzip detection: the bytes are the file). */
int hasm_disasm_mem(const void *data, size_t len, FILE *out, char *err, size_t errlen);

#endif /* HASM_DISASM_H */
