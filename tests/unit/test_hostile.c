/*
 * test_hostile.c: the `hprof` tool on files crafted to hurt it.
 *
 *  - 100 000 unknown records (a 1 MB file; 20 KB as .gz): `print`,
 *    `info`, `verify`, `histo` and `sites` each show at most
 *    WL_MAX_DEFAULT of the per-record warnings (verify: --max) and say how
 *    many more there were, in a few KB of output (before: one line per
 *    record, 9 MB; the original report: 5 GB of stderr from a 500 KB .gz).
 *  - class hierarchies with a cycle (a class its own super, A -> B -> A,
 *    A -> B -> C -> A) and instances of them: `histo`, `print`, `info` and
 *    `verify` end (each run has a time limit), and verify reports each
 *    cycle once (super-cycle); with 50 000 other classes and 200 000
 *    instances of the cyclic ones, print's walk up each instance's chain
 *    is bounded by the chain's distinct classes, not by the number of
 *    classes (before: 60 s, now 0.1 s).
 *
 * The tool (HPROF_TOOL) runs in a child with stdout and stderr in files.
 */
#include "testutil.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#define HOST_RUN_SECONDS 20u /* a tool run longer than this is a hang */
#define HOST_OUT_MAX 16384   /* bytes of output a bounded run stays below */
#define HOST_UNKNOWN_RECORDS 100000u
#define HOST_UNKNOWN_TAG 0x55 /* no such record tag */

static char host_dir[] = "/tmp/hprof-hostile-XXXXXX";

typedef struct host_out {
    int status; /* exit status, 128 + signal, or -1 when it had to be killed */
    char *out, *err;
    size_t nout, nerr;
} host_out;

static char *host_slurp(const char *path, size_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
    if (buf && len > 0)
        *n = fread(buf, 1, (size_t)len, f);
    fclose(f);
    return buf;
}

/* Runs `hprof ARGS...` (NULL-terminated) with a time limit. */
static void host_run(host_out *o, const char *const *args)
{
    char out[128], err[128];
    snprintf(out, sizeof out, "%s/stdout", host_dir);
    snprintf(err, sizeof err, "%s/stderr", host_dir);
    const char *argv[16] = {"hprof"};
    size_t n = 1;
    while (args[n - 1] && n < 15) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fo < 0 || fe < 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        alarm(HOST_RUN_SECONDS); /* SIGALRM ends a hang */
        execv(HPROF_TOOL, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
    o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
        fprintf(stderr, "\n  hprof %s %s: still running after %u s\n", args[0], args[1] ? args[1] : "",
                HOST_RUN_SECONDS);
        o->status = -1;
    }
    o->out = host_slurp(out, &o->nout);
    o->err = host_slurp(err, &o->nerr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o->out);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o->err);
}

static void host_free(host_out *o)
{
    free(o->out);
    free(o->err);
}

/* ------------------------------------------------- raw file building */

typedef struct host_buf {
    uint8_t *p;
    size_t n, cap;
} host_buf;

static void hb_put(host_buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->n + n)
            nc *= 2;
        b->p = realloc(b->p, nc);
        if (!b->p)
            abort();
        b->cap = nc;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void hb_u1(host_buf *b, unsigned v)
{
    uint8_t x = (uint8_t)v;
    hb_put(b, &x, 1);
}

static void hb_u4(host_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    hb_put(b, x, 4);
}

static void hb_u2(host_buf *b, unsigned v)
{
    hb_u1(b, (v >> 8) & 0xFF);
    hb_u1(b, v & 0xFF);
}

static void hb_id(host_buf *b, uint32_t v) /* 4-byte ids */
{
    hb_u4(b, v);
}

static void hb_header(host_buf *b)
{
    hb_put(b, HPROF_MAGIC_1_0_2, HPROF_MAGIC_LEN + 1);
    hb_u4(b, 4);
    hb_u4(b, 0);
    hb_u4(b, 0);
}

static void hb_rec(host_buf *b, unsigned tag, uint32_t len)
{
    hb_u1(b, tag);
    hb_u4(b, 0);
    hb_u4(b, len);
}

static void host_write(const char *path, const host_buf *b, int gz)
{
    if (gz) {
        gzFile g = gzopen(path, "wb1");
        CU_ASSERT_FATAL(g != NULL);
        CU_ASSERT_FATAL(gzwrite(g, b->p, (unsigned)b->n) == (int)b->n);
        CU_ASSERT_FATAL(gzclose(g) == Z_OK);
        return;
    }
    FILE *f = fopen(path, "wb");
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT_FATAL(fwrite(b->p, 1, b->n, f) == b->n);
    CU_ASSERT_FATAL(fclose(f) == 0);
}

/* ---------------------------------------- 12: warnings are rate-limited */

static void test_unknown_flood(void)
{
    host_buf b = {0};
    hb_header(&b);
    for (unsigned i = 0; i < HOST_UNKNOWN_RECORDS; i++) {
        hb_rec(&b, HOST_UNKNOWN_TAG, 1); /* not empty: that is another kind */
        hb_u1(&b, 0);
    }
    char path[128];
    snprintf(path, sizeof path, "%s/unknown.hprof.gz", host_dir);
    host_write(path, &b, 1);
    free(b.p);

    char more[96];
    snprintf(more, sizeof more, "... and %u more unknown-tag problems not shown",
             HOST_UNKNOWN_RECORDS - 10u);
    static const char *const cmds[] = {"print", "info", "histo", "sites", "samples", "verify"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        const char *args[] = {cmds[i], path, NULL};
        host_out o;
        host_run(&o, args);
        if (o.nout + o.nerr >= HOST_OUT_MAX)
            fprintf(stderr, "\n  hprof %s: %zu bytes of stdout, %zu of stderr\n", cmds[i], o.nout,
                    o.nerr);
        CU_ASSERT(o.nout + o.nerr < HOST_OUT_MAX);
        CU_ASSERT(o.status == 0 || o.status == 1);
        if (strcmp(cmds[i], "print") == 0 || strcmp(cmds[i], "sites") == 0 ||
            strcmp(cmds[i], "samples") == 0) {
            /* every warning but the first ten is counted in one line */
            CU_ASSERT_PTR_NOT_NULL(strstr(o.err, more));
        } else if (strcmp(cmds[i], "info") == 0) {
            CU_ASSERT_PTR_NOT_NULL(strstr(o.out, more));
            CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "100000 problem(s) while parsing"));
        } else if (strcmp(cmds[i], "verify") == 0) {
            CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "... and 99990 more problems not listed"));
            CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "0 error(s), 100000 warning(s)"));
        }
        host_free(&o);
    }
    /* verify --max 0 still lists every one, as asked */
    const char *all[] = {"verify", "--max", "0", path, NULL};
    host_out o;
    host_run(&o, all);
    CU_ASSERT_EQUAL(o.status, 1);
    CU_ASSERT(o.nout > (size_t)HOST_UNKNOWN_RECORDS * 20);
    host_free(&o);
    unlink(path);
}

/* ------------------------------- 13: class hierarchies with a cycle */

#define HOST_FILLER_CLASSES 50000u /* classes outside the cycle */
#define HOST_CYCLE_INSTANCES 200000u

/* A CLASS DUMP (4-byte ids) with `nfields` int fields named by UTF8 1. */
static void hb_class(host_buf *b, uint32_t id, uint32_t super, unsigned nfields)
{
    hb_u1(b, HPROF_GC_CLASS_DUMP);
    hb_id(b, id);
    hb_u4(b, 0);     /* trace */
    hb_id(b, super);
    for (int i = 0; i < 5; i++)
        hb_id(b, 0); /* loader, signers, domain, reserved x2 */
    hb_u4(b, 4 * nfields);
    hb_u2(b, 0); /* constant pool */
    hb_u2(b, 0); /* statics */
    hb_u2(b, nfields);
    for (unsigned i = 0; i < nfields; i++) {
        hb_id(b, 1);
        hb_u1(b, HPROF_TYPE_INT);
    }
}

static void hb_instance(host_buf *b, uint32_t id, uint32_t cls, uint32_t nbytes)
{
    hb_u1(b, HPROF_GC_INSTANCE_DUMP);
    hb_id(b, id);
    hb_u4(b, 0);
    hb_id(b, cls);
    hb_u4(b, nbytes);
    for (uint32_t i = 0; i < nbytes; i++)
        hb_u1(b, i);
}

/* The heap: `filler` classes with no super and no fields, a class its own
 * super (0x10), A -> B -> A (0x20, 0x21) and A -> B -> C -> A (0x30..0x32),
 * with `fields` int fields each, then `per` instances of each cyclic class
 * holding 12 bytes of values (more than any chain's fields). */
static void host_cycle_file(const char *path, unsigned filler, unsigned fields, unsigned per)
{
    host_buf heap = {0}, b = {0};
    for (unsigned i = 0; i < filler; i++)
        hb_class(&heap, 0x100000 + 8 * i, 0, 0);
    static const uint32_t cls[][2] = {{0x10, 0x10}, {0x20, 0x21}, {0x21, 0x20},
                                      {0x30, 0x31}, {0x31, 0x32}, {0x32, 0x30}};
    for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++)
        hb_class(&heap, cls[i][0], cls[i][1], fields);
    uint32_t obj = 0x1000000;
    for (unsigned k = 0; k < per; k++)
        for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++)
            hb_instance(&heap, obj += 8, cls[i][0], 12);
    hb_header(&b);
    hb_rec(&b, HPROF_TAG_UTF8, 4 + 1);
    hb_id(&b, 1);
    hb_u1(&b, 'f');
    hb_rec(&b, HPROF_TAG_HEAP_DUMP_SEGMENT, (uint32_t)heap.n);
    hb_put(&b, heap.p, heap.n);
    hb_rec(&b, HPROF_TAG_HEAP_DUMP_END, 0);
    host_write(path, &b, 1);
    free(heap.p);
    free(b.p);
}

static size_t host_count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Small cycles: every command ends, verify names each cycle once, print
 * walks each instance's chain once round (one field line per class: the
 * int fields are not shown, so the OBJ lines stand alone). */
static void test_cycles_small(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/cycles.hprof.gz", host_dir);
    host_cycle_file(path, 0, 1, 1);
    static const char *const cmds[] = {"histo", "print", "verify", "info"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        const char *args[] = {cmds[i], path, NULL};
        host_out o;
        host_run(&o, args);
        CU_ASSERT(o.status == 0 || o.status == 1);
        if (strcmp(cmds[i], "verify") == 0) {
            CU_ASSERT_EQUAL(o.status, 1);
            CU_ASSERT_EQUAL(host_count(o.out, "[super-cycle]"), 3);
            CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "names itself as its super class"));
            CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "starts a cycle of 2 super classes"));
            CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "starts a cycle of 3 super classes"));
        } else if (strcmp(cmds[i], "print") == 0) {
            CU_ASSERT_EQUAL(host_count(o.out, "\nOBJ "), 6);
        } else if (strcmp(cmds[i], "histo") == 0) {
            CU_ASSERT_EQUAL(o.status, 0);
            CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "Total              6            144"));
        }
        host_free(&o);
    }
    unlink(path);
}

/* A 3-cycle of classes without fields among 50 000 other classes, 200 000
 * instances of the cyclic classes: a walk bounded by the number of classes
 * (50 000 steps per instance, 10^10 in all) does not end in time; one
 * bounded by the chain's distinct classes takes 1-3 steps. */
static void test_cycles_walk_bound(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/cycles-big.hprof.gz", host_dir);
    host_cycle_file(path, HOST_FILLER_CLASSES, 0, HOST_CYCLE_INSTANCES / 6);
    static const char *const cmds[] = {"print", "histo", "verify"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        const char *args[] = {cmds[i], path, NULL};
        host_out o;
        host_run(&o, args);
        CU_ASSERT(o.status == 0 || o.status == 1);
        host_free(&o);
    }
    unlink(path);
}

/* ----------------------------------------------------------- main */

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("the tool on hostile files", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "100 000 unknown records: bounded warnings, totals stated", test_unknown_flood) ||
        !CU_add_test(s, "super cycles (self, 2, 3): every command ends, verify names each",
                     test_cycles_small) ||
        !CU_add_test(s, "a cycle among 50 000 classes: print's walk is bounded by the chain",
                     test_cycles_walk_bound))
        return -1;
    return 0;
}

int main(void)
{
    if (!mkdtemp(host_dir)) {
        perror("mkdtemp");
        return 2;
    }
    int rc = tu_main(add_suites);
    char p[160];
    snprintf(p, sizeof p, "%s/stdout", host_dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/stderr", host_dir);
    unlink(p);
    rmdir(host_dir);
    return rc;
}
