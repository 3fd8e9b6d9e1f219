/*
 * fuzz_cmd.c: libFuzzer target for the net= command codec
 * (socket/hc_proto.c). The input is a command stream, decoded command by
 * command as the agent's listener does. Invariants, checked with abort():
 *  - every decode consumes at least one byte and never more than it has
 *    (HC_MORE asks for more than it has);
 *  - a command decoded as valid re-encodes to the very same bytes (the
 *    reserved u2 of CPU SAMPLES aside), its cutoff is in [0, 1];
 *  - a skipped command leaves a one-line reason;
 *  - the same bytes through a socketpair and hc_net_recv_cmd (the agent's
 *    own path: payloads drained, a cut command closed) end, command by
 *    command, in CLOSED, with as many valid commands as hc_decode found
 *    before its first EOF.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_cmd
 * Run:   build-fuzz/tests/fuzz/fuzz_cmd -max_total_time=60
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hc_net.h"
#include "hc_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond)                                                              \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "fuzz_cmd: invariant failed: %s (line %d)\n", #cond,    \
                    __LINE__);                                                      \
            abort();                                                                \
        }                                                                           \
    } while (0)

/* Valid commands before the first EOF, as hc_decode sees them. */
static unsigned fz_valid_before_eof(const uint8_t *data, size_t size)
{
    size_t off = 0;
    unsigned n = 0;
    while (off < size) {
        hc_cmd c;
        size_t used = 0;
        hc_status s = hc_decode(data + off, size - off, &c, &used, NULL, 0);
        if (s == HC_MORE || s == HC_END)
            break;
        n += s == HC_OK;
        off += used;
    }
    return n;
}

/* The agent's path over a socketpair (inputs up to the socket buffer). */
static void fz_recv(const uint8_t *data, size_t size)
{
    int sv[2];
    if (size > 64 * 1024 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return;
    if (hc_net_send_all(sv[0], data, size) != 0) {
        close(sv[0]);
        close(sv[1]);
        return;
    }
    close(sv[0]);
    unsigned ok = 0;
    for (;;) {
        hc_cmd c;
        char why[160];
        hc_recv_status st = hc_net_recv_cmd(sv[1], &c, why, sizeof why);
        if (st == HC_RECV_OK)
            ok++;
        else if (st == HC_RECV_BAD)
            FZ_CHECK(why[0] != '\0');
        else if (st == HC_RECV_EOF)
            break;
        else {
            FZ_CHECK(st == HC_RECV_CLOSED);
            break;
        }
    }
    close(sv[1]);
    FZ_CHECK(ok == fz_valid_before_eof(data, size));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_recv(data, size);
    size_t off = 0;
    while (off < size) {
        hc_cmd c;
        size_t used = 0;
        char why[160];
        hc_status s = hc_decode(data + off, size - off, &c, &used, why, sizeof why);
        FZ_CHECK(used >= 1);
        if (s == HC_MORE) {
            FZ_CHECK(used > size - off);
            break;
        }
        FZ_CHECK(used <= size - off);
        if (s == HC_OK) {
            FZ_CHECK(isfinite(c.cutoff) && c.cutoff >= 0 && c.cutoff <= 1);
            uint8_t buf[64];
            size_t n = hc_encode(&c, buf, sizeof buf);
            FZ_CHECK(n == used);
            if (c.tag == 0x07) /* CPU SAMPLES: the u2 is reserved, ignored */
                memcpy(buf + 9, data + off + 9, 2);
            FZ_CHECK(memcmp(buf, data + off, n) == 0);
        } else if (s == HC_BAD) {
            FZ_CHECK(why[0] != '\0' && strchr(why, '\n') == NULL);
        } else {
            FZ_CHECK(s == HC_END && used == 1 && data[off] == 0xFF);
        }
        off += used;
    }
    return 0;
}
