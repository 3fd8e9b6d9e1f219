/*
 * test_print.c: the pure helpers of tools/print.c (hprof sites/print/
 * samples/collapsed), without a file:
 *
 *  - print_java_name: VM names (java/lang/String, [I, [[Ljava/lang/String;),
 *    signatures (Ljava/lang/Object;), names already in Java form (the
 *    original agent's dotted names, int[]), malformed descriptors kept as
 *    written, and snprintf-style truncation;
 *  - print_line_text: the TRACE line field for real lines and the three
 *    special values.
 */
#include "testutil.h"

#include <string.h>

#include "print.h"

static void expect_name(const char *vm, const char *want)
{
    char out[256];
    size_t n = print_java_name(vm, strlen(vm), out, sizeof out);
    CU_ASSERT_STRING_EQUAL(out, want);
    CU_ASSERT_EQUAL(n, strlen(want));
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

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("print", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "VM names", test_vm_names) ||
        !CU_add_test(s, "Java names kept", test_java_names_kept) ||
        !CU_add_test(s, "malformed descriptors", test_malformed) ||
        !CU_add_test(s, "truncation", test_truncation) ||
        !CU_add_test(s, "line text", test_line_text))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
