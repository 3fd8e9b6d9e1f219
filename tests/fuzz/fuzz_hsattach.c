/*
 * fuzz_hsattach.c: libFuzzer target for the agent's reading of the attach
 * listener's reply and its quoting of a path (agent/hsattach.c). The input
 * is a reply, then (after its first NUL) a path. Invariants, checked with
 * abort():
 *  - a reply accepted has its text offset inside it, right after a '\n'
 *    that ends a run of 1 to 9 digits, with at most a leading '-';
 *  - a path quoted fits its buffer, is the path itself or the path in
 *    double quotes (then it holds a space or an '='), and a refused path
 *    is empty, too long, holds a quote or a line break, or is one to quote
 *    that ends in a backslash.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_hsattach
 * Run:   build-fuzz/tests/fuzz/fuzz_hsattach -max_total_time=60
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsattach.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond)                                                                  \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "fuzz_hsattach: invariant failed: %s (line %d)\n", #cond,   \
                    __LINE__);                                                          \
            abort();                                                                    \
        }                                                                               \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *buf = (const char *)data;
    const char *nul = memchr(buf, 0, size);
    size_t rlen = nul ? (size_t)(nul - buf) : size;
    int code = 0;
    size_t text = 0;
    if (hsa_parse_reply(buf, rlen, &code, &text) == 0) {
        FZ_CHECK(text >= 2 && text <= rlen && buf[text - 1] == '\n');
        size_t d = buf[0] == '-' ? 1 : 0;
        FZ_CHECK(text - 1 > d && text - 1 - d <= 9);
        for (size_t i = d; i < text - 1; i++)
            FZ_CHECK(buf[i] >= '0' && buf[i] <= '9');
    }
    if (nul) {
        size_t plen = strnlen(nul + 1, size - rlen - 1);
        char path[300], q[64];
        if (plen >= sizeof path)
            return 0;
        memcpy(path, nul + 1, plen);
        path[plen] = 0;
        int rc = hsa_quote(q, sizeof q, path);
        /* quoted when DCmdArgIter would cut it (a space, or '=': key=value) */
        int space = strpbrk(path, " =") != NULL;
        int tail_bs = plen > 0 && path[plen - 1] == '\\'; /* \" ends no quote */
        if (rc == 0) {
            FZ_CHECK(plen > 0 && !strpbrk(path, "\"'\n\r") && !(space && tail_bs));
            FZ_CHECK(strlen(q) == plen + (space ? 2 : 0) && strlen(q) < sizeof q);
            FZ_CHECK(space ? q[0] == '"' && memcmp(q + 1, path, plen) == 0 : strcmp(q, path) == 0);
        } else {
            FZ_CHECK(plen == 0 || strpbrk(path, "\"'\n\r") || (space && tail_bs) ||
                     plen + (space ? 2 : 0) >= sizeof q);
        }
    }
    return 0;
}
