/*
 * sampler.c: cpu=samples (see sampler.h).
 *
 * Owns the sampling thread and its stop handshake (g_hp.sampler_lock,
 * sampler_stop_req, sampler_running). Per-trace hits live in
 * hp_trace.cpu_samples (atomics: the sampler adds, a dump swaps to zero);
 * a thread's previous CPU time in its hp_thread, touched only by the
 * sampler.
 */
#include "sampler.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "jx.h"
#include "threads.h"
#include "traces.h"
#include "vthreads.h"

#define SAMPLER_STOP_WAIT_MS 5000 /* never hang the VM's exit on us */
#define SAMPLER_NS_PER_MS 1000000
#define SAMPLER_NS_PER_S 1000000000
#define SAMPLER_MIN_GAP 8 /* each wait >= interval / 8 (sampler_main) */

/* The CPU time platform thread `t` used since the previous sample (0 at
 * its first sight, which only sets the baseline); -1 when it has no CPU
 * clock. Read for every thread that is not suspended, whatever its state:
 * a carrier running a virtual thread reports itself WAITING. */
static int64_t sampler_cpu_used(jvmtiEnv *j, jthread t, hp_thread *th)
{
    jlong cpu = 0;
    if ((*j)->GetThreadCpuTime(j, t, &cpu) != JVMTI_ERROR_NONE)
        return -1;
    int64_t used = th->cpu_seen ? cpu - th->cpu_ns : 0;
    th->cpu_ns = cpu;
    th->cpu_seen = 1;
    return used;
}

/* Whether a thread in state `state` (a platform thread, or the virtual
 * thread a carrier runs) ran at this sample, given the CPU time `used` of
 * the OS thread under it. It must be RUNNABLE and have used CPU. A thread
 * in native code must also have been busy for at least half of the
 * interval: a native compute loop counts; a thread that ran briefly and
 * then blocked in a native call (a socket read, the Reference Handler's
 * waitForReferencePendingList after a GC), whose stack is now the blocking
 * call, does not; sampler_once checks such a thread's clock once more
 * after its stack was taken. Without a CPU clock (used < 0) the thread
 * state decides, as in the original. */
static int sampler_ran(jint state, int64_t used, int64_t wall_ns)
{
    if (!(state & JVMTI_THREAD_STATE_RUNNABLE) || (state & JVMTI_THREAD_STATE_SUSPENDED))
        return 0;
    if (used < 0)
        return !(state & JVMTI_THREAD_STATE_IN_NATIVE);
    if (used == 0)
        return 0;
    if ((state & JVMTI_THREAD_STATE_IN_NATIVE) && wall_ns > 0 && 2 * used < wall_ns)
        return 0;
    return 1;
}

/* A thread to sample (its stack is taken of run[i]: a platform thread or
 * the virtual thread a carrier runs): the platform thread whose CPU clock
 * says it ran (itself, or the carrier), and the serial of its traces. */
typedef struct sampler_pick {
    jthread os;
    hp_thread *osth;
    jthread vt;    /* the virtual thread run[i] is, or NULL */
    uint32_t tser; /* a platform thread's serial for its traces */
    int64_t cpu_before; /* the OS thread's CPU time when picked */
} sampler_pick;

/* The virtual thread that platform thread `t` (WAITING, but its CPU clock
 * advanced) is running, if it ran: the carrier's CPU advanced and the
 * virtual thread is RUNNABLE on it now. NULL otherwise. */
static jthread sampler_mounted(jvmtiEnv *j, JNIEnv *env, jthread t, int64_t used, int64_t wall_ns)
{
    jthread v = vt_mounted(j, t);
    if (!v)
        return NULL;
    jint vstate = 0;
    if ((*j)->GetThreadState(j, v, &vstate) != JVMTI_ERROR_NONE || !sampler_ran(vstate, used, wall_ns)) {
        (*env)->DeleteLocalRef(env, v);
        return NULL;
    }
    return v;
}

/* Whether a thread picked in native code has not blocked there since:
 * its clock, read again after its stack was taken, must show it was busy
 * for at least half of the time since it was picked (a thread that ran
 * for a while after a GC and then blocked in native has advanced its
 * clock enough to be picked, but not since). */
static int sampler_still_busy(jvmtiEnv *j, const sampler_pick *p, int64_t picked_ns)
{
    jlong cpu = 0;
    if ((*j)->GetThreadCpuTime(j, p->os, &cpu) != JVMTI_ERROR_NONE)
        return 1;
    int64_t wall = hp_now_ns() - picked_ns;
    return wall <= 0 || 2 * (cpu - p->cpu_before) >= wall;
}

/* Counts a hit on the stack `fr` (n frames) of pick `p`, taken in state
 * `state`, unless it no longer ran: not RUNNABLE then. A stack whose top
 * is native (the thread in native code, or in a native method waiting
 * inside the VM, location -1, as the Reference Handler does) may be one
 * the thread blocked in just before it was taken, after running for most
 * of the interval: it must have been busy since it was picked, and its
 * hit waits for the next sample, which counts it only if the clock went
 * on advancing after the stack was taken (a thread blocked there does
 * not advance it; a native compute loop does). */
static void sampler_count(jvmtiEnv *j, JNIEnv *env, const sampler_pick *p, jint state, jvmtiFrameInfo *fr,
                          jint n, int64_t picked_ns)
{
    if (!(state & JVMTI_THREAD_STATE_RUNNABLE) || n <= 0)
        return;
    int native = (state & JVMTI_THREAD_STATE_IN_NATIVE) || fr[0].location == -1;
    if (native && !sampler_still_busy(j, p, picked_ns))
        return;
    /* a virtual thread is named (serial, THREAD START) only now that a
     * trace refers to it; its hit is not deferred (a virtual thread
     * blocked in native code pins its carrier, whose clock then stops) */
    uint32_t tser = p->tser;
    if (p->vt && g_hp.o.thread)
        tser = thr_serial_of(j, env, p->vt, NULL);
    uint64_t h = trace_hash(fr, n, tser);
    hp_trace *t = trace_get(j, fr, n, tser, h);
    if (!t)
        return;
    jlong cpu = 0;
    if (native && !p->vt && (*j)->GetThreadCpuTime(j, p->os, &cpu) == JVMTI_ERROR_NONE) {
        p->osth->cpu_pend = t;
        p->osth->cpu_pend_cpu = cpu;
        p->osth->cpu_pend_ns = hp_now_ns();
        return;
    }
    __atomic_fetch_add(&t->cpu_samples, 1, __ATOMIC_RELAXED);
}

/* The next sample of a thread with a pending hit (sampler_count): counts
 * it if the thread's clock (just read, th->cpu_ns) advanced for at least
 * half of the time since its stack was taken. */
static void sampler_confirm(hp_thread *th, int64_t now)
{
    hp_trace *t = th->cpu_pend;
    if (!t)
        return;
    th->cpu_pend = NULL;
    int64_t wall = now - th->cpu_pend_ns;
    if (wall > 0 && 2 * (th->cpu_ns - th->cpu_pend_cpu) >= wall)
        __atomic_fetch_add(&t->cpu_samples, 1, __ATOMIC_RELAXED);
}

/* One sample. The stacks are taken only of the threads that ran: their
 * state and CPU clock are read first (cheap, no safepoint), so the
 * stack walks, which stop the threads they walk, cover one or two threads
 * instead of every thread of the JVM. */
static void sampler_once(jvmtiEnv *j, JNIEnv *env, int64_t wall_ns)
{
    if ((*env)->PushLocalFrame(env, 64) != 0)
        return;
    jint n = 0, nrun = 0;
    jthread *ts = NULL, *run = NULL;
    sampler_pick *pick = NULL;
    jvmtiStackInfo *info = NULL;
    jint depth = (jint)__atomic_load_n(&g_hp.o.depth, __ATOMIC_RELAXED); /* net= may change it */
    if ((*j)->GetAllThreads(j, &n, &ts) != JVMTI_ERROR_NONE || n == 0)
        goto out;
    (*env)->EnsureLocalCapacity(env, 2 * n + 64);
    run = malloc(sizeof *run * (size_t)n);
    pick = malloc(sizeof *pick * (size_t)n);
    if (!run || !pick)
        goto out;
    for (jint i = 0; i < n; i++) {
        jint state = 0;
        if ((*j)->GetThreadState(j, ts[i], &state) != JVMTI_ERROR_NONE)
            continue;
        hp_thread *th = thr_other(j, env, ts[i]);
        if (!th || th->agent) /* NULL: the thread ended since GetAllThreads */
            continue;
        uint8_t ctl = __atomic_load_n(&th->cpu_ctl, __ATOMIC_RELAXED);
        if (ctl == THR_CPU_OFF || (ctl == THR_CPU_DEFAULT && g_hp.cpu_paused)) {
            th->cpu_seen = 0; /* switched off over net=: a new baseline when back on */
            th->cpu_pend = NULL;
            continue;
        }
        if (state & JVMTI_THREAD_STATE_SUSPENDED)
            continue;
        /* a waiting thread's clock matters only if it may be a carrier, or
         * has a hit to confirm: not read otherwise (JDK 17: no carriers) */
        if (!(state & JVMTI_THREAD_STATE_RUNNABLE) && !vt_on() && !th->cpu_pend)
            continue;
        int64_t used = sampler_cpu_used(j, ts[i], th);
        if (used >= 0)
            sampler_confirm(th, hp_now_ns());
        jthread who = ts[i];
        uint32_t tser = g_hp.o.thread ? th->serial : 0;
        if (!(state & JVMTI_THREAD_STATE_RUNNABLE)) {
            /* only a carrier running a virtual thread: it must have run */
            if (used <= 0 || !vt_on() || !(who = sampler_mounted(j, env, ts[i], used, wall_ns)))
                continue;
        } else if (!sampler_ran(state, used, wall_ns)) {
            continue;
        }
        run[nrun] = who;
        pick[nrun++] = (sampler_pick){.os = ts[i], .osth = th, .vt = who != ts[i] ? who : NULL, .tser = tser,
                                      .cpu_before = th->cpu_ns};
    }
    if (nrun == 0 || depth == 0) /* the original's contract: depth=0 records nothing */
        goto out;
    int64_t picked_ns = hp_now_ns();
    /* one call: a handshake for one thread, a safepoint for more. Taking
     * virtual threads' stacks one by one (GetStackTrace, a handshake with
     * each carrier) was measured slower: ~900 against ~400 µs a sample
     * with two carriers busy (bench/BENCHMARKS.md) */
    /* !info: JDK 17 takes one thread's stack by a handshake, and when that
     * thread exits first the closure never runs: JVMTI_ERROR_NONE with no
     * list (seen: a SIGSEGV here, stress_net "garbage", the JVM ending) */
    if ((*j)->GetThreadListStackTraces(j, nrun, run, depth, &info) != JVMTI_ERROR_NONE || !info)
        goto out;
    for (jint i = 0; i < nrun; i++)
        sampler_count(j, env, &pick[i], info[i].state, info[i].frame_buffer, info[i].frame_count, picked_ns);
out:
    free(run);
    free(pick);
    jx_free(j, info);
    jx_free(j, ts);
    (*env)->PopLocalFrame(env, NULL);
}

/* The next wait of the schedule, in ns: drawn uniformly from
 * [interval/2, 3*interval/2] (mean = interval), so that the samples do not
 * lock onto a program whose work repeats with a period near the interval
 * (which biases fixed-rate samples). xorshift64 on the caller's state. */
static int64_t sampler_draw_ns(uint64_t *rnd, int64_t interval_ns)
{
    *rnd ^= *rnd << 13;
    *rnd ^= *rnd >> 7;
    *rnd ^= *rnd << 17;
    return interval_ns / 2 + (int64_t)(*rnd % (uint64_t)(interval_ns + 1));
}

/* Waits on the schedule: until `deadline` (CLOCK_MONOTONIC ns), or until
 * sampler_stop asks. Called and returns with sampler_lock held. The whole
 * milliseconds go to RawMonitorWait, which sampler_stop's notify ends at
 * once (and whose 0 would mean forever: never passed); the rest, under
 * 1 ms, to clock_nanosleep with the lock released, so a stop waits at
 * most that long (or the wait's whole length if RawMonitorWait fails,
 * which it does not with the lock held). Returns whether a stop was
 * asked. */
static int sampler_wait_until(jvmtiEnv *j, int64_t deadline)
{
    /* again after an early return (an interrupt, a spurious wake-up), so
     * the unstoppable sleep below stays under 1 ms */
    for (;;) {
        if (g_hp.sampler_stop_req)
            return 1;
        int64_t left = deadline - hp_now_ns();
        if (left < SAMPLER_NS_PER_MS)
            break;
        jvmtiError e = (*j)->RawMonitorWait(j, g_hp.sampler_lock, (jlong)(left / SAMPLER_NS_PER_MS));
        if (e != JVMTI_ERROR_NONE && e != JVMTI_ERROR_INTERRUPT)
            break;
    }
    if (deadline > hp_now_ns()) {
        struct timespec ts = {.tv_sec = deadline / SAMPLER_NS_PER_S, .tv_nsec = deadline % SAMPLER_NS_PER_S};
        jx_unlock(j, g_hp.sampler_lock);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
            ;
        jx_lock(j, g_hp.sampler_lock);
    }
    return g_hp.sampler_stop_req;
}

/* The samples are taken on a schedule: each deadline is the previous one
 * plus a drawn wait, so the time a sample takes (the stack walks) and the
 * wake-up latency do not lengthen the period: the rate asked for is the
 * rate delivered (a wait after each sample gave ~830 instead of 1000
 * samples/s at 1 ms). A late wake-up is made up by the next wait. But
 * each wait lasts at least 1/SAMPLER_MIN_GAP of the interval: when the
 * sampler falls behind (samples slower than the interval: many running
 * threads, a loaded machine) the schedule restarts from now instead of
 * firing the missed samples back to back, so it never bursts, and never
 * stops the program's threads (a sample is a handshake or a safepoint)
 * without a pause between two samples. */
static void JNICALL sampler_main(jvmtiEnv *j, JNIEnv *env, void *arg)
{
    hp_mark_agent_thread();
    (void)arg;
    thr_mark_agent(j, env);
    int64_t prev = hp_now_ns();
    uint64_t rnd = (uint64_t)prev | 1;
    int64_t deadline = prev;
    jx_lock(j, g_hp.sampler_lock);
    while (!g_hp.sampler_stop_req) {
        int64_t interval = (int64_t)g_hp.o.interval_ms * SAMPLER_NS_PER_MS;
        int64_t soonest = hp_now_ns() + interval / SAMPLER_MIN_GAP;
        deadline += sampler_draw_ns(&rnd, interval);
        if (deadline < soonest)
            deadline = soonest;
        if (sampler_wait_until(j, deadline))
            break;
        jx_unlock(j, g_hp.sampler_lock);
        int64_t now = hp_now_ns();
        sampler_once(j, env, now - prev);
        prev = now;
        jx_lock(j, g_hp.sampler_lock);
    }
    g_hp.sampler_running = 0;
    (*j)->RawMonitorNotifyAll(j, g_hp.sampler_lock);
    jx_unlock(j, g_hp.sampler_lock);
}

int sampler_start(jvmtiEnv *j, JNIEnv *env)
{
    /* a net= CPU ON that arrives after VM death stopped the sampler */
    if (!env || g_hp.sampler_stop_req)
        return -1;
    return jx_agent_thread(j, env, "HPROF cpu sampling thread", sampler_main,
                           JVMTI_THREAD_MAX_PRIORITY, &g_hp.sampler_running, "cpu=samples is off");
}

void sampler_stop(jvmtiEnv *j)
{
    if (!g_hp.sampler_lock)
        return;
    jx_lock(j, g_hp.sampler_lock);
    g_hp.sampler_stop_req = 1;
    (*j)->RawMonitorNotifyAll(j, g_hp.sampler_lock);
    for (int waited = 0; g_hp.sampler_running && waited < SAMPLER_STOP_WAIT_MS; waited += 100)
        (*j)->RawMonitorWait(j, g_hp.sampler_lock, 100);
    if (g_hp.sampler_running)
        hp_error("the CPU sampling thread did not stop in %d ms", SAMPLER_STOP_WAIT_MS);
    jx_unlock(j, g_hp.sampler_lock);
}

static int sampler_row_cmp(const void *a, const void *b)
{
    const hp_cpu_row *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->trace->serial < y->trace->serial ? -1 : x->trace->serial > y->trace->serial;
}

void sampler_clear(void)
{
    jx_lock(g_hp.jvmti, g_hp.data_lock);
    uint32_t nt = trace_count();
    for (uint32_t i = 1; i < nt; i++)
        __atomic_store_n(&trace_at(i)->cpu_samples, 0, __ATOMIC_RELAXED);
    jx_unlock(g_hp.jvmti, g_hp.data_lock);
}

hp_cpu_row *sampler_take(uint32_t *n, uint64_t *total)
{
    *n = 0;
    *total = 0;
    /* under data_lock: traces being created are published before filled */
    jx_lock(g_hp.jvmti, g_hp.data_lock);
    uint32_t nt = trace_count();
    hp_cpu_row *rows = calloc(nt ? nt : 1, sizeof *rows);
    for (uint32_t i = 1; rows && i < nt; i++) {
        hp_trace *t = trace_at(i);
        uint64_t c = __atomic_exchange_n(&t->cpu_samples, 0, __ATOMIC_RELAXED);
        if (!c)
            continue;
        rows[*n].trace = t;
        rows[*n].count = c;
        (*n)++;
        *total += c;
    }
    jx_unlock(g_hp.jvmti, g_hp.data_lock);
    if (rows)
        qsort(rows, *n, sizeof *rows, sampler_row_cmp);
    return rows;
}
