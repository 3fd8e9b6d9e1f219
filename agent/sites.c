/*
 * sites.c: the site table (see sites.h).
 */
#include "sites.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "hprof/hprof_format.h"
#include "jx.h"
#include "wlive.h"

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

uint64_t site_alloc_total(void)
{
    uint64_t sum = 0;
    uint32_t ns = site_count();
    for (uint32_t i = 1; i < ns; i++)
        sum += __atomic_load_n(&site_at(i)->alloc_n, __ATOMIC_RELAXED);
    return sum;
}

int site_live_init(site_live *l)
{
    l->cap = site_count() + 64;
    l->oom = 0;
    l->n = calloc(l->cap, sizeof *l->n);
    return l->n ? 0 : -1;
}

int site_live_grow(site_live *l, uint32_t i)
{
    if (l->oom)
        return -1;
    uint32_t cap = l->cap;
    while (cap <= i)
        cap = cap ? cap * 2 : 1024;
    uint64_t *nl = realloc(l->n, sizeof *nl * cap);
    if (!nl) {
        l->oom = 1;
        return -1;
    }
    memset(nl + l->cap, 0, sizeof *nl * (cap - l->cap));
    l->n = nl;
    l->cap = cap;
    return 0;
}

void site_live_publish(site_live *l)
{
    uint32_t ns = site_count();
    for (uint32_t i = 1; i < ns; i++)
        site_at(i)->live_n = i < l->cap ? l->n[i] : 0;
    site_live_cleanup(l);
}

void site_live_cleanup(site_live *l)
{
    free(l->n);
    l->n = NULL;
    l->cap = 0;
}

/* IterateThroughHeap callback (VM thread, at a safepoint: no locks, no JNI,
 * no JVMTI; malloc is fine) */
static jint JNICALL site_scan_cb(jlong class_tag, jlong size, jlong *tag_ptr, jint length,
                                 void *user_data)
{
    (void)class_tag;
    (void)size;
    (void)length;
    return site_live_count(user_data, (uint64_t)*tag_ptr) ? JVMTI_VISIT_ABORT : 0;
}

int site_scan(jvmtiEnv *j)
{
    site_live ss;
    if (site_live_init(&ss)) {
        hp_error("out of memory counting live objects");
        return -1;
    }
    jvmtiError e = JVMTI_ERROR_NONE;
    if (wlive_on()) { /* heap=sites: the weak references, no heap walk */
        JNIEnv *env = NULL;
        if ((*g_hp.vm)->GetEnv(g_hp.vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK || !env) {
            hp_error("counting live objects: this thread has no JNIEnv");
            site_live_cleanup(&ss);
            return -1;
        }
        wlive_count(env, &ss);
    } else {
        jvmtiHeapCallbacks cb;
        memset(&cb, 0, sizeof cb);
        cb.heap_iteration_callback = site_scan_cb;
        e = (*j)->IterateThroughHeap(j, JVMTI_HEAP_FILTER_UNTAGGED, NULL, &cb, &ss);
    }
    if (jx_report(j, e, "IterateThroughHeap") != JVMTI_ERROR_NONE || ss.oom) {
        if (ss.oom)
            hp_error("out of memory counting live objects; live counts are those of the previous output");
        site_live_cleanup(&ss);
        return -1;
    }
    site_live_publish(&ss);
    return 0;
}

/* IterateThroughHeap callback (VM thread, at a safepoint: no locks, no
 * JNI): drops the site tag of every object that has one */
static jint JNICALL site_untag_cb(jlong class_tag, jlong size, jlong *tag_ptr, jint length,
                                  void *user_data)
{
    (void)class_tag;
    (void)size;
    (void)length;
    uint64_t t = (uint64_t)*tag_ptr;
    if (t && !HP_TAG_IS_CLASS(t) && !HP_TAG_IS_DUMP(t)) {
        *tag_ptr = 0;
        ++*(uint64_t *)user_data;
    }
    return JVMTI_VISIT_OBJECTS;
}

int site_clear(jvmtiEnv *j)
{
    uint64_t untagged = 0;
    if (wlive_on()) { /* heap=sites: the weak references go (wlive.h) */
        JNIEnv *env = NULL;
        if ((*g_hp.vm)->GetEnv(g_hp.vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK || !env) {
            hp_error("clearing sites: this thread has no JNIEnv");
            return -1;
        }
        untagged = wlive_clear(env);
    } else {
        jvmtiHeapCallbacks cb;
        memset(&cb, 0, sizeof cb);
        cb.heap_iteration_callback = site_untag_cb;
        jvmtiError e = (*j)->IterateThroughHeap(j, JVMTI_HEAP_FILTER_UNTAGGED, NULL, &cb, &untagged);
        if (jx_report(j, e, "IterateThroughHeap") != JVMTI_ERROR_NONE)
            return -1;
    }
    jx_lock(j, g_hp.data_lock); /* sites being created are published first */
    uint32_t ns = site_count();
    for (uint32_t i = 1; i < ns; i++) {
        hp_site *s = site_at(i);
        s->base_alloc_n = __atomic_load_n(&s->alloc_n, __ATOMIC_RELAXED);
        s->live_n = 0;
        s->cleared = 1;
        s->seen_alloc_n = s->seen_live_n = 0;
    }
    jx_unlock(j, g_hp.data_lock);
    hp_info("HPROF: sites cleared (%llu objects no longer tracked)\n", (unsigned long long)untagged);
    return 0;
}

hp_site_row *site_rows(jvmtiEnv *j, uint32_t *n, uint64_t tot[4], int flags)
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
        uint64_t an = __atomic_load_n(&s->alloc_n, __ATOMIC_RELAXED) - s->base_alloc_n;
        if (an == 0)
            continue;
        /* live_n was counted (site_scan) before alloc_n is read here, and
         * an object is counted allocated before it is tagged, so live <= an.
         * Only an allocation caught across a site_clear (sites.h) can break
         * that: after a clear it is shown as allocated, not live */
        uint64_t ln = s->live_n;
        if (s->cleared && ln > an)
            ln = an;
        uint64_t lb = ln * s->size;
        uint64_t ab = an * s->size;
        tot[0] += lb;
        tot[1] += ln;
        tot[2] += ab;
        tot[3] += an;
        int changed = an != s->seen_alloc_n || ln != s->seen_live_n;
        if (flags & SITE_ROWS_MARK) {
            s->seen_alloc_n = an;
            s->seen_live_n = ln;
        }
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
        r->live_n += ln;
        r->live_bytes += lb;
        r->alloc_n += an;
        r->alloc_bytes += ab;
        r->changed |= (uint8_t)changed;
    }
    jx_unlock(j, g_hp.data_lock);
    hu_map_cleanup(&merge);
    return rows;
}
