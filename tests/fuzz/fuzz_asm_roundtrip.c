/*
 * fuzz_asm_roundtrip.c: libFuzzer target for the text form's promise: any
 * bytes -> hasm_disasm -> hasm_asm gives the same bytes back; aborts
 * otherwise.
 *   build-fuzz/tests/fuzz/fuzz_asm_roundtrip -max_total_time=60 tests/fuzz/corpus
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = NULL;
    size_t tlen = 0;
    FILE *out = open_memstream(&text, &tlen);
    if (!out)
        return 0;
    char err[256];
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
