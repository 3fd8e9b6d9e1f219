/*
 * monitors.h: monitor=y. Contention per (trace, monitor class) from
 * MonitorContendedEnter/Entered, with its count and time; WAIT: and WAITED:
 * lines as Object.wait calls start and end; and, at each dump, MONITOR DUMP
 * (every live thread's state and trace, then every monitor that is owned or
 * waited for, with its owner, entry count and waiters) and MONITOR TIME.
 *
 * Unlike the original, MONITOR TIME is printed whenever any contention was
 * seen (the original divided its ms total by 10^6 before testing it, so the
 * section needed 1000 s of contention to appear), and times are kept in ns.
 */
#ifndef HPROF_MONITORS_H
#define HPROF_MONITORS_H

#include <jvmti.h>
#include <stdint.h>

struct hp_trace;
struct hp_class;

void mon_capabilities(jvmtiCapabilities *want);
void mon_callbacks(jvmtiEventCallbacks *cb);
int mon_init(void);
void mon_cleanup(void);
/* Enables the events (live phase). Returns 0 or -1 after HPROF ERROR. */
int mon_start(jvmtiEnv *j);
void mon_stop(jvmtiEnv *j);

/* One row of MONITOR TIME: contention on monitors of one class at one trace. */
typedef struct hp_mon_row {
    struct hp_trace *trace;
    struct hp_class *cls;
    uint64_t count, time_ns;
} hp_mon_row;

/* Takes (and resets) the contention counters: malloc'ed rows with count > 0,
 * sorted by time then count; *total_ns is the sum of their times. */
hp_mon_row *mon_take(uint32_t *n, uint64_t *total_ns);

/* MONITOR DUMP, as collected at a dump (all strings malloc'ed). */
typedef struct hp_mon_thread {
    uint32_t serial;
    struct hp_trace *trace;
    char status[32];       /* "R", "CW", "S|MW", "native|R"... */
} hp_mon_thread;

typedef struct hp_mon_info {
    char *sig;             /* raw JVM signature: "Ljava/lang/Object;" */
    uint32_t owner;        /* thread serial, 0 = unowned */
    int32_t entry_count;
    uint32_t nwait, nnotify;
    uint32_t *wait;        /* serials of threads waiting to enter */
    uint32_t *notify;      /* serials of threads waiting to be notified */
} hp_mon_info;

typedef struct hp_mon_dump {
    hp_mon_thread *threads;
    uint32_t nthreads;
    hp_mon_info *mons;
    uint32_t nmons;
} hp_mon_dump;

/* Collects the thread states and monitors (JVMTI calls, no agent lock held
 * by the caller above dump_lock). Returns 0, or -1 after HPROF ERROR. */
int mon_collect(jvmtiEnv *j, JNIEnv *env, hp_mon_dump *d);
void mon_dump_free(hp_mon_dump *d);

/* The original's status codes of a JVMTI thread state (prefix + code). */
void mon_status(jint state, char *buf, size_t n);

#endif
