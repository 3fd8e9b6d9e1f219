/*
 * hu_map.c: open-addressing (linear probing) u64 -> u64 hash map.
 * Slot key 0 means empty; the real key 0 lives in has_zero/zero_val.
 */
#include "hu_map.h"

#include <stdlib.h>

static inline size_t hu_hash(uint64_t k, size_t mask)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k & mask;
}

void hu_map_init(hu_map *m)
{
    m->keys = NULL;
    m->vals = NULL;
    m->cap = 0;
    m->count = 0;
    m->has_zero = 0;
    m->zero_val = 0;
}

void hu_map_cleanup(hu_map *m)
{
    free(m->keys);
    free(m->vals);
    hu_map_init(m);
}

static int hu_grow(hu_map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    uint64_t *nk = calloc(ncap, sizeof *nk);
    uint64_t *nv = malloc(ncap * sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        uint64_t k = m->keys[i];
        if (!k)
            continue;
        size_t j = hu_hash(k, ncap - 1);
        while (nk[j])
            j = (j + 1) & (ncap - 1);
        nk[j] = k;
        nv[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
    return 0;
}

uint64_t *hu_map_upsert(hu_map *m, uint64_t key, uint64_t val, int *inserted)
{
    if (key == 0) {
        *inserted = !m->has_zero;
        if (!m->has_zero) {
            m->has_zero = 1;
            m->zero_val = val;
            m->count++;
        }
        return &m->zero_val;
    }
    if ((m->count + 1) * 2 > m->cap && hu_grow(m) != 0)
        return NULL;
    size_t mask = m->cap - 1, i = hu_hash(key, mask);
    while (m->keys[i]) {
        if (m->keys[i] == key) {
            *inserted = 0;
            return &m->vals[i];
        }
        i = (i + 1) & mask;
    }
    m->keys[i] = key;
    m->vals[i] = val;
    m->count++;
    *inserted = 1;
    return &m->vals[i];
}

int hu_map_put(hu_map *m, uint64_t key, uint64_t val)
{
    int ins;
    uint64_t *p = hu_map_upsert(m, key, val, &ins);
    if (!p)
        return -1;
    *p = val;
    return 0;
}

uint64_t *hu_map_get(const hu_map *m, uint64_t key)
{
    if (key == 0)
        return m->has_zero ? (uint64_t *)&m->zero_val : NULL;
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1, i = hu_hash(key, mask);
    while (m->keys[i]) {
        if (m->keys[i] == key)
            return &m->vals[i];
        i = (i + 1) & mask;
    }
    return NULL;
}

int hu_map_del(hu_map *m, uint64_t key, uint64_t *val)
{
    if (key == 0) {
        if (!m->has_zero)
            return 0;
        if (val)
            *val = m->zero_val;
        m->has_zero = 0;
        m->count--;
        return 1;
    }
    if (!m->cap)
        return 0;
    size_t mask = m->cap - 1, i = hu_hash(key, mask);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & mask;
    if (!m->keys[i])
        return 0;
    if (val)
        *val = m->vals[i];
    /* backward shift: move each later entry of the run that may sit in the
     * hole (its home slot is not cyclically within (hole, its slot]) */
    size_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!m->keys[j])
            break;
        size_t home = hu_hash(m->keys[j], mask);
        int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays)
            continue;
        m->keys[hole] = m->keys[j];
        m->vals[hole] = m->vals[j];
        hole = j;
    }
    m->keys[hole] = 0;
    m->count--;
    return 1;
}

int hu_map_next(const hu_map *m, size_t *it, uint64_t *key, uint64_t *val)
{
    /* position 0 is the zero key, then slots 1..cap */
    if (*it == 0) {
        *it = 1;
        if (m->has_zero) {
            *key = 0;
            *val = m->zero_val;
            return 1;
        }
    }
    while (*it <= m->cap) {
        size_t i = (*it)++ - 1;
        if (m->keys[i]) {
            *key = m->keys[i];
            *val = m->vals[i];
            return 1;
        }
    }
    return 0;
}
