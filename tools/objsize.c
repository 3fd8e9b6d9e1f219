/*
 * objsize.c: HotSpot's shallow sizes of a heap dump's objects (objsize.h).
 */
#include "objsize.h"

#include <stdlib.h>
#include <string.h>

#include "hprof/hprof_format.h"
#include "superchain.h"

static uint64_t objsize_align(uint64_t v)
{
    return (v + OBJSIZE_ALIGN - 1) & ~(uint64_t)(OBJSIZE_ALIGN - 1);
}

void objsize_init(objsize_classes *t)
{
    memset(t, 0, sizeof *t);
    hu_map_init(&t->ix);
}

void objsize_cleanup(objsize_classes *t)
{
    hu_map_cleanup(&t->ix);
    free(t->super);
    free(t->refs);
    memset(t, 0, sizeof *t);
}

int objsize_add_class(objsize_classes *t, const hr_sub *s, unsigned id_size)
{
    if (hu_map_get(&t->ix, s->u.cls.class_id))
        return 0;
    if (t->n == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 1024;
        hprof_id *ns = realloc(t->super, nc * sizeof *ns);
        if (!ns)
            return -1;
        t->super = ns;
        uint32_t *nr = realloc(t->refs, nc * sizeof *nr);
        if (!nr)
            return -1;
        t->refs = nr;
        t->cap = nc;
    }
    uint32_t refs = 0;
    const uint8_t *q = s->u.cls.fields;
    for (uint16_t i = 0; i < s->u.cls.nfields; i++) {
        hr_field f;
        q = hr_class_field_next(q, id_size, &f);
        refs += f.type == HPROF_TYPE_OBJECT;
    }
    if (hu_map_put(&t->ix, s->u.cls.class_id, t->n + 1) != 0)
        return -1;
    t->super[t->n] = s->u.cls.super_id;
    t->refs[t->n] = refs;
    t->n++;
    return 0;
}

int objsize_finish(objsize_classes *t)
{
    if (t->finished || !t->n) {
        t->finished = 1;
        return 0;
    }
    size_t *sup = malloc(t->n * sizeof *sup);
    uint32_t *len = malloc(t->n * sizeof *len);
    uint32_t *sum = malloc(t->n * sizeof *sum);
    int rc = -1;
    if (!sup || !len || !sum)
        goto out;
    for (size_t i = 0; i < t->n; i++) {
        uint64_t *k = t->super[i] ? hu_map_get(&t->ix, t->super[i]) : NULL;
        sup[i] = k ? (size_t)(*k - 1) : SC_NONE;
    }
    if (sc_chain_lengths(sup, t->n, len) != 0)
        goto out;
    /* each chain walked over its distinct classes only: a loop ends */
    for (size_t i = 0; i < t->n; i++) {
        uint64_t r = 0;
        size_t c = i;
        for (uint32_t k = 0; k < len[i] && c != SC_NONE; k++, c = sup[c])
            r += t->refs[c];
        sum[i] = r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
    }
    memcpy(t->refs, sum, t->n * sizeof *sum);
    t->finished = 1;
    rc = 0;
out:
    free(sup);
    free(len);
    free(sum);
    return rc;
}

uint64_t objsize_instance(const objsize_classes *t, hprof_id class_id, uint64_t nbytes,
                          unsigned id_size)
{
    uint64_t *k = hu_map_get(&t->ix, class_id);
    uint64_t refs = k ? t->refs[*k - 1] : 0;
    uint64_t shrink = id_size > OBJSIZE_REF ? refs * (id_size - OBJSIZE_REF) : 0;
    uint64_t fields = nbytes > shrink ? nbytes - shrink : 0;
    return objsize_align(OBJSIZE_HEADER + fields);
}

uint64_t objsize_of(const objsize_classes *t, const hr_sub *s, unsigned id_size)
{
    switch (s->tag) {
    case HPROF_GC_INSTANCE_DUMP:
        return objsize_instance(t, s->u.inst.class_id, s->u.inst.nbytes, id_size);
    case HPROF_GC_OBJ_ARRAY_DUMP:
        return objsize_align(OBJSIZE_ARRAY_HEADER + (uint64_t)s->u.oarr.n * OBJSIZE_REF);
    case HPROF_GC_PRIM_ARRAY_DUMP:
        return objsize_align(OBJSIZE_ARRAY_HEADER +
                             (uint64_t)s->u.parr.n * hprof_type_size(s->u.parr.type, id_size));
    default: return 0;
    }
}
