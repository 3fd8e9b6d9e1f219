/*
 * out.h: the agent's output, in binary (format=b, through libhprofwriter)
 * or in the original's text layout (format=a). Every function takes
 * g_hp.out_lock itself; callers hold no lock of lower order (agent.h).
 *
 * The first write error is latched: it is reported once as "HPROF ERROR"
 * with the file name and errno text, later output is dropped, and the
 * profiled program goes on. What was written before stays a well-formed
 * prefix.
 */
#ifndef HPROF_OUT_H
#define HPROF_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "classes.h"
#include "sites.h"
#include "traces.h"

/* Opens the output named g_hp.outname and writes the header. Returns 0 or
 * -1 after printing an HPROF ERROR. */
int out_open(void);
/* Flushes and closes; reports a latched error once. */
void out_close(void);
int out_flush(void);

void out_thread_start(uint32_t serial, uint64_t obj, const char *name, const char *group,
                      const char *parent);
void out_thread_end(uint32_t serial);
void out_load_class(hp_class *c);   /* binary: UTF8 + LOAD CLASS, once */
void out_unload_class(hp_class *c); /* binary: UNLOAD CLASS, once */

typedef struct out_sites_opts {
    uint16_t flags;    /* HPROF_SITES_* */
    double cutoff;
    uint64_t sample_bytes; /* 0 = exact counts, else estimates */
    const char *live_note; /* why live counts are not exact; NULL when they are */
} out_sites_opts;


/* ALLOC SITES (binary) or SITES BEGIN ... END (text) from merged rows, with
 * the traces and classes they need written first. Sorts `rows`. */
void out_sites(hp_site_row *rows, uint32_t n, const uint64_t tot[4], const out_sites_opts *so);
struct hp_cpu_row;
/* CPU SAMPLES (binary: the total, then (count, trace) pairs by count; text:
 * CPU SAMPLES BEGIN ... END with the original's columns), traces first,
 * rows below `cutoff` of the total left out. */
void out_cpu_samples(const struct hp_cpu_row *rows, uint32_t n, uint64_t total, double cutoff);

struct hp_time_row;
/* cpu=times: CPU TIME (ms) BEGIN ... END, ordered by self time, with the
 * original's columns followed by each trace's self and total ms. */
void out_cpu_times(const struct hp_time_row *rows, uint32_t n, uint64_t total_ns, double cutoff);
/* cpu=old: "count callee caller time" lines, by calls. */
void out_cpu_old(struct hp_time_row *rows, uint32_t n);

struct hp_mon_row;
struct hp_mon_dump;
/* monitor=y (text only): MONITOR DUMP, MONITOR TIME, WAIT: and WAITED:. */
void out_monitor_dump(const struct hp_mon_dump *d);
void out_monitor_time(const struct hp_mon_row *rows, uint32_t n, uint64_t total_ns, double cutoff);
void out_monitor_wait(const char *sig, int64_t timeout_ms, uint32_t thread_serial);
void out_monitor_waited(const char *sig, int64_t waited_ms, uint32_t thread_serial);

/* Heap dumps (heapdump.c). out_dump_begin takes out_lock for the whole dump
 * and returns the output (NULL when there is none or it was closed): in
 * binary, the heap walk's callbacks, which run on the VM thread and may
 * take no lock, write through it while the dumping thread holds the lock;
 * in text, the finished dump is rendered into it. The other functions need
 * that lock held; out_dump_end reports a latched error and releases it.
 * Meanwhile a LOAD CLASS of a class the dumping thread registers waits
 * for out_dump_end (a top-level record inside a heap dump breaks VisualVM);
 * out_dump_load_class writes one now (before the dump's first segment). */
struct hw_writer;
struct hw_sink;
struct hp_out *out_dump_begin(void);
struct hw_writer *out_dump_writer(struct hp_out *o); /* the binary writer; NULL for text */
/* Binary: true when the output cannot be overwritten (a socket, a FIFO, a
 * character device such as /dev/null): every heap dump then goes down it,
 * as with net=, none into <output>.N files beside something that is not a
 * file (/dev/null.2). gzip=y into a regular file is a file (no overwrite,
 * but <output>.N beside it). Takes out_lock briefly: call it without. */
int out_dump_streamed(void);
/* gzip=y: `file` (a file sink) behind HotSpot's -gz layout at level
 * HPROF_GZIP_LEVEL; NULL when out of memory, `file` then freed. */
struct hw_sink *out_gzip_sink(struct hw_sink *file);
/* Whether the output is a binary file that holds heap dumps alone (only
 * HotSpot's records): hsdump.c puts HotSpot's first dump in its place. */
int out_dumps_only(void);
/* Closes the output for good (like out_close: later records are dropped),
 * so that another file can take its name. Returns 0, or -1 after an HPROF
 * ERROR. */
int out_yield(void);
void out_dump_utf8(struct hp_out *o, uint32_t id);
void out_dump_load_class(struct hp_out *o, hp_class *c);
/* For records a heap dump writes elsewhere than the output's writer (a
 * region it overwrites later): 1 when UTF8 `id` (the LOAD CLASS of c) is
 * not in the output yet, which is then marked as written; 0 otherwise. */
int out_dump_claim_utf8(struct hp_out *o, uint32_t id);
int out_dump_claim_load(struct hp_out *o, hp_class *c);
void out_dump_trace(struct hp_out *o, hp_trace *t); /* binary: TRACE; text: a TRACE block, once */
/* Text: a stream that appends to the text output, for the rendering of a
 * heap dump (print_heap_dumps); NULL for binary, after an error, or when
 * out of memory (reported). Close it with out_dump_text_close, which
 * returns the output's latched error (0 if none; already reported). */
FILE *out_dump_text(struct hp_out *o);
int out_dump_text_close(struct hp_out *o, FILE *f);
void out_dump_end(struct hp_out *o);

/* HEAP SUMMARY: the net= command asks for it. */
void out_heap_summary(const uint64_t tot[4]);
/* Every trace (and its frames) not written yet: the net= DUMP TRACES. */
void out_all_traces(void);
/* An in-band message to the net= front end, which starts with "HPROF ":
 * binary: a UTF8 record that nothing refers to; text: a line. */
void out_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
