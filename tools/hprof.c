/*
 * hprof.c: the `hprof` command-line tool: inspect, verify and summarise
 * HPROF files, and generate fixtures (fixture.c).
 *
 * Exit status, for every command: 0 OK, 1 problems found (or the command
 * failed on its input), 2 usage error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "asm.h"
#include "convert.h"
#include "diff.h"
#include "fixture.h"
#include "histo.h"
#include "path.h"
#include "print.h"
#include "hprof/hr_reader.h"
#include "hprof/hv_readers.h"
#include "hprof/hv_verify.h"
#include "hu_map.h"
#include "normalize.h"
#include "objsize.h"
#include "redact.h"
#include "report.h"
#include "retained.h"
#include "textin.h"
#include "warnlimit.h"

#define HPROF_EXIT_OK 0
#define HPROF_EXIT_PROBLEMS 1
#define HPROF_EXIT_USAGE 2

static const char hprof_usage[] =
    "usage: hprof COMMAND [options] FILE\n"
    "\n"
    "Inspect, verify and generate HPROF files (JAVA PROFILE 1.0.1/1.0.2/1.0.3,\n"
    "4- or 8-byte ids, plain or gzip). FILE may be - for standard input.\n"
    "\n"
    "commands:\n"
    "  info FILE             header, record and sub-record counts and bytes, read time\n"
    "  verify [options] FILE report what real readers (VisualVM, jhat, go-hprof, py-hprof...)\n"
    "                        choke on, with byte offsets, then which readers reject the\n"
    "                        file and why; exit 1 if a problem is found\n"
    "      --max N           list at most N problems of each kind in full (default 10;\n"
    "                        0 = all); the table at the end counts every one\n"
    "      --ignore KIND     do not count problems of KIND (repeatable)\n"
    "      --hotspot         ignore dangling-ref, as HotSpot's own dumps (CDS) hold them\n"
    "      --reader NAME     judge the file for one reader only: print its verdict and\n"
    "                        reasons, exit 1 only if it rejects or misreads the file\n"
    "                        (go-hprof, jhat, eaftan, py-hprof, visualvm; --reader help)\n"
    "                        Without it, the verdicts of all of them end the report.\n"
    "  histo [--top N] FILE  class histogram of the heap dump: instances, shallow bytes,\n"
    "                        class name, like jmap -histo\n"
    "  retained FILE [--top N] [--json] [--no-weak]  the dominator tree: the N objects\n"
    "                        and classes that retain the most bytes (shallow and\n"
    "                        retained bytes, retained objects); docs/heap-analysis.md\n"
    "  path FILE CLASS|ID [--top N] [--json] [--weak]  the shortest path from a GC root\n"
    "                        to an object or the N biggest instances of a class, field\n"
    "                        by field; weak references followed only with --weak\n"
    "  diff OLD NEW [--top N] [--json]  two heap dumps' class histograms side by side:\n"
    "                        per class, instances and bytes before and after, ordered\n"
    "                        by byte growth; names in Java spelling, hidden classes\n"
    "                        matched without their address (docs/heap-analysis.md)\n"
    "  sites [options] FILE  the ALLOC SITES records as the original's SITES tables, after\n"
    "                        their TRACE blocks; exit 1 if there are none\n"
    "      --cutoff X        leave out sites below this share of the bytes (0.0001 = 0.01 %)\n"
    "      --alloc           order (and cut) by allocated bytes instead of live bytes\n"
    "      --last            only the last ALLOC SITES record (they are cumulative)\n"
    "  print FILE            the whole file in the original agent's text layout\n"
    "                        (java.hprof.txt): threads, traces, sites, samples, heap dump\n"
    "  samples FILE          the CPU SAMPLES records as CPU SAMPLES tables; exit 1 if none\n"
    "  collapsed [--sites] FILE  collapsed stacks (root;...;leaf count) for flame graphs:\n"
    "                        CPU samples summed, or with --sites the last ALLOC SITES\n"
    "                        weighted by allocated bytes, the class as the leaf\n"
    "  redact FILE -o OUT [options]  a copy safe to share: every primitive value\n"
    "                        zeroed (arrays, fields, statics), other strings than names\n"
    "                        replaced by '*'; references, roots, classes, sizes kept\n"
    "      --keep-thread-names  keep the threads' names (Thread.name, START THREAD)\n"
    "      --keep-strings GLOB  keep the Strings held by classes matching GLOB\n"
    "                        (com.acme.* or com/acme/Foo*; repeatable); docs/redact.md\n"
    "  fixture OUT [options] write a deterministic file with every record and sub-record\n"
    "                        type, for parser tests (hprof fixture --help)\n"
    "  convert FILE -o OUT [options]  rewrite FILE as another variant: --id-size 4|8,\n"
    "                        --version 1.0.1|1.0.2, --gzip/--plain, Android 1.0.3 to\n"
    "                        1.0.2 (hprof convert --help)\n"
    "  disasm FILE [-o OUT]  the file as editable text that `hprof asm` turns back into the\n"
    "                        same bytes, damaged parts as hex (docs/hprof-text.md)\n"
    "  asm TEXT [-o OUT]     HPROF from that text (hand-written fixtures: lengths and counts\n"
    "                        computed unless given)\n"
    "  report FILE... -o OUT.html | --json OUT.json [--title T]  one self-contained HTML\n"
    "                        page: flame graphs, tables, heap histogram, settings and\n"
    "                        warnings of binary or text profiles (docs/report.md)\n"
    "      --diff BASE NEW   what grew and shrank from BASE to NEW (names normalized)\n"
    "      --no-retained     no retained sizes and leak suspects for a binary heap dump\n"
    "      --max-memory SIZE what that analysis may use (default: MemAvailable)\n"
    "  help                  this text\n"
    "\n"
    "sites, samples, collapsed and print also read the agent's text output\n"
    "(java.hprof.txt, format=a; ours and the JDK 5-8 agent's); info describes it\n"
    "(docs/text-input.md).\n"
    "\n"
    "  --normalize           for histo, sites, samples and collapsed: hidden classes and\n"
    "                        lambdas without their address and lambda counter\n"
    "                        (Foo$$Lambda$153+0x00007fa5c4001234 -> Foo$$Lambda+<hidden>),\n"
    "                        histo rows of one such name merged: two runs compare line\n"
    "                        by line\n"
    "\n"
    "exit status: 0 OK, 1 problems found or the input could not be read, 2 usage error\n";

static int hprof_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "hprof: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nRun 'hprof help' for usage.\n");
    return HPROF_EXIT_USAGE;
}

static double hprof_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static hr_source *hprof_open(const char *path)
{
    int err = 0;
    hr_source *s = hr_source_file(path, &err);
    if (!s)
        fprintf(stderr, "hprof: cannot open %s: %s\n", path, strerror(err));
    return s;
}

/* ----------------------------------------------------------------- info */

typedef struct hprof_info_ctx {
    hr_header h;
    uint64_t problems;
    wl_limit shown; /* the first WL_MAX_DEFAULT problems of each kind, then counts */
} hprof_info_ctx;

static int hprof_info_header(void *ctx, const hr_header *h)
{
    ((hprof_info_ctx *)ctx)->h = *h;
    return 0;
}

static void hprof_print_problem(void *ctx, hr_severity sev, const char *kind, uint64_t off,
                                const char *msg)
{
    hprof_info_ctx *c = ctx;
    c->problems++;
    if (!wl_take(&c->shown, kind))
        return;
    printf("  %s at offset %" PRIu64 " [%s]: %s\n", sev == HR_ERROR ? "ERROR" : "warning", off, kind,
           msg);
}

static int hprof_cmd_info(int argc, char **argv)
{
    if (argc != 2)
        return hprof_usage_error("info takes exactly one FILE%s", "");
    hr_source *src = hprof_open(argv[1]);
    if (!src)
        return HPROF_EXIT_PROBLEMS;
    hprof_info_ctx c;
    memset(&c, 0, sizeof c);
    wl_init(&c.shown, WL_MAX_DEFAULT);
    hr_callbacks cb = {.on_header = hprof_info_header, .on_problem = hprof_print_problem};
    static hr_stats st;
    double t0 = hprof_now();
    hr_status rc = hr_parse(src, &cb, &c, &st);
    double dt = hprof_now() - t0;
    int gz = hr_source_is_gzip(src);
    hr_source_close(src);
    wl_summary(&c.shown, stdout, "  ");

    printf("file:       %s%s\n", argv[1], gz ? " (gzip)" : "");
    if (c.h.version) {
        time_t secs = (time_t)(c.h.timestamp_ms / 1000);
        struct tm tmv;
        char when[64] = "?";
        if (gmtime_r(&secs, &tmv))
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tmv);
        printf("format:     %s, id size %u, timestamp %" PRIu64 " ms (%s)\n", c.h.magic, c.h.id_size,
               c.h.timestamp_ms, when);
    }
    printf("bytes:      %" PRIu64 "\n", st.bytes);
    printf("\n%-22s %12s %14s\n", "record", "count", "bytes");
    uint64_t nrec = 0;
    for (unsigned t = 0; t < 256; t++) {
        if (!st.records[t])
            continue;
        const char *n = hprof_tag_name(t);
        char unk[32];
        if (!n) {
            snprintf(unk, sizeof unk, "unknown 0x%02X", t);
            n = unk;
        }
        printf("%-22s %12" PRIu64 " %14" PRIu64 "\n", n, st.records[t], st.record_bytes[t]);
        nrec += st.records[t];
    }
    printf("%-22s %12" PRIu64 "\n", "total", nrec);
    uint64_t nsub = 0;
    for (unsigned t = 0; t < 256; t++)
        nsub += st.subs[t];
    if (nsub) {
        printf("\n%-22s %12s %14s\n", "heap sub-record", "count", "bytes");
        for (unsigned t = 0; t < 256; t++)
            if (st.subs[t])
                printf("%-22s %12" PRIu64 " %14" PRIu64 "\n", hprof_sub_name(t), st.subs[t],
                       st.sub_bytes[t]);
        printf("%-22s %12" PRIu64 "\n", "total", nsub);
    }
    printf("\nread in %.3f s (%.0f MB/s)\n", dt, dt > 0 ? (double)st.bytes / dt / 1e6 : 0.0);
    if (rc != HR_OK || c.problems) {
        printf("%" PRIu64 " problem(s) while parsing; run 'hprof verify' for a full check\n",
               c.problems);
        return HPROF_EXIT_PROBLEMS;
    }
    return HPROF_EXIT_OK;
}

/* --------------------------------------------------------------- verify */

static void hprof_verify_print(void *ctx, const hv_problem *p)
{
    (void)ctx;
    printf("%s at offset %" PRIu64 " [%s]: %s\n", p->severity == HR_ERROR ? "ERROR" : "warning",
           p->offset, p->kind, p->message);
}

static int hprof_verify_ignored(const char *const *ignore, const char *kind)
{
    for (; *ignore; ignore++)
        if (strcmp(*ignore, kind) == 0)
            return 1;
    return 0;
}

static void hprof_verify_reason(void *ctx, const hv_reason *r)
{
    (void)ctx;
    printf("    %s: %s\n", hv_verdict_name(r->verdict), r->message);
}

static void hprof_verify_readers_help(void)
{
    printf("readers that verify judges a file for (--reader NAME):\n");
    for (unsigned i = 0; i < hv_reader_count(); i++)
        printf("  %-10s %s\n", hv_reader_name(i), hv_reader_about(i));
}

/* The readers' verdicts: every reader, or only `only` (>= 0). Returns the
 * worst verdict printed. */
static hv_verdict hprof_verify_readers(const hv_result *res, int only)
{
    hv_verdict worst = HV_READS;
    printf("readers:\n");
    for (unsigned i = 0; i < hv_reader_count(); i++) {
        if (only >= 0 && (unsigned)only != i)
            continue;
        hv_verdict v = hv_reader_judge(i, res, NULL, NULL);
        printf("  %-10s %-8s the file  (%s)\n", hv_reader_name(i), hv_verdict_name(v),
               hv_reader_about(i));
        hv_reader_judge(i, res, hprof_verify_reason, NULL);
        if (v > worst)
            worst = v;
    }
    return worst;
}

static int hprof_cmd_verify(int argc, char **argv)
{
    int reader = -1;
    const char *ignore[64];
    unsigned nignore = 0;
    hv_options o;
    hv_options_init(&o);
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 0)
                return hprof_usage_error("--max needs a count >= 0, not '%s'", argv[i]);
            o.max_per_kind = (unsigned)v;
        } else if (strcmp(argv[i], "--ignore") == 0 && i + 1 < argc) {
            if (nignore + 2 >= sizeof ignore / sizeof ignore[0])
                return hprof_usage_error("too many --ignore options%s", "");
            ignore[nignore++] = argv[++i];
        } else if (strcmp(argv[i], "--reader") == 0 && i + 1 < argc) {
            if (strcmp(argv[++i], "help") == 0) {
                hprof_verify_readers_help();
                return HPROF_EXIT_OK;
            }
            reader = hv_reader_find(argv[i]);
            if (reader < 0) {
                hprof_verify_readers_help();
                return hprof_usage_error("verify: unknown reader '%s'", argv[i]);
            }
        } else if (strcmp(argv[i], "--hotspot") == 0) {
            ignore[nignore++] = "dangling-ref";
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return hprof_usage_error("verify: unknown option '%s'", argv[i]);
        } else if (path) {
            return hprof_usage_error("verify takes one FILE; extra argument '%s'", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return hprof_usage_error("verify needs a FILE%s", "");
    ignore[nignore] = NULL;
    o.ignore = ignore;
    o.on_problem = hprof_verify_print;
    hr_source *src = hprof_open(path);
    if (!src)
        return HPROF_EXIT_PROBLEMS;
    static hv_result res;
    int rc = hv_verify(src, &o, &res);
    hr_source_close(src);
    if (rc < 0) {
        fprintf(stderr, "hprof: verify ran out of memory on %s\n", path);
        return HPROF_EXIT_PROBLEMS;
    }
    uint64_t unlisted = 0;
    for (unsigned i = 0; i < res.nkinds && o.max_per_kind; i++)
        if (!hprof_verify_ignored(ignore, res.kinds[i].kind) && res.kinds[i].count > o.max_per_kind)
            unlisted += res.kinds[i].count - o.max_per_kind;
    if (unlisted)
        printf("... and %" PRIu64 " more problems not listed (at most %u of each kind: --max)\n",
               unlisted, o.max_per_kind);
    for (unsigned i = 0; i < res.nkinds; i++)
        printf("  %-32s %10" PRIu64 " %s\n", res.kinds[i].kind, res.kinds[i].count,
               res.kinds[i].severity == HR_ERROR ? "error(s)" : "warning(s)");
    /* the summary stays the last line: scripts read it with tail -1 */
    hv_verdict worst = hprof_verify_readers(&res, reader);
    printf("%s: %" PRIu64 " error(s), %" PRIu64 " warning(s)%s\n", path, res.errors, res.warnings,
           res.resolved_refs ? "" : " (references not resolved: the input cannot be re-read)");
    /* --reader: the question is that reader's verdict, not the general list. */
    if (reader >= 0)
        return worst == HV_READS ? HPROF_EXIT_OK : HPROF_EXIT_PROBLEMS;
    return rc == 0 ? HPROF_EXIT_OK : HPROF_EXIT_PROBLEMS;
}

/* ---------------------------------------------------------------- histo */

static int hprof_cmd_histo(int argc, char **argv)
{
    const char *path = NULL;
    long top = 0;
    int normalize = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--normalize") == 0) {
            normalize = 1;
        } else if (strcmp(argv[i], "--top") == 0 && i + 1 < argc) {
            char *end;
            top = strtol(argv[++i], &end, 10);
            if (*end || top <= 0)
                return hprof_usage_error("--top needs a count > 0, not '%s'", argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return hprof_usage_error("histo: unknown option '%s'", argv[i]);
        } else if (path) {
            return hprof_usage_error("histo takes one FILE; extra argument '%s'", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return hprof_usage_error("histo needs a FILE%s", "");
    hr_source *src = hprof_open(path);
    if (!src)
        return HPROF_EXIT_PROBLEMS;
    histo *h = histo_new();
    if (!h) {
        hr_source_close(src);
        fprintf(stderr, "hprof: out of memory\n");
        return HPROF_EXIT_PROBLEMS;
    }
    hr_callbacks cb = {.on_header = histo_on_header, .on_record = histo_on_record,
                       .on_sub = histo_on_sub};
    hr_status rc = hr_parse(src, &cb, h, NULL);
    hr_source_close(src);
    int status = HPROF_EXIT_OK;
    if (histo_finish(h, normalize) != 0) {
        fprintf(stderr, "hprof: out of memory reading %s\n", path);
        histo_free(h);
        return HPROF_EXIT_PROBLEMS;
    }
    if (rc != HR_OK) {
        fprintf(stderr, "hprof: %s is malformed; the histogram covers what could be read "
                        "(run 'hprof verify %s')\n", path, path);
        status = HPROF_EXIT_PROBLEMS;
    }
    if (!histo_heap_records(h)) { /* an empty table would read as an empty heap */
        fprintf(stderr, "hprof: %s has no heap dump (written with heap=dump or heap=all, or by "
                        "jcmd GC.heap_dump)\n", path);
        histo_free(h);
        return HPROF_EXIT_PROBLEMS;
    }
    size_t n;
    const histo_row *row = histo_rows(h, &n);
    printf(" num     #instances         #bytes  class name\n");
    printf("----------------------------------------------\n");
    uint64_t tc = 0, tb = 0;
    for (size_t i = 0; i < n; i++) {
        if (!top || (long)i < top)
            printf("%4zu: %14" PRIu64 " %14" PRIu64 "  %s\n", i + 1, row[i].count, row[i].bytes,
                   row[i].name);
        tc += row[i].count;
        tb += row[i].bytes;
    }
    printf("Total %14" PRIu64 " %14" PRIu64 "\n", tc, tb);
    histo_free(h);
    return status;
}

/* ----------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    if (argc < 2)
        return hprof_usage_error("missing COMMAND%s", "");
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(hprof_usage, stdout);
        return HPROF_EXIT_OK;
    }
    int text_rc = textin_main(cmd, argc - 1, argv + 1); /* java.hprof.txt to binary-only commands */
    if (text_rc >= 0)
        return text_rc;
    if (strcmp(cmd, "info") == 0)
        return hprof_cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "verify") == 0)
        return hprof_cmd_verify(argc - 1, argv + 1);
    if (strcmp(cmd, "histo") == 0)
        return hprof_cmd_histo(argc - 1, argv + 1);
    if (strcmp(cmd, "retained") == 0 || strcmp(cmd, "path") == 0)
        return cmd[0] == 'r' ? retained_main(argc - 1, argv + 1) : path_main(argc - 1, argv + 1);
    if (strcmp(cmd, "diff") == 0)
        return diff_main(argc - 1, argv + 1);
    if (strcmp(cmd, "convert") == 0)
        return convert_main(argc - 1, argv + 1);
    if (strcmp(cmd, "fixture") == 0)
        return fixture_main(argc - 1, argv + 1);
    if (strcmp(cmd, "sites") == 0)
        return print_sites_main(argc - 1, argv + 1);
    if (strcmp(cmd, "print") == 0)
        return print_print_main(argc - 1, argv + 1);
    if (strcmp(cmd, "samples") == 0)
        return print_samples_main(argc - 1, argv + 1);
    if (strcmp(cmd, "redact") == 0)
        return redact_cmd_main(argc - 1, argv + 1);
    if (strcmp(cmd, "collapsed") == 0)
        return print_collapsed_main(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return report_cmd_main(argc - 1, argv + 1);
    if (strcmp(cmd, "disasm") == 0 || strcmp(cmd, "asm") == 0)
        return cmd[0] == 'd' ? asm_disasm_main(argc - 1, argv + 1) : asm_asm_main(argc - 1, argv + 1);
    return hprof_usage_error("unknown command '%s'", cmd);
}
