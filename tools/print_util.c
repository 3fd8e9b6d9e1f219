/*
 * print_util.c: the parts of the text views (print.c) that need none of its
 * model: the VM-to-Java class name conversion, the TRACE line field, the
 * copy of standard input that lets the two passes re-read it, the agent's
 * notes on ALLOC SITES, and the command-line parsing. Apart so that print.c
 * stays under the house limit of ~1500 lines.
 */
#include "print.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hprof/hprof_format.h"

static void print_put(char *out, size_t cap, size_t *n, const char *s, size_t k, int dots)
{
    for (size_t i = 0; i < k; i++, (*n)++)
        if (*n + 1 < cap)
            out[*n] = (dots && s[i] == '/') ? '.' : s[i];
}

static const char *print_prim_name(char c)
{
    switch (c) {
    case 'Z': return "boolean";
    case 'B': return "byte";
    case 'C': return "char";
    case 'S': return "short";
    case 'I': return "int";
    case 'J': return "long";
    case 'F': return "float";
    case 'D': return "double";
    default: return NULL;
    }
}

size_t print_java_name(const char *vm, size_t len, char *out, size_t cap)
{
    size_t n = 0, dims = 0;
    while (dims < len && vm[dims] == '[')
        dims++;
    const char *rest = vm + dims;
    size_t rlen = len - dims;
    int sig = rlen >= 2 && rest[0] == 'L' && rest[rlen - 1] == ';';
    const char *prim = rlen == 1 ? print_prim_name(rest[0]) : NULL;
    if (dims && prim) {
        print_put(out, cap, &n, prim, strlen(prim), 0);
    } else if (sig) {
        /* a class name cannot end in ';', so "Lx;" is always a signature */
        print_put(out, cap, &n, rest + 1, rlen - 2, 1);
    } else {
        /* not a descriptor ("java.lang.String", "int[]", or garbage such as
         * "[Q"): keep it as written, with slashes as dots */
        dims = 0;
        print_put(out, cap, &n, vm, len, 1);
    }
    for (size_t d = 0; d < dims; d++)
        print_put(out, cap, &n, "[]", 2, 0);
    if (cap)
        out[n < cap ? n : cap - 1] = 0;
    return n;
}

const char *print_line_text(int32_t line, char *buf, size_t cap)
{
    switch (line) {
    case HPROF_LINE_UNKNOWN: return "Unknown line";
    case HPROF_LINE_COMPILED: return "Compiled method";
    case HPROF_LINE_NATIVE: return "Native method";
    default:
        snprintf(buf, cap, "%" PRId32, line);
        return buf;
    }
}

/* ------------------------------------------------------ standard input */

/* Copies standard input to a temporary file in $TMPDIR (else /tmp), for
 * readers that read their input twice (print's pass 2, the report's text or
 * binary decision). Returns the malloc'ed path, or NULL with errno set (no
 * file left behind); the caller says what failed. */
char *print_spool_stdin(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + 32;
    char *path = malloc(n);
    if (!path)
        return NULL;
    snprintf(path, n, "%s/hprof-stdin-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0) {
        int e = errno;
        free(path);
        errno = e;
        return NULL;
    }
    char buf[65536];
    int err = 0;
    for (;;) {
        ssize_t r = read(0, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            err = r < 0 ? errno : 0;
            break;
        }
        for (ssize_t w = 0; w < r && !err;) {
            ssize_t k = write(fd, buf + w, (size_t)(r - w));
            if (k < 0 && errno != EINTR)
                err = errno;
            else if (k > 0)
                w += k;
        }
        if (err)
            break;
    }
    if (close(fd) != 0 && !err)
        err = errno;
    if (err) {
        unlink(path);
        free(path);
        errno = err;
        return NULL;
    }
    return path;
}

/* ------------------------------------------- notes before ALLOC SITES */

void print_notes_clear(print_site_notes *n)
{
    free(n->note);
    free(n->samp);
    free(n->u8);
    memset(n, 0, sizeof *n);
}

/* Appends `k` values to the u64 array *a (count *na, in values; room for
 * *cap): the room doubles, so a note of 100 000 rows is not copied 100 000
 * times (realloc moves the block every time under ASan, and may anywhere). */
static int print_notes_push(uint64_t **a, uint32_t *na, size_t *cap, const uint64_t *v, uint32_t k)
{
    if ((size_t)*na + k > *cap) {
        size_t nc = *cap ? *cap : 64;
        while (nc < (size_t)*na + k)
            nc *= 2;
        uint64_t *g = realloc(*a, sizeof *g * nc);
        if (!g)
            return -1;
        *a = g;
        *cap = nc;
    }
    memcpy(*a + *na, v, sizeof **a * k);
    *na += k;
    return 0;
}

/* An unsigned decimal number at s (at least one digit, checked by the
 * caller), saturated at UINT64_MAX as strtoull does; *next after it. By
 * hand: the note is not NUL-terminated where the group ends, and libc's
 * strtoull under ASan scans the whole rest of the text each call. */
static uint64_t print_notes_num(const char *s, const char *end, const char **next)
{
    uint64_t v = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
    }
    *next = s;
    return v;
}

/* Parses the list after a prefix: `sep`-separated groups of `k` unsigned
 * numbers, groups separated by spaces ("1/2 3/4", "0:1,2,3,4"). Stops at
 * the first malformed group (what came before stays). */
static int print_notes_list(const char *s, const char *end, const char *seps, uint32_t k,
                            uint64_t **a, uint32_t *na)
{
    size_t cap = *na;
    while (s < end) {
        while (s < end && *s == ' ')
            s++;
        if (s >= end)
            break;
        uint64_t v[8];
        for (uint32_t i = 0; i < k; i++) {
            if (s >= end || *s < '0' || *s > '9')
                return 0;
            v[i] = print_notes_num(s, end, &s);
            if (i + 1 < k) {
                if (s >= end || *s != seps[i])
                    return 0;
                s++;
            }
        }
        if (print_notes_push(a, na, &cap, v, k) != 0)
            return -1;
    }
    return 0;
}

/* Orders positions in the U8 list (ctx) by row index, then by position. */
static int print_u8_cmp(const void *a, const void *b, void *ctx)
{
    const uint64_t *u8 = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t ix = u8[5 * x], iy = u8[5 * y];
    if (ix != iy)
        return ix < iy ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Sorts the U8 rows by row index, one row per index (the last written
 * stands, as it did when the list was scanned), so that print_notes_row
 * finds a row by a binary search: a scan per row was quadratic. */
static int print_notes_index(print_site_notes *n)
{
    if (n->nu8 < 2)
        return 0;
    uint32_t *pos = malloc((size_t)n->nu8 * sizeof *pos);
    uint64_t *out = malloc((size_t)n->nu8 * 5 * sizeof *out);
    if (!pos || !out) {
        free(pos);
        free(out);
        return -1;
    }
    for (uint32_t k = 0; k < n->nu8; k++)
        pos[k] = k;
    qsort_r(pos, n->nu8, sizeof *pos, print_u8_cmp, n->u8);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n->nu8; k++) {
        if (k + 1 < n->nu8 && n->u8[5 * pos[k]] == n->u8[5 * pos[k + 1]])
            continue; /* a later row for the same index follows */
        memcpy(&out[5 * m++], &n->u8[5 * pos[k]], 5 * sizeof *out);
    }
    free(pos);
    free(n->u8);
    n->u8 = out;
    n->nu8 = m;
    return 0;
}

int print_notes_take(print_site_notes *n, const char *s, size_t len)
{
    /* the record's text is not NUL-terminated: copy it */
    char *t = malloc(len + 1);
    if (!t)
        return -1;
    memcpy(t, s, len);
    t[len] = 0;
    const char *end = t + len;
    int rc = 0;
    size_t pn = strlen(HPROF_SITES_NOTE), ps = strlen(HPROF_SITES_SAMPLES),
           pu = strlen(HPROF_SITES_U8);
    if (len > pn && memcmp(t, HPROF_SITES_NOTE, pn) == 0) {
        free(n->note);
        n->note = strdup(t + pn);
        rc = n->note ? 1 : -1;
    } else if (len > ps && memcmp(t, HPROF_SITES_SAMPLES, ps) == 0) {
        char *e;
        n->sample_bytes = strtoull(t + ps, &e, 10);
        free(n->samp);
        n->samp = NULL;
        n->nsamp = 0;
        rc = print_notes_list(e, end, "/", 2, &n->samp, &n->nsamp) ? -1 : 1;
        n->nsamp /= 2;
    } else if (len > pu && memcmp(t, HPROF_SITES_U8, pu) == 0) {
        char *e1, *e2;
        n->live_total[0] = strtoull(t + pu, &e1, 10);
        n->live_total[1] = strtoull(e1, &e2, 10);
        n->has_u8 = e1 != t + pu && e2 != e1;
        free(n->u8);
        n->u8 = NULL;
        n->nu8 = 0;
        rc = print_notes_list(e2, end, ":,,,", 5, &n->u8, &n->nu8) ? -1 : 1;
        n->nu8 /= 5;
        if (rc == 1 && print_notes_index(n) != 0)
            rc = -1;
    }
    free(t);
    return rc;
}

int print_notes_row(const print_site_notes *n, uint32_t i, uint64_t v[4])
{
    int r = 0;
    /* u8 is sorted by row index (print_notes_index) */
    uint32_t lo = 0, hi = n->nu8;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (n->u8[5 * mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n->nu8 && n->u8[5 * lo] == i) {
        memcpy(v, &n->u8[5 * lo + 1], 4 * sizeof v[0]);
        r = 1;
    }
    for (int k = 0; k < 4; k++)
        if (v[k] == HPROF_U4_MAX)
            r |= 2;
    return r;
}

/* ---------------------------------------------------- command lines */

int print_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "hprof: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nRun 'hprof help' for usage.\n");
    return PRINT_EXIT_USAGE;
}

int print_args(int argc, char **argv, const char *const *flags, int *const *set,
               const char *const *valued, const char **const *val, const char **path)
{
    *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int done = 0;
        for (int k = 0; flags && flags[k] && !done; k++)
            if (strcmp(a, flags[k]) == 0) {
                *set[k] = 1;
                done = 1;
            }
        for (int k = 0; valued && valued[k] && !done; k++)
            if (strcmp(a, valued[k]) == 0) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "hprof: %s: %s needs a value\n", argv[0], a);
                    fprintf(stderr, "Run 'hprof help' for usage.\n");
                    return PRINT_EXIT_USAGE;
                }
                *val[k] = argv[++i];
                done = 1;
            }
        if (done)
            continue;
        if (a[0] == '-' && a[1]) {
            fprintf(stderr, "hprof: %s: unknown option '%s'\n", argv[0], a);
            fprintf(stderr, "Run 'hprof help' for usage.\n");
            return PRINT_EXIT_USAGE;
        }
        if (*path) {
            fprintf(stderr, "hprof: %s takes one FILE; extra argument '%s'\n", argv[0], a);
            fprintf(stderr, "Run 'hprof help' for usage.\n");
            return PRINT_EXIT_USAGE;
        }
        *path = a;
    }
    if (!*path)
        return print_usage_error("%s needs a FILE", argv[0]);
    return 0;
}

/* ------------------------------------------------ shared by the passes */

int print_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / elem)
            return -1;
        nc *= 2;
    }
    void *p;
    memcpy(&p, pp, sizeof p);
    void *np = realloc(p, nc * elem);
    if (!np)
        return -1;
    memcpy(pp, &np, sizeof np);
    *cap = nc;
    return 0;
}

int print_dump_event(int *state, int ev)
{
    int mask = 0;
    switch (ev) {
    case HPROF_TAG_HEAP_DUMP:
        mask = (*state ? PRINT_DUMP_END : 0) | PRINT_DUMP_BEGIN;
        *state = 1;
        break;
    case HPROF_TAG_HEAP_DUMP_SEGMENT:
        if (*state != 2) {
            mask = (*state ? PRINT_DUMP_END : 0) | PRINT_DUMP_BEGIN;
            *state = 2;
        }
        break;
    case PRINT_EV_RECORD_END:
        if (*state == 1) {
            mask = PRINT_DUMP_END;
            *state = 0;
        }
        break;
    case HPROF_TAG_HEAP_DUMP_END:
    case PRINT_EV_EOF:
        if (*state) {
            mask = PRINT_DUMP_END;
            *state = 0;
        }
        break;
    default:
        break;
    }
    return mask;
}
