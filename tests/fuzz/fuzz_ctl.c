/*
 * fuzz_ctl.c: libFuzzer target for hprof-ctl's parsers of untrusted input
 * (ctl/): an agent's whole stream through the receiver (ctl_recv: format
 * detection, records, heap dumps, text lines; no file is opened, what is
 * shown goes to stdout: run with -close_fd_mask=1), the heap dump scanner,
 * which counts the sub-records of whatever an agent sends, and the command
 * parser, which takes whatever is typed on stdin. No crash, no leak, and
 * these invariants, checked with abort():
 *  - the scanner's counts and end state do not depend on where the bytes
 *    are cut (whole, cut in two where the first byte says, byte by byte);
 *  - once it stops at a bad sub-record, nothing more is counted;
 *  - a line that parses has a kind, a known tag when it is sent, a cutoff
 *    in [0, 1], and an echo no longer than the line; one that does not
 *    says why on one non-empty line.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_ctl
 * Run:   build-fuzz/tests/fuzz/fuzz_ctl -max_total_time=60 -close_fd_mask=1
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_cmd.h"
#include "ctl_recv.h"
#include "ctl_scan.h"
#include "ctl_show.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond)                                                              \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "fuzz_ctl: invariant failed: %s (line %d)\n", #cond,    \
                    __LINE__);                                                      \
            abort();                                                                \
        }                                                                           \
    } while (0)

static void fz_same(const ctl_scan *a, const ctl_scan *b)
{
    uint8_t ta = 0, tb = 0;
    ctl_scan_state sa = ctl_scan_end(a, &ta), sb = ctl_scan_end(b, &tb);
    FZ_CHECK(sa == sb);
    FZ_CHECK(sa != CTL_SCAN_BAD || ta == tb);
    FZ_CHECK(a->instances == b->instances && a->arrays == b->arrays);
    FZ_CHECK(a->classes == b->classes && a->roots == b->roots);
}

static void fz_scan(const uint8_t *data, size_t size)
{
    unsigned id = data[0] & 1 ? 8 : 4;
    const uint8_t *p = data + 1;
    size_t n = size - 1, cut = n ? data[0] % (n + 1) : 0;
    ctl_scan whole, two, bytes;
    ctl_scan_init(&whole, id);
    ctl_scan_feed(&whole, p, n);
    ctl_scan_init(&two, id);
    ctl_scan_feed(&two, p, cut);
    ctl_scan_feed(&two, p + cut, n - cut);
    fz_same(&whole, &two);
    ctl_scan_init(&bytes, id);
    for (size_t i = 0; i < n; i++)
        ctl_scan_feed(&bytes, p + i, 1);
    fz_same(&whole, &bytes);
    uint8_t tag;
    if (ctl_scan_end(&whole, &tag) == CTL_SCAN_BAD) {
        ctl_scan after = whole;
        ctl_scan_feed(&after, p, n);
        fz_same(&whole, &after);
    }
}

static void fz_cmd(const uint8_t *data, size_t size)
{
    char line[CTL_LINE_MAX + 16];
    size_t n = size < sizeof line - 1 ? size : sizeof line - 1;
    memcpy(line, data, n);
    line[n] = '\0';
    char *t = ctl_cmd_trim(line);
    if (!t)
        return;
    ctl_command c;
    char err[CTL_LINE_MAX];
    err[0] = '\0';
    if (ctl_cmd_parse(t, &c, err, sizeof err) != 0) {
        FZ_CHECK(err[0] != '\0');
        return;
    }
    FZ_CHECK(c.kind <= CK_WAIT_AGENTS);
    FZ_CHECK(strlen(c.text) <= strlen(t));
    if (c.kind == CK_SEND) {
        FZ_CHECK(c.cmd.tag != 0);
        FZ_CHECK(c.cmd.cutoff >= 0.0f && c.cmd.cutoff <= 1.0f);
    }
}

/* The stream in two reads, cut where the first byte says. */
static void fz_recv(const uint8_t *data, size_t size)
{
    ctl_show show;
    ctl_show_init(&show);
    int status = 0;
    ctl_recv *r = ctl_recv_new(1, &show, &status);
    FZ_CHECK(r != NULL);
    size_t cut = data[0] % (size + 1);
    ctl_recv_feed(r, data, cut);
    ctl_recv_feed(r, data + cut, size - cut);
    FZ_CHECK(ctl_recv_id_size(r) == 4 || ctl_recv_id_size(r) == 8);
    ctl_recv_end(r, "");
    ctl_recv_free(r);
    ctl_show_cleanup(&show);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    fz_recv(data, size);
    fz_scan(data, size);
    fz_cmd(data, size);
    return 0;
}
