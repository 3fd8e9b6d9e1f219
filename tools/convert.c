/*
 * convert.c (tools): `hprof convert FILE -o OUT [options]`: parses the
 * options, picks gzip from OUT's name unless told, runs convert_file and
 * reports. All conversion logic is in libhprofconvert.
 */
#include "convert.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "convert/convert.h"

static const char convert_usage[] =
    "usage: hprof convert FILE -o OUT [options]\n"
    "\n"
    "Rewrites FILE (plain or gzip, - for standard input) as another HPROF variant.\n"
    "Without options the content is kept (Android 1.0.3 becomes standard 1.0.2).\n"
    "\n"
    "  -o OUT              output file (- for standard output); written as OUT.tmp.PID\n"
    "                      and renamed when complete, so a failure leaves OUT as it was\n"
    "  --id-size 4|8       rewrite every id; 8 -> 4 is refused when an id does not fit\n"
    "  --version 1.0.1|1.0.2  1.0.1: one HEAP DUMP record per dump; 1.0.2: HEAP DUMP\n"
    "                      SEGMENTs and HEAP DUMP END\n"
    "  --segment-size N    1.0.2: at most N bytes of sub-records per segment (re-cuts\n"
    "                      the segments; default 1048576)\n"
    "  --gzip, --plain     gzip (HotSpot's -gz layout: a gzip member per MiB) or plain;\n"
    "                      default: gzip when OUT ends in .gz\n"
    "  --level N           gzip compression level 0-9 (default 1, as jcmd GC.heap_dump -gz=1)\n"
    "  --renumber          ids that are not objects (names, stack frames, JNI global refs)\n"
    "                      become 1, 2, 3...: HotSpot's are C-heap and metaspace addresses,\n"
    "                      which never fit --id-size 4 (object ids are kept: a heap below\n"
    "                      4 GiB converts)\n"
    "  -z, --app-only      Android: leave out the zygote and image heaps' objects\n"
    "  --stats             print what was converted, and the speed, on stderr\n"
    "\n"
    "exit status: 0 converted, 1 the input is malformed or cannot be converted so (or the\n"
    "output could not be written), 2 usage error\n";

static int convert_usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "hprof: convert: %s%s\nRun 'hprof convert --help' for usage.\n", what, arg);
    return 2;
}

static int convert_parse_u32(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || v == 0 || v > 0xFFFFFFFFull)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int convert_ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

int convert_main(int argc, char **argv)
{
    convert_options o;
    convert_options_init(&o);
    const char *in = NULL, *out = NULL;
    int gz = -1, stats = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(convert_usage, stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (!v)
                return convert_usage_error("-o needs a file", "");
            out = v;
            i++;
        } else if (strcmp(a, "--id-size") == 0) {
            if (!v || (strcmp(v, "4") != 0 && strcmp(v, "8") != 0))
                return convert_usage_error("--id-size takes 4 or 8, not ", v ? v : "nothing");
            o.id_size = v[0] == '8' ? 8u : 4u; /* exactly "4" or "8": checked above */
            i++;
        } else if (strcmp(a, "--version") == 0) {
            if (v && strcmp(v, "1.0.1") == 0)
                o.version = HPROF_VERSION_1_0_1;
            else if (v && strcmp(v, "1.0.2") == 0)
                o.version = HPROF_VERSION_1_0_2;
            else
                return convert_usage_error("--version takes 1.0.1 or 1.0.2, not ", v ? v : "nothing");
            i++;
        } else if (strcmp(a, "--segment-size") == 0) {
            if (!v || convert_parse_u32(v, &o.segment_size) != 0)
                return convert_usage_error("--segment-size takes a byte count from 1 to 4294967295, not ",
                                           v ? v : "nothing");
            i++;
        } else if (strcmp(a, "--level") == 0) {
            if (!v || strlen(v) != 1 || v[0] < '0' || v[0] > '9')
                return convert_usage_error("--level takes 0 to 9, not ", v ? v : "nothing");
            o.gzip_level = v[0] - '0';
            i++;
        } else if (strcmp(a, "--gzip") == 0) {
            gz = 1;
        } else if (strcmp(a, "--plain") == 0) {
            gz = 0;
        } else if (strcmp(a, "-z") == 0 || strcmp(a, "--app-only") == 0) {
            o.app_only = 1;
        } else if (strcmp(a, "--renumber") == 0) {
            o.renumber = 1;
        } else if (strcmp(a, "--stats") == 0) {
            stats = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return convert_usage_error("unknown option ", a);
        } else if (!in) {
            in = a;
        } else {
            return convert_usage_error("more than one input file: ", a);
        }
    }
    if (!in)
        return convert_usage_error("missing FILE", "");
    if (!out)
        return convert_usage_error("missing -o OUT", "");
    o.gzip = gz >= 0 ? gz : convert_ends_with(out, ".gz");

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    convert_stats st;
    char msg[600];
    int r = convert_file(in, out, &o, &st, msg, sizeof msg);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (r != 0) {
        fprintf(stderr, "hprof: convert: %s: %s\n", in, msg);
        return 1;
    }
    if (stats) {
        double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        fprintf(stderr,
                "converted %s -> %s%s\n"
                "  bytes in %" PRIu64 ", out %" PRIu64 " (uncompressed), %.3f s, %.1f MB/s in\n"
                "  records %" PRIu64 ", heap dump records %" PRIu64 ", segments %" PRIu64
                ", sub-records %" PRIu64 "%s\n"
                "  ids resized %" PRIu64 ", Android roots %" PRIu64 ", HEAP DUMP INFO dropped %" PRIu64
                ", NODATA arrays %" PRIu64 ", app-only dropped %" PRIu64 ", unknown records %" PRIu64
                "%s\n",
                in, out, o.gzip ? " (gzip)" : "", st.in_bytes, st.out_bytes, dt,
                dt > 0 ? (double)st.in_bytes / 1e6 / dt : 0.0, st.records, st.heap_dumps,
                st.segments, st.subs, st.recut ? " (re-cut)" : "", st.ids, st.android_roots,
                st.android_infos, st.nodata_arrays, st.app_only_dropped, st.unknown_records,
                st.class_prepass ? "\n  an instance preceded its class: one pre-pass for class layouts" : "");
    }
    return 0;
}
