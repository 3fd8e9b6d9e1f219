/* tp_text.c: parses the text layout line by line and writes the binary
 * records with the writer library into a memory sink (tp_text.h says what is
 * carried). Names are interned once each (UTF8 ids); classes get a serial
 * and a LOAD CLASS on first use, frames an id each. The contract on bad input:
 * the first problem stops the translation with "line N: ..." in err. */
#include "tp_text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hprof/hprof_format.h>
#include <hprof/hw_writer.h>

#define TP_MAGIC "JAVA PROFILE 1.0."

/* string -> id, open addressing; also class name -> serial */
typedef struct tp_names {
    char **key;
    size_t *klen; /* keys may hold NUL bytes (a damaged file's) */
    uint64_t *val;
    size_t cap, n;
} tp_names;

typedef struct tp_ctx {
    hw_writer *w;
    tp_names utf8, classes;
    uint64_t next_id;     /* UTF8 and frame ids */
    uint32_t next_class;  /* class serials */
    hprof_id empty_id;    /* "" (the signature text lacks) */
    hprof_id *frames;     /* frames of the trace being read */
    size_t nframes, capframes;
    hw_alloc_site *sites;
    size_t nsites, capsites;
    hw_cpu_sample *samples;
    size_t nsamples, capsamples;
    uint64_t summary[4];
    uint64_t rowsum[4]; /* the SITES rows' unclamped sums */
    int have_summary;
    tp_info *info;
    char *err;
    size_t errcap;
    size_t line;
    int failed;
} tp_ctx;

static int tp_fail(tp_ctx *c, const char *fmt, ...)
{
    if (c->failed)
        return -1;
    c->failed = 1;
    int n = snprintf(c->err, c->errcap, "line %zu: ", c->line);
    if (n < 0 || (size_t)n >= c->errcap)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, c->errcap - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t tp_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static void tp_names_cleanup(tp_names *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->key[i]);
    free(t->key);
    free(t->klen);
    free(t->val);
    memset(t, 0, sizeof *t);
}

static int tp_names_grow(tp_names *t)
{
    size_t nc = t->cap ? t->cap * 2 : 256;
    char **nk = calloc(nc, sizeof *nk);
    size_t *nl = calloc(nc, sizeof *nl);
    uint64_t *nv = calloc(nc, sizeof *nv);
    if (!nk || !nl || !nv) {
        free(nk);
        free(nl);
        free(nv);
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->key[i])
            continue;
        size_t j = tp_hash(t->key[i], t->klen[i]) & (nc - 1);
        while (nk[j])
            j = (j + 1) & (nc - 1);
        nk[j] = t->key[i];
        nl[j] = t->klen[i];
        nv[j] = t->val[i];
    }
    free(t->key);
    free(t->klen);
    free(t->val);
    t->key = nk;
    t->klen = nl;
    t->val = nv;
    t->cap = nc;
    return 0;
}

/* The value of `s` (len bytes): 0 when absent (values are
 * never 0), else the value; with `add`, an absent key gets `add` and *added
 * is set. -1 (as uint64) when out of memory. */
static uint64_t tp_names_get(tp_names *t, const char *s, size_t len, uint64_t add, int *added)
{
    if (added)
        *added = 0;
    if ((t->n + 1) * 2 > t->cap && tp_names_grow(t) != 0)
        return UINT64_MAX;
    size_t j = tp_hash(s, len) & (t->cap - 1);
    while (t->key[j]) {
        if (t->klen[j] == len && memcmp(t->key[j], s, len) == 0)
            return t->val[j];
        j = (j + 1) & (t->cap - 1);
    }
    if (!add)
        return 0;
    char *k = malloc(len + 1);
    if (!k)
        return UINT64_MAX;
    memcpy(k, s, len);
    k[len] = 0;
    t->key[j] = k;
    t->klen[j] = len;
    t->val[j] = add;
    t->n++;
    if (added)
        *added = 1;
    return add;
}

/* The UTF8 id of a string, its record written on first use. */
static hprof_id tp_utf8(tp_ctx *c, const char *s, size_t len)
{
    int added;
    uint64_t id = tp_names_get(&c->utf8, s, len, c->next_id, &added);
    if (id == UINT64_MAX) {
        tp_fail(c, "out of memory");
        return 0;
    }
    if (added) {
        c->next_id++;
        hw_utf8(c->w, id, s, len);
    }
    return id;
}

/* The serial of a class (by its Java name, as the text writes it: print's
 * names keep a Java name as written), with its LOAD CLASS on first use. */
static uint32_t tp_class(tp_ctx *c, const char *s, size_t len)
{
    int added;
    uint64_t serial = tp_names_get(&c->classes, s, len, c->next_class, &added);
    if (serial == UINT64_MAX) {
        tp_fail(c, "out of memory");
        return 0;
    }
    if (added) {
        c->next_class++;
        hprof_id name = tp_utf8(c, s, len);
        hprof_id cid = c->next_id++;
        hw_load_class(c->w, (uint32_t)serial, cid, 0, name);
    }
    return (uint32_t)serial;
}

int tp_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *np = realloc(*p, nc * elem);
    if (!np)
        return -1;
    *p = np;
    *cap = nc;
    return 0;
}

static uint32_t tp_u4(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int tp_starts(const char *l, size_t n, const char *pre)
{
    size_t k = strlen(pre);
    return n >= k && memcmp(l, pre, k) == 0;
}

/* An unsigned decimal at *p (spaces before it skipped), below `max`. */
static int tp_num(const char **p, const char *end, uint64_t max, uint64_t *v)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    if (s == end || *s < '0' || *s > '9')
        return -1;
    uint64_t x = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        if (x > (max - (uint64_t)(*s - '0')) / 10)
            return -1;
        x = x * 10 + (uint64_t)(*s - '0');
        s++;
    }
    *p = s;
    *v = x;
    return 0;
}

/* A percentage column "12.34%": skipped. */
static int tp_pct(const char **p, const char *end)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    const char *b = s;
    while (s < end && ((*s >= '0' && *s <= '9') || *s == '.'))
        s++;
    if (s == b || s == end || *s != '%')
        return -1;
    *p = s + 1;
    return 0;
}

/* "\tclass.method(source:line)" -> one FRAME record. */
static int tp_frame(tp_ctx *c, const char *l, size_t n)
{
    const char *end = l + n;
    const char *open = memchr(l, '(', n);
    if (!open || end[-1] != ')')
        return tp_fail(c, "a trace frame reads class.method(source:line)");
    const char *dot = NULL;
    for (const char *q = l; q < open; q++)
        if (*q == '.')
            dot = q;
    if (!dot || dot == l)
        return tp_fail(c, "a trace frame reads class.method(source:line)");
    const char *in = open + 1, *close = end - 1;
    const char *colon = NULL;
    for (const char *q = in; q < close; q++)
        if (*q == ':')
            colon = q;
    if (!colon)
        return tp_fail(c, "a trace frame's (source:line) has no ':'");
    int32_t line;
    size_t ll = (size_t)(close - colon - 1);
    const char *lt = colon + 1;
    if (ll == 12 && memcmp(lt, "Unknown line", 12) == 0) {
        line = HPROF_LINE_UNKNOWN;
    } else if (ll == 15 && memcmp(lt, "Compiled method", 15) == 0) {
        line = HPROF_LINE_COMPILED;
    } else if (ll == 13 && memcmp(lt, "Native method", 13) == 0) {
        line = HPROF_LINE_NATIVE;
    } else {
        uint64_t v;
        const char *q = lt;
        if (tp_num(&q, close, INT32_MAX, &v) != 0 || q != close)
            return tp_fail(c, "a trace frame's line is a number, Unknown line, "
                              "Compiled method or Native method");
        line = (int32_t)v;
    }
    uint32_t cls = tp_class(c, l, (size_t)(dot - l));
    const char *m = dot + 1;
    size_t ml = (size_t)(open - m);
    hprof_id mid = (ml == 16 && memcmp(m, "<Unknown Method>", 16) == 0) ? 0 : tp_utf8(c, m, ml);
    size_t sl = (size_t)(colon - in);
    hprof_id sid = (sl == 16 && memcmp(in, "<Unknown Source>", 16) == 0) ? 0 : tp_utf8(c, in, sl);
    if (c->failed)
        return -1;
    hprof_id fid = c->next_id++;
    hw_frame(c->w, fid, mid, c->empty_id, sid, cls, line);
    if (tp_grow((void **)&c->frames, &c->capframes, c->nframes + 1, sizeof *c->frames) != 0)
        return tp_fail(c, "out of memory");
    c->frames[c->nframes++] = fid;
    return 0;
}

/* " rank self accum live-bytes live-objs alloc-bytes alloc-objs trace name [...]" */
static int tp_site(tp_ctx *c, const char *l, size_t n)
{
    const char *p = l, *end = l + n;
    uint64_t v[7];
    if (tp_num(&p, end, UINT32_MAX, &v[0]) != 0 || tp_pct(&p, end) != 0 || tp_pct(&p, end) != 0)
        return tp_fail(c, "a SITES row reads rank self%% accum%% bytes objs bytes objs trace name");
    /* counts past u4 (ours prints 64-bit ones) are clamped, as the agent's
     * binary output clamps them; the trace serial must fit */
    for (int i = 1; i < 6; i++)
        if (tp_num(&p, end, i == 5 ? UINT32_MAX : UINT64_MAX, &v[i]) != 0)
            return tp_fail(c, "a SITES row reads rank self%% accum%% bytes objs bytes objs trace name");
    while (p < end && *p == ' ')
        p++;
    const char *name = p;
    while (p < end && *p != ' ')
        p++;
    if (p == name)
        return tp_fail(c, "a SITES row has no class name");
    uint32_t cls = tp_class(c, name, (size_t)(p - name));
    if (c->failed)
        return -1;
    if (tp_grow((void **)&c->sites, &c->capsites, c->nsites + 1, sizeof *c->sites) != 0)
        return tp_fail(c, "out of memory");
    hw_alloc_site *s = &c->sites[c->nsites++];
    memset(s, 0, sizeof *s);
    s->class_serial = cls;
    for (int i = 0; i < 4; i++)
        c->rowsum[i] = c->rowsum[i] > UINT64_MAX - v[i + 1] ? UINT64_MAX : c->rowsum[i] + v[i + 1];
    s->live_bytes = tp_u4(v[1]);
    s->live_instances = tp_u4(v[2]);
    s->alloc_bytes = tp_u4(v[3]);
    s->alloc_instances = tp_u4(v[4]);
    s->trace_serial = (uint32_t)v[5];
    return 0;
}

/* "rank self accum count trace method" */
static int tp_sample(tp_ctx *c, const char *l, size_t n)
{
    const char *p = l, *end = l + n;
    uint64_t rank, count, trace;
    if (tp_num(&p, end, UINT32_MAX, &rank) != 0 || tp_pct(&p, end) != 0 || tp_pct(&p, end) != 0 ||
        tp_num(&p, end, UINT64_MAX, &count) != 0 || tp_num(&p, end, UINT32_MAX, &trace) != 0)
        return tp_fail(c, "a CPU SAMPLES row reads rank self%% accum%% count trace method");
    if (tp_grow((void **)&c->samples, &c->capsamples, c->nsamples + 1, sizeof *c->samples) != 0)
        return tp_fail(c, "out of memory");
    c->samples[c->nsamples].count = tp_u4(count);
    c->samples[c->nsamples++].trace_serial = (uint32_t)trace;
    return 0;
}

/* A quoted field `key="..."`: its text (no escapes in the layout). */
static int tp_quoted(const char *l, size_t n, const char *key, const char **s, size_t *len)
{
    size_t k = strlen(key);
    for (size_t i = 0; i + k < n; i++) {
        if (memcmp(l + i, key, k) == 0 && l[i + k] == '"') {
            const char *b = l + i + k + 1;
            const char *e = memchr(b, '"', (size_t)(l + n - b));
            if (!e)
                return -1;
            *s = b;
            *len = (size_t)(e - b);
            return 0;
        }
    }
    return -1;
}

/* "THREAD START (obj=50000139, id = 200001, name="main", group="main")" */
static int tp_thread_start(tp_ctx *c, const char *l, size_t n)
{
    const char *end = l + n, *p = l + 18;
    uint64_t obj = 0, serial;
    if (!tp_starts(l, n, "THREAD START (obj="))
        return tp_fail(c, "THREAD START reads (obj=HEX, id = N, name=\"..\", group=\"..\")");
    while (p < end && *p != ',') {
        int d = (*p >= '0' && *p <= '9') ? *p - '0' : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10 : -1;
        if (d < 0 || obj >> 60)
            return tp_fail(c, "THREAD START's obj= is not hexadecimal");
        obj = obj * 16 + (uint64_t)d;
        p++;
    }
    if (end - p < 7 || memcmp(p, ", id = ", 7) != 0)
        return tp_fail(c, "THREAD START reads (obj=HEX, id = N, ...)");
    p += 7;
    if (tp_num(&p, end, UINT32_MAX, &serial) != 0)
        return tp_fail(c, "THREAD START's id is not a number");
    const char *name = "", *group = "";
    size_t nl = 0, gl = 0;
    if (tp_quoted(p, (size_t)(end - p), "name=", &name, &nl) != 0 ||
        tp_quoted(p, (size_t)(end - p), "group=", &group, &gl) != 0)
        return tp_fail(c, "THREAD START needs name=\"...\" and group=\"...\"");
    hprof_id nid = tp_utf8(c, name, nl), gid = tp_utf8(c, group, gl);
    if (c->failed)
        return -1;
    hw_start_thread(c->w, (uint32_t)serial, obj, 0, nid, gid, 0);
    c->info->threads++;
    return 0;
}

enum { TP_NONE, TP_TRACE, TP_SITES, TP_SAMPLES, TP_SKIP };

/* Ends the block open at `state` (a non-tab line ends a TRACE). */
static void tp_end_trace(tp_ctx *c, uint32_t serial, uint32_t thread)
{
    hw_trace(c->w, serial, thread, (uint32_t)c->nframes, c->frames);
    c->nframes = 0;
    c->info->traces++;
}

static int tp_run(tp_ctx *c, const char *text, size_t len)
{
    size_t pos = 0;
    /* ours and the original's prelude (legend, licence) ends with a line
     * "--------": the records start after it. Without one, after line 1. */
    const char *nl = memchr(text, '\n', len);
    if (!nl) {
        c->line = 1;
        return tp_fail(c, "the file is cut in its first line");
    }
    pos = (size_t)(nl - text) + 1;
    c->line = 1;
    for (size_t i = pos; i + 10 <= len; i++) {
        if (memcmp(text + i, "\n--------\n", 10) == 0) {
            /* the agent's HPROF_RUN_NOTE line in the prelude: the same UTF8
             * record as in its binary output (nothing refers to it) */
            size_t rl = strlen(HPROF_RUN_NOTE);
            for (size_t k = pos; k + rl <= i; k++) {
                if ((k == pos || text[k - 1] == '\n') && memcmp(text + k, HPROF_RUN_NOTE, rl) == 0) {
                    const char *end = memchr(text + k, '\n', i + 1 - k);
                    size_t n = end ? (size_t)(end - (text + k)) : i - k;
                    hw_utf8(c->w, c->next_id++, text + k, n);
                    break;
                }
            }
            for (size_t k = pos; k < i + 10; k++)
                c->line += text[k] == '\n';
            pos = i + 10;
            break;
        }
    }
    int state = TP_NONE;
    const char *skip_end = NULL;
    uint32_t tserial = 0, tthread = 0;
    uint64_t total = 0;
    uint16_t sflags = 0;
    while (pos < len && !c->failed) {
        c->line++;
        const char *l = text + pos;
        const char *e = memchr(l, '\n', len - pos);
        if (!e)
            return tp_fail(c, "the file is cut (its last line has no end)");
        size_t n = (size_t)(e - l);
        pos += n + 1;
        if (n && l[n - 1] == '\r')
            n--;
        if (state == TP_TRACE) {
            if (n && l[0] == '\t') {
                if (n == 8 && memcmp(l, "\t<empty>", 8) == 0)
                    continue;
                tp_frame(c, l + 1, n - 1);
                continue;
            }
            tp_end_trace(c, tserial, tthread);
            state = TP_NONE;
        }
        if (state == TP_SKIP) {
            if (tp_starts(l, n, skip_end))
                state = TP_NONE;
            continue;
        }
        if (state == TP_SITES) {
            if (n == 9 && memcmp(l, "SITES END", 9) == 0) {
                hw_alloc_sites_head h;
                memset(&h, 0, sizeof h);
                h.flags = sflags;
                if (c->have_summary) {
                    h.total_live_bytes = tp_u4(c->summary[0]);
                    h.total_live_instances = tp_u4(c->summary[1]);
                    h.total_alloc_bytes = c->summary[2];
                    h.total_alloc_instances = c->summary[3];
                } else {
                    /* the original has no totals: the rows' sums (a cutoff's
                     * left-out rows are not in them) */
                    const uint64_t *t = c->rowsum;
                    h.total_live_bytes = tp_u4(t[0]);
                    h.total_live_instances = tp_u4(t[1]);
                    h.total_alloc_bytes = t[2];
                    h.total_alloc_instances = t[3];
                }
                hw_alloc_sites(c->w, &h, c->sites, (uint32_t)c->nsites);
                c->nsites = 0;
                c->info->sites++;
                state = TP_NONE;
            } else if (tp_starts(l, n, "          percent") || tp_starts(l, n, " rank")) {
                continue;
            } else {
                tp_site(c, l, n);
            }
            continue;
        }
        if (state == TP_SAMPLES) {
            if (n == 15 && memcmp(l, "CPU SAMPLES END", 15) == 0) {
                hw_cpu_samples(c->w, tp_u4(total), c->samples, (uint32_t)c->nsamples);
                c->nsamples = 0;
                c->info->samples++;
                state = TP_NONE;
            } else if (!tp_starts(l, n, "rank ")) {
                tp_sample(c, l, n);
            }
            continue;
        }
        if (tp_starts(l, n, "TRACE ") && n > 6 && l[6] >= '0' && l[6] <= '9') {
            const char *p = l + 6;
            uint64_t v, th = 0;
            if (tp_num(&p, l + n, UINT32_MAX, &v) != 0 || p == l + n || *p != ':')
                return tp_fail(c, "a TRACE line reads TRACE N:");
            const char *t = memchr(p, '=', (size_t)(l + n - p));
            if (tp_starts(p, (size_t)(l + n - p), ": (thread=")) {
                p = t + 1;
                if (tp_num(&p, l + n, UINT32_MAX, &th) != 0)
                    return tp_fail(c, "a TRACE line's (thread=N) is not a number");
            }
            tserial = (uint32_t)v;
            tthread = (uint32_t)th;
            state = TP_TRACE;
        } else if (tp_starts(l, n, "THREAD START ")) {
            tp_thread_start(c, l, n);
        } else if (tp_starts(l, n, "THREAD END (id = ")) {
            const char *p = l + 17;
            uint64_t v;
            if (tp_num(&p, l + n, UINT32_MAX, &v) != 0)
                return tp_fail(c, "THREAD END's id is not a number");
            hw_end_thread(c->w, (uint32_t)v);
        } else if (tp_starts(l, n, "SITES BEGIN ")) {
            sflags = tp_starts(l, n, "SITES BEGIN (ordered by allocated") ? HPROF_SITES_SORT_BY_ALLOC : 0;
            c->nsites = 0;
            memset(c->rowsum, 0, sizeof c->rowsum);
            state = TP_SITES;
        } else if (tp_starts(l, n, "CPU SAMPLES BEGIN (total = ")) {
            const char *p = l + 27;
            if (tp_num(&p, l + n, UINT64_MAX, &total) != 0)
                return tp_fail(c, "CPU SAMPLES BEGIN's total is not a number");
            c->nsamples = 0;
            state = TP_SAMPLES;
        } else if (tp_starts(l, n, "HEAP SUMMARY: live ")) {
            uint64_t v[4];
            const char *p = l + 19, *end = l + n;
            static const char *const sep[3] = {" bytes in", " objects; allocated", " bytes in"};
            for (int i = 0; i < 4; i++) {
                if (tp_num(&p, end, UINT64_MAX, &v[i]) != 0)
                    return tp_fail(c, "HEAP SUMMARY reads live N bytes in N objects; allocated ...");
                if (i < 3) {
                    size_t k = strlen(sep[i]);
                    if ((size_t)(end - p) < k || memcmp(p, sep[i], k) != 0)
                        return tp_fail(c, "HEAP SUMMARY reads live N bytes in N objects; allocated ...");
                    p += k;
                }
            }
            hw_heap_summary(c->w, tp_u4(v[0]),
                            tp_u4(v[1]), v[2], v[3]);
            memcpy(c->summary, v, sizeof v);
            c->have_summary = 1;
            c->info->summaries++;
        } else if (tp_starts(l, n, "HEAP DUMP BEGIN")) {
            c->info->heap_dumps++;
            skip_end = "HEAP DUMP END";
            state = TP_SKIP;
        } else if (tp_starts(l, n, "CPU TIME (ms) BEGIN")) {
            c->info->cpu_times++;
            skip_end = "CPU TIME (ms) END";
            state = TP_SKIP;
        } else if (tp_starts(l, n, "MONITOR DUMP BEGIN")) {
            c->info->monitor_dumps++;
            skip_end = "MONITOR DUMP END";
            state = TP_SKIP;
        } else if (tp_starts(l, n, "MONITOR TIME BEGIN")) {
            c->info->monitor_times++;
            skip_end = "MONITOR TIME END";
            state = TP_SKIP;
        }
        /* anything else (WAIT lines, notes, blank lines): nothing to carry */
    }
    if (c->failed)
        return -1;
    if (state == TP_TRACE)
        tp_end_trace(c, tserial, tthread);
    else if (state != TP_NONE)
        return tp_fail(c, "the file is cut inside a section (no END line)");
    return 0;
}

/* The header's "created <ctime>" (local time, as ctime writes it) in ms
 * since the epoch, 0 when it does not parse: every section's time then. */
static uint64_t tp_created_ms(const char *text, size_t len)
{
    const char *key = ", created ";
    size_t k = strlen(TP_MAGIC) + 1;
    if (len < k + strlen(key) || memcmp(text + k, key, strlen(key)) != 0)
        return 0;
    char when[64];
    size_t i = 0, p = k + strlen(key);
    while (p < len && text[p] != '\n' && i + 1 < sizeof when)
        when[i++] = text[p++];
    when[i] = 0;
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(when, "%a %b %d %H:%M:%S %Y", &tm);
    if (!end || *end)
        return 0;
    tm.tm_isdst = -1;
    time_t t = mktime(&tm);
    return t < 0 ? 0 : (uint64_t)t * 1000u;
}

int tp_is_text(const void *head, size_t len)
{
    const char *h = head;
    size_t k = strlen(TP_MAGIC);
    if (len < k + 2 || memcmp(h, TP_MAGIC, k) != 0)
        return 0;
    return h[k] >= '0' && h[k] <= '9' && h[k + 1] == ',';
}

int tp_translate(const char *text, size_t len, uint8_t **out, size_t *outlen, tp_info *info,
                 char *err, size_t errcap)
{
    char none[1];
    if (!err || !errcap) {
        err = none;
        errcap = sizeof none;
    }
    err[0] = 0;
    tp_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    *out = NULL;
    *outlen = 0;
    if (!tp_is_text(text, len)) {
        snprintf(err, errcap, "line 1: not the text layout (JAVA PROFILE 1.0.x, created ...)");
        return -1;
    }
    hw_sink *sink = hw_sink_memory(len / 2 + 64);
    if (!sink) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    hw_options o;
    hw_options_init(&o);
    o.clock = HW_CLOCK_FIXED;
    o.version = text[strlen(TP_MAGIC)] == '1' ? HPROF_VERSION_1_0_1 : HPROF_VERSION_1_0_2;
    o.timestamp_ms = tp_created_ms(text, len);
    tp_ctx c;
    memset(&c, 0, sizeof c);
    c.w = hw_writer_open(sink, &o, NULL);
    if (!c.w) {
        hw_sink_free(sink);
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    c.next_id = 1;
    c.next_class = 1;
    c.info = info;
    c.err = err;
    c.errcap = errcap;
    c.empty_id = tp_utf8(&c, "", 0);
    int rc = tp_run(&c, text, len);
    char msg[128];
    if (hw_writer_close(c.w, msg, sizeof msg) != 0 && rc == 0) {
        snprintf(err, errcap, "%s", msg);
        rc = -1;
    }
    if (rc == 0) {
        size_t n;
        const uint8_t *d = hw_sink_memory_data(sink, &n);
        *out = malloc(n ? n : 1);
        if (!*out) {
            snprintf(err, errcap, "out of memory");
            rc = -1;
        } else {
            memcpy(*out, d, n);
            *outlen = n;
        }
    }
    hw_sink_free(sink);
    tp_names_cleanup(&c.utf8);
    tp_names_cleanup(&c.classes);
    free(c.frames);
    free(c.sites);
    free(c.samples);
    return rc;
}

int tp_load_file(const char *path, uint8_t **out, size_t *outlen, tp_info *info, char *err,
                 size_t errcap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errcap, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char head[32];
    size_t got = fread(head, 1, sizeof head, f);
    if (!tp_is_text(head, got)) {
        fclose(f);
        return 0;
    }
    size_t cap = 1 << 16, len = got;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    memcpy(buf, head, got);
    for (;;) {
        if (len == cap) {
            char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                snprintf(err, errcap, "out of memory");
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    int e = errno;
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(err, errcap, "cannot read %s: %s", path, strerror(e));
        return -1;
    }
    int rc = tp_translate(buf, len, out, outlen, info, err, errcap);
    free(buf);
    return rc == 0 ? 1 : -1;
}

void tp_describe(const tp_info *info, char *buf, size_t cap)
{
    const struct {
        uint32_t n;
        const char *what;
    } part[] = {
        {info->sites, "SITES"},           {info->samples, "CPU SAMPLES"},
        {info->cpu_times, "CPU TIME"},    {info->monitor_dumps, "MONITOR DUMP"},
        {info->monitor_times, "MONITOR TIME"}, {info->heap_dumps, "HEAP DUMP"},
        {info->summaries, "HEAP SUMMARY"}, {info->traces, "TRACE"},
        {info->threads, "THREAD START"},
    };
    size_t np = sizeof part / sizeof part[0], have = 0, done = 0, pos = 0;
    for (size_t i = 0; i < np; i++)
        have += part[i].n != 0;
    if (!cap)
        return;
    buf[0] = 0;
    if (!have) {
        snprintf(buf, cap, "no section");
        return;
    }
    for (size_t i = 0; i < np && pos < cap; i++) {
        if (!part[i].n)
            continue;
        const char *sep = done == 0 ? "" : done + 1 == have ? " and " : ", ";
        int k = snprintf(buf + pos, cap - pos, "%s%u %s", sep, part[i].n, part[i].what);
        if (k < 0)
            return;
        pos += (size_t)k;
        done++;
    }
}
