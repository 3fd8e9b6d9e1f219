/*
 * hsattach.c: the agent's client of its own JVM's attach listener (see
 * hsattach.h): the trigger file and SIGQUIT that start the listener, the
 * bounded waits, protocol 1's request and reply, and the CPU count that
 * sizes GC.heap_dump -parallel.
 */
#include "hsattach.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define HSA_STEP_MS 10 /* polling step of the bounded waits */

static long long hsa_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void hsa_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int hsa_parse_reply(const char *buf, size_t n, int *code, size_t *text)
{
    size_t i = 0;
    int neg = 0;
    long v = 0;
    if (i < n && buf[i] == '-') {
        neg = 1;
        i++;
    }
    size_t digits = i;
    while (i < n && buf[i] >= '0' && buf[i] <= '9' && i - digits < 9)
        v = v * 10 + (buf[i++] - '0');
    if (i == digits || i >= n || buf[i] != '\n')
        return -1;
    *code = (int)(neg ? -v : v);
    *text = i + 1;
    return 0;
}

int hsa_quote(char *dst, size_t cap, const char *path)
{
    /* HotSpot's DCmdArgIter splits on spaces, cuts an unquoted word at
     * '=' (key=value: GC.heap_dump /tmp/a=b/x dumps into /tmp/a) and takes
     * "..." whole; it has no escape, so a path with a quote cannot be
     * said, nor a quoted one ending in a backslash (\" is no end) */
    if (strpbrk(path, "\"'\n\r") || !*path)
        return -1;
    int q = strpbrk(path, " =") != NULL;
    if (q && path[strlen(path) - 1] == '\\')
        return -1;
    int n = snprintf(dst, cap, "%s%s%s", q ? "\"" : "", path, q ? "\"" : "");
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* cgroup v2: cpu.max of our own cgroup ("max 100000" or "QUOTA PERIOD") */
static int hsa_cgroup_cpus(void)
{
    char rel[512] = "", path[700], line[128];
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (f) {
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "0::", 3) == 0) {
                snprintf(rel, sizeof rel, "%s", line + 3);
                rel[strcspn(rel, "\n")] = 0;
            }
        fclose(f);
    }
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/cpu.max", strcmp(rel, "/") == 0 ? "" : rel);
    f = fopen(path, "re");
    if (!f)
        f = fopen("/sys/fs/cgroup/cpu.max", "re"); /* a namespaced view */
    if (!f)
        return 0;
    long long quota = -1, period = 0;
    char q[32] = "";
    if (fscanf(f, "%31s %lld", q, &period) == 2 && strcmp(q, "max") != 0)
        quota = atoll(q);
    fclose(f);
    if (quota <= 0 || period <= 0)
        return 0;
    return (int)((quota + period - 1) / period);
}

int hsa_cpus(void)
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (int)c : 1;
    }
    int cg = hsa_cgroup_cpus();
    if (cg > 0 && cg < n)
        n = cg;
    return n > 0 ? n : 1;
}

/* The socket file is our user's socket, closed to others (as HotSpot
 * makes it, and as its own client checks): no one else's listener gets
 * our request. 1: yes, 0: not there, -1: there but not ours (why). */
static int hsa_sock_ok(const char *sock, char *why, size_t cap)
{
    struct stat st;
    if (lstat(sock, &st) != 0)
        return 0;
    if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
        snprintf(why, cap, "%s is not this user's private socket", sock);
        return -1;
    }
    return 1;
}

/* A connection to the listener of c->pid, proven (SO_PEERCRED) to be
 * that process. The connect is bounded too (bound_ms, or *abandon): a
 * listener busy with a request takes no connection, and once its queue
 * (HotSpot's listen backlog) is full, a blocking connect waits for as
 * long. Returns the socket (blocking), or -1 (errno; ESRCH: another peer;
 * EAGAIN: the queue stayed full). */
static int hsa_connect(const char *sock, pid_t pid, int bound_ms, const volatile int *abandon)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (strlen(sock) >= sizeof a.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(a.sun_path, sock, strlen(sock) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    int rc;
    long long deadline = hsa_now_ns() + (long long)bound_ms * 1000000LL;
    for (;;) { /* AF_UNIX: EAGAIN while the queue is full, never EINPROGRESS */
        rc = connect(fd, (struct sockaddr *)&a, sizeof a);
        if (rc == 0 || (errno != EINTR && errno != EAGAIN))
            break;
        if (errno == EAGAIN) {
            if ((abandon && *abandon) || hsa_now_ns() > deadline)
                break;
            hsa_sleep_ms(HSA_STEP_MS);
        }
    }
    struct ucred cr;
    socklen_t len = sizeof cr;
    if (rc == 0 && (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || cr.pid != pid)) {
        errno = ESRCH;
        rc = -1;
    }
    int fl;
    if (rc == 0 && ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0))
        rc = -1;
    if (rc != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Whether SIGQUIT would reach HotSpot's handler: with -Xrs (or a handler
 * someone reset) its default action would end the process. */
static int hsa_quit_handled(void)
{
    struct sigaction sa;
    if (sigaction(SIGQUIT, NULL, &sa) != 0)
        return 0;
    if (sa.sa_flags & SA_SIGINFO)
        return sa.sa_sigaction != NULL;
    return sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN;
}

/* Starts the listener as jcmd does: the trigger file, then SIGQUIT, then
 * the socket awaited (bounded). Returns the connection or -1 (why). */
static int hsa_start(const hsa_call *c, const char *sock, char *why, size_t cap)
{
    if (!hsa_quit_handled()) {
        snprintf(why, cap, "SIGQUIT is not the JVM's (-Xrs?): the attach listener cannot be started");
        return -1;
    }
    char trig[300];
    snprintf(trig, sizeof trig, "%s/.attach_pid%ld", c->sock_dir, (long)c->pid);
    int tfd = open(trig, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int ours = tfd >= 0;
    if (tfd >= 0)
        close(tfd);
    else if (errno != EEXIST) { /* EEXIST: a jcmd's, under way */
        snprintf(why, cap, "cannot create %s: %s", trig, strerror(errno));
        return -1;
    }
    /* while the listener is awaited, a DataDumpRequest may be our
     * SIGQUIT (HSA_QUIT_PENDING); once it answers, ours was handled */
    if (c->quit_ns)
        __atomic_store_n(c->quit_ns, HSA_QUIT_PENDING, __ATOMIC_RELEASE);
    int fd = -1, e = 0;
    if (kill(c->pid, SIGQUIT) != 0) {
        e = errno;
        snprintf(why, cap, "SIGQUIT to %ld: %s", (long)c->pid, strerror(e));
    }
    for (int t = 0; !e && t <= c->start_ms; t += HSA_STEP_MS) {
        int ok = hsa_sock_ok(sock, why, cap);
        if (ok < 0)
            break;
        if (ok > 0 && (fd = hsa_connect(sock, c->pid, c->start_ms, NULL)) >= 0)
            break;
        hsa_sleep_ms(HSA_STEP_MS);
    }
    if (fd < 0 && !e && !why[0])
        snprintf(why, cap, "the attach listener did not appear (%s) within %d ms", sock, c->start_ms);
    long long pending = HSA_QUIT_PENDING;
    if (c->quit_ns && !e) /* the wait over: a grace from now (unless taken meanwhile) */
        __atomic_compare_exchange_n(c->quit_ns, &pending, hsa_now_ns(), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    else if (c->quit_ns) /* no SIGQUIT went */
        __atomic_compare_exchange_n(c->quit_ns, &pending, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    if (ours)
        unlink(trig);
    return fd;
}

int hsa_listen(const hsa_call *c, char *why, size_t cap)
{
    char sock[300];
    why[0] = 0;
    snprintf(sock, sizeof sock, "%s/.java_pid%ld", c->sock_dir, (long)c->pid);
    int ok = hsa_sock_ok(sock, why, cap);
    if (ok < 0)
        return -1;
    int fd = ok > 0 ? hsa_connect(sock, c->pid, c->start_ms, NULL) : hsa_start(c, sock, why, cap);
    if (fd < 0 && !why[0])
        snprintf(why, cap, "connecting to %s: %s", sock, strerror(errno));
    if (fd >= 0)
        close(fd); /* an empty connection: the listener reads no request, and goes on */
    return fd >= 0 ? 0 : -1;
}

static int hsa_write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int hsa_jcmd(const hsa_call *c, char *out, size_t cap)
{
    char why[512] = "";
    char sock[300];
    out[0] = 0;
    if (strlen(c->command) + 1 > HSA_ARG_MAX) {
        snprintf(out, cap, "the command is longer than the attach protocol's %d bytes", HSA_ARG_MAX - 1);
        return HSA_UNAVAILABLE;
    }
    snprintf(sock, sizeof sock, "%s/.java_pid%ld", c->sock_dir, (long)c->pid);
    int fd = -1;
    int ok = hsa_sock_ok(sock, why, sizeof why);
    if (ok > 0) {
        fd = hsa_connect(sock, c->pid, c->pick_ms, c->abandon);
        if (fd < 0 && errno == EAGAIN) { /* busy, as a request not taken up */
            snprintf(out, cap, "%s", c->abandon && *c->abandon
                                         ? "the attach listener is busy with a request that waits for this dump"
                                         : "the attach listener's queue stayed full: it did not take up the request in time");
            return HSA_ABANDONED;
        }
        if (fd < 0)
            snprintf(why, sizeof why, "connecting to %s: %s", sock,
                     errno == ESRCH ? "another process answers" : strerror(errno));
    } else if (ok == 0 && c->may_start) {
        fd = hsa_start(c, sock, why, sizeof why);
    } else if (ok == 0) {
        snprintf(out, cap, "no attach listener yet (%s), and this thread cannot start one", sock);
        return HSA_NOT_STARTED;
    }
    if (fd < 0) {
        snprintf(out, cap, "%s", why);
        return HSA_UNAVAILABLE;
    }
    /* protocol 1: version, operation, three arguments */
    char req[HSA_ARG_MAX + 16];
    size_t n = 0;
    memcpy(req, "1\0jcmd\0", 7);
    n = 7;
    size_t cl = strlen(c->command) + 1;
    memcpy(req + n, c->command, cl);
    n += cl;
    req[n++] = 0;
    req[n++] = 0;
    if (hsa_write_all(fd, req, n) != 0) {
        snprintf(out, cap, "sending the request to %s: %s", sock, strerror(errno));
        close(fd);
        return HSA_UNAVAILABLE;
    }
    /* bounded: the listener taking up the request (the proof) */
    int proven = 0;
    long long deadline = hsa_now_ns() + (long long)c->pick_ms * 1000000LL;
    while (!proven) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, HSA_STEP_MS);
        struct stat st;
        if (r > 0 || (c->proof && stat(c->proof, &st) == 0)) {
            proven = 1;
        } else if (r < 0 && errno != EINTR) {
            snprintf(out, cap, "waiting for %s: %s", sock, strerror(errno));
            close(fd);
            return HSA_ABANDONED;
        } else if ((c->abandon && *c->abandon) || hsa_now_ns() > deadline) {
            snprintf(out, cap, "%s", c->abandon && *c->abandon
                                         ? "the attach listener is busy with a request that waits for this dump"
                                         : "the attach listener did not take up the request in time");
            close(fd);
            return HSA_ABANDONED;
        }
    }
    /* unbounded: the listener is at work on our request */
    char *buf = malloc(cap + 32);
    size_t got = 0, room = cap + 31;
    if (!buf) {
        snprintf(out, cap, "out of memory");
        close(fd);
        return HSA_UNAVAILABLE; /* the dump goes on; its reply is not read */
    }
    for (;;) {
        char tmp[4096];
        ssize_t r = read(fd, tmp, sizeof tmp);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        size_t k = (size_t)r < room - got ? (size_t)r : room - got; /* the rest drained */
        memcpy(buf + got, tmp, k);
        got += k;
    }
    close(fd);
    int code = 0;
    size_t text = 0;
    int rc;
    if (hsa_parse_reply(buf, got, &code, &text) != 0) {
        snprintf(out, cap, "the attach listener's reply is not one of protocol 1 (%zu bytes)", got);
        rc = HSA_REFUSED;
    } else {
        size_t tl = got - text < cap - 1 ? got - text : cap - 1;
        memcpy(out, buf + text, tl);
        out[tl] = 0;
        rc = code == 0 ? HSA_OK : HSA_REFUSED;
        if (rc != HSA_OK && !out[0])
            snprintf(out, cap, "the attach listener answered %d", code);
    }
    free(buf);
    return rc;
}
