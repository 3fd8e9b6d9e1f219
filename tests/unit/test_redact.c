/*
 * test_redact.c: libhprofredact on files built with the writer: the output
 * equals, byte for byte, the same file written with every secret already
 * zeroed (id size 4 and 8, class dumps before and after their instances,
 * 1.0.1 single heap dump), and bad input is refused with a message.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "redact/redact.h"
#include "testutil.h"

#define S_LONG 0x5EC12E7A11CE5EC2ULL
#define S_INT 0x5EC2E7A1u
#define S_STATIC 0x11223344u

typedef struct tr_buf { uint8_t *p; size_t n, cap; } tr_buf;

static int tr_write(void *ctx, const void *b, size_t n)
{
    tr_buf *o = ctx;
    if (o->n + n > o->cap) {
        size_t nc = (o->n + n) * 2;
        uint8_t *q = realloc(o->p, nc);
        if (!q)
            return 12;
        o->p = q;
        o->cap = nc;
    }
    memcpy(o->p + o->n, b, n);
    o->n += n;
    return 0;
}

static void tr_put_be(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* The test file. `redacted`: written as the redactor must leave it.
 * `late`: the instance comes before the class dumps. */
static unsigned tr_extra; /* extra value bytes of the instance (a bad file) */

static uint8_t *tr_file(unsigned id, int redacted, int late, int v101, size_t *len)
{
    hw_options o;
    hw_options_init(&o);
    o.id_size = id;
    o.clock = HW_CLOCK_FIXED;
    o.timestamp_ms = 1700000000000ULL;
    if (v101) {
        o.version = HPROF_VERSION_1_0_1;
        o.heap_mode = HW_HEAP_SINGLE;
    }
    hw_sink *sink = hw_sink_memory(0);
    hw_writer *w = hw_writer_open(sink, &o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_utf8z(w, 1, "java/lang/Object");
    hw_utf8z(w, 2, "Secret");
    hw_utf8z(w, 3, "f_long");
    hw_utf8z(w, 4, "f_ref");
    hw_utf8z(w, 5, "s_int");
    hw_utf8z(w, 6, redacted ? "******************" : "thread-name-SECRET");
    hw_utf8z(w, 7, redacted ? "****" : "main");
    hw_utf8z(w, 8, redacted ? "*****************" : "SUPERSECRET-UNREF");
    hw_utf8z(w, 9, "Base");
    hw_utf8z(w, 10, "b_int");
    hw_utf8z(w, 11, "HPROF SITES NOTE: kept");
    hw_utf8z(w, 12, "run");
    hw_load_class(w, 1, 0x100, 0, 1);
    hw_load_class(w, 2, 0x200, 0, 9);
    hw_load_class(w, 3, 0x300, 0, 2);
    hw_frame(w, 0x50, 12, 12, 12, 3, 7);
    hw_start_thread(w, 1, 0x4000, 0, 6, 7, 7);
    hw_heap_begin(w);
    uint8_t vals[8 + 8 + 4 + 4] = {0};
    tr_put_be(vals, redacted ? 0 : S_LONG, 8);
    tr_put_be(vals + 8, 0x2000, id);
    tr_put_be(vals + 8 + id, redacted ? 0 : S_INT, 4);
    if (late)
        hw_instance_dump(w, 0x1000, 0, 0x300, vals, 12 + id + tr_extra);
    hw_class cobj = {.class_id = 0x100};
    hw_field bf[] = {{10, HPROF_TYPE_INT}};
    hw_class cbase = {.class_id = 0x200, .super_id = 0x100, .instance_size = 4, .nfields = 1,
                      .fields = bf};
    hw_field sf[] = {{3, HPROF_TYPE_LONG}, {4, HPROF_TYPE_OBJECT}};
    hw_static_field st[] = {{5, {HPROF_TYPE_INT, redacted ? 0 : S_STATIC}},
                            {4, {HPROF_TYPE_OBJECT, 0x1000}}};
    hw_cp_entry cp[] = {{1, {HPROF_TYPE_LONG, redacted ? 0 : S_LONG}}, {2, {HPROF_TYPE_OBJECT, 0x2000}}};
    hw_class csec = {.class_id = 0x300, .super_id = 0x200, .instance_size = 16, .ncp = 2, .cp = cp,
                     .nstatics = 2, .statics = st, .nfields = 2, .fields = sf};
    hw_class_dump(w, &cobj);
    hw_class_dump(w, &cbase);
    hw_class_dump(w, &csec);
    if (!late)
        hw_instance_dump(w, 0x1000, 0, 0x300, vals, 12 + id + tr_extra);
    const char *sec = redacted ? "\0\0\0\0\0\0\0\0\0\0\0" : "SECRETBYTES";
    hw_prim_array_dump(w, 0x2000, 0, HPROF_TYPE_BYTE, 11, sec);
    uint16_t chars[3] = {redacted ? 0 : 0x3A9, redacted ? 0 : 'x', 0};
    hw_prim_array_dump(w, 0x2100, 0, HPROF_TYPE_CHAR, 3, chars);
    hprof_id el[2] = {0x1000, 0x2000};
    hw_obj_array_dump(w, 0x3000, 0, 0x100, 2, el);
    hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, 0x300, 0, 0, 0);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x1000, 0, 0, 0x77);
    hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, 0x4000, 1, 0, 0);
    hw_heap_end(w);
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, NULL, 0), 0);
    uint8_t *b = tu_sink_copy(sink, len);
    hw_sink_free(sink);
    return b;
}

static void tr_case(unsigned id, int late, int v101)
{
    size_t n, m;
    uint8_t *in = tr_file(id, 0, late, v101, &n);
    uint8_t *want = tr_file(id, 1, late, v101, &m);
    CU_ASSERT_EQUAL_FATAL(n, m);
    redact *r = redact_init(NULL);
    tr_buf out = {0};
    CU_ASSERT_EQUAL(redact_run(r, in, n, tr_write, &out), 0);
    CU_ASSERT_PTR_NULL(redact_error(r));
    CU_ASSERT_EQUAL(out.n, n);
    CU_ASSERT(out.n == n && memcmp(out.p, want, n) == 0);
    const redact_stats *s = redact_get_stats(r);
    CU_ASSERT_EQUAL(s->classes, 3);
    CU_ASSERT_EQUAL(s->instances, 1);
    CU_ASSERT_EQUAL(s->prim_arrays, 2);
    CU_ASSERT_EQUAL(s->zeroed_bytes, 12 + 11 + 6);
    CU_ASSERT_EQUAL(s->statics_zeroed, 2);
    CU_ASSERT_EQUAL(s->utf8_redacted, 3); /* thread, its group, the unreferenced one */
    /* the original holds the secrets, so the comparison can fail */
    CU_ASSERT(memcmp(in, want, n) != 0);
    redact_cleanup(r);
    free(out.p);
    free(in);
    free(want);
}

static void test_id8(void) { tr_case(8, 0, 0); }
static void test_id4(void) { tr_case(4, 0, 0); }
static void test_late_classes(void) { tr_case(8, 1, 0); }
static void test_v101(void) { tr_case(4, 1, 1); }

/* redact_file: a file, its CLASS DUMPs before the objects (one walk of
 * class dumps up to the first object) or after (the output pass meets a
 * class dump, and all starts again with every class read first): the same
 * output as redact_run's; OUT.tmp.PID gone. */
static void tr_file_case(int late, uint64_t passes)
{
    size_t n, m;
    uint8_t *in = tr_file(8, 0, late, 0, &n);
    uint8_t *want = tr_file(8, 1, late, 0, &m);
    char dir[] = "/tmp/test_redact_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char ip[64], op[64], tp[64];
    snprintf(ip, sizeof ip, "%s/in.hprof", dir);
    snprintf(op, sizeof op, "%s/out.hprof", dir);
    snprintf(tp, sizeof tp, "%s/out.hprof.tmp.%ld", dir, (long)getpid());
    FILE *f = fopen(ip, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(in, 1, n, f), n);
    fclose(f);
    redact *r = redact_init(NULL);
    CU_ASSERT_EQUAL(redact_file(r, ip, op), 0);
    CU_ASSERT_EQUAL(redact_get_stats(r)->passes, passes);
    CU_ASSERT_EQUAL(redact_get_stats(r)->classes, 3);
    CU_ASSERT_EQUAL(redact_get_stats(r)->utf8_redacted, 3);
    redact_cleanup(r);
    uint8_t *got = malloc(n + 1);
    f = fopen(op, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fread(got, 1, n + 1, f), n);
    fclose(f);
    CU_ASSERT(memcmp(got, want, n) == 0);
    CU_ASSERT_EQUAL(access(tp, F_OK), -1);
    /* a cut input: refused, nothing left at OUT or OUT.tmp */
    f = fopen(ip, "wb");
    CU_ASSERT_EQUAL(fwrite(in, 1, n - 3, f), n - 3);
    fclose(f);
    unlink(op);
    r = redact_init(NULL);
    CU_ASSERT_EQUAL(redact_file(r, ip, op), -1);
    CU_ASSERT(redact_error_is_input(r));
    redact_cleanup(r);
    CU_ASSERT_EQUAL(access(op, F_OK), -1);
    CU_ASSERT_EQUAL(access(tp, F_OK), -1);
    unlink(ip);
    rmdir(dir);
    free(got);
    free(in);
    free(want);
}

/* A FIFO as OUT (hw_outfile writes it in place): it cannot be rewound, so
 * with class dumps after the objects the class pre-pass runs first instead
 * of a retry: the same bytes, in 3 passes (the first one reads the whole
 * file for class dumps instead of stopping at the first object) where a
 * regular OUT takes 6 (3, then 3 again); the FIFO stays a FIFO. */
static void tr_fifo_case(int late, uint64_t passes)
{
    size_t n, m;
    uint8_t *in = tr_file(8, 0, late, 0, &n);
    uint8_t *want = tr_file(8, 1, late, 0, &m);
    char dir[] = "/tmp/test_redact_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char ip[64], fp[64], gp[64];
    snprintf(ip, sizeof ip, "%s/in.hprof", dir);
    snprintf(fp, sizeof fp, "%s/fifo", dir);
    snprintf(gp, sizeof gp, "%s/got", dir);
    FILE *f = fopen(ip, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(in, 1, n, f), n);
    fclose(f);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fp, 0600), 0);
    pid_t child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0) { /* the reader: the FIFO's bytes into `got` */
        FILE *src = fopen(fp, "rb"), *dst = fopen(gp, "wb");
        char buf[4096];
        size_t k;
        while (src && dst && (k = fread(buf, 1, sizeof buf, src)) > 0)
            fwrite(buf, 1, k, dst);
        _exit(src && dst && fclose(dst) == 0 ? 0 : 1);
    }
    redact *r = redact_init(NULL);
    CU_ASSERT_EQUAL(redact_file(r, ip, fp), 0);
    CU_ASSERT_EQUAL(redact_get_stats(r)->passes, passes);
    redact_cleanup(r);
    int status = -1;
    CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    uint8_t *got = malloc(n + 1);
    f = fopen(gp, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fread(got, 1, n + 1, f), n);
    fclose(f);
    CU_ASSERT(m == n && memcmp(got, want, n) == 0);
    struct stat sb;
    CU_ASSERT(lstat(fp, &sb) == 0 && S_ISFIFO(sb.st_mode));
    unlink(ip);
    unlink(fp);
    unlink(gp);
    rmdir(dir);
    free(got);
    free(in);
    free(want);
}

static void test_fifo_hotspot_order(void) { tr_fifo_case(0, 3); }
static void test_fifo_late_classes(void) { tr_fifo_case(1, 3); }

static void test_file_hotspot_order(void) { tr_file_case(0, 3); }
static void test_file_late_classes(void) { tr_file_case(1, 6); }

/* The JDK's original agent's dumps (team corpus): redact_file gives what
 * redact_run gives; hprof.bin has CLASS DUMPs after instances, so the file
 * path starts again (6 walks), jmap.bin is HotSpot's order (3 walks). */
static void tr_corpus_case(const char *name, uint64_t passes, uint64_t classes, uint64_t instances)
{
    char ip[512], op[64];
    snprintf(ip, sizeof ip, "%s/original-agent/%s", HPROF_CORPUS_DIR, name);
    FILE *f = fopen(ip, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    rewind(f);
    uint8_t *in = malloc(n);
    CU_ASSERT_EQUAL_FATAL(fread(in, 1, n, f), n);
    fclose(f);
    redact *r = redact_init(NULL);
    tr_buf mem = {0};
    CU_ASSERT_EQUAL(redact_run(r, in, n, tr_write, &mem), 0);
    CU_ASSERT_EQUAL(redact_get_stats(r)->passes, 3);
    CU_ASSERT_EQUAL(redact_get_stats(r)->classes, classes);
    CU_ASSERT_EQUAL(redact_get_stats(r)->instances, instances);
    redact_cleanup(r);
    snprintf(op, sizeof op, "/tmp/test_redact_%d.hprof", (int)getpid());
    r = redact_init(NULL);
    CU_ASSERT_EQUAL(redact_file(r, ip, op), 0);
    CU_ASSERT_EQUAL(redact_get_stats(r)->passes, passes);
    CU_ASSERT_EQUAL(redact_get_stats(r)->instances, instances);
    redact_cleanup(r);
    uint8_t *got = malloc(n + 1);
    f = fopen(op, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fread(got, 1, n + 1, f), n);
    fclose(f);
    unlink(op);
    CU_ASSERT(mem.n == n && memcmp(got, mem.p, n) == 0);
    CU_ASSERT(memcmp(got, in, n) != 0);
    free(got);
    free(mem.p);
    free(in);
}

static void test_corpus_original(void) { tr_corpus_case("hprof.bin", 6, 361, 1293); }
static void test_corpus_jmap(void) { tr_corpus_case("jmap.bin", 3, 352, 1088); }

/* START THREAD's names kept with keep_thread_names */
static void test_keep_thread_names(void)
{
    size_t n;
    uint8_t *in = tr_file(8, 0, 0, 0, &n);
    redact_opts o = {.keep_thread_names = 1};
    redact *r = redact_init(&o);
    tr_buf out = {0};
    CU_ASSERT_EQUAL(redact_run(r, in, n, tr_write, &out), 0);
    CU_ASSERT_PTR_NOT_NULL(memmem(out.p, out.n, "thread-name-SECRET", 18));
    CU_ASSERT_PTR_NULL(memmem(out.p, out.n, "SUPERSECRET", 11));
    CU_ASSERT_EQUAL(redact_get_stats(r)->utf8_redacted, 1);
    redact_cleanup(r);
    free(out.p);
    free(in);
}

/* Every cut of the file is refused (an input error), never a crash; so is
 * an instance whose class is unknown or whose size is wrong. */
static void test_malformed(void)
{
    size_t n;
    uint8_t *in = tr_file(8, 0, 0, 0, &n);
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *c = malloc(cut ? cut : 1);
        memcpy(c, in, cut);
        redact *r = redact_init(NULL);
        tr_buf out = {0};
        int rc = redact_run(r, c, cut, tr_write, &out);
        /* a cut between records is a whole (shorter) file */
        if (rc != 0) {
            CU_ASSERT(redact_error_is_input(r));
            CU_ASSERT_PTR_NOT_NULL(redact_error(r));
            CU_ASSERT_EQUAL(out.n, 0);
        }
        redact_cleanup(r);
        free(out.p);
        free(c);
    }
    /* the instance's class id changed to one without a CLASS DUMP */
    uint8_t pat[9] = {HPROF_GC_INSTANCE_DUMP, 0, 0, 0, 0, 0, 0, 0x10, 0};
    uint8_t *p = memmem(in, n, pat, sizeof pat);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    uint8_t *bad = malloc(n);
    memcpy(bad, in, n);
    bad[(p - in) + 1 + 8 + 4 + 7] = 0x99;
    redact *r = redact_init(NULL);
    tr_buf out = {0};
    CU_ASSERT_EQUAL(redact_run(r, bad, n, tr_write, &out), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(redact_error(r), "has no CLASS DUMP"));
    CU_ASSERT_EQUAL(out.n, 0);
    redact_cleanup(r);
    /* an instance with 4 bytes more than its class's fields */
    tr_extra = 4;
    size_t n2;
    uint8_t *big = tr_file(8, 0, 0, 0, &n2);
    tr_extra = 0;
    r = redact_init(NULL);
    CU_ASSERT_EQUAL(redact_run(r, big, n2, tr_write, &out), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(redact_error(r), "holds 24 bytes of values, its class's fields take 20"));
    CU_ASSERT(redact_error_is_input(r));
    CU_ASSERT_EQUAL(out.n, 0);
    redact_cleanup(r);
    free(big);
    free(out.p);
    free(bad);
    free(in);
}

static void test_glob(void)
{
    CU_ASSERT(redact_glob_match("com.acme.*", "com/acme/Foo", 12));
    CU_ASSERT(redact_glob_match("com/acme/*", "com/acme/Foo$Bar", 16));
    CU_ASSERT(!redact_glob_match("com.acme.*", "com/acmeX/Foo", 13));
    CU_ASSERT(redact_glob_match("*Config", "a/b/Config", 10));
    CU_ASSERT(!redact_glob_match("*Config", "a/b/Configs", 11));
    CU_ASSERT(redact_glob_match("Secret?emo", "SecretDemo", 10));
    CU_ASSERT(!redact_glob_match("Secret", "SecretDemo", 10));
}

static int tr_suites(void)
{
    CU_pSuite s = CU_add_suite("redact", NULL, NULL);
    if (!s || !CU_add_test(s, "id size 8", test_id8) || !CU_add_test(s, "id size 4", test_id4) ||
        !CU_add_test(s, "class dumps after instances", test_late_classes) ||
        !CU_add_test(s, "1.0.1 single heap dump", test_v101) ||
        !CU_add_test(s, "file, class dumps first", test_file_hotspot_order) ||
        !CU_add_test(s, "file, class dumps after objects", test_file_late_classes) ||
        !CU_add_test(s, "FIFO, class dumps first", test_fifo_hotspot_order) ||
        !CU_add_test(s, "FIFO, class dumps after objects", test_fifo_late_classes) ||
        !CU_add_test(s, "corpus: the original agent's dump", test_corpus_original) ||
        !CU_add_test(s, "corpus: jmap's dump", test_corpus_jmap) ||
        !CU_add_test(s, "keep thread names", test_keep_thread_names) ||
        !CU_add_test(s, "malformed input", test_malformed) || !CU_add_test(s, "glob", test_glob))
        return -1;
    return 0;
}

int main(void) { return tu_main(tr_suites); }
