/*
 * fuzz_redact.c: libFuzzer target for libhprofredact (memory in, memory out).
 *
 * The input is the file (the seed corpus' HPROF files as they are); its
 * length chooses the options (bit 0: keep_thread_names, bit 1: a
 * keep_strings glob "*"). Invariants (a violation
 * aborts, so libFuzzer reports it with its input):
 *  - a failed redaction has an error message; one of the input's fault
 *    wrote nothing (the structure is checked before any output);
 *  - a successful one wrote exactly the input's size, and the header and
 *    every byte the redaction never changes (outside the values and texts)
 *    are the input's: at least the 31 header bytes;
 *  - without options, redacting the output again gives the output
 *    (zeros stay zeros, '*' stays '*');
 *  - without options, redact_file (the input in a memfd, read through
 *    /proc/self/fd: mapped, class dumps read only up to the first object,
 *    started again if one comes later) succeeds exactly when redact_run
 *    does, with the same output, and leaves no file when it fails.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_redact
 * Run:   build-fuzz/tests/fuzz/fuzz_redact -max_total_time=60 tests/fuzz/corpus
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hprof/hprof_format.h"
#include "redact/redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fr_buf { uint8_t *p; size_t n, cap; } fr_buf;

#define FR_CHECK(cond)                                                              \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "fuzz_redact: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                \
        }                                                                           \
    } while (0)

static int fr_write(void *ctx, const void *b, size_t n)
{
    fr_buf *o = ctx;
    if (o->n + n > o->cap) {
        size_t nc = (o->n + n) * 2;
        uint8_t *q = realloc(o->p, nc);
        if (!q)
            return 12;
        o->p = q;
        o->cap = nc;
    }
    memcpy(o->p + o->n, b, n);
    o->n += n;
    return 0;
}

static int fr_run(const redact_opts *o, const uint8_t *in, size_t n, fr_buf *out)
{
    redact *r = redact_init(o);
    FR_CHECK(r != NULL);
    int rc = redact_run(r, in, n, fr_write, out);
    if (rc != 0) {
        FR_CHECK(redact_error(r) != NULL);
        if (redact_error_is_input(r))
            FR_CHECK(out->n == 0);
    } else {
        FR_CHECK(redact_error(r) == NULL);
        FR_CHECK(out->n == n);
    }
    redact_cleanup(r);
    return rc;
}

/* redact_file on a memfd holding the input; returns its status and checks
 * its output against redact_run's (`want`, or NULL when that failed). */
static void fr_file(const uint8_t *in, size_t n, const fr_buf *want)
{
    int fd = memfd_create("fuzz_redact_in", 0);
    if (fd < 0)
        return;
    if (write(fd, in, n) != (ssize_t)n) {
        close(fd);
        return;
    }
    char ip[64], op[64], tp[96];
    snprintf(ip, sizeof ip, "/proc/self/fd/%d", fd);
    snprintf(op, sizeof op, "/dev/shm/fuzz_redact_%d.out", (int)getpid());
    snprintf(tp, sizeof tp, "%s.tmp.%d", op, (int)getpid());
    redact *r = redact_init(NULL);
    FR_CHECK(r != NULL);
    int rc = redact_file(r, ip, op);
    redact_cleanup(r);
    close(fd);
    FR_CHECK(access(tp, F_OK) != 0);
    FR_CHECK((rc == 0) == (want != NULL));
    if (rc != 0) {
        FR_CHECK(access(op, F_OK) != 0);
        return;
    }
    int ofd = open(op, O_RDONLY);
    FR_CHECK(ofd >= 0);
    uint8_t *got = malloc(n + 1);
    FR_CHECK(got != NULL);
    FR_CHECK(read(ofd, got, n + 1) == (ssize_t)n);
    close(ofd);
    unlink(op);
    FR_CHECK(memcmp(got, want->p, n) == 0);
    free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *glob = "*";
    redact_opts o = {.keep_thread_names = (int)(size & 1),
                     .keep_strings = &glob,
                     .nkeep_strings = (size & 2) ? 1 : 0};
    const uint8_t *in = data;
    size_t n = size;
    fr_buf out = {0};
    int ok = fr_run(&o, in, n, &out) == 0;
    if (!o.keep_thread_names && !o.nkeep_strings && n > 0)
        fr_file(in, n, ok ? &out : NULL);
    if (ok) {
        FR_CHECK(n >= HPROF_HEADER_SIZE && memcmp(out.p, in, HPROF_HEADER_SIZE) == 0);
        if (!o.keep_thread_names && !o.nkeep_strings) {
            fr_buf again = {0};
            FR_CHECK(fr_run(&o, out.p, out.n, &again) == 0);
            FR_CHECK(again.n == out.n && memcmp(again.p, out.p, out.n) == 0);
            free(again.p);
        }
    }
    free(out.p);
    return 0;
}
