/* report.c: the report data (hprof_report.h): the model(s) of the inputs
 * (rm_model.h) turned into the JSON the page reads: settings, warnings,
 * names, flame graphs (rt_trie.h), tables, heap, traces; and for a diff, the
 * two models' tries merged node by node (self = NEW, base = BASE) and the
 * per-class diff tables. The contract is docs/report.md "The data". */
#include "hprof_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "hprof/hw_writer.h"
#include "hu_map.h"
#include "rj_json.h"
#include "rm_model.h"
#include "rp_heap.h"
#include "rt_trie.h"
#include "web_page.h"

typedef struct rp {
    rj *j;
    rt_names *names;
    rm_model *m; /* the profile, or NEW of a diff */
    rm_model *b; /* BASE of a diff, or NULL */
    rp_heap *heap; /* retained sizes and suspects (rp_heap.h), or NULL */
    size_t max_rows, max_traces;
    hu_map kept; /* trace serials written in "traces" */
    uint64_t *keptv;
    size_t nkept, capkept;
    int32_t no_frames, unknown_trace;
    int oom;
} rp;

/* A trace into the written set, within the budget: the serial, or 0. */
static uint64_t rp_keep(void *ctx, uint64_t trace)
{
    rp *p = ctx;
    if (!trace)
        return 0;
    if (hu_map_get(&p->kept, trace))
        return trace;
    if (p->nkept >= p->max_traces)
        return 0;
    if (!rm_trace_get(p->m, trace) && !(p->b && rm_trace_get(p->b, trace)))
        return 0;
    if (p->nkept == p->capkept) {
        size_t nc = p->capkept ? p->capkept * 2 : 256;
        uint64_t *g = realloc(p->keptv, nc * sizeof *g);
        if (!g) {
            p->oom = 1;
            return 0;
        }
        p->keptv = g;
        p->capkept = nc;
    }
    if (hu_map_put(&p->kept, trace, 1)) {
        p->oom = 1;
        return 0;
    }
    p->keptv[p->nkept++] = trace;
    return trace;
}

/* The stack of a trace, root first, into *buf (grown); its length. */
static size_t rp_stack(rp *p, const rm_model *m, uint64_t serial, int32_t **buf, size_t *cap,
                       size_t extra)
{
    const rm_trace *t = rm_trace_get(m, serial);
    size_t n = t ? t->nframes : 0;
    size_t need = (n ? n : 1) + extra;
    if (need > *cap) {
        int32_t *g = realloc(*buf, need * 2 * sizeof *g);
        if (!g) {
            p->oom = 1;
            return 0;
        }
        *buf = g;
        *cap = need * 2;
    }
    if (!t) {
        (*buf)[0] = p->unknown_trace;
        return 1;
    }
    if (!n) {
        (*buf)[0] = p->no_frames;
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        (*buf)[i] = m->frames[t->first + n - 1 - i].name;
    return n;
}

enum { FL_CPU, FL_CALLS, FL_MS, FL_AB, FL_AO, FL_LB, FL_LO, FL_MON, FL_COUNT };

static const struct {
    const char *id, *title, *unit;
} rp_flames[FL_COUNT] = {
    {"cpu-samples", "CPU samples", "samples"},
    {"cpu-times-calls", "CPU time: calls", "calls"},
    {"cpu-times-ms", "CPU time: self ms", "ms"},
    {"alloc-bytes", "Allocated bytes", "bytes"},
    {"alloc-objects", "Allocated objects", "objects"},
    {"live-bytes", "Live bytes", "bytes"},
    {"live-objects", "Live objects", "objects"},
    {"monitor-ms", "Monitor contention: ms", "ms"},
};

static int rp_has(const rm_model *m, int fl)
{
    switch (fl) {
    case FL_CPU:
        return m->have_cpu;
    case FL_CALLS:
    case FL_MS:
        return m->have_times;
    case FL_AB:
    case FL_AO:
        return m->have_sites;
    case FL_LB:
    case FL_LO:
        return m->have_sites && (m->sites_total[0] || m->sites_total[1]);
    case FL_MON:
        return m->have_monitors;
    default:
        return 0;
    }
}

/* Adds the model's stacks of one flame to the trie's column. */
static void rp_fill(rp *p, rt_trie *t, const rm_model *m, int fl, int col)
{
    int32_t *buf = NULL;
    size_t cap = 0;
    if (fl == FL_CPU) {
        for (size_t i = 0; i < m->ncpu; i++) {
            size_t n = rp_stack(p, m, m->cpu[i].trace, &buf, &cap, 0);
            if (n && rt_trie_add(t, buf, n, RT_FRAME, m->cpu[i].trace, m->cpu[i].count, col))
                p->oom = 1;
        }
    } else if (fl == FL_CALLS || fl == FL_MS) {
        for (size_t i = 0; i < m->ntimes; i++) {
            const rm_time *r = &m->times[i];
            size_t n = rp_stack(p, m, r->trace, &buf, &cap, 0);
            uint64_t w = fl == FL_CALLS ? r->calls : r->self_us;
            if (n && rt_trie_add(t, buf, n, RT_FRAME, r->trace, w, col))
                p->oom = 1;
        }
    } else if (fl == FL_MON) {
        for (size_t i = 0; i < m->nmonitors; i++) {
            const rm_monitor *r = &m->monitors[i];
            size_t n = rp_stack(p, m, r->trace, &buf, &cap, 0);
            if (n && rt_trie_add(t, buf, n, RT_FRAME, r->trace, r->us, col))
                p->oom = 1;
        }
    } else {
        for (size_t i = 0; i < m->nsites; i++) {
            const rm_site *s = &m->sites[i];
            size_t n = rp_stack(p, m, s->trace, &buf, &cap, 1);
            if (!n)
                continue;
            /* the allocated class hangs under the allocating frames */
            buf[n++] = s->cls;
            uint64_t w = fl == FL_AB ? s->alloc_bytes : fl == FL_AO ? s->alloc_objs
                       : fl == FL_LB ? s->live_bytes : s->live_objs;
            if (rt_trie_add(t, buf, n, RT_ALLOC_CLASS, s->trace, w, col))
                p->oom = 1;
        }
    }
    free(buf);
}

static void rp_estimate(rp *p, const rm_model *m, int fl)
{
    rj *j = p->j;
    rj_key(j, "estimate");
    if (fl >= FL_AB && fl <= FL_LO && m->sample_bytes) {
        char b[160];
        snprintf(b, sizeof b, "estimated from %" PRIu64 " samples (sample=%" PRIu64 " bytes)",
                 m->samples, m->sample_bytes);
        rj_cstr(j, b);
    } else if ((fl == FL_MS && m->times_estimated) || fl == FL_MON) {
        rj_cstr(j, fl == FL_MON ? "each row's ms is its share of the section's total (the text "
                                  "gives shares with two decimals)"
                                : "self ms from the rows' shares (the JDK 5-8 layout has no "
                                  "per-method ms)");
    } else {
        rj_null(j);
    }
}

static void rp_flame_list(rp *p)
{
    rj *j = p->j;
    rj_key(j, "flames");
    rj_arr(j);
    for (int fl = 0; fl < FL_COUNT && !p->oom; fl++) {
        if (!rp_has(p->m, fl) && !(p->b && rp_has(p->b, fl)))
            continue;
        rt_trie *t = rt_trie_new(p->names);
        if (!t) {
            p->oom = 1;
            break;
        }
        /* the ms flames weigh microseconds, written as ms with 3 decimals */
        rt_trie_set_places(t, fl == FL_MS || fl == FL_MON ? 3 : 0);
        rp_fill(p, t, p->m, fl, RT_SELF);
        if (p->b)
            rp_fill(p, t, p->b, fl, RT_BASE);
        rj_obj(j);
        rj_key(j, "id");
        rj_cstr(j, rp_flames[fl].id);
        rj_key(j, "title");
        rj_cstr(j, rp_flames[fl].title);
        rj_key(j, "unit");
        rj_cstr(j, rp_flames[fl].unit);
        rj_key(j, "total");
        rt_trie_weight(t, j, rt_trie_total(t, RT_SELF));
        if (p->b) {
            rj_key(j, "base_total");
            rt_trie_weight(t, j, rt_trie_total(t, RT_BASE));
        }
        rp_estimate(p, p->m, fl);
        rj_key(j, "nodes");
        if (rt_trie_emit(t, j, p->b != NULL, rp_keep, p) != 0)
            p->oom = 1;
        rj_obj_end(j);
        rt_trie_free(t);
    }
    rj_arr_end(j);
}

/* ------------------------------------------------------------------ tables */

/* qsort of n elements; an empty array may be NULL (qsort's may not). */
static void rp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

/* How many rows to write, and the note saying the rest were left out. */
static size_t rp_cap_rows(const rp *p, size_t n, const char *note, char *buf, size_t cap)
{
    if (n <= p->max_rows) {
        snprintf(buf, cap, "%s", note ? note : "");
        return n;
    }
    snprintf(buf, cap, "%s%sthe first %zu of %zu rows", note ? note : "", note ? "; " : "",
             p->max_rows, n);
    return p->max_rows;
}

static int32_t rp_top(const rp *p, const rm_model *m, uint64_t trace)
{
    const rm_trace *t = rm_trace_get(m, trace);
    if (!t)
        return p->unknown_trace;
    return t->nframes ? m->frames[t->first].name : p->no_frames;
}

static void rp_name(rp *p, int32_t ix)
{
    rj_cstr(p->j, rt_names_get(p->names, ix));
}

static int rp_site_cmp_live(const void *a, const void *b)
{
    const rm_site *x = a, *y = b;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes < y->live_bytes ? 1 : -1;
    if (x->alloc_bytes != y->alloc_bytes)
        return x->alloc_bytes < y->alloc_bytes ? 1 : -1;
    return x->trace < y->trace ? -1 : x->trace > y->trace;
}

static int rp_site_cmp_alloc(const void *a, const void *b)
{
    const rm_site *x = a, *y = b;
    if (x->alloc_bytes != y->alloc_bytes)
        return x->alloc_bytes < y->alloc_bytes ? 1 : -1;
    return rp_site_cmp_live(a, b);
}

static int rp_count_cmp(const void *a, const void *b)
{
    const rm_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->trace < y->trace ? -1 : x->trace > y->trace;
}

static int rp_time_cmp(const void *a, const void *b)
{
    const rm_time *x = a, *y = b;
    if (x->self_us != y->self_us)
        return x->self_us < y->self_us ? 1 : -1;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    return x->trace < y->trace ? -1 : x->trace > y->trace;
}

static int rp_mon_cmp(const void *a, const void *b)
{
    const rm_monitor *x = a, *y = b;
    if (x->us != y->us)
        return x->us < y->us ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->trace < y->trace ? -1 : x->trace > y->trace;
}

/* A histogram row with its name, so that ties sort by name, the same in
 * every run. */
typedef struct rp_hrow {
    uint64_t count, bytes;
    const char *name;
    int32_t cls;
} rp_hrow;

static int rp_hrow_cmp(const void *a, const void *b)
{
    const rp_hrow *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

static void rp_sites_table(rp *p, rm_model *m)
{
    rj *j = p->j;
    static const char *const cols[] = {
        "rank|rank|int",          "self|self|pct",          "accum|accum|pct",
        "live_bytes|live bytes|int", "live_objs|live objs|int", "alloc_bytes|alloc bytes|int",
        "alloc_objs|alloc objs|int", "trace|trace|trace",      "class|class|text"};
    rp_sort(m->sites, m->nsites, sizeof *m->sites, m->sites_by_alloc ? rp_site_cmp_alloc : rp_site_cmp_live);
    char title[256], note[1100], est[256] = "";
    snprintf(title, sizeof title, "SITES (the last of the file%s, ordered by %s bytes) at %s",
             m->ninputs > 1 ? "s" : "", m->sites_by_alloc ? "allocated" : "live",
             m->sites_when ? m->sites_when : "unknown");
    if (m->sample_bytes)
        snprintf(est, sizeof est, "estimated from %" PRIu64 " samples (sample=%" PRIu64 " bytes); ",
                 m->samples, m->sample_bytes);
    char base[512];
    snprintf(base, sizeof base, "%slive columns as of the last GC%s%s", est,
             m->sites_live_note ? ": " : "", m->sites_live_note ? m->sites_live_note : "");
    size_t n = rp_cap_rows(p, m->nsites, base, note, sizeof note);
    rj_table_head(j, "sites", title, note, cols, 9);
    uint64_t whole = m->sites_by_alloc ? m->sites_total[2] : m->sites_total[0];
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        const rm_site *s = &m->sites[i];
        uint64_t part = m->sites_by_alloc ? s->alloc_bytes : s->live_bytes;
        acc += part;
        rj_arr(j);
        rj_u64(j, i + 1);
        rj_pct(j, part, whole);
        rj_pct(j, acc, whole);
        rj_u64(j, s->live_bytes);
        rj_u64(j, s->live_objs);
        rj_u64(j, s->alloc_bytes);
        rj_u64(j, s->alloc_objs);
        rj_u64(j, rp_keep(p, s->trace));
        rp_name(p, s->cls);
        rj_arr_end(j);
    }
    rj_arr_end(j);
    rj_obj_end(j);
}

static void rp_cpu_table(rp *p, rm_model *m)
{
    rj *j = p->j;
    static const char *const cols[] = {"rank|rank|int", "self|self|pct", "accum|accum|pct",
                                       "count|count|int", "trace|trace|trace",
                                       "method|method|text"};
    rp_sort(m->cpu, m->ncpu, sizeof *m->cpu, rp_count_cmp);
    char title[128], note[256];
    snprintf(title, sizeof title, "CPU SAMPLES (total = %" PRIu64 ", every record summed)",
             m->cpu_total);
    size_t n = rp_cap_rows(p, m->ncpu, NULL, note, sizeof note);
    rj_table_head(j, "cpu-samples", title, note[0] ? note : NULL, cols, 6);
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc += m->cpu[i].count;
        rj_arr(j);
        rj_u64(j, i + 1);
        rj_pct(j, m->cpu[i].count, m->cpu_total);
        rj_pct(j, acc, m->cpu_total);
        rj_u64(j, m->cpu[i].count);
        rj_u64(j, rp_keep(p, m->cpu[i].trace));
        rp_name(p, rp_top(p, m, m->cpu[i].trace));
        rj_arr_end(j);
    }
    rj_arr_end(j);
    rj_obj_end(j);
}

static void rp_times_table(rp *p, rm_model *m)
{
    rj *j = p->j;
    static const char *const cols[] = {
        "rank|rank|int",   "self|self|pct",       "accum|accum|pct",
        "count|calls|int", "trace|trace|trace",   "method|method|text",
        "self_ms|self ms|float", "total_ms|total ms|float"};
    rp_sort(m->times, m->ntimes, sizeof *m->times, rp_time_cmp);
    uint64_t whole = 0;
    for (size_t i = 0; i < m->ntimes; i++)
        whole += m->times[i].self_us;
    char title[128], note[256];
    snprintf(title, sizeof title, "CPU TIME (total = %" PRIu64 " ms, every section summed)",
             m->times_total_ms);
    size_t n = rp_cap_rows(p, m->ntimes,
                           m->times_estimated ? "self ms estimated from the shares; no total ms "
                                                "in the JDK 5-8 layout"
                                              : NULL,
                           note, sizeof note);
    rj_table_head(j, "cpu-times", title, note[0] ? note : NULL, cols, 8);
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        const rm_time *r = &m->times[i];
        acc += r->self_us;
        rj_arr(j);
        rj_u64(j, i + 1);
        rj_pct(j, r->self_us, whole);
        rj_pct(j, acc, whole);
        rj_u64(j, r->calls);
        rj_u64(j, rp_keep(p, r->trace));
        rp_name(p, rp_top(p, m, r->trace));
        rj_fixed(j, (int64_t)r->self_us, 3);
        if (r->has_total)
            rj_fixed(j, (int64_t)r->total_us, 3);
        else
            rj_null(j);
        rj_arr_end(j);
    }
    rj_arr_end(j);
    rj_obj_end(j);
}

static void rp_monitor_table(rp *p, rm_model *m)
{
    rj *j = p->j;
    static const char *const cols[] = {"rank|rank|int", "self|self|pct", "accum|accum|pct",
                                       "count|count|int", "trace|trace|trace",
                                       "monitor|monitor|text"};
    rp_sort(m->monitors, m->nmonitors, sizeof *m->monitors, rp_mon_cmp);
    uint64_t whole = 0;
    for (size_t i = 0; i < m->nmonitors; i++)
        whole += m->monitors[i].us;
    char title[160], note[256], base[160];
    snprintf(title, sizeof title, "MONITOR TIME (total = %" PRIu64 " ms, every section summed)",
             m->monitors_total_ms);
    snprintf(base, sizeof base, "%" PRIu64 " WAIT and %" PRIu64 " WAITED lines (%" PRIu64
             " ms waited); %" PRIu64 " monitors in MONITOR DUMPs",
             m->waits, m->waiteds, m->waited_ms, m->monitor_dumps);
    size_t n = rp_cap_rows(p, m->nmonitors, base, note, sizeof note);
    rj_table_head(j, "monitor-time", title, note, cols, 6);
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        const rm_monitor *r = &m->monitors[i];
        acc += r->us;
        rj_arr(j);
        rj_u64(j, i + 1);
        rj_pct(j, r->us, whole);
        rj_pct(j, acc, whole);
        rj_u64(j, r->count);
        rj_u64(j, rp_keep(p, r->trace));
        rp_name(p, r->monitor);
        rj_arr_end(j);
    }
    rj_arr_end(j);
    rj_obj_end(j);
}

static void rp_mdump_table(rp *p, const rm_model *m)
{
    rj *j = p->j;
    static const char *const cols[] = {"monitor|monitor|text", "owner|owner thread|int",
                                       "entry_count|entry count|int",
                                       "waiting_enter|waiting to enter|int",
                                       "waiting_notify|waiting to be notified|int"};
    char note[160];
    snprintf(note, sizeof note, "%" PRIu32 " threads in the dump; owner 0: unowned",
             m->mdump_threads);
    rj_table_head(j, "monitor-dump", "MONITOR DUMP (the last)", note, cols, 5);
    for (size_t i = 0; i < m->nmdump && i < p->max_rows; i++) {
        const rm_mdump *d = &m->mdump[i];
        rj_arr(j);
        rp_name(p, d->monitor);
        rj_u64(j, d->owner);
        rj_i64(j, d->entry_count);
        rj_u64(j, d->waiting_enter);
        rj_u64(j, d->waiting_notify);
        rj_arr_end(j);
    }
    rj_arr_end(j);
    rj_obj_end(j);
}

static const char *rp_root_name(unsigned tag)
{
    switch (tag) {
    case HPROF_GC_ROOT_JNI_GLOBAL: return "JNI global";
    case HPROF_GC_ROOT_JNI_LOCAL: return "JNI local";
    case HPROF_GC_ROOT_JAVA_FRAME: return "Java frame";
    case HPROF_GC_ROOT_NATIVE_STACK: return "native stack";
    case HPROF_GC_ROOT_STICKY_CLASS: return "sticky class";
    case HPROF_GC_ROOT_THREAD_BLOCK: return "thread block";
    case HPROF_GC_ROOT_MONITOR_USED: return "monitor used";
    case HPROF_GC_ROOT_THREAD_OBJ: return "thread object";
    case HPROF_GC_ROOT_INTERNED_STRING: return "interned string";
    case HPROF_GC_ROOT_FINALIZING: return "finalizing";
    case HPROF_GC_ROOT_DEBUGGER: return "debugger";
    case HPROF_GC_ROOT_REFERENCE_CLEANUP: return "reference cleanup";
    case HPROF_GC_ROOT_VM_INTERNAL: return "VM internal";
    case HPROF_GC_ROOT_JNI_MONITOR: return "JNI monitor";
    case HPROF_GC_ROOT_UNREACHABLE: return "unreachable";
    case HPROF_GC_ROOT_UNKNOWN: return "unknown";
    default: return NULL;
    }
}

static void rp_heap_tables(rp *p, rm_model *m)
{
    rj *j = p->j;
    static const char *const hcols[] = {"rank|rank|int", "instances|instances|int",
                                        "bytes|bytes|int", "class|class|text"};
    rp_hrow *hr = malloc((m->nhisto ? m->nhisto : 1) * sizeof *hr);
    if (!hr) {
        p->oom = 1;
        return;
    }
    for (size_t i = 0; i < m->nhisto; i++) {
        hr[i].count = m->histo[i].count;
        hr[i].bytes = m->histo[i].bytes;
        hr[i].cls = m->histo[i].cls;
        hr[i].name = rt_names_get(p->names, hr[i].cls);
    }
    rp_sort(hr, m->nhisto, sizeof *hr, rp_hrow_cmp);
    char note[256];
    size_t n = rp_cap_rows(p, m->nhisto,
                           "shallow sizes as HotSpot counts them (12-byte header, 4-byte "
                           "references, 8-byte alignment), as hprof histo",
                           note, sizeof note);
    rj_table_head(j, "histogram", "Heap histogram (every heap dump)", note, hcols, 4);
    for (size_t i = 0; i < n; i++) {
        rj_arr(j);
        rj_u64(j, i + 1);
        rj_u64(j, hr[i].count);
        rj_u64(j, hr[i].bytes);
        rp_name(p, hr[i].cls);
        rj_arr_end(j);
    }
    rj_arr_end(j);
    rj_obj_end(j);
    free(hr);
    static const char *const rcols[] = {"kind|kind|text", "count|count|int"};
    rj_table_head(j, "roots", "GC roots by kind", NULL, rcols, 2);
    for (unsigned t = 0; t < 256; t++) {
        if (!m->roots[t])
            continue;
        char other[32];
        const char *nm = rp_root_name(t);
        if (!nm) {
            snprintf(other, sizeof other, "sub-record 0x%02x", t);
            nm = other;
        }
        rj_arr(j);
        rj_cstr(j, nm);
        rj_u64(j, m->roots[t]);
        rj_arr_end(j);
    }
    rj_arr_end(j);
    rj_obj_end(j);
}

static void rp_summary_table(rp *p, const rm_model *m)
{
    rj *j = p->j;
    static const char *const cols[] = {"live_bytes|live bytes|int", "live_objs|live objs|int",
                                       "alloc_bytes|alloc bytes|int", "alloc_objs|alloc objs|int"};
    rj_table_head(j, "heap-summary", "HEAP SUMMARY (the last of each file, summed)", NULL, cols, 4);
    rj_arr(j);
    for (int k = 0; k < 4; k++)
        rj_u64(j, m->summary[k]);
    rj_arr_end(j);
    rj_arr_end(j);
    rj_obj_end(j);
}

/* ------------------------------------------------------------- diff tables */

typedef struct rp_dr {
    int32_t cls;
    uint64_t v[2]; /* before, after */
} rp_dr;

static int rp_dr_cmp(const void *a, const void *b)
{
    const rp_dr *x = a, *y = b;
    uint64_t dx = x->v[1] > x->v[0] ? x->v[1] - x->v[0] : x->v[0] - x->v[1];
    uint64_t dy = y->v[1] > y->v[0] ? y->v[1] - y->v[0] : y->v[0] - y->v[1];
    if (dx != dy)
        return dx < dy ? 1 : -1;
    return x->cls - y->cls;
}

static int rp_dr_add(hu_map *ix, rp_dr **rows, size_t *n, size_t *cap, int32_t cls, int side,
                     uint64_t v)
{
    int ins;
    uint64_t *s = hu_map_upsert(ix, (uint64_t)cls, *n, &ins);
    if (!s)
        return -1;
    uint64_t at = *s;
    if (ins) {
        if (*n == *cap) {
            size_t nc = *cap ? *cap * 2 : 64;
            rp_dr *g = realloc(*rows, nc * sizeof *g);
            if (!g)
                return -1;
            *rows = g;
            *cap = nc;
        }
        (*rows)[*n].cls = cls;
        (*rows)[*n].v[0] = (*rows)[*n].v[1] = 0;
        (*n)++;
    }
    (*rows)[at].v[side] += v;
    return 0;
}

static void rp_diff_table(rp *p, int histo)
{
    rj *j = p->j;
    hu_map ix;
    hu_map_init(&ix);
    rp_dr *rows = NULL;
    size_t n = 0, cap = 0;
    for (int side = 0; side < 2; side++) {
        const rm_model *m = side ? p->m : p->b;
        if (histo) {
            for (size_t i = 0; i < m->nhisto; i++)
                if (rp_dr_add(&ix, &rows, &n, &cap, m->histo[i].cls, side, m->histo[i].count))
                    p->oom = 1;
        } else {
            for (size_t i = 0; i < m->nsites; i++)
                if (rp_dr_add(&ix, &rows, &n, &cap, m->sites[i].cls, side, m->sites[i].alloc_bytes))
                    p->oom = 1;
        }
    }
    rp_sort(rows, n, sizeof *rows, rp_dr_cmp);
    static const char *const cols[] = {"class|class|text", "before|before|int", "after|after|int",
                                       "change|change|int"};
    char note[256];
    size_t k = rp_cap_rows(p, n, "names normalized (hidden-class addresses, lambda counters)", note,
                           sizeof note);
    rj_table_head(j, histo ? "histogram-diff" : "sites-diff",
                  histo ? "Heap histogram by class: instances, BASE and NEW"
                        : "Sites by class: allocated bytes, BASE and NEW",
                  note, cols, 4);
    for (size_t i = 0; i < k; i++) {
        rj_arr(j);
        rp_name(p, rows[i].cls);
        rj_u64(j, rows[i].v[0]);
        rj_u64(j, rows[i].v[1]);
        rj_i64(j, (int64_t)(rows[i].v[1] - rows[i].v[0]));
        rj_arr_end(j);
    }
    rj_arr_end(j);
    rj_obj_end(j);
    free(rows);
    hu_map_cleanup(&ix);
}

static void rp_tables(rp *p)
{
    rj *j = p->j;
    rm_model *m = p->m;
    rj_key(j, "tables");
    rj_arr(j);
    if (p->b) {
        if (m->have_sites || p->b->have_sites)
            rp_diff_table(p, 0);
        if (m->have_heap || p->b->have_heap)
            rp_diff_table(p, 1);
    }
    if (m->have_sites)
        rp_sites_table(p, m);
    if (m->have_cpu)
        rp_cpu_table(p, m);
    if (m->have_times)
        rp_times_table(p, m);
    if (m->have_monitors)
        rp_monitor_table(p, m);
    if (m->have_mdump)
        rp_mdump_table(p, m);
    if (m->have_heap) {
        rp_heap_write_tables(p->heap, j);
        rp_heap_tables(p, m);
    }
    if (m->have_summary)
        rp_summary_table(p, m);
    rj_arr_end(j);
}

/* ------------------------------------------------------------------- top */

static void rp_traces(rp *p)
{
    rj *j = p->j;
    rj_key(j, "traces");
    rj_obj(j);
    for (size_t i = 0; i < p->nkept; i++) {
        const rm_model *m = p->m;
        const rm_trace *t = rm_trace_get(m, p->keptv[i]);
        if (!t && p->b) {
            m = p->b;
            t = rm_trace_get(m, p->keptv[i]);
        }
        if (!t)
            continue;
        char key[24];
        snprintf(key, sizeof key, "%" PRIu64, t->serial);
        rj_key(j, key);
        rj_obj(j);
        rj_key(j, "thread");
        rj_u64(j, t->thread);
        rj_key(j, "frames");
        rj_arr(j);
        for (uint32_t k = 0; k < t->nframes; k++) {
            const rm_frame *f = &m->frames[t->first + k];
            rj_arr(j);
            rj_i64(j, f->name);
            rj_cstr(j, f->file >= 0 ? rt_names_get(m->files, f->file) : "");
            rj_i64(j, f->line);
            rj_arr_end(j);
        }
        rj_arr_end(j);
        rj_obj_end(j);
    }
    rj_obj_end(j);
}

static void rp_strings(rj *j, char **kv, size_t n, int pairs, const char *prefix)
{
    for (size_t i = 0; i < n; i += pairs ? 2 : 1) {
        char buf[1200];
        if (pairs)
            rj_arr(j);
        snprintf(buf, sizeof buf, "%s%s", prefix, kv[i]);
        rj_cstr(j, buf);
        if (pairs) {
            rj_cstr(j, kv[i + 1]);
            rj_arr_end(j);
        }
    }
}

static const char *rp_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void rp_top_level(rp *p, const char *const *paths, size_t n, const report_opts *o)
{
    rj *j = p->j;
    rj_obj(j);
    rj_key(j, "format");
    rj_cstr(j, "hprof-report");
    rj_key(j, "version");
    rj_u64(j, 1);
    rj_key(j, "mode");
    rj_cstr(j, p->b ? "diff" : "profile");
    rj_key(j, "title");
    if (o->title) {
        rj_cstr(j, o->title);
    } else {
        size_t tl = 1;
        for (size_t i = 0; i < n; i++)
            tl += strlen(rp_base(paths[i])) + 2;
        char *t = calloc(1, tl);
        if (t)
            for (size_t i = 0; i < n; i++) {
                if (i)
                    strcat(t, ", ");
                strcat(t, rp_base(paths[i]));
            }
        rj_cstr(j, t ? t : "");
        free(t);
    }
    rj_key(j, "generated");
    char when[40];
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) && strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm))
        rj_cstr(j, when);
    else
        rj_null(j);
    rj_key(j, "inputs");
    rj_arr(j);
    for (int side = p->b ? 0 : 1; side < 2; side++) {
        const rm_model *m = side ? p->m : p->b;
        for (size_t i = 0; i < m->ninputs; i++) {
            rj_obj(j);
            rj_key(j, "path");
            rj_cstr(j, m->inputs[i].path);
            rj_key(j, "kind");
            rj_cstr(j, m->inputs[i].kind);
            rj_key(j, "bytes");
            rj_u64(j, m->inputs[i].bytes);
            rj_obj_end(j);
        }
    }
    rj_arr_end(j);
    rj_key(j, "settings");
    rj_arr(j);
    rp_strings(j, p->m->settings, p->m->nsettings, 1, "");
    if (p->b)
        rp_strings(j, p->b->settings, p->b->nsettings, 1, "base ");
    rj_arr_end(j);
    rj_key(j, "warnings");
    rj_arr(j);
    rp_strings(j, p->m->warnings, p->m->nwarnings, 0, p->b ? "new: " : "");
    if (p->b)
        rp_strings(j, p->b->warnings, p->b->nwarnings, 0, "base: ");
    rj_arr_end(j);
    /* tables first: their rows' traces come first in the traces budget */
    rp_tables(p);
    rp_flame_list(p);
    rj_key(j, "heap");
    if (p->m->have_heap) {
        size_t classes = 0;
        for (size_t i = 0; i < p->m->nhisto; i++)
            classes += p->m->histo[i].count > 0;
        rj_obj(j);
        rj_key(j, "objects");
        rj_u64(j, p->m->heap_objects);
        rj_key(j, "bytes");
        rj_u64(j, p->m->heap_bytes);
        rj_key(j, "classes");
        rj_u64(j, classes);
        rj_key(j, "roots");
        rj_u64(j, p->m->roots_total);
        rj_key(j, "shallow_size_rule");
        rj_cstr(j, "HotSpot's, as hprof histo: 12-byte header, 4-byte references, 8-byte alignment");
        rp_heap_write_fields(p->heap, j);
        rj_obj_end(j);
    } else {
        rj_null(j);
    }
    rp_traces(p);
    rj_key(j, "diff");
    if (p->b) {
        rj_obj(j);
        rj_key(j, "base");
        rj_cstr(j, paths[0]);
        rj_key(j, "new");
        rj_cstr(j, paths[1]);
        rj_obj_end(j);
    } else {
        rj_null(j);
    }
    /* names last: every flame and table has added its own */
    rj_key(j, "names");
    rt_names_emit(p->names, j);
    rj_obj_end(j);
}

int report_json(const char *const *paths, size_t n, const report_opts *o, char **json, size_t *len,
                char *err, size_t errcap)
{
    *json = NULL;
    *len = 0;
    report_opts def;
    memset(&def, 0, sizeof def);
    if (!o)
        o = &def;
    if (n == 0 || (o->diff && n != 2)) {
        snprintf(err, errcap, o->diff ? "a diff takes two files, BASE and NEW" : "no input file");
        return -1;
    }
    rp p;
    memset(&p, 0, sizeof p);
    p.max_rows = o->max_rows ? o->max_rows : 2000;
    p.max_traces = o->max_traces ? o->max_traces : 20000;
    hu_map_init(&p.kept);
    int rc = -1;
    p.names = rt_names_new();
    p.j = rj_new();
    if (!p.names || !p.j)
        goto oom;
    p.no_frames = rt_names_add(p.names, "<no Java frames>", 16);
    p.unknown_trace = rt_names_add(p.names, "<trace not in the file>", 23);
    if (p.no_frames < 0 || p.unknown_trace < 0)
        goto oom;
    p.m = rm_new(p.names, o->diff);
    if (!p.m)
        goto oom;
    if (o->diff) {
        p.b = rm_new(p.names, 1);
        if (!p.b)
            goto oom;
        p.m->first_input = 1; /* NEW's serials apart from BASE's */
        if (rm_add_file(p.b, paths[0], err, errcap) != 0 || rm_add_file(p.m, paths[1], err, errcap) != 0)
            goto out;
        rm_finish(p.b);
    } else {
        for (size_t i = 0; i < n; i++)
            if (rm_add_file(p.m, paths[i], err, errcap) != 0)
                goto out;
    }
    if (!o->diff) {
        p.heap = rp_heap_new(p.m, o->max_memory, o->no_retained);
        if (p.m->oom)
            goto oom;
    }
    rm_finish(p.m);
    rp_top_level(&p, paths, n, o);
    if (p.oom || rj_failed(p.j))
        goto oom;
    size_t l;
    const char *t = rj_text(p.j, &l);
    *json = malloc(l + 1);
    if (!*json)
        goto oom;
    memcpy(*json, t, l);
    (*json)[l] = 0;
    *len = l;
    rc = 0;
    goto out;
oom:
    snprintf(err, errcap, "out of memory");
out:
    rp_heap_free(p.heap);
    rm_free(p.m);
    rm_free(p.b);
    rj_free(p.j);
    rt_names_free(p.names);
    hu_map_cleanup(&p.kept);
    free(p.keptv);
    return rc;
}

int report_write(const char *const *paths, size_t n, const report_opts *o, const char *out,
                 int html, char *err, size_t errcap)
{
    char *json;
    size_t len;
    if (report_json(paths, n, o, &json, &len, err, errcap) != 0)
        return -1;
    /* hw_outfile refuses to replace its input: the input OUT names, if any
     * (several inputs: only the one that is OUT matters) */
    const char *in = n ? paths[0] : NULL;
    struct stat os, is;
    if (strcmp(out, "-") != 0 && stat(out, &os) == 0)
        for (size_t i = 0; i < n; i++)
            if (strcmp(paths[i], "-") != 0 && stat(paths[i], &is) == 0 &&
                is.st_dev == os.st_dev && is.st_ino == os.st_ino)
                in = paths[i];
    int e = 0;
    char msg[512];
    hw_outfile *f = hw_outfile_open(out, in, &e, msg, sizeof msg);
    if (!f) {
        snprintf(err, errcap, "%s", msg);
        free(json);
        return -1;
    }
    FILE *s = hw_outfile_stream(f);
    int bad = !s;
    if (!bad) {
        errno = 0;
        if (html) {
            const char *title = o && o->title ? o->title : (n ? rp_base(paths[n - 1]) : "");
            bad = web_page_write(s, json, len, title) != 0;
        } else {
            bad = fwrite(json, 1, len, s) != len || fputc('\n', s) == EOF;
        }
    }
    free(json);
    if (bad) {
        snprintf(err, errcap, "%s: %s", hw_outfile_name(f), strerror(errno ? errno : EIO));
        hw_outfile_abort(f);
        return -1;
    }
    if (hw_outfile_commit(f, msg, sizeof msg) != 0) {
        snprintf(err, errcap, "%s", msg);
        return -1;
    }
    return 0;
}

int report_write_files(const char *const *paths, size_t n, const char *out_html, char *err,
                       size_t errcap)
{
    return report_write(paths, n, NULL, out_html, 1, err, errcap);
}
