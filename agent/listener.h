/*
 * listener.h: net=host:port. The agent connects out to the front end at
 * start-up (the whole profile goes down that socket, out.c) and an agent
 * thread, "HPROF listener thread", reads commands from the same socket
 * (socket/hc_proto.h) and runs them, each under dump_lock, so their output
 * never interleaves with a dump's.
 *
 * Faults never stop the JVM: a bad command is skipped by its length with an
 * HPROF ERROR on stderr and an in-band message; a command that needs a mode
 * that is off gets a message back; a peer that closes or resets ends the
 * listener (output then fails once, as a sticky error). After EOF, input is
 * read and dropped. EXIT ends the VM through System.exit(0), never exit()
 * from this thread. With no command coming, the output is flushed every
 * LSN_FLUSH_MS.
 *
 * The send bound (nettimeout=, OPTS_NET_TIMEOUT_S = 30 s): the output goes
 * down the socket through lsn_sink, whose sends never block (poll and
 * MSG_DONTWAIT, socket/hc_net.h) and share one deadline per wait, by the
 * monotonic clock, not one per send() call (a front end reading a byte now
 * and then used to restart SO_SNDTIMEO's 30 s at every call, holding the
 * exit for minutes). The agent waits for the front end at most the bound:
 *  - for each buffer the writer hands over (1 MiB binary, 256 KiB text);
 *  - in all, for one flush (out_flush: after each command, each dump, the
 *    idle flush) and for the final drain at exit (out_close), whatever the
 *    number of buffers queued: lsn_bound_begin/end around them.
 * Past it the front end is dropped: one HPROF ERROR says so and from which
 * byte the output is lost, the socket is shut down (the listener leaves),
 * every later write fails at once (the writer's sticky error), and lsn_stop
 * resets the connection at exit. So a front end that stops reading, or
 * reads a trickle, holds the JVM's exit about the bound (plus the final
 * dump's own work), then the JVM exits normally. A front end that keeps
 * within the bound (a buffer, and what a flush waits for, at most the
 * writer's 4 buffers, each within it: 35 to 140 KB/s in binary) is slow,
 * not stalled: it gets the whole profile, however long that takes.
 *
 * Lifecycle: lsn_connect in Agent_OnLoad/OnAttach (before the output is
 * opened; bounded by HC_NET_CONNECT_MS in all); lsn_start in the live phase
 * (VMInit or attach); lsn_stop at VM death after the final output: FIN
 * (shutdown for writing), the thread leaves at its next poll (a read blocked
 * inside a command is woken by shutting reading down too; both waits bounded
 * by the clock), input is drained until the peer closes (LSN_DRAIN_MS in
 * all), then the socket is closed: closing with unread input would reset the
 * connection and lose the output's tail at the front end. A dropped front
 * end gets the reset at once: its stream is cut already.
 */
#ifndef HPROF_LISTENER_H
#define HPROF_LISTENER_H

#include <jvmti.h>

struct hw_sink;

/* Connects to g_hp.o.net_host:net_port into g_hp.net_fd. 0, or -1 after
 * an HPROF ERROR. */
int lsn_connect(void);
/* Starts the listener thread. 0 or -1 (reported; output still flows). */
int lsn_start(jvmtiEnv *j, JNIEnv *env);
/* Stops the listener (if running) and closes the socket. Idempotent. */
void lsn_stop(jvmtiEnv *j);

/* The output's sink with net= (out_open): writes go down the socket within
 * the send bound. NULL without net= or when out of memory. The socket stays
 * the listener's: the sink never closes it. */
struct hw_sink *lsn_sink(void);
/* One deadline, the send bound from now, for every write until
 * lsn_bound_end, the one under way included: out.c brackets a flush and the
 * final close with them (under out_lock, so they never nest). No-ops
 * without net=. */
void lsn_bound_begin(void);
void lsn_bound_end(void);
/* The errno the sink failed with (0: none). Its HPROF ERROR is printed
 * already: out.c does not report the writer's copy of it again. */
int lsn_failed(void);

#endif
