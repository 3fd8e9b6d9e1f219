/*
 * hsattach.h: a diagnostic command (jcmd) sent by the agent to its own
 * JVM's attach listener, as the jcmd tool would (docs/heap-dump.md).
 *
 * Why: GC.heap_dump, the only way to HotSpot's -parallel=N and -gz=N
 * dumps, is registered for the attach API alone (DCmd_Source_Internal |
 * DCmd_Source_AttachAPI in diagnosticCommand.cpp), not for the
 * DiagnosticCommand MBean nor jmm's ExecuteDiagnosticCommand.
 *
 * The protocol (HotSpot's attachListener_linux.cpp / _posix.cpp, JDK 17 to
 * 25): a UNIX socket <tmp>/.java_pid<pid>, made by the listener thread,
 * which HotSpot starts when a SIGQUIT finds the file .attach_pid<pid> in the
 * working directory or <tmp> (then no thread dump and no DataDumpRequest).
 * Request, protocol 1: "1\0jcmd\0<command line>\0\0\0"; reply: the result
 * code, '\n', the command's text, then the listener closes. One request at
 * a time: the listener is a single thread.
 *
 * Hang safety, the contract: every wait before the listener is proven to be
 * at work on our request is bounded (the socket appearing, the connection,
 * the request taken up); the proof is the reply's first byte or the file
 * `proof` appearing (GC.heap_dump creates its file before its safepoint).
 * Only then does hsa_jcmd wait for the reply without a bound, as a
 * dumpHeap0 call waits for its dump. The peer is checked (SO_PEERCRED) to
 * be this very process, and the socket file to be our user's.
 * No state of its own: the caller keeps what it learns.
 */
#ifndef HPROF_HSATTACH_H
#define HPROF_HSATTACH_H

#include <stddef.h>
#include <sys/types.h>

/* hsa_jcmd's outcomes */
enum {
    HSA_OK = 0,          /* the listener ran the command: code 0, its text in out */
    HSA_REFUSED = 1,     /* it answered a code other than 0 (text in out): the
                            command did not run (a parse or protocol error) */
    HSA_UNAVAILABLE = 2, /* no listener to be had (why in out): nothing ran */
    HSA_ABANDONED = 3,   /* we gave up before the listener took up the
                            request (why in out); it may still run later */
    HSA_NOT_STARTED = 4  /* no listener, and may_start was 0 */
};

#define HSA_ARG_MAX 1024 /* protocol 1's longest argument, with its NUL (JDK 17) */

typedef struct hsa_call {
    const char *sock_dir;  /* HotSpot's os::get_temp_directory(): "/tmp" on Linux */
    pid_t pid;             /* the JVM: our own (getpid()) but in tests */
    int may_start;         /* no socket: create the trigger and SIGQUIT pid */
    int start_ms;          /* bound on the socket appearing after that */
    int pick_ms;           /* bound on the listener taking up the request */
    const char *command;   /* the command line, e.g. "GC.heap_dump -all PATH" */
    const char *proof;     /* a file the command creates early, or NULL */
    const volatile int *abandon; /* nonzero: give up now (before the proof) */
    /* our SIGQUIT's mark: HSA_QUIT_PENDING from just before it until the
     * socket answers (or the wait ends), then that moment (CLOCK_MONOTONIC
     * ns): a DataDumpRequest may be our SIGQUIT only while pending or
     * shortly after, not for a fixed time after the signal */
    volatile long long *quit_ns;
} hsa_call;

#define HSA_QUIT_PENDING 0x7fffffffffffffffLL

/* Sends c->command; returns an HSA_ outcome with the text (HSA_OK,
 * HSA_REFUSED) or the reason (the others) in out (always terminated). */
int hsa_jcmd(const hsa_call *c, char *out, size_t cap);

/* Starts the listener of c->pid unless it is up (c->command unused):
 * 0 when its socket answers, else -1 with the reason in why. */
int hsa_listen(const hsa_call *c, char *why, size_t cap);

/* The reply `buf` (n bytes): its result code into *code and the offset of
 * its text into *text. Returns 0, or -1 when it is not a reply. */
int hsa_parse_reply(const char *buf, size_t n, int *code, size_t *text);

/* `path` as one argument of a diagnostic command line (quoted when it
 * holds a space) into dst. Returns 0, or -1 when it cannot be written so
 * (a quote or a newline in it, or too long for cap). */
int hsa_quote(char *dst, size_t cap, const char *path);

/* The CPUs this process may use, counted as HotSpot's
 * os::active_processor_count does on a cgroup v2 machine: the affinity
 * mask, capped by the cpu.max quota. At least 1. The fallback of hsdump.c,
 * which asks the JVM itself (Runtime.availableProcessors: that also
 * follows -XX:ActiveProcessorCount and cgroup v1). */
int hsa_cpus(void);

#endif
