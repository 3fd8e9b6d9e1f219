/*
 * sampler.h: cpu=samples. An agent thread ("HPROF cpu sampling thread")
 * takes, every `interval` ms, the stacks of all live threads in one
 * GetThreadListStackTraces call and counts one hit on the trace of each
 * thread that really ran since the previous sample: its thread CPU time
 * advanced (and, for a thread in native code, by at least half of the
 * interval, and before and after its stack when the stack's top is
 * native). Unlike the original, threads blocked in native code (a socket
 * read, the Reference Handler) are therefore not counted as running.
 * A carrier thread that ran is sampled as the virtual thread it runs
 * (vthreads.h). Agent threads are never sampled.
 *
 * The thread starts in the live phase (VMInit or attach) and stops with a
 * handshake at VM death: sampler_stop returns once it has left its loop.
 */
#ifndef HPROF_SAMPLER_H
#define HPROF_SAMPLER_H

#include <jvmti.h>
#include <stdint.h>

int sampler_start(jvmtiEnv *j, JNIEnv *env);
void sampler_stop(jvmtiEnv *j);

/* One row of CPU SAMPLES: a trace and its hits since the last dump. */
typedef struct hp_cpu_row {
    struct hp_trace *trace;
    uint64_t count;
} hp_cpu_row;

/* Takes (and resets to zero) the hits of every trace: malloc'ed rows with
 * count > 0, sorted by count; *total is their sum. */
hp_cpu_row *sampler_take(uint32_t *n, uint64_t *total);

/* Discards every trace's hits (net= CONTROL "clear CPU samples"). */
void sampler_clear(void);

#endif
