/*
 * hdtimes.h: what a heap=all dump says of its times (docs/heap-dump.md,
 * "heap=all: the pause, and the rest of the dump").
 */
#ifndef HPROF_AGENT_HDTIMES_H
#define HPROF_AGENT_HDTIMES_H

#include <stdint.h>

/* The scheduler's counters of thread `tid` of this process (schedstat: ns
 * on a CPU, ns waiting for one, time slices). Returns 0, or -1 (no /proc:
 * v is then zeros). Reads one /proc file: no JNI, no JVMTI, no agent lock,
 * so it may run in a heap walk's callback. */
int hdt_sched_read(long tid, uint64_t v[3]);

/* The verbose note of one heap=all dump: its pause (gc, vt, walk in ns:
 * the forced GC, the walk of the mounted virtual threads' roots, the heap
 * walk), what the walking thread did meanwhile (sched from
 * hdt_sched_read's differences, zeros when unknown) and the total. */
void hdt_report(int64_t gc, int64_t vt, int64_t walk, const uint64_t sched[3], int64_t total);

#endif
