/*
 * threads.c: thread registration and THREAD START/END output (threads.h).
 *
 * Owns the hp_thread records (in JVMTI thread-local storage) and the count
 * of live virtual-thread records. A virtual thread's record is created,
 * given its serial, and freed under data_lock, and its THREAD START and
 * THREAD END are written under it too: a START is thus never written after
 * the END of the same thread, whichever thread asks for the serial.
 */
#include "threads.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "jx.h"
#include "out.h"
#include "timing.h"
#include "vthreads.h"

static uint64_t thr_vt_records; /* atomics: virtual-thread records alive */

/* Platform threads' records by java.lang.Thread.tid (data_lock), for every
 * thread but the record's own. JVMTI thread-local storage is read only by
 * a thread's own events: HotSpot reads another thread's storage through its
 * JvmtiThreadState without a lock, and an exiting thread deletes that state
 * (a SIGSEGV in GetThreadLocalStorage, seen once from the sampler on JDK 25
 * with threads churning). Platform records are never freed, so a pointer
 * found here stays valid. */
static hu_map thr_by_tid;
static jfieldID thr_tid_field; /* java.lang.Thread.tid; NULL: not found */
static int thr_tid_looked;

/* Looks up java.lang.Thread.tid once: at VMInit/attach (thr_register_all),
 * or at the first registration before that. */
static void thr_tid_lookup(JNIEnv *env)
{
    if (!__atomic_load_n(&thr_tid_looked, __ATOMIC_ACQUIRE)) {
        jclass tc = (*env)->FindClass(env, "java/lang/Thread");
        jfieldID f = tc ? (*env)->GetFieldID(env, tc, "tid", "J") : NULL;
        if ((*env)->ExceptionCheck(env))
            (*env)->ExceptionClear(env);
        if (tc)
            (*env)->DeleteLocalRef(env, tc);
        thr_tid_field = f;
        __atomic_store_n(&thr_tid_looked, 1, __ATOMIC_RELEASE);
    }
}

/* `t`'s tid, or 0 when unknown (no such field: storage is then used). */
static uint64_t thr_tid(JNIEnv *env, jthread t)
{
    if (!env)
        return 0;
    thr_tid_lookup(env);
    if (!thr_tid_field)
        return 0;
    jlong tid = (*env)->GetLongField(env, t, thr_tid_field);
    return tid > 0 ? (uint64_t)tid : 0;
}

void thr_init(void)
{
    hu_map_init(&thr_by_tid);
}

/* The record a virtual thread keeps after its end when it had none: the
 * sampler (or a dump) may ask for its serial just after VirtualThreadEnd
 * while it still runs its last steps, and would otherwise make a record
 * (and a THREAD START) that nothing frees. Ended, with no serial: every
 * reader takes it as "gone"; it is never written to nor freed. */
static hp_thread thr_gone = {.ended = 1, .virt = 1};

uint64_t thr_vt_live(void)
{
    return __atomic_load_n(&thr_vt_records, __ATOMIC_RELAXED);
}

/* A thread's names and object id, read before its THREAD START (outside
 * data_lock: GetThreadInfo of a virtual thread may wait for its mount or
 * unmount to finish). */
typedef struct thr_names {
    char *name, *group, *parent;
    jlong tag;
} thr_names;

static void thr_names_get(jvmtiEnv *j, jthread t, thr_names *nm)
{
    jx_thread_names(j, t, &nm->name, &nm->group, &nm->parent);
    nm->tag = 0;
    (*j)->GetTag(j, t, &nm->tag);
}

static void thr_names_free(jvmtiEnv *j, thr_names *nm)
{
    jx_free(j, nm->name);
    jx_free(j, nm->group);
    jx_free(j, nm->parent);
}

/* THREAD START of `th` (serial already assigned). */
static void thr_write_start(hp_thread *th, const thr_names *nm)
{
    th->obj_id = (uint64_t)nm->tag;
    out_thread_start(th->serial, (uint64_t)nm->tag, nm->name, nm->group, nm->parent);
}

static void thr_start_platform(jvmtiEnv *j, jthread t, hp_thread *th)
{
    thr_names nm;
    thr_names_get(j, t, &nm);
    thr_write_start(th, &nm);
    thr_names_free(j, &nm);
}

/* The record of `t` under data_lock (held by the caller), created if new.
 * *created says whether it was. `own`: called by `t` itself (its events),
 * the only caller that may touch its thread-local storage; the others find
 * a platform thread by its tid, and never make a virtual thread's record
 * (met just after its end, it would never be freed). */
static hp_thread *thr_locked(jvmtiEnv *j, JNIEnv *env, jthread t, int own, int *created)
{
    void *p = NULL;
    *created = 0;
    int virt = vt_is_virtual(env, t);
    /* a virtual thread's storage, read by another thread, is safe: JVMTI
     * holds off its mount, unmount and end meanwhile */
    if ((own || virt) && (*j)->GetThreadLocalStorage(j, t, &p) == JVMTI_ERROR_NONE && p)
        return p;
    if (virt && (!own || !vt_records()))
        return NULL; /* nothing would free it: no record, serial 200000 */
    uint64_t tid = virt ? 0 : thr_tid(env, t);
    uint64_t *known = tid ? hu_map_get(&thr_by_tid, tid) : NULL;
    if (known) {
        hp_thread *th = (hp_thread *)(uintptr_t)*known;
        if (own) /* made by another thread: the storage caches it now */
            (*j)->SetThreadLocalStorage(j, t, th);
        return th;
    }
    if (!own && !tid)
        return NULL; /* no tid to find it by: its own events register it */
    if (!own) { /* another thread's: only while it is alive */
        jint state = 0;
        if ((*j)->GetThreadState(j, t, &state) != JVMTI_ERROR_NONE || !(state & JVMTI_THREAD_STATE_ALIVE))
            return NULL;
    }
    hp_thread *th = calloc(1, sizeof *th);
    if (!th)
        return NULL;
    th->virt = (uint8_t)virt;
    if (tid && hu_map_put(&thr_by_tid, tid, (uint64_t)(uintptr_t)th) != 0) {
        free(th);
        return NULL;
    }
    if (!th->virt)
        th->serial = ++g_hp.next_thread_serial;
    if (own && (*j)->SetThreadLocalStorage(j, t, th) != JVMTI_ERROR_NONE) {
        if (!th->virt)
            g_hp.next_thread_serial--; /* nobody saw it: serials stay dense */
        if (tid)
            hu_map_del(&thr_by_tid, tid, NULL);
        free(th); /* a thread that is not alive (yet or any more) */
        return NULL;
    }
    if (th->virt)
        __atomic_fetch_add(&thr_vt_records, 1, __ATOMIC_RELAXED);
    *created = 1;
    return th;
}

/* thr_get / thr_other: the record of `t`, `own` as for thr_locked. */
static hp_thread *thr_find(jvmtiEnv *j, JNIEnv *env, jthread t, int own)
{
    void *p = NULL;
    if (own && (*j)->GetThreadLocalStorage(j, t, &p) == JVMTI_ERROR_NONE && p)
        return p;
    /* two threads may register the same thread (its own event and an
     * enumeration): the check and the store happen under data_lock */
    int created = 0;
    jx_lock(j, g_hp.data_lock);
    hp_thread *th = thr_locked(j, env, t, own, &created);
    jx_unlock(j, g_hp.data_lock);
    if (th && created && !th->virt)
        thr_start_platform(j, t, th);
    return th;
}

hp_thread *thr_other(jvmtiEnv *j, JNIEnv *env, jthread t)
{
    return thr_find(j, env, t, 0);
}

hp_thread *thr_get(jvmtiEnv *j, JNIEnv *env, jthread t)
{
    return thr_find(j, env, t, 1);
}

hp_thread *thr_live(jvmtiEnv *j, JNIEnv *env, jthread t)
{
    hp_thread *th = thr_get(j, env, t);
    return th == &thr_gone ? NULL : th;
}

/* Gives a virtual thread's record its serial and THREAD START; data_lock
 * held (raw monitors are reentrant: out_thread_start interns the names
 * under it, and takes out_lock after it, in the lock order). */
static void thr_name_vt(hp_thread *th, const thr_names *nm)
{
    th->serial = ++g_hp.next_thread_serial;
    thr_write_start(th, nm);
}

uint32_t thr_serial_own(jvmtiEnv *j, jthread t, hp_thread *th)
{
    if (__atomic_load_n(&th->serial, __ATOMIC_ACQUIRE))
        return th->serial;
    thr_names nm;
    thr_names_get(j, t, &nm);
    jx_lock(j, g_hp.data_lock);
    if (!th->serial && !th->ended)
        thr_name_vt(th, &nm);
    jx_unlock(j, g_hp.data_lock);
    thr_names_free(j, &nm);
    return th->serial ? th->serial : HP_THREAD_SERIAL0;
}

uint32_t thr_serial_of(jvmtiEnv *j, JNIEnv *env, jthread t, int *agent)
{
    int created = 0;
    uint32_t s = HP_THREAD_SERIAL0;
    if (agent)
        *agent = 0;
    thr_names nm;
    int named = 0;
    for (;;) {
        jx_lock(j, g_hp.data_lock);
        hp_thread *th = thr_locked(j, env, t, 0, &created);
        if (th && th->virt && !th->serial && !th->ended) {
            if (!named) { /* names first, outside the lock; then again */
                jx_unlock(j, g_hp.data_lock);
                thr_names_get(j, t, &nm);
                named = 1;
                continue;
            }
            thr_name_vt(th, &nm);
        }
        if (th && th->serial)
            s = th->serial;
        if (th && agent)
            *agent = th->agent;
        jx_unlock(j, g_hp.data_lock);
        if (th && created && !th->virt)
            thr_start_platform(j, t, th);
        break;
    }
    if (named)
        thr_names_free(j, &nm);
    return s;
}

void thr_end(jvmtiEnv *j, JNIEnv *env, jthread t)
{
    hp_thread *th = thr_get(j, env, t);
    if (!th || th->ended)
        return;
    th->ended = 1;
    /* ThreadEnd runs on the thread after its last Java code: no method
     * event of it can come after this */
    tm_stack_free(th->tm);
    th->tm = NULL;
    out_thread_end(th->serial);
    /* the storage stays: a late event of this thread still finds its serial */
}

void thr_vt_end(jvmtiEnv *j, JNIEnv *env, jthread t)
{
    void *p = NULL;
    jx_lock(j, g_hp.data_lock);
    if ((*j)->GetThreadLocalStorage(j, t, &p) != JVMTI_ERROR_NONE || p == &thr_gone) {
        jx_unlock(j, g_hp.data_lock);
        return;
    }
    (*j)->SetThreadLocalStorage(j, t, &thr_gone);
    hp_thread *th = p;
    if (!th) { /* nothing ever needed a record of it */
        jx_unlock(j, g_hp.data_lock);
        return;
    }
    th->ended = 1;
    if (th->serial)
        out_thread_end(th->serial);
    jx_unlock(j, g_hp.data_lock);
    /* VirtualThreadEnd is its last event: nothing of it runs any more */
    tm_stack_free(th->tm);
    if (th->mon_wait_obj && env)
        (*env)->DeleteWeakGlobalRef(env, th->mon_wait_obj);
    free(th);
    __atomic_fetch_sub(&thr_vt_records, 1, __ATOMIC_RELAXED);
}

void thr_register_all(jvmtiEnv *j, JNIEnv *env)
{
    jint n = 0;
    jthread *ts = NULL;
    int framed = env && (*env)->PushLocalFrame(env, 64) == 0;
    if (env)
        thr_tid_lookup(env);
    if (jx_report(j, (*j)->GetAllThreads(j, &n, &ts), "GetAllThreads") == JVMTI_ERROR_NONE) {
        if (env && n > 0)
            (*env)->EnsureLocalCapacity(env, n + 64);
        for (jint i = 0; i < n; i++) {
            /* each registration makes a few local refs (thread group...) */
            int inner = env && (*env)->PushLocalFrame(env, 16) == 0;
            thr_other(j, env, ts[i]);
            if (inner)
                (*env)->PopLocalFrame(env, NULL);
        }
        jx_free(j, ts);
    }
    if (framed)
        (*env)->PopLocalFrame(env, NULL);
}

void thr_mark_agent(jvmtiEnv *j, JNIEnv *env)
{
    jthread self = NULL;
    if ((*j)->GetCurrentThread(j, &self) != JVMTI_ERROR_NONE)
        return;
    hp_thread *th = thr_get(j, env, self);
    if (th)
        th->agent = 1;
    (*env)->DeleteLocalRef(env, self);
}
