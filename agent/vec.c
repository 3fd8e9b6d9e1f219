/*
 * vec.c: the chunked, never-moving array (see vec.h).
 */
#include "vec.h"

#include <stdlib.h>
#include <string.h>

/* a zeroed chunk on a VEC_ALIGN boundary (calloc gives 16) */
static void *vec_chunk(size_t elem)
{
    size_t size = ((size_t)1 << VEC_CHUNK_BITS) * elem;
    void *p = NULL;
    if (posix_memalign(&p, VEC_ALIGN, size) != 0)
        return NULL;
    return memset(p, 0, size);
}

int vec_init(vec *v, size_t elem)
{
    v->elem = elem;
    v->count = 1; /* index 0 means "none" */
    v->chunks = calloc(VEC_MAX_CHUNKS, sizeof *v->chunks);
    if (!v->chunks)
        return -1;
    v->chunks[0] = vec_chunk(elem);
    return v->chunks[0] ? 0 : -1;
}

void vec_cleanup(vec *v)
{
    if (v->chunks) {
        for (uint32_t i = 0; i < VEC_MAX_CHUNKS && v->chunks[i]; i++)
            free(v->chunks[i]);
        free(v->chunks);
    }
    v->chunks = NULL;
    v->count = 0;
}

uint32_t vec_push(vec *v)
{
    uint32_t i = v->count;
    uint32_t c = i >> VEC_CHUNK_BITS;
    if (c >= VEC_MAX_CHUNKS)
        return 0;
    if (!v->chunks[c]) {
        v->chunks[c] = vec_chunk(v->elem);
        if (!v->chunks[c])
            return 0;
    }
    /* publish the count after the element exists (readers index below it) */
    __atomic_store_n(&v->count, i + 1, __ATOMIC_RELEASE);
    return i;
}
