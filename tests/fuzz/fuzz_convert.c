/*
 * fuzz_convert.c: libFuzzer target for libhprofconvert.
 *
 * The first input byte picks the options (id size keep/4/8, version
 * keep/1.0.1/1.0.2, a small segment size, gzip output, app_only,
 * renumber); the rest is the file, converted from memory into memory.
 * Invariants (a violation aborts, so libFuzzer reports it with its input):
 *  - a memory-to-memory conversion fails only as CONVERT_EINPUT, always
 *    with a message;
 *  - on success, the plain output is as long as convert_stats.out_bytes
 *    and converts again, unchanged options, to exactly the same bytes
 *    (what we write is well-formed, and KEEP mode copies it as it is).
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_convert
 * Run:   build-fuzz/tests/fuzz/fuzz_convert -max_total_time=60 tests/fuzz/corpus
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond)                                                               \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "fuzz_convert: invariant failed: %s (line %d)\n", #cond, \
                    __LINE__);                                                       \
            abort();                                                                 \
        }                                                                            \
    } while (0)

static uint8_t *fz_run(const uint8_t *in, size_t n, const convert_options *o, int *rc,
                       size_t *outlen, convert_stats *st)
{
    char msg[600] = "";
    hw_sink *s = hw_sink_memory(0);
    FZ_CHECK(s != NULL);
    *rc = convert_memory(in, n, s, o, st, msg, sizeof msg);
    FZ_CHECK(*rc == 0 || *rc == CONVERT_EINPUT);
    FZ_CHECK(*rc == 0 || msg[0] != '\0');
    size_t len;
    const uint8_t *d = hw_sink_memory_data(s, &len);
    uint8_t *copy = malloc(len ? len : 1);
    FZ_CHECK(copy != NULL);
    if (len)
        memcpy(copy, d, len);
    *outlen = len;
    hw_sink_free(s);
    return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    convert_options o;
    convert_options_init(&o);
    static const unsigned ids[4] = {0, 4, 8, 0};
    o.id_size = ids[sel & 3];
    o.version = (hprof_version)((sel >> 2) % 3); /* keep, 1.0.1, 1.0.2 */
    o.segment_size = (sel & 0x10) ? 64 : 0;
    o.gzip = (sel & 0x20) != 0;
    o.app_only = (sel & 0x40) != 0;
    o.renumber = (sel & 0x80) != 0;
    int rc;
    size_t n;
    convert_stats st;
    uint8_t *out = fz_run(data + 1, size - 1, &o, &rc, &n, &st);
    if (rc == 0 && !o.gzip) {
        FZ_CHECK(st.out_bytes == n);
        convert_options k;
        convert_options_init(&k);
        size_t m;
        int rc2;
        uint8_t *again = fz_run(out, n, &k, &rc2, &m, &st);
        FZ_CHECK(rc2 == 0);
        FZ_CHECK(m == n && memcmp(again, out, n) == 0);
        free(again);
    }
    free(out);
    return 0;
}
