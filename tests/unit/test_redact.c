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
#include <zlib.h>

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
    hw_utf8z(w, 11, HPROF_SITES_NOTE "live not exact: no GC forced since 12:34:56: "
                    "objects not yet collected count as live");
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

/* ---- leaks through what is kept as it is (records, notes, gzip) ---- */

/* A file built byte by byte (the writer cannot write a malformed one). */
typedef struct tr_raw { uint8_t b[4096]; size_t n; } tr_raw;

static void tr_raw_put(tr_raw *f, uint64_t v, unsigned n)
{
    CU_ASSERT_FATAL(f->n + n <= sizeof f->b);
    tr_put_be(f->b + f->n, v, n);
    f->n += n;
}

static void tr_raw_bytes(tr_raw *f, const void *p, size_t n)
{
    CU_ASSERT_FATAL(f->n + n <= sizeof f->b);
    memcpy(f->b + f->n, p, n);
    f->n += n;
}

static void tr_raw_header(tr_raw *f)
{
    f->n = 0;
    tr_raw_bytes(f, HPROF_MAGIC_1_0_2, HPROF_MAGIC_LEN + 1);
    tr_raw_put(f, 8, 4);
    tr_raw_put(f, 1700000000000ULL, 8);
}

/* A record's header; returns the offset of its length, for tr_raw_end. */
static size_t tr_raw_rec(tr_raw *f, unsigned tag)
{
    tr_raw_put(f, tag, 1);
    tr_raw_put(f, 0, 4);
    tr_raw_put(f, 0, 4);
    return f->n - 4;
}

static void tr_raw_end(tr_raw *f, size_t lenoff)
{
    tr_put_be(f->b + lenoff, f->n - lenoff - 4, 4);
}

#define TR_SLACK "SECRET%02u" /* 8 bytes appended to a record */

/* One record of each kind kept as it is, at its layout's length (id size
 * 8), then `slack` bytes ("SECRETnn") past it; and a CLASS DUMP whose
 * reserved ids hold secrets (when `slack`). `cut`: the record of that
 * index one byte short of its layout instead (1..12), nothing appended. */
static size_t tr_kept_records(tr_raw *f, int slack, unsigned cut)
{
    char sec[16];
    unsigned k = 0;
    tr_raw_header(f);
    for (unsigned i = 1; i <= 12; i++) {
        static const unsigned tags[] = {
            0, HPROF_TAG_LOAD_CLASS, HPROF_TAG_UNLOAD_CLASS, HPROF_TAG_FRAME, HPROF_TAG_TRACE,
            HPROF_TAG_ALLOC_SITES, HPROF_TAG_HEAP_SUMMARY, HPROF_TAG_START_THREAD,
            HPROF_TAG_END_THREAD, HPROF_TAG_CPU_SAMPLES, HPROF_TAG_CONTROL_SETTINGS,
            HPROF_TAG_HEAP_DUMP_SEGMENT, HPROF_TAG_HEAP_DUMP_END};
        size_t lo = tr_raw_rec(f, tags[i]);
        switch (tags[i]) {
        case HPROF_TAG_LOAD_CLASS: /* serial, class, trace, name */
            tr_raw_put(f, 1, 4);
            tr_raw_put(f, 0x100, 8);
            tr_raw_put(f, 0, 4);
            tr_raw_put(f, 0x1, 8);
            break;
        case HPROF_TAG_UNLOAD_CLASS:
        case HPROF_TAG_END_THREAD: tr_raw_put(f, 7, 4); break;
        case HPROF_TAG_FRAME: /* frame, method, signature, source, class, line */
            for (unsigned j = 0; j < 4; j++)
                tr_raw_put(f, j ? 0x1 : 0x50, 8);
            tr_raw_put(f, 1, 4);
            tr_raw_put(f, 42, 4);
            break;
        case HPROF_TAG_TRACE: /* serial, thread, 2 frames */
            tr_raw_put(f, 1, 4);
            tr_raw_put(f, 1, 4);
            tr_raw_put(f, 2, 4);
            tr_raw_put(f, 0x50, 8);
            tr_raw_put(f, 0x50, 8);
            break;
        case HPROF_TAG_ALLOC_SITES: /* the head, 1 site */
            tr_raw_put(f, 0, 2);
            tr_raw_put(f, 0, 4);
            tr_raw_put(f, 48, 4);
            tr_raw_put(f, 2, 4);
            tr_raw_put(f, 96, 8);
            tr_raw_put(f, 4, 8);
            tr_raw_put(f, 1, 4);
            tr_raw_put(f, 0, 1);
            tr_raw_put(f, 1, 4);
            tr_raw_put(f, 1, 4);
            for (unsigned j = 0; j < 4; j++)
                tr_raw_put(f, 24, 4);
            break;
        case HPROF_TAG_HEAP_SUMMARY:
            tr_raw_put(f, 48, 4);
            tr_raw_put(f, 2, 4);
            tr_raw_put(f, 96, 8);
            tr_raw_put(f, 4, 8);
            break;
        case HPROF_TAG_START_THREAD: /* serial, thread, trace, 3 names */
            tr_raw_put(f, 1, 4);
            tr_raw_put(f, 0x4000, 8);
            tr_raw_put(f, 1, 4);
            for (unsigned j = 0; j < 3; j++)
                tr_raw_put(f, 0x1, 8);
            break;
        case HPROF_TAG_CPU_SAMPLES: /* total, 1 trace: count, serial */
            tr_raw_put(f, 5, 4);
            tr_raw_put(f, 1, 4);
            tr_raw_put(f, 5, 4);
            tr_raw_put(f, 1, 4);
            break;
        case HPROF_TAG_CONTROL_SETTINGS:
            tr_raw_put(f, 0, 4);
            tr_raw_put(f, 4, 2);
            break;
        case HPROF_TAG_HEAP_DUMP_SEGMENT: /* a CLASS DUMP: its reserved ids */
            tr_raw_put(f, HPROF_GC_CLASS_DUMP, 1);
            tr_raw_put(f, 0x100, 8);
            tr_raw_put(f, 1, 4);
            for (unsigned j = 0; j < 4; j++) tr_raw_put(f, 0, 8);
            for (unsigned j = 0; j < 2; j++) {
                snprintf(sec, sizeof sec, TR_SLACK, slack ? 20 + j : 0);
                if (slack)
                    tr_raw_bytes(f, sec, 8);
                else
                    tr_raw_put(f, 0, 8);
            }
            tr_raw_put(f, 0, 4);
            for (unsigned j = 0; j < 3; j++) tr_raw_put(f, 0, 2);
            break;
        default: break;
        }
        if (i == cut)
            f->n--; /* one byte short */
        else if (slack && tags[i] != HPROF_TAG_HEAP_DUMP_SEGMENT) {
            snprintf(sec, sizeof sec, TR_SLACK, i);
            tr_raw_bytes(f, sec, 8);
            k++;
        }
        tr_raw_end(f, lo);
    }
    return k;
}

/* Bytes past the layout of a record kept as it is (and CLASS DUMP's
 * reserved ids) are zeroed and counted; a record short of its layout is
 * refused. */
static void test_kept_record_slack(void)
{
    static tr_raw in, want;
    size_t k = tr_kept_records(&in, 1, 0);
    CU_ASSERT_EQUAL(k, 11);
    CU_ASSERT_PTR_NOT_NULL(memmem(in.b, in.n, "SECRET", 6));
    /* what it must become: the same with the 11 slacks and the 2 reserved
     * ids zeroed */
    want = in;
    for (uint8_t *p = want.b; (p = memmem(p, want.n - (size_t)(p - want.b), "SECRET", 6)); p += 8)
        memset(p, 0, 8);
    redact *r = redact_init(NULL);
    tr_buf out = {0};
    CU_ASSERT_EQUAL(redact_run(r, in.b, in.n, tr_write, &out), 0);
    CU_ASSERT_PTR_NULL(redact_error(r));
    CU_ASSERT(out.n == in.n && memcmp(out.p, want.b, in.n) == 0);
    CU_ASSERT_PTR_NULL(memmem(out.p, out.n, "SECRET", 6));
    CU_ASSERT_EQUAL(redact_get_stats(r)->slack_records, 11 + 1);
    CU_ASSERT_EQUAL(redact_get_stats(r)->slack_bytes, 11 * 8 + 2 * 8);
    CU_ASSERT_EQUAL(redact_get_stats(r)->unknown_records, 0);
    redact_cleanup(r);
    free(out.p);
    /* at their layout's length: the output is the input, nothing counted */
    tr_kept_records(&in, 0, 0);
    r = redact_init(NULL);
    out = (tr_buf){0};
    CU_ASSERT_EQUAL(redact_run(r, in.b, in.n, tr_write, &out), 0);
    CU_ASSERT(out.n == in.n && memcmp(out.p, in.b, in.n) == 0);
    CU_ASSERT_EQUAL(redact_get_stats(r)->slack_records, 0);
    CU_ASSERT_EQUAL(redact_get_stats(r)->slack_bytes, 0);
    redact_cleanup(r);
    free(out.p);
    /* each kind one byte short: refused, as the input's fault */
    static const char *const msgs[] = {
        NULL,
        "LOAD CLASS record of length 23, its layout needs 24",
        "UNLOAD CLASS record of length 3, its layout needs 4",
        "FRAME record of length 39, its layout needs 40",
        "TRACE record of length 27, its layout needs 28",
        "ALLOC SITES record of length 58, its layout needs 59",
        "HEAP SUMMARY record of length 23, its layout needs 24",
        "START THREAD record of length 39, its layout needs 40",
        "END THREAD record of length 3, its layout needs 4",
        "CPU SAMPLES record of length 15, its layout needs 16",
        "CONTROL SETTINGS record of length 5, its layout needs 6",
        "CLASS DUMP goes past the end",
        NULL /* HEAP DUMP END: 0 bytes, cannot be one short */};
    for (unsigned cut = 1; cut <= 11; cut++) {
        tr_kept_records(&in, 0, cut);
        r = redact_init(NULL);
        out = (tr_buf){0};
        CU_ASSERT_EQUAL(redact_run(r, in.b, in.n, tr_write, &out), -1);
        CU_ASSERT(redact_error_is_input(r));
        const char *e = redact_error(r);
        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        if (!strstr(e, msgs[cut]))
            fprintf(stderr, "\ncut %u: %s\n", cut, e);
        CU_ASSERT_PTR_NOT_NULL(strstr(e, msgs[cut]));
        CU_ASSERT_EQUAL(out.n, 0);
        redact_cleanup(r);
        free(out.p);
    }
    /* too short for a count: TRACE of 11 bytes */
    tr_raw_header(&in);
    size_t lo = tr_raw_rec(&in, HPROF_TAG_TRACE);
    tr_raw_put(&in, 0, 8);
    tr_raw_put(&in, 0, 3);
    tr_raw_end(&in, lo);
    r = redact_init(NULL);
    out = (tr_buf){0};
    CU_ASSERT_EQUAL(redact_run(r, in.b, in.n, tr_write, &out), -1);
    CU_ASSERT_STRING_EQUAL(redact_error(r),
                           "offset 31: TRACE record of length 11, too short for its layout");
    redact_cleanup(r);
    free(out.p);
}

/* UTF8 records starting "HPROF SITES ": kept only when they are exactly
 * what the agent writes. */
static void test_sites_notes(void)
{
    static const char *const good[] = {
        HPROF_SITES_NOTE "live not exact: no GC forced before this output: objects not yet "
            "collected count as live",
        HPROF_SITES_NOTE "live not exact: no GC forced before this output as the JVM exits: "
            "objects not yet collected count as live",
        HPROF_SITES_NOTE "live not exact: no GC is forced with ZGC or Shenandoah: objects "
            "not yet collected count as live",
        HPROF_SITES_NOTE "live not exact: no GC forced since 09:05:59 and the JVM is "
            "exiting: objects not yet collected count as live",
        HPROF_SITES_NOTE "live as of the GC forced when the exit began at 23:59:01: 1 "
            "object allocated after it counts as live",
        HPROF_SITES_NOTE "live as of the GC forced when the exit began at 23:59:01: 12 "
            "sampled objects allocated after it count as live",
        HPROF_SITES_SAMPLES "524288",
        HPROF_SITES_SAMPLES "524288 3/1 1/0 0/0",
        HPROF_SITES_U8 "8388624 1",
        HPROF_SITES_U8 "8388624 1 1:8388624,1,5033174400,600 7:1,2,3,4",
    };
    static const char *const bad[] = {
        "HPROF SITES password=hunter2SECRET09",
        "HPROF SITES NOTE: kept SECRET",
        HPROF_SITES_NOTE "live not exact: no GC forced before this output: objects not yet "
            "collected count as liveSECRET",
        HPROF_SITES_NOTE "live not exact: no GC forced since SECRET12: objects not yet "
            "collected count as live",
        HPROF_SITES_NOTE "live as of the GC forced when the exit began at 23:59:01: -1 "
            "objects allocated after it count as live",
        HPROF_SITES_SAMPLES "",
        HPROF_SITES_SAMPLES "524288 3/1 SECRET",
        HPROF_SITES_SAMPLES "524288 3/1 ",
        HPROF_SITES_SAMPLES "524288  3/1",
        HPROF_SITES_SAMPLES "5242 88 3/1",
        HPROF_SITES_U8 "8388624",
        HPROF_SITES_U8 "8388624 1 1:8388624,1,5033174400",
        HPROF_SITES_U8 "8388624 1 1:8388624,1,5033174400,600,SECRET",
        "HPROF SITES U8 1 2",
    };
    size_t ng = sizeof good / sizeof good[0], nb = sizeof bad / sizeof bad[0];
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(8, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (size_t i = 0; i < ng; i++)
        hw_utf8z(w, 0x100 + i, good[i]);
    for (size_t i = 0; i < nb; i++)
        hw_utf8z(w, 0x200 + i, bad[i]);
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, NULL, 0), 0);
    size_t n;
    uint8_t *in = tu_sink_copy(sink, &n);
    hw_sink_free(sink);
    redact *r = redact_init(NULL);
    tr_buf out = {0};
    CU_ASSERT_EQUAL(redact_run(r, in, n, tr_write, &out), 0);
    CU_ASSERT_EQUAL(out.n, n);
    CU_ASSERT_EQUAL(redact_get_stats(r)->utf8_redacted, nb);
    for (size_t i = 0; i < ng; i++)
        CU_ASSERT_PTR_NOT_NULL(memmem(out.p, out.n, good[i], strlen(good[i])));
    for (size_t i = 0; i < nb; i++) { /* its text, after its id: all '*' */
        uint8_t rec[128];
        size_t tl = strlen(bad[i]);
        tr_put_be(rec, 0x200 + i, 8);
        memcpy(rec + 8, bad[i], tl);
        const uint8_t *at = memmem(in, n, rec, 8 + tl);
        CU_ASSERT_PTR_NOT_NULL_FATAL(at);
        size_t off = (size_t)(at - in) + 8, stars = 0;
        while (stars < tl && out.p[off + stars] == '*')
            stars++;
        CU_ASSERT_EQUAL(stars, tl);
    }
    CU_ASSERT_PTR_NULL(memmem(out.p, out.n, "SECRET", 6));
    CU_ASSERT_PTR_NOT_NULL(memmem(in, n, "SECRET", 6));
    redact_cleanup(r);
    free(out.p);
    free(in);
}

/* A gzip input cut short (after a whole first member, as `cat a.gz
 * b.gz` cut would be) or corrupt is refused, nothing left at OUT. */
static void test_gzip_cut(void)
{
    size_t n;
    uint8_t *in = tr_file(8, 0, 0, 0, &n);
    char dir[] = "/tmp/test_redact_XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char gp[64], cp[64], op[64];
    snprintf(gp, sizeof gp, "%s/in.gz", dir);
    snprintf(cp, sizeof cp, "%s/cut.gz", dir);
    snprintf(op, sizeof op, "%s/out.hprof", dir);
    gzFile gz = gzopen(gp, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
    CU_ASSERT_EQUAL(gzwrite(gz, in, (unsigned)n), (int)n);
    CU_ASSERT_EQUAL(gzclose(gz), Z_OK);
    FILE *f = fopen(gp, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static uint8_t z[1 << 16];
    size_t zn = fread(z, 1, sizeof z, f);
    fclose(f);
    CU_ASSERT_FATAL(zn > 40 && zn < sizeof z);
    /* the whole member: redacted */
    redact *r = redact_init(NULL);
    CU_ASSERT_EQUAL(redact_file(r, gp, op), 0);
    CU_ASSERT_EQUAL(redact_get_stats(r)->bytes, n);
    redact_cleanup(r);
    unlink(op);
    /* the member, then the first 12 bytes of another; the member cut in
     * its middle; its trailer's last byte gone (an intact HPROF inside) */
    size_t cuts[][2] = {{zn, 12}, {zn / 2, 0}, {zn - 1, 0}};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        f = fopen(cp, "wb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL(fwrite(z, 1, cuts[c][0], f), cuts[c][0]);
        CU_ASSERT_EQUAL(fwrite(z, 1, cuts[c][1], f), cuts[c][1]);
        fclose(f);
        r = redact_init(NULL);
        CU_ASSERT_EQUAL(redact_file(r, cp, op), -1);
        CU_ASSERT(redact_error_is_input(r));
        CU_ASSERT_PTR_NOT_NULL_FATAL(redact_error(r));
        CU_ASSERT_STRING_EQUAL(redact_error(r), "gzip input: unexpected end of file");
        redact_cleanup(r);
        CU_ASSERT_EQUAL(access(op, F_OK), -1);
    }
    unlink(cp);
    unlink(gp);
    rmdir(dir);
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
    /* the reference corpus sits beside the repository where the project's
     * CI runs; a clone elsewhere has none: its two cases are skipped, saying
     * so (as test_corpus does) */
    struct stat sb;
    if (stat(HPROF_CORPUS_DIR "/original-agent", &sb) == 0 && S_ISDIR(sb.st_mode)) {
        CU_pSuite c = CU_add_suite("redact corpus", NULL, NULL);
        if (!c || !CU_add_test(c, "corpus: the original agent's dump", test_corpus_original) ||
            !CU_add_test(c, "corpus: jmap's dump", test_corpus_jmap))
            return -1;
    } else {
        printf("test_redact: corpus cases SKIPPED: the reference corpus folder %s is absent\n",
               HPROF_CORPUS_DIR "/original-agent");
    }
    CU_pSuite s = CU_add_suite("redact", NULL, NULL);
    if (!s || !CU_add_test(s, "id size 8", test_id8) || !CU_add_test(s, "id size 4", test_id4) ||
        !CU_add_test(s, "class dumps after instances", test_late_classes) ||
        !CU_add_test(s, "1.0.1 single heap dump", test_v101) ||
        !CU_add_test(s, "file, class dumps first", test_file_hotspot_order) ||
        !CU_add_test(s, "file, class dumps after objects", test_file_late_classes) ||
        !CU_add_test(s, "FIFO, class dumps first", test_fifo_hotspot_order) ||
        !CU_add_test(s, "FIFO, class dumps after objects", test_fifo_late_classes) ||
        !CU_add_test(s, "keep thread names", test_keep_thread_names) ||
        !CU_add_test(s, "malformed input", test_malformed) ||
        !CU_add_test(s, "bytes past a kept record's layout", test_kept_record_slack) ||
        !CU_add_test(s, "HPROF SITES notes", test_sites_notes) ||
        !CU_add_test(s, "cut gzip", test_gzip_cut) || !CU_add_test(s, "glob", test_glob))
        return -1;
    return 0;
}

int main(void) { return tu_main(tr_suites); }
