/*
 * sites.c: the site table (see sites.h).
 */
#include "sites.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "hprof/hprof_format.h"
#include "jx.h"

int site_init(void)
{
    hu_map_init(&g_hp.site_index);
    return vec_init(&g_hp.sites, sizeof(hp_site));
}

void site_cleanup(void)
{
    vec_cleanup(&g_hp.sites);
    hu_map_cleanup(&g_hp.site_index);
}

hp_site *site_at(uint32_t index)
{
    return vec_at(&g_hp.sites, index);
}

uint32_t site_count(void)
{
    return __atomic_load_n(&g_hp.sites.count, __ATOMIC_ACQUIRE);
}

static uint64_t site_key(const hp_class *c, const hp_trace *t, uint64_t size)
{
    uint64_t h = ((uint64_t)c->index << 32) ^ (uint64_t)(uintptr_t)t ^ (size * 0x9e3779b97f4a7c15ULL);
    h *= 0xff51afd7ed558ccdULL;
    return h ? h : 1;
}

hp_site *site_get(jvmtiEnv *j, hp_class *c, hp_trace *t, uint64_t size)
{
    uint64_t key = site_key(c, t, size);
    hp_site *s = NULL;
    jx_lock(j, g_hp.data_lock);
    uint64_t *head = hu_map_get(&g_hp.site_index, key);
    uint32_t first = head ? (uint32_t)*head : 0;
    for (uint32_t i = first; i; i = site_at(i)->next) {
        hp_site *e = site_at(i);
        if (e->cls == c && e->trace == t && e->size == size) {
            s = e;
            break;
        }
    }
    if (!s) {
        uint32_t idx = vec_push(&g_hp.sites);
        /* site indices live in HP_SITE_BITS bits of a tag */
        if (idx && idx < (1u << HP_SITE_BITS) && hu_map_put(&g_hp.site_index, key, idx) == 0) {
            s = site_at(idx);
            s->index = idx;
            s->next = first;
            s->cls = c;
            s->trace = t;
            s->size = size;
        }
    }
    jx_unlock(j, g_hp.data_lock);
    return s;
}

void site_free(uint32_t index)
{
    if (index == 0 || index >= site_count())
        return; /* not a tag of ours */
    hp_site *s = site_at(index);
    __atomic_fetch_sub(&s->live_n, 1, __ATOMIC_RELAXED);
    __atomic_fetch_sub(&s->live_bytes, s->size, __ATOMIC_RELAXED);
}

hp_site_row *site_rows(jvmtiEnv *j, uint32_t *n, uint64_t tot[4])
{
    memset(tot, 0, 4 * sizeof tot[0]);
    *n = 0;
    uint32_t ns = site_count();
    hp_site_row *rows = calloc(ns ? ns : 1, sizeof *rows);
    if (!rows)
        return NULL;
    hu_map merge; /* (class index, trace index) -> row + 1 */
    hu_map_init(&merge);
    /* under data_lock: a site being created has its count published before
     * its fields are set; the lock orders them (no JVMTI call in here) */
    jx_lock(j, g_hp.data_lock);
    for (uint32_t i = 1; i < ns; i++) {
        hp_site *s = site_at(i);
        if (!s->cls)
            continue;
        uint64_t an = __atomic_load_n(&s->alloc_n, __ATOMIC_RELAXED);
        if (an == 0)
            continue;
        /* exact key: class index and trace serial each fit 32 bits */
        uint64_t key = ((uint64_t)s->cls->index << 32) | s->trace->serial;
        int ins;
        uint64_t *slot = hu_map_upsert(&merge, key, *n + 1, &ins);
        if (!slot)
            break;
        hp_site_row *r = &rows[*slot - 1];
        if (ins) {
            r->cls = s->cls;
            r->trace = s->trace;
            (*n)++;
        }
        uint64_t ln = __atomic_load_n(&s->live_n, __ATOMIC_RELAXED);
        uint64_t lb = __atomic_load_n(&s->live_bytes, __ATOMIC_RELAXED);
        uint64_t ab = __atomic_load_n(&s->alloc_bytes, __ATOMIC_RELAXED);
        r->live_n += ln;
        r->live_bytes += lb;
        r->alloc_n += an;
        r->alloc_bytes += ab;
        tot[0] += lb;
        tot[1] += ln;
        tot[2] += ab;
        tot[3] += an;
    }
    jx_unlock(j, g_hp.data_lock);
    hu_map_cleanup(&merge);
    return rows;
}
