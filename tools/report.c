/* report.c (tools): `hprof report [FILE...] -o OUT.html | --json OUT.json
 * [--diff BASE NEW] [--title T]`: option parsing and messages only; the
 * report itself is report/hprof_report.h's. */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapcmd.h"
#include "hprof_report.h"

static int report_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "hprof: report: ");
    fprintf(stderr, msg, arg);
    fprintf(stderr, "\nusage: hprof report FILE... -o OUT.html | --json OUT.json [--title T]\n"
                    "       hprof report --diff BASE NEW -o OUT.html | --json OUT.json\n"
                    "       [--no-retained] [--max-memory SIZE]\n");
    return 2;
}

int report_cmd_main(int argc, char **argv)
{
    const char *html = NULL, *json = NULL, *title = NULL;
    int diff = 0, no_retained = 0;
    unsigned long long max_memory = 0;
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t n = 0;
    if (!paths) {
        fprintf(stderr, "hprof: report: out of memory\n");
        return 1;
    }
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 || strcmp(a, "--json") == 0 || strcmp(a, "--title") == 0) {
            if (i + 1 >= argc) {
                rc = report_usage("%s needs a value", a);
                goto out;
            }
            const char **slot = a[1] == 'o' ? &html : a[2] == 'j' ? &json : &title;
            if (*slot) {
                rc = report_usage("%s given twice", a);
                goto out;
            }
            *slot = argv[++i];
        } else if (strcmp(a, "--diff") == 0) {
            diff = 1;
        } else if (strcmp(a, "--no-retained") == 0) {
            no_retained = 1;
        } else if (strcmp(a, "--max-memory") == 0) {
            if (i + 1 >= argc || !(max_memory = heapcmd_parse_size(argv[i + 1]))) {
                rc = report_usage("--max-memory needs a size (2G, 1500M, bytes)%s", "");
                goto out;
            }
            i++;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: hprof report FILE... -o OUT.html | --json OUT.json [--title T]\n"
                   "       hprof report --diff BASE NEW -o OUT.html | --json OUT.json\n"
                   "       [--no-retained] [--max-memory SIZE]\n"
                   "One self-contained HTML page (or its data as JSON) with the flame graphs,\n"
                   "tables, heap histogram, settings and warnings of the profiles (binary or\n"
                   "text, ours or the JDK 5-8 agent's); --diff: what grew and shrank from BASE\n"
                   "to NEW. OUT may be - for standard output. docs/report.md\n"
                   "With a binary heap dump: retained sizes and leak suspects from its dominator\n"
                   "tree (--no-retained: none; --max-memory: what that analysis may use).\n");
            rc = 0;
            goto out;
        } else if (a[0] == '-' && a[1]) {
            rc = report_usage("unknown option '%s'", a);
            goto out;
        } else {
            paths[n++] = a;
        }
    }
    if (!html == !json) {
        rc = report_usage("%s", html ? "give -o or --json, not both" : "missing -o OUT.html or --json OUT.json");
        goto out;
    }
    if (!n) {
        rc = report_usage("%s", "missing FILE");
        goto out;
    }
    if (diff && n != 2) {
        rc = report_usage("%s", "--diff takes two files, BASE and NEW");
        goto out;
    }
    report_opts o;
    memset(&o, 0, sizeof o);
    o.title = title;
    o.diff = diff;
    o.no_retained = no_retained;
    o.max_memory = max_memory;
    char err[1024];
    if (report_write(paths, n, &o, html ? html : json, html != NULL, err, sizeof err) != 0) {
        fprintf(stderr, "hprof: report: %s\n", err);
        rc = 1;
        goto out;
    }
    rc = 0;
out:
    free(paths);
    return rc;
}
