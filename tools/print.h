/*
 * print.h: the `hprof` commands that turn a binary HPROF file back into the
 * original agent's text (tools/print.c):
 *
 *   hprof sites [--cutoff X] [--alloc] [--last] FILE   ALLOC SITES as SITES tables
 *   hprof print FILE                                  the whole file as java.hprof.txt
 *   hprof samples FILE                                CPU SAMPLES tables
 *   hprof collapsed [--sites] FILE                    collapsed stacks for flame graphs
 *
 * Each *_main takes argv with argv[0] = the command name and returns the
 * tool's exit status: 0 OK, 1 problems (unreadable or malformed input, or
 * nothing of the kind asked for), 2 usage error.
 *
 * print_heap_dumps renders the heap dumps of a binary source as text into
 * any FILE: the agent links this file and uses it for format=a heap dumps.
 * The pure helpers below are exported for tests/unit/test_print.c.
 */
#ifndef HPROF_TOOLS_PRINT_H
#define HPROF_TOOLS_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hprof/hr_reader.h"

int print_sites_main(int argc, char **argv);
int print_print_main(int argc, char **argv);
int print_samples_main(int argc, char **argv);
int print_collapsed_main(int argc, char **argv);

/* print_heap_dumps flags */
#define PRINT_HEAP_TRACES 1u /* every TRACE block not yet printed, before each dump */

/* Writes each heap dump of `src` to `out` in the original's text layout,
 * as `hprof print` does: HEAP DUMP BEGIN, the ROOT, CLS, OBJ and ARR lines,
 * HEAP DUMP END, and nothing else (no header, no THREAD, SITES or CPU
 * lines; TRACE blocks only with PRINT_HEAP_TRACES). The names come from the
 * source's UTF8 and LOAD CLASS records. Reads `src` twice (it must rewind:
 * a file or memory), streaming: memory grows with names and classes, never
 * with objects. A malformed or truncated source still gives well-formed
 * text: every dump begun is ended. Returns 0, or -1 with a message in `err`
 * (the input's first problem, out of memory, or a write error on `out`,
 * which is flushed, not closed). */
int print_heap_dumps(hr_source *src, FILE *out, unsigned flags, char *err, size_t errcap);
/* print_heap_dumps of a source known to hold less than the whole heap:
 * unless `cut` is NULL, each dump ends with a line "HEAP DUMP INCOMPLETE:
 * <cut>; this section holds only the N objects (B bytes) written before
 * that" before its HEAP DUMP END (the agent's format=a dump whose temporary
 * file failed: the text must not read as a complete, small heap). */
int print_heap_dumps_cut(hr_source *src, FILE *out, unsigned flags, const char *cut, char *err,
                         size_t errcap);

/* The Java-source spelling of a class name as found in LOAD CLASS:
 * "java/lang/String" -> "java.lang.String", "[I" -> "int[]",
 * "[[Ljava/lang/String;" -> "java.lang.String[][]", "Ljava/lang/Object;" ->
 * "java.lang.Object"; names already dotted ("int[]", "a.B$C") are kept.
 * `vm` is `len` bytes, not NUL-terminated. Writes at most cap - 1 bytes and a
 * NUL (when cap > 0) to `out`; returns the length of the whole result, as
 * snprintf does, so a result >= cap means it was cut. */
size_t print_java_name(const char *vm, size_t len, char *out, size_t cap);

/* The line field of a text TRACE frame: the number, or "Unknown line" (-1),
 * "Compiled method" (-2), "Native method" (-3). Returns `buf` or a literal. */
const char *print_line_text(int32_t line, char *buf, size_t cap);

/* What hprof's agent writes before a binary ALLOC SITES (hprof_format.h,
 * HPROF_SITES_*), gathered from the UTF8 records since the last one. */
typedef struct print_site_notes {
    char *note;            /* why live counts are not exact, or NULL */
    uint64_t sample_bytes; /* sample=BYTES of the figures, 0 = exact counts */
    uint64_t *samp;        /* per row of the record: allocation, live samples */
    uint32_t nsamp;        /* rows in samp */
    int has_u8;            /* live_total holds the true totals */
    uint64_t live_total[2]; /* live bytes, live instances */
    uint64_t *u8;          /* per saturated row: index, lb, li, ab, ai */
    uint32_t nu8;
} print_site_notes;

/* Keeps the text of one UTF8 record if it is such a note: returns 1 if it
 * was, 0 if not, -1 when out of memory. */
int print_notes_take(print_site_notes *n, const char *s, size_t len);
/* Row i's (live bytes, live objs, alloc bytes, alloc objs), read from the
 * record into v, with the true values where the notes hold them. Returns
 * 1 if corrected, | 2 if a value stays at the u4 maximum (saturated). */
int print_notes_row(const print_site_notes *n, uint32_t i, uint64_t v[4]);
void print_notes_clear(print_site_notes *n);

/* Grows the array whose pointer is at `pp` to hold `need` elements of
 * `elem` bytes. Returns 0, or -1 when out of memory (the array intact). */
int print_grow(void *pp, size_t *cap, size_t need, size_t elem);

/* Heap dump boundaries, decided the same way in both passes: a HEAP DUMP
 * record is one dump; HEAP DUMP SEGMENTs form one dump until HEAP DUMP END,
 * another dump, or the end of the file. */
enum { PRINT_EV_RECORD_END = 0x100, PRINT_EV_EOF = 0x101 };
enum { PRINT_DUMP_END = 1, PRINT_DUMP_BEGIN = 2 };
/* Feeds one record tag (or PRINT_EV_*) to the boundary tracker `state`
 * (0 at the start); returns PRINT_DUMP_END | PRINT_DUMP_BEGIN as crossed. */
int print_dump_event(int *state, int ev);

/* Exit statuses of the commands */
#define PRINT_EXIT_OK 0
#define PRINT_EXIT_PROBLEMS 1
#define PRINT_EXIT_USAGE 2

/* "hprof: <fmt with arg>" and a pointer to `hprof help` on stderr; returns
 * PRINT_EXIT_USAGE. */
int print_usage_error(const char *fmt, const char *arg);
/* Parses "[options] FILE" where every option is a flag or takes one value.
 * `flags` and `valued` are NULL-terminated; *set[i] becomes 1 for flags;
 * values land in *val[i]. Returns 0, or the usage exit status. */
int print_args(int argc, char **argv, const char *const *flags, int *const *set,
               const char *const *valued, const char **const *val, const char **path);

/* For readers that read their input twice (print's two passes, the
 * report): copies standard input to a temporary file under $TMPDIR (or
 * /tmp). Returns the malloc'ed path (unlink and free it), or NULL with
 * errno set; the caller reports it. */
char *print_spool_stdin(void);

#endif /* HPROF_TOOLS_PRINT_H */
