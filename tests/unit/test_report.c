/*
 * test_report.c: the report's data modules (report/): the JSON writer
 * (escaping for a <script> element, invalid UTF-8, 2^53, fixed-point and
 * percentages without the locale, commas), the flame trie (preorder, name
 * order, depths, self, kinds, traces, the names table deduplicated), the
 * diff merge (base and self on the same nodes), whole reports of small
 * text profiles with exact numbers, and the retained tables and leak
 * suspects of small heap dumps whose dominator trees are known.
 */
#include <CUnit/CUnit.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hprof/hprof_format.h"
#include "hprof_report.h"
#include "rj_json.h"
#include "rt_trie.h"
#include "testutil.h"

/* The writer's text as a NUL-terminated copy (static buffer). */
static const char *tr_text(rj *j)
{
    static char buf[8192];
    size_t n;
    const char *t = rj_text(j, &n);
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, t, n);
    buf[n] = 0;
    return buf;
}

static void test_json_escape(void)
{
    rj *j = rj_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    rj_arr(j);
    rj_cstr(j, "</script><b>&\"\\\n\t\x01");
    rj_str(j, "a\xff" "b", 3);           /* invalid byte */
    rj_cstr(j, "\xc3\xa9\xe2\x82\xac");   /* é € kept as UTF-8 */
    rj_str(j, "\xed\xa0\x80", 3);         /* a surrogate: invalid */
    rj_str(j, "\xc0\xaf", 2);             /* overlong '/': invalid */
    rj_str(j, "x\0y", 3);                 /* NUL */
    rj_cstr(j, NULL);
    /* Java's modified UTF-8 (HPROF names): a surrogate pair is the one
     * character it stands for (U+1D49C, a letter Java allows in names), C0 80
     * is NUL; a pair cut short stays invalid */
    rj_cstr(j, "A\xed\xa0\xb5\xed\xb2\x9c" "B");
    rj_str(j, "a\xc0\x80" "b", 4);
    rj_cstr(j, "\xed\xa0\xb5\xed\xb2");
    rj_arr_end(j);
    CU_ASSERT_FALSE(rj_failed(j));
    CU_ASSERT_STRING_EQUAL(tr_text(j),
                           "[\"\\u003c/script\\u003e\\u003cb\\u003e\\u0026\\\"\\\\\\u000a\\u0009\\u0001\","
                           "\"a\\ufffdb\",\"\xc3\xa9\xe2\x82\xac\",\"\\ufffd\\ufffd\\ufffd\","
                           "\"\\ufffd\\ufffd\",\"x\\u0000y\",null,"
                           "\"A\xf0\x9d\x92\x9c" "B\",\"a\\u0000b\","
                           "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"]");
    rj_free(j);
}

static void test_json_numbers(void)
{
    /* a locale with a decimal comma must not change anything */
    setlocale(LC_NUMERIC, "de_DE.UTF-8");
    rj *j = rj_new();
    rj_obj(j);
    rj_key(j, "max");
    rj_u64(j, 9007199254740991ull);
    rj_key(j, "over");
    rj_u64(j, 9007199254740992ull);
    rj_key(j, "u64max");
    rj_u64(j, UINT64_MAX);
    rj_key(j, "neg");
    rj_i64(j, -42);
    rj_key(j, "zero");
    rj_u64(j, 0);
    rj_key(j, "fixed");
    rj_arr(j);
    rj_fixed(j, 2530, 2);
    rj_fixed(j, 5, 3);
    rj_fixed(j, -1500, 3);
    rj_fixed(j, 7, 0);
    rj_arr_end(j);
    rj_key(j, "pct");
    rj_arr(j);
    rj_pct(j, 1, 3);
    rj_pct(j, 2, 3);
    rj_pct(j, 5, 0);
    rj_pct(j, 750, 1000);
    rj_arr_end(j);
    rj_key(j, "b");
    rj_bool(j, 1);
    rj_obj_end(j);
    setlocale(LC_NUMERIC, "C");
    CU_ASSERT_STRING_EQUAL(tr_text(j), "{\"max\":9007199254740991,\"over\":9007199254740991,"
                                       "\"u64max\":9007199254740991,\"neg\":-42,\"zero\":0,"
                                       "\"fixed\":[25.30,0.005,-1.500,7],"
                                       "\"pct\":[33.33,66.67,0.00,75.00],\"b\":true}");
    CU_ASSERT_EQUAL(rj_clamped(j), 2);
    rj_free(j);
}

static int32_t tr_add(rt_names *n, const char *s)
{
    return rt_names_add(n, s, strlen(s));
}

static void test_trie_preorder(void)
{
    rt_names *n = rt_names_new();
    int32_t run = tr_add(n, "java.lang.Thread.run"), main_ = tr_add(n, "App.main");
    int32_t b = tr_add(n, "App.b"), a = tr_add(n, "App.a"), bytes = tr_add(n, "byte[]");
    CU_ASSERT_EQUAL(tr_add(n, "App.a"), a); /* deduplicated */
    CU_ASSERT_EQUAL(rt_names_count(n), 5);
    rt_trie *t = rt_trie_new(n);
    int32_t s1[] = {main_, b};
    int32_t s2[] = {main_, a};
    int32_t s3[] = {run};
    int32_t s4[] = {main_, a, bytes};
    CU_ASSERT_EQUAL(rt_trie_add(t, s1, 2, RT_FRAME, 301, 5, RT_SELF), 0);
    CU_ASSERT_EQUAL(rt_trie_add(t, s2, 2, RT_FRAME, 302, 7, RT_SELF), 0);
    CU_ASSERT_EQUAL(rt_trie_add(t, s3, 1, RT_FRAME, 303, 1, RT_SELF), 0);
    CU_ASSERT_EQUAL(rt_trie_add(t, s2, 2, RT_FRAME, 309, 3, RT_SELF), 0); /* same stack */
    CU_ASSERT_EQUAL(rt_trie_add(t, s4, 3, RT_ALLOC_CLASS, 304, 100, RT_SELF), 0);
    CU_ASSERT_EQUAL(rt_trie_add(t, s1, 2, RT_FRAME, 301, 11, RT_BASE), 0);
    CU_ASSERT_EQUAL(rt_trie_total(t, RT_SELF), 116);
    CU_ASSERT_EQUAL(rt_trie_total(t, RT_BASE), 11);
    CU_ASSERT_EQUAL(rt_trie_size(t), 6);
    rj *j = rj_new();
    CU_ASSERT_EQUAL(rt_trie_emit(t, j, 1, NULL, NULL), 0);
    /* root; App.main (a then b by name); App.a -> byte[]; Thread.run last */
    CU_ASSERT_STRING_EQUAL(tr_text(j), "{\"name\":[-1,1,3,4,2,0],\"depth\":[0,1,2,3,2,1],"
                                       "\"self\":[0,0,10,100,5,1],\"base\":[0,0,0,0,11,0],"
                                       "\"kind\":[0,0,0,1,0,0],\"trace\":[0,0,302,304,301,303]}");
    rj_free(j);
    rt_trie_free(t);
    rt_names_free(n);
}

static uint64_t tr_odd_only(void *ctx, uint64_t trace)
{
    (*(int *)ctx)++;
    return trace % 2 ? trace : 0;
}

static void test_trie_filter_and_deep(void)
{
    rt_names *n = rt_names_new();
    rt_trie *t = rt_trie_new(n);
    /* a stack of 5000 frames: the emit is iterative, no recursion */
    enum { D = 5000 };
    int32_t *s = malloc(D * sizeof *s);
    char nm[32];
    for (int i = 0; i < D; i++) {
        snprintf(nm, sizeof nm, "C.m%d", i);
        s[i] = tr_add(n, nm);
    }
    CU_ASSERT_EQUAL(rt_trie_add(t, s, D, RT_FRAME, 7, 1, RT_SELF), 0);
    CU_ASSERT_EQUAL(rt_trie_add(t, s, 1, RT_FRAME, 8, 1, RT_SELF), 0);
    CU_ASSERT_EQUAL(rt_trie_size(t), D + 1);
    rj *j = rj_new();
    int calls = 0;
    CU_ASSERT_EQUAL(rt_trie_emit(t, j, 0, tr_odd_only, &calls), 0);
    CU_ASSERT_EQUAL(calls, 2);
    size_t len;
    const char *txt = rj_text(j, &len);
    char *c = strndup(txt, len);
    CU_ASSERT_PTR_NOT_NULL(strstr(c, "\"trace\":[0,0,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(c, ",7]}")); /* the deepest node keeps 7 */
    CU_ASSERT_PTR_NOT_NULL(strstr(c, "\"depth\":[0,1,2,3,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(c, ",4999,5000]"));
    free(c);
    free(s);
    rj_free(j);
    rt_trie_free(t);
    rt_names_free(n);
}

static const char tr_text_a[] =
    "JAVA PROFILE 1.0.1, created Tue Mar  3 10:20:30 2015\n"
    "\n--------\n\n"
    "TRACE 300001:\n"
    "\tApp.hot(App.java:10)\n"
    "\tApp.main(App.java:3)\n"
    "TRACE 300002:\n"
    "\tApp.cold(App.java:20)\n"
    "\tApp.main(App.java:4)\n"
    "TRACE 300003:\n"
    "\tApp$$Lambda$14+0x0000000801001234.run(<Unknown Source>:Unknown line)\n"
    "\tApp.main(App.java:5)\n"
    "SITES BEGIN (ordered by live bytes) Tue Mar  3 10:20:35 2015\n"
    "          percent          live          alloc'ed  stack class\n"
    " rank   self  accum     bytes objs     bytes  objs trace name\n"
    "    1 80.00%% 80.00%%       800   10      1600    20 300001 byte[]\n"
    "    2 20.00%% 100.00%%      200    5       400    10 300002 App$Node\n"
    "SITES END\n"
    "CPU SAMPLES BEGIN (total = 100) Tue Mar  3 10:20:36 2015\n"
    "rank   self  accum   count trace method\n"
    "   1 %s %s %7d 300001 App.hot\n"
    "   2 %s %s %7d 300003 App$$Lambda$14+0x0000000801001234.run\n"
    "CPU SAMPLES END\n";

static char *tr_write(const char *name, int hot, int lam)
{
    char *path = malloc(256);
    snprintf(path, 256, "/tmp/test_report_%d_%s.txt", (int)getpid(), name);
    FILE *f = fopen(path, "w");
    char p1[16], p2[16], p3[16];
    snprintf(p1, sizeof p1, "%d.00%%", hot);
    snprintf(p2, sizeof p2, "%d.00%%", lam);
    snprintf(p3, sizeof p3, "%d.00%%", hot + lam);
    fprintf(f, tr_text_a, p1, p1, hot, p2, p3, lam);
    fclose(f);
    return path;
}

static void test_report_profile(void)
{
    char *a = tr_write("a", 75, 25);
    const char *paths[] = {a};
    char *json;
    size_t len;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(report_json(paths, 1, NULL, &json, &len, err, sizeof err), 0);
    CU_ASSERT_EQUAL(strlen(json), len);
    /* the CPU flame: root, App.main, then App$$Lambda...run and App.hot in
     * name order ('$' < 'h') */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"cpu-samples\",\"title\":\"CPU samples\","
                                        "\"unit\":\"samples\",\"total\":100,\"estimate\":null,"
                                        "\"nodes\":{\"name\":[-1,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"depth\":[0,1,2,2],\"self\":[0,0,25,75],"
                                        "\"kind\":[0,0,0,0],\"trace\":[0,0,300003,300001]}"));
    /* the sites flame's leaves are the classes, kind 1 */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"alloc-bytes\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"total\":2000,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"kind\":[0,0,0,1,0,1]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[1,80.00,80.00,800,10,1600,20,300001,\"byte[]\"]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[2,20.00,100.00,200,5,400,10,300002,\"App$Node\"]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[1,75.00,75.00,75,300001,\"App.hot\"]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"300001\":{\"thread\":0,\"frames\":[["));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, ",\"App.java\",10],["));
    /* the profile keeps the lambda's name as written */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "App$$Lambda$14+0x0000000801001234.run"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"mode\":\"profile\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"kind\":\"text-jdk8\""));
    free(json);
    unlink(a);
    free(a);
}

static void test_report_diff(void)
{
    char *a = tr_write("base", 75, 25), *b = tr_write("new", 40, 60);
    /* the NEW run's lambda has another counter and address */
    FILE *f = fopen(b, "r+");
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    for (char *p = buf; (p = strstr(p, "$$Lambda$14+0x0000000801001234")); p++)
        memcpy(p, "$$Lambda$77+0x0000000801009999", 30);
    rewind(f);
    fwrite(buf, 1, n, f);
    fclose(f);
    const char *paths[] = {a, b};
    report_opts o;
    memset(&o, 0, sizeof o);
    o.diff = 1;
    char *json;
    size_t len;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(report_json(paths, 2, &o, &json, &len, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"mode\":\"diff\""));
    /* one lambda node for both runs: new 60 and base 25 on it */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"cpu-samples\",\"title\":\"CPU samples\","
                                        "\"unit\":\"samples\",\"total\":100,\"base_total\":100,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"depth\":[0,1,2,2],\"self\":[0,0,60,40],"
                                        "\"base\":[0,0,25,75],"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "App$$Lambda+\\u003chidden\\u003e.run"));
    CU_ASSERT_PTR_NULL(strstr(json, "0x0000000801009999"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"sites-diff\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[\"byte[]\",1600,1600,0]"));
    /* NEW's traces are apart from BASE's */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"1000300001\":{"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"diff\":{\"base\":"));
    free(json);
    /* usage errors are values */
    CU_ASSERT_EQUAL(report_json(paths, 1, &o, &json, &len, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "a diff takes two files, BASE and NEW");
    const char *missing[] = {"/nonexistent/x.hprof"};
    CU_ASSERT_EQUAL(report_json(missing, 1, NULL, &json, &len, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "/nonexistent/x.hprof: No such file or directory");
    /* a directory by name, not as an empty file */
    const char *dir[] = {"/tmp"};
    CU_ASSERT_EQUAL(report_json(dir, 1, NULL, &json, &len, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "/tmp: Is a directory");
    unlink(a);
    unlink(b);
    free(a);
    free(b);
}


/* A binary profile made with the writer: CONTROL SETTINGS (depth 2), the
 * agent's site notes (live note, sample=1024 and the rows' samples), two
 * CPU SAMPLES records (summed), a primitive array site without LOAD CLASS. */
static char *tr_binary(void)
{
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(8, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_utf8z(w, 1, "app/Main");
    hw_utf8z(w, 2, "main");
    hw_utf8z(w, 3, "Main.java");
    hw_utf8z(w, 4, "work");
    hw_utf8z(w, 5, "app/Main$Node");
    hw_utf8z(w, 6, "()V");
    hw_load_class(w, 1, 0x100, 0, 1);
    hw_load_class(w, 2, 0x200, 0, 5);
    hw_frame(w, 10, 2, 6, 3, 1, 5);
    hw_frame(w, 11, 4, 6, 3, 1, 9);
    hprof_id t301[] = {11, 10}, t302[] = {10};
    hw_trace(w, 301, 1, 2, t301);
    hw_trace(w, 302, 1, 1, t302);
    hw_control_settings(w, HPROF_CTRL_ALLOC_TRACES | HPROF_CTRL_CPU_SAMPLING, 2);
    hw_utf8z(w, 0x7000000000000001ull, HPROF_SITES_NOTE "live as of the last GC <x>");
    hw_utf8z(w, 0x7000000000000002ull, HPROF_SITES_SAMPLES "1024 3/2 1/0");
    hw_alloc_sites_head h = {0, 0.0f, 100, 4, 264, 10};
    hw_alloc_site sites[] = {{0, 2, 301, 100, 4, 200, 8}, {HPROF_TYPE_INT, 0, 302, 0, 0, 64, 2}};
    hw_alloc_sites(w, &h, sites, 2);
    hw_cpu_sample c1[] = {{7, 301}, {3, 302}}, c2[] = {{5, 301}};
    hw_cpu_samples(w, 10, c1, 2);
    hw_cpu_samples(w, 5, c2, 1);
    char msg[128];
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, msg, sizeof msg), 0);
    size_t len;
    uint8_t *data = tu_sink_copy(sink, &len);
    hw_sink_free(sink);
    char *path = malloc(256);
    snprintf(path, 256, "/tmp/test_report_%d_bin.hprof", (int)getpid());
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
    free(data);
    return path;
}

static void test_report_binary(void)
{
    char *b = tr_binary();
    const char *paths[] = {b};
    char *json;
    size_t len;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(report_json(paths, 1, NULL, &json, &len, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[\"id size\",\"8\"],[\"created\",\"2023-11-14T22:13:20Z\"],"
                                        "[\"depth\",\"2\"],[\"cpu\",\"samples\"],[\"alloc traces\",\"on\"]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"depth=2 cuts stacks: 50% of traces have exactly 2 frames,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"only 15 CPU samples (fewer than 100): shares are rough\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"live counts: live as of the last GC \\u003cx\\u003e\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "estimates from 4 allocation samples (sample=1024 bytes)"));
    /* the two CPU SAMPLES records summed: main 3 (its own trace), work 12 */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"unit\":\"samples\",\"total\":15,\"estimate\":null,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"depth\":[0,1,2],\"self\":[0,3,12],\"kind\":[0,0,0],"
                                        "\"trace\":[0,302,301]}"));
    /* the sites: app.Main.work then int[] under main (name order), classes
     * as leaves of kind 1, the primitive array named by its type */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"alloc-bytes\",\"title\":\"Allocated bytes\","
                                        "\"unit\":\"bytes\",\"total\":264,"
                                        "\"estimate\":\"estimated from 4 samples (sample=1024 bytes)\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"depth\":[0,1,2,3,2],\"self\":[0,0,0,200,64],"
                                        "\"kind\":[0,0,0,1,1],\"trace\":[0,0,0,301,302]}"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[1,100.00,100.00,100,4,200,8,301,\"app.Main$Node\"]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[2,0.00,100.00,0,0,64,2,302,\"int[]\"]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"301\":{\"thread\":1,\"frames\":[["));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, ",\"Main.java\",9],["));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"kind\":\"binary\""));
    free(json);

    /* the same file twice: flames add up, the second's traces apart */
    const char *twice[] = {b, b};
    CU_ASSERT_EQUAL_FATAL(report_json(twice, 2, NULL, &json, &len, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"depth\":[0,1,2],\"self\":[0,6,24],"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"1000000301\":{"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[1,40.00,40.00,12,301,\"app.Main.work\"]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[2,40.00,80.00,12,1000000301,\"app.Main.work\"]"));
    free(json);

    /* max_rows: the table cut and its note says so */
    report_opts o;
    memset(&o, 0, sizeof o);
    o.max_rows = 1;
    o.max_traces = 1;
    CU_ASSERT_EQUAL_FATAL(report_json(paths, 1, &o, &json, &len, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "the first 1 of 2 rows"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"traces\":{\"301\":{"));
    CU_ASSERT_PTR_NULL(strstr(json, "\"302\":{"));
    free(json);
    unlink(b);
    free(b);
}

/* hprof-ctl's "sites incremental": the last ALLOC SITES record holds only
 * the rows that changed since the previous one; the others still stand. */
static void test_report_incremental_sites(void)
{
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(8, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_utf8z(w, 1, "app/A");
    hw_utf8z(w, 2, "app/B");
    hw_utf8z(w, 3, "main");
    hw_utf8z(w, 4, "()V");
    hw_load_class(w, 1, 0x100, 0, 1);
    hw_load_class(w, 2, 0x200, 0, 2);
    hw_frame(w, 10, 3, 4, 0, 1, 5);
    hprof_id t301[] = {10};
    hw_trace(w, 301, 1, 1, t301);
    hw_alloc_sites_head full = {0, 0.0f, 300, 3, 300, 3};
    hw_alloc_site s1[] = {{0, 1, 301, 200, 2, 200, 2}, {0, 2, 301, 100, 1, 100, 1},
                          {HPROF_TYPE_INT, 0, 301, 16, 1, 16, 1}};
    hw_alloc_sites(w, &full, s1, 3);
    hw_alloc_sites_head inc = {HPROF_SITES_INCREMENTAL, 0.0f, 416, 5, 416, 5};
    hw_alloc_site s2[] = {{0, 2, 301, 200, 2, 200, 2}};
    hw_alloc_sites(w, &inc, s2, 1);
    char msg[128];
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, msg, sizeof msg), 0);
    size_t len;
    uint8_t *data = tu_sink_copy(sink, &len);
    hw_sink_free(sink);
    char path[256];
    snprintf(path, sizeof path, "/tmp/test_report_%d_inc.hprof", (int)getpid());
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(data, 1, len, f);
    fclose(f);
    free(data);
    const char *paths[] = {path};
    char *json;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(report_json(paths, 1, NULL, &json, &len, err, sizeof err), 0);
    /* app.A 200 kept from the full record, app.B 200 updated, int[] 16 kept */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"alloc-bytes\",\"title\":\"Allocated bytes\","
                                        "\"unit\":\"bytes\",\"total\":416,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[1,48.08,48.08,200,2,200,2,301,\"app.A\"]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[2,48.08,96.15,200,2,200,2,301,\"app.B\"]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[3,3.85,100.00,16,1,16,1,301,\"int[]\"]"));
    free(json);
    unlink(path);
}

/* MONITOR TIME rows are summed per (trace, monitor) through a map: 200 000
 * rows (two sections of 100 000 distinct monitors) take well under a
 * second; a scan of the rows so far took minutes. */
static void test_report_many_monitors(void)
{
    enum { N = 100000 };
    char path[256];
    snprintf(path, sizeof path, "/tmp/test_report_%d_mon.txt", (int)getpid());
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "JAVA PROFILE 1.0.1, created Tue Mar  3 10:20:30 2015\n\n--------\n\n"
               "TRACE 300001:\n\tApp.lock(App.java:10)\n");
    for (int sec = 0; sec < 2; sec++) {
        fprintf(f, "MONITOR TIME BEGIN (total = %d ms) Tue Mar  3 10:20:35 2015\n"
                   "rank   self  accum   count trace monitor\n", 2 * N);
        for (int i = 0; i < N; i++)
            fprintf(f, "%5d  0.00%%  0.00%% %7d 300001 App$L%d (Java)\n", i + 1, 1 + sec, i);
        fprintf(f, "MONITOR TIME END\n");
    }
    fclose(f);
    const char *paths[] = {path};
    char *json;
    size_t len;
    char err[256];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CU_ASSERT_EQUAL_FATAL(report_json(paths, 1, NULL, &json, &len, err, sizeof err), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    CU_ASSERT(s < 3.0);
    if (s >= 3.0)
        fprintf(stderr, "200 000 MONITOR TIME rows: %.1f s\n", s);
    /* every monitor once (100 000 rows), with both sections' counts: 3 */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "the first 2000 of 100000 rows"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, ",3,300001,\"App$L0\"]"));
    free(json);
    unlink(path);
}

/* -o naming one of the inputs is refused (as convert, redact and disasm
 * do): the profile stays as it was. */
static void test_report_out_is_input(void)
{
    char *a = tr_write("keep", 60, 40);
    char *b = tr_write("other", 50, 50);
    FILE *f = fopen(a, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char before[4096];
    size_t nb = fread(before, 1, sizeof before, f);
    fclose(f);
    const char *paths[] = {b, a};
    char err[512], want[512];
    CU_ASSERT_EQUAL(report_write(paths, 2, NULL, a, 1, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: it is the input file; refusing to overwrite it", a);
    CU_ASSERT_STRING_EQUAL(err, want);
    f = fopen(a, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char after[4096];
    size_t na = fread(after, 1, sizeof after, f);
    fclose(f);
    CU_ASSERT_EQUAL(na, nb);
    CU_ASSERT(memcmp(before, after, nb) == 0);
    unlink(a);
    unlink(b);
    free(a);
    free(b);
}

/* CPU TIME ms in the flame to the microsecond: ten traces of 0.4 ms each
 * are 4 ms in all (each rounded to whole ms, the flame was empty), and a
 * MONITOR TIME row of 0.24 ms stays too. */
static void test_report_ms_flames(void)
{
    char path[256];
    snprintf(path, sizeof path, "/tmp/test_report_%d_ms.txt", (int)getpid());
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "JAVA PROFILE 1.0.1, created Tue Mar  3 10:20:30 2015\n\n--------\n\n");
    for (int i = 0; i < 10; i++)
        fprintf(f, "TRACE %d:\n\tApp.m%d(App.java:%d)\n\tApp.main(App.java:3)\n", 300001 + i, i,
                10 + i);
    fprintf(f, "CPU TIME (ms) BEGIN (total = 4) Tue Mar  3 10:20:36 2015\n"
               "rank   self  accum   count trace method [self ms / total ms]\n");
    for (int i = 0; i < 10; i++)
        fprintf(f, "%4d 10.00%% %3d.00%%       1 %d App.m%d [0.400 / 0.400]\n", i + 1,
                10 * (i + 1), 300001 + i, i);
    fprintf(f, "CPU TIME (ms) END\n"
               "MONITOR TIME BEGIN (total = 1 ms) Tue Mar  3 10:20:37 2015\n"
               "rank   self  accum   count trace monitor\n"
               "   1 24.00%% 24.00%%       3 300001 App$Lock (Java)\n"
               "MONITOR TIME END\n");
    fclose(f);
    const char *paths[] = {path};
    char *json;
    size_t len;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(report_json(paths, 1, NULL, &json, &len, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"cpu-times-ms\",\"title\":\"CPU time: self ms\","
                                        "\"unit\":\"ms\",\"total\":4.000,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"self\":[0.000,0.000,0.400,0.400,0.400,0.400,0.400,"
                                        "0.400,0.400,0.400,0.400,0.400]"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"monitor-ms\",\"title\":\"Monitor contention: ms\","
                                        "\"unit\":\"ms\",\"total\":0.240,"));
    free(json);
    unlink(path);
}

/* The agent's U8 note (true values of saturated rows) is looked up per row
 * by a search, not a scan: 100 000 sites and as many U8 rows take well
 * under a second (a scan of the note per row took half a minute). */
static void test_report_many_u8_rows(void)
{
    enum { N = 100000 };
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(8, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_utf8z(w, 1, "app/A");
    hw_utf8z(w, 2, "m");
    hw_utf8z(w, 3, "()V");
    hw_load_class(w, 1, 0x100, 0, 1);
    hw_frame(w, 10, 2, 3, 0, 1, 5);
    hprof_id t[] = {10};
    hw_alloc_site *sites = calloc(N, sizeof *sites);
    char *note = malloc((size_t)N * 40 + 64);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sites);
    CU_ASSERT_PTR_NOT_NULL_FATAL(note);
    size_t o = (size_t)sprintf(note, "%s%d %d", HPROF_SITES_U8, 2 * N, N);
    for (int i = 0; i < N; i++) {
        hw_trace(w, 301 + (uint32_t)i, 1, 1, t);
        hw_alloc_site s = {0, 1, 301 + (uint32_t)i, 0xFFFFFFFFu, 1, 0xFFFFFFFFu, 1};
        sites[i] = s;
        /* every row's true values; row 7's live bytes 5000000000 */
        o += (size_t)sprintf(note + o, " %d:%lld,1,%d,1", N - 1 - i, i == N - 1 - 7 ? 5000000000LL : 2LL,
                             2);
    }
    hw_utf8z(w, 0x7000000000000001ull, note);
    hw_alloc_sites_head h = {0, 0.0f, 0xFFFFFFFFu, N, 0xFFFFFFFFu, N};
    hw_alloc_sites(w, &h, sites, N);
    char msg[128];
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, msg, sizeof msg), 0);
    free(sites);
    free(note);
    size_t len;
    uint8_t *data = tu_sink_copy(sink, &len);
    hw_sink_free(sink);
    char path[256];
    snprintf(path, sizeof path, "/tmp/test_report_%d_u8.hprof", (int)getpid());
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(data, 1, len, f);
    fclose(f);
    free(data);
    const char *paths[] = {path};
    char *json;
    char err[256];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CU_ASSERT_EQUAL_FATAL(report_json(paths, 1, NULL, &json, &len, err, sizeof err), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    CU_ASSERT(sec < 3.0);
    if (sec >= 3.0)
        fprintf(stderr, "100 000 sites and U8 rows: %.1f s\n", sec);
    /* 99 999 rows of 2 bytes and one of 5 000 000 000: the true values */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"live-bytes\",\"title\":\"Live bytes\","
                                        "\"unit\":\"bytes\",\"total\":5000199998,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[1,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, ",5000000000,1,2,1,308,\"app.A\"]"));
    free(json);
    unlink(path);
}

/* One binary profile with CONTROL SETTINGS depth `depth` and one trace of
 * `frames` frames. */
static char *tr_depth_file(const char *name, uint32_t depth, uint32_t frames)
{
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(8, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_utf8z(w, 1, "app/A");
    hw_utf8z(w, 2, "m");
    hw_utf8z(w, 3, "()V");
    hw_load_class(w, 1, 0x100, 0, 1);
    hprof_id ids[8];
    for (uint32_t k = 0; k < frames && k < 8; k++) {
        hw_frame(w, 10 + k, 2, 3, 0, 1, (int32_t)k + 1);
        ids[k] = 10 + k;
    }
    hw_trace(w, 301, 1, frames, ids);
    hw_control_settings(w, HPROF_CTRL_CPU_SAMPLING, depth);
    hw_cpu_sample c[] = {{200, 301}};
    hw_cpu_samples(w, 200, c, 1);
    char msg[128];
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, msg, sizeof msg), 0);
    size_t len;
    uint8_t *data = tu_sink_copy(sink, &len);
    hw_sink_free(sink);
    char *path = malloc(256);
    snprintf(path, 256, "/tmp/test_report_%d_%s.hprof", (int)getpid(), name);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(data, 1, len, f);
    fclose(f);
    free(data);
    return path;
}

/* Inputs of different depth= : each trace is compared with its own file's
 * depth, and the warning names both (it said "depth=3 cuts stacks: 50 % of
 * traces have exactly 3 frames" when none had 3). */
static void test_report_mixed_depths(void)
{
    char *a = tr_depth_file("d2", 2, 2), *b = tr_depth_file("d3", 3, 1);
    const char *paths[] = {a, b};
    char *json;
    size_t len;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(report_json(paths, 2, NULL, &json, &len, err, sizeof err), 0);
    CU_ASSERT_PTR_NULL(strstr(json, "depth=3 cuts stacks"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"depth=2, 3 cuts stacks: 50% of traces have exactly their "
                                        "file's depth in frames, so their callers are missing"));
    free(json);
    /* one file: as before */
    const char *one[] = {a};
    CU_ASSERT_EQUAL_FATAL(report_json(one, 1, NULL, &json, &len, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"depth=2 cuts stacks: 100% of traces have exactly 2 frames, "
                                        "so their callers are missing"));
    free(json);
    unlink(a);
    unlink(b);
    free(a);
    free(b);
}

/* ------------------------------------------------------------ heap dumps */

/* Dumps whose dominator trees are known (8-byte ids; shallow sizes as
 * HotSpot lays objects out: an instance of a class without fields 16
 * bytes, app/Root with its one reference 16, Object[8] 48, int[182] 744):
 *  'A': a JNI global app/Root whose `cache` holds an Object[8] of eight
 *       int[182]: the Object[8] retains 6 000 of the 10 000 reachable bytes
 *       (each int[] only 7.44 %), app/Root 6 016 but it holds the deeper
 *       suspect; beside them, rooted one by one, int[96] x2, long[48] x2,
 *       byte[384] x2, char[192] x2 (800 bytes a class, 8 %), short[184]
 *       and short[192] (784); and one unreachable int[96] (400 bytes);
 *  'L': 'A' with a chain of 20 app/Root (root.cache.cache...) to the
 *       Object[8]: 10 304 reachable bytes, a path of 21 objects;
 *  'B': ten rooted instances of ten classes, 16 bytes each: each exactly
 *       10 %, so no suspect (the rule is "more than");
 *  'C': three rooted app.Item (16 bytes, 7.7 % each, 23.1 % together)
 *       and ten of the ten classes of 'B': one class suspect. */
static char *tr_heap(char kind)
{
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(8, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_utf8z(w, 1, "app/Root");
    hw_utf8z(w, 2, "cache");
    hw_utf8z(w, 3, "[Ljava/lang/Object;");
    hw_utf8z(w, 4, "app/Item");
    hw_load_class(w, 1, 0x100, 0, 1);
    hw_load_class(w, 2, 0x200, 0, 3);
    hw_load_class(w, 3, 0x300, 0, 4);
    for (uint32_t k = 0; k < 10; k++) {
        char nm[16];
        snprintf(nm, sizeof nm, "app/C%u", k);
        hw_utf8z(w, 10 + k, nm);
        hw_load_class(w, 10 + k, 0x400 + 0x10 * k, 0, 10 + k);
    }
    hw_heap_begin(w);
    hw_field rf[1] = {{2, HPROF_TYPE_OBJECT}};
    hw_class c;
    memset(&c, 0, sizeof c);
    c.class_id = 0x100;
    c.nfields = 1;
    c.fields = rf;
    c.instance_size = 8;
    hw_class_dump(w, &c);
    memset(&c, 0, sizeof c);
    for (hprof_id id = 0x200; id < 0x400 + 0x10 * 10; id += 0x10) {
        if (id >= 0x210 && id < 0x300) /* only 0x200, 0x300, 0x400.. */
            continue;
        if (id > 0x300 && id < 0x400)
            continue;
        c.class_id = id;
        hw_class_dump(w, &c);
        hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, id, 0, 0, 0);
    }
    hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, 0x100, 0, 0, 0);
    static int32_t zero[400];
    if (kind == 'A' || kind == 'L') {
        /* 'L': a chain of 20 app.Root to the Object[8] */
        hprof_id nroot = kind == 'L' ? 20 : 1;
        for (hprof_id k = 0; k < nroot; k++) {
            uint8_t v[8];
            hprof_id next = k + 1 < nroot ? 0x900 + 0x10 * (k + 1) : 0x1000;
            for (int b = 0; b < 8; b++)
                v[b] = (uint8_t)(next >> (56 - 8 * b));
            hw_instance_dump(w, 0x900 + 0x10 * k, 0, 0x100, v, 8);
        }
        hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x900, 0, 0, 0x99);
        hprof_id el[8];
        for (int k = 0; k < 8; k++) {
            el[k] = 0x2000 + 0x100 * (hprof_id)k;
            hw_prim_array_dump(w, el[k], 0, HPROF_TYPE_INT, 182, zero);
        }
        hw_obj_array_dump(w, 0x1000, 0, 0x200, 8, el);
        static const struct { uint8_t type; uint32_t n; } rest[] = {
            {HPROF_TYPE_INT, 96},   {HPROF_TYPE_INT, 96},   {HPROF_TYPE_LONG, 48},
            {HPROF_TYPE_LONG, 48},  {HPROF_TYPE_BYTE, 384}, {HPROF_TYPE_BYTE, 384},
            {HPROF_TYPE_CHAR, 192}, {HPROF_TYPE_CHAR, 192}, {HPROF_TYPE_SHORT, 184},
            {HPROF_TYPE_SHORT, 192}};
        for (hprof_id k = 0; k < 10; k++) {
            hw_prim_array_dump(w, 0x5000 + 0x100 * k, 0, rest[k].type, rest[k].n, zero);
            hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x5000 + 0x100 * k, 0, 0, 0x99);
        }
        hw_prim_array_dump(w, 0x7000, 0, HPROF_TYPE_INT, 96, zero); /* unreachable */
    } else {
        for (hprof_id k = 0; k < 10; k++) {
            hw_instance_dump(w, 0x3000 + 0x10 * k, 0, 0x400 + 0x10 * k, NULL, 0);
            hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x3000 + 0x10 * k, 0, 0, 0x99);
        }
        for (hprof_id k = 0; kind == 'C' && k < 3; k++) {
            hw_instance_dump(w, 0x4000 + 0x10 * k, 0, 0x300, NULL, 0);
            hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x4000 + 0x10 * k, 0, 0, 0x99);
        }
    }
    hw_heap_end(w);
    char msg[128];
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, msg, sizeof msg), 0);
    size_t len;
    uint8_t *data = tu_sink_copy(sink, &len);
    hw_sink_free(sink);
    char *path = malloc(256);
    snprintf(path, 256, "/tmp/test_report_%d_heap%c.hprof", (int)getpid(), kind);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
    fclose(f);
    free(data);
    return path;
}

static char *tr_heap_json(const char *path, const report_opts *o)
{
    const char *paths[] = {path};
    char *json = NULL, err[256];
    size_t len;
    CU_ASSERT_EQUAL(report_json(paths, 1, o, &json, &len, err, sizeof err), 0);
    return json;
}

static void test_report_suspect(void)
{
    char *a = tr_heap('A');
    char *json = tr_heap_json(a, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"reachable_bytes\":10000,\"unreachable_objects\":1,"
                                        "\"unreachable_bytes\":400,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json,
        "\"suspects\":[{\"kind\":\"object\",\"class\":\"java.lang.Object[]\",\"id\":\"0x1000\","
        "\"instances\":1,\"retained_bytes\":6000,\"retained_objects\":9,\"pct\":60.00,"
        "\"root\":\"JNI global\",\"path_length\":2,\"path\":[\"app.Root.cache\",\"java.lang.Object[]\"],"
        "\"text\":\"One instance of `java.lang.Object[]` (0x1000) retains 6.0 kB (6 000 bytes, "
        "60.0 % of the reachable heap) in 9 objects; its shortest path from a GC root: JNI global: "
        "app.Root.cache -\\u003e java.lang.Object[]\"}],"
        "\"suspects_note\":\"1 leak suspect: retaining more than 10 % of the heap\""));
    /* the tables: app.Root then its Object[8], as hprof retained; int[] the
     * biggest class (the 8 in the holder, 2 rooted ones) */
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"rows\":[[\"0x900\",\"app.Root\",16,6016,10,60.16],"
                                        "[\"0x1000\",\"java.lang.Object[]\",48,6000,9,60.00],"
                                        "[\"0x2000\",\"int[]\",744,744,1,7.44],"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"rows\":[[\"int[]\",10,6752,6752,67.52],"
                                        "[\"app.Root\",1,16,6016,60.16],"
                                        "[\"java.lang.Object[]\",1,48,6000,60.00],"));
    const char *ro = strstr(json, "\"id\":\"retained-objects\""), *hi = strstr(json, "\"id\":\"histogram\"");
    CU_ASSERT(ro && hi && ro < hi);
    free(json);

    /* --no-retained: no tables, the reason in the HEAP object */
    report_opts o;
    memset(&o, 0, sizeof o);
    o.no_retained = 1;
    json = tr_heap_json(a, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    CU_ASSERT_PTR_NULL(strstr(json, "retained-objects"));
    CU_ASSERT_PTR_NULL(strstr(json, "\"suspects\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"retained_note\":\"not computed (--no-retained)\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"histogram\""));
    free(json);

    /* too little memory: a warning, no retained tables, the histogram kept */
    memset(&o, 0, sizeof o);
    o.max_memory = 1000;
    json = tr_heap_json(a, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    CU_ASSERT_PTR_NULL(strstr(json, "retained-objects"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"warnings\":[\"no retained sizes or leak suspects: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "(hprof report --max-memory SIZE gives more, if the machine has it)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"retained_note\":\"not computed: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"id\":\"histogram\""));
    free(json);
    unlink(a);
    free(a);

    /* a path of 21 objects: its first and last 4 steps, and how many more */
    char *l = tr_heap('L');
    json = tr_heap_json(l, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    CU_ASSERT_PTR_NOT_NULL(strstr(json,
        "\"retained_bytes\":6000,\"retained_objects\":9,\"pct\":58.23,\"root\":\"JNI global\","
        "\"path_length\":21,\"path\":[\"app.Root.cache\",\"app.Root.cache\",\"app.Root.cache\","
        "\"app.Root.cache\",\"app.Root.cache\",\"app.Root.cache\",\"app.Root.cache\","
        "\"java.lang.Object[]\"],"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json,
        "(6 000 bytes, 58.2 % of the reachable heap) in 9 objects; its shortest path from a GC root: "
        "JNI global: app.Root.cache -\\u003e app.Root.cache -\\u003e app.Root.cache -\\u003e "
        "app.Root.cache -\\u003e ... (13 more steps) -\\u003e app.Root.cache -\\u003e app.Root.cache "
        "-\\u003e app.Root.cache -\\u003e java.lang.Object[]\"}]"));
    free(json);
    unlink(l);
    free(l);
}

static void test_report_no_suspect(void)
{
    char *b = tr_heap('B');
    char *json = tr_heap_json(b, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"reachable_bytes\":160,\"unreachable_objects\":0,"));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"suspects\":[],\"suspects_note\":\"no single object or "
                                        "class retains more than 10 % of the heap\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(json, "[\"0x3000\",\"app.C0\",16,16,1,10.00]"));
    free(json);
    unlink(b);
    free(b);

    char *c = tr_heap('C');
    json = tr_heap_json(c, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(json);
    CU_ASSERT_PTR_NOT_NULL(strstr(json,
        "\"suspects\":[{\"kind\":\"class\",\"class\":\"app.Item\",\"id\":\"0x4000\",\"instances\":3,"
        "\"retained_bytes\":48,\"retained_objects\":3,\"pct\":23.08,\"root\":\"JNI global\","
        "\"path_length\":1,\"path\":[\"app.Item\"],\"text\":\"3 instances of `app.Item` retain 48 bytes ("
        "23.1 % of the reachable heap) together in 3 objects; the shortest path from a GC root to "
        "the biggest (0x4000, 16 bytes): JNI global: app.Item\"}]"));
    free(json);
    unlink(c);
    free(c);
}

static int tr_suites(void)
{
    CU_pSuite s = CU_add_suite("report", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "json escaping", test_json_escape) ||
        !CU_add_test(s, "json numbers", test_json_numbers) ||
        !CU_add_test(s, "trie preorder", test_trie_preorder) ||
        !CU_add_test(s, "trie filter and deep", test_trie_filter_and_deep) ||
        !CU_add_test(s, "report profile", test_report_profile) ||
        !CU_add_test(s, "report diff", test_report_diff) ||
        !CU_add_test(s, "report binary", test_report_binary) ||
        !CU_add_test(s, "report incremental sites", test_report_incremental_sites) ||
        !CU_add_test(s, "report many monitors", test_report_many_monitors) ||
        !CU_add_test(s, "report out is input", test_report_out_is_input) ||
        !CU_add_test(s, "report ms flames", test_report_ms_flames) ||
        !CU_add_test(s, "report many u8 rows", test_report_many_u8_rows) ||
        !CU_add_test(s, "report mixed depths", test_report_mixed_depths) ||
        !CU_add_test(s, "report leak suspect", test_report_suspect) ||
        !CU_add_test(s, "report no leak suspect", test_report_no_suspect))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(tr_suites);
}
