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
 * listener (output then fails once, as a sticky error); a peer that stops
 * reading for LSN_SEND_TIMEOUT_S is dropped the same way (SO_SNDTIMEO), so
 * it cannot hang the program. After EOF, input is read and dropped. EXIT
 * ends the VM through System.exit(0), never exit() from this thread. With
 * no command coming, the output is flushed every LSN_FLUSH_MS.
 *
 * Lifecycle: lsn_connect in Agent_OnLoad/OnAttach (before the output is
 * opened); lsn_start in the live phase (VMInit or attach); lsn_stop at VM
 * death after the final output: FIN (shutdown for writing), the thread
 * leaves at its next poll (a read blocked inside a command is woken by
 * shutting reading down too), input is drained until the peer closes
 * (bounded), then the socket is closed: closing with unread input would
 * reset the connection and lose the output's tail at the front end.
 */
#ifndef HPROF_LISTENER_H
#define HPROF_LISTENER_H

#include <jvmti.h>

/* Connects to g_hp.o.net_host:net_port into g_hp.net_fd. 0, or -1 after
 * an HPROF ERROR. */
int lsn_connect(void);
/* Starts the listener thread. 0 or -1 (reported; output still flows). */
int lsn_start(jvmtiEnv *j, JNIEnv *env);
/* Stops the listener (if running) and closes the socket. Idempotent. */
void lsn_stop(jvmtiEnv *j);

#endif
