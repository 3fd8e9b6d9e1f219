/*
 * test_normalize.c: norm_name (tools/normalize.h), the --normalize of the
 * views: every spelling of a hidden class's address becomes "+<hidden>",
 * the lambda counter goes, and nothing that is not a hidden-class suffix is
 * touched; the result is cut like snprintf's.
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "normalize.h"

static void tn_expect(const char *in, const char *want)
{
    char out[256];
    size_t n = norm_name(in, strlen(in), out, sizeof out);
    int ok = strcmp(out, want) == 0 && n == strlen(want);
    if (!ok)
        fprintf(stderr, "\n  norm_name(\"%s\") = \"%s\" (%zu), expected \"%s\"\n", in, out, n, want);
    CU_ASSERT(ok);
}

static void test_hidden_spellings(void)
{
    /* HotSpot's dumper and the agent (JDK 17 lambdas carry a counter) */
    tn_expect("app.Foo$$Lambda$153+0x00007fa5c4001234", "app.Foo$$Lambda+<hidden>");
    tn_expect("app/Foo$$Lambda$14+0x0000000800c03000", "app/Foo$$Lambda+<hidden>");
    /* JDK 21+: no counter */
    tn_expect("app.Foo$$Lambda+0x00007f0c1c00a218", "app.Foo$$Lambda+<hidden>");
    /* JVMTI's signature spelling and Class.getName's */
    tn_expect("app.Foo$$Lambda$153.0x00007fa9c4001234", "app.Foo$$Lambda+<hidden>");
    tn_expect("java.lang.invoke.LambdaForm$MH/0x0000000800c04400",
              "java.lang.invoke.LambdaForm$MH+<hidden>");
    /* hidden classes that are not lambdas keep their name */
    tn_expect("java.lang.invoke.LambdaForm$DMH+0x0000000800c01000",
              "java.lang.invoke.LambdaForm$DMH+<hidden>");
    /* arrays of them, and a frame's text */
    tn_expect("app.Foo$$Lambda$2+0x0000000800c03000[]", "app.Foo$$Lambda+<hidden>[]");
    tn_expect("[Lapp/Foo$$Lambda$2+0x0000000800c03000;", "[Lapp/Foo$$Lambda+<hidden>;");
    tn_expect("app.Foo$$Lambda$7+0x0000000800c03000.run(Unknown Source)",
              "app.Foo$$Lambda+<hidden>.run(Unknown Source)");
    /* JDK 8: a VM anonymous class is named with its identity hash in decimal
     * (the original agent's text and Class.getName: "Main$$Lambda$1/791452441") */
    tn_expect("app.Main$$Lambda$1/791452441.run", "app.Main$$Lambda+<hidden>.run");
    tn_expect("java.lang.invoke.LambdaForm$MH/1283928880.invokeExact_MT",
              "java.lang.invoke.LambdaForm$MH+<hidden>.invokeExact_MT");
    tn_expect("app/Main$$Lambda$1/791452441", "app/Main$$Lambda+<hidden>");
    /* ... and in Java spelling, where the '/' became a '.' */
    tn_expect("app.Main$$Lambda$1.791452441.run", "app.Main$$Lambda+<hidden>.run");
    /* two in one collapsed stack */
    tn_expect("A$$Lambda$1+0x1.run;B$$Lambda$22+0x2.get", "A$$Lambda+<hidden>.run;B$$Lambda+<hidden>.get");
}

static void test_untouched(void)
{
    const char *same[] = {
        "java.lang.String", "int[]", "[I", "app.Foo$$Lambda$153", /* no address: a real name */
        "app.Foo$1", "app.Foo$$Lambda", "a.b0x1f.C", /* 0x not after a separator */
        "app.Foo+0xzz", "app.Foo+0x12g", /* not hex to the end of the identifier */
        "app.Foo+0x", "", "x$$Lambda$", "x$$Lambda$12.run",
        "a/b/C", "a/1b", "a.b/", "a/12x", "a.1b", "a.12x.run", /* digits not to the end of the identifier */
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        tn_expect(same[i], same[i]);
}

static void test_cut(void)
{
    const char *in = "app.Foo$$Lambda$153+0x00007fa5c4001234";
    const char *want = "app.Foo$$Lambda+<hidden>";
    char out[8];
    size_t n = norm_name(in, strlen(in), out, sizeof out);
    CU_ASSERT_EQUAL(n, strlen(want));
    CU_ASSERT_STRING_EQUAL(out, "app.Foo");
    char big[64];
    memset(big, 'x', sizeof big);
    CU_ASSERT_EQUAL(norm_name(in, strlen(in), big, 0), strlen(want));
    CU_ASSERT_EQUAL(big[0], 'x'); /* cap 0: nothing written */
    /* not NUL-terminated input: only len bytes count */
    CU_ASSERT_EQUAL(norm_name("ab+0x1fZZZ", 6, big, sizeof big), strlen("ab+<hidden>"));
    CU_ASSERT_STRING_EQUAL(big, "ab+<hidden>");
}

static void test_dup(void)
{
    size_t n = 0;
    char *s = norm_dup("java.lang.invoke.LambdaForm$MH/0x0000000800c04400[]", 51, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_STRING_EQUAL(s, "java.lang.invoke.LambdaForm$MH+<hidden>[]");
    CU_ASSERT_EQUAL(n, strlen(s));
    free(s);
}

static int tn_suites(void)
{
    CU_pSuite s = CU_add_suite("normalize", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "hidden_spellings", test_hidden_spellings) ||
        !CU_add_test(s, "untouched", test_untouched) || !CU_add_test(s, "cut", test_cut) ||
        !CU_add_test(s, "dup", test_dup))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(tn_suites);
}
