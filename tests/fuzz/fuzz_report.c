/*
 * fuzz_report.c: libFuzzer target for `hprof report`'s model and JSON
 * (report/): any bytes, as a binary or text profile, through report_json.
 * The input goes to a memfd read by its /proc path, as a file would be.
 * Invariants (a violation aborts):
 *  - report_json returns 0 with a JSON document that starts with
 *    {"format":"hprof-report" and ends with ']}' (names last), holds no
 *    raw '<' (the <script> embedding) and no control byte; or -1 with a
 *    message naming the input;
 *  - an input that is not text is also tried as the second half of a diff
 *    against itself (both models, the merge).
 *
 * Build: CC=clang cmake -S . -B build-fuzz -DHPROF_FUZZ=ON -DHPROF_TESTS=ON
 *        cmake --build build-fuzz --target fuzz_report
 * Run:   build-fuzz/tests/fuzz/fuzz_report -max_total_time=60 tests/fuzz/corpus tests/fixtures
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hprof_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fr_check(const char *json, size_t len)
{
    static const char head[] = "{\"format\":\"hprof-report\"";
    if (len < sizeof head || memcmp(json, head, sizeof head - 1) != 0 || json[len - 2] != ']' ||
        json[len - 1] != '}')
        abort();
    for (size_t i = 0; i < len; i++)
        if (json[i] == '<' || (unsigned char)json[i] < 0x20)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz_report", 0);
    if (fd < 0)
        return 0;
    for (size_t w = 0; w < size;) {
        ssize_t k = write(fd, data + w, size - w);
        if (k <= 0) {
            close(fd);
            return 0;
        }
        w += (size_t)k;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    const char *paths[2] = {path, path};
    char *json = NULL;
    size_t len = 0;
    char err[512];
    if (report_json(paths, 1, NULL, &json, &len, err, sizeof err) == 0) {
        fr_check(json, len);
    } else if (json || (strncmp(err, path, strlen(path)) != 0 && strcmp(err, "out of memory") != 0)) {
        abort();
    }
    free(json);
    report_opts o;
    memset(&o, 0, sizeof o);
    o.diff = 1;
    json = NULL;
    if (report_json(paths, 2, &o, &json, &len, err, sizeof err) == 0)
        fr_check(json, len);
    free(json);
    close(fd);
    return 0;
}
