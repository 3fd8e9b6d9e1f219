/*
 * hsdump.h: heap=dump through HotSpot's own dumper (docs/heap-dump.md).
 *
 * With heap=dump alone (heap=all keeps the JVMTI walk of heapdump.h, whose
 * ids are tags that join each object to its allocation trace), every heap
 * dump (SIGQUIT, jcmd JVMTI.data_dump, VM death, net= DUMP HEAP) is made by
 * the JVM, into a fresh name in a private directory (JDK 17's dumper
 * refuses an existing file), one of two ways:
 *  - GC.heap_dump [-all] -parallel=N [-gz=1] sent to the JVM's own attach
 *    listener (hsattach.h; started as jcmd starts it: trigger file and
 *    SIGQUIT), on JDK 21+, and on JDK 17 for a gzip output (HotSpot's -gz
 *    compresses in worker threads). GC.heap_dump is registered for the
 *    attach API only (not the DiagnosticCommand MBean, not jmm), so this
 *    is the one in-process way to -parallel and -gz;
 *  - else HotSpotDiagnosticMXBean's native dumpHeap0 over JNI (one thread):
 *    JDK 17, -XX:+DisableAttachMechanism, -Xrs, a jcmd JVMTI.data_dump
 *    (it runs on the listener thread: a request to it would wait for
 *    itself), a SIGQUIT before the listener is up (the signal dispatcher
 *    cannot handle the SIGQUIT that would start it), and a listener that
 *    does not come, refuses, or does not take up the request in time.
 * Hang safety: every wait on the listener is bounded until it is seen at
 * work on our request (hsattach.h); a dump that waits for a jcmd
 * JVMTI.data_dump on the listener gives up its request at once.
 * Then, in the private directory: redact=y (redact/), idsize=4 and/or
 * file=NAME.gz when HotSpot did not compress (convert/: names renumbered;
 * HotSpot's -gz layout), and:
 *  - format=b, a file holding heap dumps alone: the first dump becomes the
 *    output file itself, dump n > 1 is <output>.<n> (hard links: a rename
 *    over a file makes ext4 write it all back first);
 *  - format=b with other records in the output (cpu=, monitor=,
 *    shape=original): dump n is <output>.<n> (n = 1, 2 ...); the output
 *    keeps the agent's own records (HotSpot's serial numbers are its own:
 *    its records cannot share a file with the agent's);
 *  - format=a: rendered by tools/print.c into the text output, with the
 *    dump's TRACE blocks renumbered to be unique in the run (hs_renumber);
 *  - net= (or a FIFO): the dump's records (after HotSpot's header) go down
 *    the output, as each dump did before (the front end splits them).
 * The objects are those reachable (HotSpot's "live" dump, which begins
 * with a full GC), except at VM death: collectors may be stopped then, so
 * no GC is asked for (dumpHeap0's live=false, GC.heap_dump -all): the GC
 * the agent forces when the exit begins (our shutdown hook, agent.c)
 * stands for it. The agent tags no object in this mode: object ids are
 * HotSpot's (addresses).
 *
 * Locking: called under dump_lock, which it releases across the JNI calls
 * and the listener's dump (a heap dump waits for a safepoint, hs_init runs
 * Java code); meanwhile g_hp.hs_busy is set and every other dump waits for
 * it (hs_wait_idle).
 */
#ifndef HPROF_HSDUMP_H
#define HPROF_HSDUMP_H

#include <jvmti.h>

/* What a dump needs, made once (hs_init) by the first dump, or at start-up
 * with ZGC and Shenandoah: at VM death their collector is stopped, and a
 * Java allocation then waits for it forever, so the exit's dump must load
 * no class and allocate nothing. Not at start-up with other collectors:
 * it loads java.management and its lambdas, which would shift the numbers
 * of the program's own lambda classes ($$Lambda$N). Lives in g_hp. */
typedef struct hs_state {
    int ready;
    jobject bean;       /* the HotSpotDiagnosticMXBean (global ref) */
    jmethodID dump0;    /* its native dumpHeap0(String, boolean) */
    jobject jpath;      /* the Java String of `path` (global ref) */
    jobject oom, ioe;   /* OutOfMemoryError, IOException (global refs) */
    jmethodID get_message; /* Throwable.getMessage */
    int in_tmp;         /* dir is in $TMPDIR (text, socket, FIFO), not beside the output */
    char dir[4200];     /* the private directory, made and removed per dump */
    char path[4224];    /* dir/heap.hprof: HotSpot's file */
    /* GC.heap_dump through the attach listener (hsattach.h) */
    int jdk;            /* the JVM's feature version (17, 25 ...) */
    int cpus;           /* Runtime.availableProcessors at start-up (0: unknown) */
    int attach_off;     /* never again (latched): why in attach_why */
    char attach_why[256];
    char pdir[4208];    /* dir/pN: dump N's own directory for the command */
    char ppath[4232];   /* pdir/heap.hprof (gzip with -gz=1) */
    /* a JVMTI.data_dump on the listener's own thread waits for the dump
     * under way: a request to the listener would never be taken up */
    volatile int listener_waits;
    /* the agent's own SIGQUIT that starts the listener (hsattach.h's
     * quit_ns; 0: none pending): HotSpot swallows it, but one racing a
     * listener that came up meanwhile is a thread dump and a
     * DataDumpRequest (hs_own_quit) */
    volatile long long quit_ns;
} hs_state;

/* Whether heap dumps are HotSpot's (heap=dump without heap=sites). */
int hs_wanted(void);

/* Prepares hs_state (once): the bean, its native method linked, the path
 * and its Java String. Runs Java code: no agent lock held. Returns 0, or
 * -1 after an HPROF ERROR (that dump then fails with a message). */
int hs_init(JNIEnv *env);

/* Waits (releasing dump_lock, which the caller holds) until no HotSpot
 * dump is in progress. */
void hs_wait_idle(jvmtiEnv *j);

/* One heap dump; caller holds dump_lock (released and taken again inside).
 * Returns 0, or -1 after an HPROF ERROR. */
int hs_dump(jvmtiEnv *j, JNIEnv *env);

/* Whether the dumps are to be gzip (HotSpot's -gz layout): the one place
 * of that decision (today: a binary output file named *.gz). */
int hs_want_gz(void);

/* Whether the current thread is HotSpot's attach listener (a jcmd
 * JVMTI.data_dump runs on it). */
int hs_on_listener(jvmtiEnv *j);

/* Whether this DataDumpRequest is the agent's own SIGQUIT (consumed):
 * then it is no request for a dump. */
int hs_own_quit(jvmtiEnv *j);

/* Drops hs_state's references (VM death, after the last dump). */
void hs_cleanup(JNIEnv *env);

#endif
