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

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "jx.h"
#include "threads.h"
#include "traces.h"

#define SAMPLER_STOP_WAIT_MS 5000 /* never hang the VM's exit on us */

/* Whether a thread is running at this sample. It must be RUNNABLE and its
 * CPU time must have advanced since the previous sample (the first sight of
 * a thread only sets its baseline). A thread in native code must also have
 * been busy for at least half of the interval: a native compute loop
 * counts, a thread that ran briefly and then blocked in a native read or
 * accept (whose stack is now the blocking call) does not. Without a CPU
 * clock the thread state decides, as in the original. */
static int sampler_ran(jvmtiEnv *j, jthread t, hp_thread *th, jint state, int64_t wall_ns)
{
    if (!(state & JVMTI_THREAD_STATE_RUNNABLE) || (state & JVMTI_THREAD_STATE_SUSPENDED))
        return 0;
    jlong cpu = 0;
    if ((*j)->GetThreadCpuTime(j, t, &cpu) != JVMTI_ERROR_NONE)
        return !(state & JVMTI_THREAD_STATE_IN_NATIVE);
    int64_t used = th->cpu_seen ? cpu - th->cpu_ns : 0;
    th->cpu_ns = cpu;
    th->cpu_seen = 1;
    if (used <= 0)
        return 0;
    if ((state & JVMTI_THREAD_STATE_IN_NATIVE) && wall_ns > 0 && 2 * used < wall_ns)
        return 0;
    return 1;
}

/* One sample. The stacks are taken only of the threads that ran: their
 * state and CPU clock are read first (cheap, no safepoint), so the one
 * GetThreadListStackTraces call, which stops the threads it walks, covers
 * one or two threads instead of every thread of the JVM. */
static void sampler_once(jvmtiEnv *j, JNIEnv *env, int64_t wall_ns)
{
    if ((*env)->PushLocalFrame(env, 64) != 0)
        return;
    jint n = 0, nrun = 0;
    jthread *ts = NULL, *run = NULL;
    hp_thread **runth = NULL;
    jvmtiStackInfo *info = NULL;
    jint depth = (jint)__atomic_load_n(&g_hp.o.depth, __ATOMIC_RELAXED); /* net= may change it */
    if ((*j)->GetAllThreads(j, &n, &ts) != JVMTI_ERROR_NONE || n == 0)
        goto out;
    (*env)->EnsureLocalCapacity(env, n + 64);
    run = malloc(sizeof *run * (size_t)n);
    runth = malloc(sizeof *runth * (size_t)n);
    if (!run || !runth)
        goto out;
    for (jint i = 0; i < n; i++) {
        jint state = 0;
        if ((*j)->GetThreadState(j, ts[i], &state) != JVMTI_ERROR_NONE)
            continue;
        hp_thread *th = thr_get(j, env, ts[i]);
        if (!th || th->agent) /* NULL: the thread ended since GetAllThreads */
            continue;
        uint8_t ctl = __atomic_load_n(&th->cpu_ctl, __ATOMIC_RELAXED);
        if (ctl == THR_CPU_OFF || (ctl == THR_CPU_DEFAULT && g_hp.cpu_paused)) {
            th->cpu_seen = 0; /* switched off over net=: a new baseline when back on */
            continue;
        }
        if (!sampler_ran(j, ts[i], th, state, wall_ns))
            continue;
        run[nrun] = ts[i];
        runth[nrun++] = th;
    }
    if (nrun == 0 || depth == 0) /* the original's contract: depth=0 records nothing */
        goto out;
    if ((*j)->GetThreadListStackTraces(j, nrun, run, depth, &info) != JVMTI_ERROR_NONE)
        goto out;
    for (jint i = 0; i < nrun; i++) {
        jvmtiStackInfo *si = &info[i];
        /* still running when its stack was taken */
        if (!(si->state & JVMTI_THREAD_STATE_RUNNABLE) || si->frame_count <= 0)
            continue;
        uint32_t tser = g_hp.o.thread ? runth[i]->serial : 0;
        uint64_t h = trace_hash(si->frame_buffer, si->frame_count, tser);
        hp_trace *t = trace_get(j, si->frame_buffer, si->frame_count, tser, h);
        if (t)
            __atomic_fetch_add(&t->cpu_samples, 1, __ATOMIC_RELAXED);
    }
out:
    free(run);
    free(runth);
    jx_free(j, info);
    jx_free(j, ts);
    (*env)->PopLocalFrame(env, NULL);
}

static void JNICALL sampler_main(jvmtiEnv *j, JNIEnv *env, void *arg)
{
    (void)arg;
    thr_mark_agent(j, env);
    int64_t prev = hp_now_ns();
    uint64_t rnd = (uint64_t)prev | 1;
    jx_lock(j, g_hp.sampler_lock);
    while (!g_hp.sampler_stop_req) {
        /* each wait is drawn uniformly from [interval/2, 3*interval/2]: the
         * same mean, but no lock-step with a program whose work repeats
         * with a period near the interval (which biases fixed-rate samples) */
        rnd ^= rnd << 13;
        rnd ^= rnd >> 7;
        rnd ^= rnd << 17;
        jlong ms = (jlong)g_hp.o.interval_ms;
        jlong wait = ms >= 2 ? ms / 2 + (jlong)(rnd % (uint64_t)(ms + 1)) : ms;
        (*j)->RawMonitorWait(j, g_hp.sampler_lock, wait);
        if (g_hp.sampler_stop_req)
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
