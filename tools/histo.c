/*
 * histo.c: the class histogram of a heap dump (histo.h). Rows are keyed by
 * class id; instances are sized at the end, once every CLASS DUMP is known.
 */
#include "histo.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/hprof_format.h"
#include "hu_map.h"
#include "normalize.h"
#include "objsize.h"

typedef struct histo_row_int {
    hprof_id class_id;
    uint64_t count, bytes;
    /* instances: sized at the end, once every CLASS DUMP is known (their
     * field bytes are the same for every instance of a valid dump) */
    uint64_t inst_n, inst_nbytes;
    const char *name;
    int noclass; /* a primitive array type whose class is not loaded */
} histo_row_int;

struct histo {
    unsigned id;
    hu_map utf8;      /* utf8 id -> offset into names */
    hu_map class_name; /* class id -> utf8 id */
    hu_map rows;      /* class id (or prim type key) -> row index + 1 */
    char *names;
    size_t names_len, names_cap;
    histo_row_int *row;
    size_t nrows, caprows;
    hprof_id prim_class[16]; /* element type -> class id of "[I"/"int[]" */
    uint64_t nheap; /* HEAP DUMP and HEAP DUMP SEGMENT records */
    objsize_classes classes; /* reference fields per class, for sizes */
    histo_row *out; /* histo_finish: the public rows */
    char *unknown_names;
    char **owned; /* normalized names */
    size_t nowned;
    int oom, finished;
};

int histo_on_header(void *ctx, const hr_header *h)
{
    ((histo *)ctx)->id = h->id_size;
    return 0;
}

static int histo_prim_type_of(const char *s, size_t n)
{
    static const struct {
        const char *desc, *java;
        int t;
    } map[] = {{"[Z", "boolean[]", HPROF_TYPE_BOOLEAN}, {"[C", "char[]", HPROF_TYPE_CHAR},
               {"[F", "float[]", HPROF_TYPE_FLOAT},     {"[D", "double[]", HPROF_TYPE_DOUBLE},
               {"[B", "byte[]", HPROF_TYPE_BYTE},       {"[S", "short[]", HPROF_TYPE_SHORT},
               {"[I", "int[]", HPROF_TYPE_INT},         {"[J", "long[]", HPROF_TYPE_LONG}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if ((strlen(map[i].desc) == n && memcmp(s, map[i].desc, n) == 0) ||
            (strlen(map[i].java) == n && memcmp(s, map[i].java, n) == 0))
            return map[i].t;
    return 0;
}

int histo_on_record(void *ctx, const hr_record *r)
{
    histo *h = ctx;
    if (r->tag == HPROF_TAG_HEAP_DUMP || r->tag == HPROF_TAG_HEAP_DUMP_SEGMENT)
        h->nheap++;
    if (r->tag == HPROF_TAG_UTF8 && r->body) {
        size_t n = r->u.utf8.len;
        if (h->names_len + n + 1 > h->names_cap) {
            size_t nc = h->names_cap ? h->names_cap : 1 << 16;
            while (nc < h->names_len + n + 1)
                nc *= 2;
            char *nn = realloc(h->names, nc);
            if (!nn) {
                h->oom = 1;
                return 1;
            }
            h->names = nn;
            h->names_cap = nc;
        }
        if (n) /* an empty name's str may be NULL */
            memcpy(h->names + h->names_len, r->u.utf8.str, n);
        h->names[h->names_len + n] = 0;
        if (hu_map_put(&h->utf8, r->u.utf8.id, h->names_len) != 0) {
            h->oom = 1;
            return 1;
        }
        h->names_len += n + 1;
    } else if (r->tag == HPROF_TAG_LOAD_CLASS && r->body) {
        if (hu_map_put(&h->class_name, r->u.load_class.class_id, r->u.load_class.name_id) != 0) {
            h->oom = 1;
            return 1;
        }
        uint64_t *off = hu_map_get(&h->utf8, r->u.load_class.name_id);
        if (off) {
            const char *s = h->names + *off;
            int t = histo_prim_type_of(s, strlen(s));
            if (t)
                h->prim_class[t] = r->u.load_class.class_id;
        }
    }
    return 0;
}

/* Rows are keyed by class id; primitive arrays whose class is unknown get
 * keys that cannot be ids of 8-byte-aligned objects. */
static histo_row_int *histo_row_for(histo *h, uint64_t key)
{
    int ins;
    uint64_t *slot = hu_map_upsert(&h->rows, key, h->nrows + 1, &ins);
    if (!slot) {
        h->oom = 1;
        return NULL;
    }
    if (ins) {
        if (h->nrows == h->caprows) {
            size_t nc = h->caprows ? h->caprows * 2 : 1024;
            histo_row_int *nr = realloc(h->row, nc * sizeof *nr);
            if (!nr) {
                h->oom = 1;
                return NULL;
            }
            h->row = nr;
            h->caprows = nc;
        }
        memset(&h->row[h->nrows], 0, sizeof h->row[0]);
        h->row[h->nrows].class_id = key;
        h->nrows++;
    }
    return &h->row[*slot - 1];
}

/* Shallow sizes are HotSpot's own (objsize.h), as jmap -histo and the
 * agent's SITES give them; the same rule for every dump makes histograms
 * of two dumps of one program comparable. */
int histo_on_sub(void *ctx, const hr_sub *s)
{
    histo *h = ctx;
    histo_row_int *row = NULL;
    uint64_t bytes = 0;
    if (s->part) /* a later part of an object array (hr_sub): counted once */
        return 0;
    switch (s->tag) {
    case HPROF_GC_CLASS_DUMP:
        if (objsize_add_class(&h->classes, s, h->id) != 0) {
            h->oom = 1;
            return 1;
        }
        return 0;
    case HPROF_GC_INSTANCE_DUMP:
        row = histo_row_for(h, s->u.inst.class_id);
        if (row) {
            row->inst_n++;
            row->inst_nbytes += s->u.inst.nbytes;
        }
        break;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        row = histo_row_for(h, s->u.oarr.class_id);
        bytes = objsize_of(&h->classes, s, h->id);
        break;
    case HPROF_GC_PRIM_ARRAY_DUMP: {
        uint8_t t = s->u.parr.type;
        uint64_t key = h->prim_class[t] ? h->prim_class[t] : (uint64_t)t * 2 + 1;
        row = histo_row_for(h, key);
        bytes = objsize_of(&h->classes, s, h->id);
        if (row && !h->prim_class[t] && !row->name) {
            static const char *const desc[16] = {[HPROF_TYPE_BOOLEAN] = "[Z", [HPROF_TYPE_CHAR] = "[C",
                                                 [HPROF_TYPE_FLOAT] = "[F", [HPROF_TYPE_DOUBLE] = "[D",
                                                 [HPROF_TYPE_BYTE] = "[B", [HPROF_TYPE_SHORT] = "[S",
                                                 [HPROF_TYPE_INT] = "[I", [HPROF_TYPE_LONG] = "[J"};
            row->name = desc[t];
            row->noclass = 1;
        }
        break;
    }
    default:
        return 0;
    }
    if (!row)
        return 1;
    row->count++;
    row->bytes += bytes;
    return 0;
}

static int histo_cmp(const void *a, const void *b)
{
    const histo_row_int *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int histo_by_name(const void *a, const void *b)
{
    return strcmp(((const histo_row_int *)a)->name, ((const histo_row_int *)b)->name);
}

/* --normalize: names without hidden-class addresses (normalize.h), and one
 * row per normalized name, so that two runs give the same rows. The names
 * are malloc'ed into *owned (h->nrows of them, free each). Returns 0, or -1
 * when out of memory. */
static int histo_normalize(histo *h, char ***owned)
{
    *owned = calloc(h->nrows ? h->nrows : 1, sizeof **owned);
    if (!*owned)
        return -1;
    for (size_t i = 0; i < h->nrows; i++) {
        const char *nm = h->row[i].name;
        char *n = norm_dup(nm, strlen(nm), NULL);
        if (!n)
            return -1;
        (*owned)[i] = n;
        h->row[i].name = n;
    }
    if (h->nrows)
        qsort(h->row, h->nrows, sizeof h->row[0], histo_by_name);
    size_t out = 0;
    for (size_t i = 0; i < h->nrows; i++) {
        if (out && strcmp(h->row[out - 1].name, h->row[i].name) == 0) {
            h->row[out - 1].count += h->row[i].count;
            h->row[out - 1].bytes += h->row[i].bytes;
        } else {
            h->row[out++] = h->row[i];
        }
    }
    h->nrows = out;
    return 0;
}

histo *histo_new(void)
{
    histo *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    hu_map_init(&h->utf8);
    hu_map_init(&h->class_name);
    hu_map_init(&h->rows);
    objsize_init(&h->classes);
    return h;
}

void histo_free(histo *h)
{
    if (!h)
        return;
    for (size_t i = 0; h->owned && i < h->nowned; i++)
        free(h->owned[i]);
    free(h->owned);
    free(h->unknown_names);
    free(h->out);
    free(h->row);
    free(h->names);
    hu_map_cleanup(&h->utf8);
    hu_map_cleanup(&h->class_name);
    hu_map_cleanup(&h->rows);
    objsize_cleanup(&h->classes);
    free(h);
}

uint64_t histo_heap_records(const histo *h)
{
    return h->nheap;
}

const histo_row *histo_rows(const histo *h, size_t *n)
{
    *n = h->out ? h->nrows : 0;
    return h->out;
}

#define HISTO_UNKNOWN_CAP 64 /* "<unknown class 0x...>" */

int histo_finish(histo *h, int normalize)
{
    if (h->finished || h->oom)
        return -1;
    h->finished = 1;
    if (objsize_finish(&h->classes) != 0)
        return h->oom = 1, -1;
    for (size_t i = 0; i < h->nrows; i++) {
        histo_row_int *r = &h->row[i];
        if (r->inst_n) /* (a malformed dump's varying sizes: their mean) */
            r->bytes += r->inst_n * objsize_instance(&h->classes, r->class_id,
                                                     r->inst_nbytes / r->inst_n, h->id);
    }
    if (!h->nrows)
        return 0;
    h->unknown_names = calloc(h->nrows, HISTO_UNKNOWN_CAP);
    if (!h->unknown_names)
        return h->oom = 1, -1;
    for (size_t i = 0; i < h->nrows; i++) {
        histo_row_int *r = &h->row[i];
        if (r->name)
            continue;
        uint64_t *nid = hu_map_get(&h->class_name, r->class_id);
        uint64_t *off = nid ? hu_map_get(&h->utf8, *nid) : NULL;
        if (off) {
            r->name = h->names + *off;
        } else {
            char *u = h->unknown_names + i * HISTO_UNKNOWN_CAP;
            snprintf(u, HISTO_UNKNOWN_CAP, "<unknown class 0x%" PRIx64 ">", r->class_id);
            r->name = u;
        }
    }
    h->nowned = h->nrows;
    if (normalize && histo_normalize(h, &h->owned) != 0)
        return h->oom = 1, -1;
    qsort(h->row, h->nrows, sizeof h->row[0], histo_cmp);
    h->out = calloc(h->nrows, sizeof *h->out);
    if (!h->out)
        return h->oom = 1, -1;
    for (size_t i = 0; i < h->nrows; i++) {
        const histo_row_int *r = &h->row[i];
        h->out[i] = (histo_row){.class_id = r->noclass ? 0 : r->class_id, .count = r->count,
                                .bytes = r->bytes, .name = r->name};
    }
    return 0;
}
