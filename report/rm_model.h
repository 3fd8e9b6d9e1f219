/* rm_model.h: the report's model: what any number of profiles hold, read
 * from binary HPROF (plain or gzip, hr_reader.h) or from the agent's text
 * layout (ours or the JDK 5-8 agent's: tp_text.h translates it, tp_extras.h
 * gives the sections without a binary record), resolved to names.
 *
 * Internal to the hprofreport library (report.h is its interface): the
 * report's modules read the model's arrays directly.
 *
 * Several inputs are gathered into one model: their trace serials are kept
 * apart by adding 1 000 000 000 times the input's index (the first input's
 * serials stay as written), so their traces, tables and flames never mix.
 * Frame and class names go into the shared rt_names (normalized with
 * norm_name when the model is made for a diff). */
#ifndef RM_MODEL_H
#define RM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "hu_map.h"
#include "rt_trie.h"

#define RM_INPUT_STRIDE 1000000000ull

typedef struct rm_frame {
    int32_t name; /* "pkg.Class.method" in the shared names */
    int32_t file; /* in the model's files table; -1 none */
    int32_t line; /* HPROF line: > 0, 0 none, -1 unknown, -2 compiled, -3 native */
} rm_frame;

typedef struct rm_trace {
    uint64_t serial;
    uint32_t thread;
    uint32_t nframes;
    size_t first; /* into frames[], top frame first */
} rm_trace;

typedef struct rm_site {
    uint64_t trace;
    int32_t cls; /* shared names */
    uint64_t live_bytes, live_objs, alloc_bytes, alloc_objs;
} rm_site;

typedef struct rm_count {
    uint64_t trace, count;
} rm_count;

typedef struct rm_time {
    uint64_t trace, calls, self_us, total_us;
    int has_total;
} rm_time;

typedef struct rm_monitor {
    uint64_t trace, count, us;
    int32_t monitor; /* shared names (class) */
} rm_monitor;

typedef struct rm_mdump {
    int32_t monitor; /* shared names, as written (Ljava/lang/Object;) */
    uint32_t owner;  /* thread serial, 0 unowned */
    int32_t entry_count;
    uint32_t waiting_enter, waiting_notify;
} rm_mdump;

typedef struct rm_class_count {
    int32_t cls;
    uint64_t count, bytes;
} rm_class_count;

typedef struct rm_input {
    char *path;
    const char *kind; /* "binary", "text", "text-jdk8" */
    uint64_t bytes;
    /* binary with a heap dump: 1 a file (rp_heap.h reads it again), -1
     * standard input (it cannot), 0 none */
    int heap_dump;
} rm_input;

typedef struct rm_model {
    rt_names *names; /* shared, not owned */
    rt_names *files; /* source file names, owned */
    int normalize;
    rm_input *inputs;
    size_t ninputs, capinputs;
    uint64_t first_input; /* serials of input k get (first_input + k) * RM_INPUT_STRIDE */
    char **settings; /* key, value pairs */
    size_t nsettings, capsettings;
    char **warnings;
    size_t nwarnings, capwarnings;

    rm_frame *frames;
    size_t nframes, capframes;
    rm_trace *traces;
    size_t ntraces, captraces;
    hu_map trace_ix; /* serial -> index in traces */

    rm_site *sites; /* the last ALLOC SITES of each input */
    size_t nsites, capsites;
    int have_sites, sites_by_alloc, sites_forced_gc;
    char *sites_when;       /* the last sites' time (ISO), or NULL */
    char *sites_live_note;  /* why live counts are not exact, or NULL */
    uint64_t sample_bytes, samples; /* sample=: the figures are estimates */
    uint64_t sites_total[4]; /* live bytes, live objs, alloc bytes, alloc objs */

    rm_count *cpu; /* CPU SAMPLES summed per trace */
    size_t ncpu, capcpu;
    hu_map cpu_ix;
    uint64_t cpu_total;
    int have_cpu;

    rm_time *times; /* CPU TIME summed per trace */
    size_t ntimes, captimes;
    hu_map time_ix;
    uint64_t times_total_ms;
    int have_times, times_estimated;

    rm_monitor *monitors; /* MONITOR TIME summed per trace and monitor */
    size_t nmonitors, capmonitors;
    hu_map mon_trace; /* trace -> dense number, for mon_ix's keys */
    hu_map mon_ix;    /* trace's number << 32 | monitor name -> index in monitors */
    uint64_t monitors_total_ms;
    int have_monitors;
    uint64_t monitor_dumps, waits, waiteds, waited_ms;
    rm_mdump *mdump; /* the monitors of the last MONITOR DUMP */
    size_t nmdump;
    uint32_t mdump_threads; /* and its threads */
    int have_mdump;

    int have_summary;
    uint64_t summary[4];

    int have_heap;
    rm_class_count *histo; /* merged by class name */
    size_t nhisto, caphisto;
    hu_map histo_ix; /* class name -> index */
    uint64_t heap_objects, heap_bytes, roots_total;
    uint64_t roots[256]; /* by sub-record tag */

    uint32_t depth;            /* the CONTROL SETTINGS depth, else the most frames of a trace */
    int depth_known;           /* a CONTROL SETTINGS record said it */
    uint64_t traces_at_depth;  /* traces with exactly their file's depth in frames */
    int depth_mixed;           /* the inputs' depths differ */
    uint64_t first_created_ms;
    int mixed_runs;            /* inputs with different header times */
    int oom;
} rm_model;

/* NULL when out of memory. `names` is shared with the report. */
rm_model *rm_new(rt_names *names, int normalize);
void rm_free(rm_model *m);
/* Reads one input into the model. Returns 0 (the file's problems, such as a
 * cut, become warnings: what is there is read), or -1 with `err` set when
 * nothing could be read (cannot open, not HPROF, out of memory). */
int rm_add_file(rm_model *m, const char *path, char *err, size_t errcap);
/* Adds a warning sentence (printf). */
void rm_warn(rm_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The trace of a serial, or NULL. */
const rm_trace *rm_trace_get(const rm_model *m, uint64_t serial);
/* After the last input: the warnings that need the whole picture (depth,
 * few samples, mixed runs). */
void rm_finish(rm_model *m);

#endif
