/*
 * hc_net.c: TCP helpers of the net= channel (see hc_net.h).
 */
#include "hc_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HC_NET_BACKLOG 16
#define HC_NET_SCRATCH 4096     /* discarded payload bytes read at a time */

int64_t hc_net_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* poll() timeout in ms until `deadline_ns`: rounded up, so a wait never
 * ends just before its deadline and spins; 0 once it has passed. */
static int hc_net_ms_left(int64_t deadline_ns)
{
    int64_t left = deadline_ns - hc_net_now_ns();
    if (left <= 0)
        return 0;
    int64_t ms = (left + 999999) / 1000000;
    return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

/* connect() bounded by `deadline_ns`: an address that does not answer must
 * not hold the JVM's start-up for minutes. An interrupted poll waits for
 * what is left, never a fresh timeout. 0, or -1 with *e set. */
static int hc_net_connect_one(int fd, const struct sockaddr *sa, socklen_t len,
                              int64_t deadline_ns, int *e)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
        *e = errno;
        return -1;
    }
    if (connect(fd, sa, len) < 0) {
        if (errno != EINPROGRESS && errno != EINTR) {
            *e = errno;
            return -1;
        }
        /* EINTR too: the connection goes on in the background */
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int pr;
        do
            pr = poll(&pfd, 1, hc_net_ms_left(deadline_ns));
        while (pr < 0 && errno == EINTR);
        if (pr == 0) {
            *e = ETIMEDOUT;
            return -1;
        }
        int soerr = 0;
        socklen_t sl = sizeof soerr;
        if (pr < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
            *e = pr < 0 ? errno : soerr ? soerr : errno;
            return -1;
        }
    }
    if (fcntl(fd, F_SETFL, fl) < 0) {
        *e = errno;
        return -1;
    }
    return 0;
}

int hc_net_connect(const char *host, unsigned port, char *err, size_t errlen)
{
    char service[16];
    snprintf(service, sizeof service, "%u", port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV; /* every address: ::1 works on IPv4-only hosts too */
    int g = getaddrinfo(host, service, &hints, &res);
    if (g != 0) {
        snprintf(err, errlen, "cannot resolve %s: %s", host, gai_strerror(g));
        return -1;
    }
    int fd = -1, last = 0, left = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next)
        left++;
    /* one bound for the whole connect: each address gets an equal share of
     * the time still left (the last one all of it) */
    const int64_t end = hc_net_now_ns() + (int64_t)HC_NET_CONNECT_MS * 1000000;
    for (struct addrinfo *a = res; a; a = a->ai_next, left--) {
        int64_t now = hc_net_now_ns();
        if (now >= end) {
            last = ETIMEDOUT;
            break;
        }
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        if (hc_net_connect_one(fd, a->ai_addr, a->ai_addrlen, now + (end - now) / left, &last) == 0)
            break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "cannot connect to %s:%u: %s", host, port, strerror(last));
        return -1;
    }
    /* commands are answered by small records: do not hold them back */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* A listening socket on `sa` (its port 0: any free port). v6only: 1 or 0
 * sets IPV6_V6ONLY, -1 leaves the system's default. Returns the fd and the
 * port bound in *bound, or -1 with errno set. */
static int hc_net_listen_sa(struct sockaddr_storage *ss, socklen_t sl, int v6only, unsigned *bound)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss->ss_family == AF_INET6 && v6only >= 0)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    if (bind(fd, (struct sockaddr *)ss, sl) < 0 || listen(fd, HC_NET_BACKLOG) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    struct sockaddr_storage got;
    socklen_t gl = sizeof got;
    if (getsockname(fd, (struct sockaddr *)&got, &gl) == 0)
        *bound = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
                                                 : ((struct sockaddr_in *)&got)->sin_port);
    return fd;
}

/* ss = the address `a` (in6addr_* or an IPv4 in host order) and port. */
static socklen_t hc_net_sa6(struct sockaddr_storage *ss, const struct in6_addr *a, unsigned port)
{
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    memset(ss, 0, sizeof *ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons((uint16_t)port);
    s6->sin6_addr = *a;
    return sizeof *s6;
}

static socklen_t hc_net_sa4(struct sockaddr_storage *ss, uint32_t a, unsigned port)
{
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    memset(ss, 0, sizeof *ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)port);
    s4->sin_addr.s_addr = htonl(a);
    return sizeof *s4;
}

int hc_net_parse_addr(const char *text, unsigned port, struct sockaddr_storage *ss, socklen_t *len)
{
    char buf[INET6_ADDRSTRLEN + 2];
    size_t n = strlen(text);
    if (n >= 2 && text[0] == '[' && text[n - 1] == ']') { /* [::1], as in net=[::1]:P */
        text++;
        n -= 2;
    }
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    struct in6_addr a6;
    struct in_addr a4;
    if (inet_pton(AF_INET6, buf, &a6) == 1) {
        *len = hc_net_sa6(ss, &a6, port);
        return 0;
    }
    if (inet_pton(AF_INET, buf, &a4) == 1) {
        *len = hc_net_sa4(ss, ntohl(a4.s_addr), port);
        return 0;
    }
    return -1;
}

/* Loopback: 127.0.0.1 and ::1 on one port (agents given net=localhost:P
 * try either; net=[::1]:P only the second). A machine without IPv6 gets
 * the IPv4 socket alone. With port 0, a port free on 127.0.0.1 may be taken
 * on ::1: another one is tried. */
static int hc_net_listen_loopback(unsigned port, int fds[HC_NET_MAX_LISTEN], unsigned *bound,
                                  char *err, size_t errlen)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        struct sockaddr_storage ss;
        socklen_t sl = hc_net_sa4(&ss, INADDR_LOOPBACK, port);
        int f4 = hc_net_listen_sa(&ss, sl, -1, bound);
        if (f4 < 0) {
            snprintf(err, errlen, "cannot listen on 127.0.0.1 port %u: %s", port, strerror(errno));
            return -1;
        }
        sl = hc_net_sa6(&ss, &in6addr_loopback, *bound);
        unsigned b6 = *bound;
        int f6 = hc_net_listen_sa(&ss, sl, 1, &b6);
        if (f6 >= 0) {
            fds[0] = f4;
            fds[1] = f6;
            return 2;
        }
        int e = errno;
        if (e == EAFNOSUPPORT || e == EADDRNOTAVAIL || e == EPROTONOSUPPORT) {
            fds[0] = f4; /* no IPv6 loopback on this machine */
            return 1;
        }
        close(f4);
        if (e != EADDRINUSE || port != 0) {
            snprintf(err, errlen, "cannot listen on [::1] port %u: %s", *bound, strerror(e));
            return -1;
        }
    }
    snprintf(err, errlen, "cannot find a port free on both 127.0.0.1 and [::1]");
    return -1;
}

int hc_net_listen(const char *addr, unsigned port, int fds[HC_NET_MAX_LISTEN], unsigned *bound,
                  char *err, size_t errlen)
{
    if (port > 65535) {
        snprintf(err, errlen, "port %u is not in 0..65535", port);
        return -1;
    }
    *bound = port;
    if (!addr)
        return hc_net_listen_loopback(port, fds, bound, err, errlen);
    struct sockaddr_storage ss;
    socklen_t sl;
    int fd;
    if (!strcmp(addr, "*")) {
        /* every address: dual stack (IPv4 clients arrive as ::ffff:a.b.c.d),
         * or IPv4 alone on a machine without IPv6 */
        sl = hc_net_sa6(&ss, &in6addr_any, port);
        fd = hc_net_listen_sa(&ss, sl, 0, bound);
        if (fd < 0) {
            sl = hc_net_sa4(&ss, INADDR_ANY, port);
            fd = hc_net_listen_sa(&ss, sl, -1, bound);
        }
    } else {
        if (hc_net_parse_addr(addr, port, &ss, &sl) != 0) {
            snprintf(err, errlen, "'%s' is not an IPv4 or IPv6 address", addr);
            return -1;
        }
        fd = hc_net_listen_sa(&ss, sl, -1, bound);
    }
    if (fd < 0) {
        snprintf(err, errlen, "cannot listen on %s port %u: %s", strcmp(addr, "*") ? addr : "every address",
                 port, strerror(errno));
        return -1;
    }
    fds[0] = fd;
    return 1;
}

int hc_net_send_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int hc_net_send_until(int fd, const void *data, size_t len, int64_t deadline_ns, size_t *sent)
{
    const char *p = data;
    size_t done = 0;
    int e = 0;
    while (done < len) {
        ssize_t n = send(fd, p + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            e = errno;
            break;
        }
        /* the socket's buffer is full: wait for room, within the deadline */
        int ms = hc_net_ms_left(deadline_ns);
        if (ms == 0) {
            e = ETIMEDOUT;
            break;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int pr = poll(&pfd, 1, ms);
        if (pr < 0 && errno != EINTR) {
            e = errno;
            break;
        }
        /* ready, interrupted or timed out: the next send or the clock says
         * which (POLLERR/POLLHUP make the send fail with the reason) */
    }
    if (sent)
        *sent = done;
    return e;
}

/* Reads exactly n bytes (buf NULL: discards them). Returns n, or the number
 * read before the peer closed (< n), or -1 with errno. */
static long recv_full(int fd, uint8_t *buf, size_t n)
{
    uint8_t scratch[HC_NET_SCRATCH];
    size_t got = 0;
    while (got < n) {
        size_t want = n - got;
        uint8_t *dst = buf ? buf + got : scratch;
        if (!buf && want > sizeof scratch)
            want = sizeof scratch;
        ssize_t r = recv(fd, dst, want, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break; /* orderly close (or shutdown): never spin on it */
        got += (size_t)r;
    }
    return (long)got;
}

hc_recv_status hc_net_recv_cmd(int fd, hc_cmd *c, char *why, size_t whylen)
{
    uint8_t hdr[HC_HEADER_SIZE];
    if (why && whylen)
        why[0] = '\0';
    long r = recv_full(fd, hdr, 1);
    if (r < 0)
        goto error;
    if (r == 0)
        return HC_RECV_CLOSED;
    if (hdr[0] == HC_EOF) {
        memset(c, 0, sizeof *c);
        c->tag = HC_EOF;
        return HC_RECV_EOF;
    }
    r = recv_full(fd, hdr + 1, HC_HEADER_SIZE - 1);
    if (r < 0)
        goto error;
    if (r < (long)HC_HEADER_SIZE - 1) {
        snprintf(why, whylen, "the connection ended inside a command header (%ld of %u bytes)",
                 r + 1, HC_HEADER_SIZE);
        return HC_RECV_CLOSED;
    }
    uint8_t tag;
    uint32_t serial, length;
    hc_decode_header(hdr, &tag, &serial, &length);
    uint8_t payload[HC_MAX_PAYLOAD];
    int keep = length <= sizeof payload;
    r = recv_full(fd, keep ? payload : NULL, length);
    if (r < 0)
        goto error;
    if (r < (long)length) {
        snprintf(why, whylen, "the connection ended inside a command's payload (%ld of %u bytes)",
                 r, length);
        return HC_RECV_CLOSED;
    }
    if (!keep) {
        const char *n = hc_tag_name(tag);
        memset(c, 0, sizeof *c);
        c->tag = tag;
        c->serial = serial;
        if (n && tag != HC_EOF)
            snprintf(why, whylen, "%s with a %u-byte payload (at most %u expected): skipped", n,
                     length, HC_MAX_PAYLOAD);
        else
            snprintf(why, whylen, "unknown command tag 0x%02x (%u-byte payload): skipped", tag,
                     length);
        return HC_RECV_BAD;
    }
    return hc_decode_payload(tag, serial, payload, length, c, why, whylen) == HC_OK ? HC_RECV_OK
                                                                                    : HC_RECV_BAD;
error:
    snprintf(why, whylen, "%s", strerror(errno));
    return HC_RECV_ERROR;
}
