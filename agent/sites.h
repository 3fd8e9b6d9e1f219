/*
 * sites.h: allocation sites and their counters.
 *
 * An internal site is (class, trace) for instances and (class, trace, size)
 * for arrays, so each has one object size and a freed object's tag leads to
 * the exact bytes to subtract (agent.h). Counters are atomics: allocation
 * adds, ObjectFree (GC time) subtracts, without locks. Output merges the
 * sites of one (class, trace) into the original's rows.
 */
#ifndef HPROF_SITES_H
#define HPROF_SITES_H

#include <stdint.h>

#include "classes.h"
#include "traces.h"

typedef struct hp_site {
    uint32_t index;
    uint32_t next;      /* hash chain */
    hp_class *cls;
    hp_trace *trace;
    uint64_t size;      /* bytes of each object of this site */
    uint64_t alloc_n;   /* atomics */
    uint64_t alloc_bytes;
    uint64_t live_n;
    uint64_t live_bytes;
    /* alloc_n and live_n at the last sites output (site_rows with
     * SITE_ROWS_MARK): what "changed" means for incremental output */
    uint64_t seen_alloc_n, seen_live_n;
    /* alloc_n and alloc_bytes at the last site_clear, subtracted in the
     * output: alloc_n itself never goes back, it numbers the tags */
    uint64_t base_alloc_n, base_alloc_bytes;
} hp_site;

int site_init(void);
void site_cleanup(void);
/* The site of (class, trace, size); created if new. NULL when out of memory. */
hp_site *site_get(jvmtiEnv *j, hp_class *c, hp_trace *t, uint64_t size);
hp_site *site_at(uint32_t index);
uint32_t site_count(void);

/* Counts one allocation; returns the tag for the object. */
static inline uint64_t site_alloc(hp_site *s)
{
    uint64_t seq = __atomic_fetch_add(&s->alloc_n, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->alloc_bytes, s->size, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->live_n, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->live_bytes, s->size, __ATOMIC_RELAXED);
    return ((uint64_t)s->index << 32) | (seq & 0xFFFFFFFFu);
}

/* Counts one freed object of site `index` (GC time: atomics only). */
void site_free(uint32_t index);

/* One output row: the merged counters of a (class, trace). */
typedef struct hp_site_row {
    hp_class *cls;
    hp_trace *trace;
    uint64_t live_bytes, live_n, alloc_bytes, alloc_n;
    uint8_t changed; /* a site of the row changed since the last marked output */
} hp_site_row;

#define SITE_ROWS_MARK 1    /* remember these counts as "output" */

/* Snapshot of the rows (malloc'ed, *n rows) and their totals; each row
 * says whether it changed since the last marked output. */
hp_site_row *site_rows(jvmtiEnv *j, uint32_t *n, uint64_t tot[4], int flags);

/* The net= CONTROL "clear sites": every site starts again from zero, live
 * counts included. Objects allocated before are untagged (one heap
 * iteration), so their later frees count nowhere; the site table itself
 * stays, so no tag ever points at a dead site (the original's defect), and
 * tags stay unique (alloc_n goes on; a baseline is subtracted). Caller
 * holds dump_lock and no other lock, with counting off (g_hp.alloc_on); an
 * allocation callback already past that check when the clear starts may
 * still count into the old figures (its object then frees into the new
 * ones, never below zero). Returns 0 or -1 (reported). */
int site_clear(jvmtiEnv *j);

#endif
