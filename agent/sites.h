/*
 * sites.h: allocation sites and their counters.
 *
 * An internal site is (class, trace) for instances and (class, trace, size)
 * for arrays, so each has one object size and a freed object's tag leads to
 * the exact bytes of each (agent.h). Allocation counters are atomics, added
 * to without locks. Live counts are not kept as objects die: each output
 * counts them (site_scan: the tagged objects in the heap with heap=all,
 * the weak references still set with heap=sites alone, wlive.h), so they
 * are exact as of that moment, and the agent needs no ObjectFree event (whose delivery HotSpot
 * flushes in a way that can deadlock with a safepoint: docs/deadlocks.md).
 * Output merges the sites of one (class, trace) into the original's rows.
 */
#ifndef HPROF_SITES_H
#define HPROF_SITES_H

#include <stdint.h>

#include "agent.h"
#include "classes.h"
#include "traces.h"

/* The allocation path reads index, cls, trace and size (never written after
 * the site is published) and adds to alloc_n; with several threads
 * allocating at one site, alloc_n's cache line moves between their cores at
 * every allocation. So alloc_n has a line of its own, and the read-mostly
 * fields stay in lines the other threads' adds never invalidate (a site is
 * HP_SITE_ALIGN-aligned in its vec chunk: sizeof is a multiple of it). */
#define HP_SITE_ALIGN 64

typedef struct hp_site {
    uint32_t index;
    uint32_t next;      /* hash chain */
    hp_class *cls;
    hp_trace *trace;
    uint64_t size;      /* bytes of each object of this site */
    /* objects of this site in the heap at the last site_scan (dump_lock) */
    uint64_t live_n;
    /* alloc_n and live_n at the last sites output (site_rows with
     * SITE_ROWS_MARK): what "changed" means for incremental output */
    uint64_t seen_alloc_n, seen_live_n;
    /* alloc_n at the last site_clear, subtracted in the output: alloc_n
     * itself never goes back, it numbers the tags */
    uint64_t base_alloc_n;
    uint8_t cleared; /* a site_clear happened (dump_lock) */
    /* allocations counted (an atomic); the bytes are alloc_n * size, every
     * object of a site having one size */
    _Alignas(HP_SITE_ALIGN) uint64_t alloc_n;
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
    return ((uint64_t)s->index << 32) | (seq & 0xFFFFFFFFu);
}

/* Live objects per site index, as a heap pass counts them (site_scan's, or
 * a heap dump's walk, which visits every live object anyway: heap=all then
 * needs no scan of its own). Counting may run in a heap callback on the VM
 * thread: it only mallocs. */
typedef struct site_live {
    uint64_t *n;  /* by site index */
    uint32_t cap;
    int oom;      /* a site could not be counted: the counts are not to be used */
} site_live;

/* Sized for the sites known now. Returns 0, or -1 out of memory. */
int site_live_init(site_live *l);
/* Grows the counts to hold site index i; -1 (and oom latched) if it cannot. */
int site_live_grow(site_live *l, uint32_t i);

/* Counts one object of tag t (site tags only; 0, class and dump tags are
 * no site's). Returns 0, or -1 once out of memory. */
static inline int site_live_count(site_live *l, uint64_t t)
{
    if (!t || (t & (HP_TAG_CLASS | HP_TAG_DUMP)))
        return 0;
    uint32_t i = HP_TAG_SITE(t);
    if (i >= l->cap && site_live_grow(l, i))
        return -1;
    l->n[i]++;
    return 0;
}

/* Makes the counts every site's live_n (caller holds dump_lock) and frees
 * them; a site newer than the pass has no object in it: 0. */
void site_live_publish(site_live *l);
void site_live_cleanup(site_live *l);

/* Counts the live objects of every site: one IterateThroughHeap over the
 * tagged objects (a VM operation at a safepoint). Caller holds dump_lock
 * (which owns live_n) and no other agent lock: the call waits for a
 * safepoint. Returns 0 or -1 (reported; the live counts are then those of
 * the previous scan). */
int site_scan(jvmtiEnv *j);

/* Allocations counted so far at every site (a relaxed sum: exact when no
 * thread allocates meanwhile). Compared before a forced GC and at a scan,
 * it tells how many objects the scan may count live without knowing. */
uint64_t site_alloc_total(void);

/* One output row: the merged counters of a (class, trace). */
typedef struct hp_site_row {
    hp_class *cls;
    hp_trace *trace;
    uint64_t live_bytes, live_n, alloc_bytes, alloc_n;
    /* sample=BYTES: the samples the (scaled) figures come from */
    uint64_t alloc_samples, live_samples;
    uint8_t changed; /* a site of the row changed since the last marked output */
} hp_site_row;

#define SITE_ROWS_MARK 1    /* remember these counts as "output" */

/* Snapshot of the rows (malloc'ed, *n rows) and their totals; each row
 * says whether it changed since the last marked output. */
hp_site_row *site_rows(jvmtiEnv *j, uint32_t *n, uint64_t tot[4], int flags);

/* The net= CONTROL "clear sites": every site starts again from zero, live
 * counts included. Objects allocated before are untagged (one heap
 * iteration), so no later scan counts them; the site table itself stays,
 * so no tag ever points at a dead site (the original's defect), and tags
 * stay unique (alloc_n goes on; a baseline is subtracted). Caller holds
 * dump_lock and no other lock, with counting off (g_hp.alloc_on); an
 * allocation callback already past that check when the clear starts may
 * still count into the old figures and tag its object after the clear
 * (site_rows then shows at most as many live as allocated). Returns 0 or
 * -1 (reported). */
int site_clear(jvmtiEnv *j);

#endif
