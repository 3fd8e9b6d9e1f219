/*
 * vthreads.h: virtual threads (JDK 21+), as far as JVMTI shows them.
 *
 * JVMTI's GetAllThreads lists platform threads only, and a carrier thread
 * running a virtual thread reports itself WAITING with its own frames (up
 * to Continuation.run). With the can_support_virtual_threads capability
 * the agent can ask HotSpot which virtual thread a carrier is running (the
 * extension function com.sun.hotspot.functions.GetVirtualThread, one quick
 * call that costs nothing while no one asks) and take that virtual
 * thread's stack; no event per mount or unmount is needed. The
 * VirtualThreadEnd event lets threads.c free a virtual thread's record.
 *
 * On JDK 17 (no virtual threads) all of this is off: vt_mounted returns
 * NULL and vt_is_virtual 0. The agent is built against JDK 17's jvmti.h as
 * well as JDK 21+'s, so the JDK 21 names are spelled here by their numbers
 * (the capability's bit, the event's number and callback slot).
 */
#ifndef HPROF_VTHREADS_H
#define HPROF_VTHREADS_H

#include <jvmti.h>

/* JVMTI_MIN_EVENT_TYPE_VAL .. JVMTI_EVENT_VIRTUAL_THREAD_END (88) */
#define VT_CB_SLOTS 39

/* The callbacks the agent sets: jvmtiEventCallbacks as JDK 21+ lays it
 * out (one function pointer per event number, from 50), whichever
 * jvmti.h the agent is built against. */
typedef union vt_callback_set {
    jvmtiEventCallbacks cb;
    jvmtiEventReserved slot[VT_CB_SLOTS];
} vt_callback_set;

/* Asks for can_support_virtual_threads when this JVM offers it. */
void vt_capabilities(const jvmtiCapabilities *pot, jvmtiCapabilities *want);
/* Sets the VirtualThreadStart (a record, with thread=y) and VirtualThreadEnd (threads.c's thr_vt_end) callbacks. */
void vt_callbacks(vt_callback_set *cbs);
/* Live phase: finds GetVirtualThread, enables VirtualThreadEnd. Quiet when
 * the JVM has no virtual threads. */
void vt_start(jvmtiEnv *j, JNIEnv *env);
/* VM death: no more VirtualThreadEnd. */
void vt_stop(jvmtiEnv *j);
/* Whether the agent sees virtual threads (JDK 21+ with the capability). */
int vt_on(void);
/* Whether records of virtual threads may be made: VirtualThreadEnd, which
 * frees them, is on (thread=y, cpu=times|old, monitor=y, heap=dump|all). */
int vt_records(void);
/* The virtual thread mounted on platform thread `carrier` (a local ref),
 * or NULL (none, or no virtual threads). */
jthread vt_mounted(jvmtiEnv *j, jthread carrier);
/* A VirtualThreadMount/Unmount callback (HotSpot extension events, on
 * the virtual thread; the event's JNIEnv and virtual thread). */
typedef void (JNICALL *vt_mount_fn)(jvmtiEnv *j, JNIEnv *env, jthread vthread);
/* Sets (NULL: clears) the mount and unmount callbacks (cpu=times only:
 * each mount and unmount then posts an event). */
void vt_track_mounts(jvmtiEnv *j, vt_mount_fn mount, vt_mount_fn unmount);
/* Whether `t` is a virtual thread. */
int vt_is_virtual(JNIEnv *env, jthread t);

#endif
