/*
 * test_proto.c: the net= command codec (socket/hc_proto.c) and the framed
 * receive (socket/hc_net.c): every command encodes to the documented bytes
 * and decodes back; every short prefix asks for more; bad payloads and
 * unknown tags are skipped whole by their length, leaving the stream in
 * step; over a socketpair, huge lengths are drained, a truncated command is
 * "closed" with how far it got, EOF and an orderly close are told apart;
 * hc_net_send_until keeps one deadline for a whole buffer, whatever the
 * reader does.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hc_net.h"
#include "hc_proto.h"
#include "testutil.h"

static hc_cmd mk(uint8_t tag)
{
    hc_cmd c;
    memset(&c, 0, sizeof c);
    c.tag = tag;
    c.serial = 0x01020304u;
    return c;
}

static void roundtrip(const hc_cmd *c, size_t want_len)
{
    uint8_t buf[64];
    size_t n = hc_encode(c, buf, sizeof buf);
    CU_ASSERT_EQUAL_FATAL(n, want_len);
    hc_cmd d;
    size_t used = 0;
    char why[128];
    /* every strict prefix is incomplete */
    for (size_t k = 0; k < n; k++) {
        hc_status s = hc_decode(buf, k, &d, &used, why, sizeof why);
        if (c->tag == HC_EOF)
            break;
        CU_ASSERT_EQUAL(s, HC_MORE);
        CU_ASSERT(used > k && used <= n);
    }
    hc_status s = hc_decode(buf, n, &d, &used, why, sizeof why);
    CU_ASSERT_EQUAL(s, c->tag == HC_EOF ? HC_END : HC_OK);
    CU_ASSERT_EQUAL(used, n);
    if (c->tag == HC_EOF)
        return;
    CU_ASSERT_EQUAL(d.tag, c->tag);
    CU_ASSERT_EQUAL(d.serial, c->serial);
    CU_ASSERT_EQUAL(d.flags, c->flags);
    CU_ASSERT_EQUAL(d.cutoff, c->cutoff);
    CU_ASSERT_EQUAL(d.control, c->control);
    CU_ASSERT_EQUAL(d.thread_id, c->thread_id);
    CU_ASSERT_EQUAL(d.depth, c->depth);
    if (c->tag == HC_CONTROL && (c->control == HC_CTL_CPU_ON || c->control == HC_CTL_CPU_OFF))
        CU_ASSERT_EQUAL(d.id_size, c->id_size ? c->id_size : 8);
}

static void test_every_command_roundtrips(void)
{
    uint8_t plain[] = {HC_FORCE_GC, HC_DUMP_HEAP, HC_HEAP_SUMMARY, HC_EXIT, HC_DUMP_TRACES};
    for (size_t i = 0; i < sizeof plain; i++) {
        hc_cmd c = mk(plain[i]);
        roundtrip(&c, 9);
    }
    hc_cmd s = mk(HC_ALLOC_SITES);
    s.flags = HC_SITES_INCREMENTAL | HC_SITES_FORCE_GC;
    s.cutoff = 0.01f;
    roundtrip(&s, 15);
    hc_cmd p = mk(HC_CPU_SAMPLES);
    p.cutoff = 0.5f;
    roundtrip(&p, 15);
    uint16_t simple[] = {HC_CTL_ALLOC_ON, HC_CTL_ALLOC_OFF, HC_CTL_CLEAR_SAMPLES, HC_CTL_CLEAR_SITES};
    for (size_t i = 0; i < 4; i++) {
        hc_cmd c = mk(HC_CONTROL);
        c.control = simple[i];
        roundtrip(&c, 11);
    }
    hc_cmd d = mk(HC_CONTROL);
    d.control = HC_CTL_SET_DEPTH;
    d.depth = 12;
    roundtrip(&d, 13);
    hc_cmd t = mk(HC_CONTROL);
    t.control = HC_CTL_CPU_ON;
    t.thread_id = 0x1122334455667788ULL;
    roundtrip(&t, 19);
    t.control = HC_CTL_CPU_OFF;
    t.id_size = 4;
    t.thread_id = 0xA0B0C0D0u;
    roundtrip(&t, 15);
    hc_cmd e = mk(HC_EOF);
    roundtrip(&e, 1);
}

static void test_documented_bytes(void)
{
    hc_cmd s = mk(HC_ALLOC_SITES);
    s.flags = HC_SITES_BY_ALLOC;
    s.cutoff = 0.5f; /* 0x3F000000 */
    uint8_t buf[32];
    CU_ASSERT_EQUAL_FATAL(hc_encode(&s, buf, sizeof buf), 15);
    static const uint8_t want[] = {0x03, 1, 2, 3, 4, 0, 0, 0, 6, 0, 2, 0x3F, 0, 0, 0};
    CU_ASSERT_EQUAL(memcmp(buf, want, sizeof want), 0);
    hc_cmd t = mk(HC_CONTROL);
    t.control = HC_CTL_CPU_OFF;
    t.id_size = 4;
    t.thread_id = 0x0A0B0C0Du;
    CU_ASSERT_EQUAL_FATAL(hc_encode(&t, buf, sizeof buf), 15);
    static const uint8_t want2[] = {0x08, 1, 2, 3, 4, 0, 0, 0, 6, 0, 4, 0x0A, 0x0B, 0x0C, 0x0D};
    CU_ASSERT_EQUAL(memcmp(buf, want2, sizeof want2), 0); /* network order, not host */
}

static void test_invalid_commands_not_encoded(void)
{
    uint8_t buf[32];
    hc_cmd c = mk(0x42);
    CU_ASSERT_EQUAL(hc_encode(&c, buf, sizeof buf), 0);
    c = mk(HC_ALLOC_SITES);
    c.cutoff = 1.5f;
    CU_ASSERT_EQUAL(hc_encode(&c, buf, sizeof buf), 0);
    c.cutoff = 0.1f;
    c.flags = 0x10;
    CU_ASSERT_EQUAL(hc_encode(&c, buf, sizeof buf), 0);
    c = mk(HC_CONTROL);
    c.control = 9;
    CU_ASSERT_EQUAL(hc_encode(&c, buf, sizeof buf), 0);
    c.control = HC_CTL_CPU_ON;
    c.id_size = 4;
    c.thread_id = 1ULL << 40;
    CU_ASSERT_EQUAL(hc_encode(&c, buf, sizeof buf), 0);
}

/* a bad command is skipped by its length: the next one decodes */
static void expect_bad_then_next(const uint8_t *bad, size_t badlen, const char *why_has)
{
    uint8_t buf[128];
    memcpy(buf, bad, badlen);
    hc_cmd gc = mk(HC_FORCE_GC);
    size_t n = hc_encode(&gc, buf + badlen, sizeof buf - badlen);
    hc_cmd d;
    size_t used;
    char why[160];
    CU_ASSERT_EQUAL(hc_decode(buf, badlen + n, &d, &used, why, sizeof why), HC_BAD);
    CU_ASSERT_EQUAL(used, badlen);
    if (!strstr(why, why_has))
        fprintf(stderr, "\n  why = '%s', expected to contain '%s'\n", why, why_has);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, why_has));
    CU_ASSERT_EQUAL(hc_decode(buf + used, n, &d, &used, why, sizeof why), HC_OK);
    CU_ASSERT_EQUAL(d.tag, HC_FORCE_GC);
}

static void test_bad_payloads_are_skipped_whole(void)
{
    const uint8_t unknown[] = {0x42, 0, 0, 0, 1, 0, 0, 0, 3, 9, 9, 9};
    expect_bad_then_next(unknown, sizeof unknown, "unknown command tag 0x42");
    const uint8_t gc_payload[] = {0x01, 0, 0, 0, 1, 0, 0, 0, 1, 7};
    expect_bad_then_next(gc_payload, sizeof gc_payload, "FORCE GC takes a 0-byte payload, not 1");
    const uint8_t short_sites[] = {0x03, 0, 0, 0, 1, 0, 0, 0, 2, 0, 1};
    expect_bad_then_next(short_sites, sizeof short_sites, "ALLOC SITES takes a 6-byte payload");
    const uint8_t nan_cutoff[] = {0x03, 0, 0, 0, 1, 0, 0, 0, 6, 0, 1, 0x7F, 0xC0, 0, 0};
    expect_bad_then_next(nan_cutoff, sizeof nan_cutoff, "not a number in [0, 1]");
    const uint8_t big_cutoff[] = {0x07, 0, 0, 0, 1, 0, 0, 0, 6, 0, 0, 0x40, 0, 0, 0};
    expect_bad_then_next(big_cutoff, sizeof big_cutoff, "CPU SAMPLES: the cutoff");
    const uint8_t flags[] = {0x03, 0, 0, 0, 1, 0, 0, 0, 6, 0x80, 0, 0, 0, 0, 0};
    expect_bad_then_next(flags, sizeof flags, "unknown flags 0x8000");
    const uint8_t ctl_none[] = {0x08, 0, 0, 0, 1, 0, 0, 0, 0};
    expect_bad_then_next(ctl_none, sizeof ctl_none, "at least a 2-byte sub-command");
    const uint8_t ctl_unknown[] = {0x08, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0x63};
    expect_bad_then_next(ctl_unknown, sizeof ctl_unknown, "unknown CONTROL sub-command 0x0063");
    const uint8_t ctl_tid[] = {0x08, 0, 0, 0, 1, 0, 0, 0, 5, 0, 3, 1, 2, 3};
    expect_bad_then_next(ctl_tid, sizeof ctl_tid, "4- or 8-byte thread id, not 5 bytes");
    const uint8_t depth_long[] = {0x08, 0, 0, 0, 1, 0, 0, 0, 5, 0, 7, 0, 4, 0};
    expect_bad_then_next(depth_long, sizeof depth_long, "CONTROL SET DEPTH takes a 4-byte payload, not 5");
}

static void test_cutoff_edges(void)
{
    hc_cmd c = mk(HC_CPU_SAMPLES);
    c.cutoff = -0.0f; /* the same as 0 */
    roundtrip(&c, 15);
    c.cutoff = 1.0f;
    roundtrip(&c, 15);
    c.cutoff = 1e-45f; /* the smallest denormal */
    roundtrip(&c, 15);
    const uint8_t inf[] = {0x07, 0, 0, 0, 1, 0, 0, 0, 6, 0, 0, 0x7F, 0x80, 0, 0};
    expect_bad_then_next(inf, sizeof inf, "not a number in [0, 1]");
    const uint8_t neg[] = {0x03, 0, 0, 0, 1, 0, 0, 0, 6, 0, 0, 0xBF, 0x80, 0, 0};
    expect_bad_then_next(neg, sizeof neg, "not a number in [0, 1]");
}

/* HC_MAX_PAYLOAD bytes are read and judged; one more is drained unread */
static void test_recv_payload_bound(void)
{
    int sv[2];
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    uint8_t buf[2 * (HC_HEADER_SIZE + HC_MAX_PAYLOAD + 1) + 1];
    size_t n = 0;
    for (uint32_t len = HC_MAX_PAYLOAD; len <= HC_MAX_PAYLOAD + 1; len++) {
        const uint8_t hdr[] = {HC_CONTROL, 0, 0, 0, (uint8_t)len, 0, 0, 0, (uint8_t)len};
        memcpy(buf + n, hdr, sizeof hdr);
        n += sizeof hdr;
        memset(buf + n, 0, len);
        buf[n + 1] = HC_CTL_ALLOC_ON;
        n += len;
    }
    buf[n++] = HC_EOF;
    CU_ASSERT_EQUAL_FATAL(hc_net_send_all(sv[0], buf, n), 0);
    hc_cmd c;
    char why[160];
    CU_ASSERT_EQUAL(hc_net_recv_cmd(sv[1], &c, why, sizeof why), HC_RECV_BAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "CONTROL ALLOC ON takes a 2-byte payload, not 16"));
    CU_ASSERT_EQUAL(hc_net_recv_cmd(sv[1], &c, why, sizeof why), HC_RECV_BAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "CONTROL with a 17-byte payload (at most 16 expected): skipped"));
    CU_ASSERT_EQUAL(hc_net_recv_cmd(sv[1], &c, why, sizeof why), HC_RECV_EOF);
    close(sv[0]);
    close(sv[1]);
}

static void test_recv_over_a_socketpair(void)
{
    int sv[2];
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    uint8_t buf[256];
    size_t n = 0;
    hc_cmd c = mk(HC_DUMP_HEAP);
    n += hc_encode(&c, buf + n, sizeof buf - n);
    /* a known tag with a 100-byte payload: drained, not buffered */
    const uint8_t big[] = {0x03, 0, 0, 0, 9, 0, 0, 0, 100};
    memcpy(buf + n, big, sizeof big);
    n += sizeof big;
    memset(buf + n, 0xAB, 100);
    n += 100;
    c = mk(HC_CONTROL);
    c.control = HC_CTL_SET_DEPTH;
    c.depth = 3;
    n += hc_encode(&c, buf + n, sizeof buf - n);
    buf[n++] = HC_EOF;
    /* then a header cut short by the close */
    buf[n++] = HC_CPU_SAMPLES;
    buf[n++] = 0;
    CU_ASSERT_EQUAL_FATAL(hc_net_send_all(sv[0], buf, n), 0);
    close(sv[0]);
    char why[160];
    CU_ASSERT_EQUAL(hc_net_recv_cmd(sv[1], &c, why, sizeof why), HC_RECV_OK);
    CU_ASSERT_EQUAL(c.tag, HC_DUMP_HEAP);
    CU_ASSERT_EQUAL(hc_net_recv_cmd(sv[1], &c, why, sizeof why), HC_RECV_BAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "ALLOC SITES with a 100-byte payload"));
    CU_ASSERT_EQUAL(c.serial, 9);
    CU_ASSERT_EQUAL(hc_net_recv_cmd(sv[1], &c, why, sizeof why), HC_RECV_OK);
    CU_ASSERT_EQUAL(c.control, HC_CTL_SET_DEPTH);
    CU_ASSERT_EQUAL(c.depth, 3);
    CU_ASSERT_EQUAL(hc_net_recv_cmd(sv[1], &c, why, sizeof why), HC_RECV_EOF);
    CU_ASSERT_EQUAL(hc_net_recv_cmd(sv[1], &c, why, sizeof why), HC_RECV_CLOSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "inside a command header (2 of 9 bytes)"));
    /* after the close: closed again, at once (no spinning) */
    CU_ASSERT_EQUAL(hc_net_recv_cmd(sv[1], &c, why, sizeof why), HC_RECV_CLOSED);
    close(sv[1]);
}

static void test_recv_huge_length_then_close(void)
{
    int sv[2];
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    const uint8_t huge[] = {0x99, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xF0, 1, 2, 3};
    CU_ASSERT_EQUAL_FATAL(hc_net_send_all(sv[0], huge, sizeof huge), 0);
    close(sv[0]);
    hc_cmd c;
    char why[160];
    CU_ASSERT_EQUAL(hc_net_recv_cmd(sv[1], &c, why, sizeof why), HC_RECV_CLOSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "inside a command's payload (3 of 4294967280 bytes)"));
    close(sv[1]);
}

/* A reader that takes one byte every 20 ms (a trickle): each byte makes
 * room, so a timeout per send() call would never fire. Stops when told
 * (what is queued would take minutes to trickle out). */
static volatile int trickle_stop;

static void *trickle_reader(void *arg)
{
    int fd = *(int *)arg;
    char b;
    while (!trickle_stop && recv(fd, &b, 1, 0) == 1) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void test_send_until(void)
{
    int sv[2];
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    int small = 4096;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    size_t len = 4u << 20;
    char *big = calloc(1, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    /* nobody reads: ETIMEDOUT at the deadline, with what fitted counted */
    size_t sent = 0;
    int64_t t0 = hc_net_now_ns();
    CU_ASSERT_EQUAL(hc_net_send_until(sv[0], big, len, t0 + 300000000, &sent), ETIMEDOUT);
    int64_t took = hc_net_now_ns() - t0;
    CU_ASSERT(took >= 300000000 && took < 2000000000);
    CU_ASSERT(sent > 0 && sent < len);
    /* a trickling reader: still one deadline for the whole buffer */
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, trickle_reader, &sv[1]), 0);
    size_t sent2 = 0;
    t0 = hc_net_now_ns();
    CU_ASSERT_EQUAL(hc_net_send_until(sv[0], big, len, t0 + 500000000, &sent2), ETIMEDOUT);
    took = hc_net_now_ns() - t0;
    CU_ASSERT(took >= 500000000 && took < 2500000000);
    CU_ASSERT(sent2 < len);
    /* a deadline already past still sends what fits, then times out */
    CU_ASSERT_EQUAL(hc_net_send_until(sv[0], big, len, t0, &sent2), ETIMEDOUT);
    /* the peer gone: the failure's errno, no SIGPIPE */
    trickle_stop = 1;
    shutdown(sv[1], SHUT_RDWR);
    pthread_join(th, NULL);
    close(sv[1]);
    int e = hc_net_send_until(sv[0], big, len, hc_net_now_ns() + 1000000000, &sent2);
    CU_ASSERT(e == EPIPE || e == ECONNRESET);
    close(sv[0]);
    /* a reader that keeps up: everything sent, 0 */
    CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CU_ASSERT_EQUAL(hc_net_send_until(sv[0], "abc", 3, hc_net_now_ns() + 1000000000, &sent), 0);
    CU_ASSERT_EQUAL(sent, 3);
    char got[3];
    CU_ASSERT_EQUAL(recv(sv[1], got, 3, MSG_WAITALL), 3);
    CU_ASSERT_EQUAL(memcmp(got, "abc", 3), 0);
    close(sv[0]);
    close(sv[1]);
    free(big);
}

static void test_names(void)
{
    hc_cmd c = mk(HC_CONTROL);
    c.control = HC_CTL_CLEAR_SITES;
    CU_ASSERT_STRING_EQUAL(hc_name(&c), "CONTROL CLEAR SITES");
    c = mk(HC_DUMP_TRACES);
    CU_ASSERT_STRING_EQUAL(hc_name(&c), "DUMP TRACES");
    CU_ASSERT_PTR_NULL(hc_tag_name(0x42));
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("proto", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "every command roundtrips", test_every_command_roundtrips) ||
        !CU_add_test(s, "documented bytes", test_documented_bytes) ||
        !CU_add_test(s, "invalid commands are not encoded", test_invalid_commands_not_encoded) ||
        !CU_add_test(s, "bad payloads are skipped whole", test_bad_payloads_are_skipped_whole) ||
        !CU_add_test(s, "cutoff edges", test_cutoff_edges) ||
        !CU_add_test(s, "recv: the payload bound", test_recv_payload_bound) ||
        !CU_add_test(s, "recv over a socketpair", test_recv_over_a_socketpair) ||
        !CU_add_test(s, "recv: huge length, then close", test_recv_huge_length_then_close) ||
        !CU_add_test(s, "send_until: one deadline per buffer", test_send_until) ||
        !CU_add_test(s, "names", test_names))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
