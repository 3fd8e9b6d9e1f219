/* rp_heap.c: the report's retained sizes and leak suspects (rp_heap.h).
 *
 * The suspects follow Eclipse MAT's leak-suspect report, with a rule that
 * names one object per accumulation point instead of a chain of holders:
 *  - object suspects: the objects that retain more than 10 % of the
 *    reachable heap while none of the objects they dominate does (the
 *    deepest such objects of the dominator tree: at most nine, disjoint);
 *  - class suspects: a class two or more of whose instances hang directly
 *    under the virtual root (top-level dominators, as MAT groups them) and
 *    together retain more than 10 %, not counting instances that dominate
 *    an object suspect (already told).
 * Each one gets the shortest path from a GC root to it (to a class's
 * biggest instance), found by one breadth-first search over the graph
 * before the dominator pass drops its edges, named by one more pass over
 * the dump (hg_paths_name). */
#include "rp_heap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "heapgraph/hg_dom.h"
#include "heapgraph/hg_path.h"

/* Steps of a path written out in full in a sentence; a longer one keeps
 * its first and last RP_HEAP_ENDS steps. */
#define RP_HEAP_PATH_FULL 10
#define RP_HEAP_ENDS 4
#define RP_HEAP_MAX_SUSPECTS 64

typedef struct rp_suspect {
    int is_class;
    uint32_t obj; /* the object, or the class's biggest top-level instance */
    uint32_t cls; /* class table index (HG_NONE: unknown) */
    uint64_t instances, bytes, objects;
    char *root;   /* "Java frame of thread "main" at A.main(A.java:3)" */
    char **steps; /* root object first, the target last (those shown) */
    uint32_t nsteps;
    uint32_t path_len; /* objects on the whole path */
    char *text;
} rp_suspect;

typedef struct rp_cls {
    uint32_t c;
    const hg_class_row *r;
} rp_cls;

struct rp_heap {
    char *note; /* why there is no tree, or NULL */
    const char *path;
    hg_graph *g;
    hg_dom *d;
    hg_load_stats st;
    uint32_t top[RP_HEAP_TOP], ntop;
    rp_cls cls[RP_HEAP_TOP];
    uint32_t ncls;
    rp_suspect sus[RP_HEAP_MAX_SUSPECTS];
    uint32_t nsus;
};

static char *rp_heap_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *rp_heap_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* 1234567 as "1 234 567" (cap >= 32). */
static const char *rp_heap_group(uint64_t v, char *buf, size_t cap)
{
    char d[24];
    int n = snprintf(d, sizeof d, "%" PRIu64, v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ' ';
        buf[o++] = d[i];
    }
    buf[o] = 0;
    return buf;
}

/* Bytes for a sentence: "412.3 MB" (decimal units), or "812 bytes". */
static const char *rp_heap_size(uint64_t b, char *buf, size_t cap)
{
    static const char *const unit[] = {"kB", "MB", "GB", "TB"};
    if (b < 1000) {
        snprintf(buf, cap, "%" PRIu64 " bytes", b);
        return buf;
    }
    uint64_t div = 1000;
    int u = 0;
    while (u < 3 && b >= div * 1000) {
        div *= 1000;
        u++;
    }
    uint64_t tenths = (b * 10 + div / 2) / div;
    snprintf(buf, cap, "%" PRIu64 ".%" PRIu64 " %s", tenths / 10, tenths % 10, unit[u]);
    return buf;
}

/* 100 * part / whole with one decimal, into buf. */
static const char *rp_heap_pct(uint64_t part, uint64_t whole, char *buf, size_t cap)
{
    uint64_t t = whole ? (part * 1000 + whole / 2) / whole : 0;
    snprintf(buf, cap, "%" PRIu64 ".%" PRIu64 " %%", t / 10, t % 10);
    return buf;
}

/* What to call object i in a path: its class, or for a class its name. */
static const char *rp_heap_objname(const hg_graph *g, uint32_t i)
{
    const char *s = hg_object_class(g, i);
    if (hg_is_class(g, i) && strncmp(s, "class ", 6) == 0)
        return s + 6;
    return s;
}

static void rp_heap_suspect_free(rp_suspect *s)
{
    for (uint32_t k = 0; k < s->nsteps; k++)
        free(s->steps[k]);
    free(s->steps);
    free(s->root);
    free(s->text);
}

void rp_heap_free(rp_heap *h)
{
    if (!h)
        return;
    for (uint32_t k = 0; k < h->nsus; k++)
        rp_heap_suspect_free(&h->sus[k]);
    hg_dom_free(h->d);
    hg_graph_free(h->g);
    free(h->note);
    free(h);
}

static int rp_heap_cls_cmp(const void *a, const void *b)
{
    const rp_cls *x = a, *y = b;
    if (x->r->retained != y->r->retained)
        return x->r->retained > y->r->retained ? -1 : 1;
    return x->c < y->c ? -1 : x->c > y->c;
}

static int rp_heap_sus_cmp(const void *a, const void *b)
{
    const rp_suspect *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->obj < y->obj ? -1 : x->obj > y->obj;
}

/* The top classes by retained bytes, as `hprof retained` orders them. */
static int rp_heap_classes(rp_heap *h)
{
    const hg_class_row *rows;
    if (hg_dom_classes(h->d, &rows) != 0)
        return -1;
    uint32_t nc = hg_nclasses(h->g) + 1, n = 0;
    rp_cls *all = malloc((size_t)nc * sizeof *all);
    if (!all)
        return -1;
    for (uint32_t c = 0; c < nc; c++)
        if (rows[c].instances) {
            all[n].c = c == nc - 1 ? HG_NONE : c;
            all[n].r = &rows[c];
            n++;
        }
    if (n > 1)
        qsort(all, n, sizeof *all, rp_heap_cls_cmp);
    h->ncls = n < RP_HEAP_TOP ? n : RP_HEAP_TOP;
    memcpy(h->cls, all, h->ncls * sizeof *all);
    free(all);
    return 0;
}

/* The suspects' objects (rule at the top of this file). 0, or -1 when out
 * of memory. */
static int rp_heap_pick(rp_heap *h)
{
    const hg_graph *g = h->g;
    const hg_dom *d = h->d;
    uint32_t n = hg_count(g), nc = hg_nclasses(g) + 1;
    uint64_t total = hg_dom_total_bytes(d);
    if (!total)
        return 0;
    enum { OVER = 1, HAS_OVER_CHILD = 2, HOLDS_SUSPECT = 4 };
    uint8_t *f = calloc((size_t)n + 1, 1);
    uint64_t *sum = calloc((size_t)nc, sizeof *sum), *objs = calloc((size_t)nc, sizeof *objs);
    uint64_t *cnt = calloc((size_t)nc, sizeof *cnt);
    uint32_t *best = malloc((size_t)nc * sizeof *best);
    int rc = -1;
    if (!f || !sum || !objs || !cnt || !best)
        goto out;
    for (uint32_t i = 0; i < n; i++)
        if (hg_dom_is_reachable(d, i) && hg_dom_retained(d, i) * RP_HEAP_SUSPECT_DIV > total)
            f[i] |= OVER;
    for (uint32_t i = 0; i < n; i++)
        if (f[i] & OVER) {
            uint32_t p = hg_dom_idom(d, i);
            if (p != HG_NONE)
                f[p] |= HAS_OVER_CHILD;
        }
    for (uint32_t i = 0; i < n && h->nsus < RP_HEAP_MAX_SUSPECTS; i++) {
        if ((f[i] & (OVER | HAS_OVER_CHILD)) != OVER)
            continue;
        rp_suspect *s = &h->sus[h->nsus++];
        s->obj = i;
        s->cls = hg_class_of(g, i);
        s->instances = 1;
        s->bytes = hg_dom_retained(d, i);
        s->objects = hg_dom_retained_count(d, i);
        for (uint32_t v = i; v != HG_NONE && !(f[v] & HOLDS_SUSPECT); v = hg_dom_idom(d, v))
            f[v] |= HOLDS_SUSPECT;
    }
    for (uint32_t c = 0; c < nc; c++)
        best[c] = HG_NONE;
    for (uint32_t i = 0; i < n; i++) {
        if (!hg_dom_is_reachable(d, i) || hg_dom_idom(d, i) != HG_NONE || (f[i] & HOLDS_SUSPECT))
            continue;
        uint32_t c = hg_class_of(g, i);
        if (c == HG_NONE || hg_is_class(g, i))
            c = nc - 1; /* class objects are no instances of one class */
        sum[c] += hg_dom_retained(d, i);
        objs[c] += hg_dom_retained_count(d, i);
        cnt[c]++;
        if (best[c] == HG_NONE || hg_dom_retained(d, i) > hg_dom_retained(d, best[c]))
            best[c] = i;
    }
    for (uint32_t c = 0; c + 1 < nc && h->nsus < RP_HEAP_MAX_SUSPECTS; c++) {
        if (cnt[c] < 2 || sum[c] * RP_HEAP_SUSPECT_DIV <= total)
            continue;
        rp_suspect *s = &h->sus[h->nsus++];
        s->is_class = 1;
        s->obj = best[c];
        s->cls = c;
        s->instances = cnt[c];
        s->bytes = sum[c];
        s->objects = objs[c];
    }
    if (h->nsus > 1)
        qsort(h->sus, h->nsus, sizeof *h->sus, rp_heap_sus_cmp);
    rc = 0;
out:
    free(f);
    free(sum);
    free(objs);
    free(cnt);
    free(best);
    return rc;
}

/* Step t of a path of len objects is shown: all of a short path, the
 * first and last RP_HEAP_ENDS of a longer one. */
static int rp_heap_shown(uint32_t t, uint32_t len)
{
    return len <= RP_HEAP_PATH_FULL || t < RP_HEAP_ENDS || t >= len - RP_HEAP_ENDS;
}

/* The suspects' paths, named by one more pass over `src` (only the links
 * of the steps shown: a path through a list of millions of nodes costs no
 * name for each). 0, or -1 (out of memory, or the file cannot be read
 * again: `err`). */
static int rp_heap_paths(rp_heap *h, const hg_paths *p, hr_source *src, char *err, size_t errlen)
{
    const hg_graph *g = h->g;
    uint32_t *chain[RP_HEAP_MAX_SUSPECTS] = {0}, len[RP_HEAP_MAX_SUSPECTS] = {0};
    hg_frame_req fr[RP_HEAP_MAX_SUSPECTS];
    int fri[RP_HEAP_MAX_SUSPECTS];
    size_t nl = 0, nfr = 0;
    hg_link *links = NULL;
    int rc = -1;
    memset(fr, 0, sizeof fr);
    for (uint32_t k = 0; k < h->nsus; k++) {
        len[k] = hg_paths_chain(p, h->sus[k].obj, NULL, 0);
        chain[k] = malloc(((size_t)len[k] + 1) * sizeof *chain[k]);
        if (!chain[k])
            goto oom;
        hg_paths_chain(p, h->sus[k].obj, chain[k], len[k]);
        for (uint32_t t = 0; t + 1 < len[k]; t++)
            nl += rp_heap_shown(t, len[k]);
        fri[k] = -1;
        const hg_root *r = len[k] ? hg_root_of(g, chain[k][0]) : NULL;
        if (r && r->thread) {
            fr[nfr].thread = r->thread;
            fr[nfr].depth = r->frame;
            fr[nfr].has_depth = r->kind == HPROF_GC_ROOT_JAVA_FRAME || r->kind == HPROF_GC_ROOT_JNI_LOCAL;
            fri[k] = (int)nfr++;
        }
    }
    links = calloc(nl ? nl : 1, sizeof *links);
    if (!links)
        goto oom;
    size_t at = 0;
    for (uint32_t k = 0; k < h->nsus; k++)
        for (uint32_t t = 0; t + 1 < len[k]; t++)
            if (rp_heap_shown(t, len[k])) {
                links[at].from = chain[k][t];
                links[at].to = chain[k][t + 1];
                at++;
            }
    /* (no suspect, or only roots: no pass over the file) */
    if ((nl || nfr) && hg_paths_name(src, g, links, nl, fr, nfr, err, errlen) != 0)
        goto out;
    at = 0;
    for (uint32_t k = 0; k < h->nsus; k++) {
        rp_suspect *s = &h->sus[k];
        s->path_len = len[k];
        s->steps = calloc(len[k] ? len[k] : 1, sizeof *s->steps);
        if (!s->steps)
            goto oom;
        for (uint32_t t = 0; t < len[k]; t++) {
            if (!rp_heap_shown(t, len[k]))
                continue;
            const char *nm = rp_heap_objname(g, chain[k][t]);
            char *st;
            if (t + 1 < len[k]) {
                const char *fl = links[at++].field;
                st = rp_heap_printf("%s%s%s", nm, fl[0] == '[' ? "" : fl[0] == '<' ? " " : ".", fl);
            } else {
                st = strdup(nm);
            }
            if (!st)
                goto oom;
            s->steps[s->nsteps++] = st;
        }
        if (!len[k]) {
            s->root = strdup("");
        } else {
            const hg_root *r = hg_root_of(g, chain[k][0]);
            const char *kind = r ? hg_root_kind_name(r->kind) : "unknown root";
            const char *tn = fri[k] >= 0 ? fr[fri[k]].thread_name : "";
            const char *ft = fri[k] >= 0 ? fr[fri[k]].text : "";
            char th[HG_NAME_MAX + 32] = "";
            if (tn[0])
                snprintf(th, sizeof th, " of thread \"%s\"", tn);
            else if (r && r->thread)
                snprintf(th, sizeof th, " of thread %" PRIu32, r->thread);
            s->root = rp_heap_printf("%s%s%s%s", kind, th, ft[0] ? " at " : "", ft);
        }
        if (!s->root)
            goto oom;
    }
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
out:
    for (uint32_t k = 0; k < h->nsus; k++)
        free(chain[k]);
    free(links);
    return rc;
}

/* The suspect's sentence. */
static char *rp_heap_sentence(const rp_heap *h, const rp_suspect *s)
{
    const hg_graph *g = h->g;
    uint64_t total = hg_dom_total_bytes(h->d);
    char sz[32], pc[32], ob[32], in[32], bb[32];
    rp_heap_size(s->bytes, sz, sizeof sz);
    rp_heap_pct(s->bytes, total, pc, sizeof pc);
    rp_heap_group(s->objects, ob, sizeof ob);
    /* the path: root, then the steps, the middle of a long one left out */
    size_t cap = 64 + strlen(s->root);
    for (uint32_t t = 0; t < s->nsteps; t++)
        cap += strlen(s->steps[t]) + 4;
    char *path = malloc(cap + 64);
    if (!path)
        return NULL;
    size_t o = (size_t)snprintf(path, cap + 64, "%s", s->nsteps ? s->root : "none");
    for (uint32_t t = 0; t < s->nsteps; t++) {
        o += (size_t)snprintf(path + o, cap + 64 - o, "%s%s", t ? " -> " : ": ", s->steps[t]);
        if (s->path_len > s->nsteps && t + 1 == RP_HEAP_ENDS)
            o += (size_t)snprintf(path + o, cap + 64 - o, " -> ... (%" PRIu32 " more steps)",
                                  s->path_len - s->nsteps);
    }
    /* "6.0 kB (6 000 bytes, 60.0 % of the reachable heap)", "48 bytes (23.1 % ...)" */
    char amount[128], big[32];
    if (s->bytes < 1000)
        snprintf(amount, sizeof amount, "%s (%s of the reachable heap)", sz, pc);
    else
        snprintf(amount, sizeof amount, "%s (%s bytes, %s of the reachable heap)", sz,
                 rp_heap_group(s->bytes, bb, sizeof bb), pc);
    char *r;
    if (s->is_class) {
        rp_heap_group(s->instances, in, sizeof in);
        rp_heap_group(hg_dom_retained(h->d, s->obj), big, sizeof big);
        r = rp_heap_printf("%s instances of `%s` retain %s together in %s objects; the shortest "
                           "path from a GC root to the biggest (0x%" PRIx64 ", %s bytes): %s",
                           in, hg_class_name(g, s->cls), amount, ob, hg_id(g, s->obj), big, path);
    } else {
        int cl = hg_is_class(g, s->obj);
        r = rp_heap_printf("%s `%s` (0x%" PRIx64 ") retains %s in %s objects; its shortest path "
                           "from a GC root: %s",
                           cl ? "The class" : "One instance of", rp_heap_objname(g, s->obj),
                           hg_id(g, s->obj), amount, ob, path);
    }
    free(path);
    return r;
}

/* The last input with a heap dump to read again; *count of them, *piped
 * 1 when one came on standard input (it cannot be read again). */
static const rm_input *rp_heap_input(const rm_model *m, size_t *count, int *piped)
{
    const rm_input *in = NULL;
    *count = 0;
    *piped = 0;
    for (size_t i = 0; i < m->ninputs; i++) {
        if (m->inputs[i].heap_dump > 0) {
            in = &m->inputs[i];
            (*count)++;
        }
        *piped |= m->inputs[i].heap_dump < 0;
    }
    return in;
}

rp_heap *rp_heap_new(rm_model *m, uint64_t max_memory, int skip)
{
    size_t count;
    int piped;
    const rm_input *in = rp_heap_input(m, &count, &piped);
    if (!in && !piped)
        return NULL;
    rp_heap *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->path = in ? in->path : "-";
    if (skip || !in) {
        if (!skip)
            rm_warn(m, "no retained sizes or leak suspects: the heap dump came on standard input, "
                       "which cannot be read again (give it as a FILE)");
        h->note = strdup(skip ? "not computed (--no-retained)"
                            : "not computed: standard input cannot be read again");
        if (!h->note) {
            free(h);
            return NULL;
        }
        return h;
    }
    if (count > 1)
        rm_warn(m, "retained sizes and leak suspects are those of %s alone (the last input "
                   "holding a heap dump)", in->path);
    char err[512] = "";
    hr_source *src = NULL;
    hg_paths *p = NULL;
    int fd = open(in->path, O_RDONLY | O_CLOEXEC), e = 0;
    /* read through the reader's window, not mapped: the pages of a mapped
     * dump would count in the resident set on top of the graph's memory */
    if (fd < 0 || !(src = hr_source_fd(fd, &e))) {
        snprintf(err, sizeof err, "%s: %s", in->path, strerror(fd < 0 ? errno : e ? e : ENOMEM));
        goto fail;
    }
    hg_load_opts o = {.strong_only = 0, .for_dominators = 1, .max_memory = max_memory};
    char msg[400];
    hg_status st = hg_graph_load(src, &o, &h->g, &h->st, msg, sizeof msg);
    if (st != HG_OK) {
        snprintf(err, sizeof err, "%s: %s%s", in->path, msg,
                 st == HG_MEMORY ? " (hprof report --max-memory SIZE gives more, if the machine has it)" : "");
        goto fail;
    }
    if (h->st.malformed)
        rm_warn(m, "%s: the retained sizes cover what could be read of the heap dump (%s)", in->path,
                h->st.problem[0] ? h->st.problem : "cut short or malformed");
    /* the paths' search needs the edges, which the dominator pass drops */
    if (hg_paths_compute(h->g, &p) != 0 || hg_dom_compute(h->g, &h->d) != 0 ||
        rp_heap_classes(h) != 0 || rp_heap_pick(h) != 0) {
        snprintf(err, sizeof err, "%s: out of memory computing the dominator tree", in->path);
        goto fail;
    }
    h->ntop = hg_dom_top(h->d, RP_HEAP_TOP, h->top);
    if (rp_heap_paths(h, p, src, msg, sizeof msg) != 0) {
        snprintf(err, sizeof err, "%s: the suspects' paths: %s", in->path, msg);
        goto fail;
    }
    for (uint32_t k = 0; k < h->nsus; k++)
        if (!(h->sus[k].text = rp_heap_sentence(h, &h->sus[k]))) {
            snprintf(err, sizeof err, "out of memory");
            goto fail;
        }
    hg_paths_free(p);
    hr_source_close(src);
    close(fd);
    return h;
fail:
    rm_warn(m, "no retained sizes or leak suspects: %s", err);
    hg_paths_free(p);
    if (src)
        hr_source_close(src);
    if (fd >= 0)
        close(fd);
    for (uint32_t k = 0; k < h->nsus; k++)
        rp_heap_suspect_free(&h->sus[k]);
    h->nsus = 0;
    hg_dom_free(h->d);
    h->d = NULL;
    hg_graph_free(h->g);
    h->g = NULL;
    h->note = rp_heap_printf("not computed: %s", err);
    if (!h->note) {
        rp_heap_free(h);
        return NULL;
    }
    return h;
}

/* ------------------------------------------------------------------ JSON */

void rp_heap_write_tables(const rp_heap *h, rj *j)
{
    if (!h || !h->d)
        return;
    const hg_graph *g = h->g;
    uint64_t total = hg_dom_total_bytes(h->d);
    char note[400], id[24];
    int nl = snprintf(note, sizeof note,
                      "%s: the dominator tree of the %" PRIu32 " objects reachable from the GC "
                      "roots (MAT's rules, docs/heap-analysis.md); share: of the %" PRIu64
                      " reachable bytes",
                      h->path, hg_dom_reachable(h->d), total);
    if ((h->st.dangling_refs || h->st.dangling_roots) && nl > 0 && (size_t)nl < sizeof note)
        snprintf(note + nl, sizeof note - (size_t)nl,
                 "; %" PRIu64 " references and %" PRIu64 " roots to ids no record defines skipped",
                 h->st.dangling_refs, h->st.dangling_roots);
    static const char *const ocols[] = {
        "id|id|text", "class|class|text", "shallow|shallow bytes|int", "retained|retained bytes|int",
        "retained_objects|retained objects|int", "share|share of heap|pct"};
    rj_table_head(j, "retained-objects", "Objects by retained size (top 20)", note, ocols, 6);
    for (uint32_t k = 0; k < h->ntop; k++) {
        uint32_t i = h->top[k];
        rj_arr(j);
        snprintf(id, sizeof id, "0x%" PRIx64, hg_id(g, i));
        rj_cstr(j, id);
        rj_cstr(j, hg_object_class(g, i));
        rj_u64(j, hg_shallow(g, i));
        rj_u64(j, hg_dom_retained(h->d, i));
        rj_u64(j, hg_dom_retained_count(h->d, i));
        rj_pct(j, hg_dom_retained(h->d, i), total);
        rj_arr_end(j);
    }
    rj_arr_end(j);
    rj_obj_end(j);
    static const char *const ccols[] = {"class|class|text", "instances|instances|int",
                                        "shallow|shallow bytes|int", "retained|retained bytes|int",
                                        "share|share of heap|pct"};
    rj_table_head(j, "retained-classes", "Classes by retained size of their instances (top 20)",
                 "what a class's reachable instances retain together, each object counted once "
                 "(the minimum MAT calculates for a class's retained heap)",
                 ccols, 5);
    for (uint32_t k = 0; k < h->ncls; k++) {
        rj_arr(j);
        rj_cstr(j, hg_class_name(g, h->cls[k].c));
        rj_u64(j, h->cls[k].r->instances);
        rj_u64(j, h->cls[k].r->shallow);
        rj_u64(j, h->cls[k].r->retained);
        rj_pct(j, h->cls[k].r->retained, total);
        rj_arr_end(j);
    }
    rj_arr_end(j);
    rj_obj_end(j);
}

void rp_heap_write_fields(const rp_heap *h, rj *j)
{
    if (!h)
        return;
    if (!h->d) {
        rj_key(j, "retained_note");
        rj_cstr(j, h->note);
        return;
    }
    const hg_graph *g = h->g;
    uint64_t total = hg_dom_total_bytes(h->d);
    rj_key(j, "retained_input");
    rj_cstr(j, h->path);
    rj_key(j, "reachable_objects");
    rj_u64(j, hg_dom_reachable(h->d));
    rj_key(j, "reachable_bytes");
    rj_u64(j, total);
    rj_key(j, "unreachable_objects");
    rj_u64(j, hg_dom_unreachable(h->d));
    rj_key(j, "unreachable_bytes");
    rj_u64(j, hg_dom_unreachable_bytes(h->d));
    rj_key(j, "retained_rule");
    rj_cstr(j, "Eclipse MAT's (its default preferences; where hprof departs, docs/heap-analysis.md: "
               "a class object's shallow size is 0, a class loader holds its classes): the "
               "dominator tree of every object the GC roots reach (all roots under one virtual "
               "root); an object's retained size is its shallow size plus those of the objects it "
               "dominates, so an object shared by two holders belongs to neither; soft, weak, "
               "phantom and final referents count as references; objects no root reaches are "
               "left out");
    rj_key(j, "suspect_rule");
    rj_cstr(j, "a suspect retains more than 10 % of the reachable heap: an object none of whose "
               "dominated objects does too, or a class whose top-level instances (dominated by no "
               "other object) retain it together");
    rj_key(j, "suspects");
    rj_arr(j);
    char id[24];
    for (uint32_t k = 0; k < h->nsus; k++) {
        const rp_suspect *s = &h->sus[k];
        rj_obj(j);
        rj_key(j, "kind");
        rj_cstr(j, s->is_class ? "class" : "object");
        rj_key(j, "class");
        rj_cstr(j, s->is_class ? hg_class_name(g, s->cls) : hg_object_class(g, s->obj));
        rj_key(j, "id");
        snprintf(id, sizeof id, "0x%" PRIx64, hg_id(g, s->obj));
        rj_cstr(j, id);
        rj_key(j, "instances");
        rj_u64(j, s->instances);
        rj_key(j, "retained_bytes");
        rj_u64(j, s->bytes);
        rj_key(j, "retained_objects");
        rj_u64(j, s->objects);
        rj_key(j, "pct");
        rj_pct(j, s->bytes, total);
        rj_key(j, "root");
        rj_cstr(j, s->root);
        rj_key(j, "path_length");
        rj_u64(j, s->path_len);
        rj_key(j, "path");
        rj_arr(j);
        for (uint32_t t = 0; t < s->nsteps; t++)
            rj_cstr(j, s->steps[t]);
        rj_arr_end(j);
        rj_key(j, "text");
        rj_cstr(j, s->text);
        rj_obj_end(j);
    }
    rj_arr_end(j);
    rj_key(j, "suspects_note");
    char buf[128];
    if (h->nsus)
        snprintf(buf, sizeof buf, "%" PRIu32 " leak suspect%s: retaining more than 10 %% of the heap",
                 h->nsus, h->nsus == 1 ? "" : "s");
    else
        snprintf(buf, sizeof buf, "no single object or class retains more than 10 %% of the heap");
    rj_cstr(j, buf);
}
