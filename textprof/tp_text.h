/* tp_text.h: the agent's text layout (java.hprof.txt, format=a), ours and
 * the original JDK 5-8 agent's, read back as binary HPROF records in memory,
 * so that every view that reads binary (sites, samples, collapsed, print)
 * reads text too. Owns the detection of the text layout and its translation.
 *
 * What is carried: THREAD START/END, TRACE blocks (frames class, method,
 * source, line), SITES (one ALLOC SITES record per section), CPU SAMPLES,
 * HEAP SUMMARY. What has no binary record and is only counted (tp_info):
 * CPU TIME, MONITOR DUMP/TIME, WAIT/WAITED lines, HEAP DUMP sections (their
 * text does not carry field values): tp_extras.h reads those for `hprof
 * report`. Method signatures are not in the text: frames get an empty one. */
#ifndef TP_TEXT_H
#define TP_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* What a translation found (counts of sections), for the callers' messages. */
typedef struct tp_info {
    uint32_t threads, traces, sites, samples, summaries;
    uint32_t heap_dumps, cpu_times, monitor_dumps, monitor_times;
} tp_info;

/* What the text holds, as a phrase for messages: "3 SITES, 1 CPU SAMPLES
 * and 12 TRACE" (only the sections present; "no section" when none). */
void tp_describe(const tp_info *info, char *buf, size_t cap);

/* 1 when the first bytes are the text layout's first line
 * ("JAVA PROFILE 1.0.x, created ..."), 0 otherwise (binary has a NUL after
 * the version string). */
int tp_is_text(const void *head, size_t len);

/* Translates `len` bytes of text into a binary HPROF file in memory
 * (*out, malloc'd, the caller frees). Returns 0, or -1 with a sentence in
 * `err` ("line 12: a SITES row needs 9 columns"); a file cut inside a section
 * is an error, nothing past `len` is read. */
int tp_translate(const char *text, size_t len, uint8_t **out, size_t *outlen, tp_info *info,
                 char *err, size_t errcap);

/* Opens `path`: returns 0 when it is not text (nothing allocated), 1 when it
 * is text and was translated (*out as tp_translate), -1 with `err` set
 * (cannot read it: with strerror; or a translation error). */
int tp_load_file(const char *path, uint8_t **out, size_t *outlen, tp_info *info, char *err,
                 size_t errcap);

/* Grows array *p of *cap elements of `elem` bytes to hold at least `need`
 * (doubling); 0, or -1 when out of memory (*p and *cap then unchanged).
 * The textprof modules' one growth helper. */
int tp_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
