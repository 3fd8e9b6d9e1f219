/* rt_trie.c: string table and flame tries (rt_trie.h). Children are found
 * through one hash map keyed by (parent, name, kind) and chained in a
 * sibling list; the name order is only established at emit time. */
#include "rt_trie.h"

#include <stdlib.h>
#include <string.h>

#include "hu_map.h"

struct rt_names {
    char **s;
    size_t *len;
    size_t n, cap;
    int32_t *slots; /* open addressing: index + 1, 0 empty */
    size_t nslots;
};

static uint64_t rt_hash(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

rt_names *rt_names_new(void)
{
    return calloc(1, sizeof(rt_names));
}

void rt_names_free(rt_names *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++)
        free(n->s[i]);
    free(n->s);
    free(n->len);
    free(n->slots);
    free(n);
}

static int rt_names_rehash(rt_names *n, size_t nslots)
{
    int32_t *sl = calloc(nslots, sizeof *sl);
    if (!sl)
        return -1;
    for (size_t i = 0; i < n->n; i++) {
        size_t h = (size_t)rt_hash(n->s[i], n->len[i]) & (nslots - 1);
        while (sl[h])
            h = (h + 1) & (nslots - 1);
        sl[h] = (int32_t)i + 1;
    }
    free(n->slots);
    n->slots = sl;
    n->nslots = nslots;
    return 0;
}

int32_t rt_names_add(rt_names *n, const char *s, size_t len)
{
    if ((n->n + 1) * 2 > n->nslots && rt_names_rehash(n, n->nslots ? n->nslots * 2 : 1024) != 0)
        return -1;
    size_t h = (size_t)rt_hash(s, len) & (n->nslots - 1);
    while (n->slots[h]) {
        int32_t ix = n->slots[h] - 1;
        if (n->len[ix] == len && memcmp(n->s[ix], s, len) == 0)
            return ix;
        h = (h + 1) & (n->nslots - 1);
    }
    if (n->n >= INT32_MAX - 1)
        return -1;
    if (n->n == n->cap) {
        size_t nc = n->cap ? n->cap * 2 : 256;
        char **ns = realloc(n->s, nc * sizeof *ns);
        if (!ns)
            return -1;
        n->s = ns;
        size_t *nl = realloc(n->len, nc * sizeof *nl);
        if (!nl)
            return -1;
        n->len = nl;
        n->cap = nc;
    }
    char *c = malloc(len + 1);
    if (!c)
        return -1;
    memcpy(c, s, len);
    c[len] = 0;
    n->s[n->n] = c;
    n->len[n->n] = len;
    n->slots[h] = (int32_t)n->n + 1;
    return (int32_t)n->n++;
}

const char *rt_names_get(const rt_names *n, int32_t ix)
{
    return ix >= 0 && (size_t)ix < n->n ? n->s[ix] : "";
}

size_t rt_names_count(const rt_names *n)
{
    return n->n;
}

void rt_names_emit(const rt_names *n, rj *j)
{
    rj_arr(j);
    for (size_t i = 0; i < n->n; i++)
        rj_str(j, n->s[i], n->len[i]);
    rj_arr_end(j);
}

typedef struct rt_node {
    int32_t name;
    uint8_t kind;
    uint32_t first_child, next_sibling; /* 0: none (the root is never a child) */
    uint64_t w[2];
    uint64_t trace;
} rt_node;

struct rt_trie {
    const rt_names *names;
    rt_node *nodes;
    size_t n, cap;
    hu_map children; /* parent << 34 | name << 2 | kind -> node */
    uint64_t total[2];
    unsigned places; /* weights written as w / 10^places (rt_trie_set_places) */
};

rt_trie *rt_trie_new(const rt_names *names)
{
    rt_trie *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->names = names;
    hu_map_init(&t->children);
    t->nodes = calloc(64, sizeof *t->nodes);
    if (!t->nodes) {
        free(t);
        return NULL;
    }
    t->cap = 64;
    t->n = 1;
    t->nodes[0].name = -1;
    return t;
}

void rt_trie_free(rt_trie *t)
{
    if (!t)
        return;
    hu_map_cleanup(&t->children);
    free(t->nodes);
    free(t);
}

/* The child of `parent` named (name, kind), made when absent; 0 when out of
 * memory or past the key's range. */
static uint32_t rt_child(rt_trie *t, uint32_t parent, int32_t name, int kind)
{
    if (name < 0 || parent >= (1u << 30))
        return 0;
    uint64_t key = ((uint64_t)parent << 34) | ((uint64_t)(uint32_t)name << 2) | (uint64_t)(kind & 3);
    uint64_t *v = hu_map_get(&t->children, key);
    if (v)
        return (uint32_t)*v;
    if (t->n == t->cap) {
        rt_node *nn = realloc(t->nodes, t->cap * 2 * sizeof *nn);
        if (!nn)
            return 0;
        t->nodes = nn;
        t->cap *= 2;
    }
    uint32_t id = (uint32_t)t->n;
    if (hu_map_put(&t->children, key, id) != 0)
        return 0;
    rt_node *c = &t->nodes[t->n++];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->kind = (uint8_t)kind;
    c->next_sibling = t->nodes[parent].first_child;
    t->nodes[parent].first_child = id;
    return id;
}

int rt_trie_add(rt_trie *t, const int32_t *names, size_t n, int leaf_kind, uint64_t trace,
                uint64_t weight, int col)
{
    uint32_t cur = 0;
    for (size_t i = 0; i < n; i++) {
        cur = rt_child(t, cur, names[i], i + 1 == n ? leaf_kind : RT_FRAME);
        if (!cur)
            return -1;
    }
    rt_node *d = &t->nodes[cur];
    d->w[col & 1] += weight;
    t->total[col & 1] += weight;
    if (!d->trace)
        d->trace = trace;
    return 0;
}

void rt_trie_set_places(rt_trie *t, unsigned places)
{
    t->places = places;
}

void rt_trie_weight(const rt_trie *t, rj *j, uint64_t w)
{
    if (t->places)
        rj_fixed(j, w > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)w, t->places);
    else
        rj_u64(j, w);
}

uint64_t rt_trie_total(const rt_trie *t, int col)
{
    return t->total[col & 1];
}

size_t rt_trie_size(const rt_trie *t)
{
    return t->n;
}

typedef struct rt_sortkey {
    uint64_t key; /* name rank << 2 | kind */
    uint32_t node;
} rt_sortkey;

typedef struct rt_nameref {
    const char *s;
    int32_t ix;
} rt_nameref;

static int rt_nameref_cmp(const void *a, const void *b)
{
    return strcmp(((const rt_nameref *)a)->s, ((const rt_nameref *)b)->s);
}

static int rt_sortkey_cmp(const void *a, const void *b)
{
    uint64_t x = ((const rt_sortkey *)a)->key, y = ((const rt_sortkey *)b)->key;
    return x < y ? -1 : x > y;
}

int rt_trie_emit(const rt_trie *t, rj *j, int with_base, rt_trace_filter keep, void *ctx)
{
    size_t nn = rt_names_count(t->names);
    rt_nameref *refs = malloc((nn ? nn : 1) * sizeof *refs);
    uint32_t *rank = malloc((nn ? nn : 1) * sizeof *rank);
    uint32_t *order = malloc(t->n * sizeof *order);
    uint32_t *depth = malloc(t->n * sizeof *depth);
    uint32_t *stack = malloc(t->n * sizeof *stack);
    rt_sortkey *kids = malloc(t->n * sizeof *kids);
    int rc = -1;
    if (!refs || !rank || !order || !depth || !stack || !kids)
        goto out;
    for (size_t i = 0; i < nn; i++) {
        refs[i].s = rt_names_get(t->names, (int32_t)i);
        refs[i].ix = (int32_t)i;
    }
    qsort(refs, nn, sizeof *refs, rt_nameref_cmp);
    for (size_t i = 0; i < nn; i++)
        rank[refs[i].ix] = (uint32_t)i;
    /* preorder with an explicit stack: a node's children are pushed in
     * reverse name order so that the first in name order pops first */
    size_t sp = 0, no = 0;
    stack[sp++] = 0;
    depth[0] = 0;
    while (sp) {
        uint32_t id = stack[--sp];
        order[no++] = id;
        size_t nk = 0;
        for (uint32_t c = t->nodes[id].first_child; c; c = t->nodes[c].next_sibling) {
            kids[nk].key = ((uint64_t)rank[t->nodes[c].name] << 2) | t->nodes[c].kind;
            kids[nk++].node = c;
        }
        qsort(kids, nk, sizeof *kids, rt_sortkey_cmp);
        for (size_t k = nk; k > 0; k--) {
            depth[kids[k - 1].node] = depth[id] + 1;
            stack[sp++] = kids[k - 1].node;
        }
    }
    rj_obj(j);
    rj_key(j, "name");
    rj_arr(j);
    for (size_t i = 0; i < no; i++)
        rj_i64(j, t->nodes[order[i]].name);
    rj_arr_end(j);
    rj_key(j, "depth");
    rj_arr(j);
    for (size_t i = 0; i < no; i++)
        rj_u64(j, depth[order[i]]);
    rj_arr_end(j);
    for (int col = 0; col <= (with_base ? 1 : 0); col++) {
        rj_key(j, col ? "base" : "self");
        rj_arr(j);
        for (size_t i = 0; i < no; i++)
            rt_trie_weight(t, j, t->nodes[order[i]].w[col]);
        rj_arr_end(j);
    }
    rj_key(j, "kind");
    rj_arr(j);
    for (size_t i = 0; i < no; i++)
        rj_u64(j, t->nodes[order[i]].kind);
    rj_arr_end(j);
    rj_key(j, "trace");
    rj_arr(j);
    for (size_t i = 0; i < no; i++) {
        uint64_t tr = t->nodes[order[i]].trace;
        rj_u64(j, tr && keep ? keep(ctx, tr) : tr);
    }
    rj_arr_end(j);
    rj_obj_end(j);
    rc = rj_failed(j) ? -1 : 0;
out:
    free(refs);
    free(rank);
    free(order);
    free(depth);
    free(stack);
    free(kids);
    return rc;
}
