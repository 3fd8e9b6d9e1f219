/*
 * hdlate.c: the log of a heap dump's late objects (see hdlate.h).
 */
#include "hdlate.h"

#include <stdlib.h>
#include <string.h>

void hl_init(hl_log *l)
{
    memset(l, 0, sizeof *l);
    hu_map_init(&l->need);
}

void hl_cleanup(hl_log *l)
{
    free(l->objs);
    free(l->vals);
    free(l->bytes);
    hu_map_cleanup(&l->need);
    memset(l, 0, sizeof *l);
}

/* Makes room for `more` elements of `size` bytes in *p (capacity *cap). */
static int hl_grow(hl_log *l, void **p, size_t *cap, size_t used, size_t more, size_t size)
{
    if (l->oom)
        return -1;
    if (used + more <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < used + more)
        nc *= 2;
    void *np = realloc(*p, nc * size);
    if (!np) {
        l->oom = 1;
        return -1;
    }
    *p = np;
    *cap = nc;
    return 0;
}

int hl_begin(hl_log *l, uint64_t tag, uint64_t class_tag, int64_t length, int is_class)
{
    if (hl_grow(l, (void **)&l->objs, &l->capobj, l->nobj, 1, sizeof *l->objs))
        return -1;
    hl_obj *o = &l->objs[l->nobj++];
    memset(o, 0, sizeof *o);
    o->tag = tag;
    o->class_tag = class_tag;
    o->length = length;
    o->is_class = (uint8_t)(is_class != 0);
    o->first = l->nval;
    return 0;
}

int hl_value(hl_log *l, uint8_t what, uint32_t index, uint8_t type, uint64_t bits)
{
    if (!l->nobj || hl_grow(l, (void **)&l->vals, &l->capval, l->nval, 1, sizeof *l->vals))
        return -1;
    l->vals[l->nval++] = (hl_val){.index = index, .what = what, .type = type, .bits = bits};
    l->objs[l->nobj - 1].n++;
    return 0;
}

int hl_elements(hl_log *l, uint8_t type, const void *p, size_t nbytes)
{
    if (!l->nobj || hl_grow(l, (void **)&l->bytes, &l->capbytes, l->nbytes, nbytes ? nbytes : 1, 1))
        return -1;
    hl_obj *o = &l->objs[l->nobj - 1];
    o->prim_type = type;
    o->data = l->nbytes;
    o->ndata = nbytes;
    if (nbytes)
        memcpy(l->bytes + l->nbytes, p, nbytes);
    l->nbytes += nbytes;
    return 0;
}

int hl_need(hl_log *l, uint32_t index)
{
    int ins = 0;
    if (l->oom)
        return -1;
    if (!hu_map_upsert(&l->need, index, 1, &ins)) {
        l->oom = 1;
        return -1;
    }
    return 0;
}
