/*
 * listener.c: the net= connection and command listener (see listener.h).
 *
 * Owns g_hp.net_fd, the listener thread and its handshake (listener_lock,
 * listener_running, listener_stop_req), and the output's sink with its
 * send bound (lsn_sink; see listener.h). Every command runs inside the
 * callback gate (hp_enter), so none starts after VM death, and under
 * dump_lock, so a command and a dump never interleave their output.
 */
#include "listener.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "hc_net.h"
#include "hc_proto.h"
#include "heapdump.h"
#include "hsdump.h"
#include "hprof/hprof_format.h"
#include "hprof/hw_writer.h"
#include "jx.h"
#include "out.h"
#include "sampler.h"
#include "sites.h"
#include "threads.h"

/* ALLOC SITES flags go to the output as they came */
_Static_assert(HC_SITES_INCREMENTAL == HPROF_SITES_INCREMENTAL, "sites flag");
_Static_assert(HC_SITES_BY_ALLOC == HPROF_SITES_SORT_BY_ALLOC, "sites flag");
_Static_assert(HC_SITES_FORCE_GC == HPROF_SITES_FORCE_GC, "sites flag");

#define LSN_STOP_WAIT_MS 5000 /* bound on the stop handshake */
#define LSN_WAIT_STEP_MS 100
#define LSN_FLUSH_MS 500      /* output latency to the front end when idle */
#define LSN_DRAIN_MS 2000     /* at exit: how long the front end may take to close */
#define LSN_LOCAL_REFS 32     /* local references a command may make */

/* The output side of the socket (the sink's state). `sent` is touched only
 * by the sink's writes, which the writer serialises (its I/O thread);
 * the others are read by other threads. */
static struct {
    uint64_t sent;     /* bytes the connection took (the front end may not
                        * have read them all) */
    int64_t bound_end; /* lsn_bound_begin's deadline (ns), 0: none (atomic) */
    int failed;        /* errno of the sink's failure, reported (atomic) */
    int dropped;       /* the failure was the send bound: the front end was
                        * dropped, the socket shut down (atomic) */
} lsn;

int lsn_connect(void)
{
    char err[512];
    memset(&lsn, 0, sizeof lsn); /* a failed attach may be retried */
    g_hp.net_fd = hc_net_connect(g_hp.o.net_host, g_hp.o.net_port, err, sizeof err);
    if (g_hp.net_fd < 0) {
        hp_error("net=%s:%u: %s", g_hp.o.net_host, g_hp.o.net_port, err);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ the sink */

static int64_t lsn_bound_ns(void)
{
    return (int64_t)g_hp.o.net_timeout_s * 1000000000;
}

void lsn_bound_begin(void)
{
    __atomic_store_n(&lsn.bound_end, hp_now_ns() + lsn_bound_ns(), __ATOMIC_RELEASE);
}

void lsn_bound_end(void)
{
    __atomic_store_n(&lsn.bound_end, 0, __ATOMIC_RELEASE);
}

int lsn_failed(void)
{
    return __atomic_load_n(&lsn.failed, __ATOMIC_ACQUIRE);
}

/* The sink failed: says so once, with what was lost. Past the send bound
 * the front end is dropped: the socket is shut down both ways, so the
 * listener's read ends (it leaves quietly) and the front end sees the end
 * of the stream; lsn_stop closes it at exit. */
static void lsn_sink_failed(int e, size_t done, size_t len, int64_t waited_ns)
{
    if (e == ETIMEDOUT) {
        hp_error("net=%s:%u: the front end is not reading: %zu bytes waited %.1f s for room in "
                 "the connection; it is dropped: at most the first %llu bytes of the profile "
                 "reach it, the rest is lost (the program goes on)",
                 g_hp.o.net_host, g_hp.o.net_port, len - done, (double)waited_ns / 1e9,
                 (unsigned long long)lsn.sent);
        __atomic_store_n(&lsn.dropped, 1, __ATOMIC_RELEASE);
        shutdown(g_hp.net_fd, SHUT_RDWR);
    } else {
        hp_error("writing net=%s:%u failed: %s (after %llu bytes sent); the profile stops here",
                 g_hp.o.net_host, g_hp.o.net_port, strerror(e), (unsigned long long)lsn.sent);
    }
    __atomic_store_n(&lsn.failed, e, __ATOMIC_RELEASE);
}

/* The writer's sink write (out.c's writer, on its I/O thread): all of
 * `data` within the send bound from now, or within lsn_bound_begin's
 * deadline if that comes first. The waits are sliced so that a deadline
 * set while this write waits applies to it too. */
static int lsn_sink_write(void *ctx, const void *data, size_t len)
{
    (void)ctx;
    int e = lsn_failed();
    if (e)
        return e; /* the writer latches the first failure: not reached */
    const int64_t start = hp_now_ns(), own = start + lsn_bound_ns();
    const char *p = data;
    size_t done = 0;
    while (done < len) {
        int64_t end = own, bound = __atomic_load_n(&lsn.bound_end, __ATOMIC_ACQUIRE);
        if (bound && bound < end)
            end = bound;
        int64_t slice = hp_now_ns() + (int64_t)LSN_WAIT_STEP_MS * 1000000;
        size_t n = 0;
        e = hc_net_send_until(g_hp.net_fd, p + done, len - done, slice < end ? slice : end, &n);
        done += n;
        lsn.sent += n;
        if (e != ETIMEDOUT)
            break; /* all sent, or the connection failed */
        if (hp_now_ns() >= end)
            break; /* the bound passed */
        e = 0;
    }
    if (e)
        lsn_sink_failed(e, done, len, hp_now_ns() - start);
    return e;
}

hw_sink *lsn_sink(void)
{
    if (g_hp.net_fd < 0)
        return NULL;
    return hw_sink_custom(lsn_sink_write, NULL, NULL);
}

/* A refused or failed command: on stderr and back to the front end. */
static void lsn_refuse(const hc_cmd *c, const char *why)
{
    hp_error("net command %u (%s): %s", c->serial, hc_name(c), why);
    out_message("HPROF ERROR: command %u (%s): %s", c->serial, hc_name(c), why);
}

/* Applies CONTROL CPU ON/OFF to one thread (by serial or object id) or,
 * for id 0, to all: for all, the per-thread switches are reset. */
static void lsn_cpu(jvmtiEnv *j, JNIEnv *env, const hc_cmd *c)
{
    int on = c->control == HC_CTL_CPU_ON;
    if (on && g_hp.o.cpu != OPTS_CPU_SAMPLES) {
        if (g_hp.o.cpu != OPTS_CPU_OFF) {
            lsn_refuse(c, "CPU sampling does not go with cpu=times|old");
            return;
        }
        /* started on demand: from now on dumps include CPU SAMPLES; for one
         * thread, the others stay off */
        if (c->thread_id)
            __atomic_store_n(&g_hp.cpu_paused, 1, __ATOMIC_RELAXED);
        if (sampler_start(j, env) != 0) {
            lsn_refuse(c, "the CPU sampling thread could not be started");
            return;
        }
        g_hp.o.cpu = OPTS_CPU_SAMPLES;
    }
    if (c->thread_id == 0)
        __atomic_store_n(&g_hp.cpu_paused, !on, __ATOMIC_RELAXED);
    if ((*env)->PushLocalFrame(env, LSN_LOCAL_REFS) != 0)
        return;
    jint n = 0;
    jthread *ts = NULL;
    int found = 0;
    if (jx_report(j, (*j)->GetAllThreads(j, &n, &ts), "GetAllThreads") == JVMTI_ERROR_NONE) {
        if ((*env)->EnsureLocalCapacity(env, n + LSN_LOCAL_REFS) != 0) {
            (*env)->ExceptionClear(env); /* the OutOfMemoryError it leaves */
            jx_free(j, ts);
            (*env)->PopLocalFrame(env, NULL);
            lsn_refuse(c, "out of memory listing the threads");
            return;
        }
        for (jint i = 0; i < n; i++) {
            hp_thread *th = thr_other(j, env, ts[i]);
            if (!th)
                continue;
            if (c->thread_id == 0) {
                __atomic_store_n(&th->cpu_ctl, THR_CPU_DEFAULT, __ATOMIC_RELAXED);
                continue;
            }
            /* the id its THREAD START showed: its tag may have changed since */
            if (th->serial == c->thread_id || (th->obj_id && th->obj_id == c->thread_id)) {
                __atomic_store_n(&th->cpu_ctl, on ? THR_CPU_ON : THR_CPU_OFF, __ATOMIC_RELAXED);
                found = 1;
            }
        }
        jx_free(j, ts);
    }
    (*env)->PopLocalFrame(env, NULL);
    if (c->thread_id && !found) {
        char why[96];
        snprintf(why, sizeof why, "no live thread has serial or object id %llu",
                 (unsigned long long)c->thread_id);
        lsn_refuse(c, why);
    }
}

/* Turns allocation counting on, arming heap=sites if it was not given. */
static void lsn_alloc_on(jvmtiEnv *j, const hc_cmd *c)
{
    if (!g_hp.o.heap_sites) {
        if (jx_report(j, (*j)->SetHeapSamplingInterval(j, (jint)g_hp.sample_bytes),
                      "SetHeapSamplingInterval") ||
            jx_report(j, (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL),
                      "SetEventNotificationMode(SampledObjectAlloc)")) {
            lsn_refuse(c, "allocation tracking could not be started");
            return;
        }
        g_hp.o.heap_sites = 1;
        /* JVMTI applies the new interval to each thread at its next sample
         * point, as after an attach */
        out_message("HPROF NOTE: allocation tracking started by command %u: each thread is counted "
                    "exactly from its first sampled allocation on",
                    c->serial);
    }
    __atomic_store_n(&g_hp.alloc_on, 1, __ATOMIC_RELEASE);
}

static void lsn_exec(jvmtiEnv *j, JNIEnv *env, const hc_cmd *c)
{
    switch (c->tag) {
    case HC_FORCE_GC:
        if (g_hp.gc_no_force)
            lsn_refuse(c, "no GC is forced with ZGC or Shenandoah: it can hang the JVM's exit");
        else
            hp_gc(j);
        break;
    case HC_DUMP_HEAP:
        if (!g_hp.o.heap_dump) {
            lsn_refuse(c, "heap dumps need heap=dump or heap=all");
            break;
        }
        int counted = 0;
        if (hs_wanted())
            hs_dump(j, env); /* releases dump_lock across HotSpot's dump */
        else
            hd_dump(j, env, &counted);
        hp_refresh(j, 0, counted);
        hp_write_unloads();
        break;
    case HC_ALLOC_SITES:
        if (!g_hp.o.heap_sites) {
            lsn_refuse(c, "allocation sites need heap=sites or heap=all (or CONTROL ALLOC ON)");
            break;
        }
        hp_refresh(j, (c->flags & HC_SITES_FORCE_GC) != 0, 0);
        hp_write_unloads();
        hp_write_sites(j, c->flags, c->cutoff);
        break;
    case HC_HEAP_SUMMARY:
        if (!g_hp.o.heap_sites) {
            lsn_refuse(c, "the heap summary needs heap=sites or heap=all (or CONTROL ALLOC ON)");
            break;
        }
        hp_refresh(j, 0, 0);
        hp_write_summary(j);
        break;
    case HC_DUMP_TRACES:
        out_all_traces();
        break;
    case HC_CPU_SAMPLES:
        if (g_hp.o.cpu != OPTS_CPU_SAMPLES) {
            lsn_refuse(c, "CPU samples need cpu=samples (or CONTROL CPU ON)");
            break;
        }
        hp_write_samples(c->cutoff);
        break;
    case HC_CONTROL:
        switch (c->control) {
        case HC_CTL_ALLOC_ON:
            lsn_alloc_on(j, c);
            break;
        case HC_CTL_ALLOC_OFF:
            __atomic_store_n(&g_hp.alloc_on, 0, __ATOMIC_RELEASE);
            break;
        case HC_CTL_CPU_ON:
        case HC_CTL_CPU_OFF:
            if (c->control == HC_CTL_CPU_OFF && g_hp.o.cpu != OPTS_CPU_SAMPLES) {
                lsn_refuse(c, "CPU sampling is not on (cpu=samples, or CONTROL CPU ON)");
                break;
            }
            lsn_cpu(j, env, c);
            break;
        case HC_CTL_CLEAR_SAMPLES:
            if (g_hp.o.cpu != OPTS_CPU_SAMPLES) {
                lsn_refuse(c, "CPU sampling is not on (cpu=samples, or CONTROL CPU ON)");
                break;
            }
            sampler_clear();
            break;
        case HC_CTL_CLEAR_SITES: {
            if (!g_hp.o.heap_sites) {
                lsn_refuse(c, "allocation sites are not tracked (heap=sites|all, or CONTROL ALLOC ON)");
                break;
            }
            /* no counting while the old tags go: see site_clear */
            int was = __atomic_exchange_n(&g_hp.alloc_on, 0, __ATOMIC_ACQ_REL);
            if (site_clear(j) != 0)
                lsn_refuse(c, "the tracked objects could not be let go (HPROF ERROR above); the sites keep their counts");
            __atomic_store_n(&g_hp.alloc_on, was, __ATOMIC_RELEASE);
            break;
        }
        case HC_CTL_SET_DEPTH:
            if (g_hp.o.cpu == OPTS_CPU_OLD) {
                lsn_refuse(c, "cpu=old's layout is made for its own depth");
                break;
            }
            /* new traces get the new depth; traces already made keep theirs */
            __atomic_store_n(&g_hp.o.depth, (unsigned)c->depth, __ATOMIC_RELAXED);
            break;
        default:
            break;
        }
        break;
    default:
        break;
    }
    out_flush();
}

/* EXIT: System.exit(0) from this thread, outside the gate and every lock
 * (VM death runs here, in System.exit, and waits for the gate). Returns
 * only if the call could not be made. */
static void lsn_exit_vm(JNIEnv *env)
{
    jclass sys = (*env)->FindClass(env, "java/lang/System");
    jmethodID ex = sys ? (*env)->GetStaticMethodID(env, sys, "exit", "(I)V") : NULL;
    if (ex)
        (*env)->CallStaticVoidMethod(env, sys, ex, 0);
    if ((*env)->ExceptionCheck(env)) /* a SecurityManager may refuse */
        (*env)->ExceptionClear(env);
    hp_error("net command EXIT: System.exit(0) did not end the VM");
}

static void lsn_done(jvmtiEnv *j)
{
    jx_lock(j, g_hp.listener_lock);
    g_hp.listener_running = 0;
    (*j)->RawMonitorNotifyAll(j, g_hp.listener_lock);
    jx_unlock(j, g_hp.listener_lock);
}

static void JNICALL lsn_main(jvmtiEnv *j, JNIEnv *env, void *arg)
{
    hp_mark_agent_thread();
    (void)arg;
    thr_mark_agent(j, env);
    int commands = 1; /* until EOF: after it, input is only drained */
    for (;;) {
        hc_cmd c;
        char why[256];
        /* while no command comes, what events wrote (threads, classes)
         * still reaches the front end within LSN_FLUSH_MS */
        struct pollfd pfd = {.fd = g_hp.net_fd, .events = POLLIN};
        int pr = poll(&pfd, 1, LSN_FLUSH_MS);
        if (__atomic_load_n(&g_hp.listener_stop_req, __ATOMIC_ACQUIRE) ||
            __atomic_load_n(&lsn.dropped, __ATOMIC_ACQUIRE))
            break; /* stopping, or the front end was dropped (reported) */
        if (pr == 0 || (pr < 0 && errno == EINTR)) {
            if (pr == 0 && hp_enter() == 0) {
                out_flush();
                hp_leave();
            }
            continue;
        }
        if (!commands) {
            /* bytes after EOF are read and dropped: unread input would make
             * the final close a reset, which loses the output's tail */
            char sink[4096];
            ssize_t r = recv(g_hp.net_fd, sink, sizeof sink, 0);
            if (r > 0 || (r < 0 && errno == EINTR))
                continue;
            break;
        }
        hc_recv_status st = hc_net_recv_cmd(g_hp.net_fd, &c, why, sizeof why);
        if (__atomic_load_n(&g_hp.listener_stop_req, __ATOMIC_ACQUIRE) ||
            __atomic_load_n(&lsn.dropped, __ATOMIC_ACQUIRE))
            break; /* woken by lsn_stop's shutdown, or by the drop's */
        if (st == HC_RECV_BAD) {
            hp_error("net command %u skipped: %s", c.serial, why);
            out_message("HPROF ERROR: command %u skipped: %s", c.serial, why);
            out_flush();
            continue;
        }
        if (st == HC_RECV_EOF) {
            hp_info("HPROF: the front end sent EOF: no more commands; the profile still goes to net=%s:%u\n",
                    g_hp.o.net_host, g_hp.o.net_port);
            commands = 0;
            continue;
        }
        if (st == HC_RECV_CLOSED || st == HC_RECV_ERROR) {
            hp_error("net=%s:%u: the front end %s%s%s; the program goes on, its profile output "
                     "stops when the connection is gone",
                     g_hp.o.net_host, g_hp.o.net_port,
                     st == HC_RECV_CLOSED ? "closed the connection" : "connection failed",
                     why[0] ? ": " : "", why);
            break;
        }
        if (c.tag == HC_EXIT) {
            hp_info("HPROF: received EXIT (command %u), exiting ...\n", c.serial);
            lsn_done(j);
            lsn_exit_vm(env);
            return;
        }
        if (hp_enter())
            break; /* the VM is dying */
        jx_lock(j, g_hp.dump_lock);
        if (g_hp.dying) {
            /* VM death has begun (its final dump is under way or done):
             * nothing may switch a mode back on now */
            lsn_refuse(&c, "the VM is exiting");
        } else if ((*env)->PushLocalFrame(env, LSN_LOCAL_REFS) == 0) {
            lsn_exec(j, env, &c);
            (*env)->PopLocalFrame(env, NULL);
        }
        jx_unlock(j, g_hp.dump_lock);
        hp_leave();
    }
    lsn_done(j);
}

int lsn_start(jvmtiEnv *j, JNIEnv *env)
{
    if (g_hp.net_fd < 0 || !env)
        return -1;
    if (!g_hp.listener_lock && jx_raw_monitor(j, "hprof listener", &g_hp.listener_lock))
        return -1;
    return jx_agent_thread(j, env, "HPROF listener thread", lsn_main, JVMTI_THREAD_NORM_PRIORITY,
                           &g_hp.listener_running, "net= commands are ignored");
}

/* Waits (at most `ms` by the clock, however often the wait wakes early) for
 * the listener to leave. Returns 1 once it has. */
static int lsn_wait_done(jvmtiEnv *j, int ms)
{
    const int64_t end = hp_now_ns() + (int64_t)ms * 1000000;
    jx_lock(j, g_hp.listener_lock);
    while (g_hp.listener_running) {
        int64_t left = (end - hp_now_ns()) / 1000000;
        if (left <= 0)
            break;
        (*j)->RawMonitorWait(j, g_hp.listener_lock, left < LSN_WAIT_STEP_MS ? left : LSN_WAIT_STEP_MS);
    }
    int done = !g_hp.listener_running;
    jx_unlock(j, g_hp.listener_lock);
    return done;
}

void lsn_stop(jvmtiEnv *j)
{
    if (g_hp.net_fd < 0)
        return;
    __atomic_store_n(&g_hp.listener_stop_req, 1, __ATOMIC_RELEASE);
    /* FIN after the last output: the front end sees the stream end */
    shutdown(g_hp.net_fd, SHUT_WR);
    int done = 1;
    if (g_hp.listener_lock) {
        /* it notices within one poll; one blocked inside a command's bytes
         * is woken by shutting reading down too */
        done = lsn_wait_done(j, 2 * LSN_FLUSH_MS);
        if (!done) {
            shutdown(g_hp.net_fd, SHUT_RD);
            done = lsn_wait_done(j, LSN_STOP_WAIT_MS);
        }
        if (!done)
            hp_error("the net= listener thread did not stop in %d ms", LSN_STOP_WAIT_MS);
    }
    if (!done)
        return; /* it may still read the fd: leave it open */
    if (__atomic_load_n(&lsn.dropped, __ATOMIC_ACQUIRE)) {
        /* the stream is cut already: reset the connection, so the front end
         * learns at once and the kernel drops what it still held for it */
        struct linger lg = {.l_onoff = 1, .l_linger = 0};
        setsockopt(g_hp.net_fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        close(g_hp.net_fd);
        g_hp.net_fd = -1;
        return;
    }
    /* drain what the front end still sends until it closes (bounded):
     * closing with unread input would reset the connection and could
     * drop the output's tail at the front end */
    int64_t end = hp_now_ns() + (int64_t)LSN_DRAIN_MS * 1000000;
    for (;;) {
        int64_t left_ms = (end - hp_now_ns()) / 1000000;
        if (left_ms <= 0)
            break;
        struct pollfd pfd = {.fd = g_hp.net_fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)left_ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            break;
        char sink[4096];
        ssize_t r = recv(g_hp.net_fd, sink, sizeof sink, MSG_DONTWAIT);
        if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
            break;
    }
    close(g_hp.net_fd);
    g_hp.net_fd = -1;
}
