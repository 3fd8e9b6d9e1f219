/*
 * fuzz_asm_roundtrip.c: libFuzzer target for the text form's promise: any
 * bytes -> hasm_disasm -> hasm_asm gives the same bytes back; aborts
 * otherwise. The bytes also go through the file path (a memfd): there,
 * input without a valid gzip header must round-trip the same way; with
 * one (inflated, may fail as corrupt or cut) it must not crash.
 *   build-fuzz/tests/fuzz/fuzz_asm_roundtrip -max_total_time=60 tests/fuzz/corpus
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hasm_asm.h"
#include "hasm_disasm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_cmp {
    const uint8_t *want;
    size_t n, at;
    int differs;
} fuzz_cmp;

static int fuzz_compare(void *ctx, const void *buf, size_t len)
{
    fuzz_cmp *c = ctx;
    if (c->at + len > c->n || memcmp(c->want + c->at, buf, len) != 0)
        c->differs = 1;
    c->at += len;
    return 0;
}

/* The bytes disassembled through hasm_disasm_path: 0, -1 (refused), or 1
 * when the file could not be made (nothing checked). */
static int fuzz_disasm_file(const uint8_t *data, size_t size, char **text, size_t *tlen,
                            char *err, size_t errlen)
{
    int fd = memfd_create("fuzz_asm", 0);
    if (fd < 0)
        return 1;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    FILE *out = open_memstream(text, tlen);
    int rc = 1;
    if (out && (size == 0 || write(fd, data, size) == (ssize_t)size))
        rc = hasm_disasm_path(path, out, err, errlen) == 0 ? 0 : -1;
    if (out)
        fclose(out);
    close(fd);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = NULL;
    size_t tlen = 0;
    char err[256];
    int gz = size >= 10 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 8 && (data[3] & 0xe0) == 0;
    int frc = fuzz_disasm_file(data, size, &text, &tlen, err, sizeof err);
    if (frc < 0 && !gz) {
        fprintf(stderr, "disasm of the file failed: %s\n", err);
        abort();
    }
    if (frc == 0 && !gz) {
        FILE *in = fmemopen(text, tlen, "r");
        if (!in)
            abort();
        fuzz_cmp c = { data, size, 0, 0 };
        int rc = hasm_asm_stream(in, "text", fuzz_compare, &c, err, sizeof err);
        fclose(in);
        if (rc != 0 || c.differs || c.at != size) {
            fprintf(stderr, "file round trip broken: rc %d, %zu of %zu bytes back\n%s\n", rc,
                    c.at, size, text);
            abort();
        }
    }
    free(text);
    text = NULL;
    tlen = 0;
    FILE *out = open_memstream(&text, &tlen);
    if (!out)
        return 0;
    if (hasm_disasm_mem(data, size, out, err, sizeof err) != 0) {
        fprintf(stderr, "disasm failed: %s\n", err);
        abort();
    }
    fclose(out);
    FILE *in = fmemopen(text, tlen, "r");
    if (!in)
        abort();
    fuzz_cmp c = { data, size, 0, 0 };
    int rc = hasm_asm_stream(in, "text", fuzz_compare, &c, err, sizeof err);
    fclose(in);
    if (rc != 0 || c.differs || c.at != size) {
        fprintf(stderr, "round trip broken: rc %d (%s), %zu of %zu bytes back, differs %d\n%s\n",
                rc, rc ? err : "", c.at, size, c.differs, text);
        abort();
    }
    free(text);
    return 0;
}
