/*
 * hc_net.h: TCP helpers of the net= channel, shared by the agent and
 * hprof-ctl: connecting out (IPv4, IPv6, host names), listening, sending
 * whole buffers, and receiving one framed command (hc_proto.h) at a time.
 * No JVMTI; every error is a value with a sentence, never an exit.
 */
#ifndef HPROF_HC_NET_H
#define HPROF_HC_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "hc_proto.h"

/* Connects to host:port (a name, an IPv4 or an IPv6 literal), trying every
 * address the name resolves to, all within HC_NET_CONNECT_MS in total (each
 * address gets an equal share of the time left, so one that does not answer
 * cannot starve the next; name resolution itself is bounded only by the
 * resolver's own timeouts, resolv.conf). Returns the fd (TCP_NODELAY,
 * close-on-exec, blocking), or -1 with the reason in err. */
#define HC_NET_CONNECT_MS 10000
int hc_net_connect(const char *host, unsigned port, char *err, size_t errlen);

#define HC_NET_MAX_LISTEN 2

/* Listens on port (0: any free port). `addr` NULL: loopback only, 127.0.0.1
 * and ::1 on the same port (::1 left out on a machine without IPv6); "*":
 * every address of the machine (dual-stack IPv6 when available, else IPv4);
 * else one IPv4 or IPv6 address ("[::1]" or "::1"). Whoever can connect
 * there is taken for an agent: the channel has no authentication, so
 * loopback is the safe choice. Fills fds[0..n-1] and returns n (1 or 2),
 * with the port bound in *bound, or -1 with the reason in err. */
int hc_net_listen(const char *addr, unsigned port, int fds[HC_NET_MAX_LISTEN], unsigned *bound,
                  char *err, size_t errlen);

/* Parses a numeric IPv4 or IPv6 address (brackets allowed) into ss with
 * `port`. 0, or -1 when it is not one. */
int hc_net_parse_addr(const char *text, unsigned port, struct sockaddr_storage *ss,
                      socklen_t *len);

/* Sends all `len` bytes (EINTR retried, no SIGPIPE). 0 or an errno value. */
int hc_net_send_all(int fd, const void *data, size_t len);

/* Monotonic clock in ns (CLOCK_MONOTONIC): the time base of deadlines. */
int64_t hc_net_now_ns(void);

/* Sends all `len` bytes unless `deadline_ns` (hc_net_now_ns time) passes
 * first: one deadline for the whole buffer, however the peer paces its
 * reads (a peer that reads a byte now and then cannot stretch it, as it
 * would a per-call SO_SNDTIMEO). Sends are non-blocking (MSG_DONTWAIT: the
 * fd keeps its blocking mode, so another thread may block reading it) and
 * waits are poll(). Returns 0, ETIMEDOUT when the deadline came first, or
 * the errno of a failure (EPIPE, ECONNRESET...; no SIGPIPE); *sent (if not
 * NULL) gets the bytes sent in every case. */
int hc_net_send_until(int fd, const void *data, size_t len, int64_t deadline_ns, size_t *sent);

typedef enum hc_recv_status {
    HC_RECV_OK = 0,     /* *c holds a valid command */
    HC_RECV_BAD = 1,    /* a framed command was skipped whole; why says why */
    HC_RECV_EOF = 2,    /* the EOF command (0xFF) */
    HC_RECV_CLOSED = 3, /* the peer closed (or the socket was shut down) */
    HC_RECV_ERROR = 4   /* a socket error; why holds the errno text */
} hc_recv_status;

/* Reads one command from fd, blocking. A payload longer than HC_MAX_PAYLOAD
 * is read and discarded, never buffered. A connection that ends inside a
 * command is HC_RECV_CLOSED, with how far it got in why. */
hc_recv_status hc_net_recv_cmd(int fd, hc_cmd *c, char *why, size_t whylen);

#endif
