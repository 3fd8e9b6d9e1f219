/*
 * timing.h: cpu=times and cpu=old: exact call counts and times per trace,
 * from JVMTI MethodEntry and MethodExit events (HotSpot runs the threads
 * interpreted while they are enabled: the most expensive mode, as it was in
 * the original; bench/ measures it).
 *
 * Each thread keeps a shadow stack of (method, entry time, time in callees)
 * in its hp_thread. An exit pops its method (MethodExit is posted for frames
 * popped by an exception too) and adds one call, the self time and the
 * total time to the trace made of the top `depth` shadow frames (location
 * -1: no line numbers, as in the original). Exits of frames entered before
 * the events were enabled find no shadow frame and are ignored: counts are
 * exact for every call that starts after VMInit (or after an attach).
 *
 * Times are elapsed (wall-clock) ns from CLOCK_MONOTONIC, read twice per
 * call (~25 ns each); a thread CPU clock costs ~600 ns per read on Linux,
 * more than the event itself, so it is read only around native methods.
 * Waiting is not work: the elapsed time of a native method that its OS
 * thread did not spend on the CPU (Object.wait, Thread.sleep, Unsafe.park,
 * the Reference Handler's waitForReferencePendingList, a blocking read),
 * or all of it when a virtual thread left its carrier meanwhile, is taken
 * out of that method's self time and of the total time of every caller,
 * and counted apart per trace (hp_time_row.wait_ns).
 *
 * Virtual threads (JDK 21+): their events keep their own shadow stacks.
 * HotSpot's VirtualThreadMount/Unmount extension events (on only in this
 * mode) give the time a virtual thread spent unmounted, which is waiting,
 * and the time each carrier lent to virtual threads, which its own frames
 * under way (runContinuation) do not count as theirs.
 */
#ifndef HPROF_TIMING_H
#define HPROF_TIMING_H

#include <jvmti.h>
#include <stdint.h>

struct hp_trace;

/* Per-thread state, owned by the thread itself (events run on it). */
typedef struct tm_stack tm_stack;

/* Asks for the MethodEntry/MethodExit capabilities (OnLoad or attach). */
void tm_capabilities(jvmtiCapabilities *want);
void tm_callbacks(jvmtiEventCallbacks *cb);
/* Enables the events (live phase). Returns 0 or -1 after HPROF ERROR. */
int tm_start(jvmtiEnv *j);
void tm_stop(jvmtiEnv *j);
/* Frees a thread's shadow stack (thread end). */
void tm_stack_free(tm_stack *s);

/* One row of CPU TIME: a trace, its completed calls, self and total ns
 * of work, and the ns its top method waited (not in self or total). */
typedef struct hp_time_row {
    struct hp_trace *trace;
    uint64_t calls, self_ns, total_ns, wait_ns;
} hp_time_row;

/* Takes (and resets) the counters of every trace: malloc'ed rows with calls
 * > 0, sorted by self time (then calls); *total_ns is the sum of self ns. */
hp_time_row *tm_take(uint32_t *n, uint64_t *total_ns);

#endif
