/*
 * heapdump.h: heap=dump|all: a complete heap dump, HotSpot-shaped, at each
 * dump (SIGQUIT, jcmd JVMTI.data_dump, VM death).
 *
 * The sequence: force a GC; register every loaded class and compute its
 * field layout (once per class, kept); read what the Class objects hold in
 * their own fields, which the walk does not report (hdmirror.h); tag and
 * name every thread and take its stack (one TRACE per thread), the mounted
 * virtual threads' too (hdvthread.h); then ONE FollowReferences walk, which
 * runs in a single VM operation, so the dump is a consistent snapshot. Its
 * callbacks (on the VM thread: no JNI, no JVMTI, no agent lock) write the
 * roots and the objects straight into the output. Single-pass readers need
 * every CLASS DUMP before the instances, but a class's static values are
 * known only once the walk meets its mirror: so the CLASS DUMPs are written
 * first with null statics (their length is known: the fields are) and
 * overwritten in place after the walk (hw_writer_patch). A socket cannot be
 * overwritten: with net= (and in text) the objects go into a temporary file
 * (unlinked at once) whose segments are copied in after the CLASS DUMPs.
 *
 * format=a: the same binary dump goes into a second temporary file instead
 * of the output (the walk's callbacks can take no lock, so they cannot
 * share the text output with other threads), and once it is complete
 * tools/print.c renders it as the original's HEAP DUMP BEGIN ... END
 * section (ROOT, CLS, OBJ, ARR lines) into the text output, after the
 * TRACE blocks it refers to. Every dump of a run is a section of the one
 * text file; in binary, each dump after the first is a file of its own.
 *
 * Roots: only the kinds HotSpot's dumper writes (heapdump.c's hd_root), or
 * with shape=original every kind as JVMTI reports it.
 *
 * Object ids are the object tags: a heap=sites tag (site << 32 | sequence;
 * such objects carry their allocation trace) or a tag the dump gives
 * (HP_TAG_DUMP | sequence), which stays, so ids are stable from one dump to
 * the next. Class objects use the class's id (agent.h).
 */
#ifndef HPROF_HEAPDUMP_H
#define HPROF_HEAPDUMP_H

#include <jvmti.h>

/* Writes one heap dump (binary HEAP DUMP SEGMENTs + END, or text HEAP DUMP
 * BEGIN ... END). Called by the dump sequence, under dump_lock, with no
 * other agent lock held. Returns 0, or -1 after an HPROF ERROR.
 * *counted: 1 when the walk, after the GC the dump forced, counted the live
 * objects of every site (heap=all) and set their live_n, as site_scan
 * would have: the dump sequence then skips the scan, a second pause as
 * long as a third of the walk's. 0: the live counts are still to be made. */
int hd_dump(jvmtiEnv *j, JNIEnv *env, int *counted);

#endif
