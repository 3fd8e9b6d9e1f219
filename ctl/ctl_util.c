/*
 * ctl_util.c: hprof-ctl's clock, error line and number parsers (ctl_util.h).
 */
#include "ctl_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double ctl_util_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / CTL_NS_PER_S;
}

void ctl_util_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hprof-ctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void ctl_util_clean(char *dst, size_t cap, const char *src, size_t len, int dots)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < cap; i++) {
        unsigned char ch = (unsigned char)src[i];
        if (ch < 0x20 || ch == 0x7f)
            ch = '?';
        else if (dots && ch == '/')
            ch = '.';
        dst[n++] = (char)ch;
    }
    if (cap)
        dst[n] = '\0';
}

int ctl_util_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s)
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int ctl_util_parse_hex(const char *s, uint64_t *out)
{
    if (!s || !*s || strlen(s) > 16)
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F')
            d = *p - 'A' + 10;
        else
            return -1;
        v = (v << 4) | (unsigned)d;
    }
    *out = v;
    return 0;
}

int ctl_util_parse_cutoff(const char *s, float *out)
{
    if (!s || !*s)
        return -1;
    char *end = NULL;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || *end || !isfinite(d) || d < 0.0 || d > 1.0)
        return -1;
    *out = (float)d;
    return 0;
}

