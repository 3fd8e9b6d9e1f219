/*
 * test_hsattach.c: the agent's attach client (agent/hsattach.c) against a
 * fake listener in this process (a thread on a UNIX socket in a temporary
 * directory): the exact bytes of protocol 1's request, each outcome, and
 * that every wait before the listener takes up the request is bounded.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "hsattach.h"
#include "testutil.h"

typedef struct fake {
    int lfd;                /* listening socket */
    const char *reply;      /* written after the request (NULL: none) */
    size_t reply_len;
    int delay_ms;           /* before the reply */
    const char *proof;      /* created before the delay (NULL: none) */
    char req[2048];         /* the request as read */
    size_t req_len;
} fake;

static char g_dir[64], g_sock[128];

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *fake_run(void *arg)
{
    fake *f = arg;
    int c = accept(f->lfd, NULL, NULL);
    if (c < 0)
        return NULL;
    /* protocol 1: five NUL-terminated strings */
    int nuls = 0;
    while (nuls < 5 && f->req_len < sizeof f->req) {
        ssize_t r = read(c, f->req + f->req_len, 1);
        if (r <= 0)
            break;
        if (f->req[f->req_len++] == 0)
            nuls++;
    }
    if (f->proof) {
        FILE *p = fopen(f->proof, "w");
        if (p)
            fclose(p);
    }
    if (f->delay_ms)
        usleep((useconds_t)f->delay_ms * 1000);
    if (f->reply && send(c, f->reply, f->reply_len, MSG_NOSIGNAL) < 0 && errno != EPIPE)
        perror("fake listener");
    if (!f->reply) { /* a listener that never answers: hold until the client goes */
        char b;
        while (read(c, &b, 1) > 0)
            ;
    }
    close(c);
    return NULL;
}

static int fake_listen(mode_t mode)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%.100s", g_sock);
    unlink(g_sock);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0)
        return -1;
    chmod(g_sock, mode);
    return fd;
}

static hsa_call call_of(const char *cmd)
{
    hsa_call c = {.sock_dir = g_dir, .pid = getpid(), .may_start = 0, .start_ms = 200,
                  .pick_ms = 300, .command = cmd};
    return c;
}

/* one request to a fake listener: the outcome, *f filled */
static int exchange(fake *f, hsa_call *c, char *out, size_t cap, mode_t mode)
{
    f->lfd = fake_listen(mode);
    CU_ASSERT_FATAL(f->lfd >= 0);
    pthread_t t;
    CU_ASSERT_FATAL(pthread_create(&t, NULL, fake_run, f) == 0);
    int rc = hsa_jcmd(c, out, cap);
    shutdown(f->lfd, SHUT_RDWR); /* no client came: accept returns */
    pthread_join(t, NULL);
    close(f->lfd);
    unlink(g_sock);
    return rc;
}

static void test_parse_reply(void)
{
    int code = 7;
    size_t text = 9;
    CU_ASSERT_EQUAL(hsa_parse_reply("0\nHeap dump file created", 24, &code, &text), 0);
    CU_ASSERT_EQUAL(code, 0);
    CU_ASSERT_EQUAL(text, 2);
    CU_ASSERT_EQUAL(hsa_parse_reply("-1\nx", 4, &code, &text), 0);
    CU_ASSERT_EQUAL(code, -1);
    CU_ASSERT_EQUAL(text, 3);
    CU_ASSERT_EQUAL(hsa_parse_reply("101\n", 4, &code, &text), 0);
    CU_ASSERT_EQUAL(code, 101);
    CU_ASSERT_EQUAL(text, 4);
    CU_ASSERT_EQUAL(hsa_parse_reply("0", 1, &code, &text), -1);       /* no newline */
    CU_ASSERT_EQUAL(hsa_parse_reply("", 0, &code, &text), -1);
    CU_ASSERT_EQUAL(hsa_parse_reply("\n", 1, &code, &text), -1);      /* no digits */
    CU_ASSERT_EQUAL(hsa_parse_reply("-\n", 2, &code, &text), -1);
    CU_ASSERT_EQUAL(hsa_parse_reply("x0\n", 3, &code, &text), -1);
    CU_ASSERT_EQUAL(hsa_parse_reply("1234567890\n", 11, &code, &text), -1); /* 10 digits */
    CU_ASSERT_EQUAL(hsa_parse_reply("0 \n", 3, &code, &text), -1);
}

static void test_quote(void)
{
    char b[32];
    CU_ASSERT_EQUAL(hsa_quote(b, sizeof b, "/tmp/x.hprof"), 0);
    CU_ASSERT_STRING_EQUAL(b, "/tmp/x.hprof");
    CU_ASSERT_EQUAL(hsa_quote(b, sizeof b, "/tmp/a b/x"), 0);
    CU_ASSERT_STRING_EQUAL(b, "\"/tmp/a b/x\"");
    CU_ASSERT_EQUAL(hsa_quote(b, sizeof b, "/tmp/a\"b"), -1);
    CU_ASSERT_EQUAL(hsa_quote(b, sizeof b, "/tmp/a'b"), -1);
    CU_ASSERT_EQUAL(hsa_quote(b, sizeof b, "/tmp/a\nb"), -1);
    CU_ASSERT_EQUAL(hsa_quote(b, sizeof b, ""), -1);
    CU_ASSERT_EQUAL(hsa_quote(b, 12, "/tmp/x.hprof"), -1); /* 12 + NUL > 12 */
    CU_ASSERT_EQUAL(hsa_quote(b, 13, "/tmp/x.hprof"), 0);
    /* DCmdArgIter cuts an unquoted word at '=' (key=value): GC.heap_dump
     * /tmp/a=b/x.hprof dumps into /tmp/a */
    CU_ASSERT_EQUAL(hsa_quote(b, sizeof b, "/tmp/a=b/x.hprof"), 0);
    CU_ASSERT_STRING_EQUAL(b, "\"/tmp/a=b/x.hprof\"");
    /* inside quotes a backslash before the closing one escapes it */
    CU_ASSERT_EQUAL(hsa_quote(b, sizeof b, "/tmp/a b\\"), -1);
    CU_ASSERT_EQUAL(hsa_quote(b, sizeof b, "/tmp/a=b\\"), -1);
    CU_ASSERT_EQUAL(hsa_quote(b, sizeof b, "/tmp/ab\\"), 0);
    CU_ASSERT_STRING_EQUAL(b, "/tmp/ab\\");
    CU_ASSERT_EQUAL(hsa_quote(b, 17, "/tmp/a=b/x.hprof"), -1); /* 16 + 2 quotes */
    CU_ASSERT_EQUAL(hsa_quote(b, 19, "/tmp/a=b/x.hprof"), 0);
}

/* a listener whose queue is full (it accepts nothing: busy with a
 * request, 5 jcmds queued): the connect is bounded too */
typedef struct jc {
    hsa_call c;
    char out[512];
    int rc, done;
} jc;

static void *jcmd_run(void *arg)
{
    jc *j = arg;
    j->rc = hsa_jcmd(&j->c, j->out, sizeof j->out);
    __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_queue_full(void)
{
    int lfd = fake_listen(0600);
    CU_ASSERT_FATAL(lfd >= 0);
    CU_ASSERT_FATAL(listen(lfd, 0) == 0);
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%.100s", g_sock);
    int q[8], nq = 0;
    for (; nq < 8; nq++) { /* fill the queue: connects that would block */
        q[nq] = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (connect(q[nq], (struct sockaddr *)&a, sizeof a) != 0) {
            CU_ASSERT_EQUAL(errno, EAGAIN);
            close(q[nq]);
            break;
        }
    }
    CU_ASSERT(nq >= 1 && nq < 8);
    jc j = {.c = call_of("GC.heap_dump /tmp/x")};
    pthread_t t;
    CU_ASSERT_FATAL(pthread_create(&t, NULL, jcmd_run, &j) == 0);
    long long t0 = now_ms();
    while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE) && now_ms() - t0 < 3000)
        usleep(10000);
    long long took = now_ms() - t0;
    int done = __atomic_load_n(&j.done, __ATOMIC_ACQUIRE);
    CU_ASSERT(done); /* before: blocked in connect until the listener went */
    close(lfd); /* wakes a blocked connect */
    pthread_join(t, NULL);
    for (int i = 0; i < nq; i++)
        close(q[i]);
    unlink(g_sock);
    if (done) {
        CU_ASSERT_EQUAL(j.rc, HSA_ABANDONED);
        CU_ASSERT(took >= 300 && took < 1500); /* pick_ms = 300 */
        CU_ASSERT_PTR_NOT_NULL(strstr(j.out, "queue"));
    }
}

static void test_cpus(void)
{
    int n = hsa_cpus();
    CU_ASSERT(n >= 1);
    CU_ASSERT(n <= sysconf(_SC_NPROCESSORS_CONF));
}

/* the request's exact bytes, and the command's text of a code-0 reply */
static void test_ok(void)
{
    static const char reply[] = "0\nDumping heap to /x ...\nHeap dump file created [5 bytes in 0.001 secs]\n";
    fake f = {.reply = reply, .reply_len = sizeof reply - 1};
    hsa_call c = call_of("GC.heap_dump -parallel=2 /x");
    char out[256];
    CU_ASSERT_EQUAL(exchange(&f, &c, out, sizeof out, 0600), HSA_OK);
    static const char want[] = "1\0jcmd\0GC.heap_dump -parallel=2 /x\0\0\0";
    CU_ASSERT_EQUAL(f.req_len, sizeof want - 1);
    CU_ASSERT(memcmp(f.req, want, sizeof want - 1) == 0);
    CU_ASSERT_STRING_EQUAL(out, "Dumping heap to /x ...\nHeap dump file created [5 bytes in 0.001 secs]\n");
    /* a text longer than out: cut, terminated, the rest drained */
    char small[10];
    fake g = {.reply = reply, .reply_len = sizeof reply - 1};
    CU_ASSERT_EQUAL(exchange(&g, &c, small, sizeof small, 0600), HSA_OK);
    CU_ASSERT_STRING_EQUAL(small, "Dumping h");
}

/* a code other than 0, and a reply that is none */
static void test_refused(void)
{
    char out[256];
    hsa_call c = call_of("GC.heap_dump /x");
    fake f = {.reply = "101\n", .reply_len = 4};
    CU_ASSERT_EQUAL(exchange(&f, &c, out, sizeof out, 0600), HSA_REFUSED);
    CU_ASSERT_STRING_EQUAL(out, "the attach listener answered 101");
    fake g = {.reply = "-1\njava.lang.IllegalArgumentException: Unknown argument\n", .reply_len = 56};
    CU_ASSERT_EQUAL(exchange(&g, &c, out, sizeof out, 0600), HSA_REFUSED);
    CU_ASSERT_STRING_EQUAL(out, "java.lang.IllegalArgumentException: Unknown argument\n");
    fake h = {.reply = "garbage", .reply_len = 7};
    CU_ASSERT_EQUAL(exchange(&h, &c, out, sizeof out, 0600), HSA_REFUSED);
    CU_ASSERT_STRING_EQUAL(out, "the attach listener's reply is not one of protocol 1 (7 bytes)");
}

/* no listener: nothing is waited for without may_start */
static void test_not_started(void)
{
    char out[256];
    hsa_call c = call_of("GC.heap_dump /x");
    long long t0 = now_ms();
    CU_ASSERT_EQUAL(hsa_jcmd(&c, out, sizeof out), HSA_NOT_STARTED);
    CU_ASSERT(now_ms() - t0 < 100);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "no attach listener yet"));
}

/* a socket open to others is not ours to trust; a command too long for
 * protocol 1 is not sent */
static void test_unavailable(void)
{
    char out[256];
    hsa_call c = call_of("GC.heap_dump /x");
    fake f = {.reply = "0\n", .reply_len = 2};
    CU_ASSERT_EQUAL(exchange(&f, &c, out, sizeof out, 0666), HSA_UNAVAILABLE);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "is not this user's private socket"));
    CU_ASSERT_EQUAL(f.req_len, 0);
    char *big = malloc(HSA_ARG_MAX + 1);
    CU_ASSERT_FATAL(big != NULL);
    memset(big, 'a', HSA_ARG_MAX);
    big[HSA_ARG_MAX] = 0;
    hsa_call d = call_of(big);
    CU_ASSERT_EQUAL(hsa_jcmd(&d, out, sizeof out), HSA_UNAVAILABLE);
    CU_ASSERT_STRING_EQUAL(out, "the command is longer than the attach protocol's 1023 bytes");
    big[HSA_ARG_MAX - 1] = 0; /* 1023 bytes + NUL: the longest there is */
    fake g = {.reply = "0\nok", .reply_len = 4};
    CU_ASSERT_EQUAL(exchange(&g, &d, out, sizeof out, 0600), HSA_OK);
    CU_ASSERT_EQUAL(g.req_len, 7 + HSA_ARG_MAX + 2);
    free(big);
}

/* a listener that never takes up the request: given up after pick_ms
 * (300), or at once when the caller says the listener waits for us */
static void test_abandoned(void)
{
    char out[256];
    hsa_call c = call_of("GC.heap_dump /x");
    fake f = {.reply = NULL};
    long long t0 = now_ms();
    CU_ASSERT_EQUAL(exchange(&f, &c, out, sizeof out, 0600), HSA_ABANDONED);
    long long el = now_ms() - t0;
    CU_ASSERT(el >= 290 && el < 2000);
    CU_ASSERT_STRING_EQUAL(out, "the attach listener did not take up the request in time");
    volatile int stop = 1;
    c.abandon = &stop;
    fake g = {.reply = NULL};
    t0 = now_ms();
    CU_ASSERT_EQUAL(exchange(&g, &c, out, sizeof out, 0600), HSA_ABANDONED);
    CU_ASSERT(now_ms() - t0 < 250);
    CU_ASSERT_STRING_EQUAL(out, "the attach listener is busy with a request that waits for this dump");
}

/* once the proof file appears the wait has no bound: a reply after
 * 3 x pick_ms is read */
static void test_proof(void)
{
    char out[256], proof[128];
    snprintf(proof, sizeof proof, "%s/heap.hprof", g_dir);
    hsa_call c = call_of("GC.heap_dump /x");
    c.proof = proof;
    c.pick_ms = 100;
    fake f = {.reply = "0\ndone", .reply_len = 6, .delay_ms = 300, .proof = proof};
    CU_ASSERT_EQUAL(exchange(&f, &c, out, sizeof out, 0600), HSA_OK);
    CU_ASSERT_STRING_EQUAL(out, "done");
    unlink(proof);
    /* without it, the same listener is given up */
    c.proof = NULL;
    fake g = {.reply = "0\ndone", .reply_len = 6, .delay_ms = 300};
    CU_ASSERT_EQUAL(exchange(&g, &c, out, sizeof out, 0600), HSA_ABANDONED);
}

static int hsattach_suites(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/hsattach.XXXXXX");
    if (!mkdtemp(g_dir))
        return -1;
    snprintf(g_sock, sizeof g_sock, "%s/.java_pid%ld", g_dir, (long)getpid());
    CU_pSuite s = CU_add_suite("hsattach", NULL, NULL);
    if (!s || !CU_add_test(s, "protocol 1 reply: code and text, malformed ones refused", test_parse_reply) ||
        !CU_add_test(s, "a path as one command-line argument", test_quote) ||
        !CU_add_test(s, "the CPU count", test_cpus) ||
        !CU_add_test(s, "request bytes and a code-0 reply", test_ok) ||
        !CU_add_test(s, "codes other than 0, a reply that is none", test_refused) ||
        !CU_add_test(s, "no listener, may_start=0: no wait", test_not_started) ||
        !CU_add_test(s, "a socket open to others, a command too long", test_unavailable) ||
        !CU_add_test(s, "a listener that never takes the request: bounded", test_abandoned) ||
        !CU_add_test(s, "a listener whose queue is full: the connect bounded", test_queue_full) ||
        !CU_add_test(s, "the proof file lifts the bound", test_proof))
        return -1;
    return 0;
}

int main(void)
{
    int rc = tu_main(hsattach_suites);
    rmdir(g_dir);
    return rc;
}
