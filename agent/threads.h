/*
 * threads.h: thread serials (200001 on) and thread records. A platform
 * thread is registered at ThreadStart, or for threads that were already
 * running, at VMInit/attach, or lazily the first time one of its events is
 * seen; its THREAD START is written then. Its hp_thread lives in JVMTI
 * thread-local storage and is kept after it ends (a late event still finds
 * its serial).
 *
 * A virtual thread (JDK 21+) gets an hp_thread the first time one of its
 * events needs one, but a serial and a THREAD START only when something
 * refers to it (a trace keyed by thread with thread=y, a MONITOR record):
 * thr_serial_own / thr_serial_of. Its record is freed at VirtualThreadEnd
 * (thr_vt_end), which also writes its THREAD END if it had a START, so a
 * program that runs millions of virtual threads keeps only the live ones.
 * Records of virtual threads are made only in the modes that enable
 * VirtualThreadEnd (vt_records()); in the others a virtual thread has no
 * record (thr_get returns NULL, its serial is HP_THREAD_SERIAL0) and
 * costs nothing at its end. Contract that makes the free safe: only the virtual thread's own events
 * use its hp_thread pointer; every other thread (the sampler, a dump) goes
 * through thr_serial_of, which reads the record under data_lock, as the
 * free does.
 */
#ifndef HPROF_THREADS_H
#define HPROF_THREADS_H

#include <jvmti.h>
#include <stdint.h>

typedef struct hp_thread {
    uint32_t serial;         /* 0: a virtual thread nothing referred to yet */
    uint8_t ended;
    uint8_t virt;            /* a virtual thread (freed at its end) */
    int64_t cpu_ns;          /* thread CPU time at the previous sample (sampler only) */
    uint8_t cpu_seen;        /* cpu_ns holds a real baseline */
    /* a sample on a native frame, counted only if the thread's CPU clock
     * goes on advancing after its stack was taken (sampler only) */
    struct hp_trace *cpu_pend;
    int64_t cpu_pend_cpu, cpu_pend_ns;
    uint8_t agent;           /* an agent thread: never sampled */
    uint64_t obj_id;         /* the object id its THREAD START gave (0: none) */
    uint8_t cpu_ctl;         /* net= CONTROL CPU ON/OFF of this thread:
                              * THR_CPU_* (written by the listener) */
    struct tm_stack *tm;     /* cpu=times|old shadow stack (the thread's own) */
    /* monitor=y (the thread's own events): a contended enter under way,
     * and a wait under way */
    int64_t mon_enter_ns;
    struct hp_trace *mon_trace;
    struct hp_class *mon_cls;
    int64_t mon_wait_ns;
    jweak mon_wait_obj;      /* the object of an Object.wait under way
                              * (set and cleared by the thread, read by a
                              * dump: under data_lock) */
} hp_thread;

#define THR_CPU_DEFAULT 0 /* sampled unless sampling is paused for all */
#define THR_CPU_ON 1      /* sampled even while paused for all */
#define THR_CPU_OFF 2     /* never sampled */

/* The thread's record, registering it (and, for a platform thread,
 * writing THREAD START) if new. NULL for a thread that cannot be
 * registered. Called by `t` itself only (its own events: it reads `t`'s
 * thread-local storage); any other thread calls thr_other. */
hp_thread *thr_get(jvmtiEnv *j, JNIEnv *env, jthread t);
/* thr_get for any other thread than `t` (the sampler, dumps, the
 * listener): platform threads are found by their tid, never through their
 * thread-local storage (unsafe while that thread exits); a virtual thread
 * without a record gets none (NULL). */
hp_thread *thr_other(jvmtiEnv *j, JNIEnv *env, jthread t);
/* Before any thread is registered. */
void thr_init(void);
/* thr_get for a thread's own events that write into its record: NULL
 * also for a virtual thread past its VirtualThreadEnd. */
hp_thread *thr_live(jvmtiEnv *j, JNIEnv *env, jthread t);
/* The serial of `t`'s record `th`, called from `t`'s own events: for a
 * virtual thread, the first call assigns the serial and writes its THREAD
 * START. */
uint32_t thr_serial_own(jvmtiEnv *j, jthread t, hp_thread *th);
/* The serial of any thread `t`, from any thread (registering it, with a
 * serial and a THREAD START, if new); HP_THREAD_SERIAL0 if it cannot be.
 * Agent threads report `*agent` (may be NULL). */
uint32_t thr_serial_of(jvmtiEnv *j, JNIEnv *env, jthread t, int *agent);
/* ThreadEnd: writes THREAD END. */
void thr_end(jvmtiEnv *j, JNIEnv *env, jthread t);
/* VirtualThreadEnd (on the virtual thread itself): THREAD END if it had a
 * START, and its record is freed. */
void thr_vt_end(jvmtiEnv *j, JNIEnv *env, jthread t);
/* Records of virtual threads alive now (for tests: HPROF_VT_STATS). */
uint64_t thr_vt_live(void);
/* Marks the calling thread (an agent thread: the sampler, the net=
 * listener) as one the sampler never samples. */
void thr_mark_agent(jvmtiEnv *j, JNIEnv *env);
/* Registers every live thread (VMInit, attach). */
void thr_register_all(jvmtiEnv *j, JNIEnv *env);

#endif
