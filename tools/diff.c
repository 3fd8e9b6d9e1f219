/*
 * diff.c: `hprof diff OLD NEW [--top N] [--json]` (diff.h). Each file is
 * read once into a class histogram (histo.h, HotSpot's shallow sizes, the
 * same numbers as `hprof histo`); rows are renamed to Java spelling after
 * hidden-class normalization, merged by that name, then joined.
 *
 * Why normalized and Java-spelled names are the key: a class's id is an
 * address that changes between dumps (and between runs), a hidden class's
 * name carries its Klass address, and a dump written by another tool may
 * spell names with dots. Two dumps of one program must match class by class.
 */
#include "diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "histo.h"
#include "print.h"
#include "hprof/hr_reader.h"

#define DIFF_EXIT_OK 0
#define DIFF_EXIT_INPUT 1
#define DIFF_EXIT_USAGE 2
#define DIFF_PROBLEM_CAP 256

/* One class of one dump, or (after the join) of both. */
typedef struct diff_row {
    char *name; /* Java spelling, normalized; owned */
    uint64_t count[2], bytes[2]; /* [0] OLD, [1] NEW */
} diff_row;

typedef struct diff_read {
    histo *h;
    hr_header hd;
    char problem[DIFF_PROBLEM_CAP]; /* the first error the parser reported */
} diff_read;

static int diff_on_header(void *ctx, const hr_header *hd)
{
    diff_read *r = ctx;
    r->hd = *hd;
    return histo_on_header(r->h, hd);
}

static int diff_on_record(void *ctx, const hr_record *rec)
{
    return histo_on_record(((diff_read *)ctx)->h, rec);
}

static int diff_on_sub(void *ctx, const hr_sub *s)
{
    return histo_on_sub(((diff_read *)ctx)->h, s);
}

static void diff_on_problem(void *ctx, hr_severity sev, const char *kind, uint64_t off,
                            const char *msg)
{
    diff_read *r = ctx;
    if (sev == HR_ERROR && !r->problem[0])
        snprintf(r->problem, sizeof r->problem, "%s at offset %" PRIu64 ": %s", kind, off, msg);
}

static int diff_by_name(const void *a, const void *b)
{
    return strcmp(((const diff_row *)a)->name, ((const diff_row *)b)->name);
}

static void diff_rows_free(diff_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++)
        free(rows[i].name);
    free(rows);
}

/* Reads `path` into rows sorted by name, one per name, counts in slot
 * `side`. Returns 0 (read whole), 1 (malformed or cut: the rows hold what
 * could be read) or -1 (nothing usable; the reason printed). */
static int diff_load(const char *path, int side, diff_row **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    int err = 0;
    hr_source *src = hr_source_file(path, &err);
    if (!src) {
        fprintf(stderr, "hprof: cannot open %s: %s\n", path, strerror(err));
        return -1;
    }
    diff_read r;
    memset(&r, 0, sizeof r);
    r.h = histo_new();
    if (!r.h) {
        hr_source_close(src);
        fprintf(stderr, "hprof: out of memory reading %s\n", path);
        return -1;
    }
    hr_callbacks cb = {.on_header = diff_on_header, .on_record = diff_on_record,
                       .on_sub = diff_on_sub, .on_problem = diff_on_problem};
    hr_status rc = hr_parse(src, &cb, &r, NULL);
    hr_source_close(src);
    if (histo_finish(r.h, 1) != 0) {
        fprintf(stderr, "hprof: out of memory reading %s\n", path);
        histo_free(r.h);
        return -1;
    }
    if (!r.hd.version) {
        fprintf(stderr, "hprof: %s is not an HPROF file%s%s\n", path, r.problem[0] ? ": " : "",
                r.problem);
        histo_free(r.h);
        return -1;
    }
    if (!histo_heap_records(r.h)) {
        fprintf(stderr, "hprof: %s has no heap dump (written with heap=dump or heap=all, or by "
                        "jcmd GC.heap_dump)%s%s\n", path, r.problem[0] ? "; " : "", r.problem);
        histo_free(r.h);
        return -1;
    }
    size_t n;
    const histo_row *hr = histo_rows(r.h, &n);
    diff_row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "hprof: out of memory reading %s\n", path);
        histo_free(r.h);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(hr[i].name);
        size_t jl = print_java_name(hr[i].name, len, NULL, 0);
        rows[i].name = malloc(jl + 1);
        if (!rows[i].name) {
            fprintf(stderr, "hprof: out of memory reading %s\n", path);
            diff_rows_free(rows, n);
            histo_free(r.h);
            return -1;
        }
        print_java_name(hr[i].name, len, rows[i].name, jl + 1);
        rows[i].count[side] = hr[i].count;
        rows[i].bytes[side] = hr[i].bytes;
    }
    histo_free(r.h);
    /* a dump may spell one class both ways (java/lang/String and
     * java.lang.String): one row per Java name */
    if (n)
        qsort(rows, n, sizeof *rows, diff_by_name);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && strcmp(rows[m - 1].name, rows[i].name) == 0) {
            rows[m - 1].count[side] += rows[i].count[side];
            rows[m - 1].bytes[side] += rows[i].bytes[side];
            free(rows[i].name);
        } else {
            rows[m++] = rows[i];
        }
    }
    *out = rows;
    *nout = m;
    if (rc != HR_OK) {
        fprintf(stderr, "hprof: %s is malformed%s%s; its side of the diff covers what could be "
                        "read (run 'hprof verify %s')\n", path, r.problem[0] ? ": " : "",
                r.problem, path);
        return 1;
    }
    return 0;
}

static int64_t diff_delta(uint64_t before, uint64_t after)
{
    return (int64_t)(after - before);
}

/* Byte growth first (a leak shows as bytes), then instance growth, then
 * the name, so that equal dumps give a stable order. */
static int diff_by_growth(const void *a, const void *b)
{
    const diff_row *x = a, *y = b;
    int64_t dx = diff_delta(x->bytes[0], x->bytes[1]), dy = diff_delta(y->bytes[0], y->bytes[1]);
    if (dx != dy)
        return dx < dy ? 1 : -1;
    dx = diff_delta(x->count[0], x->count[1]);
    dy = diff_delta(y->count[0], y->count[1]);
    if (dx != dy)
        return dx < dy ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Joins the two name-sorted lists (their names move into the result). */
static diff_row *diff_join(diff_row *a, size_t na, diff_row *b, size_t nb, size_t *n)
{
    diff_row *j = calloc(na + nb ? na + nb : 1, sizeof *j);
    if (!j)
        return NULL;
    size_t i = 0, k = 0, m = 0;
    while (i < na || k < nb) {
        int c = i == na ? 1 : k == nb ? -1 : strcmp(a[i].name, b[k].name);
        if (c < 0) {
            j[m++] = a[i++];
        } else if (c > 0) {
            j[m++] = b[k++];
        } else {
            j[m] = a[i++];
            j[m].count[1] = b[k].count[1];
            j[m].bytes[1] = b[k].bytes[1];
            free(b[k++].name);
            m++;
        }
    }
    *n = m;
    return j;
}

static void diff_json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void diff_print_json(const diff_row *rows, size_t shown)
{
    printf("{\"classes\": [");
    for (size_t i = 0; i < shown; i++) {
        printf("%s\n  {\"class\": ", i ? "," : "");
        diff_json_string(rows[i].name);
        printf(", \"instances_before\": %" PRIu64 ", \"instances_after\": %" PRIu64
               ", \"bytes_before\": %" PRIu64 ", \"bytes_after\": %" PRIu64 "}",
               rows[i].count[0], rows[i].count[1], rows[i].bytes[0], rows[i].bytes[1]);
    }
    printf("%s]}\n", shown ? "\n" : "");
}

static void diff_print_table(const diff_row *rows, size_t n, size_t shown)
{
    printf("%12s %12s %12s %14s %14s %14s  %s\n", "inst before", "inst after", "inst +/-",
           "bytes before", "bytes after", "bytes +/-", "class name");
    printf("-------------------------------------------------------------------------------------"
           "----------\n");
    uint64_t tc[2] = {0, 0}, tb[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const diff_row *r = &rows[i];
        if (i < shown)
            printf("%12" PRIu64 " %12" PRIu64 " %+12" PRId64 " %14" PRIu64 " %14" PRIu64
                   " %+14" PRId64 "  %s\n",
                   r->count[0], r->count[1], diff_delta(r->count[0], r->count[1]), r->bytes[0],
                   r->bytes[1], diff_delta(r->bytes[0], r->bytes[1]), r->name);
        for (int s = 0; s < 2; s++) {
            tc[s] += r->count[s];
            tb[s] += r->bytes[s];
        }
    }
    if (shown < n)
        printf("... %zu more classes (--top)\n", n - shown);
    printf("%12" PRIu64 " %12" PRIu64 " %+12" PRId64 " %14" PRIu64 " %14" PRIu64 " %+14" PRId64
           "  Total (%zu classes)\n",
           tc[0], tc[1], diff_delta(tc[0], tc[1]), tb[0], tb[1], diff_delta(tb[0], tb[1]), n);
}

static int diff_usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "hprof: diff: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nRun 'hprof help' for usage.\n");
    return DIFF_EXIT_USAGE;
}

int diff_main(int argc, char **argv)
{
    const char *path[2] = {NULL, NULL};
    long top = 0;
    int json = 0, npath = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--top") == 0) {
            if (i + 1 >= argc)
                return diff_usage("--top needs a count%s", "");
            char *end;
            top = strtol(argv[++i], &end, 10);
            if (*end || top <= 0)
                return diff_usage("--top needs a count > 0, not '%s'", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return diff_usage("unknown option '%s'", argv[i]);
        } else if (npath == 2) {
            return diff_usage("takes two files, OLD and NEW; extra argument '%s'", argv[i]);
        } else {
            path[npath++] = argv[i];
        }
    }
    if (npath != 2)
        return diff_usage("needs two files, OLD and NEW%s", "");
    if (strcmp(path[0], "-") == 0 && strcmp(path[1], "-") == 0)
        return diff_usage("only one of OLD and NEW can be standard input%s", "");
    diff_row *side[2];
    size_t nside[2];
    int st[2];
    for (int s = 0; s < 2; s++)
        st[s] = diff_load(path[s], s, &side[s], &nside[s]);
    if (st[0] < 0 || st[1] < 0) {
        for (int s = 0; s < 2; s++)
            if (st[s] >= 0)
                diff_rows_free(side[s], nside[s]);
        return DIFF_EXIT_INPUT;
    }
    size_t n;
    diff_row *rows = diff_join(side[0], nside[0], side[1], nside[1], &n);
    if (!rows) {
        fprintf(stderr, "hprof: out of memory joining %s and %s\n", path[0], path[1]);
        diff_rows_free(side[0], nside[0]);
        diff_rows_free(side[1], nside[1]);
        return DIFF_EXIT_INPUT;
    }
    free(side[0]); /* their names moved into rows */
    free(side[1]);
    if (n)
        qsort(rows, n, sizeof *rows, diff_by_growth);
    size_t shown = top && (size_t)top < n ? (size_t)top : n;
    if (json)
        diff_print_json(rows, shown);
    else
        diff_print_table(rows, n, shown);
    diff_rows_free(rows, n);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("hprof: writing the diff");
        return DIFF_EXIT_INPUT;
    }
    return st[0] || st[1] ? DIFF_EXIT_INPUT : DIFF_EXIT_OK;
}
