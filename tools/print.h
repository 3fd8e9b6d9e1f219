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
 * The pure helpers below are exported for tests/unit/test_print.c.
 */
#ifndef HPROF_TOOLS_PRINT_H
#define HPROF_TOOLS_PRINT_H

#include <stddef.h>
#include <stdint.h>

int print_sites_main(int argc, char **argv);
int print_print_main(int argc, char **argv);
int print_samples_main(int argc, char **argv);
int print_collapsed_main(int argc, char **argv);

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

#endif /* HPROF_TOOLS_PRINT_H */
