/*
 * test_wlive.c: heap=sites' weak-reference lists (agent/wlive.c) against a
 * fake JNI: objects are flags (alive or collected), a weak reference is a
 * box pointing at one, and the fake counts the boxes outstanding, so a
 * reference leaked or deleted twice shows (and ASan sees a box used after
 * its delete). Exact live counts by site after compaction, clear, orphaned
 * lists adopted by new threads, and counts taken while threads track,
 * compact and end.
 */
#include <CUnit/Basic.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "sites.h"
#include "wlive.h"

hp_agent g_hp; /* wlive.c's state lives in it */

/* ------------------------------------------------------------- fake JNI */

typedef struct fobj {
    int dead; /* collected: its weak references read as cleared */
} fobj;

#define FWEAK_MAGIC 0x77656b72u

typedef struct fweak {
    uint32_t magic;
    fobj *o;
} fweak;

static long f_outstanding; /* weak references made and not yet deleted */
static long f_bad;         /* deletes of something that is not a live box */

static jweak JNICALL f_new_weak(JNIEnv *env, jobject obj)
{
    (void)env;
    fweak *w = malloc(sizeof *w);
    if (!w)
        return NULL;
    w->magic = FWEAK_MAGIC;
    w->o = (fobj *)obj;
    __atomic_add_fetch(&f_outstanding, 1, __ATOMIC_RELAXED);
    return (jweak)w;
}

static void JNICALL f_delete_weak(JNIEnv *env, jweak ref)
{
    (void)env;
    fweak *w = (fweak *)ref;
    if (!w || w->magic != FWEAK_MAGIC) {
        __atomic_add_fetch(&f_bad, 1, __ATOMIC_RELAXED);
        return;
    }
    w->magic = 0;
    free(w);
    __atomic_sub_fetch(&f_outstanding, 1, __ATOMIC_RELAXED);
}

/* wlive.c asks only IsSameObject(ref, NULL): is the reference cleared? */
static jboolean JNICALL f_same(JNIEnv *env, jobject a, jobject b)
{
    (void)env;
    if (b != NULL || !a)
        return a == b;
    fweak *w = (fweak *)a;
    if (w->magic != FWEAK_MAGIC) {
        __atomic_add_fetch(&f_bad, 1, __ATOMIC_RELAXED);
        return JNI_TRUE;
    }
    return __atomic_load_n(&w->o->dead, __ATOMIC_ACQUIRE) ? JNI_TRUE : JNI_FALSE;
}

static void JNICALL f_exception_clear(JNIEnv *env)
{
    (void)env;
}

static struct JNINativeInterface_ f_fns;
static JNIEnv f_env_value = &f_fns;
static JNIEnv *const f_env = &f_env_value;

/* --------------------------------------------------- what sites.c gives */

int site_live_grow(site_live *l, uint32_t i)
{
    uint32_t cap = l->cap ? l->cap : 16;
    while (cap <= i)
        cap *= 2;
    uint64_t *n = realloc(l->n, sizeof *n * cap);
    if (!n) {
        l->oom = 1;
        return -1;
    }
    memset(n + l->cap, 0, sizeof *n * (cap - l->cap));
    l->n = n;
    l->cap = cap;
    return 0;
}

#define NSITES 8

/* wlive_count into a fresh site_live; live[s] for s < NSITES */
static void count(uint64_t live[NSITES])
{
    site_live l = {0};
    CU_ASSERT_EQUAL_FATAL(site_live_grow(&l, NSITES), 0);
    CU_ASSERT_EQUAL(wlive_count(f_env, &l), 0);
    for (uint32_t s = 0; s < NSITES; s++)
        live[s] = s < l.cap ? l.n[s] : 0;
    free(l.n);
}

static void reset(void)
{
    uint64_t live[NSITES];
    wlive_clear(f_env); /* drops what earlier tests left */
    count(live);
}

/* The end of a test's objects: every reference let go first (a fake
 * object's memory must outlive the references to it, as a JVM's does). */
static void done(fobj *o)
{
    wlive_clear(f_env);
    CU_ASSERT_EQUAL(f_outstanding, 0);
    free(o);
}

/* ----------------------------------------------------------------- tests */

/* 200 000 objects on one thread: the owner compacts every time its list
 * doubles (from 65 536 entries on), a third survive; the count is exact by
 * site and deletes every reference of the dead. */
static void test_count_after_compaction(void)
{
    reset();
    enum { N = 200000 };
    fobj *o = calloc(N, sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    uint64_t want[NSITES] = {0};
    for (uint32_t i = 0; i < N; i++) {
        uint32_t site = 1 + i % 5;
        wlive_track(f_env, (jobject)&o[i], site);
        if (i % 3)
            __atomic_store_n(&o[i].dead, 1, __ATOMIC_RELEASE);
        else
            want[site]++;
    }
    CU_ASSERT(f_outstanding < N); /* the owner's compactions deleted some */
    uint64_t live[NSITES];
    count(live);
    for (uint32_t s = 0; s < NSITES; s++)
        CU_ASSERT_EQUAL(live[s], want[s]);
    CU_ASSERT_EQUAL(f_outstanding, (N + 2) / 3);
    CU_ASSERT_EQUAL(f_bad, 0);
    /* the survivors die: a second count finds none and deletes them all */
    for (uint32_t i = 0; i < N; i++)
        o[i].dead = 1;
    count(live);
    for (uint32_t s = 0; s < NSITES; s++)
        CU_ASSERT_EQUAL(live[s], 0);
    CU_ASSERT_EQUAL(f_outstanding, 0);
    CU_ASSERT_EQUAL(f_bad, 0);
    done(o);
}

/* wlive_clear lets go of every reference and says how many objects were
 * still there; objects tracked after it are counted alone. */
static void test_clear(void)
{
    reset();
    enum { N = 5000 };
    fobj *o = calloc(N + 10, sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    for (uint32_t i = 0; i < N; i++) {
        wlive_track(f_env, (jobject)&o[i], 2);
        o[i].dead = i % 2;
    }
    CU_ASSERT_EQUAL(wlive_clear(f_env), N / 2);
    CU_ASSERT_EQUAL(f_outstanding, 0);
    for (uint32_t i = N; i < N + 10; i++)
        wlive_track(f_env, (jobject)&o[i], 3);
    uint64_t live[NSITES];
    count(live);
    CU_ASSERT_EQUAL(live[2], 0);
    CU_ASSERT_EQUAL(live[3], 10);
    CU_ASSERT_EQUAL(f_bad, 0);
    done(o);
}

typedef struct worker {
    fobj *o;
    uint32_t n, site;
    unsigned seed;
    uint64_t alive; /* objects left alive */
    int end;        /* calls wlive_thread_end */
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (uint32_t i = 0; i < w->n; i++) {
        wlive_track(f_env, (jobject)&w->o[i], w->site);
        /* most die young, as in a program: a third of them at once */
        if (rand_r(&w->seed) % 3)
            __atomic_store_n(&w->o[i].dead, 1, __ATOMIC_RELEASE);
        else
            w->alive++;
    }
    if (w->end)
        wlive_thread_end();
    return NULL;
}

/* A thread's list outlives it (orphaned at its end) and is counted, and
 * threads that come later adopt orphans instead of making lists: 20
 * threads one after the other leave one list. */
static void test_orphans_adopted(void)
{
    reset();
    size_t before = wlive_lists();
    enum { T = 20, N = 3000 };
    fobj *o = calloc((size_t)T * N, sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    uint64_t alive = 0;
    for (int t = 0; t < T; t++) {
        worker w = {.o = o + (size_t)t * N, .n = N, .site = 4, .seed = (unsigned)t + 1, .end = 1};
        pthread_t th;
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, work, &w), 0);
        pthread_join(th, NULL);
        alive += w.alive;
    }
    CU_ASSERT(wlive_lists() <= before + 1);
    uint64_t live[NSITES];
    count(live);
    CU_ASSERT_EQUAL(live[4], alive);
    CU_ASSERT_EQUAL(f_outstanding, (long)alive);
    CU_ASSERT_EQUAL(f_bad, 0);
    done(o);
}

/* Counts taken over and over while 4 threads track, compact and end: no
 * reference is lost, counted twice or deleted twice, and the last count,
 * with every thread done, is exact. */
static void test_count_while_tracking(void)
{
    reset();
    enum { T = 4, N = 150000 };
    fobj *o = calloc((size_t)T * N, sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    worker w[T];
    pthread_t th[T];
    for (int t = 0; t < T; t++) {
        w[t] = (worker){.o = o + (size_t)t * N, .n = N, .site = 5 + (uint32_t)(t % 2),
                        .seed = 100u + (unsigned)t, .end = t % 2};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[t], NULL, work, &w[t]), 0);
    }
    uint64_t live[NSITES];
    for (int k = 0; k < 20; k++) {
        count(live);
        /* never more than were tracked */
        CU_ASSERT(live[5] + live[6] <= (uint64_t)T * N);
    }
    uint64_t want5 = 0, want6 = 0;
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        if (w[t].site == 5)
            want5 += w[t].alive;
        else
            want6 += w[t].alive;
    }
    count(live);
    CU_ASSERT_EQUAL(live[5], want5);
    CU_ASSERT_EQUAL(live[6], want6);
    CU_ASSERT_EQUAL(f_outstanding, (long)(want5 + want6));
    CU_ASSERT_EQUAL(f_bad, 0);
    /* threads 0 and 2 did not end: their lists are still theirs; let go */
    CU_ASSERT_EQUAL(wlive_clear(f_env), want5 + want6);
    CU_ASSERT_EQUAL(f_outstanding, 0);
    done(o);
}

int main(void)
{
    f_fns.NewWeakGlobalRef = f_new_weak;
    f_fns.DeleteWeakGlobalRef = f_delete_weak;
    f_fns.IsSameObject = f_same;
    f_fns.ExceptionClear = f_exception_clear;
    g_hp.o.heap_sites = 1;
    if (wlive_init() != 0)
        return 1;
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("wlive", NULL, NULL);
    CU_add_test(s, "exact counts after the owner's compactions", test_count_after_compaction);
    CU_add_test(s, "clear", test_clear);
    CU_add_test(s, "orphaned lists counted and adopted", test_orphans_adopted);
    CU_add_test(s, "counts while threads track, compact and end", test_count_while_tracking);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
