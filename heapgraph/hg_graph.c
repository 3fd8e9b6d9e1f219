/*
 * hg_graph.c: the object graph of a heap dump (hg_graph.h), built in two
 * passes over the reader's callbacks.
 *
 * Pass 1 gathers what sizes the arrays: every object id (sorted afterwards:
 * an object's index is its rank), the classes' layouts and names, the
 * roots, the instances per class (an exact bound on the references, nulls
 * included). Between the passes the memory the analysis will need is
 * estimated and checked. Pass 2 sets each object's class and size and
 * writes its edges, resolved to indices, into one array; an object's edges
 * are contiguous (start + count), in the file's order of objects.
 */
#include "hg_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hu_map.h"
#include "objsize.h"

typedef struct hg_cls {
    hprof_id id, super, loader;
    uint32_t name;            /* offset into cnames, or UINT32_MAX */
    uint32_t label;           /* "class <name>" in cnames, or UINT32_MAX */
    uint32_t own_off, own_n;  /* own fields in ownf (pass 1) */
    uint32_t lay_off, lay_n;  /* whole layout in lay */
    uint32_t ref_off, nrefs;  /* byte offsets of its reference fields in refoff */
    uint32_t referent;        /* offset of Reference.referent, or UINT32_MAX */
    uint32_t obj;             /* object index of its CLASS DUMP, or HG_NONE */
    uint8_t is_root;
    uint64_t count;           /* instances (pass 1) */
} hg_cls;

/* The memory budget (hg_dom.c's table): bytes per object, per reference
 * slot and the fixed part, for dominators or for paths only. */
#define HG_OBJ_DOM 42
#define HG_OBJ_PATH 34
#define HG_REF_DOM 8
#define HG_REF_PATH 4
#define HG_BASE_BYTES (32u << 20)

typedef struct hg_rawroot {
    hprof_id id;
    uint8_t kind;
    uint32_t thread, frame;
} hg_rawroot;

struct hg_graph {
    unsigned idsz;
    uint32_t n;
    hprof_id *ids;       /* sorted */
    uint32_t *dir;       /* bucket -> first index */
    hprof_id dmin, dmax;
    unsigned dshift;
    uint32_t *cls;       /* per object */
    uint32_t *size8;     /* shallow size / 8 (every HotSpot size is 8-aligned) */
    uint32_t *estart, *edeg;
    uint32_t *edges;
    uint64_t nedges;
    uint8_t *isclass;    /* bitmap */
    hg_root *roots;
    uint32_t nroots;
    uint32_t *rootedges; /* distinct rooted objects, for the virtual root */
    hu_map rootof;       /* object index -> roots index + 1 */
    hu_map clsobj;       /* class object index -> class index */
    hg_cls *c;
    uint32_t nc, capc;
    hg_field *lay;
    uint32_t nlay, caplay;
    uint32_t *refoff;
    uint32_t nrefoff, caprefoff;
    struct { hprof_id name; uint8_t type; } *ownf;
    uint32_t nownf, capownf;
    char *names;         /* UTF8 blob */
    size_t nnames, capnames;
    hu_map utf8;         /* utf8 id -> offset into names */
    char *cnames;        /* Java-spelled class names */
    size_t ncnames, capcnames;
};

typedef struct hg_load {
    hg_graph *g;
    hg_load_stats *st;
    const hg_load_opts *o;
    int pass;
    int oom;
    hu_map clsix;    /* class id -> class index + 1 */
    hu_map lc;       /* class id -> name id (LOAD CLASS) */
    hu_map count;    /* class id -> instances (pass 1) */
    objsize_classes osz;
    hprof_id *ids;   /* pass 1, file order */
    size_t nids, capids;
    hg_rawroot *raw;
    size_t nraw, capraw;
    uint64_t oarr_elems;
    uint64_t class_slots; /* edges of the CLASS DUMPs, at most */
    uint32_t prim_seen;   /* bit per element type of the primitive arrays */
    uint64_t inst_slots;  /* sum of the instances' value bytes / id size */
    uint32_t jlclass; /* class index of java.lang.Class, or HG_NONE */
    uint32_t prim[16];
    /* loaders: sorted (loader id, class index) pairs; loader objects bit-marked */
    struct { hprof_id loader; uint32_t c; } *ldr;
    size_t nldr;
    hu_map ldrix; /* loader id -> first pair + 1 */
    uint8_t *isloader;
    uint64_t ecap;
    uint32_t cur_arr; /* OBJ ARRAY in parts: the object its parts extend */
    uint64_t limit;   /* bytes allowed (0: no limit), checked in pass 1 too */
    uint64_t per_obj; /* HG_OBJ_DOM or HG_OBJ_PATH */
    int toobig;       /* pass 1 stopped: the objects alone pass the limit */
} hg_load;

/* ------------------------------------------------------------- helpers */

static int hg_grow(void **p, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    uint64_t nc = *cap ? *cap : 256;
    while (nc < need)
        nc *= 2;
    if (nc > UINT32_MAX)
        return -1;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = (uint32_t)nc;
    return 0;
}

static int hg_grow_sz(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 1024;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

uint64_t hg_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return (uint64_t)kb * 1024;
}

static const char *hg_prim_name(char c)
{
    switch (c) {
    case 'Z': return "boolean";
    case 'B': return "byte";
    case 'C': return "char";
    case 'S': return "short";
    case 'I': return "int";
    case 'J': return "long";
    case 'F': return "float";
    case 'D': return "double";
    default: return NULL;
    }
}

static int hg_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* With `dots`, slashes become dots, except the one before a hidden class's
 * address: Class.getName()'s "a.B$$Lambda$1/0x0000000800c01000" (what
 * stack traces and jcmd GC.class_histogram show) is the dump's
 * "a/B$$Lambda$1+0x0000000800c01000", one class whichever is given. No
 * identifier starts with a digit, so "/0x<hex>" is never a package. */
static void hg_put(char *out, size_t cap, size_t *n, const char *s, size_t k, int dots)
{
    for (size_t i = 0; i < k; i++, (*n)++) {
        char c = s[i];
        if (dots && c == '/')
            c = i + 3 < k && s[i + 1] == '0' && (s[i + 2] == 'x' || s[i + 2] == 'X') && hg_hex(s[i + 3]) ? '+'
                                                                                                 : '.';
        if (*n + 1 < cap)
            out[*n] = c;
    }
}

size_t hg_java_name(const char *vm, size_t len, char *out, size_t cap)
{
    size_t n = 0, dims = 0;
    while (dims < len && vm[dims] == '[')
        dims++;
    const char *rest = vm + dims;
    size_t rlen = len - dims;
    int sig = rlen >= 2 && rest[0] == 'L' && rest[rlen - 1] == ';';
    const char *prim = dims && rlen == 1 ? hg_prim_name(rest[0]) : NULL;
    if (prim) {
        hg_put(out, cap, &n, prim, strlen(prim), 0);
    } else if (sig) {
        hg_put(out, cap, &n, rest + 1, rlen - 2, 1);
    } else {
        dims = 0; /* not a descriptor: as written, slashes as dots */
        hg_put(out, cap, &n, vm, len, 1);
    }
    for (size_t d = 0; d < dims; d++)
        hg_put(out, cap, &n, "[]", 2, 0);
    if (cap)
        out[n < cap ? n : cap - 1] = 0;
    return n;
}

/* LSD radix sort of ids, 16 bits a pass; a pass whose digit is the same
 * for every id is skipped (4-byte ids: two passes at most). */
static int hg_sort_ids(hprof_id *a, size_t n)
{
    hprof_id *tmp = malloc(n * sizeof *tmp);
    size_t *cnt = malloc(65537 * sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return -1;
    }
    hprof_id *src = a, *dst = tmp;
    for (unsigned sh = 0; sh < 64; sh += 16) {
        memset(cnt, 0, 65537 * sizeof *cnt);
        for (size_t i = 0; i < n; i++)
            cnt[((src[i] >> sh) & 0xFFFF) + 1]++;
        int single = 0;
        for (size_t d = 1; d <= 65536; d++)
            if (cnt[d] == n)
                single = 1;
        if (single)
            continue;
        for (size_t d = 1; d <= 65536; d++)
            cnt[d] += cnt[d - 1];
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> sh) & 0xFFFF]++] = src[i];
        hprof_id *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    free(tmp);
    free(cnt);
    return 0;
}

uint32_t hg_find(const hg_graph *g, hprof_id id)
{
    if (!g->n || id < g->dmin || id > g->dmax)
        return HG_NONE;
    uint64_t b = (id - g->dmin) >> g->dshift;
    uint32_t lo = g->dir[b], hi = g->dir[b + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->n && g->ids[lo] == id ? lo : HG_NONE;
}

/* The bucket directory: about one bucket per 4 objects. */
static int hg_build_dir(hg_graph *g)
{
    g->dmin = g->n ? g->ids[0] : 0;
    g->dmax = g->n ? g->ids[g->n - 1] : 0;
    uint64_t range = g->dmax - g->dmin;
    uint64_t want = g->n / 4 + 1;
    g->dshift = 0;
    while ((range >> g->dshift) > want)
        g->dshift++;
    uint64_t nb = (range >> g->dshift) + 2;
    g->dir = malloc((size_t)nb * sizeof *g->dir);
    if (!g->dir)
        return -1;
    uint32_t i = 0;
    for (uint64_t b = 0; b < nb; b++) {
        while (i < g->n && ((g->ids[i] - g->dmin) >> g->dshift) < b)
            i++;
        g->dir[b] = i;
    }
    return 0;
}

static const char *hg_utf8_of(const hg_graph *g, hprof_id id)
{
    uint64_t *off = hu_map_get(&g->utf8, id);
    return off ? g->names + *off : NULL;
}

/* ------------------------------------------------------------- pass 1 */

static int hg_on_header(void *ctx, const hr_header *h)
{
    hg_load *l = ctx;
    l->g->idsz = h->id_size;
    return 0;
}

static int hg_on_record(void *ctx, const hr_record *r)
{
    hg_load *l = ctx;
    hg_graph *g = l->g;
    if (l->pass != 1 || !r->body || r->malformed)
        return 0;
    if (r->tag == HPROF_TAG_UTF8) {
        size_t n = r->u.utf8.len;
        if (hg_grow_sz((void **)&g->names, &g->capnames, g->nnames + n + 1, 1) != 0 ||
            hu_map_put(&g->utf8, r->u.utf8.id, g->nnames) != 0) {
            l->oom = 1;
            return 1;
        }
        memcpy(g->names + g->nnames, r->u.utf8.str, n);
        g->names[g->nnames + n] = 0;
        g->nnames += n + 1;
    } else if (r->tag == HPROF_TAG_LOAD_CLASS) {
        if (hu_map_put(&l->lc, r->u.load_class.class_id, r->u.load_class.name_id) != 0) {
            l->oom = 1;
            return 1;
        }
    }
    return 0;
}

/* Pass 1 holds 8 bytes an object (16 to 24 while its array grows and is
 * sorted), the analysis at least per_obj: once the objects read so far
 * pass the limit the dump is refused there, before pass 1 itself takes
 * more memory than the machine has (a dump of 500 M objects needs 21 GB;
 * its pass 1 alone would take 8 to 12 of them before the estimate). */
static int hg_push_id(hg_load *l, hprof_id id)
{
    if (l->limit && (uint64_t)(l->nids + 1) * l->per_obj + HG_BASE_BYTES > l->limit) {
        l->toobig = 1;
        return -1;
    }
    if (hg_grow_sz((void **)&l->ids, &l->capids, l->nids + 1, sizeof *l->ids) != 0)
        return -1;
    l->ids[l->nids++] = id;
    return 0;
}

static int hg_is_root_kind(uint8_t t)
{
    switch (t) {
    case HPROF_GC_ROOT_JNI_GLOBAL: case HPROF_GC_ROOT_JNI_LOCAL: case HPROF_GC_ROOT_JAVA_FRAME:
    case HPROF_GC_ROOT_NATIVE_STACK: case HPROF_GC_ROOT_STICKY_CLASS: case HPROF_GC_ROOT_THREAD_BLOCK:
    case HPROF_GC_ROOT_MONITOR_USED: case HPROF_GC_ROOT_THREAD_OBJ: case HPROF_GC_ROOT_INTERNED_STRING:
    case HPROF_GC_ROOT_FINALIZING: case HPROF_GC_ROOT_DEBUGGER: case HPROF_GC_ROOT_REFERENCE_CLEANUP:
    case HPROF_GC_ROOT_VM_INTERNAL: case HPROF_GC_ROOT_JNI_MONITOR: case HPROF_GC_ROOT_UNKNOWN:
        return 1;
    default: return 0;
    }
}

static int hg_pass1_class(hg_load *l, const hr_sub *s)
{
    hg_graph *g = l->g;
    int ins;
    uint64_t *slot = hu_map_upsert(&l->clsix, s->u.cls.class_id, g->nc + 1, &ins);
    if (!slot)
        return -1;
    if (!ins)
        return 0; /* dumped twice: the first wins */
    if (hg_grow((void **)&g->c, &g->capc, (uint64_t)g->nc + 1, sizeof *g->c) != 0 ||
        hg_grow((void **)&g->ownf, &g->capownf, (uint64_t)g->nownf + s->u.cls.nfields, sizeof *g->ownf) != 0 ||
        objsize_add_class(&l->osz, s, g->idsz) != 0)
        return -1;
    hg_cls *c = &g->c[g->nc++];
    memset(c, 0, sizeof *c);
    c->label = UINT32_MAX;
    l->class_slots += 4u + s->u.cls.ncp + s->u.cls.nstatics;
    c->id = s->u.cls.class_id;
    c->super = s->u.cls.super_id;
    c->loader = s->u.cls.loader_id;
    c->name = UINT32_MAX;
    c->referent = UINT32_MAX;
    c->obj = HG_NONE;
    c->own_off = g->nownf;
    c->own_n = s->u.cls.nfields;
    const uint8_t *q = s->u.cls.fields;
    for (uint16_t i = 0; i < s->u.cls.nfields; i++) {
        hr_field f;
        q = hr_class_field_next(q, g->idsz, &f);
        g->ownf[g->nownf].name = f.name_id;
        g->ownf[g->nownf].type = f.type;
        g->nownf++;
    }
    return 0;
}

static int hg_pass1_sub(hg_load *l, const hr_sub *s)
{
    if (s->part)
        return 0;
    switch (s->tag) {
    case HPROF_GC_CLASS_DUMP:
        if (hg_pass1_class(l, s) != 0)
            return -1;
        return hg_push_id(l, s->u.cls.class_id);
    case HPROF_GC_INSTANCE_DUMP: {
        int ins;
        uint64_t *v = hu_map_upsert(&l->count, s->u.inst.class_id, 0, &ins);
        if (!v)
            return -1;
        (*v)++;
        l->inst_slots += s->u.inst.nbytes / l->g->idsz;
        return hg_push_id(l, s->u.inst.id);
    }
    case HPROF_GC_OBJ_ARRAY_DUMP:
        l->oarr_elems += s->u.oarr.n;
        return hg_push_id(l, s->u.oarr.id);
    case HPROF_GC_PRIM_ARRAY_DUMP:
        l->prim_seen |= 1u << (s->u.parr.type & 15);
        return hg_push_id(l, s->u.parr.id);
    default:
        if (!hg_is_root_kind(s->tag))
            return 0;
        if (hg_grow_sz((void **)&l->raw, &l->capraw, l->nraw + 1, sizeof *l->raw) != 0)
            return -1;
        hg_rawroot *r = &l->raw[l->nraw++];
        r->id = s->u.root.id;
        r->kind = s->tag;
        r->thread = s->u.root.thread_serial;
        r->frame = s->u.root.frame;
        return 0;
    }
}

/* ------------------------------------------------------------- pass 2 */

static void hg_edge(hg_load *l, hprof_id id)
{
    if (!id)
        return;
    hg_graph *g = l->g;
    uint32_t t = hg_find(g, id);
    if (t == HG_NONE) {
        l->st->dangling_refs++;
        return;
    }
    if (g->nedges == l->ecap) { /* the bound is exact: not reached in practice */
        uint64_t nc = l->ecap + l->ecap / 2 + 1024;
        if (nc > UINT32_MAX) {
            l->oom = 1;
            return;
        }
        uint32_t *ne = realloc(g->edges, (size_t)nc * sizeof *ne);
        if (!ne) {
            l->oom = 1;
            return;
        }
        g->edges = ne;
        l->ecap = nc;
    }
    g->edges[g->nedges++] = t;
}

static uint32_t hg_cls_index(hg_load *l, hprof_id class_id)
{
    uint64_t *k = hu_map_get(&l->clsix, class_id);
    return k ? (uint32_t)(*k - 1) : HG_NONE;
}

/* Starts object `id` (HG_NONE when absent or already seen: a repeat was
 * counted when pass 1's ids were sorted). */
static uint32_t hg_begin(hg_load *l, hprof_id id, uint32_t cls, uint64_t size)
{
    hg_graph *g = l->g;
    uint32_t i = hg_find(g, id);
    if (i == HG_NONE || g->estart[i] != UINT32_MAX)
        return HG_NONE;
    g->estart[i] = (uint32_t)g->nedges;
    g->cls[i] = cls;
    uint64_t s8 = size / 8;
    g->size8[i] = s8 > UINT32_MAX ? UINT32_MAX : (uint32_t)s8;
    return i;
}

static void hg_end(hg_load *l, uint32_t i)
{
    hg_graph *g = l->g;
    g->edeg[i] = (uint32_t)(g->nedges - g->estart[i]);
}

/* The instance-to-class edge (MAT's "<class>"), unless the class is a root. */
static void hg_class_edge(hg_load *l, uint32_t c)
{
    if (c != HG_NONE && !l->g->c[c].is_root && l->g->c[c].obj != HG_NONE)
        hg_edge(l, l->g->c[c].id);
}

static void hg_loader_edges(hg_load *l, uint32_t i)
{
    if (!(l->isloader[i >> 3] & (1u << (i & 7))))
        return;
    uint64_t *k = hu_map_get(&l->ldrix, l->g->ids[i]);
    if (!k)
        return;
    for (size_t p = *k - 1; p < l->nldr && l->ldr[p].loader == l->g->ids[i]; p++)
        hg_edge(l, l->g->c[l->ldr[p].c].id);
}

static void hg_pass2_sub(hg_load *l, const hr_sub *s)
{
    hg_graph *g = l->g;
    unsigned idsz = g->idsz;
    if (s->part) {
        if (s->tag == HPROF_GC_OBJ_ARRAY_DUMP && l->cur_arr != HG_NONE) {
            for (uint32_t k = 0; k < s->u.oarr.count; k++)
                hg_edge(l, hr_get_id(s->u.oarr.elems + (size_t)k * idsz, idsz));
            hg_end(l, l->cur_arr);
        }
        return;
    }
    l->cur_arr = HG_NONE;
    switch (s->tag) {
    case HPROF_GC_CLASS_DUMP: {
        uint32_t i = hg_begin(l, s->u.cls.class_id, l->jlclass, 0);
        if (i == HG_NONE)
            return;
        g->isclass[i >> 3] |= (uint8_t)(1u << (i & 7));
        hg_edge(l, s->u.cls.super_id);
        hg_edge(l, s->u.cls.loader_id);
        const uint8_t *q = s->u.cls.statics;
        for (uint16_t k = 0; k < s->u.cls.nstatics; k++) {
            hr_static st;
            q = hr_class_static_next(q, idsz, &st);
            if (st.type == HPROF_TYPE_OBJECT)
                hg_edge(l, st.value);
        }
        hg_loader_edges(l, i);
        hg_end(l, i);
        return;
    }
    case HPROF_GC_INSTANCE_DUMP: {
        uint32_t c = hg_cls_index(l, s->u.inst.class_id);
        uint64_t size = objsize_instance(&l->osz, s->u.inst.class_id, s->u.inst.nbytes, idsz);
        uint32_t i = hg_begin(l, s->u.inst.id, c, size);
        if (i == HG_NONE)
            return;
        if (c != HG_NONE) {
            const hg_cls *k = &g->c[c];
            for (uint32_t f = 0; f < k->nrefs; f++) {
                uint32_t off = g->refoff[k->ref_off + f];
                if ((uint64_t)off + idsz > s->u.inst.nbytes)
                    break;
                hprof_id v = hr_get_id(s->u.inst.values + off, idsz);
                if (off == k->referent && l->o->strong_only) {
                    l->st->weak_skipped += v != 0;
                    continue;
                }
                hg_edge(l, v);
            }
        }
        hg_class_edge(l, c);
        hg_loader_edges(l, i);
        hg_end(l, i);
        return;
    }
    case HPROF_GC_OBJ_ARRAY_DUMP: {
        uint32_t c = hg_cls_index(l, s->u.oarr.class_id);
        uint32_t i = hg_begin(l, s->u.oarr.id, c, objsize_of(&l->osz, s, idsz));
        if (i == HG_NONE)
            return;
        hg_class_edge(l, c);
        for (uint32_t k = 0; k < s->u.oarr.count; k++)
            hg_edge(l, hr_get_id(s->u.oarr.elems + (size_t)k * idsz, idsz));
        hg_end(l, i);
        l->cur_arr = i;
        return;
    }
    case HPROF_GC_PRIM_ARRAY_DUMP: {
        uint32_t c = s->u.parr.type < 16 ? l->prim[s->u.parr.type] : HG_NONE;
        uint32_t i = hg_begin(l, s->u.parr.id, c, objsize_of(&l->osz, s, idsz));
        if (i == HG_NONE)
            return;
        hg_class_edge(l, c);
        hg_end(l, i);
        return;
    }
    default: return;
    }
}

static int hg_on_sub(void *ctx, const hr_sub *s)
{
    hg_load *l = ctx;
    if (l->pass == 1) {
        if (hg_pass1_sub(l, s) != 0) {
            l->oom = 1;
            return 1;
        }
        return 0;
    }
    hg_pass2_sub(l, s);
    return l->oom;
}

static void hg_on_problem(void *ctx, hr_severity sev, const char *kind, uint64_t off, const char *msg)
{
    hg_load *l = ctx;
    if (sev == HR_ERROR && !l->st->problem[0])
        snprintf(l->st->problem, sizeof l->st->problem, "%s at offset %llu: %s", kind,
                 (unsigned long long)off, msg);
}

/* ------------------------------------------------------- between passes */

static int hg_add_cname(hg_graph *g, hg_cls *c, const char *vm, size_t len)
{
    size_t need = hg_java_name(vm, len, NULL, 0) + 1;
    if (hg_grow_sz((void **)&g->cnames, &g->capcnames, g->ncnames + 2 * need + 6, 1) != 0)
        return -1;
    hg_java_name(vm, len, g->cnames + g->ncnames, need);
    c->name = (uint32_t)g->ncnames;
    g->ncnames += need;
    memcpy(g->cnames + g->ncnames, "class ", 6);
    memcpy(g->cnames + g->ncnames + 6, g->cnames + c->name, need);
    c->label = (uint32_t)g->ncnames;
    g->ncnames += need + 6;
    return 0;
}

/* Names, layouts (own fields first, then the super's, as HotSpot writes
 * instance values), reference offsets and Reference.referent.
 *
 * Every class holds its whole layout, so a hostile dump's super chains cost
 * classes x depth: a chain that comes back to a class (a class its own
 * super, A -> B -> A) ends there, and the inherited fields of all classes
 * together may be at most HG_LAY_DEPTH times the fields the classes
 * declare (a JDK's dump: about 5) plus HG_LAY_SLACK; beyond, the layouts
 * are cut and the load says so as it says a cut file (a 1 MB dump of 2000
 * such classes once took 3 GB). */
#define HG_LAY_DEPTH 64
#define HG_LAY_SLACK (1u << 20)

static int hg_layouts(hg_load *l)
{
    hg_graph *g = l->g;
    uint64_t budget = (uint64_t)HG_LAY_DEPTH * g->nownf + HG_LAY_SLACK;
    uint32_t *seen = calloc((size_t)g->nc + 1, sizeof *seen); /* class -> i + 1 of its last walk */
    int cut = 0, cyc = 0;
    if (!seen)
        return -1;
    for (uint32_t i = 0; i < g->nc; i++) {
        hg_cls *c = &g->c[i];
        uint64_t *nid = hu_map_get(&l->lc, c->id);
        const char *nm = nid ? hg_utf8_of(g, *nid) : NULL;
        if (nm && hg_add_cname(g, c, nm, strlen(nm)) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < g->nc; i++) {
        hg_cls *c = &g->c[i];
        c->lay_off = g->nlay;
        c->ref_off = g->nrefoff;
        uint32_t off = 0, k = i;
        while (k != HG_NONE) {
            if (seen[k] == i + 1) {
                cyc = 1;
                break;
            }
            seen[k] = i + 1;
            if (k != i && g->nlay + g->c[k].own_n > budget) {
                cut = 1;
                break;
            }
            const hg_cls *s = &g->c[k];
            int is_ref = s->name != UINT32_MAX && strcmp(g->cnames + s->name, "java.lang.ref.Reference") == 0;
            for (uint32_t f = 0; f < s->own_n; f++) {
                hprof_id nid = g->ownf[s->own_off + f].name;
                uint8_t t = g->ownf[s->own_off + f].type;
                if (hg_grow((void **)&g->lay, &g->caplay, (uint64_t)g->nlay + 1, sizeof *g->lay) != 0) {
                    free(seen);
                    return -1;
                }
                g->lay[g->nlay].name_id = nid;
                g->lay[g->nlay].type = t;
                g->lay[g->nlay].offset = off;
                g->nlay++;
                if (t == HPROF_TYPE_OBJECT) {
                    if (hg_grow((void **)&g->refoff, &g->caprefoff, (uint64_t)g->nrefoff + 1,
                                sizeof *g->refoff) != 0) {
                        free(seen);
                        return -1;
                    }
                    g->refoff[g->nrefoff++] = off;
                    const char *fn = hg_utf8_of(g, nid);
                    if (is_ref && fn && strcmp(fn, "referent") == 0)
                        c->referent = off;
                }
                unsigned ts = hprof_type_size(t, g->idsz);
                off += ts ? ts : 1;
            }
            k = s->super ? hg_cls_index(l, s->super) : HG_NONE;
        }
        c->lay_n = g->nlay - c->lay_off;
        c->nrefs = g->nrefoff - c->ref_off;
    }
    free(seen);
    if ((cut || cyc) && !l->st->problem[0]) {
        l->st->malformed = 1;
        snprintf(l->st->problem, sizeof l->st->problem, "%s",
                 cut ? "super class chains too long: the inherited fields of some classes left out"
                     : "a super class chain comes back to a class: it ends there");
    }
    /* primitive array classes, named only in LOAD CLASS when no CLASS DUMP */
    static const char desc[16] = {[HPROF_TYPE_BOOLEAN] = 'Z', [HPROF_TYPE_CHAR] = 'C',
                                  [HPROF_TYPE_FLOAT] = 'F',   [HPROF_TYPE_DOUBLE] = 'D',
                                  [HPROF_TYPE_BYTE] = 'B',    [HPROF_TYPE_SHORT] = 'S',
                                  [HPROF_TYPE_INT] = 'I',     [HPROF_TYPE_LONG] = 'J'};
    for (int t = 0; t < 16; t++) {
        l->prim[t] = HG_NONE;
        if (!desc[t])
            continue;
        char vm[3] = {'[', desc[t], 0}, jn[16];
        hg_java_name(vm, 2, jn, sizeof jn);
        for (uint32_t i = 0; i < g->nc && l->prim[t] == HG_NONE; i++)
            if (g->c[i].name != UINT32_MAX && strcmp(g->cnames + g->c[i].name, jn) == 0)
                l->prim[t] = i;
    }
    l->jlclass = HG_NONE;
    for (uint32_t i = 0; i < g->nc && l->jlclass == HG_NONE; i++)
        if (g->c[i].name != UINT32_MAX && strcmp(g->cnames + g->c[i].name, "java.lang.Class") == 0)
            l->jlclass = i;
    return 0;
}

static int hg_add_prim_classes(hg_load *l)
{
    hg_graph *g = l->g;
    static const char *const jn[16] = {[HPROF_TYPE_BOOLEAN] = "boolean[]", [HPROF_TYPE_CHAR] = "char[]",
                                       [HPROF_TYPE_FLOAT] = "float[]",     [HPROF_TYPE_DOUBLE] = "double[]",
                                       [HPROF_TYPE_BYTE] = "byte[]",       [HPROF_TYPE_SHORT] = "short[]",
                                       [HPROF_TYPE_INT] = "int[]",         [HPROF_TYPE_LONG] = "long[]"};
    for (int t = 0; t < 16; t++) {
        if (!jn[t] || l->prim[t] != HG_NONE || !(l->prim_seen & (1u << t)))
            continue;
        if (hg_grow((void **)&g->c, &g->capc, (uint64_t)g->nc + 1, sizeof *g->c) != 0)
            return -1;
        hg_cls *c = &g->c[g->nc];
        memset(c, 0, sizeof *c);
        c->name = UINT32_MAX;
        c->label = UINT32_MAX;
        c->referent = UINT32_MAX;
        c->obj = HG_NONE;
        c->lay_off = g->nlay;
        c->ref_off = g->nrefoff;
        if (hg_add_cname(g, c, jn[t], strlen(jn[t])) != 0)
            return -1;
        l->prim[t] = g->nc++;
    }
    return 0;
}

static int hg_loader_cmp(const void *a, const void *b)
{
    const struct { hprof_id loader; uint32_t c; } *x = a, *y = b;
    if (x->loader != y->loader)
        return x->loader < y->loader ? -1 : 1;
    return x->c < y->c ? -1 : x->c > y->c;
}

/* Sorted ids, the directory, roots, class objects, loaders, the edge bound.
 * Returns the estimate of bytes needed through `need`. */
static int hg_between(hg_load *l, uint64_t *need)
{
    hg_graph *g = l->g;
    if (objsize_finish(&l->osz) != 0 || hg_layouts(l) != 0)
        return -1;
    if (hg_sort_ids(l->ids, l->nids) != 0)
        return -1;
    size_t u = 0;
    for (size_t i = 0; i < l->nids; i++)
        if (!u || l->ids[i] != l->ids[u - 1])
            l->ids[u++] = l->ids[i];
    l->st->duplicates += l->nids - u;
    g->n = (uint32_t)u;
    g->ids = realloc(l->ids, (u ? u : 1) * sizeof *g->ids);
    if (!g->ids)
        return -1;
    l->ids = NULL;
    if (hg_build_dir(g) != 0)
        return -1;
    /* class objects and roots */
    for (uint32_t i = 0; i < g->nc; i++) {
        g->c[i].obj = hg_find(g, g->c[i].id);
        if (g->c[i].obj != HG_NONE && hu_map_put(&g->clsobj, g->c[i].obj, i) != 0)
            return -1;
    }
    g->roots = malloc((l->nraw ? l->nraw : 1) * sizeof *g->roots);
    if (!g->roots)
        return -1;
    for (size_t k = 0; k < l->nraw; k++) {
        uint32_t i = hg_find(g, l->raw[k].id);
        if (i == HG_NONE) {
            l->st->dangling_roots++;
            continue;
        }
        hg_root *r = &g->roots[g->nroots];
        r->obj = i;
        r->kind = l->raw[k].kind;
        r->thread = l->raw[k].thread;
        r->frame = l->raw[k].frame;
        int ins;
        if (!hu_map_upsert(&g->rootof, i, g->nroots + 1, &ins))
            return -1;
        g->nroots++;
        uint32_t c = hg_cls_index(l, l->raw[k].id);
        if (c != HG_NONE)
            g->c[c].is_root = 1;
    }
    free(l->raw);
    l->raw = NULL;
    g->rootedges = malloc((g->rootof.count ? g->rootof.count : 1) * sizeof *g->rootedges);
    if (!g->rootedges)
        return -1;
    uint32_t nre = 0;
    for (uint32_t k = 0; k < g->nroots; k++) {
        uint64_t *first = hu_map_get(&g->rootof, g->roots[k].obj);
        if (*first == k + 1u)
            g->rootedges[nre++] = g->roots[k].obj;
    }
    /* loaders */
    size_t nl = 0;
    for (uint32_t i = 0; i < g->nc; i++)
        nl += g->c[i].loader != 0 && g->c[i].obj != HG_NONE;
    l->ldr = malloc((nl ? nl : 1) * sizeof *l->ldr);
    l->isloader = calloc((size_t)g->n / 8 + 1, 1);
    g->isclass = calloc((size_t)g->n / 8 + 1, 1);
    if (!l->ldr || !l->isloader || !g->isclass)
        return -1;
    for (uint32_t i = 0; i < g->nc; i++)
        if (g->c[i].loader && g->c[i].obj != HG_NONE) {
            l->ldr[l->nldr].loader = g->c[i].loader;
            l->ldr[l->nldr].c = i;
            l->nldr++;
        }
    qsort(l->ldr, l->nldr, sizeof *l->ldr, hg_loader_cmp);
    for (size_t p = 0; p < l->nldr; p++) {
        if (p && l->ldr[p].loader == l->ldr[p - 1].loader)
            continue;
        if (hu_map_put(&l->ldrix, l->ldr[p].loader, p + 1) != 0)
            return -1;
        uint32_t i = hg_find(g, l->ldr[p].loader);
        if (i != HG_NONE)
            l->isloader[i >> 3] |= (uint8_t)(1u << (i & 7));
    }
    /* the edge bound: every reference slot, nulls included (of the
     * instances: their classes' reference fields, or what their bytes can
     * hold, whichever is less: a lying layout costs nothing) */
    uint64_t e = l->oarr_elems + l->nids + l->nldr, ie = 0;
    size_t it = 0;
    uint64_t key, val;
    while (hu_map_next(&l->count, &it, &key, &val)) {
        uint32_t c = hg_cls_index(l, key);
        ie += val * (c != HG_NONE ? g->c[c].nrefs : 0);
    }
    e += ie < l->inst_slots ? ie : l->inst_slots;
    e += l->class_slots;
    l->ecap = e;
    /* Bytes per object: graph 8 id + 4 class + 4 size + 8 edge start/count
     * + ~1 directory + 2 bits; the dominator pass (hg_dom.c, its budget) at
     * its peak adds 4 number + 4 order + 4 parent + 4 predecessor offset,
     * and 4 per edge for the predecessors: 42 bytes per object and 8 per
     * reference in all (the references counted with their nulls: an upper
     * bound). Paths need 8 more (BFS parent and queue) instead. */
    uint64_t per_edge = l->o->for_dominators ? HG_REF_DOM : HG_REF_PATH;
    *need = (uint64_t)g->n * l->per_obj + e * per_edge + g->capnames + g->nlay * sizeof(hg_field) +
            g->capc * sizeof(hg_cls) + HG_BASE_BYTES;
    return 0;
}

/* ------------------------------------------------------------- the load */

static void hg_load_cleanup(hg_load *l)
{
    hu_map_cleanup(&l->clsix);
    hu_map_cleanup(&l->lc);
    hu_map_cleanup(&l->count);
    hu_map_cleanup(&l->ldrix);
    objsize_cleanup(&l->osz);
    free(l->ids);
    free(l->raw);
    free(l->ldr);
    free(l->isloader);
}

static hg_status hg_fail(hg_load *l, hg_graph **out, hg_status st, char *err, size_t errlen,
                         const char *msg)
{
    snprintf(err, errlen, "%s", msg);
    hg_graph_free(l->g);
    hg_load_cleanup(l);
    *out = NULL;
    return st;
}

hg_status hg_graph_load(hr_source *src, const hg_load_opts *o, hg_graph **out, hg_load_stats *stats,
                        char *err, size_t errlen)
{
    hg_load_stats dummy;
    hg_load_stats *st = stats ? stats : &dummy;
    memset(st, 0, sizeof *st);
    hg_load l;
    memset(&l, 0, sizeof l);
    l.st = st;
    l.o = o;
    l.cur_arr = HG_NONE;
    hu_map_init(&l.clsix);
    hu_map_init(&l.lc);
    hu_map_init(&l.count);
    hu_map_init(&l.ldrix);
    objsize_init(&l.osz);
    l.g = calloc(1, sizeof *l.g);
    if (!l.g)
        return hg_fail(&l, out, HG_NOMEM, err, errlen, "out of memory");
    hu_map_init(&l.g->utf8);
    hu_map_init(&l.g->rootof);
    hu_map_init(&l.g->clsobj);
    hr_callbacks cb = {.on_header = hg_on_header, .on_record = hg_on_record, .on_sub = hg_on_sub,
                       .on_problem = hg_on_problem};
    hr_stats hs;
    l.pass = 1;
    st->limit_bytes = o->max_memory ? o->max_memory : hg_mem_available();
    l.limit = st->limit_bytes;
    l.per_obj = o->for_dominators ? HG_OBJ_DOM : HG_OBJ_PATH;
    hr_status rs = hr_parse(src, &cb, &l, &hs);
    if (l.toobig) {
        char m[320];
        st->need_bytes = (uint64_t)(l.nids + 1) * l.per_obj + HG_BASE_BYTES;
        snprintf(m, sizeof m,
                 "the analysis would need more than %llu MB (%zu objects read so far, %llu bytes "
                 "each at least, and %u MB); %llu MB are available%s",
                 (unsigned long long)(st->need_bytes >> 20), l.nids, (unsigned long long)l.per_obj,
                 HG_BASE_BYTES >> 20, (unsigned long long)(st->limit_bytes >> 20),
                 o->max_memory ? " (--max-memory)" : " (MemAvailable)");
        return hg_fail(&l, out, HG_MEMORY, err, errlen, m);
    }
    if (l.oom)
        return hg_fail(&l, out, HG_NOMEM, err, errlen, "out of memory in the first pass");
    if (rs == HR_IO || !l.g->idsz)
        return hg_fail(&l, out, HG_INPUT, err, errlen,
                       st->problem[0] ? st->problem : "not an HPROF file");
    if (!hs.records[HPROF_TAG_HEAP_DUMP] && !hs.records[HPROF_TAG_HEAP_DUMP_SEGMENT]) {
        char m[400];
        snprintf(m, sizeof m, "the file holds no heap dump%s%.300s%s", st->problem[0] ? " (it ends early: " : "",
                 st->problem, st->problem[0] ? ")" : "");
        return hg_fail(&l, out, HG_INPUT, err, errlen, m);
    }
    st->malformed = rs == HR_MALFORMED;
    if (l.nids > UINT32_MAX - 2)
        return hg_fail(&l, out, HG_MEMORY, err, errlen, "more than 4 G objects");
    uint64_t need = 0;
    if (hg_between(&l, &need) != 0 || hg_add_prim_classes(&l) != 0)
        return hg_fail(&l, out, HG_NOMEM, err, errlen, "out of memory between the passes");
    hg_graph *g = l.g;
    st->need_bytes = need;
    if (st->limit_bytes && need > st->limit_bytes) {
        char m[256];
        snprintf(m, sizeof m,
                 "the analysis of %u objects and up to %llu references would need about %llu MB; "
                 "%llu MB are available%s",
                 g->n, (unsigned long long)l.ecap, (unsigned long long)((need + (1u << 20) - 1) >> 20),
                 (unsigned long long)(st->limit_bytes >> 20),
                 o->max_memory ? " (--max-memory)" : " (MemAvailable)");
        return hg_fail(&l, out, HG_MEMORY, err, errlen, m);
    }
    if (l.ecap > UINT32_MAX - 1)
        return hg_fail(&l, out, HG_MEMORY, err, errlen, "more than 4 G references");
    size_t n1 = (size_t)g->n + 1;
    g->cls = malloc(n1 * sizeof *g->cls);
    g->size8 = calloc(n1, sizeof *g->size8);
    g->estart = malloc(n1 * sizeof *g->estart);
    g->edeg = calloc(n1, sizeof *g->edeg);
    g->edges = malloc((size_t)(l.ecap ? l.ecap : 1) * sizeof *g->edges);
    if (!g->cls || !g->size8 || !g->estart || !g->edeg || !g->edges)
        return hg_fail(&l, out, HG_NOMEM, err, errlen, "out of memory for the graph");
    memset(g->cls, 0xFF, n1 * sizeof *g->cls);
    memset(g->estart, 0xFF, n1 * sizeof *g->estart);
    if (hr_source_rewind(src) != 0)
        return hg_fail(&l, out, HG_INPUT, err, errlen, "the input cannot be read twice (a pipe?)");
    l.pass = 2;
    hr_parse(src, &cb, &l, NULL);
    if (l.oom)
        return hg_fail(&l, out, HG_NOMEM, err, errlen, "out of memory in the second pass");
    for (uint32_t i = 0; i < g->n; i++)
        if (g->estart[i] == UINT32_MAX) {
            g->estart[i] = 0;
            g->edeg[i] = 0;
        }
    if (g->nedges < l.ecap) { /* give back the slots of null references */
        uint32_t *e = realloc(g->edges, (size_t)(g->nedges ? g->nedges : 1) * sizeof *e);
        if (e)
            g->edges = e;
    }
    st->objects = g->n;
    st->instances = hs.subs[HPROF_GC_INSTANCE_DUMP];
    st->obj_arrays = hs.subs[HPROF_GC_OBJ_ARRAY_DUMP];
    st->prim_arrays = hs.subs[HPROF_GC_PRIM_ARRAY_DUMP];
    st->classes = hs.subs[HPROF_GC_CLASS_DUMP];
    st->edges = g->nedges;
    st->roots = g->nroots;
    hg_load_cleanup(&l);
    *out = g;
    return HG_OK;
}

void hg_graph_free(hg_graph *g)
{
    if (!g)
        return;
    free(g->ids);
    free(g->dir);
    free(g->cls);
    free(g->size8);
    free(g->estart);
    free(g->edeg);
    free(g->edges);
    free(g->isclass);
    free(g->roots);
    free(g->rootedges);
    hu_map_cleanup(&g->rootof);
    hu_map_cleanup(&g->clsobj);
    hu_map_cleanup(&g->utf8);
    free(g->c);
    free(g->lay);
    free(g->refoff);
    free(g->ownf);
    free(g->names);
    free(g->cnames);
    free(g);
}

/* ------------------------------------------------------------- accessors */

unsigned hg_id_size(const hg_graph *g) { return g->idsz; }
uint32_t hg_count(const hg_graph *g) { return g->n; }
hprof_id hg_id(const hg_graph *g, uint32_t i) { return g->ids[i]; }
uint32_t hg_class_of(const hg_graph *g, uint32_t i) { return g->cls[i]; }
uint64_t hg_shallow(const hg_graph *g, uint32_t i) { return (uint64_t)g->size8[i] * 8; }
int hg_is_class(const hg_graph *g, uint32_t i) { return (g->isclass[i >> 3] >> (i & 7)) & 1; }

const uint32_t *hg_out(const hg_graph *g, uint32_t i, uint32_t *n)
{
    if (i == g->n) { /* the virtual root */
        *n = (uint32_t)g->rootof.count;
        return g->rootedges;
    }
    if (!g->edges) {
        *n = 0;
        return NULL;
    }
    *n = g->edeg[i];
    return g->edges + g->estart[i];
}

void hg_graph_drop_edges(hg_graph *g)
{
    free(g->edges);
    free(g->estart);
    free(g->edeg);
    g->edges = NULL;
    g->estart = g->edeg = NULL;
}

uint32_t hg_nroots(const hg_graph *g) { return g->nroots; }
const hg_root *hg_roots(const hg_graph *g) { return g->roots; }

const hg_root *hg_root_of(const hg_graph *g, uint32_t i)
{
    uint64_t *k = hu_map_get(&g->rootof, i);
    return k ? &g->roots[*k - 1] : NULL;
}

uint32_t hg_nclasses(const hg_graph *g) { return g->nc; }

const char *hg_class_name(const hg_graph *g, uint32_t c)
{
    if (c == HG_NONE || c >= g->nc)
        return "<unknown class>";
    return g->c[c].name != UINT32_MAX ? g->cnames + g->c[c].name : "<unnamed class>";
}

hprof_id hg_class_id(const hg_graph *g, uint32_t c) { return g->c[c].id; }
uint32_t hg_class_obj(const hg_graph *g, uint32_t c) { return g->c[c].obj; }
hprof_id hg_class_loader(const hg_graph *g, uint32_t c) { return g->c[c].loader; }
hprof_id hg_class_super(const hg_graph *g, uint32_t c) { return g->c[c].super; }
const char *hg_utf8(const hg_graph *g, hprof_id name_id) { return hg_utf8_of(g, name_id); }

const hg_field *hg_class_fields(const hg_graph *g, uint32_t c, uint32_t *n)
{
    *n = g->c[c].lay_n;
    return g->lay + g->c[c].lay_off;
}

const char *hg_object_class(const hg_graph *g, uint32_t i)
{
    if (hg_is_class(g, i)) {
        uint64_t *c = hu_map_get(&g->clsobj, i);
        if (c && g->c[*c].label != UINT32_MAX)
            return g->cnames + g->c[*c].label;
    }
    return hg_class_name(g, g->cls[i]);
}
