/*
 * test_textprof.c: textprof (the agent's text layout read back as binary
 * HPROF): the records made of a small text have the exact fields (frames'
 * lines and sources, sites' counts, samples, threads, totals from HEAP
 * SUMMARY or from the rows); the detection; the description; and bad input:
 * the JDK 8 layout fixture cut at every byte and garbled is refused with a
 * "line N: ..." message or read, never a crash (also under ASan).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/hprof_format.h"
#include "hprof/hr_reader.h"
#include "testutil.h"
#include "tp_extras.h"
#include "tp_text.h"

typedef struct tt_seen {
    uint32_t n[256];
    int32_t lines[8];
    uint32_t nlines;
    uint32_t frame_source0; /* frames without a source */
    hr_alloc_site site[4];
    uint32_t nsites, sites_flags;
    uint64_t total_live, total_alloc;
    uint32_t sample_total, sample_count[4], sample_trace[4], nsamples;
    uint32_t thread_serial[4], nthreads;
    uint32_t trace_thread[8], trace_frames[8], ntraces;
} tt_seen;

static int tt_record(void *ctx, const hr_record *r)
{
    tt_seen *s = ctx;
    s->n[r->tag]++;
    if (r->tag == HPROF_TAG_FRAME) {
        if (s->nlines < 8)
            s->lines[s->nlines++] = r->u.frame.line;
        s->frame_source0 += r->u.frame.source_file_id == 0;
    } else if (r->tag == HPROF_TAG_ALLOC_SITES) {
        s->sites_flags = r->u.alloc_sites.flags;
        s->total_live = r->u.alloc_sites.total_live_bytes;
        s->total_alloc = r->u.alloc_sites.total_alloc_bytes;
        for (uint32_t i = 0; i < r->u.alloc_sites.nsites && s->nsites < 4; i++)
            hr_alloc_site_at(r, i, &s->site[s->nsites++]);
    } else if (r->tag == HPROF_TAG_CPU_SAMPLES) {
        s->sample_total = r->u.cpu_samples.total;
        for (uint32_t i = 0; i < r->u.cpu_samples.ntraces && s->nsamples < 4; i++, s->nsamples++)
            hr_cpu_sample_at(r, i, &s->sample_count[s->nsamples], &s->sample_trace[s->nsamples]);
    } else if (r->tag == HPROF_TAG_START_THREAD && s->nthreads < 4) {
        s->thread_serial[s->nthreads++] = r->u.start_thread.thread_serial;
    } else if (r->tag == HPROF_TAG_TRACE && s->ntraces < 8) {
        s->trace_thread[s->ntraces] = r->u.trace.thread_serial;
        s->trace_frames[s->ntraces++] = r->u.trace.nframes;
    }
    return 0;
}

static int tt_read(const char *text, tt_seen *s, tp_info *info, char *err, size_t errcap)
{
    memset(s, 0, sizeof *s);
    uint8_t *bin = NULL;
    size_t len = 0;
    int rc = tp_translate(text, strlen(text), &bin, &len, info, err, errcap);
    if (rc != 0)
        return rc;
    hr_source *src = hr_source_memory(bin, len);
    hr_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.on_record = tt_record;
    hr_status st = hr_parse(src, &cb, s, NULL);
    hr_source_close(src);
    free(bin);
    return st == HR_OK ? 0 : -2;
}

static const char tt_ours[] =
    "JAVA PROFILE 1.0.1, created Tue Mar  3 10:20:30 2015\n\n"
    "legend: THREAD START\nTRACE           a stack trace\n\n--------\n\n"
    "THREAD START (obj=7f0a, id = 200001, name=\"main\", group=\"main\")\n"
    "THREAD START (obj=0, id = 200002, name=\"\", group=\"\")\n"
    "THREAD END (id = 200002)\n"
    "TRACE 300001: (thread=200001)\n"
    "\tA.b(A.java:12)\n"
    "\tA.main(<Unknown Source>:Unknown line)\n"
    "TRACE 300002:\n"
    "\t<empty>\n"
    "TRACE 300003: (from dead phase of JVM)\n"
    "\tjava.lang.Thread.sleep(Thread.java:Native method)\n"
    "\tA.c(A.java:Compiled method)\n"
    "HEAP SUMMARY: live 5000 bytes in 30 objects; allocated 9000 bytes in 60 objects\n"
    "SITES BEGIN (ordered by allocated bytes) Tue Mar  3 10:20:35 2015\n"
    "          percent          live          alloc'ed  stack class\n"
    " rank   self  accum     bytes objs     bytes  objs trace name\n"
    "    1 60.00% 60.00%      3000   10      6000    20 300001 java.lang.Object[]  [4 samples, 2 live]\n"
    "    2 16.00% 76.00%       800   20      1600    40 300002 char[]\n"
    "SITES END\n"
    "CPU SAMPLES BEGIN (total = 45) Tue Mar  3 10:20:36 2015\n"
    "rank   self  accum   count trace method\n"
    "   1 66.67% 66.67%      30 300003 java.lang.Thread.sleep\n"
    "   2 22.22% 88.89%      10 300001 A.b\n"
    "CPU SAMPLES END\n"
    "CPU TIME (ms) BEGIN (total = 120) Tue Mar  3 10:20:36 2015\n"
    "rank   self  accum   count trace method [self ms / total ms]\n"
    "   1 100.00% 100.00%       3 300003 A.c\n"
    "CPU TIME (ms) END\n"
    "MONITOR DUMP BEGIN\n    THREAD 200001, trace 300001, status: R\nMONITOR DUMP END\n"
    "WAIT: MONITOR Ljava/lang/Object;, timeout=0, thread 200001\n";

static void test_records(void)
{
    tt_seen s;
    tp_info info;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(tt_read(tt_ours, &s, &info, err, sizeof err), 0);
    CU_ASSERT_EQUAL(s.n[HPROF_TAG_START_THREAD], 2);
    CU_ASSERT_EQUAL(s.n[HPROF_TAG_END_THREAD], 1);
    CU_ASSERT_EQUAL(s.thread_serial[0], 200001);
    CU_ASSERT_EQUAL(s.thread_serial[1], 200002);
    CU_ASSERT_EQUAL(s.n[HPROF_TAG_TRACE], 3);
    CU_ASSERT_EQUAL(s.trace_thread[0], 200001);
    CU_ASSERT_EQUAL(s.trace_thread[2], 0);
    CU_ASSERT_EQUAL(s.trace_frames[0], 2);
    CU_ASSERT_EQUAL(s.trace_frames[1], 0);
    CU_ASSERT_EQUAL(s.trace_frames[2], 2);
    CU_ASSERT_EQUAL(s.n[HPROF_TAG_FRAME], 4);
    CU_ASSERT_EQUAL(s.lines[0], 12);
    CU_ASSERT_EQUAL(s.lines[1], HPROF_LINE_UNKNOWN);
    CU_ASSERT_EQUAL(s.lines[2], HPROF_LINE_NATIVE);
    CU_ASSERT_EQUAL(s.lines[3], HPROF_LINE_COMPILED);
    CU_ASSERT_EQUAL(s.frame_source0, 1);
    /* classes: A, java.lang.Thread, java.lang.Object[], char[] */
    CU_ASSERT_EQUAL(s.n[HPROF_TAG_LOAD_CLASS], 4);
    CU_ASSERT_EQUAL(s.n[HPROF_TAG_ALLOC_SITES], 1);
    CU_ASSERT_EQUAL(s.sites_flags, HPROF_SITES_SORT_BY_ALLOC);
    CU_ASSERT_EQUAL(s.total_live, 5000); /* HEAP SUMMARY's, not the rows' sum */
    CU_ASSERT_EQUAL(s.total_alloc, 9000);
    CU_ASSERT_EQUAL_FATAL(s.nsites, 2);
    CU_ASSERT_EQUAL(s.site[0].live_bytes, 3000);
    CU_ASSERT_EQUAL(s.site[0].live_instances, 10);
    CU_ASSERT_EQUAL(s.site[0].alloc_bytes, 6000);
    CU_ASSERT_EQUAL(s.site[0].alloc_instances, 20);
    CU_ASSERT_EQUAL(s.site[0].trace_serial, 300001);
    CU_ASSERT_EQUAL(s.site[1].alloc_instances, 40);
    CU_ASSERT_EQUAL(s.site[1].trace_serial, 300002);
    CU_ASSERT_NOT_EQUAL(s.site[0].class_serial, s.site[1].class_serial);
    CU_ASSERT_EQUAL(s.n[HPROF_TAG_HEAP_SUMMARY], 1);
    CU_ASSERT_EQUAL(s.sample_total, 45);
    CU_ASSERT_EQUAL_FATAL(s.nsamples, 2);
    CU_ASSERT_EQUAL(s.sample_count[0], 30);
    CU_ASSERT_EQUAL(s.sample_trace[0], 300003);
    CU_ASSERT_EQUAL(s.sample_count[1], 10);
    CU_ASSERT_EQUAL(info.sites, 1);
    CU_ASSERT_EQUAL(info.samples, 1);
    CU_ASSERT_EQUAL(info.cpu_times, 1);
    CU_ASSERT_EQUAL(info.monitor_dumps, 1);
    CU_ASSERT_EQUAL(info.traces, 3);
    CU_ASSERT_EQUAL(info.threads, 2);
    char what[256];
    tp_describe(&info, what, sizeof what);
    CU_ASSERT_STRING_EQUAL(what, "1 SITES, 1 CPU SAMPLES, 1 CPU TIME, 1 MONITOR DUMP, "
                                 "1 HEAP SUMMARY, 3 TRACE and 2 THREAD START");
    tp_info none;
    memset(&none, 0, sizeof none);
    tp_describe(&none, what, sizeof what);
    CU_ASSERT_STRING_EQUAL(what, "no section");
}

/* Counts past u4 are clamped (as the agent's binary output clamps them). */
static void test_clamp(void)
{
    const char *t = "JAVA PROFILE 1.0.1, created Tue Mar  3 10:20:30 2015\n\n--------\n\n"
                    "SITES BEGIN (ordered by live bytes) Tue Mar  3 10:20:35 2015\n"
                    "    1 100.00% 100.00% 5033174400  600 5033174400  600 300001 long[]\n"
                    "SITES END\n"
                    "CPU SAMPLES BEGIN (total = 5000000000) x\n"
                    "   1 100.00% 100.00% 5000000000 300001 A.b\n"
                    "CPU SAMPLES END\n";
    tt_seen s;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(tt_read(t, &s, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(s.site[0].live_bytes, UINT32_MAX);
    CU_ASSERT_EQUAL(s.site[0].alloc_bytes, UINT32_MAX);
    CU_ASSERT_EQUAL(s.site[0].alloc_instances, 600);
    CU_ASSERT_EQUAL(s.total_alloc, 5033174400u);
    CU_ASSERT_EQUAL(s.sample_total, UINT32_MAX);
    CU_ASSERT_EQUAL(s.sample_count[0], UINT32_MAX);
}

/* Without HEAP SUMMARY (the original), the totals are the rows' sums. */
static void test_totals_from_rows(void)
{
    const char *t = "JAVA PROFILE 1.0.1, created Tue Mar  3 10:20:30 2015\n\n--------\n\n"
                    "SITES BEGIN (ordered by live bytes) Tue Mar  3 10:20:35 2015\n"
                    "    1 75.00% 75.00%      3000   10      6000    20 300001 A\n"
                    "    2 25.00% 100.00%      1000   20      1600    40 300002 B\n"
                    "SITES END\n";
    tt_seen s;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(tt_read(t, &s, NULL, err, sizeof err), 0);
    CU_ASSERT_EQUAL(s.total_live, 4000);
    CU_ASSERT_EQUAL(s.total_alloc, 7600);
    CU_ASSERT_EQUAL(s.sites_flags, 0);
}

/* A damaged file's names may hold NUL bytes: a shorter name with the same
 * bytes before the NUL is another name (found by fuzz_textprof: a read past
 * the shorter key). */
static void test_nul_in_names(void)
{
    static const char t[] = "JAVA PROFILE 1.0.1, created x\n\n--------\n\n"
                            "TRACE 1:\n\tA.b(A.java:1)\n\tA\0xyz.b(A.java:2)\n\tA\0x.b(A.java:3)\n"
                            "\tA\0xyz.b(A.java:4)\n";
    uint8_t *bin = NULL;
    size_t len = 0;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(tp_translate(t, sizeof t - 1, &bin, &len, NULL, err, sizeof err), 0);
    tt_seen s;
    memset(&s, 0, sizeof s);
    hr_source *src = hr_source_memory(bin, len);
    hr_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.on_record = tt_record;
    CU_ASSERT_EQUAL(hr_parse(src, &cb, &s, NULL), HR_OK);
    hr_source_close(src);
    free(bin);
    CU_ASSERT_EQUAL(s.n[HPROF_TAG_LOAD_CLASS], 3); /* A, A\0xyz, A\0x */
    CU_ASSERT_EQUAL(s.n[HPROF_TAG_FRAME], 4);
}

static void test_detect(void)
{
    CU_ASSERT_TRUE(tp_is_text("JAVA PROFILE 1.0.1, created x", 29));
    CU_ASSERT_TRUE(tp_is_text("JAVA PROFILE 1.0.2, created x", 29));
    CU_ASSERT_FALSE(tp_is_text("JAVA PROFILE 1.0.2\0\0\0\0\x08", 23));
    CU_ASSERT_FALSE(tp_is_text("JAVA PROFILE 1.0.", 17));
    CU_ASSERT_FALSE(tp_is_text("hello", 5));
    CU_ASSERT_FALSE(tp_is_text("", 0));
}

static void tt_expect_error(const char *text, const char *want)
{
    uint8_t *bin = (uint8_t *)1;
    size_t len = 7;
    char err[256] = "";
    CU_ASSERT_EQUAL(tp_translate(text, strlen(text), &bin, &len, NULL, err, sizeof err), -1);
    CU_ASSERT_PTR_NULL(bin);
    CU_ASSERT_EQUAL(len, 0);
    if (strcmp(err, want) != 0)
        fprintf(stderr, "\n  got '%s'\n want '%s'\n", err, want);
    CU_ASSERT_STRING_EQUAL(err, want);
}

static void test_errors(void)
{
    const char *h = "JAVA PROFILE 1.0.1, created Tue Mar  3 10:20:30 2015\n\n--------\n\n";
    char t[512];
    snprintf(t, sizeof t, "%sSITES BEGIN (ordered by live bytes) x\n    1 75.00%% 75.00%% 3000\nSITES END\n", h);
    tt_expect_error(t, "line 6: a SITES row reads rank self% accum% bytes objs bytes objs trace name");
    snprintf(t, sizeof t, "%sSITES BEGIN (ordered by live bytes) x\n", h);
    tt_expect_error(t, "line 5: the file is cut inside a section (no END line)");
    snprintf(t, sizeof t, "%sTHREAD END (id = 7)", h);
    tt_expect_error(t, "line 5: the file is cut (its last line has no end)");
    snprintf(t, sizeof t, "%sTRACE 1:\n\tA.b(A.java:x1)\n", h);
    tt_expect_error(t, "line 6: a trace frame's line is a number, Unknown line, Compiled method or "
                       "Native method");
    snprintf(t, sizeof t, "%sTRACE 1:\n\tnodot(A.java:1)\n", h);
    tt_expect_error(t, "line 6: a trace frame reads class.method(source:line)");
    snprintf(t, sizeof t, "%sCPU SAMPLES BEGIN (total = 99999999999999999999) x\nCPU SAMPLES END\n", h);
    tt_expect_error(t, "line 5: CPU SAMPLES BEGIN's total is not a number");
    snprintf(t, sizeof t, "%sSITES BEGIN (ordered by live bytes) x\n"
                          "    1 1.00%% 1.00%% 1 1 1 1 4294967296 A\nSITES END\n", h);
    tt_expect_error(t, "line 6: a SITES row reads rank self% accum% bytes objs bytes objs trace name");
    snprintf(t, sizeof t, "%sTHREAD START (obj=zz, id = 1, name=\"a\", group=\"b\")\n", h);
    tt_expect_error(t, "line 5: THREAD START's obj= is not hexadecimal");
    tt_expect_error("JAVA PROFILE 1.0.1, created", "line 1: the file is cut in its first line");
    tt_expect_error("JAVA PROFILE 1.0.2\0", "line 1: not the text layout (JAVA PROFILE 1.0.x, created ...)");
}

static char *tt_fixture(size_t *len)
{
    FILE *f = fopen(TEXTPROF_FIXTURE, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char *buf = malloc(1 << 16);
    *len = fread(buf, 1, 1 << 16, f);
    fclose(f);
    return buf;
}

/* Every prefix of the fixture: read (a cut at a line's end outside a
 * section) or refused with "line N: ...", never a crash; the whole reads. */
static void test_cut_everywhere(void)
{
    size_t len;
    char *full = tt_fixture(&len);
    CU_ASSERT_TRUE_FATAL(len > 1000);
    size_t ok = 0, refused = 0;
    for (size_t n = 0; n <= len; n++) {
        char *cut = malloc(n ? n : 1); /* exactly n bytes: ASan sees a read past them */
        memcpy(cut, full, n);
        uint8_t *bin = NULL;
        size_t blen = 0;
        char err[256] = "";
        if (tp_translate(cut, n, &bin, &blen, NULL, err, sizeof err) == 0) {
            ok++;
            CU_ASSERT_PTR_NOT_NULL(bin);
        } else {
            refused++;
            CU_ASSERT_EQUAL(strncmp(err, "line ", 5), 0);
        }
        free(bin);
        free(cut);
    }
    /* the whole file, and every cut just after a line outside a section */
    CU_ASSERT_TRUE(ok >= 10);
    CU_ASSERT_EQUAL(ok + refused, len + 1);
    free(full);
}

static void test_garbled(void)
{
    size_t len;
    char *full = tt_fixture(&len);
    static const char pool[] = "0123456789:(). \t\n%x-\0\377";
    unsigned seed = 14;
    for (int round = 0; round < 2000; round++) {
        char *g = malloc(len);
        memcpy(g, full, len);
        int k = 1 + (int)(rand_r(&seed) % 16);
        for (int i = 0; i < k; i++)
            g[60 + rand_r(&seed) % (len - 60)] = pool[rand_r(&seed) % (sizeof pool - 1)];
        uint8_t *bin = NULL;
        size_t blen = 0;
        char err[256] = "";
        if (tp_translate(g, len, &bin, &blen, NULL, err, sizeof err) == 0) {
            hr_source *src = hr_source_memory(bin, blen);
            hr_callbacks cb;
            memset(&cb, 0, sizeof cb);
            CU_ASSERT_EQUAL(hr_parse(src, &cb, NULL, NULL), HR_OK);
            hr_source_close(src);
        } else {
            CU_ASSERT_EQUAL(strncmp(err, "line ", 5), 0);
        }
        free(bin);
        free(g);
    }
    free(full);
}

/* ---------------------------------------------------------------- tp_extras */

static const char tt_extras_text[] =
    "JAVA PROFILE 1.0.1, created Tue Mar  3 10:20:30 2015\n"
    "\n"
    "  Section CPU SAMPLES (cpu=samples):\n"
    "WAIT: MONITOR Lnot/Counted; in the legend, timeout=1, thread 1\n"
    "\n--------\n\n"
    "CPU TIME (ms) BEGIN (total = 250) Tue Mar  3 10:20:36 2015\n"
    "rank   self  accum   count trace method [self ms / total ms]\n"
    "   1 80.00% 80.00%    7000 300010 App.inner [200.125 / 200.125]\n"
    "   2 20.00% 100.00%   1000 300011 App.outer [50.5 / 260.250] waited 12.345\n"
    "   3 garbage row\n"
    "CPU TIME (ms) END\n"
    "CPU TIME (ms) BEGIN (total = 100) Tue Mar  3 10:20:37 2015\n"
    "rank   self  accum   count trace method\n"
    "   1 33.33% 33.33%       3 300012 App.old\n"
    "CPU TIME (ms) END\n"
    "WAIT: MONITOR LApp$Lock;, timeout=100, thread 200011\n"
    "WAITED: MONITOR LApp$Lock;, time_waited=101, thread 200011\n"
    "MONITOR DUMP BEGIN\n"
    "    THREAD 200002, trace 300002, status: R\n"
    "    THREAD 200003, trace 300003, status: CW\n"
    "    MONITOR LApp$Lock;\n"
    "\towner: thread 200002, entry count: 2\n"
    "\twaiting to enter: thread 200004, thread 200005\n"
    "\twaiting to be notified: thread 200003\n"
    "    MONITOR Ljava/lang/Object; unowned\n"
    "\twaiting to enter:\n"
    "\twaiting to be notified:\n"
    "MONITOR DUMP END\n"
    "MONITOR TIME BEGIN (total = 340 ms) Tue Mar  3 10:20:37 2015\n"
    "rank   self  accum   count trace monitor\n"
    "   1 75.00% 75.00%      30 300001 App$Lock (Java)\n"
    "   2 25.00% 100.00%      2 300002 java.lang.Object (Java)\n"
    "MONITOR TIME END\n"
    "SITES BEGIN (ordered by live bytes, estimated from samples every 4096 bytes; live as of a GC) "
    "Tue Mar  3 10:20:35 2015\n"
    "          percent          live          alloc'ed  stack class\n"
    " rank   self  accum     bytes objs     bytes  objs trace name\n"
    "    1 80.00% 80.00%      8192    2      8192     2 300001 byte[]  [2 samples, 2 live]\n"
    "    2 20.00% 100.00%     4096    1     12288     3 300002 App  [3 samples, 1 live]\n"
    "SITES END\n"
    "HEAP DUMP BEGIN (3 objects, 72 bytes) Tue Mar  3 10:20:38 2015\n"
    "ROOT 50000001 (kind=<thread>, id=200001, trace=300001)\n"
    "ROOT 50000002 (kind=<JNI global ref>, id=5000, trace=0)\n"
    "ROOT 50000003 (kind=<JNI global ref>, id=5001, trace=0)\n"
    "ROOT 50000004 (kind=<busy monitor>)\n"
    "CLS 50000010 (name=App, trace=300000)\n"
    "OBJ 50000011 (sz=24, trace=300001, class=App@50000010)\n"
    "\tname\t50000012\n"
    "OBJ 50000013 (sz=24, trace=300001, class=App@50000010)\n"
    "ARR 50000012 (sz=24, trace=300000, nelems=4, elem type=char[])\n"
    "HEAP DUMP END\n";

static void test_extras(void)
{
    tp_extras *x = NULL;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(tp_extras_parse(tt_extras_text, sizeof tt_extras_text - 1, &x, err,
                                          sizeof err), 0);
    size_t n;
    uint32_t sections;
    const tp_time_row *t = tp_extras_times(x, &n);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(tp_extras_times_total_ms(x, &sections), 350);
    CU_ASSERT_EQUAL(sections, 2);
    CU_ASSERT_EQUAL(t[0].trace, 300010);
    CU_ASSERT_EQUAL(t[0].calls, 7000);
    CU_ASSERT_EQUAL(t[0].self_bp, 8000);
    CU_ASSERT_EQUAL(t[0].self_us, 200125);
    CU_ASSERT_EQUAL(t[0].total_us, 200125);
    CU_ASSERT_EQUAL(t[0].has_ms, 1);
    CU_ASSERT_EQUAL(t[1].self_us, 50500);
    CU_ASSERT_EQUAL(t[1].total_us, 260250);
    CU_ASSERT_EQUAL(t[1].wait_us, 12345);
    /* the JDK 8 row: self ms from the share of the section's 100 ms */
    CU_ASSERT_EQUAL(t[2].section, 1);
    CU_ASSERT_EQUAL(t[2].has_ms, 0);
    CU_ASSERT_EQUAL(t[2].self_us, 33330);
    CU_ASSERT_EQUAL(t[2].total_us, 0);
    CU_ASSERT_EQUAL(tp_extras_skipped(x), 1); /* "3 garbage row" */

    const tp_monitor_row *m = tp_extras_monitors(x, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(tp_extras_monitors_total_ms(x, &sections), 340);
    CU_ASSERT_STRING_EQUAL(m[0].monitor, "App$Lock");
    CU_ASSERT_EQUAL(m[0].count, 30);
    CU_ASSERT_EQUAL(m[0].self_us, 255000);
    CU_ASSERT_EQUAL(m[1].trace, 300002);
    CU_ASSERT_STRING_EQUAL(m[1].monitor, "java.lang.Object");

    const tp_mdump_thread *th = tp_extras_mdump_threads(x, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_EQUAL(th[1].thread, 200003);
    CU_ASSERT_EQUAL(th[1].trace, 300003);
    CU_ASSERT_STRING_EQUAL(th[1].status, "CW");
    const tp_mdump_monitor *mm = tp_extras_mdump_monitors(x, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(mm[0].monitor, "LApp$Lock;");
    CU_ASSERT_EQUAL(mm[0].owner, 200002);
    CU_ASSERT_EQUAL(mm[0].entry_count, 2);
    CU_ASSERT_EQUAL(mm[0].waiting_enter, 2);
    CU_ASSERT_EQUAL(mm[0].waiting_notify, 1);
    CU_ASSERT_STRING_EQUAL(mm[1].monitor, "Ljava/lang/Object;");
    CU_ASSERT_EQUAL(mm[1].owner, 0);
    CU_ASSERT_EQUAL(mm[1].waiting_enter, 0);

    /* the prelude's WAIT line (before "--------") is not a record */
    const tp_wait *w = tp_extras_waits(x, &n);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(w[0].monitor, "LApp$Lock;");
    CU_ASSERT_EQUAL(w[0].waited, 0);
    CU_ASSERT_EQUAL(w[0].ms, 100);
    CU_ASSERT_EQUAL(w[1].waited, 1);
    CU_ASSERT_EQUAL(w[1].ms, 101);
    CU_ASSERT_EQUAL(w[1].thread, 200011);

    const tp_sites_note *sn = tp_extras_sites(x, &n);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_EQUAL(sn[0].sample_bytes, 4096);
    CU_ASSERT_EQUAL(sn[0].samples, 5);
    CU_ASSERT_EQUAL(sn[0].live_samples, 3);
    CU_ASSERT_STRING_EQUAL(sn[0].live_note, "live as of a GC");
    CU_ASSERT_EQUAL(sn[0].by_alloc, 0);

    const tp_heap_class *h = tp_extras_heap(x, &n);
    CU_ASSERT_EQUAL(tp_extras_heap_dumps(x), 1);
    CU_ASSERT_EQUAL_FATAL(n, 2);
    CU_ASSERT_STRING_EQUAL(h[0].name, "App");
    CU_ASSERT_EQUAL(h[0].count, 2);
    CU_ASSERT_EQUAL(h[0].bytes, 48);
    CU_ASSERT_STRING_EQUAL(h[1].name, "char[]");
    CU_ASSERT_EQUAL(h[1].count, 1);
    CU_ASSERT_EQUAL(h[1].bytes, 24);
    const uint64_t *roots = tp_extras_roots(x);
    CU_ASSERT_EQUAL(roots[HPROF_GC_ROOT_THREAD_OBJ], 1);
    CU_ASSERT_EQUAL(roots[HPROF_GC_ROOT_JNI_GLOBAL], 2);
    CU_ASSERT_EQUAL(roots[HPROF_GC_ROOT_MONITOR_USED], 1);
    tp_extras_free(x);

    /* not text: an error, nothing made */
    x = (tp_extras *)1;
    CU_ASSERT_EQUAL(tp_extras_parse("\x00\x01", 2, &x, err, sizeof err), -1);
    CU_ASSERT_PTR_NULL(x);
}

/* The fixture cut at every byte: the parse never fails on text, never reads
 * past the cut (ASan), and its counts only grow with the length. */
static void test_extras_cut(void)
{
    size_t len = sizeof tt_extras_text - 1;
    size_t prev_times = 0;
    for (size_t cut = 60; cut <= len; cut++) {
        char *c = malloc(cut);
        memcpy(c, tt_extras_text, cut);
        tp_extras *x = NULL;
        char err[128];
        CU_ASSERT_EQUAL_FATAL(tp_extras_parse(c, cut, &x, err, sizeof err), 0);
        size_t n;
        tp_extras_times(x, &n);
        CU_ASSERT(n >= prev_times);
        prev_times = n;
        tp_extras_free(x);
        free(c);
    }
    CU_ASSERT_EQUAL(prev_times, 3);
}

static int tt_suites(void)
{
    CU_pSuite s = CU_add_suite("textprof", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "records", test_records) ||
        !CU_add_test(s, "totals_from_rows", test_totals_from_rows) ||
        !CU_add_test(s, "clamp", test_clamp) ||
        !CU_add_test(s, "nul_in_names", test_nul_in_names) ||
        !CU_add_test(s, "detect", test_detect) || !CU_add_test(s, "errors", test_errors) ||
        !CU_add_test(s, "cut_everywhere", test_cut_everywhere) ||
        !CU_add_test(s, "garbled", test_garbled) || !CU_add_test(s, "extras", test_extras) ||
        !CU_add_test(s, "extras_cut", test_extras_cut))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(tt_suites);
}
