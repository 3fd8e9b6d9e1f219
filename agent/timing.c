/*
 * timing.c: cpu=times and cpu=old (see timing.h).
 *
 * Owns the shadow stacks (one per thread, touched only by that thread's own
 * MethodEntry/MethodExit callbacks and freed at its ThreadEnd) and the
 * per-trace call counters (hp_trace.tm_*: atomics, added by exits, swapped
 * to zero by a dump), and, per OS thread, the time it ran virtual threads
 * (thread-local, touched only by that OS thread's mount/unmount events and
 * method exits). The callbacks take data_lock only when a trace is new to
 * the thread's cache.
 */
#include "timing.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "jx.h"
#include "threads.h"
#include "traces.h"
#include "vthreads.h"

#define TM_STACK_MIN 64
#define TM_STACK_MAX (1u << 20) /* deeper recursion is not followed */
#define TM_CACHE_SIZE 256       /* per-thread trace cache entries */
#define TM_MAX_DEPTH 256        /* frames kept in a cpu=times trace (depth=) */

typedef struct tm_frame {
    jmethodID method;
    int64_t start_ns;
    int64_t callee_ns; /* elapsed time of completed callees */
    int64_t wait_ns;   /* time completed callees spent waiting */
    int64_t cpu0_ns;   /* a native frame: the OS thread's CPU clock at entry */
    const void *os;    /* a native frame: the OS thread it entered on */
    int64_t off0_ns;   /* a virtual thread's frame: its time unmounted at entry */
    int64_t lent0_ns;  /* a platform thread's frame: its time lent to virtual threads at entry */
    int64_t lent_ns;   /* time completed callees lent */
    uint8_t native;
} tm_frame;

#define TM_MCACHE_SIZE 256 /* per-thread "is this method native" entries */

struct tm_stack {
    tm_frame *f;
    uint32_t n, cap;
    uint32_t lost;     /* entries beyond TM_STACK_MAX, not followed */
    int64_t off_ns;    /* a virtual thread: time spent unmounted (with frames under way) */
    int64_t off_start; /* ... since this unmount (0: mounted) */
    struct {
        jmethodID m;
        uint8_t native;
    } mcache[TM_MCACHE_SIZE];
    struct {
        uint64_t key;
        hp_trace *t;
    } cache[TM_CACHE_SIZE];
};

/* The calling thread's record with its shadow stack (created if `create`:
 * entries create, exits only pop); NULL when it has none. */
static hp_thread *tm_self(jvmtiEnv *j, JNIEnv *env, jthread t, int create)
{
    void *p = NULL;
    hp_thread *th;
    if ((*j)->GetThreadLocalStorage(j, NULL, &p) == JVMTI_ERROR_NONE && p)
        th = p;
    else if (!(th = thr_get(j, env, t)))
        return NULL;
    if (th->tm)
        return th;
    if (!create || th->ended || !(th->tm = calloc(1, sizeof *th->tm)))
        return NULL;
    return th;
}

void tm_stack_free(tm_stack *s)
{
    if (!s)
        return;
    free(s->f);
    free(s);
}

/* The trace of shadow frames [top-n+1 .. top], innermost first. */
static hp_trace *tm_trace(jvmtiEnv *j, tm_stack *s, uint32_t top, uint32_t tser)
{
    jvmtiFrameInfo fr[TM_MAX_DEPTH];
    uint32_t want = __atomic_load_n(&g_hp.o.depth, __ATOMIC_RELAXED); /* net= may change it */
    uint32_t depth = want < TM_MAX_DEPTH ? want : TM_MAX_DEPTH;
    uint32_t n = 0;
    for (; n < depth && n <= top; n++) {
        fr[n].method = s->f[top - n].method;
        fr[n].location = -1;
    }
    uint64_t h = trace_hash(fr, (int)n, tser);
    uint64_t key = h | 1;
    uint32_t slot = (uint32_t)(key >> 7) & (TM_CACHE_SIZE - 1);
    if (s->cache[slot].key == key && trace_equals(s->cache[slot].t, fr, (int)n, tser))
        return s->cache[slot].t;
    hp_trace *t = trace_get(j, fr, (int)n, tser, h);
    if (t) {
        s->cache[slot].key = key;
        s->cache[slot].t = t;
    }
    return t;
}

/* Identifies the OS thread the caller runs on (a virtual thread moves
 * between carriers when it unmounts). */
static __thread char tm_os_key;
/* Per OS thread: the time it ran mounted virtual threads (a carrier's
 * frames under way, Continuation.run and VirtualThread.mount, would
 * otherwise count that time as their own), and since when it runs one. */
static __thread int64_t tm_lent_ns, tm_mount_ns;

/* The calling OS thread's CPU time (ns); -1 when unknown. */
static int64_t tm_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return -1;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Whether m is a native method (cached per thread: one JVMTI call per
 * method and thread). */
static int tm_is_native(jvmtiEnv *j, tm_stack *s, jmethodID m)
{
    uint32_t slot = (uint32_t)(((uintptr_t)m >> 3) * 0x9e3779b1u) >> 24;
    if (s->mcache[slot].m == m)
        return s->mcache[slot].native;
    jboolean nat = JNI_FALSE;
    if ((*j)->IsMethodNative(j, m, &nat) != JVMTI_ERROR_NONE)
        nat = JNI_FALSE;
    s->mcache[slot].m = m;
    s->mcache[slot].native = nat ? 1 : 0;
    return nat ? 1 : 0;
}

/* X= (debug) bit 8: the method events return at once, to measure the cost
 * of the events alone (bench/times_bench.sh) */
#define TM_X_EVENT_ONLY 8u

static void JNICALL tm_on_entry(jvmtiEnv *j, JNIEnv *env, jthread thread, jmethodID m)
{
    if (hp_enter())
        return;
    if (g_hp.o.experiment & TM_X_EVENT_ONLY)
        goto out;
    hp_thread *th = tm_self(j, env, thread, 1);
    if (!th)
        goto out;
    tm_stack *s = th->tm;
    if (s->lost) { /* frames above a lost one are not followed either */
        s->lost++;
        goto out;
    }
    if (s->n == s->cap) {
        if (s->cap >= TM_STACK_MAX) {
            s->lost++;
            goto out;
        }
        uint32_t ncap = s->cap ? s->cap * 2 : TM_STACK_MIN;
        tm_frame *nf = realloc(s->f, sizeof *nf * ncap);
        if (!nf) {
            s->lost++;
            goto out;
        }
        s->f = nf;
        s->cap = ncap;
    }
    tm_frame *f = &s->f[s->n++];
    f->method = m;
    f->callee_ns = 0;
    f->wait_ns = 0;
    f->lent_ns = 0;
    f->off0_ns = s->off_ns;
    f->lent0_ns = tm_lent_ns;
    f->native = (uint8_t)tm_is_native(j, s, m);
    if (f->native) {
        f->os = &tm_os_key;
        f->cpu0_ns = tm_cpu_now();
    }
    f->start_ns = hp_now_ns(); /* last: the bookkeeping above is not the method's time */
out:
    hp_leave();
}

/* The time a call waited (slept, parked, waited, blocked) out of its self
 * time `self` (of `total` elapsed): a native method's elapsed time that
 * its OS thread did not spend on the CPU (its callees' waits excluded).
 * A virtual thread that left its carrier during the call (it unmounted:
 * it parked, slept or blocked) used no CPU of the thread it ends on that
 * can be told apart: its whole self time is waiting. Java code that runs
 * is work: a thread descheduled by a busy machine in Java code still
 * counts as working, as a CPU sampler would also see it. */
static int64_t tm_waited(const tm_frame *f, int64_t total, int64_t self)
{
    if (!f->native)
        return 0;
    int64_t cpu = f->cpu0_ns >= 0 && f->os == &tm_os_key ? tm_cpu_now() - f->cpu0_ns : 0;
    if (cpu < 0)
        cpu = 0;
    int64_t w = total - cpu - f->wait_ns;
    return w < 0 ? 0 : w > self ? self : w;
}

static void JNICALL tm_on_exit(jvmtiEnv *j, JNIEnv *env, jthread thread, jmethodID m,
                               jboolean by_exception, jvalue rv)
{
    (void)by_exception;
    (void)rv;
    int64_t now = hp_now_ns(); /* first, for the same reason */
    if (hp_enter())
        return;
    if (g_hp.o.experiment & TM_X_EVENT_ONLY)
        goto out;
    hp_thread *th = tm_self(j, env, thread, 0);
    if (!th)
        goto out;
    tm_stack *s = th->tm;
    if (s->lost) { /* an entry we could not push: its exit pops nothing */
        s->lost--;
        goto out;
    }
    if (s->n == 0)
        goto out;
    /* the top frame, unless frames were entered before the events were on */
    uint32_t i = s->n;
    while (i > 0 && s->f[i - 1].method != m)
        i--;
    if (i == 0)
        goto out;
    uint32_t tser = g_hp.o.thread ? thr_serial_own(j, thread, th) : 0;
    /* pops frames down to and including m's (normally just m's) */
    while (s->n >= i) {
        uint32_t top = s->n - 1;
        tm_frame *f = &s->f[top];
        int64_t elapsed = now - f->start_ns;
        if (elapsed < 0)
            elapsed = 0;
        int64_t self = elapsed - f->callee_ns;
        if (self < 0)
            self = 0;
        /* a carrier's time running virtual threads is theirs, not its own
         * (its callees' share of it is out of their elapsed time already) */
        int64_t lent = th->virt ? 0 : tm_lent_ns - f->lent0_ns;
        int64_t own_lent = lent - f->lent_ns, total = elapsed;
        if (own_lent > 0)
            self = own_lent < self ? self - own_lent : 0;
        if (lent > 0)
            total = lent < elapsed ? elapsed - lent : 0;
        int64_t waited = tm_waited(f, total, self);
        int64_t sub_wait = f->wait_ns + waited; /* this call's waiting, callees' included */
        int64_t unmounted = th->virt ? s->off_ns - f->off0_ns : 0;
        if (unmounted > sub_wait) { /* a virtual thread that parked, slept or blocked */
            waited += unmounted - sub_wait;
            if (waited > self)
                waited = self;
            sub_wait = f->wait_ns + waited;
        }
        int64_t work_self = self - waited, work_total = total - sub_wait;
        hp_trace *t = tm_trace(j, s, top, tser);
        if (t) {
            __atomic_fetch_add(&t->tm_self_ns, (uint64_t)work_self, __ATOMIC_RELAXED);
            __atomic_fetch_add(&t->tm_total_ns, (uint64_t)(work_total > 0 ? work_total : 0), __ATOMIC_RELAXED);
            __atomic_fetch_add(&t->tm_wait_ns, (uint64_t)waited, __ATOMIC_RELAXED);
            __atomic_fetch_add(&t->tm_calls, 1, __ATOMIC_RELEASE);
        }
        s->n--;
        if (s->n > 0) {
            s->f[s->n - 1].callee_ns += elapsed;
            s->f[s->n - 1].wait_ns += sub_wait;
            s->f[s->n - 1].lent_ns += lent > 0 ? lent : 0;
        }
        if (s->n == 0)
            break;
    }
    if (s->n == 0) {
        /* an empty stack is freed: a virtual thread gets no ThreadEnd, and
         * a platform thread's stack empties only when it ends (or between
         * calls made from native code, which then pay one allocation) */
        th->tm = NULL;
        tm_stack_free(s);
    }
out:
    hp_leave();
}

/* VirtualThreadUnmount (HotSpot extension), on the virtual thread before
 * it leaves its carrier: its waiting starts, its carrier's loan ends. */
static void JNICALL tm_on_unmount(jvmtiEnv *j, JNIEnv *env, jthread vthread)
{
    (void)env;
    (void)vthread;
    int64_t now = hp_now_ns();
    if (hp_enter())
        return;
    if (tm_mount_ns) {
        tm_lent_ns += now - tm_mount_ns;
        tm_mount_ns = 0;
    }
    void *p = NULL;
    if ((*j)->GetThreadLocalStorage(j, NULL, &p) == JVMTI_ERROR_NONE && p && ((hp_thread *)p)->tm)
        ((hp_thread *)p)->tm->off_start = now;
    hp_leave();
}

/* VirtualThreadMount, on the virtual thread once it runs on a carrier. */
static void JNICALL tm_on_mount(jvmtiEnv *j, JNIEnv *env, jthread vthread)
{
    (void)env;
    (void)vthread;
    int64_t now = hp_now_ns();
    if (hp_enter())
        return;
    tm_mount_ns = now;
    void *p = NULL;
    if ((*j)->GetThreadLocalStorage(j, NULL, &p) == JVMTI_ERROR_NONE && p && ((hp_thread *)p)->tm) {
        tm_stack *s = ((hp_thread *)p)->tm;
        if (s->off_start)
            s->off_ns += now - s->off_start;
        s->off_start = 0;
    }
    hp_leave();
}

void tm_capabilities(jvmtiCapabilities *want)
{
    want->can_generate_method_entry_events = 1;
    want->can_generate_method_exit_events = 1;
}

void tm_callbacks(jvmtiEventCallbacks *cb)
{
    cb->MethodEntry = tm_on_entry;
    cb->MethodExit = tm_on_exit;
}

int tm_start(jvmtiEnv *j)
{
    if (jx_report(j, (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_METHOD_ENTRY, NULL),
                  "SetEventNotificationMode(MethodEntry)") ||
        jx_report(j, (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_METHOD_EXIT, NULL),
                  "SetEventNotificationMode(MethodExit)"))
        return -1;
    vt_track_mounts(j, tm_on_mount, tm_on_unmount);
    return 0;
}

void tm_stop(jvmtiEnv *j)
{
    (*j)->SetEventNotificationMode(j, JVMTI_DISABLE, JVMTI_EVENT_METHOD_ENTRY, NULL);
    (*j)->SetEventNotificationMode(j, JVMTI_DISABLE, JVMTI_EVENT_METHOD_EXIT, NULL);
    vt_track_mounts(j, NULL, NULL);
}

static int tm_row_cmp(const void *a, const void *b)
{
    const hp_time_row *x = a, *y = b;
    if (x->self_ns != y->self_ns)
        return x->self_ns < y->self_ns ? 1 : -1;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    return x->trace->serial < y->trace->serial ? -1 : x->trace->serial > y->trace->serial;
}

hp_time_row *tm_take(uint32_t *n, uint64_t *total_ns)
{
    *n = 0;
    *total_ns = 0;
    /* under data_lock: traces being created are published before filled */
    jx_lock(g_hp.jvmti, g_hp.data_lock);
    uint32_t nt = trace_count();
    hp_time_row *rows = calloc(nt ? nt : 1, sizeof *rows);
    for (uint32_t i = 1; rows && i < nt; i++) {
        hp_trace *t = trace_at(i);
        /* exits add the times, then the call (release); a dump takes the
         * call first (acquire): the times of every call it takes are in */
        uint64_t c = __atomic_exchange_n(&t->tm_calls, 0, __ATOMIC_ACQUIRE);
        if (!c)
            continue;
        uint64_t self = __atomic_exchange_n(&t->tm_self_ns, 0, __ATOMIC_RELAXED);
        uint64_t total = __atomic_exchange_n(&t->tm_total_ns, 0, __ATOMIC_RELAXED);
        uint64_t wait = __atomic_exchange_n(&t->tm_wait_ns, 0, __ATOMIC_RELAXED);
        if (self > total)
            self = total; /* a call's times split over two dumps */
        rows[*n] = (hp_time_row){.trace = t, .calls = c, .self_ns = self, .total_ns = total, .wait_ns = wait};
        (*n)++;
        *total_ns += self;
    }
    jx_unlock(g_hp.jvmti, g_hp.data_lock);
    if (rows)
        qsort(rows, *n, sizeof *rows, tm_row_cmp);
    return rows;
}
