/*
 * monitors.c: monitor=y (see monitors.h).
 *
 * Owns the contention table (g_hp.mons, g_hp.mon_index: structure under
 * data_lock, counters atomics) and the per-thread "enter/wait under way"
 * fields of hp_thread, which only the thread's own events touch. The event
 * callbacks run on the thread that contends or waits: they take a stack
 * trace and data_lock (to find or add a table row), never out_lock except
 * to append a WAIT:/WAITED: line.
 */
#include "monitors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "classes.h"
#include "jx.h"
#include "names.h"
#include "out.h"
#include "threads.h"
#include "traces.h"

#define MON_MAX_DEPTH 256 /* frames of a contention trace kept on the stack */

typedef struct hp_mon {
    hp_trace *trace;
    hp_class *cls;
    uint32_t next; /* hash chain */
    uint64_t count, time_ns; /* atomics */
} hp_mon;

int mon_init(void)
{
    hu_map_init(&g_hp.mon_index);
    return vec_init(&g_hp.mons, sizeof(hp_mon));
}

void mon_cleanup(void)
{
    vec_cleanup(&g_hp.mons);
    hu_map_cleanup(&g_hp.mon_index);
}

/* The class of a monitor object (NULL if it cannot be registered). */
static hp_class *mon_class_of(jvmtiEnv *j, JNIEnv *env, jobject obj)
{
    jclass k = (*env)->GetObjectClass(env, obj);
    if (!k)
        return NULL;
    hp_class *c = cls_get(j, k);
    (*env)->DeleteLocalRef(env, k);
    return c;
}

/* The raw JVM signature of a class ("Ljava/lang/Object;", "[I") into buf. */
static void mon_class_sig(const hp_class *c, char *buf, size_t n)
{
    if (!c) {
        snprintf(buf, n, "<unknown class>");
        return;
    }
    const char *vm = str_get(c->name_vm)->s;
    if (vm[0] == '[')
        snprintf(buf, n, "%s", vm);
    else
        snprintf(buf, n, "L%s;", vm);
}

static hp_trace *mon_trace_here(jvmtiEnv *j, jthread t, uint32_t tser)
{
    jvmtiFrameInfo fr[MON_MAX_DEPTH];
    unsigned want = __atomic_load_n(&g_hp.o.depth, __ATOMIC_RELAXED); /* net= may change it */
    jint depth = want < MON_MAX_DEPTH ? (jint)want : MON_MAX_DEPTH, n = 0;
    if (depth > 0 && (*j)->GetStackTrace(j, t, 0, depth, fr, &n) != JVMTI_ERROR_NONE)
        n = 0;
    return trace_get(j, fr, n, tser, trace_hash(fr, n, tser));
}

static void JNICALL mon_on_contended_enter(jvmtiEnv *j, JNIEnv *env, jthread t, jobject obj)
{
    if (hp_enter())
        return;
    hp_thread *th = thr_live(j, env, t);
    if (th) {
        th->mon_cls = mon_class_of(j, env, obj);
        th->mon_trace = mon_trace_here(j, t, g_hp.o.thread ? thr_serial_own(j, t, th) : 0);
        th->mon_enter_ns = hp_now_ns(); /* last: our own work is not contention */
    }
    hp_leave();
}

static void mon_count(jvmtiEnv *j, hp_trace *t, hp_class *c, int64_t ns)
{
    uint64_t key = ((uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ULL) ^ (c ? c->index : 0);
    hp_mon *m = NULL;
    jx_lock(j, g_hp.data_lock);
    uint64_t *head = hu_map_get(&g_hp.mon_index, key);
    uint32_t first = head ? (uint32_t)*head : 0;
    for (uint32_t i = first; i; i = ((hp_mon *)vec_at(&g_hp.mons, i))->next) {
        hp_mon *e = vec_at(&g_hp.mons, i);
        if (e->trace == t && e->cls == c) {
            m = e;
            break;
        }
    }
    if (!m) {
        uint32_t idx = vec_push(&g_hp.mons);
        if (idx && hu_map_put(&g_hp.mon_index, key, idx) == 0) {
            m = vec_at(&g_hp.mons, idx);
            m->trace = t;
            m->cls = c;
            m->next = first;
        }
    }
    jx_unlock(j, g_hp.data_lock);
    if (m) {
        __atomic_fetch_add(&m->count, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&m->time_ns, (uint64_t)ns, __ATOMIC_RELAXED);
    }
}

static void JNICALL mon_on_contended_entered(jvmtiEnv *j, JNIEnv *env, jthread t, jobject obj)
{
    int64_t now = hp_now_ns();
    (void)obj;
    if (hp_enter())
        return;
    hp_thread *th = thr_live(j, env, t);
    if (th && th->mon_enter_ns && th->mon_trace) {
        int64_t ns = now - th->mon_enter_ns;
        mon_count(j, th->mon_trace, th->mon_cls, ns > 0 ? ns : 0);
    }
    if (th)
        th->mon_enter_ns = 0;
    hp_leave();
}

static void JNICALL mon_on_wait(jvmtiEnv *j, JNIEnv *env, jthread t, jobject obj, jlong timeout)
{
    if (hp_enter())
        return;
    hp_thread *th = thr_live(j, env, t);
    if (th) {
        char sig[512];
        mon_class_sig(mon_class_of(j, env, obj), sig, sizeof sig);
        out_monitor_wait(sig, (int64_t)timeout, thr_serial_own(j, t, th));
        /* a dump names the monitor this thread waits on from here: JVMTI
         * has no call for it (GetCurrentContendedMonitor stopped returning
         * wait()ed monitors in JDK 23) */
        jweak w = (*env)->NewWeakGlobalRef(env, obj);
        jx_lock(j, g_hp.data_lock);
        jweak old = th->mon_wait_obj;
        th->mon_wait_obj = w;
        jx_unlock(j, g_hp.data_lock);
        if (old)
            (*env)->DeleteWeakGlobalRef(env, old);
        th->mon_wait_ns = hp_now_ns();
    }
    hp_leave();
}

static void JNICALL mon_on_waited(jvmtiEnv *j, JNIEnv *env, jthread t, jobject obj, jboolean timed_out)
{
    int64_t now = hp_now_ns();
    (void)timed_out;
    if (hp_enter())
        return;
    hp_thread *th = thr_live(j, env, t);
    if (th) {
        char sig[512];
        mon_class_sig(mon_class_of(j, env, obj), sig, sizeof sig);
        int64_t ms = th->mon_wait_ns ? (now - th->mon_wait_ns) / 1000000 : 0;
        out_monitor_waited(sig, ms > 0 ? ms : 0, thr_serial_own(j, t, th));
        th->mon_wait_ns = 0;
        jx_lock(j, g_hp.data_lock);
        jweak old = th->mon_wait_obj;
        th->mon_wait_obj = NULL;
        jx_unlock(j, g_hp.data_lock);
        if (old)
            (*env)->DeleteWeakGlobalRef(env, old);
    }
    hp_leave();
}

void mon_capabilities(jvmtiCapabilities *want)
{
    want->can_generate_monitor_events = 1;
    want->can_get_owned_monitor_info = 1;
    want->can_get_current_contended_monitor = 1;
    want->can_get_monitor_info = 1;
}

void mon_callbacks(jvmtiEventCallbacks *cb)
{
    cb->MonitorContendedEnter = mon_on_contended_enter;
    cb->MonitorContendedEntered = mon_on_contended_entered;
    cb->MonitorWait = mon_on_wait;
    cb->MonitorWaited = mon_on_waited;
}

static const jvmtiEvent mon_events[] = {JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
                                        JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
                                        JVMTI_EVENT_MONITOR_WAIT, JVMTI_EVENT_MONITOR_WAITED};

int mon_start(jvmtiEnv *j)
{
    for (size_t i = 0; i < sizeof mon_events / sizeof mon_events[0]; i++)
        if (jx_report(j, (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, mon_events[i], NULL),
                      "SetEventNotificationMode(monitor events)"))
            return -1;
    return 0;
}

void mon_stop(jvmtiEnv *j)
{
    for (size_t i = 0; i < sizeof mon_events / sizeof mon_events[0]; i++)
        (*j)->SetEventNotificationMode(j, JVMTI_DISABLE, mon_events[i], NULL);
}

static int mon_row_cmp(const void *a, const void *b)
{
    const hp_mon_row *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? 1 : -1;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->trace->serial < y->trace->serial ? -1 : x->trace->serial > y->trace->serial;
}

hp_mon_row *mon_take(uint32_t *n, uint64_t *total_ns)
{
    *n = 0;
    *total_ns = 0;
    jx_lock(g_hp.jvmti, g_hp.data_lock);
    uint32_t nm = g_hp.mons.count;
    hp_mon_row *rows = calloc(nm ? nm : 1, sizeof *rows);
    for (uint32_t i = 1; rows && i < nm; i++) {
        hp_mon *m = vec_at(&g_hp.mons, i);
        uint64_t c = __atomic_exchange_n(&m->count, 0, __ATOMIC_RELAXED);
        uint64_t ns = __atomic_exchange_n(&m->time_ns, 0, __ATOMIC_RELAXED);
        if (!c)
            continue;
        rows[*n] = (hp_mon_row){.trace = m->trace, .cls = m->cls, .count = c, .time_ns = ns};
        (*n)++;
        *total_ns += ns;
    }
    jx_unlock(g_hp.jvmti, g_hp.data_lock);
    if (rows)
        qsort(rows, *n, sizeof *rows, mon_row_cmp);
    return rows;
}

/* ------------------------------------------------------------ MONITOR DUMP */

void mon_status(jint st, char *buf, size_t n)
{
    /* the prefixes add up, as in the original: "S|intr|native|R" */
    char pre[24];
    snprintf(pre, sizeof pre, "%s%s%s", (st & JVMTI_THREAD_STATE_SUSPENDED) ? "S|" : "",
             (st & JVMTI_THREAD_STATE_INTERRUPTED) ? "intr|" : "",
             (st & JVMTI_THREAD_STATE_IN_NATIVE) ? "native|" : "");
    const char *code;
    if (st & JVMTI_THREAD_STATE_TERMINATED)
        code = "ZO";
    else if (!(st & JVMTI_THREAD_STATE_ALIVE))
        code = "NS";
    else if (st & JVMTI_THREAD_STATE_SLEEPING)
        code = "SL";
    else if (st & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER)
        code = "MW";
    else if (st & JVMTI_THREAD_STATE_WAITING)
        code = "CW";
    else if (st & JVMTI_THREAD_STATE_RUNNABLE)
        code = "R";
    else
        code = "UN";
    snprintf(buf, n, "%s%s", pre, code);
}

/* The serials of `n` threads (malloc'ed; NULL when n == 0 or on OOM). */
static uint32_t *mon_serials(jvmtiEnv *j, JNIEnv *env, const jthread *ts, jint n)
{
    if (n <= 0)
        return NULL;
    uint32_t *s = calloc((size_t)n, sizeof *s);
    /* waiters may be virtual threads, whose records a dump must not hold */
    for (jint i = 0; s && i < n; i++)
        s[i] = thr_serial_of(j, env, ts[i], NULL);
    return s;
}

/* Adds monitor `obj` to d unless it is already there. */
static int mon_add(jvmtiEnv *j, JNIEnv *env, jobject obj, jobject *seen, uint32_t *nseen,
                   hp_mon_dump *d, uint32_t cap)
{
    for (uint32_t i = 0; i < *nseen; i++)
        if ((*env)->IsSameObject(env, seen[i], obj))
            return 0;
    if (*nseen >= cap)
        return 0;
    /* the waiter lists and the class are local refs of their own */
    if ((*env)->PushLocalFrame(env, 64) != 0)
        return -1;
    jvmtiMonitorUsage u;
    memset(&u, 0, sizeof u);
    if (jx_report(j, (*j)->GetObjectMonitorUsage(j, obj, &u), "GetObjectMonitorUsage")) {
        (*env)->PopLocalFrame(env, NULL);
        return 0;
    }
    /* one local ref per waiter, and thr_get makes a few per new thread */
    (*env)->EnsureLocalCapacity(env, 4 * (u.waiter_count + u.notify_waiter_count) + 64);
    seen[(*nseen)++] = obj;
    hp_mon_info *m = &d->mons[d->nmons];
    char sig[512];
    mon_class_sig(mon_class_of(j, env, obj), sig, sizeof sig);
    m->sig = strdup(sig);
    if (u.owner)
        m->owner = thr_serial_of(j, env, u.owner, NULL);
    m->entry_count = u.entry_count;
    m->wait = mon_serials(j, env, u.waiters, u.waiter_count);
    m->nwait = m->wait ? (uint32_t)u.waiter_count : 0;
    m->notify = mon_serials(j, env, u.notify_waiters, u.notify_waiter_count);
    m->nnotify = m->notify ? (uint32_t)u.notify_waiter_count : 0;
    /* JDK 17-22 also list a thread in Object.wait among the threads waiting
     * to enter (JDK-8247972); one waiting to be notified is not entering */
    uint32_t keep = 0;
    for (uint32_t a = 0; a < m->nwait; a++) {
        uint32_t b = 0;
        while (b < m->nnotify && m->notify[b] != m->wait[a])
            b++;
        if (b == m->nnotify)
            m->wait[keep++] = m->wait[a];
    }
    m->nwait = keep;
    jx_free(j, u.waiters);
    jx_free(j, u.notify_waiters);
    (*env)->PopLocalFrame(env, NULL);
    if (!m->sig)
        return -1;
    d->nmons++;
    return 0;
}

int mon_collect(jvmtiEnv *j, JNIEnv *env, hp_mon_dump *d)
{
    memset(d, 0, sizeof *d);
    if (!env)
        return -1;
    if ((*env)->PushLocalFrame(env, 256) != 0)
        return -1;
    jint n = 0;
    jthread *ts = NULL;
    int rc = -1;
    jobject *seen = NULL;
    uint32_t nseen = 0, cap = 0;
    if (jx_report(j, (*j)->GetAllThreads(j, &n, &ts), "GetAllThreads") != JVMTI_ERROR_NONE)
        goto out;
    (*env)->EnsureLocalCapacity(env, 4 * n + 256);
    d->threads = calloc(n ? (size_t)n : 1, sizeof *d->threads);
    if (!d->threads)
        goto out;
    for (jint i = 0; i < n; i++) {
        hp_thread *th = thr_other(j, env, ts[i]);
        jint st = 0;
        if (!th || (*j)->GetThreadState(j, ts[i], &st) != JVMTI_ERROR_NONE)
            continue;
        hp_mon_thread *mt = &d->threads[d->nthreads++];
        mt->serial = th->serial;
        mt->trace = mon_trace_here(j, ts[i], g_hp.o.thread ? th->serial : 0);
        if (!mt->trace)
            mt->trace = trace_at(1);
        mon_status(st, mt->status, sizeof mt->status);
    }
    /* the monitors: those owned, and those entered or waited for (the
     * original showed only owned ones, so a monitor whose only threads were
     * waiting in Object.wait went unseen) */
    for (jint i = 0; i < n; i++) {
        jint no = 0;
        jobject *owned = NULL;
        jobject cm = NULL;
        /* the monitor refs stay until the end (kept in `seen`) */
        (*env)->EnsureLocalCapacity(env, (jint)(4 * n + 256 + nseen + 64));
        jvmtiError e = (*j)->GetOwnedMonitorInfo(j, ts[i], &no, &owned);
        if (e != JVMTI_ERROR_NONE && e != JVMTI_ERROR_THREAD_NOT_ALIVE)
            jx_report(j, e, "GetOwnedMonitorInfo");
        e = (*j)->GetCurrentContendedMonitor(j, ts[i], &cm);
        if (e != JVMTI_ERROR_NONE && e != JVMTI_ERROR_THREAD_NOT_ALIVE)
            jx_report(j, e, "GetCurrentContendedMonitor");
        uint32_t need = nseen + (uint32_t)no + 2;
        if (need > cap) {
            uint32_t ncap = cap ? cap : 64;
            while (ncap < need)
                ncap *= 2;
            jobject *ns = realloc(seen, sizeof *ns * ncap);
            hp_mon_info *nm = realloc(d->mons, sizeof *nm * ncap);
            if (ns)
                seen = ns;
            if (nm)
                d->mons = nm;
            if (!ns || !nm) {
                jx_free(j, owned);
                goto out;
            }
            memset(d->mons + cap, 0, sizeof *nm * (ncap - cap));
            cap = ncap;
        }
        for (jint k = 0; k < no; k++)
            if (mon_add(j, env, owned[k], seen, &nseen, d, cap))
                break;
        if (cm)
            mon_add(j, env, cm, seen, &nseen, d, cap);
        hp_thread *th = thr_other(j, env, ts[i]);
        jobject wobj = NULL;
        if (th) {
            jx_lock(j, g_hp.data_lock);
            if (th->mon_wait_obj)
                wobj = (*env)->NewLocalRef(env, th->mon_wait_obj);
            jx_unlock(j, g_hp.data_lock);
        }
        if (wobj)
            mon_add(j, env, wobj, seen, &nseen, d, cap);
        jx_free(j, owned);
    }
    rc = 0;
out:
    if (rc)
        hp_error("out of memory collecting the monitor dump");
    free(seen);
    jx_free(j, ts);
    (*env)->PopLocalFrame(env, NULL);
    return rc;
}

void mon_dump_free(hp_mon_dump *d)
{
    for (uint32_t i = 0; i < d->nmons; i++) {
        free(d->mons[i].sig);
        free(d->mons[i].wait);
        free(d->mons[i].notify);
    }
    free(d->mons);
    free(d->threads);
    memset(d, 0, sizeof *d);
}
