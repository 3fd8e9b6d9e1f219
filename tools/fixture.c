/*
 * fixture.c: `hprof fixture OUT [options]`: writes a deterministic HPROF file
 * that exercises every record and heap sub-record type of libhprofwriter.
 *
 * Owns the option parsing and the records around the heap dump, through the
 * writer API; the model (classes, ids, strings, threads, the object graph)
 * is fixture_model.c's, the heap dump fixture_heap.c's. The counts it
 * promises are documented in fixture.h; the layout copies HotSpot's (UTF8,
 * LOAD CLASS, TRACE/FRAME, then a heap dump of CLASS DUMPs, roots with each
 * THREAD OBJECT before its frame roots, then objects) and adds the legacy
 * records of the original agent around it.
 *
 * Determinism: the clock is fixed and every "random" value comes from a
 * splitmix64 stream seeded by --seed, drawn in a fixed order, so the same
 * options give the same bytes.
 */
#include "fixture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_heap.h"
#include "fixture_model.h"
#include "hprof/hw_writer.h"

#define FIXTURE_TIMESTAMP_MS 1700000000000ull /* 2023-11-14T22:13:20Z */
#define FIXTURE_MAX_OBJECTS 50000000ull
#define FIXTURE_MIN_SEGMENT 64u
#define FIXTURE_MAX_SEGMENT (1u << 30) /* the writer buffers a whole segment */

/* ------------------------------------------------------------ the records */

static int fixture_site_cmp(const void *a, const void *b)
{
    const hw_alloc_site *x = a, *y = b;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes > y->live_bytes ? -1 : 1;
    return x->class_serial < y->class_serial ? -1 : x->class_serial > y->class_serial;
}

static uint32_t fixture_u4(uint64_t v)
{
    return v > HPROF_U4_MAX ? HPROF_U4_MAX : (uint32_t)v;
}

/* ALLOC SITES and HEAP SUMMARY from what the dump really holds, so that
 * VisualVM, which shows HEAP SUMMARY as its summary, agrees with the heap.
 * Every class is one site at its allocation trace; some Nodes were
 * "allocated and freed", so allocation totals exceed the live ones. */
static void fixture_sites_and_summary(fixture_ctx *c)
{
    hw_alloc_site sites[FX_NCLASSES];
    hw_alloc_sites_head h;
    uint32_t n = 0, kept = 0;
    uint64_t live_b = 0, live_i = 0, alloc_b = 0, alloc_i = 0;

    memset(&h, 0, sizeof h);
    for (int i = 0; i < FX_NCLASSES; i++) {
        const fixture_class *k = &c->cls[i];
        uint64_t freed_i = 0, freed_b = 0;
        if (!k->count)
            continue;
        if (i == FX_NODE && k->count) {
            freed_i = k->count / 4;
            freed_b = k->bytes / k->count * freed_i;
        }
        sites[n].array_type = fx_classes[i].array_type;
        sites[n].class_serial = k->serial;
        sites[n].trace_serial = k->trace;
        sites[n].live_bytes = fixture_u4(k->bytes);
        sites[n].live_instances = fixture_u4(k->count);
        sites[n].alloc_bytes = fixture_u4(k->bytes + freed_b);
        sites[n].alloc_instances = fixture_u4(k->count + freed_i);
        live_b += sites[n].live_bytes;
        live_i += sites[n].live_instances;
        alloc_b += sites[n].alloc_bytes;
        alloc_i += sites[n].alloc_instances;
        n++;
    }
    qsort(sites, n, sizeof sites[0], fixture_site_cmp);
    h.flags = HPROF_SITES_FORCE_GC;
    /* The original agent's default cutoff: sites below 0.01 % of the live
     * bytes are left out, the totals still count them. */
    h.cutoff = 0.0001f;
    h.total_live_bytes = fixture_u4(live_b);
    h.total_live_instances = fixture_u4(live_i);
    h.total_alloc_bytes = alloc_b;
    h.total_alloc_instances = alloc_i;
    while (kept < n && live_b && (double)sites[kept].live_bytes / (double)live_b >= h.cutoff)
        kept++;
    hw_alloc_sites(c->w, &h, sites, kept);
    hw_heap_summary(c->w, fixture_u4(live_b), fixture_u4(live_i), alloc_b, alloc_i);
}

static void fixture_traces(fixture_ctx *c)
{
    int written[FX_NFRAMES + 1] = {0};
    for (int oi = 0; oi < FX_NTRACES - 1; oi++) {
        int t = fx_trace_order[oi];
        hprof_id ids[8];
        uint32_t n = 0;
        /* a FRAME before the first TRACE that lists it */
        for (; fx_trace_frames[t][n]; n++) {
            unsigned f = fx_trace_frames[t][n];
            ids[n] = c->frame_id[f];
            if (!written[f]) {
                const fixture_framedef *fd = &fx_frames[f - 1];
                hw_frame(c->w, c->frame_id[f], c->frame_method_utf8[f], c->frame_sig_utf8[f],
                         c->frame_source_utf8[f], c->cls[fd->cls].serial, fd->line);
                written[f] = 1;
            }
        }
        hw_trace(c->w, (uint32_t)t, fx_trace_thread[t], n, ids);
    }
}

static int fixture_write(fixture_ctx *c)
{
    hw_writer *w = c->w;

    for (size_t i = 0; i < c->nutf8; i++)
        hw_utf8z(w, c->utf8[i].id, c->utf8[i].s);
    /* HotSpot writes the empty trace after the LOAD CLASS records that use
     * it; `hprof verify` asks for it before, which every reader accepts. */
    hw_trace(w, FX_TRACE_EMPTY, 0, 0, NULL);
    for (int i = 0; i < FX_NCLASSES; i++)
        hw_load_class(w, c->cls[i].serial, c->cls[i].id, FX_TRACE_EMPTY, c->cls[i].name_utf8);
    hw_load_class(w, c->gone_serial, c->gone_id, FX_TRACE_EMPTY, c->gone_utf8);
    hw_unload_class(w, c->gone_serial);
    hw_control_settings(w, HPROF_CTRL_ALLOC_TRACES | HPROF_CTRL_CPU_SAMPLING, 8);
    fixture_traces(c);
    for (uint32_t t = 0; t < FIXTURE_NTHREADS; t++)
        hw_start_thread(w, t + 1, c->thread[t], fx_thread_trace[t], c->thread_name_utf8[t],
                        c->group_main_utf8, c->group_system_utf8);
    hw_end_thread(w, FIXTURE_NTHREADS);

    fixture_heap_write(c);

    /* the original agent writes these at exit, after its dumps */
    fixture_sites_and_summary(c);
    {
        hw_cpu_sample s[FX_NTRACES - 1];
        uint32_t total = 0;
        for (uint32_t t = 0; t < FX_NTRACES - 1; t++) {
            s[t].trace_serial = t + 2;
            s[t].count = 1 + (uint32_t)(fixture_model_rand(c) % 100);
            total += s[t].count;
        }
        hw_cpu_samples(w, total, s, FX_NTRACES - 1);
    }
    return c->err[0] ? -1 : 0;
}

/* ------------------------------------------------------------ options */

static void fixture_usage(FILE *f)
{
    fprintf(f,
            "usage: hprof fixture OUT [options]\n"
            "Writes a deterministic HPROF file that uses every record and heap\n"
            "sub-record type (OUT may be - for stdout).\n"
            "\n"
            "  --id-size 4|8            identifier size (default 8)\n"
            "  --version 1.0.1|1.0.2|1.0.3\n"
            "                           format version (default 1.0.2; 1.0.3 with --android);\n"
            "                           1.0.1 writes one HEAP DUMP record, the others\n"
            "                           HEAP DUMP SEGMENTs and HEAP DUMP END\n"
            "  --objects N              synthetic Node instances, 0..%llu (default 1000);\n"
            "                           also scales strings and arrays\n"
            "  --segment-size BYTES     max bytes per heap dump segment, %u..%u, with an\n"
            "                           optional K or M suffix (default 1M)\n"
            "  --names slash|dot        java/lang/String and [I, or java.lang.String and int[]\n"
            "                           (default slash)\n"
            "  --seed N                 seed of the field values, 0..2^64-1 (default 1)\n"
            "  --android                add Android's roots and HEAP DUMP INFO (0x89-0x8E,\n"
            "                           0x90, 0xFE); jhat rejects them\n"
            "  -h, --help               this text\n"
            "\n"
            "Same options, same bytes. Prints one summary line on stdout.\n",
            (unsigned long long)FIXTURE_MAX_OBJECTS, FIXTURE_MIN_SEGMENT, FIXTURE_MAX_SEGMENT);
}

static int fixture_bad(const char *opt, const char *val, const char *accepts)
{
    if (val)
        fprintf(stderr, "hprof fixture: bad value '%s' for %s: accepts %s\n", val, opt, accepts);
    else
        fprintf(stderr, "hprof fixture: %s needs a value: %s\n", opt, accepts);
    fprintf(stderr, "Try 'hprof fixture --help'.\n");
    return 2;
}

/* Strict unsigned decimal (or 0x hex): no sign, no spaces, no trailing junk.
 * `suffix` allows K/M (KiB/MiB). */
static int fixture_parse_u64(const char *s, int suffix, uint64_t *out)
{
    uint64_t v = 0, mul = 1;
    unsigned base = 10;
    const char *p = s;
    int digits = 0;

    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    for (; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            break;
        if (v > (UINT64_MAX - d) / base)
            return -1;
        v = v * base + d;
        digits++;
    }
    if (!digits)
        return -1;
    if (suffix && base == 10 && *p && !p[1]) {
        if (*p == 'k' || *p == 'K')
            mul = 1024;
        else if (*p == 'm' || *p == 'M')
            mul = 1024 * 1024;
        else
            return -1;
        p++;
    }
    if (*p)
        return -1;
    if (v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

static int fixture_parse(int argc, char **argv, fixture_opts *o)
{
    memset(o, 0, sizeof *o);
    o->id_size = 8;
    o->version = HPROF_VERSION_1_0_2;
    o->objects = 1000;
    o->segment_size = HW_DEFAULT_SEGMENT_SIZE;
    o->seed = 1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL, *eq;
        char opt[32];
        uint64_t v;

        if (a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->out) {
                fprintf(stderr, "hprof fixture: one output file only ('%s' and '%s')\n",
                        o->out, a);
                return 2;
            }
            o->out = a;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fixture_usage(stdout);
            return -1;
        }
        if (strcmp(a, "--") == 0) {
            if (i + 1 < argc && !o->out && i + 2 == argc) {
                o->out = argv[++i];
                continue;
            }
            fprintf(stderr, "hprof fixture: '--' must be followed by OUT only\n");
            return 2;
        }
        if (strcmp(a, "--android") == 0) {
            o->android = 1;
            continue;
        }
        /* --opt value or --opt=value */
        eq = strchr(a, '=');
        if (eq) {
            size_t n = (size_t)(eq - a);
            if (n >= sizeof opt)
                n = sizeof opt - 1;
            memcpy(opt, a, n);
            opt[n] = '\0';
            val = eq + 1;
        } else {
            snprintf(opt, sizeof opt, "%s", a);
        }
#define FIXTURE_VALUE()                                                                         \
    do {                                                                                        \
        if (!val) {                                                                             \
            if (i + 1 >= argc)                                                                  \
                val = NULL;                                                                     \
            else                                                                                \
                val = argv[++i];                                                                \
        }                                                                                       \
    } while (0)
        if (strcmp(opt, "--id-size") == 0) {
            FIXTURE_VALUE();
            if (!val || (strcmp(val, "4") != 0 && strcmp(val, "8") != 0))
                return fixture_bad("--id-size", val, "4 or 8");
            o->id_size = (unsigned)(val[0] - '0');
        } else if (strcmp(opt, "--version") == 0) {
            FIXTURE_VALUE();
            if (val && strcmp(val, "1.0.1") == 0)
                o->version = HPROF_VERSION_1_0_1;
            else if (val && strcmp(val, "1.0.2") == 0)
                o->version = HPROF_VERSION_1_0_2;
            else if (val && strcmp(val, "1.0.3") == 0)
                o->version = HPROF_VERSION_1_0_3;
            else
                return fixture_bad("--version", val, "1.0.1, 1.0.2 or 1.0.3");
            o->version_given = 1;
        } else if (strcmp(opt, "--objects") == 0) {
            FIXTURE_VALUE();
            if (!val || fixture_parse_u64(val, 0, &v) || v > FIXTURE_MAX_OBJECTS) {
                char acc[64];
                snprintf(acc, sizeof acc, "an integer from 0 to %llu",
                         (unsigned long long)FIXTURE_MAX_OBJECTS);
                return fixture_bad("--objects", val, acc);
            }
            o->objects = v;
        } else if (strcmp(opt, "--segment-size") == 0) {
            FIXTURE_VALUE();
            if (!val || fixture_parse_u64(val, 1, &v) || v < FIXTURE_MIN_SEGMENT ||
                v > FIXTURE_MAX_SEGMENT) {
                char acc[96];
                snprintf(acc, sizeof acc, "a byte count from %u to %u (K and M suffixes allowed)",
                         FIXTURE_MIN_SEGMENT, FIXTURE_MAX_SEGMENT);
                return fixture_bad("--segment-size", val, acc);
            }
            o->segment_size = (uint32_t)v;
        } else if (strcmp(opt, "--names") == 0) {
            FIXTURE_VALUE();
            if (val && strcmp(val, "slash") == 0)
                o->dot_names = 0;
            else if (val && strcmp(val, "dot") == 0)
                o->dot_names = 1;
            else
                return fixture_bad("--names", val, "slash or dot");
        } else if (strcmp(opt, "--seed") == 0) {
            FIXTURE_VALUE();
            if (!val || fixture_parse_u64(val, 0, &v))
                return fixture_bad("--seed", val, "an integer from 0 to 2^64-1 (decimal or 0x hex)");
            o->seed = v;
        } else {
            fprintf(stderr, "hprof fixture: unknown option '%s'\n", a);
            fprintf(stderr, "Try 'hprof fixture --help'.\n");
            return 2;
        }
#undef FIXTURE_VALUE
    }
    if (!o->out) {
        fprintf(stderr, "hprof fixture: missing OUT (the file to write)\n");
        fprintf(stderr, "Try 'hprof fixture --help'.\n");
        return 2;
    }
    if (o->android && !o->version_given)
        o->version = HPROF_VERSION_1_0_3;
    return 0;
}

static const char *fixture_magic(hprof_version v)
{
    return v == HPROF_VERSION_1_0_1 ? HPROF_MAGIC_1_0_1
           : v == HPROF_VERSION_1_0_3 ? HPROF_MAGIC_1_0_3
                                      : HPROF_MAGIC_1_0_2;
}

int fixture_main(int argc, char **argv)
{
    fixture_ctx *c;
    hw_options ho;
    hw_sink *sink;
    int err = 0, rc, to_stdout;
    char msg[256] = "";
    uint64_t bytes, segments;

    c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "hprof fixture: out of memory\n");
        return 1;
    }
    rc = fixture_parse(argc, argv, &c->o);
    if (rc) {
        free(c);
        return rc < 0 ? 0 : rc;
    }
    to_stdout = strcmp(c->o.out, "-") == 0;

    fixture_model_build(c);
    if (c->err[0]) {
        fprintf(stderr, "hprof fixture: %s\n", c->err);
        rc = 1;
        goto out;
    }

    hw_options_init(&ho);
    ho.id_size = c->o.id_size;
    ho.version = c->o.version;
    ho.heap_mode = c->o.version == HPROF_VERSION_1_0_1 ? HW_HEAP_SINGLE : HW_HEAP_SEGMENTED;
    ho.clock = HW_CLOCK_FIXED;
    ho.timestamp_ms = FIXTURE_TIMESTAMP_MS;
    ho.segment_size = c->o.segment_size;

    /* an output file by the library's rules: 0600, no symbolic link */
    char why[256] = "";
    sink = to_stdout ? hw_sink_fd(1, 0) : hw_sink_file_ex(c->o.out, 0, &err, why, sizeof why);
    if (!sink) {
        fprintf(stderr, "hprof fixture: cannot create %s: %s\n", c->o.out,
                why[0] ? why : strerror(err ? err : ENOMEM));
        rc = 1;
        goto out;
    }
    c->w = hw_writer_open(sink, &ho, &err);
    if (!c->w) {
        fprintf(stderr, "hprof fixture: cannot open a writer on %s: %s\n", c->o.out,
                strerror(err));
        rc = 1;
        goto out;
    }
    fixture_write(c);
    bytes = hw_writer_offset(c->w);
    segments = hw_heap_segments(c->w);
    err = hw_writer_close(c->w, msg, sizeof msg);
    c->w = NULL;
    if (c->err[0]) {
        fprintf(stderr, "hprof fixture: %s\n", c->err);
        rc = 1;
    } else if (err) {
        fprintf(stderr, "hprof fixture: writing %s failed: %s\n", c->o.out,
                msg[0] ? msg : strerror(err));
        rc = 1;
    } else {
        unsigned nclasses = FX_NCLASSES;
        fprintf(to_stdout ? stderr : stdout,
                "fixture: %s: %" PRIu64 " bytes, %" PRIu64 " objects, %u classes, %" PRIu64
                " segments, %" PRIu64 " roots (%s, id size %u, seed %" PRIu64 "%s)\n",
                c->o.out, bytes, c->objects, nclasses, segments, c->roots,
                fixture_magic(c->o.version), c->o.id_size, c->o.seed,
                c->o.android ? ", android" : "");
        rc = 0;
    }
out:
    fixture_model_cleanup(c);
    free(c);
    return rc;
}

