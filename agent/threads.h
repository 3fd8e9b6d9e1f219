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
} hp_thread;

/* The thread's record, registering it (and writing THREAD START) if new.
 * NULL for a thread that cannot be registered. */
hp_thread *thr_get(jvmtiEnv *j, JNIEnv *env, jthread t);
/* ThreadEnd: writes THREAD END. */
void thr_end(jvmtiEnv *j, JNIEnv *env, jthread t);
/* Registers every live thread (VMInit, attach). */
void thr_register_all(jvmtiEnv *j, JNIEnv *env);

#endif
