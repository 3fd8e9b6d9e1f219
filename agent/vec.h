/*
 * vec.h: a chunked array whose elements never move, so a pointer taken under
 * the data lock stays valid after it is released (the allocation hot path
 * keeps such pointers in per-thread caches). Index 0 is unused.
 */
#ifndef HPROF_VEC_H
#define HPROF_VEC_H

#include <stddef.h>
#include <stdint.h>

#define VEC_CHUNK_BITS 12
#define VEC_MAX_CHUNKS (1u << 18) /* 2^30 elements */
/* each chunk starts on a cache line, so an element whose size is a
 * multiple of it is as aligned as its type asks (up to this) */
#define VEC_ALIGN 64

typedef struct vec {
    size_t elem;     /* element size */
    uint32_t count;  /* elements in use, index 0 included */
    void **chunks;   /* VEC_MAX_CHUNKS slots, allocated on demand */
} vec;

int vec_init(vec *v, size_t elem);
void vec_cleanup(vec *v);
/* Appends a zeroed element; returns its index, or 0 when out of memory/full. */
uint32_t vec_push(vec *v);
static inline void *vec_at(const vec *v, uint32_t i)
{
    return (char *)v->chunks[i >> VEC_CHUNK_BITS] + (size_t)(i & ((1u << VEC_CHUNK_BITS) - 1)) * v->elem;
}

#endif
