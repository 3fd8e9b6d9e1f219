/*
 * hg_dom.c: dominators and retained sizes (hg_dom.h) by semi-NCA.
 *
 * Vertices are numbered in depth-first preorder from the virtual root
 * (number 0); every array below is indexed by that number except `pre`
 * (object -> number). The steps, each a loop over arrays:
 *   1. iterative DFS: pre, order (number -> object), parent;
 *   2. predecessors in number space (CSR), then the graph's edges dropped;
 *   3. semidominators, from the last number down, with the path-compressed
 *      ancestor forest kept in `parent` itself (eval() compresses with an
 *      explicit stack, never recursion);
 *   4. immediate dominators: from the spanning-tree parent, up the idom
 *      chain while it is above the semidominator (the NCA step);
 *   5. retained sizes: since idom(v) < v in preorder, one pass from the
 *      last number down adds each vertex into its dominator.
 *
 * Memory budget, N objects and E references (bytes):
 *   the graph (hg_graph.c)      25 N + 4 E  ids 8, class 4, size 4, edge start 4,
 *                                           edge count 4, directory ~1
 *   step 1                     +20 N        pre, order, parent, DFS cursor, stack
 *   step 2                     + 8 N + 4 E  cursor and stack freed; predecessor
 *                                           offsets 4 N, predecessors 4 E
 *   = the peak                  41 N + 8 E
 *   step 3                      -12 N - 4 E the graph's edges dropped; semi, label,
 *                              +12 N        idom (and an eval stack, up to 4 N on a
 *                                           chain)
 *   step 5                      retained bytes 8 N and objects 4 N, after
 *                               semi, label, parent and the predecessors go
 *   hg_dom_classes()            +16 N       dominator-tree children, a walk stack
 * HeapBench's dump (16.0 M objects, 46 M references: 1.4 GB) peaks at
 * 41 N + 8 E = 1.03 GB, 64 bytes an object; `hprof retained` measured
 * 1.01 GB of peak RSS.
 */
#include "hg_dom.h"

#include <stdlib.h>
#include <string.h>

struct hg_dom {
    hg_graph *g;
    uint32_t n;       /* objects in the graph; the virtual root is object n */
    uint32_t cnt;     /* numbered vertices, the virtual root included */
    uint32_t *pre;    /* object -> number, HG_NONE when unreachable */
    uint32_t *order;  /* number -> object */
    uint32_t *idom;   /* number -> number of its immediate dominator */
    uint64_t *rsize;  /* number -> retained bytes */
    uint32_t *rcount; /* number -> retained objects */
    uint64_t unreach, unreach_bytes;
    hg_class_row *rows;
};

/* Step 1. `cursor` and `stack` are scratch of cnt entries. */
static void hg_dom_dfs(hg_dom *d, uint32_t *parent, uint32_t *cursor, uint32_t *stack)
{
    const hg_graph *g = d->g;
    uint32_t root = d->n;
    d->pre[root] = 0;
    d->order[0] = root;
    parent[0] = 0;
    cursor[0] = 0;
    uint32_t cnt = 1, sp = 0;
    stack[sp++] = 0;
    while (sp) {
        uint32_t k = stack[sp - 1], deg;
        const uint32_t *out = hg_out(g, d->order[k], &deg);
        if (cursor[k] < deg) {
            uint32_t w = out[cursor[k]++];
            if (d->pre[w] == HG_NONE) {
                d->pre[w] = cnt;
                d->order[cnt] = w;
                parent[cnt] = k;
                cursor[cnt] = 0;
                stack[sp++] = cnt;
                cnt++;
            }
        } else {
            sp--;
        }
    }
    d->cnt = cnt;
}

/* eval() of semi-NCA: the vertex of least semidominator on the path from v
 * up to (not including) the first vertex numbered below `last`, the path
 * compressed on the way. */
static uint32_t hg_dom_eval(uint32_t v, uint32_t last, uint32_t *parent, uint32_t *label,
                            const uint32_t *semi, uint32_t **stk, size_t *cap)
{
    if (parent[v] < last)
        return label[v];
    size_t sp = 0;
    do {
        if (sp == *cap) {
            size_t nc = *cap * 2;
            uint32_t *ns = realloc(*stk, nc * sizeof *ns);
            if (!ns)
                return HG_NONE;
            *stk = ns;
            *cap = nc;
        }
        (*stk)[sp++] = v;
        v = parent[v];
    } while (parent[v] >= last);
    uint32_t p = v, plabel = label[p];
    do {
        v = (*stk)[--sp];
        parent[v] = parent[p];
        if (semi[plabel] < semi[label[v]])
            label[v] = plabel;
        else
            plabel = label[v];
        p = v;
    } while (sp);
    return label[v];
}

int hg_dom_compute(hg_graph *g, hg_dom **out)
{
    *out = NULL;
    hg_dom *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    d->g = g;
    d->n = hg_count(g);
    size_t n1 = (size_t)d->n + 1;
    uint32_t *parent = NULL, *a = NULL, *b = NULL, *predoff = NULL, *preds = NULL, *stk = NULL;
    d->pre = malloc(n1 * sizeof *d->pre);
    d->order = malloc(n1 * sizeof *d->order);
    parent = malloc(n1 * sizeof *parent);
    a = malloc(n1 * sizeof *a);
    b = malloc(n1 * sizeof *b);
    if (!d->pre || !d->order || !parent || !a || !b)
        goto oom;
    memset(d->pre, 0xFF, n1 * sizeof *d->pre);
    hg_dom_dfs(d, parent, a, b);
    free(a);
    free(b);
    a = b = NULL;
    uint32_t cnt = d->cnt;
    /* step 2: predecessors, by number */
    predoff = calloc((size_t)cnt + 1, sizeof *predoff);
    if (!predoff)
        goto oom;
    for (uint32_t k = 0; k < cnt; k++) {
        uint32_t deg;
        const uint32_t *o = hg_out(g, d->order[k], &deg);
        for (uint32_t e = 0; e < deg; e++)
            predoff[d->pre[o[e]] + 1]++;
    }
    for (uint32_t k = 0; k < cnt; k++)
        predoff[k + 1] += predoff[k];
    preds = malloc(((size_t)predoff[cnt] + 1) * sizeof *preds);
    if (!preds)
        goto oom;
    for (uint32_t k = 0; k < cnt; k++) {
        uint32_t deg;
        const uint32_t *o = hg_out(g, d->order[k], &deg);
        for (uint32_t e = 0; e < deg; e++)
            preds[predoff[d->pre[o[e]]]++] = k;
    }
    for (uint32_t k = cnt; k > 0; k--) /* back to starts */
        predoff[k] = predoff[k - 1];
    predoff[0] = 0;
    hg_graph_drop_edges(g);
    /* step 3 */
    uint32_t *semi = malloc((size_t)cnt * sizeof *semi);
    uint32_t *label = malloc((size_t)cnt * sizeof *label);
    d->idom = malloc((size_t)cnt * sizeof *d->idom);
    size_t cap = 1024;
    stk = malloc(cap * sizeof *stk);
    a = semi;
    b = label;
    if (!semi || !label || !d->idom || !stk)
        goto oom;
    for (uint32_t k = 0; k < cnt; k++) {
        semi[k] = label[k] = k;
        d->idom[k] = parent[k];
    }
    for (uint32_t w = cnt - 1; w >= 1; w--) {
        uint32_t s = parent[w];
        for (uint32_t p = predoff[w]; p < predoff[w + 1]; p++) {
            uint32_t u = hg_dom_eval(preds[p], w + 1, parent, label, semi, &stk, &cap);
            if (u == HG_NONE)
                goto oom;
            if (semi[u] < s)
                s = semi[u];
        }
        semi[w] = s;
    }
    free(preds);
    free(predoff);
    free(stk);
    free(parent);
    free(label);
    preds = predoff = stk = parent = NULL;
    b = NULL;
    /* step 4 */
    for (uint32_t w = 1; w < cnt; w++) {
        uint32_t x = d->idom[w];
        while (x > semi[w])
            x = d->idom[x];
        d->idom[w] = x;
    }
    free(semi);
    a = NULL;
    /* step 5 */
    d->rsize = malloc((size_t)cnt * sizeof *d->rsize);
    d->rcount = malloc((size_t)cnt * sizeof *d->rcount);
    if (!d->rsize || !d->rcount)
        goto oom;
    d->rsize[0] = 0;
    d->rcount[0] = 0;
    for (uint32_t k = 1; k < cnt; k++) {
        d->rsize[k] = hg_shallow(g, d->order[k]);
        d->rcount[k] = 1;
    }
    for (uint32_t k = cnt - 1; k >= 1; k--) {
        d->rsize[d->idom[k]] += d->rsize[k];
        d->rcount[d->idom[k]] += d->rcount[k];
    }
    for (uint32_t i = 0; i < d->n; i++)
        if (d->pre[i] == HG_NONE) {
            d->unreach++;
            d->unreach_bytes += hg_shallow(g, i);
        }
    *out = d;
    return 0;
oom:
    free(parent);
    free(a);
    free(b);
    free(predoff);
    free(preds);
    free(stk);
    hg_dom_free(d);
    return -1;
}

void hg_dom_free(hg_dom *d)
{
    if (!d)
        return;
    free(d->pre);
    free(d->order);
    free(d->idom);
    free(d->rsize);
    free(d->rcount);
    free(d->rows);
    free(d);
}

uint32_t hg_dom_reachable(const hg_dom *d) { return d->cnt - 1; }
uint64_t hg_dom_unreachable(const hg_dom *d) { return d->unreach; }
uint64_t hg_dom_unreachable_bytes(const hg_dom *d) { return d->unreach_bytes; }
uint64_t hg_dom_total_bytes(const hg_dom *d) { return d->rsize[0]; }
int hg_dom_is_reachable(const hg_dom *d, uint32_t i) { return d->pre[i] != HG_NONE; }

uint32_t hg_dom_idom(const hg_dom *d, uint32_t i)
{
    uint32_t k = d->pre[i];
    if (k == HG_NONE || d->idom[k] == 0)
        return HG_NONE;
    return d->order[d->idom[k]];
}

uint64_t hg_dom_retained(const hg_dom *d, uint32_t i)
{
    uint32_t k = d->pre[i];
    return k == HG_NONE ? 0 : d->rsize[k];
}

uint64_t hg_dom_retained_count(const hg_dom *d, uint32_t i)
{
    uint32_t k = d->pre[i];
    return k == HG_NONE ? 0 : d->rcount[k];
}

/* "a before b": larger retained first, then lower id. */
static int hg_dom_before(const hg_dom *d, uint32_t ka, uint32_t kb)
{
    if (d->rsize[ka] != d->rsize[kb])
        return d->rsize[ka] > d->rsize[kb];
    return hg_id(d->g, d->order[ka]) < hg_id(d->g, d->order[kb]);
}

/* Moves out[i] down the heap of m numbers (the worst on top) to its place. */
static void hg_dom_sift(const hg_dom *d, uint32_t *out, uint32_t m, uint32_t i)
{
    uint32_t k = out[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= m)
            break;
        if (c + 1 < m && hg_dom_before(d, out[c], out[c + 1]))
            c++;
        if (!hg_dom_before(d, k, out[c]))
            break;
        out[i] = out[c];
        i = c;
    }
    out[i] = k;
}

/* A bounded heap of numbers: the worst of the kept ones on top; then
 * heapsort, best first (--top goes to 1 M: an insertion sort of the heap
 * was quadratic, 55 s for 100 k). */
uint32_t hg_dom_top(const hg_dom *d, uint32_t n, uint32_t *out)
{
    uint32_t m = 0;
    if (!n)
        return 0;
    for (uint32_t k = 1; k < d->cnt; k++) {
        if (m == n && !hg_dom_before(d, k, out[0]))
            continue;
        if (m < n) {
            uint32_t i = m++;
            while (i > 0 && hg_dom_before(d, out[(i - 1) / 2], k)) {
                out[i] = out[(i - 1) / 2];
                i = (i - 1) / 2;
            }
            out[i] = k;
            continue;
        }
        out[0] = k; /* replace the top */
        hg_dom_sift(d, out, m, 0);
    }
    for (uint32_t e = m; e > 1; e--) { /* the worst to the end */
        uint32_t w = out[0];
        out[0] = out[e - 1];
        out[e - 1] = w;
        hg_dom_sift(d, out, e - 1, 0);
    }
    for (uint32_t i = 0; i < m; i++)
        out[i] = d->order[out[i]];
    return m;
}

int hg_dom_classes(hg_dom *d, const hg_class_row **rows)
{
    if (d->rows) {
        *rows = d->rows;
        return 0;
    }
    uint32_t nc = hg_nclasses(d->g), cnt = d->cnt;
    hg_class_row *r = calloc((size_t)nc + 1, sizeof *r);
    uint32_t *active = calloc((size_t)nc + 1, sizeof *active);
    uint32_t *off = calloc((size_t)cnt + 1, sizeof *off);
    uint32_t *child = malloc((size_t)cnt * sizeof *child);
    uint32_t *pos = malloc((size_t)cnt * sizeof *pos);
    uint32_t *stack = malloc((size_t)cnt * sizeof *stack);
    if (!r || !active || !off || !child || !pos || !stack) {
        free(r);
        free(active);
        free(off);
        free(child);
        free(pos);
        free(stack);
        return -1;
    }
    for (uint32_t k = 1; k < cnt; k++)
        off[d->idom[k] + 1]++;
    for (uint32_t k = 0; k < cnt; k++)
        off[k + 1] += off[k];
    memcpy(pos, off, (size_t)cnt * sizeof *pos);
    for (uint32_t k = 1; k < cnt; k++)
        child[pos[d->idom[k]]++] = k;
    memcpy(pos, off, (size_t)cnt * sizeof *pos);
    /* walk the dominator tree; `active` counts the open ancestors of each
     * class: an instance with none is the topmost of its class */
    uint32_t sp = 0;
    stack[sp++] = 0;
    while (sp) {
        uint32_t k = stack[sp - 1];
        if (pos[k] < off[k + 1]) {
            uint32_t c = child[pos[k]++], i = d->order[c];
            uint32_t cl = hg_class_of(d->g, i);
            if (cl == HG_NONE)
                cl = nc;
            r[cl].instances++;
            r[cl].shallow += hg_shallow(d->g, i);
            if (!active[cl]++)
                r[cl].retained += d->rsize[c];
            stack[sp++] = c;
        } else {
            if (k) {
                uint32_t cl = hg_class_of(d->g, d->order[k]);
                active[cl == HG_NONE ? nc : cl]--;
            }
            sp--;
        }
    }
    free(active);
    free(off);
    free(child);
    free(pos);
    free(stack);
    d->rows = r;
    *rows = r;
    return 0;
}
