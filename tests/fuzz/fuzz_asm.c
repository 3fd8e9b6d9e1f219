/*
 * fuzz_asm.c: libFuzzer target for the assembler (hasm_asm_stream): any
 * text must be assembled or refused with a message, never crash.
 *   build-fuzz/tests/fuzz/fuzz_asm -max_total_time=60
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hasm_asm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_discard(void *ctx, const void *buf, size_t len)
{
    (void)ctx;
    (void)buf;
    (void)len;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *in = fmemopen((void *)(uintptr_t)data, size, "r");
    if (!in)
        return 0;
    char err[256];
    int rc = hasm_asm_stream(in, "fuzz", fuzz_discard, NULL, err, sizeof err);
    if (rc != 0 && err[0] == '\0')
        abort(); /* every refusal says why */
    fclose(in);
    return 0;
}
