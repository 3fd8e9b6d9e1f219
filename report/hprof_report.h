/* hprof_report.h: `hprof report`'s library (hprofreport): the report data (one
 * JSON document, docs/report.md "The data") built from any number of
 * profiles, or from two for a diff, and the self-contained HTML page that
 * holds it (web_page.h renders the page around the data).
 *
 * Errors are values: -1 with a sentence in `err` ("FILE: reason"). */
#ifndef HPROF_REPORT_H
#define HPROF_REPORT_H

#include <stddef.h>

typedef struct report_opts {
    const char *title; /* NULL: the input file names joined by ", " */
    int diff;          /* paths[0] is BASE, paths[1] NEW (n == 2) */
    /* Most rows of one table (0: 2000); the rest are counted in its note. */
    size_t max_rows;
    /* Most traces written in "traces" (0: 20000): those of the tables' rows
     * first, then those of the flame graphs' nodes; a node whose trace is
     * not written has trace 0. */
    size_t max_traces;
    /* 1: no dominator tree (no retained tables, no leak suspects) */
    int no_retained;
    /* The most bytes the retained analysis may use (0: MemAvailable) */
    unsigned long long max_memory;
} report_opts;

/* The report data of `n` inputs as JSON: *json malloc'ed (free it), *len its
 * bytes. 0, or -1 with `err`. */
int report_json(const char *const *paths, size_t n, const report_opts *o, char **json, size_t *len,
                char *err, size_t errcap);

/* Writes the report to `out` ("-": standard output) as the HTML page
 * (html 1) or the JSON alone (html 0), through hw_outfile (a temporary file
 * renamed over OUT, 0600). 0, or -1 with `err`. */
int report_write(const char *const *paths, size_t n, const report_opts *o, const char *out,
                 int html, char *err, size_t errcap);

/* For hprof-ctl --report OUT.html: the HTML report of what it received. */
int report_write_files(const char *const *paths, size_t n, const char *out_html, char *err,
                       size_t errcap);

#endif
