/*
 * hdvthread.h: the virtual threads mounted when a heap dump begins (JDK 21+),
 * as HotSpot's own dumper writes them: each a thread of the dump, with a
 * serial of the dump's own, its THREAD OBJECT root, its stack as a TRACE
 * and its frames' JAVA FRAME roots, apart from its carrier's.
 *
 * JVMTI's GetAllThreads lists platform threads only. Its FollowReferences
 * reports a carrier's mounted virtual thread as a root of kind OTHER, then
 * that thread's frames as stack locals tagged with the virtual thread's
 * tag (0, and so no thread to name, if it has none), then the carrier.
 * hdv_mounted runs one FollowReferences that follows nothing (roots only:
 * the threads' stacks, no heap traversal) to tag those virtual threads,
 * then reads each one's stack (GetStackTrace takes a virtual thread) before
 * the walk. A virtual thread mounted between that and the walk is still a
 * thread of the dump (heapdump.c's hd_root), with the empty trace.
 * Unmounted virtual threads: FollowReferences reports their frames (JDK 25)
 * when it visits them, with their tag; they get a serial and the empty
 * trace the same way.
 */
#ifndef HPROF_HDVTHREAD_H
#define HPROF_HDVTHREAD_H

#include <jni.h>
#include <jvmti.h>

#include "hdstate.h"

/* The class index of java.lang.VirtualThread (0: not loaded, JDK 17). */
uint32_t hdv_class(const hd_state *st);
/* Appends the mounted virtual threads to *thr (st->threads maps their tags
 * to their serials and traces). Called under dump_lock alone, before the
 * walk. Returns 0, or -1 out of memory. */
int hdv_mounted(hd_state *st, JNIEnv *env, hd_thread **thr, uint32_t *nthr);

#endif
