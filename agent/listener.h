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
 * listener (output then fails once, as a sticky error). EXIT ends the VM
 * through System.exit(0), never exit() from this thread.
 *
 * Lifecycle: lsn_connect in Agent_OnLoad/OnAttach (before the output is
 * opened); lsn_start in the live phase (VMInit or attach); lsn_stop at VM
 * death after the final output: it shuts the socket down, which wakes the
 * blocked read, waits for the thread to leave (handshake), and closes it.
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
