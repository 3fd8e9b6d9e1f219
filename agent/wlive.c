/*
 * wlive.c: heap=sites' live counts by JNI weak references (see wlive.h).
 *
 * Owns the lists of tracked objects: per list, a chain of chunks of
 * (weak reference, site index) entries whose sizes double from
 * WLIVE_CHUNK_MIN to WLIVE_CHUNK_MAX (a thread that allocates little holds
 * little). A chunk's `n` and `next` are published with release stores by
 * the owner and read with acquire loads by a counter, so a counter sees
 * only whole entries and never waits for the owner. Entries move only in
 * wlive_compact, under the list's mutex, with no one appending (the owner
 * itself, or nobody: an orphan).
 */
#include "wlive.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "sites.h"

#define WLIVE_CHUNK_MIN 64u
#define WLIVE_CHUNK_MAX 8192u
/* the owner compacts when its list has doubled since, plus this: the
 * entries checked per allocation stay bounded (amortised), and a list is
 * not checked over and over before a GC has cleared anything */
#define WLIVE_SWEEP_MIN 65536u

typedef struct wlive_chunk {
    struct wlive_chunk *next; /* release-stored by the owner */
    uint32_t n;            /* entries written, release-stored by the owner */
    uint32_t cap;
    jweak *ref; /* NULL: dropped (by wlive_count or wlive_clear) */
    uint32_t *site;
} wlive_chunk;

struct wlive_list {
    wlive_list *next; /* the registry's chain (g_hp.wlive.mu) */
    pthread_mutex_t mu;
    int orphan;      /* no owner (release / acquire) */
    wlive_chunk *head;  /* never NULL */
    wlive_chunk *tail;  /* the owner's: where it appends */
    uint64_t size;   /* entries, dropped ones included (the owner's) */
    uint64_t sweep_at; /* the owner compacts when size reaches it */
};

static __thread wlive_list *wlive_mine;
static __thread int wlive_nomem; /* no list could be had: this thread is not tracked */

int wlive_on(void)
{
    return g_hp.o.heap_sites && !g_hp.o.heap_dump;
}

int wlive_init(void)
{
    wlive_state *w = &g_hp.wlive;
    if (w->ready)
        return 0;
    if (pthread_mutex_init(&w->mu, NULL) != 0)
        return -1;
    w->head = NULL;
    w->ready = 1;
    return 0;
}

static wlive_chunk *wlive_chunk_new(uint32_t cap)
{
    wlive_chunk *c = malloc(sizeof *c + (size_t)cap * (sizeof(jweak) + sizeof(uint32_t)));
    if (!c)
        return NULL;
    c->next = NULL;
    c->n = 0;
    c->cap = cap;
    c->ref = (jweak *)(c + 1);
    c->site = (uint32_t *)(c->ref + cap);
    return c;
}

/* Whether the object of `r` is gone (the GC cleared r); r is then deleted. */
static int wlive_gone(JNIEnv *env, jweak r)
{
    if (!(*env)->IsSameObject(env, r, NULL))
        return 0;
    (*env)->DeleteWeakGlobalRef(env, r);
    return 1;
}

/* A list for the calling thread: an orphan adopted, else a new one. */
static wlive_list *wlive_list_get(void)
{
    wlive_state *w = &g_hp.wlive;
    pthread_mutex_lock(&w->mu);
    for (wlive_list *l = w->head; l; l = l->next) {
        if (!__atomic_load_n(&l->orphan, __ATOMIC_ACQUIRE) || pthread_mutex_trylock(&l->mu) != 0)
            continue;
        int mine = l->orphan; /* another thread may have adopted it meanwhile */
        if (mine)
            __atomic_store_n(&l->orphan, 0, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&l->mu);
        if (mine) {
            pthread_mutex_unlock(&w->mu);
            return l;
        }
    }
    pthread_mutex_unlock(&w->mu);
    wlive_list *l = calloc(1, sizeof *l);
    wlive_chunk *c = l ? wlive_chunk_new(WLIVE_CHUNK_MIN) : NULL;
    if (!c || pthread_mutex_init(&l->mu, NULL) != 0) {
        free(c);
        free(l);
        return NULL;
    }
    l->head = l->tail = c;
    l->sweep_at = WLIVE_SWEEP_MIN;
    pthread_mutex_lock(&w->mu);
    l->next = w->head;
    w->head = l;
    pthread_mutex_unlock(&w->mu);
    return l;
}

/* Moves the kept entries to the front of the chain, deleting the cleared
 * references (and, with `live`, counting the kept ones by site); frees the
 * chunks left empty behind them. Under l->mu, no one appending. */
static uint64_t wlive_compact(JNIEnv *env, wlive_list *l, site_live *live)
{
    wlive_chunk *wc = l->head;
    uint32_t wi = 0;
    uint64_t kept = 0;
    for (wlive_chunk *c = l->head; c; c = c->next) {
        uint32_t n = c->n;
        for (uint32_t i = 0; i < n; i++) {
            jweak r = c->ref[i];
            if (!r || wlive_gone(env, r))
                continue;
            if (live)
                site_live_count(live, (uint64_t)c->site[i] << 32);
            if (wi == wc->cap) { /* wc is behind c: its next exists */
                wc->n = wi;
                wc = wc->next;
                wi = 0;
            }
            wc->ref[wi] = r;
            wc->site[wi] = c->site[i];
            wi++;
            kept++;
        }
    }
    wc->n = wi;
    wlive_chunk *rest = wc->next;
    wc->next = NULL;
    while (rest) {
        wlive_chunk *nx = rest->next;
        free(rest);
        rest = nx;
    }
    l->tail = wc;
    l->size = kept;
    l->sweep_at = 2 * kept + WLIVE_SWEEP_MIN;
    return kept;
}

void wlive_track(JNIEnv *env, jobject obj, uint32_t site)
{
    wlive_list *l = wlive_mine;
    if (!l && (wlive_nomem || !(l = wlive_mine = wlive_list_get()))) {
        wlive_nomem = 1;
        return;
    }
    wlive_chunk *c = l->tail;
    uint32_t n = c->n;
    if (n == c->cap) { /* the tail has no next: wlive_compact frees what follows it */
        wlive_chunk *nc = wlive_chunk_new(c->cap < WLIVE_CHUNK_MAX ? 2 * c->cap : WLIVE_CHUNK_MAX);
        if (!nc)
            return;
        __atomic_store_n(&c->next, nc, __ATOMIC_RELEASE);
        l->tail = c = nc;
        n = 0;
    }
    jweak r = (*env)->NewWeakGlobalRef(env, obj);
    if (!r) {
        (*env)->ExceptionClear(env); /* out of memory: not tracked */
        return;
    }
    c->ref[n] = r;
    c->site[n] = site;
    __atomic_store_n(&c->n, n + 1, __ATOMIC_RELEASE);
    if (++l->size >= l->sweep_at) {
        if (pthread_mutex_trylock(&l->mu) == 0) {
            wlive_compact(env, l, NULL);
            pthread_mutex_unlock(&l->mu);
        } else {
            l->sweep_at = l->size + WLIVE_SWEEP_MIN; /* a count is on: later */
        }
    }
}

void wlive_thread_end(void)
{
    wlive_list *l = wlive_mine;
    if (!l)
        return;
    wlive_mine = NULL;
    __atomic_store_n(&l->orphan, 1, __ATOMIC_RELEASE);
}

/* The lists as they are now: new ones are added at the head and none is
 * ever unlinked or freed (an orphan waits for adoption), so a walk from
 * this head needs no lock past it. */
static wlive_list *wlive_first(void)
{
    wlive_state *w = &g_hp.wlive;
    if (!w->ready)
        return NULL;
    pthread_mutex_lock(&w->mu);
    wlive_list *h = w->head;
    pthread_mutex_unlock(&w->mu);
    return h;
}

/* Counts l's live entries; an orphan is compacted. An owned list (its
 * owner may be appending to its tail) has its cleared references dropped
 * in place, and each chunk left with none freed unless it is the last: a
 * chunk with a next is full and its owner never touches it again outside
 * wlive_compact (under l->mu), so an idle thread's list shrinks too. */
static void wlive_count_list(JNIEnv *env, wlive_list *l, site_live *live)
{
    pthread_mutex_lock(&l->mu);
    if (__atomic_load_n(&l->orphan, __ATOMIC_ACQUIRE)) {
        wlive_compact(env, l, live);
        pthread_mutex_unlock(&l->mu);
        return;
    }
    wlive_chunk **link = &l->head;
    for (wlive_chunk *c = l->head; c;) {
        /* next before n: the owner links a next only after it filled the
         * chunk (n == cap, published first), so a chunk seen with a next
         * is read whole and may go; one without may still be growing */
        wlive_chunk *nx = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE);
        uint32_t n = __atomic_load_n(&c->n, __ATOMIC_ACQUIRE), left = 0;
        for (uint32_t i = 0; i < n; i++) {
            jweak r = c->ref[i];
            if (!r)
                continue;
            if (wlive_gone(env, r)) {
                c->ref[i] = NULL;
            } else {
                site_live_count(live, (uint64_t)c->site[i] << 32);
                left++;
            }
        }
        if (!left && nx) {
            *link = nx;
            free(c);
        } else {
            link = &c->next;
        }
        c = nx;
    }
    pthread_mutex_unlock(&l->mu);
}

int wlive_count(JNIEnv *env, site_live *live)
{
    for (wlive_list *l = wlive_first(); l; l = l->next)
        wlive_count_list(env, l, live);
    return live->oom ? -1 : 0;
}

uint64_t wlive_clear(JNIEnv *env)
{
    uint64_t dropped = 0;
    for (wlive_list *l = wlive_first(); l; l = l->next) {
        pthread_mutex_lock(&l->mu);
        for (wlive_chunk *c = l->head; c; c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE)) {
            uint32_t n = __atomic_load_n(&c->n, __ATOMIC_ACQUIRE);
            for (uint32_t i = 0; i < n; i++) {
                if (!c->ref[i])
                    continue;
                if (!(*env)->IsSameObject(env, c->ref[i], NULL))
                    dropped++;
                (*env)->DeleteWeakGlobalRef(env, c->ref[i]);
                c->ref[i] = NULL;
            }
        }
        pthread_mutex_unlock(&l->mu);
    }
    return dropped;
}

size_t wlive_lists(void)
{
    size_t n = 0;
    for (wlive_list *l = wlive_first(); l; l = l->next)
        n++;
    return n;
}
