/*
 * fuzz_textprof.c: libFuzzer target for textprof (the agent's text layout
 * read back as binary HPROF). The input is the text after a fixed first line
 * "JAVA PROFILE 1.0.1, created ..." (so that every input reaches the
 * parser). Invariants (a violation aborts):
 *  - a failed translation has a "line N: ..." message and no output;
 *  - a successful one is binary HPROF that the project's reader parses
 *    without an error (every record the writer made is well formed);
 *  - tp_extras (the text-only sections) parses every text input, and its
 *    rows hold what the layout allows: the JDK 8 rows no ms columns, strings NUL-terminated within the input's length.
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_textprof
 * Run:   build-fuzz/tests/fuzz/fuzz_textprof -max_total_time=60 tests/fixtures
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/hr_reader.h"
#include "tp_extras.h"
#include "tp_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char ft_head[] = "JAVA PROFILE 1.0.1, created Tue Mar  3 10:20:30 2015\n\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t hl = sizeof ft_head - 1;
    /* an input that already starts as text is taken as it is */
    int as_is = tp_is_text(data, size);
    size_t n = as_is ? size : hl + size;
    char *text = malloc(n ? n : 1);
    if (!text)
        return 0;
    if (as_is) {
        memcpy(text, data, size);
    } else {
        memcpy(text, ft_head, hl);
        if (size)
            memcpy(text + hl, data, size);
    }
    uint8_t *bin = NULL;
    size_t blen = 0;
    tp_info info;
    char err[256];
    int rc = tp_translate(text, n, &bin, &blen, &info, err, sizeof err);
    if (rc != 0) {
        if (bin || blen || (strncmp(err, "line ", 5) != 0 && strcmp(err, "out of memory") != 0))
            abort();
    } else {
        hr_source *src = hr_source_memory(bin, blen);
        if (!src)
            abort();
        hr_callbacks cb;
        memset(&cb, 0, sizeof cb);
        hr_status st = hr_parse(src, &cb, NULL, NULL);
        hr_source_close(src);
        if (st != HR_OK)
            abort();
    }
    tp_extras *x = NULL;
    char xerr[128];
    if (tp_extras_parse(text, n, &x, xerr, sizeof xerr) != 0) {
        if (strcmp(xerr, "out of memory") != 0)
            abort(); /* the input starts as text: only memory can fail */
    } else {
        size_t k;
        const tp_time_row *t = tp_extras_times(x, &k);
        for (size_t i = 0; i < k; i++)
            if (!t[i].has_ms && (t[i].total_us || t[i].wait_us))
                abort(); /* the JDK 8 rows have no ms columns */
        const tp_monitor_row *m = tp_extras_monitors(x, &k);
        for (size_t i = 0; i < k; i++)
            if (strlen(m[i].monitor) > n)
                abort();
        const tp_wait *w = tp_extras_waits(x, &k);
        for (size_t i = 0; i < k; i++)
            if (strlen(w[i].monitor) > n)
                abort();
        const tp_heap_class *h = tp_extras_heap(x, &k);
        uint64_t objs = 0;
        for (size_t i = 0; i < k; i++)
            objs += h[i].count;
        if (objs > n) /* one OBJ or ARR line per object */
            abort();
        tp_extras_free(x);
    }
    free(bin);
    free(text);
    return 0;
}
