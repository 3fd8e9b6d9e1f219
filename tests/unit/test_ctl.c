/*
 * test_ctl.c: hprof-ctl's parts that work on bytes and words alone (ctl/):
 * the heap dump scanner counts sub-records the same whatever the pieces it
 * is fed in, says when a dump ends inside a sub-record or at an unknown
 * one; the command parser gives the documented commands and the exact
 * error of each bad line; the names kept for display are cleaned, dotted
 * and reused; the number parsers take their whole range and nothing past.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_cmd.h"
#include "ctl_names.h"
#include "ctl_scan.h"
#include "ctl_util.h"
#include "hprof/hprof_format.h"
#include "testutil.h"

/* ------------------------------------------------------------ a heap dump body */

typedef struct body {
    uint8_t b[512];
    size_t n;
    unsigned id;
} body;

static void put(body *d, uint64_t v, unsigned size)
{
    for (unsigned i = 0; i < size; i++)
        d->b[d->n++] = (uint8_t)(v >> (8 * (size - 1 - i)));
}

static void put_id(body *d, uint64_t v)
{
    put(d, v, d->id);
}

/* 2 roots, 1 CLASS DUMP (1 constant, 1 static, 2 fields), 1 instance, 2
 * arrays: the sub-records of a dump, with every variable part non-empty. */
static void build_dump(body *d, unsigned id)
{
    memset(d, 0, sizeof *d);
    d->id = id;
    put(d, HPROF_GC_ROOT_UNKNOWN, 1);
    put_id(d, 0x100);
    put(d, HPROF_GC_ROOT_JNI_GLOBAL, 1);
    put_id(d, 0x100);
    put_id(d, 0x200);
    put(d, HPROF_GC_CLASS_DUMP, 1);
    for (int i = 0; i < 8; i++) /* class id, u4 trace, 6 ids: super .. reserved 2 */
        i == 1 ? put(d, 1, 4) : put_id(d, 0x300 + (unsigned)i);
    put(d, 12, 4);                /* instance size */
    put(d, 1, 2);                 /* constant pool: 1 */
    put(d, 3, 2);                 /*   index */
    put(d, HPROF_TYPE_INT, 1);    /*   type */
    put(d, 0xdeadbeef, 4);        /*   value */
    put(d, 1, 2);                 /* statics: 1 */
    put_id(d, 0x400);             /*   name */
    put(d, HPROF_TYPE_LONG, 1);   /*   type */
    put(d, 7, 8);                 /*   value */
    put(d, 2, 2);                 /* fields: 2 */
    put_id(d, 0x401);
    put(d, HPROF_TYPE_INT, 1);
    put_id(d, 0x402);
    put(d, HPROF_TYPE_OBJECT, 1);
    put(d, HPROF_GC_INSTANCE_DUMP, 1);
    put_id(d, 0x500);
    put(d, 1, 4);
    put_id(d, 0x300);
    put(d, 4 + id, 4); /* its field bytes */
    put(d, 42, 4);
    put_id(d, 0x100);
    put(d, HPROF_GC_OBJ_ARRAY_DUMP, 1);
    put_id(d, 0x600);
    put(d, 1, 4);
    put(d, 3, 4);
    put_id(d, 0x300);
    for (int i = 0; i < 3; i++)
        put_id(d, 0x500);
    put(d, HPROF_GC_PRIM_ARRAY_DUMP, 1);
    put_id(d, 0x700);
    put(d, 1, 4);
    put(d, 5, 4);
    put(d, HPROF_TYPE_BYTE, 1);
    put(d, 0x0102030405ull, 5);
}

static void check_counts(const ctl_scan *s)
{
    CU_ASSERT_EQUAL(s->roots, 2);
    CU_ASSERT_EQUAL(s->classes, 1);
    CU_ASSERT_EQUAL(s->instances, 1);
    CU_ASSERT_EQUAL(s->arrays, 2);
}

static void test_scan_any_pieces(void)
{
    for (unsigned id = 4; id <= 8; id += 4) {
        body d;
        build_dump(&d, id);
        uint8_t bad;
        /* whole, one byte at a time, and cut in two at every offset */
        ctl_scan s;
        ctl_scan_init(&s, id);
        ctl_scan_feed(&s, d.b, d.n);
        check_counts(&s);
        CU_ASSERT_EQUAL(ctl_scan_end(&s, &bad), CTL_SCAN_WHOLE);
        ctl_scan_init(&s, id);
        for (size_t i = 0; i < d.n; i++)
            ctl_scan_feed(&s, d.b + i, 1);
        check_counts(&s);
        CU_ASSERT_EQUAL(ctl_scan_end(&s, &bad), CTL_SCAN_WHOLE);
        for (size_t cut = 0; cut <= d.n; cut++) {
            ctl_scan_init(&s, id);
            ctl_scan_feed(&s, d.b, cut);
            ctl_scan_feed(&s, d.b + cut, d.n - cut);
            check_counts(&s);
            CU_ASSERT_EQUAL(ctl_scan_end(&s, &bad), CTL_SCAN_WHOLE);
        }
    }
}

static void test_scan_cut_and_bad(void)
{
    body d;
    build_dump(&d, 8);
    uint8_t bad = 0;
    ctl_scan s;
    /* the last byte of the byte array missing: 5 counted, inside the 6th */
    ctl_scan_init(&s, 8);
    ctl_scan_feed(&s, d.b, d.n - 1);
    CU_ASSERT_EQUAL(s.arrays, 2);
    CU_ASSERT_EQUAL(ctl_scan_end(&s, &bad), CTL_SCAN_CUT);
    /* only a tag */
    ctl_scan_init(&s, 8);
    ctl_scan_feed(&s, d.b, 1);
    CU_ASSERT_EQUAL(ctl_scan_end(&s, &bad), CTL_SCAN_CUT);
    /* an unknown sub-record: counting stops there, whatever follows */
    uint8_t junk[] = { 0x99, HPROF_GC_ROOT_UNKNOWN, 0, 0, 0, 0, 0, 0, 0, 1 };
    ctl_scan_init(&s, 8);
    ctl_scan_feed(&s, d.b, d.n);
    ctl_scan_feed(&s, junk, sizeof junk);
    check_counts(&s);
    CU_ASSERT_EQUAL(ctl_scan_end(&s, &bad), CTL_SCAN_BAD);
    CU_ASSERT_EQUAL(bad, 0x99);
    /* a primitive array of type OBJECT is not one */
    body p;
    memset(&p, 0, sizeof p);
    p.id = 4;
    put(&p, HPROF_GC_PRIM_ARRAY_DUMP, 1);
    put_id(&p, 1);
    put(&p, 0, 4);
    put(&p, 1, 4);
    put(&p, HPROF_TYPE_OBJECT, 1);
    ctl_scan_init(&s, 4);
    ctl_scan_feed(&s, p.b, p.n);
    CU_ASSERT_EQUAL(s.arrays, 1);
    CU_ASSERT_EQUAL(ctl_scan_end(&s, &bad), CTL_SCAN_BAD);
    CU_ASSERT_EQUAL(bad, HPROF_GC_PRIM_ARRAY_DUMP);
}

/* ------------------------------------------------------------ commands */

static void parse_ok(const char *line, ctl_command *c)
{
    char err[CTL_LINE_MAX] = "";
    int rc = ctl_cmd_parse(line, c, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "'%s': %s\n", line, err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
}

static void parse_bad(const char *line, const char *want)
{
    ctl_command c;
    char err[CTL_LINE_MAX] = "";
    CU_ASSERT_EQUAL(ctl_cmd_parse(line, &c, err, sizeof err), -1);
    if (strcmp(err, want) != 0)
        fprintf(stderr, "'%s': got '%s', want '%s'\n", line, err, want);
    CU_ASSERT_STRING_EQUAL(err, want);
}

static void test_cmd_commands(void)
{
    ctl_command c;
    parse_ok("@2 cpu   on 0x1F", &c);
    CU_ASSERT_EQUAL(c.kind, CK_SEND);
    CU_ASSERT_EQUAL(c.target, 2);
    CU_ASSERT_EQUAL(c.cmd.tag, HC_CONTROL);
    CU_ASSERT_EQUAL(c.cmd.control, HC_CTL_CPU_ON);
    CU_ASSERT_EQUAL(c.thread_kind, CT_ID);
    CU_ASSERT_EQUAL(c.thread, 0x1f);
    CU_ASSERT_STRING_EQUAL(c.text, "cpu on 0x1F");
    parse_ok("cpu off 200001", &c);
    CU_ASSERT_EQUAL(c.target, 0);
    CU_ASSERT_EQUAL(c.cmd.control, HC_CTL_CPU_OFF);
    CU_ASSERT_EQUAL(c.thread_kind, CT_SERIAL);
    CU_ASSERT_EQUAL(c.thread, 200001);
    parse_ok("cpu on 0", &c);
    CU_ASSERT_EQUAL(c.thread_kind, CT_ALL);
    parse_ok("sites gc incremental by-alloc cutoff 0.25", &c);
    CU_ASSERT_EQUAL(c.cmd.tag, HC_ALLOC_SITES);
    CU_ASSERT_EQUAL(c.cmd.flags, HC_SITES_INCREMENTAL | HC_SITES_BY_ALLOC | HC_SITES_FORCE_GC);
    CU_ASSERT_EQUAL(c.cmd.cutoff, 0.25f);
    parse_ok("samples cutoff 1", &c);
    CU_ASSERT_EQUAL(c.cmd.tag, HC_CPU_SAMPLES);
    CU_ASSERT_EQUAL(c.cmd.cutoff, 1.0f);
    parse_ok("depth 65535", &c);
    CU_ASSERT_EQUAL(c.cmd.control, HC_CTL_SET_DEPTH);
    CU_ASSERT_EQUAL(c.cmd.depth, 65535);
    parse_ok("clear-sites", &c);
    CU_ASSERT_EQUAL(c.cmd.tag, HC_CONTROL);
    CU_ASSERT_EQUAL(c.cmd.control, HC_CTL_CLEAR_SITES);
    parse_ok("eof", &c);
    CU_ASSERT_EQUAL(c.cmd.tag, HC_EOF);
    parse_ok("quit", &c);
    CU_ASSERT_EQUAL(c.kind, CK_QUIT);
    parse_ok("sleep 250", &c);
    CU_ASSERT_EQUAL(c.kind, CK_SLEEP);
    CU_ASSERT_EQUAL(c.number, 250);
    CU_ASSERT_STRING_EQUAL(c.text, "sleep 250");
    parse_ok("wait   HEAP DUMP 2:  ", &c);
    CU_ASSERT_EQUAL(c.kind, CK_WAIT);
    CU_ASSERT_STRING_EQUAL(c.text, "HEAP DUMP 2:");
    parse_ok("wait-agents 3", &c);
    CU_ASSERT_EQUAL(c.kind, CK_WAIT_AGENTS);
    CU_ASSERT_EQUAL(c.number, 3);
}

static void test_cmd_errors(void)
{
    parse_bad("frob", "unknown command 'frob' (hprof-ctl help lists them)");
    parse_bad("dump now", "'dump' takes no arguments");
    parse_bad("@0 dump", "'@0': @ takes an agent number from 1");
    parse_bad("@4294967296 dump", "'@4294967296': @ takes an agent number from 1");
    parse_bad("@3", "no command after '@3'");
    parse_bad("@1 sleep 5", "sleep is a directive: it takes no @agent");
    parse_bad("@1 quit", "quit stops hprof-ctl: it takes no @agent");
    parse_bad("wait", "wait needs the TEXT to wait for");
    parse_bad("sleep -1", "sleep takes milliseconds: sleep MS");
    parse_bad("wait-agents 0", "wait-agents takes a number of agents from 1");
    parse_bad("wait-agents 1000001", "wait-agents takes a number of agents from 1");
    parse_bad("depth 65536", "usage: depth N, N from 0 to 65535");
    parse_bad("sites cutoff 1.5", "usage: sites [incremental] [by-alloc] [gc] [cutoff X], X from 0 to 1");
    parse_bad("samples gc", "usage: samples [cutoff X], X from 0 to 1");
    parse_bad("alloc on 3", "usage: alloc on|off");
    parse_bad("cpu on 0xg", "usage: cpu on|off [THREAD]: THREAD a thread serial (decimal), an "
                            "object id (0x...) or 0 for all");
    parse_bad("a b c d e f g h i j k l m n o p q", "too many words");
    char longline[CTL_LINE_MAX + 8];
    memset(longline, 'x', sizeof longline - 1);
    longline[sizeof longline - 1] = '\0';
    parse_bad(longline, "command too long");
}

static void test_cmd_trim(void)
{
    char a[] = "  \tgc \r\n", b[] = "   # a comment", c[] = " \t\n";
    CU_ASSERT_STRING_EQUAL(ctl_cmd_trim(a), "gc");
    CU_ASSERT_PTR_NULL(ctl_cmd_trim(b));
    CU_ASSERT_PTR_NULL(ctl_cmd_trim(c));
}

/* ------------------------------------------------------------ names */

static void utf8(ctl_names *n, uint64_t id, const char *s)
{
    ctl_names_put_utf8(n, id, (const uint8_t *)s, strlen(s));
}

static void test_names(void)
{
    ctl_names *n = ctl_names_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    char buf[CTL_NAME_MAX + 1], big[2 * CTL_NAME_MAX + 2];
    utf8(n, 5, "java/lang/Thread");
    utf8(n, 6, "run");
    utf8(n, 7, "a\tb\x7f");
    ctl_names_put_class(n, 9, 5);
    ctl_names_put_frame(n, 100, 6, 9);
    ctl_names_put_trace(n, 3, 100);
    CU_ASSERT_STRING_EQUAL(ctl_names_class(n, 9, buf, sizeof buf), "java.lang.Thread");
    CU_ASSERT_PTR_NULL(ctl_names_class(n, 10, buf, sizeof buf));
    CU_ASSERT_STRING_EQUAL(ctl_names_utf8(n, 5, 0, buf, sizeof buf, "?"), "java/lang/Thread");
    CU_ASSERT_STRING_EQUAL(ctl_names_utf8(n, 7, 0, buf, sizeof buf, "?"), "a?b?");
    CU_ASSERT_STRING_EQUAL(ctl_names_utf8(n, 8, 0, buf, sizeof buf, "?"), "?");
    CU_ASSERT_STRING_EQUAL(ctl_names_trace_top(n, 3, big, sizeof big), "java.lang.Thread.run");
    CU_ASSERT_STRING_EQUAL(ctl_names_trace_top(n, 4, big, sizeof big), "?");
    /* an id defined again, shorter then longer */
    utf8(n, 6, "go");
    CU_ASSERT_STRING_EQUAL(ctl_names_trace_top(n, 3, big, sizeof big), "java.lang.Thread.go");
    utf8(n, 6, "compute");
    CU_ASSERT_STRING_EQUAL(ctl_names_trace_top(n, 3, big, sizeof big), "java.lang.Thread.compute");
    /* long names are kept up to CTL_NAME_MAX bytes */
    char *longname = malloc(CTL_NAME_MAX + 100);
    CU_ASSERT_PTR_NOT_NULL_FATAL(longname);
    memset(longname, 'n', CTL_NAME_MAX + 99);
    longname[CTL_NAME_MAX + 99] = '\0';
    utf8(n, 11, longname);
    CU_ASSERT_EQUAL(strlen(ctl_names_utf8(n, 11, 0, buf, sizeof buf, "?")), CTL_NAME_MAX);
    free(longname);
    uint64_t v = 0;
    CU_ASSERT_EQUAL(ctl_names_thread_obj(n, 1, &v), 0);
    ctl_names_put_thread_obj(n, 1, 0x7c0);
    ctl_names_put_thread_name(n, 1, 6);
    CU_ASSERT_EQUAL(ctl_names_thread_obj(n, 1, &v), 1);
    CU_ASSERT_EQUAL(v, 0x7c0);
    CU_ASSERT_EQUAL(ctl_names_thread_name(n, 1, &v), 1);
    CU_ASSERT_EQUAL(v, 6);
    ctl_names_free(n);
}

/* ------------------------------------------------------------ numbers */

static void test_numbers(void)
{
    uint64_t v = 0;
    float f = -1;
    CU_ASSERT_EQUAL(ctl_util_parse_u64("18446744073709551615", UINT64_MAX, &v), 0);
    CU_ASSERT_EQUAL(v, UINT64_MAX);
    CU_ASSERT_EQUAL(ctl_util_parse_u64("18446744073709551616", UINT64_MAX, &v), -1);
    CU_ASSERT_EQUAL(ctl_util_parse_u64("65535", 65535, &v), 0);
    CU_ASSERT_EQUAL(v, 65535);
    CU_ASSERT_EQUAL(ctl_util_parse_u64("65536", 65535, &v), -1);
    CU_ASSERT_EQUAL(ctl_util_parse_u64("+1", 10, &v), -1);
    CU_ASSERT_EQUAL(ctl_util_parse_u64("", 10, &v), -1);
    CU_ASSERT_EQUAL(ctl_util_parse_hex("ffffffffffffffff", &v), 0);
    CU_ASSERT_EQUAL(v, UINT64_MAX);
    CU_ASSERT_EQUAL(ctl_util_parse_hex("1ffffffffffffffff", &v), -1);
    CU_ASSERT_EQUAL(ctl_util_parse_hex("aB9", &v), 0);
    CU_ASSERT_EQUAL(v, 0xab9);
    CU_ASSERT_EQUAL(ctl_util_parse_hex("x1", &v), -1);
    CU_ASSERT_EQUAL(ctl_util_parse_cutoff("0", &f), 0);
    CU_ASSERT_EQUAL(f, 0.0f);
    CU_ASSERT_EQUAL(ctl_util_parse_cutoff("1.0", &f), 0);
    CU_ASSERT_EQUAL(f, 1.0f);
    CU_ASSERT_EQUAL(ctl_util_parse_cutoff("1.01", &f), -1);
    CU_ASSERT_EQUAL(ctl_util_parse_cutoff("-0.1", &f), -1);
    CU_ASSERT_EQUAL(ctl_util_parse_cutoff("nan", &f), -1);
    CU_ASSERT_EQUAL(ctl_util_parse_cutoff("0.5x", &f), -1);
    char clean[8];
    ctl_util_clean(clean, sizeof clean, "a/b\nc/d/e/f", 11, 1);
    CU_ASSERT_STRING_EQUAL(clean, "a.b?c.d");
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("ctl", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "scan: any pieces, same counts", test_scan_any_pieces) ||
        !CU_add_test(s, "scan: cut and bad sub-records", test_scan_cut_and_bad) ||
        !CU_add_test(s, "cmd: commands and directives", test_cmd_commands) ||
        !CU_add_test(s, "cmd: the error of each bad line", test_cmd_errors) ||
        !CU_add_test(s, "cmd: trim", test_cmd_trim) ||
        !CU_add_test(s, "names", test_names) ||
        !CU_add_test(s, "numbers", test_numbers))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
