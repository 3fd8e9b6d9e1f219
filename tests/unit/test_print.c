/*
 * test_print.c: the pure helpers of tools/print.c (hprof sites/print/
 * samples/collapsed), without a file:
 *
 *  - print_java_name: VM names (java/lang/String, [I, [[Ljava/lang/String;),
 *    signatures (Ljava/lang/Object;), names already in Java form (the
 *    original agent's dotted names, int[]), malformed descriptors kept as
 *    written, and snprintf-style truncation;
 *  - print_line_text: the TRACE line field for real lines and the three
 *    special values;
 *  - print_heap_dumps (the agent's format=a heap dumps) on dumps made in
 *    memory: the exact ROOT/CLS/OBJ/ARR lines, nothing but the dump (no
 *    header, no THREAD or SITES lines, TRACE blocks only on request), one
 *    section per dump, and a truncated input still ending its section with
 *    HEAP DUMP END and reporting the problem; print_heap_dumps_cut: the
 *    HEAP DUMP INCOMPLETE line, with its reason and the section's counts,
 *    just before HEAP DUMP END;
 *  - sc_chain_lengths (the bound of the walk up an instance's super chain):
 *    plain chains, a class its own super, 2- and 3-cycles, chains leading
 *    into a cycle, supers out of range.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/hprof_format.h"

#include "objsize.h"
#include "print.h"
#include "superchain.h"

static void expect_name(const char *vm, const char *want)
{
    char out[256];
    size_t n = print_java_name(vm, strlen(vm), out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, want);
    CU_ASSERT_EQUAL(n, strlen(want));
}

static void expect_chains(const size_t *sup, size_t n, const uint32_t *want)
{
    uint32_t len[16];
    CU_ASSERT_EQUAL_FATAL(sc_chain_lengths(sup, n, len), 0);
    for (size_t i = 0; i < n; i++) {
        if (len[i] != want[i])
            fprintf(stderr, "\n  class %zu: chain length %u, expected %u\n", i, len[i], want[i]);
        CU_ASSERT_EQUAL(len[i], want[i]);
    }
}

static void test_super_chains(void)
{
    const size_t N = SC_NONE;
    /* 0 <- 1 <- 2, and 3 alone */
    expect_chains((const size_t[]){N, 0, 1, N}, 4, (const uint32_t[]){1, 2, 3, 1});
    /* 0 its own super; 1 leads into it */
    expect_chains((const size_t[]){0, 0}, 2, (const uint32_t[]){1, 2});
    /* 0 -> 1 -> 0; 2 -> 3 -> 0 (a tail of two into the cycle) */
    expect_chains((const size_t[]){1, 0, 3, 0}, 4, (const uint32_t[]){2, 2, 4, 3});
    /* a walk that starts in a tail: 0 -> 1 -> 2 -> 3 -> 1 */
    expect_chains((const size_t[]){1, 2, 3, 1}, 4, (const uint32_t[]){4, 3, 3, 3});
    /* two 3-cycles, and a super index out of range ends the chain */
    expect_chains((const size_t[]){1, 2, 0, 4, 5, 3, 99}, 7, (const uint32_t[]){3, 3, 3, 3, 3, 3, 1});
    CU_ASSERT_EQUAL(sc_chain_lengths(NULL, 0, NULL), 0);
}

static void test_vm_names(void)
{
    expect_name("java/lang/String", "java.lang.String");
    expect_name("java/util/Map$Entry", "java.util.Map$Entry");
    expect_name("Foo", "Foo");
    expect_name("[I", "int[]");
    expect_name("[Z", "boolean[]");
    expect_name("[B", "byte[]");
    expect_name("[C", "char[]");
    expect_name("[S", "short[]");
    expect_name("[J", "long[]");
    expect_name("[F", "float[]");
    expect_name("[D", "double[]");
    expect_name("[[I", "int[][]");
    expect_name("[Ljava/lang/String;", "java.lang.String[]");
    expect_name("[[Ljava/lang/String;", "java.lang.String[][]");
    expect_name("[[[Lcom/example/fixture/Node;", "com.example.fixture.Node[][][]");
    expect_name("Ljava/lang/Object;", "java.lang.Object");
}

static void test_java_names_kept(void)
{
    /* the original agent writes LOAD CLASS names already converted */
    expect_name("java.lang.String", "java.lang.String");
    expect_name("int[]", "int[]");
    expect_name("java.lang.String[][]", "java.lang.String[][]");
    expect_name("java.util.Collections$SynchronizedMap", "java.util.Collections$SynchronizedMap");
    /* a one-letter class name is not a primitive outside an array */
    expect_name("I", "I");
    expect_name("", "");
}

static void test_malformed(void)
{
    /* no valid element after the brackets: kept as written, slashes dotted */
    expect_name("[", "[");
    expect_name("[Q", "[Q");
    expect_name("[Ljava/lang/String", "[Ljava.lang.String");
    expect_name("[II", "[II");
    expect_name("L;", "");
}

static void test_truncation(void)
{
    char out[8];
    memset(out, 'x', sizeof out);
    size_t n = print_java_name("[Ljava/lang/String;", 19, out, sizeof out);
    CU_ASSERT_EQUAL(n, strlen("java.lang.String[]"));
    CU_ASSERT_STRING_EQUAL(out, "java.la");
    memset(out, 'x', sizeof out);
    n = print_java_name("[[I", 3, out, 1);
    CU_ASSERT_EQUAL(n, 7u);
    CU_ASSERT_EQUAL(out[0], 0);
    CU_ASSERT_EQUAL(out[1], 'x');
    /* cap 0 writes nothing at all */
    n = print_java_name("[[I", 3, NULL, 0);
    CU_ASSERT_EQUAL(n, 7u);
    /* not NUL-terminated input: only `len` bytes count */
    char big[64];
    n = print_java_name("java/lang/StringBuilder", 16, big, sizeof big);
    CU_ASSERT_EQUAL(n, 16u);
    CU_ASSERT_STRING_EQUAL(big, "java.lang.String");
}

/* The agent's notes before a binary ALLOC SITES (hprof_format.h): kept,
 * parsed, and applied to the rows by their index in the record. */
static void test_site_notes(void)
{
    print_site_notes n;
    memset(&n, 0, sizeof n);
    static const char other[] = "java/lang/String";
    CU_ASSERT_EQUAL(print_notes_take(&n, other, strlen(other)), 0);
    static const char note[] = HPROF_SITES_NOTE "live not exact: why";
    CU_ASSERT_EQUAL(print_notes_take(&n, note, strlen(note)), 1);
    CU_ASSERT_STRING_EQUAL(n.note, "live not exact: why");
    static const char samp[] = HPROF_SITES_SAMPLES "524288 3/1 1/0";
    CU_ASSERT_EQUAL(print_notes_take(&n, samp, strlen(samp)), 1);
    CU_ASSERT_EQUAL(n.sample_bytes, 524288);
    CU_ASSERT_EQUAL_FATAL(n.nsamp, 2);
    CU_ASSERT_EQUAL(n.samp[0], 3);
    CU_ASSERT_EQUAL(n.samp[1], 1);
    CU_ASSERT_EQUAL(n.samp[2], 1);
    CU_ASSERT_EQUAL(n.samp[3], 0);
    /* row 1 allocated 5 033 174 400 bytes, capped at 4 294 967 295 */
    static const char u8[] = HPROF_SITES_U8 "8388624 1 1:8388624,1,5033174400,600";
    CU_ASSERT_EQUAL(print_notes_take(&n, u8, strlen(u8)), 1);
    CU_ASSERT(n.has_u8);
    CU_ASSERT_EQUAL(n.live_total[0], 8388624);
    uint64_t v[4] = {8388624, 1, HPROF_U4_MAX, 600};
    CU_ASSERT_EQUAL(print_notes_row(&n, 1, v), 1);
    CU_ASSERT_EQUAL(v[2], 5033174400ULL);
    uint64_t w[4] = {0, 0, HPROF_U4_MAX, 7}; /* no true value for row 0: marked */
    CU_ASSERT_EQUAL(print_notes_row(&n, 0, w), 2);
    CU_ASSERT_EQUAL(w[2], HPROF_U4_MAX);
    print_notes_clear(&n);
    CU_ASSERT_PTR_NULL(n.note);
    CU_ASSERT_EQUAL(n.nsamp, 0);
    uint64_t x[4] = {0, 0, HPROF_U4_MAX, 7};
    CU_ASSERT_EQUAL(print_notes_row(&n, 1, x), 2);
}

/* HotSpot's sizes with compressed oops (objsize.h): references count 4
 * bytes up the whole super chain, arrays have a 16-byte header. */
static void test_objsize(void)
{
    objsize_classes t;
    objsize_init(&t);
    /* Base { Object a; } <- Sub { Object b; long c; }, 8-byte ids */
    uint8_t fbase[9] = {0, 0, 0, 0, 0, 0, 0, 1, HPROF_TYPE_OBJECT};
    uint8_t fsub[18] = {0, 0, 0, 0, 0, 0, 0, 2, HPROF_TYPE_OBJECT,
                        0, 0, 0, 0, 0, 0, 0, 3, HPROF_TYPE_LONG};
    hr_sub base = {.tag = HPROF_GC_CLASS_DUMP};
    base.u.cls.class_id = 0x100;
    base.u.cls.nfields = 1;
    base.u.cls.fields = fbase;
    hr_sub sub = {.tag = HPROF_GC_CLASS_DUMP};
    sub.u.cls.class_id = 0x200;
    sub.u.cls.super_id = 0x100;
    sub.u.cls.nfields = 2;
    sub.u.cls.fields = fsub;
    CU_ASSERT_EQUAL(objsize_add_class(&t, &sub, 8), 0); /* a sub before its super */
    CU_ASSERT_EQUAL(objsize_add_class(&t, &base, 8), 0);
    CU_ASSERT_EQUAL(objsize_finish(&t), 0);
    /* Sub: fields 8 + 8 + 8 in the dump, 4 + 4 + 8 in the heap: 12 + 16 -> 32 */
    CU_ASSERT_EQUAL(objsize_instance(&t, 0x200, 24, 8), 32);
    CU_ASSERT_EQUAL(objsize_instance(&t, 0x100, 8, 8), 16);  /* 12 + 4 */
    CU_ASSERT_EQUAL(objsize_instance(&t, 0x200, 16, 4), 32); /* 4-byte ids: as is */
    CU_ASSERT_EQUAL(objsize_instance(&t, 0x999, 0, 8), 16);  /* unknown class, Object-like */
    hr_sub arr = {.tag = HPROF_GC_PRIM_ARRAY_DUMP};
    arr.u.parr.type = HPROF_TYPE_INT;
    arr.u.parr.n = 100;
    CU_ASSERT_EQUAL(objsize_of(&t, &arr, 8), 416); /* SITES' int[100] */
    hr_sub oarr = {.tag = HPROF_GC_OBJ_ARRAY_DUMP};
    oarr.u.oarr.n = 5000;
    CU_ASSERT_EQUAL(objsize_of(&t, &oarr, 8), 20016); /* SITES' Item[5000] */
    objsize_cleanup(&t);
}

static void test_line_text(void)
{
    char buf[16];
    CU_ASSERT_STRING_EQUAL(print_line_text(42, buf, sizeof buf), "42");
    CU_ASSERT_STRING_EQUAL(print_line_text(0, buf, sizeof buf), "0");
    CU_ASSERT_STRING_EQUAL(print_line_text(-1, buf, sizeof buf), "Unknown line");
    CU_ASSERT_STRING_EQUAL(print_line_text(-2, buf, sizeof buf), "Compiled method");
    CU_ASSERT_STRING_EQUAL(print_line_text(-3, buf, sizeof buf), "Native method");
    /* other negatives print as numbers, as the original's "%d" fallback */
    CU_ASSERT_STRING_EQUAL(print_line_text(-4, buf, sizeof buf), "-4");
    CU_ASSERT_STRING_EQUAL(print_line_text(2147483647, buf, sizeof buf), "2147483647");
}

/* ---- print_heap_dumps */

enum { N_OBJECT = 1, N_NODE, N_NODES, N_NEXT, N_VALUE, N_LONGNAME, N_ROOTS, N_MAIN };
#define C_OBJECT 0x100u
#define C_NODE 0x200u
#define C_NODES 0x300u

/* A file with `ndumps` heap dumps of the same small graph, and records the
 * heap text leaves out (a thread, a trace, sites). */
static uint8_t *heap_file(int ndumps, size_t *len)
{
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(8, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_utf8z(w, N_OBJECT, "java/lang/Object");
    hw_utf8z(w, N_NODE, "com/x/Node");
    hw_utf8z(w, N_NODES, "[Lcom/x/Node;");
    hw_utf8z(w, N_NEXT, "next");
    hw_utf8z(w, N_VALUE, "value");
    hw_utf8z(w, N_LONGNAME, "neighbour");
    hw_utf8z(w, N_ROOTS, "ROOTS");
    hw_utf8z(w, N_MAIN, "main");
    hw_load_class(w, 1, C_OBJECT, 300000, N_OBJECT);
    hw_load_class(w, 2, C_NODE, 300000, N_NODE);
    hw_load_class(w, 3, C_NODES, 300000, N_NODES);
    hw_trace(w, 300000, 0, 0, NULL);
    hw_trace(w, 300001, 200001, 0, NULL);
    hw_start_thread(w, 200001, 0x500, 300001, N_MAIN, 0, 0);
    for (int d = 0; d < ndumps; d++) {
        hw_heap_begin(w);
        hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, 0x500, 200001, 300001, 0);
        hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x1000, 0, 0, 1);
        hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, 0x1001, 200001, 2, 0);
        hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, C_NODE, 0, 0, 0);
        hw_class obj = {.class_id = C_OBJECT, .trace_serial = 300000};
        hw_class_dump(w, &obj);
        hw_field f[] = {{N_NEXT, HPROF_TYPE_OBJECT}, {N_VALUE, HPROF_TYPE_INT},
                        {N_LONGNAME, HPROF_TYPE_OBJECT}};
        hw_static_field st[] = {{N_ROOTS, {HPROF_TYPE_OBJECT, 0x2000}},
                                {N_VALUE, {HPROF_TYPE_INT, 7}}};
        hw_class node = {.class_id = C_NODE, .trace_serial = 300000, .super_id = C_OBJECT,
                         .loader_id = 0x77, .instance_size = 20, .nstatics = 2, .statics = st,
                         .nfields = 3, .fields = f};
        hw_class_dump(w, &node);
        hw_class nodes = {.class_id = C_NODES, .trace_serial = 300000, .super_id = C_OBJECT};
        hw_class_dump(w, &nodes);
        /* 0x1000: next = 0x1001, value 5, neighbour null; 0x1001: next
         * null, neighbour = 0x1000 (a name of 8 characters or more: one tab) */
        uint8_t v1[20] = {0, 0, 0, 0, 0, 0, 0x10, 0x01, 0, 0, 0, 5};
        uint8_t v2[20] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0};
        hw_instance_dump(w, 0x1000, 300001, C_NODE, v1, sizeof v1);
        hw_instance_dump(w, 0x1001, 300000, C_NODE, v2, sizeof v2);
        hprof_id el[] = {0x1000, 0, 0x1001, 0};
        hw_obj_array_dump(w, 0x2000, 300000, C_NODES, 4, el);
        int32_t ints[3] = {1, 2, 3};
        hw_prim_array_dump(w, 0x3000, 300000, HPROF_TYPE_INT, 3, ints);
        hw_heap_end(w);
    }
    hw_alloc_site site = {.class_serial = 2, .trace_serial = 300001, .live_bytes = 40,
                          .live_instances = 2, .alloc_bytes = 40, .alloc_instances = 2};
    hw_alloc_sites_head h = {.total_live_bytes = 40, .total_live_instances = 2,
                             .total_alloc_bytes = 40, .total_alloc_instances = 2};
    hw_alloc_sites(w, &h, &site, 1);
    CU_ASSERT_EQUAL_FATAL(hw_writer_close(w, NULL, 0), 0);
    uint8_t *data = tu_sink_copy(sink, len);
    hw_sink_free(sink);
    return data;
}

/* Renders data[0..len) with print_heap_dumps; returns the text (malloc'ed)
 * and the status in *rc, the message in err. */
static char *heap_text(const uint8_t *data, size_t len, unsigned flags, int *rc, char *err,
                       size_t errcap)
{
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    hr_source *src = hr_source_memory(data, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    *rc = print_heap_dumps(src, f, flags, err, errcap);
    hr_source_close(src);
    fclose(f);
    return text;
}

/* The text of one dump of heap_file, after its BEGIN line. Sizes are
 * HotSpot's with compressed oops (tools/objsize.h): Node (2 references and
 * an int) 12 + 12 = 24, Node[4] 16 + 4 * 4 = 32, int[3] 16 + 12 -> 32. */
static const char heap_body[] =
    "ROOT 500 (kind=<thread>, id=200001, trace=300001)\n"
    "ROOT 1000 (kind=<JNI global ref>, id=1, trace=0)\n"
    "ROOT 1001 (kind=<Java stack>, thread=200001, frame=2)\n"
    "ROOT 200 (kind=<system class>, name=com.x.Node)\n"
    "CLS 100 (name=java.lang.Object, trace=300000)\n"
    "CLS 200 (name=com.x.Node, trace=300000)\n"
    "\tsuper\t\t100\n"
    "\tloader\t\t77\n"
    "\tstatic ROOTS\t2000\n"
    "CLS 300 (name=com.x.Node[], trace=300000)\n"
    "\tsuper\t\t100\n"
    "OBJ 1000 (sz=24, trace=300001, class=com.x.Node@200)\n"
    "\tnext\t\t1001\n"
    "OBJ 1001 (sz=24, trace=300000, class=com.x.Node@200)\n"
    "\tneighbour\t1000\n"
    "ARR 2000 (sz=32, trace=300000, nelems=4, elem type=com.x.Node[]@300)\n"
    "\t[0]\t\t1000\n"
    "\t[2]\t\t1001\n"
    "ARR 3000 (sz=32, trace=300000, nelems=3, elem type=int[])\n"
    "HEAP DUMP END\n";

/* Checks one section at *p: its BEGIN line (4 objects, 112 bytes) and body;
 * advances *p past it. */
static void expect_section(const char **p)
{
    static const char begin[] = "HEAP DUMP BEGIN (4 objects, 112 bytes) ";
    CU_ASSERT_EQUAL_FATAL(strncmp(*p, begin, strlen(begin)), 0);
    const char *nl = strchr(*p, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
    CU_ASSERT_EQUAL_FATAL(strncmp(nl + 1, heap_body, strlen(heap_body)), 0);
    *p = nl + 1 + strlen(heap_body);
}

static void test_heap_dumps(void)
{
    size_t len;
    uint8_t *data = heap_file(1, &len);
    char err[128] = "x";
    int rc;
    char *text = heap_text(data, len, 0, &rc, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(err, "");
    const char *p = text;
    expect_section(&p);
    CU_ASSERT_STRING_EQUAL(p, ""); /* nothing else: no TRACE, THREAD, SITES */
    free(text);
    /* with the traces: both blocks, before the dump */
    text = heap_text(data, len, PRINT_HEAP_TRACES, &rc, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    static const char traces[] = "TRACE 300000:\n\t<empty>\nTRACE 300001: (thread=200001)\n\t<empty>\n";
    CU_ASSERT_EQUAL_FATAL(strncmp(text, traces, strlen(traces)), 0);
    p = text + strlen(traces);
    expect_section(&p);
    CU_ASSERT_STRING_EQUAL(p, "");
    free(text);
    free(data);
}

/* print_heap_dumps_cut: the reason a dump is incomplete, with the section's
 * counts, on the line before its HEAP DUMP END (the agent's format=a dump
 * whose temporary file failed), whole or cut inside the segment. */
static void test_heap_dumps_cut(void)
{
    size_t len;
    uint8_t *data = heap_file(1, &len);
    static const char why[] = "writing the temporary file in /tmp failed: No space left on device";
    static const char line[] =
        "HEAP DUMP INCOMPLETE: writing the temporary file in /tmp failed: No space left on "
        "device; this section holds only the 4 objects (112 bytes) written before that\n"
        "HEAP DUMP END\n";
    for (int cut = 0; cut < 2; cut++) {
        char *text = NULL;
        size_t tlen = 0;
        FILE *f = open_memstream(&text, &tlen);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        hr_source *src = hr_source_memory(data, cut ? len - 80 : len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(src);
        char err[128];
        int rc = print_heap_dumps_cut(src, f, 0, why, err, sizeof err);
        hr_source_close(src);
        fclose(f);
        CU_ASSERT_EQUAL(rc, cut ? -1 : 0);
        size_t n = strlen(text);
        CU_ASSERT_FATAL(n > strlen(line));
        char *inc = strstr(text, "HEAP DUMP INCOMPLETE:");
        CU_ASSERT_PTR_NOT_NULL_FATAL(inc);
        CU_ASSERT_PTR_NULL(strstr(inc + 1, "HEAP DUMP INCOMPLETE:")); /* once */
        if (cut) { /* a prefix: the line, then the END, last */
            CU_ASSERT_EQUAL(strncmp(inc, line, strlen("HEAP DUMP INCOMPLETE: writing")), 0);
            CU_ASSERT_STRING_EQUAL(strchr(inc, '\n') + 1, "HEAP DUMP END\n");
        } else {
            CU_ASSERT_STRING_EQUAL(text + n - strlen(line), line);
            /* without that line, the text is the complete section */
            memmove(inc, strchr(inc, '\n') + 1, strlen(strchr(inc, '\n') + 1) + 1);
            const char *p = text;
            expect_section(&p);
            CU_ASSERT_STRING_EQUAL(p, "");
        }
        free(text);
    }
    free(data);
}

static void test_heap_dumps_several(void)
{
    size_t len;
    uint8_t *data = heap_file(3, &len);
    char err[128];
    int rc;
    char *text = heap_text(data, len, 0, &rc, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    const char *p = text;
    for (int i = 0; i < 3; i++)
        expect_section(&p);
    CU_ASSERT_STRING_EQUAL(p, "");
    free(text);
    free(data);
}

static void test_heap_dumps_truncated(void)
{
    size_t len;
    uint8_t *data = heap_file(1, &len);
    /* cut inside the segment (the END and the sites are gone too) */
    char err[128] = "";
    int rc;
    char *text = heap_text(data, len - 80, 0, &rc, err, sizeof err);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT(err[0] != 0);
    CU_ASSERT_EQUAL(strncmp(text, "HEAP DUMP BEGIN (", 17), 0);
    size_t n = strlen(text);
    static const char end[] = "\nHEAP DUMP END\n";
    CU_ASSERT(n > strlen(end) && strcmp(text + n - strlen(end), end) == 0);
    CU_ASSERT_PTR_NULL(strstr(text + 1, "HEAP DUMP BEGIN"));
    free(text);
    /* not an HPROF file: nothing written, a message */
    static const char junk[] = "just some text, no header here";
    err[0] = 0;
    text = heap_text((const uint8_t *)junk, sizeof junk - 1, 0, &rc, err, sizeof err);
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT(err[0] != 0);
    CU_ASSERT_STRING_EQUAL(text, "");
    free(text);
    /* no message buffer: allowed */
    text = heap_text(data, len - 80, 0, &rc, NULL, 0);
    CU_ASSERT_EQUAL(rc, -1);
    free(text);
    free(data);
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("print", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "VM names", test_vm_names) ||
        !CU_add_test(s, "super chain lengths", test_super_chains) ||
        !CU_add_test(s, "Java names kept", test_java_names_kept) ||
        !CU_add_test(s, "malformed descriptors", test_malformed) ||
        !CU_add_test(s, "truncation", test_truncation) ||
        !CU_add_test(s, "line text", test_line_text) ||
        !CU_add_test(s, "notes before ALLOC SITES", test_site_notes) ||
        !CU_add_test(s, "HotSpot's object sizes", test_objsize) ||
        !CU_add_test(s, "heap dumps as text", test_heap_dumps) ||
        !CU_add_test(s, "several heap dumps", test_heap_dumps_several) ||
        !CU_add_test(s, "truncated heap dump", test_heap_dumps_truncated) ||
        !CU_add_test(s, "a heap dump said to be incomplete", test_heap_dumps_cut))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
