/*
 * hu_map.h: an open-addressing hash map from u64 keys to u64 values, used by
 * the verifier and the tools to index ids and serials of a whole dump.
 *
 * Key 0 is allowed (kept aside). Grows at 50 % load; memory is 16 bytes per
 * slot. Not thread-safe. Internal to libhprofwriter (hidden symbols) and
 * shared with the tools through the static library.
 */
#ifndef HPROF_HU_MAP_H
#define HPROF_HU_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct hu_map {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap;   /* power of two, or 0 */
    size_t count; /* entries, key 0 included */
    int has_zero;
    uint64_t zero_val;
} hu_map;

void hu_map_init(hu_map *m);
void hu_map_cleanup(hu_map *m);
/* Inserts or overwrites. Returns 0, or -1 when out of memory. */
int hu_map_put(hu_map *m, uint64_t key, uint64_t val);
/* Returns a pointer to the value, or NULL when absent. The pointer is valid
 * until the next put. */
uint64_t *hu_map_get(const hu_map *m, uint64_t key);
/* Inserts `val` if absent; returns the slot either way (NULL on OOM).
 * *inserted tells which. */
uint64_t *hu_map_upsert(hu_map *m, uint64_t key, uint64_t val, int *inserted);
/* Removes `key`; returns 1 (and its value in *val, if given) or 0 when
 * absent. Pointers from get/upsert are invalid afterwards. */
int hu_map_del(hu_map *m, uint64_t key, uint64_t *val);
/* Iteration: start with *it = 0; returns 0 at the end. */
int hu_map_next(const hu_map *m, size_t *it, uint64_t *key, uint64_t *val);

#endif
