/* tp_extras.h: what the agent's text layout (java.hprof.txt) holds that no
 * binary record carries, read for `hprof report`: the CPU TIME sections
 * (cpu=times; ours with "[self ms / total ms]", the JDK 5-8 agent's without),
 * MONITOR TIME, MONITOR DUMP, the WAIT:/WAITED: lines, the HEAP DUMP
 * sections' classes and roots (a histogram, from the OBJ/ARR sizes), and the SITES
 * headers' sampling notes (sample=: "estimated from samples every N bytes",
 * and each row's "[N samples, M live]"). tp_text.h translates the rest.
 *
 * The parse is lenient where tp_translate is strict: a row of these sections
 * that does not read as the layout says is counted (tp_extras_skipped) and
 * left out, so an old or hand-edited file still gives what it can. Times are
 * kept as integer microseconds and shares as hundredths of a percent, parsed
 * without strtod (no locale). */
#ifndef TP_EXTRAS_H
#define TP_EXTRAS_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_extras tp_extras;

/* One row of a CPU TIME section. `section` counts the sections from 0: each
 * covers the time since the previous dump, so a reader sums them. */
typedef struct tp_time_row {
    uint32_t section, rank, trace;
    uint32_t self_bp;    /* the self column in 1/100 % (1234 = 12.34 %) */
    uint64_t calls;
    uint64_t self_us;    /* ours: the row's self ms; JDK 8: self_bp of the total */
    uint64_t total_us;   /* ours only (0 in the JDK 8 layout) */
    uint64_t wait_us;    /* ours: " waited X" (0 when absent) */
    int has_ms;          /* 1: ours, the ms columns are there */
} tp_time_row;

/* One row of a MONITOR TIME section (ours and the original's). */
typedef struct tp_monitor_row {
    uint32_t section, rank, trace;
    uint32_t self_bp;
    uint64_t count;      /* contended entries */
    uint64_t self_us;    /* self_bp of the section's total (ms): the rows have no time */
    const char *monitor; /* class, " (Java)" dropped; owned by the extras */
} tp_monitor_row;

/* A MONITOR DUMP's thread line "THREAD N, trace T, status: S". */
typedef struct tp_mdump_thread {
    uint32_t section, thread, trace;
    const char *status; /* "R", "CW", "MW", "S"... */
} tp_mdump_thread;

/* A MONITOR DUMP's monitor: "MONITOR sig [unowned]", its owner line, and how
 * many threads wait to enter it and to be notified. */
typedef struct tp_mdump_monitor {
    uint32_t section;
    const char *monitor;
    uint32_t owner; /* 0 when unowned */
    int32_t entry_count;
    uint32_t waiting_enter, waiting_notify;
} tp_mdump_monitor;

/* "WAIT: MONITOR sig, timeout=N, thread T" (waited 0) and
 * "WAITED: MONITOR sig, time_waited=N, thread T" (waited 1). */
typedef struct tp_wait {
    const char *monitor;
    int waited;
    int64_t ms;
    uint32_t thread;
} tp_wait;

/* A SITES section's header and sample notes, one per section in order. */
typedef struct tp_sites_note {
    uint64_t sample_bytes;  /* sample=BYTES, 0 when the counts are exact */
    uint64_t samples;       /* the rows' allocation samples, summed */
    uint64_t live_samples;  /* the rows' live samples, summed */
    const char *live_note;  /* the header's "; <why live counts...>", or NULL */
    int by_alloc;           /* ordered by allocated bytes */
} tp_sites_note;

/* A heap dump's class, from its OBJ and ARR lines (sz= and class= / elem
 * type=, "@id" dropped), summed over every HEAP DUMP section. */
typedef struct tp_heap_class {
    const char *name; /* as written: java.lang.String, int[], Foo[] */
    uint64_t count, bytes;
} tp_heap_class;

/* Parses `len` bytes of text (the whole file, header included). Returns 0
 * with *out set (free with tp_extras_free), or -1 with a sentence in `err`
 * (out of memory; not text). Nothing past `len` is read. */
int tp_extras_parse(const char *text, size_t len, tp_extras **out, char *err, size_t errcap);
void tp_extras_free(tp_extras *x);

const tp_time_row *tp_extras_times(const tp_extras *x, size_t *n);
/* The CPU TIME sections' "(total = N)" summed, in ms; their count. */
uint64_t tp_extras_times_total_ms(const tp_extras *x, uint32_t *sections);
const tp_monitor_row *tp_extras_monitors(const tp_extras *x, size_t *n);
uint64_t tp_extras_monitors_total_ms(const tp_extras *x, uint32_t *sections);
const tp_mdump_thread *tp_extras_mdump_threads(const tp_extras *x, size_t *n);
const tp_mdump_monitor *tp_extras_mdump_monitors(const tp_extras *x, size_t *n);
const tp_wait *tp_extras_waits(const tp_extras *x, size_t *n);
const tp_sites_note *tp_extras_sites(const tp_extras *x, size_t *n);
const tp_heap_class *tp_extras_heap(const tp_extras *x, size_t *n);
/* HEAP DUMP sections seen (0: no heap dump). */
uint32_t tp_extras_heap_dumps(const tp_extras *x);
/* The heap dumps' ROOT lines counted by root kind, indexed by the binary
 * sub-record tag (hprof_format.h HPROF_GC_ROOT_*) their kind=<...> names. */
const uint64_t *tp_extras_roots(const tp_extras *x);
/* Rows of these sections that did not parse and were left out. */
uint32_t tp_extras_skipped(const tp_extras *x);

#endif
