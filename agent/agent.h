/*
 * agent.h: the agent's global state (one struct, `g_hp`), the object tag
 * layout, and the lock order. Every agent module includes it.
 *
 * Locks (JVMTI raw monitors), always taken in this order, never the reverse
 * (one exception, below):
 *   1. dump_lock  serialises whole dumps (SIGQUIT, jcmd, VM death) and
 *                 the net= commands (each runs under it)
 *   2. data_lock  the structure of the tables (classes, frames, traces,
 *                 sites, threads, strings); held only to look up or insert,
 *                 never across I/O; the only JVMTI calls under it are
 *                 Get/SetTag and Get/SetThreadLocalStorage, which are quick
 *                 and never post events
 *   3. out_lock   the output stream (writer or text buffer) and the
 *                 "already written" flags of strings, frames, traces
 * The exception: a heap dump into the output holds out_lock from before its
 * walk to its end, and after the walk registers the classes loaded
 * meanwhile (cls_get, layouts: data_lock). So no code may take out_lock
 * while it holds data_lock (none does: cls_get and thr_get write their
 * records after releasing it).
 * Counters of sites are atomics, updated without a lock. The allocation
 * callback takes no agent lock on a site-cache hit (agent.c: IsSameObject,
 * an atomic add, SetTag); the JVM's tag map lock inside SetTag/GetTag is a
 * leaf of the JVM's, never held across a safepoint or an event. The agent enables
 * no GC-time event (ObjectFree, GarbageCollectionStart/Finish).
 * No agent lock is held across a JVMTI call that can wait for a safepoint,
 * a GC or the ServiceThread, except dump_lock (and out_lock, held by a
 * heap dump's walk): only whole dumps (DataDumpRequest, VMDeath) and net=
 * commands take dump_lock, never an allocation, class or thread callback
 * and never GC-time code, and a thread that waits for either lock waits in
 * RawMonitorEnter, where a safepoint goes on without it.
 * The rules, and why: docs/deadlocks.md.
 *
 * Object tags (JVMTI SetTag), 64 bits:
 *   class mirror:   HP_TAG_CLASS | class index          (bit 62 set)
 *   tracked object: site index << 32 | allocation sequence (site index >= 1,
 *                   < 2^29)
 *   other object:   HP_TAG_DUMP | sequence, given by a heap dump (bit 61)
 * Bit 63 stays clear, so a tag used as an 8-byte HPROF id is positive (Java
 * readers keep ids in signed longs).
 * An internal site is (class, trace) for instances and (class, trace, size)
 * for arrays, so every site has one object size: a heap scan (site_scan),
 * which only gets the tag, finds the site and so the exact bytes live.
 * Output merges the sites of one (class, trace). The sequence makes tags unique (until a
 * site has allocated 2^32 objects of one size), so a tag can also serve as
 * the object's HPROF id.
 */
#ifndef HPROF_AGENT_H
#define HPROF_AGENT_H

#include <jvmti.h>
#include <stdint.h>
#include <time.h>

#include "hu_map.h"
#include "opts.h"
#include "vec.h"
#include "hsdump.h"
#include "wlive.h"

#define HP_TAG_CLASS (1ULL << 62)
#define HP_TAG_IS_CLASS(t) (((t) & HP_TAG_CLASS) != 0)
#define HP_TAG_DUMP (1ULL << 61) /* objects first met by a heap dump */
#define HP_TAG_IS_DUMP(t) (((t) & (HP_TAG_CLASS | HP_TAG_DUMP)) == HP_TAG_DUMP)
#define HP_SITE_BITS 29
#define HP_TAG_SITE(t) ((uint32_t)((t) >> 32) & ((1u << HP_SITE_BITS) - 1))

/* Serial numbers start where the original agent's did. */
#define HP_CLASS_SERIAL0 100000u
#define HP_THREAD_SERIAL0 200000u /* 200000: the "unknown thread" */
#define HP_TRACE_SERIAL0 300000u  /* 300000: the empty system trace */

typedef struct hp_out hp_out;

/* The callback gate's count of callbacks in flight is split in shards, one
 * cache line each, a thread always counting in the same one: with one
 * shared counter, every allocation of every thread moved that line between
 * cores twice (enter and leave). */
#define HP_GATE_SHARDS 16
typedef struct hp_gate_shard {
    _Alignas(64) int n;
} hp_gate_shard;

typedef struct hp_agent {
    JavaVM *vm;
    jvmtiEnv *jvmti;
    opts o;
    char outname[4096];  /* the output file actually used */
    int attached;        /* loaded into a running VM (Agent_OnAttach) */
    /* callback gate: callbacks in flight, counted per shard (hp_enter),
     * and the VM-death flag */
    hp_gate_shard active[HP_GATE_SHARDS];
    unsigned gate_next; /* the shard the next new thread takes */
    volatile int dead;
    jrawMonitorID dump_lock, data_lock, out_lock;
    /* cpu=samples: the sampling thread's wait and stop handshake (a leaf
     * lock: nothing else is taken while it is held) */
    jrawMonitorID sampler_lock;
    volatile int sampler_stop_req, sampler_running;
    /* cpu sampling switched by net= CONTROL: off for all threads (threads
     * switched on one by one still are), see sampler.h */
    volatile int cpu_paused;
    /* net=: the connected socket (-1 without net=) and the listener
     * thread's stop handshake (listener_lock: a leaf lock) */
    int net_fd;
    jrawMonitorID listener_lock;
    volatile int listener_running, listener_stop_req;
    /* VM death has begun (set under dump_lock): net= commands are refused */
    int dying;
    /* the JVM is exiting: set when its shutdown hooks start (our own hook,
     * a Thread that does nothing, shows it in ThreadStart), else first
     * thing at VM death: no more forced GCs (hp_gc), no more data dumps */
    volatile int exiting;
    jobject exit_hook; /* global ref to that hook Thread, or NULL */
    /* the collector is ZGC or Shenandoah: a GC forced while the JVM exits
     * (HotSpot stops their control threads) never returns, and JVMTI
     * cannot tell when that begins: the agent forces none (hp_gc) */
    int gc_no_force;
    /* What the live counts of sites mean (dump_lock): gc_seq counts the
     * GCs the agent forced (hp_gc, and the one at exit: hp_exit_gc), each
     * begun at gc_time (wall clock) with gc_allocs allocations counted
     * (site_alloc_total); scan_seq is gc_seq at the last site_scan. An
     * output whose scan follows no forced GC says so (live_note, and no
     * HPROF_SITES_FORCE_GC flag in binary). */
    uint32_t gc_seq, scan_seq;
    time_t gc_time;
    uint64_t gc_allocs;
    int exit_gc;         /* gc_seq's last GC is the one at exit */
    int live_fresh;      /* the last scan followed a forced GC */
    char live_note[192]; /* "" when live counts are exact, else why not */
    hp_out *out;
    /* tables (structure under data_lock; see each module's header) */
    vec strs;           /* names.c: hp_str */
    hu_map str_index;   /* string hash -> first id */
    vec classes;        /* classes.c: hp_class */
    vec frames;         /* traces.c: hp_frame */
    hu_map frame_index; /* (method, location) hash -> first frame */
    vec traces;         /* traces.c: hp_trace* */
    hu_map trace_index; /* frames hash -> first trace */
    vec sites;          /* sites.c: hp_site */
    hu_map site_index;  /* (class, trace, size) hash -> first site */
    vec mons;           /* monitors.c: contention per (trace, class) */
    hu_map mon_index;   /* (trace, class) hash -> first row */
    uint32_t next_thread_serial;
    uint64_t dump_seq;  /* heapdump.c: last HP_TAG_DUMP sequence (dump_lock) */
    uint32_t heap_dumps; /* heapdump.c, hsdump.c: heap dumps begun (dump_lock) */
    /* hsdump.c: HotSpot's dumper is at work (dump_lock released: other
     * dumps wait on it, notified when it ends); its MBean (global ref) */
    int hs_busy;
    hs_state hs;
    wlive_state wlive; /* wlive.c: heap=sites' weak references */
    uint32_t hs_trace_base; /* format=a: the next dump's trace numbers start after it */
    /* sampled allocations: interval in bytes, 0 = every allocation */
    uint64_t sample_bytes;
    volatile int alloc_on;
} hp_agent;

extern hp_agent g_hp;

/* Callback gate: returns 0 (and counts the callback in) unless the VM is
 * dying; then the callback must return at once. Pair with hp_leave, on the
 * same thread. */
/* Sequentially consistent on purpose: VM death stores `dead` then loads
 * every shard, a callback adds to its shard then loads `dead`; weaker
 * orders let both see the old value (store-load reordering). A thread's
 * shard is fixed (hp_gate_slot), so its enter and leave meet in one
 * shard and a shard never counts below the callbacks in it. */
int *hp_gate_shard_of_thread(void);

static inline int hp_enter(void)
{
    int *n = hp_gate_shard_of_thread();
    __atomic_add_fetch(n, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&g_hp.dead, __ATOMIC_SEQ_CST)) {
        __atomic_sub_fetch(n, 1, __ATOMIC_RELEASE);
        return -1;
    }
    return 0;
}

static inline void hp_leave(void)
{
    __atomic_sub_fetch(hp_gate_shard_of_thread(), 1, __ATOMIC_RELEASE);
}

/* Marks the calling thread as one of the agent's own (sampler, listener):
 * the allocation callback then makes no JNI call on it (agent.c). */
void hp_mark_agent_thread(void);

/* Monotonic ns (vDSO, ~25 ns): sampler waits, method times, contention. */
static inline int64_t hp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Pieces of the dump sequence (agent.c), also run by the net= commands;
 * callers hold dump_lock. */
void hp_write_sites(jvmtiEnv *j, uint16_t flags, double cutoff); /* flags: HPROF_SITES_* */
void hp_write_summary(jvmtiEnv *j);
void hp_write_samples(double cutoff);
void hp_write_unloads(void);
/* Brings the live counts of sites (site_scan) and the set of loaded classes
 * (cls_scan_loaded) up to date; with `gc` (and a heap mode on), after a
 * full GC, so that "live" means reachable. `counted`: a heap dump's walk
 * has just counted them (hd_dump): no scan. Caller holds dump_lock and no
 * other agent lock (every step waits for a safepoint). */
void hp_refresh(jvmtiEnv *j, int gc, int counted);
/* A full GC (ForceGarbageCollection), unless VM death has begun: HotSpot
 * stops the ZGC and Shenandoah control threads before it posts VMDeath,
 * and a forced GC after that waits forever. Returns 1 when a GC ran. */
int hp_gc(jvmtiEnv *j);

/* Prints "HPROF ERROR: ..." on stderr (never exits). */
void hp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "HPROF: ..." on stderr when verbose=y. */
void hp_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
