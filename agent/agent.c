/*
 * agent.c: libhprof.so's entry points and lifecycle: Agent_OnLoad (and
 * -Xrunhprof), Agent_OnAttach, the JVMTI callbacks, the callback gate, and
 * the dump sequence (SIGQUIT, jcmd JVMTI.data_dump, VM death).
 *
 * Owns g_hp, the agent's only global. Lock order and tag layout: agent.h.
 * The allocation callback (SampledObjectAlloc with interval 0: every
 * allocation) is the hot path: one GetStackTrace, a lookup in a per-thread
 * cache checked with IsSameObject, one atomic add, then one SetTag
 * (heap=all) or one NewWeakGlobalRef kept in the thread's own list
 * (heap=sites alone: wlive.h); agent locks (and GetTag) only on a miss. The
 * only locks a hit takes are the JVM's leaves inside those two calls.
 */
#include "agent.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "classes.h"
#include "heapdump.h"
#include "hsdump.h"
#include "hprof/hprof_format.h"
#include "jx.h"
#include "listener.h"
#include "monitors.h"
#include "names.h"
#include "out.h"
#include "sampler.h"
#include "sites.h"
#include "threads.h"
#include "timing.h"
#include "traces.h"
#include "vthreads.h"

hp_agent g_hp;

#define HP_MAX_STACK_ON_STACK 256 /* deeper traces use the heap */
#define HP_TCACHE_SIZE 256        /* per-thread site cache entries */

/* hp_info left a line open ("Dumping ... "): an error starts a new one */
static volatile int hp_line_open;

void hp_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    flockfile(stderr); /* one line, even with several threads reporting */
    if (__atomic_exchange_n(&hp_line_open, 0, __ATOMIC_RELAXED))
        fputc('\n', stderr);
    fputs("HPROF ERROR: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
    va_end(ap);
}

void hp_info(const char *fmt, ...)
{
    if (!g_hp.o.verbose)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    fputs(line, stderr);
    size_t len = strlen(line);
    __atomic_store_n(&hp_line_open, line[len - 1] != '\n', __ATOMIC_RELAXED);
}

/* ----------------------------------------------------------- hot path */

/* The gate shard of this thread: threads take shards round-robin at their
 * first callback. */
static __thread int *hp_gate_slot;

int *hp_gate_shard_of_thread(void)
{
    int *n = hp_gate_slot;
    if (!n) {
        unsigned i = __atomic_fetch_add(&g_hp.gate_next, 1, __ATOMIC_RELAXED) % HP_GATE_SHARDS;
        n = hp_gate_slot = &g_hp.active[i].n;
    }
    return n;
}

/* Callbacks in flight, all shards (VM death, after closing the gate). */
static int hp_gate_count(void)
{
    int sum = 0;
    for (int i = 0; i < HP_GATE_SHARDS; i++)
        sum += __atomic_load_n(&g_hp.active[i].n, __ATOMIC_SEQ_CST);
    return sum;
}

/* Per OS thread (carrier threads included): recently used sites. A hit is
 * verified against the site itself, so the cache can never give a wrong
 * site, only miss. */
typedef struct hp_tcache_entry {
    uint64_t key;
    hp_site *site;
} hp_tcache_entry;

static __thread hp_tcache_entry hp_tcache[HP_TCACHE_SIZE];

/* Set on the main thread while hp_warm_up runs: its allocations only arm
 * the sampler and are not counted; the callback sets `seen`. */
static __thread struct { int active, seen; } hp_warm;

/* The class of an allocation, without the cache: its mirror's tag (the tag
 * map's lock), or registration. */
static hp_class *hp_class_of(jvmtiEnv *j, jclass klass)
{
    jlong ktag = 0;
    if ((*j)->GetTag(j, klass, &ktag) == JVMTI_ERROR_NONE && HP_TAG_IS_CLASS(ktag))
        return cls_at((uint32_t)(ktag & 0xFFFFFFFFu));
    return cls_get(j, klass);
}

/* The site of an allocation. The per-thread cache is keyed by the trace
 * and the size only: the class of a cached site is checked against the
 * allocation's with IsSameObject on the class's weak ref (classes.h), so a
 * hit takes no lock at all. A trace that allocates objects of several
 * classes of one size (reflection, Array.newInstance) shares one entry and
 * goes the slow way when the class changes. */
/* Set on the agent's own threads (sampler, listener), and on any thread
 * while it runs a dump (hp_dump): their long-lived JNI
 * frames hold many local refs (thread lists, classes of frames being
 * resolved), and -Xcheck:jni counts the refs of every frame of the thread
 * against the capacity of the callback's own frame (32) at each JNI call: an
 * IsSameObject in an allocation callback on such a thread printed "JNI local
 * refs: 600, exceeds capacity: 32". Their allocations (few) go the slow way,
 * which calls JVMTI only, but for heap=sites' weak reference, taken inside
 * a local frame of its own (hp_on_alloc). */
static __thread int hp_agent_thread;

void hp_mark_agent_thread(void)
{
    hp_agent_thread = 1;
}

static hp_site *hp_site_for(jvmtiEnv *j, JNIEnv *env, jclass klass, const jvmtiFrameInfo *fr,
                            jint n, uint32_t tser, uint64_t size)
{
    uint64_t h = trace_hash(fr, n, tser);
    if (hp_agent_thread) {
        hp_class *c = hp_class_of(j, klass);
        hp_trace *t = c ? trace_get(j, fr, n, tser, h) : NULL;
        return t ? site_get(j, c, t, size) : NULL;
    }
    uint64_t key = (h ^ (size * 0x9e3779b97f4a7c15ULL)) | 1;
    hp_tcache_entry *e = &hp_tcache[(key >> 7) & (HP_TCACHE_SIZE - 1)];
    if (e->key == key && e->site->size == size && trace_equals(e->site->trace, fr, n, tser)) {
        jweak w = __atomic_load_n(&e->site->cls->ref, __ATOMIC_ACQUIRE);
        if (w && (*env)->IsSameObject(env, klass, w))
            return e->site;
    }
    hp_class *c = hp_class_of(j, klass);
    if (!c)
        return NULL;
    if (!__atomic_load_n(&c->ref, __ATOMIC_ACQUIRE)) {
        jweak w = (*env)->NewWeakGlobalRef(env, klass);
        jweak none = NULL;
        if (w && !__atomic_compare_exchange_n(&c->ref, &none, w, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
            (*env)->DeleteWeakGlobalRef(env, w); /* another thread's came first */
    }
    hp_trace *t = trace_get(j, fr, n, tser, h);
    hp_site *s = t ? site_get(j, c, t, size) : NULL;
    if (s && __atomic_load_n(&c->ref, __ATOMIC_ACQUIRE)) {
        e->key = key;
        e->site = s;
    }
    return s;
}

static void JNICALL hp_on_alloc(jvmtiEnv *j, JNIEnv *env, jthread thread, jobject object,
                                jclass klass, jlong size)
{
    if (hp_enter())
        return;
    if (hp_warm.active) {
        hp_warm.seen = 1;
        goto out;
    }
    if (!__atomic_load_n(&g_hp.alloc_on, __ATOMIC_RELAXED))
        goto out;
    /* X= (debug): bits switch parts of this path off, to measure their cost
     * (bench/): 1 = all but the event itself, 2 = the object's tracking
     * (SetTag, or heap=sites' weak reference), 4 = GetStackTrace */
    uint64_t x = g_hp.o.experiment;
    if (x & 1)
        goto out;
    jvmtiFrameInfo onstack[HP_MAX_STACK_ON_STACK];
    jvmtiFrameInfo *fr = onstack;
    /* read once: a net= command may change it meanwhile */
    jint depth = (jint)__atomic_load_n(&g_hp.o.depth, __ATOMIC_RELAXED), n = 0;
    if (depth > HP_MAX_STACK_ON_STACK) {
        /* deep traces: one buffer per thread, kept (never freed: threads
         * are few next to allocations, and a free here would race nothing) */
        static __thread jvmtiFrameInfo *deep;
        static __thread jint deep_cap;
        if (deep_cap < depth) {
            jvmtiFrameInfo *nd = realloc(deep, sizeof *deep * (size_t)depth);
            if (!nd)
                goto out;
            deep = nd;
            deep_cap = depth;
        }
        fr = deep;
    }
    if (depth > 0 && !(x & 4) && (*j)->GetStackTrace(j, thread, 0, depth, fr, &n) != JVMTI_ERROR_NONE)
        n = 0;
    uint32_t tser = 0;
    if (g_hp.o.thread) {
        hp_thread *th = thr_get(j, env, thread);
        tser = th ? thr_serial_own(j, thread, th) : 0;
    }
    hp_site *s = hp_site_for(j, env, klass, fr, n, tser, (uint64_t)size);
    if (s) {
        jlong tag = (jlong)site_alloc(s);
        if (x & 2)
            ; /* measured without it */
        else if (wlive_on()) { /* heap=sites: no tag map (wlive.h) */
            /* an agent thread's frame (or a dump's) may hold many local
             * refs, which -Xcheck:jni would count against the callback's
             * capacity at each JNI call: a frame of its own (rule 8) */
            if (!hp_agent_thread) {
                wlive_track(env, object, s->index);
            } else if ((*env)->PushLocalFrame(env, 8) == 0) {
                wlive_track(env, object, s->index);
                (*env)->PopLocalFrame(env, NULL);
            } else {
                (*env)->ExceptionClear(env);
            }
        } else
            (*j)->SetTag(j, object, tag);
    }
out:
    hp_leave();
}

/* -------------------------------------------------------------- events */

static void JNICALL hp_on_class_prepare(jvmtiEnv *j, JNIEnv *env, jthread thread, jclass klass)
{
    (void)env;
    (void)thread;
    if (hp_enter())
        return;
    cls_get(j, klass);
    hp_leave();
}

static void hp_exit_gc(jvmtiEnv *j);

static void JNICALL hp_on_thread_start(jvmtiEnv *j, JNIEnv *env, jthread thread)
{
    if (hp_enter())
        return;
    if (g_hp.exit_hook && (*env)->IsSameObject(env, thread, g_hp.exit_hook)) {
        __atomic_store_n(&g_hp.exiting, 1, __ATOMIC_RELEASE); /* see hp_exit_hook */
        hp_exit_gc(j);
    }
    thr_get(j, env, thread);
    hp_leave();
}

/* ZGC and Shenandoah, recognised by their own threads (named by HotSpot:
 * "ZDirector", "Shenandoah Control..." as /proc shows them): a GC forced
 * while the JVM exits waits for their stopped control thread forever, also
 * one forced just before the exit began (seen: a SIGQUIT dump's GC, then
 * System.exit, 3 of 8 runs on JDK 17 with ZGC). The agent forces none with
 * them; live counts are then those of the collector's last cycle. */
static int hp_gc_cannot_force(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d)) != NULL) {
        char path[64], name[32] = "";
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%.20s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(name, sizeof name, f))
            found = strncmp(name, "ZDirector", 9) == 0 || strncmp(name, "Shenandoah", 10) == 0;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

/* HotSpot stops the ZGC and Shenandoah control threads (before_exit) some
 * time before it posts VMDeath; a forced GC after that waits forever, and so
 * would VM death, behind the dump that asked for it. JVMTI says nothing at
 * that point, but the shutdown hooks run just before it: a hook of ours, a
 * Thread that does nothing, starts then, and its ThreadStart turns forced
 * GCs off (g_hp.exiting). Runtime.halt skips hooks: VM death then does. */
static void hp_exit_hook(JNIEnv *env)
{
    if (!env || (*env)->PushLocalFrame(env, 16) != 0)
        return;
    /* -Xcheck:jni: every call that may throw is checked before the next */
    jclass tc = (*env)->FindClass(env, "java/lang/Thread");
    jclass rc = tc ? (*env)->FindClass(env, "java/lang/Runtime") : NULL;
    jmethodID init = rc ? (*env)->GetMethodID(env, tc, "<init>", "(Ljava/lang/String;)V") : NULL;
    jmethodID get = init ? (*env)->GetStaticMethodID(env, rc, "getRuntime", "()Ljava/lang/Runtime;") : NULL;
    jmethodID add = get ? (*env)->GetMethodID(env, rc, "addShutdownHook", "(Ljava/lang/Thread;)V") : NULL;
    jstring name = add ? (*env)->NewStringUTF(env, "HPROF exit hook") : NULL;
    jobject t = name ? (*env)->NewObject(env, tc, init, name) : NULL;
    jobject rt = NULL;
    if (t && !(*env)->ExceptionCheck(env))
        rt = (*env)->CallStaticObjectMethod(env, rc, get);
    jobject gt = NULL;
    if (rt && !(*env)->ExceptionCheck(env) && (gt = (*env)->NewGlobalRef(env, t)) != NULL) {
        g_hp.exit_hook = gt; /* before the hook can start */
        (*env)->CallVoidMethod(env, rt, add, t);
        if ((*env)->ExceptionCheck(env)) { /* shutting down already */
            g_hp.exit_hook = NULL;
            (*env)->DeleteGlobalRef(env, gt);
        }
    }
    if ((*env)->ExceptionCheck(env)) /* not found, out of memory, shutting down */
        (*env)->ExceptionClear(env);
    if (!g_hp.exit_hook && (g_hp.o.heap_sites || g_hp.o.heap_dump))
        hp_info("HPROF: no shutdown hook: a dump at the very end may wait for a stopped collector\n");
    (*env)->PopLocalFrame(env, NULL);
}

static void JNICALL hp_on_thread_end(jvmtiEnv *j, JNIEnv *env, jthread thread)
{
    if (hp_enter())
        return;
    thr_end(j, env, thread);
    wlive_thread_end();
    hp_leave();
}

/* The rows and totals of every site; in sampled mode (sample=BYTES) each
 * sample stands for about sample_bytes / size objects, so rows and totals
 * become estimates. With `changed_only`, only the rows changed since the
 * last marked output are kept (a (class, trace) row whole when any of its
 * sites changed); the totals still cover every row. */
static hp_site_row *hp_site_rows(jvmtiEnv *j, uint32_t *n, uint64_t tot[4], int flags,
                                 int changed_only)
{
    hp_site_row *rows = site_rows(j, n, tot, flags);
    if (!rows) {
        hp_error("out of memory collecting allocation sites");
        return NULL;
    }
    if (g_hp.sample_bytes) {
        memset(tot, 0, 4 * sizeof tot[0]);
        for (uint32_t i = 0; i < *n; i++) {
            hp_site_row *r = &rows[i];
            uint64_t size = r->alloc_n ? r->alloc_bytes / r->alloc_n : 0;
            uint64_t w = size && size < g_hp.sample_bytes ? g_hp.sample_bytes / size : 1;
            r->alloc_samples = r->alloc_n;
            r->live_samples = r->live_n;
            r->live_n *= w;
            r->live_bytes *= w;
            r->alloc_n *= w;
            r->alloc_bytes *= w;
            tot[0] += r->live_bytes;
            tot[1] += r->live_n;
            tot[2] += r->alloc_bytes;
            tot[3] += r->alloc_n;
        }
    }
    if (changed_only) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < *n; i++)
            if (rows[i].changed)
                rows[k++] = rows[i];
        *n = k;
    }
    return rows;
}

void hp_write_sites(jvmtiEnv *j, uint16_t flags, double cutoff)
{
    uint32_t n = 0;
    uint64_t tot[4];
    hp_site_row *rows = hp_site_rows(j, &n, tot, SITE_ROWS_MARK, (flags & HPROF_SITES_INCREMENTAL) != 0);
    if (!rows)
        return;
    /* the flag says what happened: a GC forced before the counts */
    flags = (uint16_t)(g_hp.live_fresh ? flags | HPROF_SITES_FORCE_GC : flags & ~HPROF_SITES_FORCE_GC);
    out_sites_opts so = {.flags = flags, .cutoff = cutoff, .sample_bytes = g_hp.sample_bytes,
                         .live_note = g_hp.live_note[0] ? g_hp.live_note : NULL};
    out_sites(rows, n, tot, &so);
    free(rows);
}

void hp_write_summary(jvmtiEnv *j)
{
    uint32_t n = 0;
    uint64_t tot[4];
    hp_site_row *rows = hp_site_rows(j, &n, tot, 0, 0);
    if (!rows)
        return;
    free(rows);
    out_heap_summary(tot);
}

void hp_write_samples(double cutoff)
{
    uint32_t n = 0;
    uint64_t total = 0;
    hp_cpu_row *rows = sampler_take(&n, &total);
    if (rows)
        out_cpu_samples(rows, n, total, cutoff);
    else
        hp_error("out of memory collecting CPU samples");
    free(rows);
}

/* The forced GC itself; records what the live counts of the next scan
 * mean (agent.h: gc_seq...). Caller holds dump_lock. */
static int hp_force_gc(jvmtiEnv *j, int at_exit)
{
    time_t t = time(NULL);
    uint64_t before = site_alloc_total(); /* later ones may be dead, yet counted */
    if (jx_report(j, (*j)->ForceGarbageCollection(j), "ForceGarbageCollection") != JVMTI_ERROR_NONE)
        return 0;
    g_hp.gc_time = t;
    g_hp.gc_allocs = before;
    g_hp.exit_gc = at_exit;
    g_hp.gc_seq++;
    return 1;
}

int hp_gc(jvmtiEnv *j)
{
    if (g_hp.gc_no_force || __atomic_load_n(&g_hp.exiting, __ATOMIC_ACQUIRE))
        return 0;
    return hp_force_gc(j, 0);
}

/* The last GC that can be forced safely before the exit output: our
 * shutdown hook starts with the program's hooks, before HotSpot stops any
 * collector (before_exit), and the exit waits for the hooks, so this GC
 * always ends (G1, Parallel, Serial; never with ZGC or Shenandoah, see
 * hp_gc_cannot_force). The final dump at VM death then scans the heap it
 * left: live counts are exact unless something allocated after it (other
 * hooks, daemon threads), which the output then says. Runtime.halt runs
 * no hook: no GC, and the output says that too. Runs on the hook thread,
 * under dump_lock (VM death waits for it there, as for any dump). */
static void hp_exit_gc(jvmtiEnv *j)
{
    /* heap=dump: HotSpot's dump at VM death asks for no GC (hsdump.h) */
    if (!(g_hp.o.heap_sites || hs_wanted()) || !g_hp.o.doe || g_hp.gc_no_force)
        return;
    jx_lock(j, g_hp.dump_lock);
    if (!g_hp.dying)
        hp_force_gc(j, 1);
    jx_unlock(j, g_hp.dump_lock);
}

/* Sets live_fresh and live_note for the scan just made. */
static void hp_live_note(void)
{
    char when[32] = "";
    if (g_hp.gc_time) {
        struct tm tm;
        localtime_r(&g_hp.gc_time, &tm);
        strftime(when, sizeof when, "%H:%M:%S", &tm);
    }
    const char *tail = "objects not yet collected count as live";
    g_hp.live_fresh = g_hp.gc_seq != g_hp.scan_seq;
    g_hp.scan_seq = g_hp.gc_seq;
    g_hp.live_note[0] = 0;
    if (g_hp.live_fresh) {
        uint64_t after = site_alloc_total() - g_hp.gc_allocs;
        /* within one dump a few ms pass between GC and scan: the objects
         * allocated then are as good as live. At exit, whole hooks may. */
        if (g_hp.exit_gc && after) /* sample=BYTES counts samples, not objects */
            snprintf(g_hp.live_note, sizeof g_hp.live_note,
                     "live as of the GC forced when the exit began at %s: %llu %s%s allocated "
                     "after it count%s as live", when, (unsigned long long)after,
                     g_hp.sample_bytes ? "sampled object" : "object", after == 1 ? "" : "s",
                     after == 1 ? "s" : "");
        return;
    }
    if (g_hp.gc_no_force)
        snprintf(g_hp.live_note, sizeof g_hp.live_note,
                 "live not exact: no GC is forced with ZGC or Shenandoah: %s", tail);
    else if (g_hp.gc_time)
        snprintf(g_hp.live_note, sizeof g_hp.live_note,
                 "live not exact: no GC forced since %s%s: %s", when,
                 __atomic_load_n(&g_hp.exiting, __ATOMIC_ACQUIRE) ? " and the JVM is exiting" : "",
                 tail);
    else
        snprintf(g_hp.live_note, sizeof g_hp.live_note,
                 "live not exact: no GC forced before this output%s: %s",
                 __atomic_load_n(&g_hp.exiting, __ATOMIC_ACQUIRE) ? " as the JVM exits" : "", tail);
}

void hp_refresh(jvmtiEnv *j, int gc, int counted)
{
    if (gc && (g_hp.o.heap_sites || g_hp.o.heap_dump))
        hp_gc(j);
    JNIEnv *env = NULL;
    (*g_hp.vm)->GetEnv(g_hp.vm, (void **)&env, JNI_VERSION_1_8);
    cls_scan_loaded(j, env);
    if (g_hp.o.heap_sites && (counted || site_scan(j) == 0))
        hp_live_note();
}


void hp_write_unloads(void)
{
    uint32_t n = cls_count();
    for (uint32_t i = 1; i < n; i++) {
        hp_class *c = cls_at(i);
        if (__atomic_load_n(&c->unloaded, __ATOMIC_RELAXED))
            out_unload_class(c);
    }
}

/* The dump sequence: sites (heap=sites|all), then CPU samples since the
 * previous dump (cpu=samples). Serialised by dump_lock. */
static void hp_dump_body(jvmtiEnv *j, const char *why)
{
    static const char *const cpu_what[] = {
        [OPTS_CPU_OFF] = "",
        [OPTS_CPU_SAMPLES] = " CPU usage by sampling running threads",
        [OPTS_CPU_TIMES] = " CPU usage by timing methods",
        [OPTS_CPU_OLD] = " CPU usage in old prof format",
    };
    jx_lock(j, g_hp.dump_lock);
    hs_wait_idle(j); /* a HotSpot dump of the listener's ends first */
    hp_info("Dumping (%s)%s%s%s%s ...", why, g_hp.o.monitor ? " contended monitor usage" : "",
            g_hp.o.heap_dump ? " Java heap" : "", g_hp.o.heap_sites ? " allocation sites" : "",
            cpu_what[g_hp.o.cpu]);
    if (g_hp.o.monitor) {
        JNIEnv *env = NULL;
        (*g_hp.vm)->GetEnv(g_hp.vm, (void **)&env, JNI_VERSION_1_8);
        hp_mon_dump d;
        if (mon_collect(j, env, &d) == 0)
            out_monitor_dump(&d);
        mon_dump_free(&d);
        uint32_t n = 0;
        uint64_t total = 0;
        hp_mon_row *rows = mon_take(&n, &total);
        if (rows)
            out_monitor_time(rows, n, total, g_hp.o.cutoff);
        else
            hp_error("out of memory collecting monitor contention");
        free(rows);
    }
    if (g_hp.o.heap_dump) {
        JNIEnv *env = NULL;
        (*g_hp.vm)->GetEnv(g_hp.vm, (void **)&env, JNI_VERSION_1_8);
        int counted = 0;
        if (hs_wanted())
            hs_dump(j, env); /* HotSpot's dumper (releases dump_lock meanwhile) */
        else
            hd_dump(j, env, &counted); /* forces a GC first, and leaves out unloaded classes */
        int64_t t0 = hp_now_ns();
        hp_refresh(j, 0, counted);
        if (g_hp.o.heap_sites) /* heap=all: a heap scan, unless the walk counted */
            hp_info(" (live counts: %s, %.3f s)", counted ? "from the heap walk" : "heap scan",
                    (double)(hp_now_ns() - t0) / 1e9);
    } else {
        hp_refresh(j, 1, 0);
    }
    hp_write_unloads();
    if (g_hp.o.heap_sites)
        hp_write_sites(j, 0, g_hp.o.cutoff);
    if (g_hp.o.cpu == OPTS_CPU_SAMPLES)
        hp_write_samples(g_hp.o.cutoff);
    if (g_hp.o.cpu == OPTS_CPU_TIMES || g_hp.o.cpu == OPTS_CPU_OLD) {
        uint32_t n = 0;
        uint64_t total = 0;
        hp_time_row *rows = tm_take(&n, &total);
        if (!rows)
            hp_error("out of memory collecting method times");
        else if (g_hp.o.cpu == OPTS_CPU_TIMES)
            out_cpu_times(rows, n, total, g_hp.o.cutoff);
        else
            out_cpu_old(rows, n);
        free(rows);
    }
    out_flush();
    hp_info(" done.\n");
    jx_unlock(j, g_hp.dump_lock);
}

/* A dump runs on the thread that asked for it (SIGQUIT's, jcmd's, VM
 * death's), whose frames then hold many local refs (a heap dump's walk):
 * allocations it makes meanwhile go the slow way, without JNI, like the
 * agent threads' (hp_mark_agent_thread). */
static void hp_dump(jvmtiEnv *j, const char *why)
{
    int was = hp_agent_thread;
    hp_agent_thread = 1;
    hp_dump_body(j, why);
    hp_agent_thread = was;
}

static void JNICALL hp_on_data_dump(jvmtiEnv *j)
{
    if (hp_enter())
        return;
    if (__atomic_load_n(&g_hp.exiting, __ATOMIC_ACQUIRE)) {
        hp_leave(); /* the final dump is under way or done */
        return;
    }
    if (hs_wanted() && hs_own_quit(j)) {
        /* the SIGQUIT the agent sent to start the attach listener, which
         * came up meanwhile (hsdump.h): no one asked for a dump */
        hp_info("HPROF: a SIGQUIT within seconds of the agent's own (which started the JVM's attach listener) taken for it: no dump\n");
        hp_leave();
        return;
    }
    /* jcmd JVMTI.data_dump runs on the attach listener: a dump of
     * HotSpot's in progress must not wait for it (hsdump.h) */
    int on_listener = hs_wanted() && hs_on_listener(j);
    if (on_listener)
        __atomic_add_fetch(&g_hp.hs.listener_waits, 1, __ATOMIC_SEQ_CST);
    hp_dump(j, "data dump request");
    if (on_listener)
        __atomic_sub_fetch(&g_hp.hs.listener_waits, 1, __ATOMIC_SEQ_CST);
    hp_leave();
}

/* HotSpot arms each thread's allocation sampler with the interval in force
 * when the thread was created, and re-reads the interval only when the
 * sampler next fires. The main thread exists before Agent_OnLoad, so on
 * JDK 17 it would go uncounted for its first ~512 KiB (random) of
 * allocation. VMInit runs on the main thread: allocate throwaway arrays
 * until one is sampled, after which every allocation is. Small arrays, so
 * that a tiny -Xmx never sees an OutOfMemoryError. */
#define HP_WARM_CHUNK (128 * 1024)
#define HP_WARM_MAX_CHUNKS 256 /* 32 MiB: P(no sample) ~ e^-64 at 512 KiB */

static void hp_warm_up(JNIEnv *env)
{
    if (!env)
        return;
    hp_warm.active = 1;
    hp_warm.seen = 0;
    for (int i = 0; i < HP_WARM_MAX_CHUNKS && !hp_warm.seen; i++) {
        jbyteArray a = (*env)->NewByteArray(env, HP_WARM_CHUNK);
        if ((*env)->ExceptionCheck(env)) {
            (*env)->ExceptionClear(env);
            break;
        }
        (*env)->DeleteLocalRef(env, a);
    }
    hp_warm.active = 0;
    if (!hp_warm.seen)
        hp_error("the main thread's allocation sampler could not be armed; its first "
                 "allocations may go uncounted");
}

/* Registers what existed before the agent could see events: loaded classes
 * and running threads. Then allocation counting starts. */
static void hp_start_live(jvmtiEnv *j, JNIEnv *env)
{
    /* events first, enumeration second: a class or thread that appears in
     * between is then seen by its event (registration is idempotent) */
    static const jvmtiEvent live_events[] = {
        JVMTI_EVENT_CLASS_PREPARE, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END,
        JVMTI_EVENT_DATA_DUMP_REQUEST, JVMTI_EVENT_VM_DEATH};
    for (size_t i = 0; i < sizeof live_events / sizeof live_events[0]; i++)
        jx_report(j, (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, live_events[i], NULL),
                  "SetEventNotificationMode");
    jint n = 0;
    jclass *ks = NULL;
    /* GetLoadedClasses makes one local ref per class: make room for them
     * (-Xcheck:jni checks the frame's capacity) and drop them together */
    int framed = env && (*env)->PushLocalFrame(env, 64) == 0;
    if (jx_report(j, (*j)->GetLoadedClasses(j, &n, &ks), "GetLoadedClasses") == JVMTI_ERROR_NONE) {
        if (env && n > 0)
            (*env)->EnsureLocalCapacity(env, n + 64);
        for (jint i = 0; i < n; i++) {
            cls_get(j, ks[i]);
        }
        jx_free(j, ks);
    }
    if (framed)
        (*env)->PopLocalFrame(env, NULL);
    vt_start(j, env); /* before any thread is registered: it tells virtual ones */
    thr_register_all(j, env);
    hp_exit_hook(env);
    g_hp.gc_no_force = hp_gc_cannot_force();
    if (g_hp.gc_no_force && (g_hp.o.heap_sites || g_hp.o.heap_dump))
        hp_info("HPROF: ZGC or Shenandoah: no GC is forced before a dump (it can hang the JVM's "
                "exit); live counts are as of the collector's last cycle\n");
    __atomic_store_n(&g_hp.alloc_on, g_hp.o.heap_sites ? 1 : 0, __ATOMIC_RELEASE);
    if (g_hp.o.cpu == OPTS_CPU_SAMPLES)
        sampler_start(j, env);
    if (g_hp.o.cpu == OPTS_CPU_TIMES || g_hp.o.cpu == OPTS_CPU_OLD)
        tm_start(j);
    if (g_hp.o.monitor)
        mon_start(j);
    /* ZGC, Shenandoah: a dump at VM death cannot prepare itself then
     * (hsdump.h); other collectors' dumps do at their first */
    if (hs_wanted() && g_hp.gc_no_force)
        hs_init(env);
    if (g_hp.net_fd >= 0)
        lsn_start(j, env);
    if (g_hp.o.heap_sites) {
        jx_report(j, (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL),
                  "SetEventNotificationMode(SampledObjectAlloc)");
        /* at VMInit this is the main thread (an attach thread is new) */
        if (!g_hp.attached && g_hp.sample_bytes == 0)
            hp_warm_up(env);
    }
}

static void JNICALL hp_on_vm_init(jvmtiEnv *j, JNIEnv *env, jthread thread)
{
    (void)thread;
    hp_start_live(j, env);
}

static void JNICALL hp_on_vm_death(jvmtiEnv *j, JNIEnv *env)
{
    /* first, before waiting for anything: from now on no forced GC (the
     * collector may be stopped already) and no other dump */
    __atomic_store_n(&g_hp.exiting, 1, __ATOMIC_RELEASE);
    /* under dump_lock: a net= command running now finishes first, and none
     * after this may switch counting or sampling back on */
    jx_lock(j, g_hp.dump_lock);
    g_hp.dying = 1;
    __atomic_store_n(&g_hp.alloc_on, 0, __ATOMIC_RELEASE);
    jx_unlock(j, g_hp.dump_lock);
    sampler_stop(j); /* its last samples are in the final dump */
    if (g_hp.o.cpu == OPTS_CPU_TIMES || g_hp.o.cpu == OPTS_CPU_OLD)
        tm_stop(j); /* the dump's own Java calls are not the program's */
    if (g_hp.o.doe)
        hp_dump(j, "VM death");
    jx_lock(j, g_hp.dump_lock); /* a listener's HotSpot dump, even with doe=n */
    hs_wait_idle(j);
    jx_unlock(j, g_hp.dump_lock);
    hs_cleanup(env);
    if (g_hp.o.monitor)
        mon_stop(j); /* after the dump: waits that end meanwhile are shown */
    if (vt_records()) /* records of virtual threads are freed at their end: shown, and tested */
        hp_info("HPROF: %llu virtual thread records alive at exit\n", (unsigned long long)thr_vt_live());
    /* close the gate, then wait for callbacks still running */
    __atomic_store_n(&g_hp.dead, 1, __ATOMIC_SEQ_CST);
    while (hp_gate_count() > 0) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    static const jvmtiEvent all[] = {
        JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, JVMTI_EVENT_CLASS_PREPARE,
        JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END, JVMTI_EVENT_DATA_DUMP_REQUEST};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        (*j)->SetEventNotificationMode(j, JVMTI_DISABLE, all[i], NULL);
    vt_stop(j);
    out_close();
    lsn_stop(j); /* after the last output went down the socket */
}

/* ------------------------------------------------------------ loading */

static int hp_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int hp_init_jvmti(jvmtiEnv *j)
{
    jvmtiCapabilities want;
    memset(&want, 0, sizeof want);
    want.can_tag_objects = 1;
    want.can_generate_sampled_object_alloc_events = 1;
    want.can_get_source_file_name = 1;
    want.can_get_line_numbers = 1;
    jvmtiCapabilities pot;
    memset(&pot, 0, sizeof pot);
    /* cpu=samples asks whether a thread really ran through its CPU clock;
     * without one it falls back to the thread state */
    if ((*j)->GetPotentialCapabilities(j, &pot) == JVMTI_ERROR_NONE)
        want.can_get_thread_cpu_time = pot.can_get_thread_cpu_time;
    vt_capabilities(&pot, &want); /* JDK 21+: virtual threads' stacks and ends */
    /* the costly capabilities only when their mode is asked for; HotSpot
     * offers the method and monitor events only at start-up */
    if (g_hp.o.cpu == OPTS_CPU_TIMES || g_hp.o.cpu == OPTS_CPU_OLD) {
        tm_capabilities(&want);
        if (!pot.can_generate_method_entry_events || !pot.can_generate_method_exit_events) {
            hp_error("cpu=%s needs JVMTI method entry/exit events, which this JVM offers only "
                     "at start-up: use -agentpath (or -agentlib) on the java command line, not an attach",
                     g_hp.o.cpu == OPTS_CPU_TIMES ? "times" : "old");
            return -1;
        }
    }
    if (g_hp.o.monitor) {
        mon_capabilities(&want);
        if (!pot.can_generate_monitor_events || !pot.can_get_owned_monitor_info ||
            !pot.can_get_current_contended_monitor || !pot.can_get_monitor_info) {
            hp_error("monitor=y needs JVMTI monitor events and monitor information, which this JVM "
                     "offers only at start-up: use -agentpath on the java command line, not an attach");
            return -1;
        }
    }
    if (jx_report(j, (*j)->AddCapabilities(j, &want), "AddCapabilities") != JVMTI_ERROR_NONE)
        return -1;
    vt_callback_set cbs;
    memset(&cbs, 0, sizeof cbs);
    jvmtiEventCallbacks cb; /* copied into cbs.cb last */
    memset(&cb, 0, sizeof cb);
    cb.VMInit = hp_on_vm_init;
    cb.VMDeath = hp_on_vm_death;
    cb.ThreadStart = hp_on_thread_start;
    cb.ThreadEnd = hp_on_thread_end;
    cb.ClassPrepare = hp_on_class_prepare;
    cb.SampledObjectAlloc = hp_on_alloc;
    cb.DataDumpRequest = hp_on_data_dump;
    if (g_hp.o.cpu == OPTS_CPU_TIMES || g_hp.o.cpu == OPTS_CPU_OLD)
        tm_callbacks(&cb);
    if (g_hp.o.monitor)
        mon_callbacks(&cb);
    cbs.cb = cb;
    vt_callbacks(&cbs);
    if (jx_report(j, (*j)->SetEventCallbacks(j, &cbs.cb, (jint)sizeof cbs), "SetEventCallbacks"))
        return -1;
    if (jx_raw_monitor(j, "hprof dump", &g_hp.dump_lock) ||
        jx_raw_monitor(j, "hprof data", &g_hp.data_lock) ||
        jx_raw_monitor(j, "hprof output", &g_hp.out_lock) ||
        jx_raw_monitor(j, "hprof sampler", &g_hp.sampler_lock))
        return -1;
    thr_init();
    if (str_init() || cls_init() || trace_init() || site_init() || wlive_init() || mon_init()) {
        hp_error("out of memory creating the agent's tables");
        return -1;
    }
    g_hp.next_thread_serial = HP_THREAD_SERIAL0;
    return 0;
}

/* Set once an agent start succeeded (or is under way): process-wide, so it
 * lives outside g_hp, which hp_start resets. A start that fails clears it,
 * so a mistyped jcmd JVMTI.agent_load can be retried. */
static int hp_loaded;

static jint hp_fail_start(jvmtiEnv *j)
{
    if (g_hp.net_fd >= 0) {
        close(g_hp.net_fd);
        g_hp.net_fd = -1;
    }
    if (j)
        (*j)->DisposeEnvironment(j); /* its capabilities and callbacks go with it */
    g_hp.jvmti = NULL;
    __atomic_store_n(&hp_loaded, 0, __ATOMIC_RELEASE);
    return JNI_ERR;
}

static jint hp_start(JavaVM *vm, const char *options, int attach)
{
    if (__atomic_exchange_n(&hp_loaded, 1, __ATOMIC_ACQ_REL)) {
        hp_error("the hprof agent is already loaded in this JVM; a second load is refused "
                 "(check for duplicate -agentlib:hprof, -agentpath or -Xrunhprof options)");
        return JNI_ERR;
    }
    memset(&g_hp, 0, sizeof g_hp);
    g_hp.vm = vm;
    g_hp.attached = attach;
    g_hp.net_fd = -1;
    opts_init(&g_hp.o);
    char err[1024];
    if (opts_parse(&g_hp.o, options, getenv("_JAVA_HPROF_OPTIONS"), err, sizeof err) != 0) {
        hp_error("%s", err);
        return hp_fail_start(NULL);
    }
    if (g_hp.o.help) {
        opts_usage(stdout);
        fflush(stdout);
        if (attach) { /* never end a running program for a help text */
            __atomic_store_n(&hp_loaded, 0, __ATOMIC_RELEASE);
            return JNI_OK;
        }
        exit(0); /* the original's contract: `help` prints usage and the JVM exits 0 */
    }
    g_hp.sample_bytes = g_hp.o.sample_bytes;
    if (g_hp.o.net) {
        /* no file: the name is what messages call the output */
        snprintf(g_hp.outname, sizeof g_hp.outname, "net=%s:%u", g_hp.o.net_host, g_hp.o.net_port);
        if (lsn_connect() != 0)
            return hp_fail_start(NULL);
    } else if (opts_output_name(&g_hp.o, (long)getpid(), hp_exists, g_hp.outname,
                                sizeof g_hp.outname)) {
        hp_error("the output file name is too long");
        return hp_fail_start(NULL);
    }
    jvmtiEnv *j = NULL;
    jint rc = (*vm)->GetEnv(vm, (void **)&j, JVMTI_VERSION_11);
    if (rc != JNI_OK || !j) {
        hp_error("this JVM offers no JVMTI 11 environment (error %d); hprof needs JDK 11 or newer",
                 (int)rc);
        return hp_fail_start(NULL);
    }
    g_hp.jvmti = j;
    if (hp_init_jvmti(j) != 0 || out_open() != 0)
        return hp_fail_start(j);
    /* last: the interval is global to the JVM, so it is set only once the
     * agent is sure to run */
    if (g_hp.o.heap_sites &&
        jx_report(j, (*j)->SetHeapSamplingInterval(j, (jint)g_hp.sample_bytes), "SetHeapSamplingInterval")) {
        out_close();
        return hp_fail_start(j);
    }
    if (attach) {
        JNIEnv *env = NULL;
        (*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8);
        hp_start_live(j, env);
        hp_info("HPROF: attached; writing %s\n", g_hp.outname);
        return JNI_OK;
    }
    jx_report(j, (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL),
              "SetEventNotificationMode(VMInit)");
    jx_report(j, (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL),
              "SetEventNotificationMode(VMDeath)");
    return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    return hp_start(vm, options, 0);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    return hp_start(vm, options, 1);
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    (void)vm;
}
