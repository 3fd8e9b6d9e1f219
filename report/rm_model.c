/* rm_model.c: the report's model (rm_model.h). Each input is parsed once
 * with hr_parse into a per-input context (its ids, classes, frames, traces
 * and last sites), then resolved to names and added to the model. Text
 * inputs are translated to binary in memory (tp_text.h) and their extra
 * sections read with tp_extras.h. */
#include "rm_model.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "histo.h"
#include "hprof/hr_reader.h"
#include "normalize.h"
#include "print.h"
#include "tp_extras.h"
#include "tp_text.h"

static int rm_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
    void **p = pp;
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

rm_model *rm_new(rt_names *names, int normalize)
{
    rm_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->names = names;
    m->normalize = normalize;
    m->files = rt_names_new();
    if (!m->files) {
        free(m);
        return NULL;
    }
    hu_map_init(&m->trace_ix);
    hu_map_init(&m->cpu_ix);
    hu_map_init(&m->time_ix);
    hu_map_init(&m->histo_ix);
    hu_map_init(&m->mon_trace);
    hu_map_init(&m->mon_ix);
    return m;
}

void rm_free(rm_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->ninputs; i++)
        free(m->inputs[i].path);
    free(m->inputs);
    for (size_t i = 0; i < m->nsettings; i++)
        free(m->settings[i]);
    free(m->settings);
    for (size_t i = 0; i < m->nwarnings; i++)
        free(m->warnings[i]);
    free(m->warnings);
    rt_names_free(m->files);
    free(m->frames);
    free(m->traces);
    free(m->sites);
    free(m->sites_when);
    free(m->sites_live_note);
    free(m->cpu);
    free(m->times);
    free(m->monitors);
    free(m->mdump);
    free(m->histo);
    hu_map_cleanup(&m->trace_ix);
    hu_map_cleanup(&m->cpu_ix);
    hu_map_cleanup(&m->time_ix);
    hu_map_cleanup(&m->histo_ix);
    hu_map_cleanup(&m->mon_trace);
    hu_map_cleanup(&m->mon_ix);
    free(m);
}

void rm_warn(rm_model *m, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < m->nwarnings; i++)
        if (strcmp(m->warnings[i], buf) == 0)
            return;
    char *c = strdup(buf);
    if (!c || rm_grow(&m->warnings, &m->capwarnings, m->nwarnings + 1, sizeof *m->warnings)) {
        free(c);
        m->oom = 1;
        return;
    }
    m->warnings[m->nwarnings++] = c;
}

static void rm_setting(rm_model *m, const char *key, const char *val)
{
    /* one row per key: with several inputs, the values are joined */
    for (size_t i = 0; i < m->nsettings; i += 2)
        if (strcmp(m->settings[i], key) == 0) {
            if (strcmp(m->settings[i + 1], val) == 0)
                return;
            size_t a = strlen(m->settings[i + 1]), b = strlen(val);
            char *j = malloc(a + b + 3);
            if (!j) {
                m->oom = 1;
                return;
            }
            memcpy(j, m->settings[i + 1], a);
            memcpy(j + a, ", ", 2);
            memcpy(j + a + 2, val, b + 1);
            free(m->settings[i + 1]);
            m->settings[i + 1] = j;
            return;
        }
    char *k = strdup(key), *v = strdup(val);
    if (!k || !v || rm_grow(&m->settings, &m->capsettings, m->nsettings + 2, sizeof *m->settings)) {
        free(k);
        free(v);
        m->oom = 1;
        return;
    }
    m->settings[m->nsettings++] = k;
    m->settings[m->nsettings++] = v;
}

static void rm_iso(uint64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (!ms || !gmtime_r(&t, &tm) || !strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, cap, "unknown");
}

/* A name into the shared table, normalized for a diff. */
static int32_t rm_name(rm_model *m, const char *s, size_t len)
{
    int32_t ix;
    if (m->normalize) {
        size_t nl;
        char *n = norm_dup(s, len, &nl);
        if (!n) {
            m->oom = 1;
            return -1;
        }
        ix = rt_names_add(m->names, n, nl);
        free(n);
    } else {
        ix = rt_names_add(m->names, s, len);
    }
    if (ix < 0)
        m->oom = 1;
    return ix;
}

const rm_trace *rm_trace_get(const rm_model *m, uint64_t serial)
{
    uint64_t *v = hu_map_get(&m->trace_ix, serial);
    return v ? &m->traces[*v] : NULL;
}

/* ------------------------------------------------------------ one input */

typedef struct rm_fr {
    hprof_id method, source;
    uint32_t cls;
    int32_t line;
} rm_fr;

typedef struct rm_tr {
    uint32_t serial, thread, n;
    size_t first; /* into ids */
} rm_tr;

typedef struct rm_str {
    char *s;
    uint32_t len;
} rm_str;

/* A site with the agent's notes applied (u8 figures, sample counts): an
 * incremental ALLOC SITES record updates some rows and keeps the others,
 * so each row carries its own notes. */
typedef struct rm_isite {
    uint8_t array_type;
    uint32_t class_serial, trace_serial;
    uint64_t v[4]; /* live bytes, live objects, allocated bytes, allocated objects */
    uint64_t samples;
} rm_isite;

typedef struct rm_in {
    rm_model *m;
    uint64_t off; /* added to trace serials */
    hr_header hd;
    rm_str *strs;
    size_t nstrs, capstrs;
    hu_map utf8;     /* id -> index in strs */
    hu_map cls_name; /* class serial -> name id */
    hu_map frame_ix; /* frame id -> index in fr */
    rm_fr *fr;
    size_t nfr, capfr;
    rm_tr *tr;
    size_t ntr, captr;
    hprof_id *ids;
    size_t nids, capids;
    rm_isite *sites;
    size_t nsites, capsites;
    hu_map site_ix;  /* class serial << 32 | trace -> index in sites */
    hu_map site_ix0; /* the same for class serial 0: array type << 32 | trace */
    int have_sites;
    uint16_t sites_flags;
    uint32_t sites_time_us;
    uint64_t sites_tot[4];
    print_site_notes pending, notes;
    histo *h;
    int have_summary;
    uint64_t summary[4];
    int have_control;
    uint32_t control_flags, control_depth;
    uint64_t problems;
    char first_problem[300];
    int oom;
} rm_in;

static int rm_in_header(void *ctx, const hr_header *h)
{
    rm_in *in = ctx;
    in->hd = *h;
    return histo_on_header(in->h, h);
}

static int rm_in_count(rm_in *in, uint32_t trace, uint64_t count)
{
    rm_model *m = in->m;
    uint64_t key = in->off + trace;
    int ins;
    uint64_t *v = hu_map_upsert(&m->cpu_ix, key, m->ncpu, &ins);
    if (!v)
        return -1;
    uint64_t ix = *v;
    if (ins) {
        if (rm_grow(&m->cpu, &m->capcpu, m->ncpu + 1, sizeof *m->cpu))
            return -1;
        m->cpu[m->ncpu].trace = key;
        m->cpu[m->ncpu++].count = 0;
    }
    m->cpu[ix].count += count;
    m->cpu_total += count;
    return 0;
}

/* The agent's HPROF_RUN_NOTE (hprof_format.h): "key=value" pairs apart by
 * "; ", options last (the rest of the text, whatever it holds), into the
 * settings under the report's names (format= aside: the input's own kind is
 * already a setting). */
static void rm_run_note(rm_model *m, const char *s, size_t len)
{
    static const struct {
        const char *key, *name;
    } names[] = {{"heap", "heap"},   {"cpu", "cpu"},       {"monitor", "monitor"},
                 {"depth", "depth"},  {"interval", "interval (ms)"},
                 {"cutoff", "cutoff"}, {"sample", "sample"}, {"lineno", "lineno"},
                 {"thread", "thread"}, {"doe", "doe"},       {"jvm", "jvm"}};
    size_t pos = strlen(HPROF_RUN_NOTE);
    while (pos < len) {
        const char *k = s + pos, *eq = memchr(k, '=', len - pos);
        if (!eq)
            return;
        size_t kl = (size_t)(eq - k), vpos = pos + kl + 1;
        int options = kl == 7 && memcmp(k, "options", 7) == 0;
        const char *semi = options ? NULL : memmem(s + vpos, len - vpos, "; ", 2);
        size_t vl = semi ? (size_t)(semi - (s + vpos)) : len - vpos;
        char *v = strndup(s + vpos, vl);
        if (!v) {
            m->oom = 1;
            return;
        }
        if (options)
            rm_setting(m, "options", v);
        for (size_t i = 0; !options && i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].key) == kl && memcmp(k, names[i].key, kl) == 0)
                rm_setting(m, names[i].name, v);
        free(v);
        pos = vpos + vl + 2;
    }
}

static int rm_in_record(void *ctx, const hr_record *r)
{
    rm_in *in = ctx;
    if (r->malformed)
        return 0;
    switch (r->tag) {
    case HPROF_TAG_UTF8: {
        size_t rl = strlen(HPROF_RUN_NOTE);
        if (r->u.utf8.len > rl && memcmp(r->u.utf8.str, HPROF_RUN_NOTE, rl) == 0) {
            rm_run_note(in->m, (const char *)r->u.utf8.str, r->u.utf8.len);
            break;
        }
        int k = print_notes_take(&in->pending, r->u.utf8.str, r->u.utf8.len);
        if (k < 0)
            goto oom;
        if (k > 0)
            break;
        if (rm_grow(&in->strs, &in->capstrs, in->nstrs + 1, sizeof *in->strs))
            goto oom;
        char *c = malloc((size_t)r->u.utf8.len + 1);
        if (!c)
            goto oom;
        memcpy(c, r->u.utf8.str, r->u.utf8.len);
        c[r->u.utf8.len] = 0;
        in->strs[in->nstrs].s = c;
        in->strs[in->nstrs].len = r->u.utf8.len;
        if (hu_map_put(&in->utf8, r->u.utf8.id, in->nstrs++))
            goto oom;
        break;
    }
    case HPROF_TAG_LOAD_CLASS:
        if (hu_map_put(&in->cls_name, r->u.load_class.class_serial, r->u.load_class.name_id))
            goto oom;
        break;
    case HPROF_TAG_FRAME: {
        if (rm_grow(&in->fr, &in->capfr, in->nfr + 1, sizeof *in->fr))
            goto oom;
        rm_fr *f = &in->fr[in->nfr];
        f->method = r->u.frame.method_name_id;
        f->source = r->u.frame.source_file_id;
        f->cls = r->u.frame.class_serial;
        f->line = r->u.frame.line;
        if (hu_map_put(&in->frame_ix, r->u.frame.frame_id, in->nfr++))
            goto oom;
        break;
    }
    case HPROF_TAG_TRACE: {
        uint32_t n = r->u.trace.nframes;
        if (rm_grow(&in->tr, &in->captr, in->ntr + 1, sizeof *in->tr) ||
            rm_grow(&in->ids, &in->capids, in->nids + n + 1, sizeof *in->ids))
            goto oom;
        rm_tr *t = &in->tr[in->ntr++];
        t->serial = r->u.trace.trace_serial;
        t->thread = r->u.trace.thread_serial;
        t->n = n;
        t->first = in->nids;
        for (uint32_t i = 0; i < n; i++)
            in->ids[in->nids++] = hr_trace_frame(r, in->hd.id_size, i);
        break;
    }
    case HPROF_TAG_ALLOC_SITES: {
        /* the notes written just before this record describe it */
        print_notes_clear(&in->notes);
        in->notes = in->pending;
        memset(&in->pending, 0, sizeof in->pending);
        /* sites are cumulative: a full record replaces the previous one, an
         * incremental one (hprof-ctl's "sites incremental") holds only the
         * rows that changed since, so it updates them and keeps the rest */
        int incremental = (r->u.alloc_sites.flags & HPROF_SITES_INCREMENTAL) && in->have_sites;
        if (!incremental) {
            in->nsites = 0;
            hu_map_cleanup(&in->site_ix);
            hu_map_cleanup(&in->site_ix0);
            hu_map_init(&in->site_ix);
            hu_map_init(&in->site_ix0);
        }
        uint32_t n = r->u.alloc_sites.nsites;
        if (rm_grow(&in->sites, &in->capsites, in->nsites + n + 1, sizeof *in->sites))
            goto oom;
        for (uint32_t i = 0; i < n; i++) {
            hr_alloc_site s;
            hr_alloc_site_at(r, i, &s);
            hu_map *ix = s.class_serial ? &in->site_ix : &in->site_ix0;
            uint64_t key = (uint64_t)(s.class_serial ? s.class_serial : s.array_type) << 32 |
                           s.trace_serial;
            int ins;
            uint64_t *at = hu_map_upsert(ix, key, in->nsites, &ins);
            if (!at)
                goto oom;
            rm_isite *d = &in->sites[ins ? in->nsites++ : *at];
            d->array_type = s.array_type;
            d->class_serial = s.class_serial;
            d->trace_serial = s.trace_serial;
            uint64_t v[4] = {s.live_bytes, s.live_instances, s.alloc_bytes, s.alloc_instances};
            print_notes_row(&in->notes, i, v);
            memcpy(d->v, v, sizeof v);
            d->samples = i < in->notes.nsamp ? in->notes.samp[2 * i] : 0;
        }
        in->have_sites = 1;
        in->sites_flags = r->u.alloc_sites.flags;
        in->sites_time_us = r->time_us;
        in->sites_tot[0] = r->u.alloc_sites.total_live_bytes;
        in->sites_tot[1] = r->u.alloc_sites.total_live_instances;
        in->sites_tot[2] = r->u.alloc_sites.total_alloc_bytes;
        in->sites_tot[3] = r->u.alloc_sites.total_alloc_instances;
        break;
    }
    case HPROF_TAG_HEAP_SUMMARY:
        in->have_summary = 1;
        in->summary[0] = r->u.heap_summary.live_bytes;
        in->summary[1] = r->u.heap_summary.live_instances;
        in->summary[2] = r->u.heap_summary.alloc_bytes;
        in->summary[3] = r->u.heap_summary.alloc_instances;
        break;
    case HPROF_TAG_CPU_SAMPLES:
        in->m->have_cpu = 1;
        for (uint32_t i = 0; i < r->u.cpu_samples.ntraces; i++) {
            uint32_t count, trace;
            hr_cpu_sample_at(r, i, &count, &trace);
            if (rm_in_count(in, trace, count))
                goto oom;
        }
        break;
    case HPROF_TAG_CONTROL_SETTINGS:
        in->have_control = 1;
        in->control_flags = r->u.control.flags;
        in->control_depth = r->u.control.depth;
        break;
    default:
        break;
    }
    return histo_on_record(in->h, r);
oom:
    in->oom = 1;
    return 1;
}

static int rm_in_sub(void *ctx, const hr_sub *s)
{
    rm_in *in = ctx;
    switch (s->tag) {
    case HPROF_GC_CLASS_DUMP:
    case HPROF_GC_INSTANCE_DUMP:
    case HPROF_GC_OBJ_ARRAY_DUMP:
    case HPROF_GC_PRIM_ARRAY_DUMP:
    case HPROF_GC_HEAP_DUMP_INFO:
    case HPROF_GC_PRIM_ARRAY_NODATA:
        break;
    default:
        in->m->roots[s->tag]++;
        in->m->roots_total++;
        break;
    }
    return histo_on_sub(in->h, s);
}

static void rm_in_problem(void *ctx, hr_severity sev, const char *kind, uint64_t offset,
                          const char *msg)
{
    rm_in *in = ctx;
    (void)sev;
    if (!in->problems++)
        snprintf(in->first_problem, sizeof in->first_problem, "%s at byte %" PRIu64 ": %s", kind,
                 offset, msg);
}

static const rm_str *rm_in_str(const rm_in *in, hprof_id id)
{
    uint64_t *v = id ? hu_map_get(&in->utf8, id) : NULL;
    return v ? &in->strs[*v] : NULL;
}

/* The Java spelling of a class serial's name into buf. */
static const char *rm_in_class(const rm_in *in, uint32_t serial, uint8_t array_type, char *buf,
                               size_t cap)
{
    uint64_t *nid = hu_map_get(&in->cls_name, serial);
    const rm_str *s = nid ? rm_in_str(in, *nid) : NULL;
    if (s && serial) {
        print_java_name(s->s, s->len, buf, cap);
        return buf;
    }
    if (hprof_type_is_primitive(array_type)) {
        snprintf(buf, cap, "%s[]", hprof_type_name(array_type));
        return buf;
    }
    snprintf(buf, cap, "<unknown class %" PRIu32 ">", serial);
    return buf;
}

static int32_t rm_in_frame_name(rm_in *in, const rm_fr *f)
{
    char cls[1024], name[2048];
    rm_in_class(in, f->cls, 0, cls, sizeof cls);
    const rm_str *ms = rm_in_str(in, f->method);
    int n = snprintf(name, sizeof name, "%s.%s", cls, ms ? ms->s : "<unknown method>");
    if (n < 0)
        n = 0;
    return rm_name(in->m, name, (size_t)n < sizeof name ? (size_t)n : sizeof name - 1);
}

/* Adds a heap dump's class to the merged histogram. */
static int rm_histo_add(rm_model *m, const char *name, uint64_t count, uint64_t bytes)
{
    char cls[1024];
    print_java_name(name, strlen(name), cls, sizeof cls);
    int32_t ix = rm_name(m, cls, strlen(cls));
    if (ix < 0)
        return -1;
    int ins;
    uint64_t *v = hu_map_upsert(&m->histo_ix, (uint64_t)ix, m->nhisto, &ins);
    if (!v)
        return -1;
    uint64_t at = *v;
    if (ins) {
        if (rm_grow(&m->histo, &m->caphisto, m->nhisto + 1, sizeof *m->histo))
            return -1;
        m->histo[m->nhisto].cls = ix;
        m->histo[m->nhisto].count = 0;
        m->histo[m->nhisto++].bytes = 0;
    }
    m->histo[at].count += count;
    m->histo[at].bytes += bytes;
    m->heap_objects += count;
    m->heap_bytes += bytes;
    return 0;
}

/* Resolves this input's traces, sites and histogram into the model. */
static int rm_in_resolve(rm_in *in)
{
    rm_model *m = in->m;
    uint32_t depth = in->have_control ? in->control_depth : 0;
    /* frames are named once each */
    int32_t *fname = malloc((in->nfr ? in->nfr : 1) * sizeof *fname);
    int32_t *ffile = malloc((in->nfr ? in->nfr : 1) * sizeof *ffile);
    if (!fname || !ffile)
        goto oom;
    for (size_t i = 0; i < in->nfr; i++) {
        fname[i] = rm_in_frame_name(in, &in->fr[i]);
        const rm_str *src = rm_in_str(in, in->fr[i].source);
        ffile[i] = src ? rt_names_add(m->files, src->s, src->len) : -1;
    }
    int32_t unknown = rm_name(m, "<unknown frame>", 15);
    for (size_t i = 0; i < in->ntr; i++) {
        const rm_tr *t = &in->tr[i];
        uint64_t key = in->off + t->serial;
        if (hu_map_get(&m->trace_ix, key))
            continue; /* a serial written twice: the first stands */
        if (rm_grow(&m->traces, &m->captraces, m->ntraces + 1, sizeof *m->traces) ||
            rm_grow(&m->frames, &m->capframes, m->nframes + t->n + 1, sizeof *m->frames) ||
            hu_map_put(&m->trace_ix, key, m->ntraces))
            goto oom;
        rm_trace *mt = &m->traces[m->ntraces++];
        mt->serial = key;
        mt->thread = t->thread;
        mt->nframes = t->n;
        mt->first = m->nframes;
        for (uint32_t k = 0; k < t->n; k++) {
            uint64_t *fx = hu_map_get(&in->frame_ix, in->ids[t->first + k]);
            rm_frame *f = &m->frames[m->nframes++];
            f->name = fx ? fname[*fx] : unknown;
            f->file = fx ? ffile[*fx] : -1;
            f->line = fx ? in->fr[*fx].line : 0;
        }
        if (t->n > depth && !in->have_control)
            depth = t->n;
    }
    if (in->have_control) {
        m->depth_known = 1;
        char b[32];
        snprintf(b, sizeof b, "%" PRIu32, in->control_depth);
        rm_setting(m, "depth", b);
        rm_setting(m, "cpu", in->control_flags & HPROF_CTRL_CPU_SAMPLING ? "samples" : "off");
        rm_setting(m, "alloc traces", in->control_flags & HPROF_CTRL_ALLOC_TRACES ? "on" : "off");
    }
    if (depth && m->depth && depth != m->depth)
        m->depth_mixed = 1;
    if (depth > m->depth)
        m->depth = depth;
    for (size_t i = 0; i < in->ntr; i++)
        m->traces_at_depth += depth && in->tr[i].n == depth;
    if (in->have_sites) {
        m->have_sites = 1;
        m->sites_by_alloc = (in->sites_flags & HPROF_SITES_SORT_BY_ALLOC) != 0;
        m->sites_forced_gc |= (in->sites_flags & HPROF_SITES_FORCE_GC) != 0;
        for (int k = 0; k < 4; k++)
            m->sites_total[k] += in->sites_tot[k];
        if (in->notes.has_u8) {
            m->sites_total[0] += in->notes.live_total[0] - in->sites_tot[0];
            m->sites_total[1] += in->notes.live_total[1] - in->sites_tot[1];
        }
        if (rm_grow(&m->sites, &m->capsites, m->nsites + in->nsites + 1, sizeof *m->sites))
            goto oom;
        for (size_t i = 0; i < in->nsites; i++) {
            const rm_isite *s = &in->sites[i];
            char cls[1024];
            rm_in_class(in, s->class_serial, s->array_type, cls, sizeof cls);
            rm_site *d = &m->sites[m->nsites++];
            d->trace = in->off + s->trace_serial;
            d->cls = rm_name(m, cls, strlen(cls));
            d->live_bytes = s->v[0];
            d->live_objs = s->v[1];
            d->alloc_bytes = s->v[2];
            d->alloc_objs = s->v[3];
        }
        if (in->notes.note && !m->sites_live_note)
            m->sites_live_note = strdup(in->notes.note);
        if (in->notes.sample_bytes) {
            m->sample_bytes = in->notes.sample_bytes;
            for (size_t i = 0; i < in->nsites; i++)
                m->samples += in->sites[i].samples;
        }
        char when[40];
        uint64_t ms = in->hd.timestamp_ms + in->sites_time_us / 1000;
        rm_iso(in->hd.timestamp_ms ? ms : 0, when, sizeof when);
        free(m->sites_when);
        m->sites_when = strdup(when);
    }
    if (in->have_summary) {
        m->have_summary = 1;
        for (int k = 0; k < 4; k++)
            m->summary[k] += in->summary[k];
    }
    if (histo_finish(in->h, m->normalize) != 0)
        goto oom;
    if (histo_heap_records(in->h)) {
        m->have_heap = 1;
        size_t n;
        const histo_row *rows = histo_rows(in->h, &n);
        for (size_t i = 0; i < n; i++)
            if (rm_histo_add(m, rows[i].name, rows[i].count, rows[i].bytes))
                goto oom;
    }
    free(fname);
    free(ffile);
    return m->oom ? -1 : 0;
oom:
    free(fname);
    free(ffile);
    m->oom = 1;
    return -1;
}

static void rm_in_cleanup(rm_in *in)
{
    for (size_t i = 0; i < in->nstrs; i++)
        free(in->strs[i].s);
    free(in->strs);
    hu_map_cleanup(&in->utf8);
    hu_map_cleanup(&in->cls_name);
    hu_map_cleanup(&in->frame_ix);
    hu_map_cleanup(&in->site_ix);
    hu_map_cleanup(&in->site_ix0);
    free(in->fr);
    free(in->tr);
    free(in->ids);
    free(in->sites);
    print_notes_clear(&in->pending);
    print_notes_clear(&in->notes);
    histo_free(in->h);
}

/* ------------------------------------------------------------- text extras */

static int rm_time_add(rm_model *m, uint64_t trace, const tp_time_row *r)
{
    int ins;
    uint64_t *v = hu_map_upsert(&m->time_ix, trace, m->ntimes, &ins);
    if (!v)
        return -1;
    uint64_t ix = *v;
    if (ins) {
        if (rm_grow(&m->times, &m->captimes, m->ntimes + 1, sizeof *m->times))
            return -1;
        memset(&m->times[m->ntimes], 0, sizeof *m->times);
        m->times[m->ntimes++].trace = trace;
    }
    rm_time *t = &m->times[ix];
    t->calls += r->calls;
    t->self_us += r->self_us;
    t->total_us += r->total_us;
    t->has_total |= r->has_ms;
    return 0;
}

static int rm_extras(rm_model *m, const tp_extras *x, uint64_t off)
{
    size_t n;
    const tp_time_row *tr = tp_extras_times(x, &n);
    uint32_t sections;
    uint64_t total = tp_extras_times_total_ms(x, &sections);
    if (sections) {
        m->have_times = 1;
        m->times_total_ms += total;
    }
    for (size_t i = 0; i < n; i++) {
        m->times_estimated |= !tr[i].has_ms;
        if (rm_time_add(m, off + tr[i].trace, &tr[i]))
            return -1;
    }
    const tp_monitor_row *mr = tp_extras_monitors(x, &n);
    total = tp_extras_monitors_total_ms(x, &sections);
    if (sections) {
        m->have_monitors = 1;
        m->monitors_total_ms += total;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t mon = rm_name(m, mr[i].monitor, strlen(mr[i].monitor));
        if (mon < 0)
            return -1;
        /* one row per (trace, monitor) over every section and input, found
         * through two maps (a scan made 100 000 rows take minutes) */
        int ins;
        uint64_t *tn = hu_map_upsert(&m->mon_trace, off + mr[i].trace, m->mon_trace.count, &ins);
        if (!tn)
            return -1;
        uint64_t *at = hu_map_upsert(&m->mon_ix, *tn << 32 | (uint32_t)mon, m->nmonitors, &ins);
        if (!at)
            return -1;
        size_t k = (size_t)*at;
        if (ins) {
            if (rm_grow(&m->monitors, &m->capmonitors, m->nmonitors + 1, sizeof *m->monitors))
                return -1;
            memset(&m->monitors[k], 0, sizeof m->monitors[k]);
            m->monitors[k].trace = off + mr[i].trace;
            m->monitors[k].monitor = mon;
            m->nmonitors++;
        }
        m->monitors[k].count += mr[i].count;
        m->monitors[k].us += mr[i].self_us;
    }
    const tp_mdump_monitor *md = tp_extras_mdump_monitors(x, &n);
    m->monitor_dumps += n;
    uint32_t lastdump = 0;
    for (size_t i = 0; i < n; i++)
        lastdump = md[i].section > lastdump ? md[i].section : lastdump;
    size_t nth;
    const tp_mdump_thread *th = tp_extras_mdump_threads(x, &nth);
    if (n || nth) {
        for (size_t i = 0; i < nth; i++)
            lastdump = th[i].section > lastdump ? th[i].section : lastdump;
        free(m->mdump);
        m->mdump = NULL;
        m->nmdump = 0;
        m->mdump_threads = 0;
        for (size_t i = 0; i < nth; i++)
            m->mdump_threads += th[i].section == lastdump;
        m->mdump = calloc(n ? n : 1, sizeof *m->mdump);
        if (!m->mdump)
            return -1;
        for (size_t i = 0; i < n; i++) {
            if (md[i].section != lastdump)
                continue;
            rm_mdump *d = &m->mdump[m->nmdump++];
            char jn[1024];
            size_t jl = print_java_name(md[i].monitor, strlen(md[i].monitor), jn, sizeof jn);
            d->monitor = rm_name(m, jn, jl < sizeof jn ? jl : sizeof jn - 1);
            d->owner = md[i].owner;
            d->entry_count = md[i].entry_count;
            d->waiting_enter = md[i].waiting_enter;
            d->waiting_notify = md[i].waiting_notify;
        }
        m->have_mdump = 1;
    }
    const tp_wait *w = tp_extras_waits(x, &n);
    for (size_t i = 0; i < n; i++) {
        if (w[i].waited) {
            m->waiteds++;
            m->waited_ms += w[i].ms > 0 ? (uint64_t)w[i].ms : 0;
        } else {
            m->waits++;
        }
    }
    if (tp_extras_heap_dumps(x)) {
        m->have_heap = 1;
        const tp_heap_class *hc = tp_extras_heap(x, &n);
        for (size_t i = 0; i < n; i++)
            if (rm_histo_add(m, hc[i].name, hc[i].count, hc[i].bytes))
                return -1;
        const uint64_t *roots = tp_extras_roots(x);
        for (unsigned t = 0; t < 256; t++) {
            m->roots[t] += roots[t];
            m->roots_total += roots[t];
        }
    }
    const tp_sites_note *sn = tp_extras_sites(x, &n);
    if (n) {
        const tp_sites_note *last = &sn[n - 1];
        if (last->sample_bytes) {
            m->sample_bytes = last->sample_bytes;
            m->samples += last->samples;
        }
        if (last->live_note && !m->sites_live_note)
            m->sites_live_note = strdup(last->live_note);
    }
    if (tp_extras_skipped(x))
        rm_warn(m, "%" PRIu32 " line%s of the CPU TIME, MONITOR, WAIT or HEAP DUMP sections did "
                   "not read as the layout says and %s left out",
                tp_extras_skipped(x), tp_extras_skipped(x) == 1 ? "" : "s",
                tp_extras_skipped(x) == 1 ? "was" : "were");
    return 0;
}

/* The whole text when `path` is the text layout, plain or gzip: 1 with
 * *buf (malloc'ed), 0 when it is not text (binary, or not a profile: the
 * binary reader says what), -1 with errno when it cannot be read. */
static int rm_read_text(const char *path, char **buf, size_t *len)
{
    gzFile g = gzopen(path, "rb");
    if (!g) {
        if (!errno)
            errno = ENOMEM;
        return -1;
    }
    char head[64];
    int hn = gzread(g, head, sizeof head);
    if (hn <= 0 || !tp_is_text(head, (size_t)hn)) {
        gzclose(g);
        return 0;
    }
    size_t cap = 1 << 16, n = (size_t)hn;
    char *b = malloc(cap);
    if (!b) {
        gzclose(g);
        errno = ENOMEM;
        return -1;
    }
    memcpy(b, head, n);
    for (;;) {
        if (n == cap) {
            char *q = cap <= SIZE_MAX / 2 ? realloc(b, cap * 2) : NULL;
            if (!q) {
                free(b);
                gzclose(g);
                errno = ENOMEM;
                return -1;
            }
            b = q;
            cap *= 2;
        }
        size_t want = cap - n > (1u << 30) ? (1u << 30) : cap - n;
        int k = gzread(g, b + n, (unsigned)want);
        if (k < 0) {
            int e;
            const char *msg = gzerror(g, &e);
            (void)msg;
            free(b);
            gzclose(g);
            errno = e == Z_ERRNO ? errno : EIO;
            return -1;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    gzclose(g);
    *buf = b;
    *len = n;
    return 1;
}

/* Where to cut a text that ends inside a line: after its last whole line;
 * when that is inside a section, *close is the section's END line (the rows
 * before the cut are kept by closing it). */
static size_t rm_text_cut(const char *t, size_t len, const char **close)
{
    static const char *const begins[] = {"SITES BEGIN", "CPU SAMPLES BEGIN", "CPU TIME (ms) BEGIN",
                                         "MONITOR TIME BEGIN", "MONITOR DUMP BEGIN",
                                         "HEAP DUMP BEGIN", NULL};
    static const char *const ends[] = {"SITES END", "CPU SAMPLES END", "CPU TIME (ms) END",
                                       "MONITOR TIME END", "MONITOR DUMP END", "HEAP DUMP END",
                                       NULL};
    size_t whole = len;
    while (whole > 0 && t[whole - 1] != '\n')
        whole--;
    /* the lines backwards, to the last that begins or ends a section */
    for (size_t i = whole; i > 0;) {
        size_t st = i - 1;
        while (st > 0 && t[st - 1] != '\n')
            st--;
        size_t n = i - 1 - st;
        for (int k = 0; begins[k]; k++) {
            size_t bl = strlen(begins[k]), el = strlen(ends[k]);
            if (n >= el && memcmp(t + st, ends[k], el) == 0)
                return whole; /* the last section is complete */
            if (n >= bl && memcmp(t + st, begins[k], bl) == 0) {
                *close = ends[k]; /* an unfinished section: closed by the caller */
                return whole;
            }
        }
        i = st;
    }
    return whole;
}

int rm_add_file(rm_model *m, const char *path, char *err, size_t errcap)
{
    if (rm_grow(&m->inputs, &m->capinputs, m->ninputs + 1, sizeof *m->inputs)) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    uint64_t off = (m->first_input + m->ninputs) * RM_INPUT_STRIDE;
    rm_input *inp = &m->inputs[m->ninputs];
    memset(inp, 0, sizeof *inp);
    inp->path = strdup(path);
    if (!inp->path) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    m->ninputs++;
    /* standard input is read twice (text or binary first): spooled */
    char *spool = NULL;
    const char *rpath = path;
    if (strcmp(path, "-") == 0) {
        spool = print_spool_stdin(); /* read twice: text or binary first */
        if (!spool) {
            snprintf(err, errcap, "standard input: %s", strerror(errno));
            return -1;
        }
        rpath = spool;
    }
    struct stat st;
    if (stat(rpath, &st) == 0)
        inp->bytes = (uint64_t)st.st_size;
    if (stat(rpath, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* by name: read as a file, a directory looks like an empty one */
        snprintf(err, errcap, "%s: %s", path, strerror(EISDIR));
        free(spool);
        return -1;
    }
    size_t tlen = 0;
    char *text = NULL;
    uint8_t *bin = NULL;
    size_t binlen = 0;
    tp_extras *x = NULL;
    hr_source *src = NULL;
    int rc = -1;
    inp->kind = "binary";
    errno = 0;
    int t = rm_read_text(rpath, &text, &tlen);
    if (t < 0) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        goto early;
    }
    if (text) {
        const char *dash = NULL;
        for (size_t i = 0; i + 10 <= tlen && !dash; i++)
            if (memcmp(text + i, "\n--------\n", 10) == 0)
                dash = text + i;
        static const char ours[] = "Section CPU SAMPLES (cpu=samples)";
        size_t pl = dash ? (size_t)(dash - text) : 0;
        inp->kind = "text-jdk8";
        for (size_t i = 0; i + sizeof ours - 1 <= pl; i++)
            if (memcmp(text + i, ours, sizeof ours - 1) == 0) {
                inp->kind = "text";
                break;
            }
        tp_info info;
        char terr[256];
        if (tp_translate(text, tlen, &bin, &binlen, &info, terr, sizeof terr) != 0) {
            /* cut short: the whole lines, the last section closed */
            const char *close = NULL;
            size_t cut = rm_text_cut(text, tlen, &close);
            size_t cl = close ? strlen(close) : 0;
            char *fixed = malloc(cut + cl + 2);
            if (!fixed) {
                snprintf(err, errcap, "out of memory");
                goto early;
            }
            memcpy(fixed, text, cut);
            if (close) {
                memcpy(fixed + cut, close, cl);
                fixed[cut + cl] = '\n';
            }
            size_t fl = cut + (close ? cl + 1 : 0);
            int ok = tp_translate(fixed, fl, &bin, &binlen, &info, err, errcap) == 0;
            free(text);
            text = fixed;
            tlen = fl;
            if (!ok) {
                snprintf(err, errcap, "%s: %s", path, terr);
                goto early;
            }
            rm_warn(m, "%s is cut short or damaged (%s): what comes before is shown", path, terr);
        }
        char xerr[128];
        if (tp_extras_parse(text, tlen, &x, xerr, sizeof xerr) != 0) {
            snprintf(err, errcap, "%s: %s", path, xerr);
            goto early;
        }
    }
    int e = 0;
    src = bin ? hr_source_memory(bin, binlen) : hr_source_file(rpath, &e);
    if (!src) {
        snprintf(err, errcap, "%s: %s", path, strerror(e ? e : ENOMEM));
        goto early;
    }
    rm_in in;
    memset(&in, 0, sizeof in);
    in.m = m;
    in.off = off;
    hu_map_init(&in.utf8);
    hu_map_init(&in.cls_name);
    hu_map_init(&in.frame_ix);
    hu_map_init(&in.site_ix);
    hu_map_init(&in.site_ix0);
    in.h = histo_new();
    if (!in.h) {
        snprintf(err, errcap, "out of memory");
        goto out;
    }
    hr_callbacks cb = {.on_header = rm_in_header, .on_record = rm_in_record, .on_sub = rm_in_sub,
                       .on_problem = rm_in_problem};
    hr_status st2 = hr_parse(src, &cb, &in, NULL);
    if (in.oom) {
        snprintf(err, errcap, "out of memory reading %s", path);
        goto out;
    }
    if (in.hd.version == 0) {
        snprintf(err, errcap, "%s: not an HPROF file (binary HPROF, gzip, or the agent's text "
                              "java.hprof.txt); %s",
                 path, in.problems ? in.first_problem : "empty");
        goto out;
    }
    if (st2 != HR_OK && in.problems)
        rm_warn(m, "%s is cut short or damaged (%s): what comes before is shown", path,
                in.first_problem);
    else if (in.problems)
        rm_warn(m, "%s: %" PRIu64 " problem%s in the file (first: %s)", path, in.problems,
                in.problems == 1 ? "" : "s", in.first_problem);
    rm_setting(m, "file", path);
    rm_setting(m, "format", text ? (strcmp(inp->kind, "text") == 0 ? "text" : "text (JDK 5-8 agent)")
                                 : (hr_source_is_gzip(src) ? "binary (gzip)" : "binary"));
    rm_setting(m, "hprof version", in.hd.magic);
    if (!text) {
        char b[16];
        snprintf(b, sizeof b, "%u", in.hd.id_size);
        rm_setting(m, "id size", b);
    }
    char when[40];
    rm_iso(in.hd.timestamp_ms, when, sizeof when);
    rm_setting(m, "created", when);
    if (m->ninputs == 1)
        m->first_created_ms = in.hd.timestamp_ms;
    else if (in.hd.timestamp_ms != m->first_created_ms)
        m->mixed_runs = 1;
    if (rm_in_resolve(&in) != 0 || (x && rm_extras(m, x, off) != 0) || m->oom) {
        snprintf(err, errcap, "out of memory reading %s", path);
        goto out;
    }
    inp->heap_dump = !text && histo_heap_records(in.h) > 0 ? (spool ? -1 : 1) : 0;
    rc = 0;
out:
    rm_in_cleanup(&in);
early:
    if (src)
        hr_source_close(src);
    tp_extras_free(x);
    free(text);
    free(bin);
    if (spool) {
        unlink(spool);
        free(spool);
    }
    return rc;
}

void rm_finish(rm_model *m)
{
    /* a file without CONTROL SETTINGS (text) does not say its depth: when
     * its deepest traces have the agent's default 4 frames, they were cut */
    int known = m->depth_known;
    const char *depths = NULL; /* the settings' row: every input's depth */
    for (size_t i = 0; i + 1 < m->nsettings; i += 2)
        if (strcmp(m->settings[i], "depth") == 0)
            depths = m->settings[i + 1];
    if (m->depth_mixed) {
        /* each trace was compared with its own file's depth; without a
         * CONTROL SETTINGS depth to go by (text), no claim */
        if (known && depths && m->ntraces && m->traces_at_depth * 10 >= m->ntraces)
            rm_warn(m, "depth=%s cuts stacks: %" PRIu64 "%% of traces have exactly their file's "
                       "depth in frames, so their callers are missing: raise depth= (e.g. depth=32)",
                    depths, m->traces_at_depth * 100 / m->ntraces);
    } else if (m->depth && m->ntraces && m->traces_at_depth * 10 >= m->ntraces &&
               (known || m->depth == 4))
        rm_warn(m, "depth=%" PRIu32 " cuts stacks: %" PRIu64 "%% of traces have exactly %" PRIu32
                   " frames%s, so their callers are missing: raise depth= (e.g. depth=32)",
                m->depth, m->traces_at_depth * 100 / m->ntraces, m->depth,
                known ? "" : " (the most any has; the file does not say its depth)");
    if (m->have_cpu && m->cpu_total < 100)
        rm_warn(m, "only %" PRIu64 " CPU samples (fewer than 100): shares are rough", m->cpu_total);
    if (m->have_sites) {
        if (m->sites_live_note)
            rm_warn(m, "live counts: %s", m->sites_live_note);
        else
            rm_warn(m, "the sites' live columns count the objects still reachable at the last "
                       "GC before the sites were written, not now");
    }
    if (m->sample_bytes)
        rm_warn(m, "the sites' figures are estimates from %" PRIu64 " allocation samples "
                   "(sample=%" PRIu64 " bytes), not exact counts",
                m->samples, m->sample_bytes);
    if (m->mixed_runs)
        rm_warn(m, "the inputs come from different runs (their headers' times differ): their "
                   "traces are kept apart, their flames add up");
    if (m->times_estimated)
        rm_warn(m, "CPU TIME in the JDK 5-8 layout has no per-method milliseconds: self ms is the "
                   "row's share of the section's total");
}
