/*
 * normalize.c: hidden-class names without their run-specific parts
 * (normalize.h). Owns the spelling NORM_HIDDEN and the one rule that finds
 * a hidden class's address in a name; print.c and hprof.c apply it to the
 * views when asked (--normalize).
 */
#include "normalize.h"

#include <stdlib.h>
#include <string.h>

#define NORM_LAMBDA "$$Lambda"

static int norm_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A character that may continue a Java identifier (ASCII view: bytes >= 0x80
 * are parts of non-ASCII identifier characters). */
static int norm_ident(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '_' || c == '$' || (unsigned char)c >= 0x80;
}

/* Length of the hidden-class suffix that starts at in[i] ("+0x1f", ".0x1f",
 * "/0x1f", JDK 8's "/1283928880" or ".1283928880", ending where the
 * identifier ends), or 0. */
static size_t norm_suffix(const char *in, size_t len, size_t i)
{
    /* JDK 8's VM anonymous classes (lambdas, LambdaForms): "/<identity hash
     * in decimal>", a '.' in Java spelling; no identifier starts with a digit */
    if (i + 1 < len && (in[i] == '/' || in[i] == '.') && in[i + 1] >= '0' && in[i + 1] <= '9') {
        size_t j = i + 1;
        while (j < len && in[j] >= '0' && in[j] <= '9')
            j++;
        if (!(j < len && norm_ident(in[j])))
            return j - i;
    }
    if (i + 3 >= len || (in[i] != '+' && in[i] != '.' && in[i] != '/') || in[i + 1] != '0' ||
        (in[i + 2] != 'x' && in[i + 2] != 'X') || !norm_hex(in[i + 3]))
        return 0;
    size_t j = i + 3;
    while (j < len && norm_hex(in[j]))
        j++;
    if (j < len && norm_ident(in[j]))
        return 0;
    return j - i;
}

/* Appends `n` bytes to out (keeping room for the NUL), counting all. */
static void norm_put(char *out, size_t cap, size_t *o, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++, (*o)++)
        if (*o + 1 < cap)
            out[*o] = s[k];
}

size_t norm_name(const char *in, size_t len, char *out, size_t cap)
{
    size_t o = 0;
    size_t lambda_end = (size_t)-1; /* o right after "$$Lambda" copied, if digits follow */
    size_t i = 0;
    while (i < len) {
        size_t sl = norm_suffix(in, len, i);
        if (sl) {
            /* "$$Lambda$153" just before: drop the "$153" */
            if (lambda_end != (size_t)-1)
                o = lambda_end;
            norm_put(out, cap, &o, NORM_HIDDEN, sizeof NORM_HIDDEN - 1);
            i += sl;
            lambda_end = (size_t)-1;
            continue;
        }
        size_t ll = sizeof NORM_LAMBDA - 1;
        if (i + ll + 1 < len && memcmp(in + i, NORM_LAMBDA, ll) == 0 && in[i + ll] == '$' &&
            in[i + ll + 1] >= '0' && in[i + ll + 1] <= '9') {
            /* copy "$$Lambda", remember where it ended, then the digits */
            norm_put(out, cap, &o, in + i, ll);
            size_t mark = o;
            size_t j = i + ll + 1;
            while (j < len && in[j] >= '0' && in[j] <= '9')
                j++;
            norm_put(out, cap, &o, in + i + ll, j - (i + ll));
            i = j;
            lambda_end = norm_suffix(in, len, i) ? mark : (size_t)-1;
            continue;
        }
        norm_put(out, cap, &o, in + i, 1);
        i++;
        lambda_end = (size_t)-1;
    }
    if (cap)
        out[o < cap ? o : cap - 1] = '\0';
    return o;
}

char *norm_dup(const char *in, size_t len, size_t *outlen)
{
    size_t k = norm_name(in, len, NULL, 0);
    char *out = malloc(k + 1);
    if (!out)
        return NULL;
    norm_name(in, len, out, k + 1);
    if (outlen)
        *outlen = k;
    return out;
}
