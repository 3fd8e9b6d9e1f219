/*
 * hdtimes.c: the times a heap=all dump reports (see hdtimes.h): the
 * walking thread's scheduler counters and the verbose "pause ... total"
 * note. Stateless.
 */
#include "hdtimes.h"

#include <stdio.h>

#include "agent.h"

/* The scheduler's counters of thread `tid` of this process (schedstat: ns
 * on a CPU, ns waiting for one, time slices). Returns 0, or -1 (no /proc). */
int hdt_sched_read(long tid, uint64_t v[3])
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", tid);
    FILE *f = fopen(path, "r");
    unsigned long long a = 0, b = 0, c = 0;
    int ok = f && fscanf(f, "%llu %llu %llu", &a, &b, &c) == 3;
    if (f)
        fclose(f);
    v[0] = a, v[1] = b, v[2] = c;
    return ok ? 0 : -1;
}

/* The verbose line's timing of one dump (docs/heap-dump.md): the pause is
 * the time the program was stopped for it (the forced GC, the walk of the
 * mounted virtual threads' roots, the heap walk: each one VM operation,
 * timed around its JVMTI call, the wait for the safepoint included); the
 * total runs from the dump's start to its file complete. `sched`: what the
 * walking thread did meanwhile (from its first callback to the end; zeros
 * when unknown): ns on a CPU, ns runnable but waiting for one (the
 * machine's load); the rest of the walk it was blocked (waiting for the
 * writer's I/O thread to free a buffer, page faults from disk). */
void hdt_report(int64_t gc, int64_t vt, int64_t walk, const uint64_t sched[3],
                            int64_t total)
{
    char how[128] = "";
    if (sched[0]) {
        double blocked = (double)walk - (double)sched[0] - (double)sched[1];
        snprintf(how, sizeof how, " (on a CPU %.3f s, waiting for one %.3f s, blocked %.3f s)",
                 (double)sched[0] / 1e9, (double)sched[1] / 1e9,
                 (blocked > 0 ? blocked : 0) / 1e9);
    }
    hp_info(" (heap dump: pause %.3f s: GC %.3f s, heap walk %.3f s%s; total %.3f s)",
            (double)(gc + vt + walk) / 1e9, (double)gc / 1e9, (double)(walk + vt) / 1e9, how,
            (double)total / 1e9);
}
