/*
 * threads.h: thread serials (200001 on) and thread records. A thread is
 * registered at ThreadStart, or for threads that were already running, at
 * VMInit/attach, or lazily the first time one of its events is seen. Its
 * hp_thread lives in JVMTI thread-local storage (which also works for
 * virtual threads).
 */
#ifndef HPROF_THREADS_H
#define HPROF_THREADS_H

#include <jvmti.h>
#include <stdint.h>

typedef struct hp_thread {
    uint32_t serial;
    uint8_t ended;
    int64_t cpu_ns;          /* thread CPU time at the previous sample (sampler only) */
    uint8_t cpu_seen;        /* cpu_ns holds a real baseline */
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

/* The thread's record, registering it (and writing THREAD START) if new.
 * NULL for a thread that cannot be registered. */
hp_thread *thr_get(jvmtiEnv *j, JNIEnv *env, jthread t);
/* ThreadEnd: writes THREAD END. */
void thr_end(jvmtiEnv *j, JNIEnv *env, jthread t);
/* Marks the calling thread (an agent thread: the sampler, the net=
 * listener) as one the sampler never samples. */
void thr_mark_agent(jvmtiEnv *j, JNIEnv *env);
/* Registers every live thread (VMInit, attach). */
void thr_register_all(jvmtiEnv *j, JNIEnv *env);

#endif
