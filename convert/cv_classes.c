/*
 * cv_classes.c: libhprofconvert's class layout table (cv_classes.h).
 */
#include "cv_classes.h"

#include <stdlib.h>
#include <string.h>


void cv_classes_init(cv_classes *t)
{
    memset(t, 0, sizeof *t);
    hu_map_init(&t->index);
}

void cv_classes_cleanup(cv_classes *t)
{
    hu_map_cleanup(&t->index);
    free(t->v);
    free(t->pool);
    memset(t, 0, sizeof *t);
}

int cv_classes_pool_add(cv_classes *t, const uint8_t *types, size_t n)
{
    if (n == 0)
        return 0; /* a class without fields: nothing to add (the pool may be NULL) */
    if (t->pool_len + n > t->pool_cap) {
        size_t nc = t->pool_cap ? t->pool_cap : 4096;
        while (nc < t->pool_len + n)
            nc *= 2;
        uint8_t *np = realloc(t->pool, nc);
        if (!np)
            return -1;
        t->pool = np;
        t->pool_cap = nc;
    }
    memcpy(t->pool + t->pool_len, types, n);
    t->pool_len += n;
    return 0;
}

/* Records a class's own field types; the first CLASS DUMP of an id wins. */
int cv_classes_add(cv_classes *t, uint64_t id, uint64_t super, const uint8_t *types,
                          uint32_t n)
{
    if (hu_map_get(&t->index, id))
        return 0;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        cv_class *nv = realloc(t->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        t->v = nv;
        t->cap = nc;
    }
    cv_class *c = &t->v[t->n];
    memset(c, 0, sizeof *c);
    c->super = super;
    c->own_off = (uint32_t)t->pool_len;
    c->own_n = n;
    if (cv_classes_pool_add(t, types, n) != 0 || hu_map_put(&t->index, id, t->n + 1) != 0)
        return -1;
    t->n++;
    return 0;
}

cv_class *cv_classes_get(const cv_classes *t, uint64_t id)
{
    uint64_t *p = hu_map_get(&t->index, id);
    return p ? &t->v[*p - 1] : NULL;
}

