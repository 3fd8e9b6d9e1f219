/*
 * fuzz_opts.c: libFuzzer target for the agent's option parser (agent/opts.c).
 *
 * The input is split at its first 0xFF byte into the command-line options
 * and the _JAVA_HPROF_OPTIONS value (no 0xFF: all options, no env), each
 * cut at its first NUL as a C string would be. Each part is copied into an
 * exactly sized buffer so ASan sees any over-read. Invariants, checked with
 * abort() so libFuzzer keeps the input:
 *  - on success: depth <= OPTS_DEPTH_MAX, 1 <= interval <= OPTS_INTERVAL_MAX,
 *    0 <= cutoff <= 1 (and not NaN), sample <= OPTS_SAMPLE_MAX, idsize 4|8,
 *    cpu a known value, the y|n fields 0 or 1, net with a host and a port
 *    >= 1, file and net never both, the strings NUL-terminated within their
 *    limits, format=b never with cpu=times|old or monitor=y, heap on when
 *    nothing else is, and the output name fits or is refused;
 *  - on failure: the message starts with "hprof option error: ", is one
 *    line, and the opts are back at their defaults;
 *  - a second parse of the same input gives the same answer.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_opts
 * Run:   build-fuzz/tests/fuzz/fuzz_opts -max_total_time=60
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond)                                                              \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "fuzz_opts: invariant failed: %s (line %d)\n", #cond,   \
                    __LINE__);                                                      \
            abort();                                                                \
        }                                                                           \
    } while (0)

static char *cstr(const uint8_t *p, size_t n)
{
    const uint8_t *z = memchr(p, 0, n);
    if (z)
        n = (size_t)(z - p);
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

static int no_file(const char *path)
{
    return 0;
}

static int every_file(const char *path)
{
    return 1;
}

static void check_ok(const opts *o)
{
    FZ_CHECK(o->depth <= OPTS_DEPTH_MAX);
    FZ_CHECK(o->interval_ms >= 1 && o->interval_ms <= OPTS_INTERVAL_MAX);
    FZ_CHECK(!isnan(o->cutoff) && o->cutoff >= 0.0 && o->cutoff <= 1.0);
    FZ_CHECK(!signbit(o->cutoff));
    FZ_CHECK(o->sample_bytes <= OPTS_SAMPLE_MAX);
    FZ_CHECK(o->id_size == 4 || o->id_size == 8);
    FZ_CHECK(o->cpu == OPTS_CPU_OFF || o->cpu == OPTS_CPU_SAMPLES ||
             o->cpu == OPTS_CPU_TIMES || o->cpu == OPTS_CPU_OLD);
    const int yn[] = { o->heap_dump, o->heap_sites, o->monitor,  o->binary,    o->net,
                       o->lineno,    o->thread,     o->doe,      o->msa,       o->force,
                       o->verbose,   o->gc_okay,    o->primfields, o->primarrays,
                       o->coredump,  o->errorexit,  o->pause,    o->debug,     o->help };
    for (size_t i = 0; i < sizeof yn / sizeof yn[0]; i++)
        FZ_CHECK(yn[i] == 0 || yn[i] == 1);
    FZ_CHECK(o->options != NULL);
    if (o->help)
        return;
    FZ_CHECK(!(o->file && o->net));
    if (o->file)
        FZ_CHECK(strlen(o->file) >= 1 && strlen(o->file) <= OPTS_FILE_MAX);
    if (o->net) {
        FZ_CHECK(o->net_host && strlen(o->net_host) >= 1);
        FZ_CHECK(strlen(o->net_host) < strlen(o->options));
        FZ_CHECK(o->net_port >= 1);
    } else {
        FZ_CHECK(o->net_host == NULL && o->net_port == 0);
    }
    if (o->binary)
        FZ_CHECK(o->cpu != OPTS_CPU_TIMES && o->cpu != OPTS_CPU_OLD && !o->monitor);
    FZ_CHECK(o->heap_dump || o->heap_sites || o->monitor || o->cpu != OPTS_CPU_OFF);
    if (o->cpu == OPTS_CPU_OLD)
        FZ_CHECK(o->depth == 2);

    /* Naming: fits or is refused, never overruns; a bigger buffer fits. */
    char small[24], big[OPTS_FILE_MAX + 64];
    int (*ex[])(const char *) = { no_file, every_file };
    for (size_t i = 0; i < 2; i++) {
        memset(small, 'x', sizeof small);
        int rc = opts_output_name(o, 1234567, ex[i], small, sizeof small);
        if (rc == 0)
            FZ_CHECK(memchr(small, 0, sizeof small) != NULL);
        rc = opts_output_name(o, 1234567, ex[i], big, sizeof big);
        if (ex[i] == no_file || o->force) {
            FZ_CHECK(rc == 0);
            const char *want = o->file ? o->file
                                       : (o->binary ? OPTS_DEFAULT_FILE : OPTS_DEFAULT_TEXT_FILE);
            FZ_CHECK(strcmp(big, want) == 0);
        } else {
            FZ_CHECK(rc == -1); /* every candidate exists */
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *ff = memchr(data, 0xFF, size);
    char *optstr = cstr(data, ff ? (size_t)(ff - data) : size);
    char *env = ff ? cstr(ff + 1, size - (size_t)(ff - data) - 1) : NULL;

    opts o, d;
    opts_init(&o);
    opts_init(&d);
    char err[512];
    int rc = opts_parse(&o, optstr, env, err, sizeof err);
    FZ_CHECK(rc == 0 || rc == -1);
    if (rc == 0) {
        check_ok(&o);
    } else {
        FZ_CHECK(strncmp(err, "hprof option error: ", 20) == 0);
        FZ_CHECK(memchr(err, 0, sizeof err) != NULL);
        for (const char *p = err; *p; p++)
            FZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
        FZ_CHECK(memcmp(&o, &d, sizeof o) == 0);
    }

    /* Same answer again, from a used opts, with a tiny error buffer. */
    char tiny[4];
    int rc2 = opts_parse(&o, optstr, env, tiny, sizeof tiny);
    FZ_CHECK(rc2 == rc);
    if (rc2 != 0)
        FZ_CHECK(strcmp(tiny, "hpr") == 0);

    opts_cleanup(&o);
    free(optstr);
    free(env);
    return 0;
}
