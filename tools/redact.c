/*
 * redact.c (tools): `hprof redact FILE -o OUT [options]`, a thin front end
 * over libhprofredact: options, the library's one call, the summary.
 * What is zeroed and kept is the library's contract (docs/redact.md); OUT
 * is opened by hw_outfile's rules (- is standard output, then the summary
 * goes to standard error).
 */
#include "redact.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "redact/redact.h"

static const char redact_cmd_usage[] =
    "usage: hprof redact FILE -o OUT [--keep-thread-names] [--keep-strings GLOB]... [--quiet]\n";

static int redact_cmd_usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "hprof: redact: %s%s\n%s", msg, arg, redact_cmd_usage);
    return 2;
}

int redact_cmd_main(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    int quiet = 0;
    redact_opts o;
    memset(&o, 0, sizeof o);
    const char **globs = calloc((size_t)argc, sizeof *globs);
    if (!globs) {
        fprintf(stderr, "hprof: redact: out of memory\n");
        return 1;
    }
    o.keep_strings = globs;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--keep-thread-names") == 0) {
            o.keep_thread_names = 1;
        } else if (strcmp(argv[i], "--keep-strings") == 0 && i + 1 < argc) {
            if (!argv[i + 1][0])
                rc = redact_cmd_usage_error("--keep-strings needs a non-empty GLOB", "");
            else
                globs[o.nkeep_strings++] = argv[i + 1];
            i++;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--help") == 0) {
            fputs(redact_cmd_usage, stdout);
            free(globs);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = redact_cmd_usage_error("unknown option or missing argument: ", argv[i]);
        } else if (in) {
            rc = redact_cmd_usage_error("takes one FILE; extra argument ", argv[i]);
        } else {
            in = argv[i];
        }
    }
    if (!rc && (!in || !out))
        rc = redact_cmd_usage_error(in ? "needs -o OUT" : "needs a FILE", "");
    if (rc) {
        free(globs);
        return rc;
    }
    redact *r = redact_init(&o);
    free(globs);
    if (!r) {
        fprintf(stderr, "hprof: redact: out of memory\n");
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (redact_file(r, in, out) != 0) {
        if (redact_error_is_input(r)) /* an offset in the input */
            fprintf(stderr, "hprof: redact %s: %s (nothing written)\n", in, redact_error(r));
        else /* the message names its file */
            fprintf(stderr, "hprof: redact: %s\n", redact_error(r));
        redact_cleanup(r);
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    const redact_stats *s = redact_get_stats(r);
    if (!quiet) {
        /* -o - : the dump is standard output, the summary goes to stderr */
        FILE *sf = strcmp(out, "-") == 0 ? stderr : stdout;
        fprintf(sf, "redacted %s -> %s: %" PRIu64 " bytes in %.3f s (%.0f MB/s, %" PRIu64 " passes)\n",
                in, out, s->bytes, dt, dt > 0 ? (double)s->bytes / dt / 1e6 : 0.0, s->passes);
        fprintf(sf, "  classes %" PRIu64 ", instances %" PRIu64 ", primitive arrays zeroed %" PRIu64
                ", bytes zeroed %" PRIu64 "\n",
                s->classes, s->instances, s->prim_arrays, s->zeroed_bytes);
        fprintf(sf, "  statics and constants zeroed %" PRIu64 ", UTF8 records redacted %" PRIu64
                ", unknown records zeroed %" PRIu64 "\n",
                s->statics_zeroed, s->utf8_redacted, s->unknown_records);
        fprintf(sf, "  bytes outside a record's layout zeroed %" PRIu64 " (in %" PRIu64 " records)\n",
                s->slack_bytes, s->slack_records);
        fprintf(sf, "  strings kept %" PRIu64 ", their arrays kept %" PRIu64 "\n", s->strings_kept,
                s->arrays_kept);
    }
    redact_cleanup(r);
    return 0;
}
