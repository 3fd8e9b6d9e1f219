/*
 * fuzz_histo.c: libFuzzer target for the class histogram (tools/histo.c)
 * and the names `hprof diff` builds from it (normalize.h, print_java_name):
 * what `hprof histo` and `hprof diff` do with a file's bytes.
 *
 * The input is the file; bit 0 of its length chooses --normalize.
 * Invariants (a violation aborts, so libFuzzer reports it with its input):
 *  - histo_finish succeeds (the inputs are small: no out of memory), and
 *    every row has a name;
 *  - the rows are ordered by bytes, then instances (histo.h);
 *  - normalized, no two rows share a name, and no name keeps a
 *    "+0x<hex>" address;
 *  - print_java_name of every name returns the length it writes, and its
 *    result is a NUL-terminated string of that length.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_histo
 * Run:   build-fuzz/tests/fuzz/fuzz_histo -max_total_time=60 tests/fuzz/corpus
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "print.h"
#include "hprof/hr_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FH_CHECK(cond)                                                              \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "fuzz_histo: %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
            abort();                                                                \
        }                                                                           \
    } while (0)

static int fh_by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int normalize = (int)(size & 1);
    hr_source *src = hr_source_memory(data, size);
    FH_CHECK(src != NULL);
    histo *h = histo_new();
    FH_CHECK(h != NULL);
    hr_callbacks cb = {.on_header = histo_on_header, .on_record = histo_on_record,
                       .on_sub = histo_on_sub};
    hr_parse(src, &cb, h, NULL);
    hr_source_close(src);
    FH_CHECK(histo_finish(h, normalize) == 0);
    size_t n;
    const histo_row *r = histo_rows(h, &n);
    const char **names = calloc(n ? n : 1, sizeof *names);
    FH_CHECK(names != NULL);
    for (size_t i = 0; i < n; i++) {
        FH_CHECK(r[i].name != NULL);
        if (i)
            FH_CHECK(r[i - 1].bytes > r[i].bytes ||
                     (r[i - 1].bytes == r[i].bytes && r[i - 1].count >= r[i].count));
        if (normalize) {
            /* no address left: a "+0x" is not followed by hex to the end of
             * the identifier ("jav+0xang" is no address: the n goes on) */
            for (const char *a = strstr(r[i].name, "+0x"); a; a = strstr(a + 1, "+0x")) {
                const char *e = a + 3;
                while ((*e >= '0' && *e <= '9') || (*e >= 'a' && *e <= 'f') || (*e >= 'A' && *e <= 'F'))
                    e++;
                FH_CHECK(e == a + 3 || (*e >= '0' && *e <= '9') || (*e >= 'a' && *e <= 'z') ||
                         (*e >= 'A' && *e <= 'Z') || *e == '_' || *e == '$' || (unsigned char)*e >= 0x80);
            }
        }
        size_t len = strlen(r[i].name);
        size_t jl = print_java_name(r[i].name, len, NULL, 0);
        char *j = malloc(jl + 1);
        FH_CHECK(j != NULL);
        memset(j, 'x', jl + 1);
        FH_CHECK(print_java_name(r[i].name, len, j, jl + 1) == jl);
        FH_CHECK(j[jl] == 0 && strlen(j) <= jl);
        free(j);
        names[i] = r[i].name;
    }
    if (normalize && n > 1) {
        qsort(names, n, sizeof *names, fh_by_name);
        for (size_t i = 1; i < n; i++)
            FH_CHECK(strcmp(names[i - 1], names[i]) != 0);
    }
    free(names);
    histo_free(h);
    return 0;
}
