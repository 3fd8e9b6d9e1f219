/*
 * test_convert_limits.c: libhprofconvert's instance layout limit, with the
 * library built again with CV_LAYOUT_MAX = 0xFFFFF (1 MiB - 1) so a file
 * of a few MB reaches it (tests/unit/CMakeLists.txt). The production
 * limit is HPROF_U4_MAX, which takes a chain of ~8 200 classes of 65 535
 * long fields (a 2.7 GB file); the sums are 64-bit so they cannot wrap.
 *
 * Ids 4 -> 8. A: 65 535 longs, B extends A: 65 535 longs, C extends B: one
 * object field (in 1 048 564 value bytes, out 1 048 568); E extends C: one
 * int (in 1 048 568, out 1 048 572): both convert. D extends C: two ints
 * (in 1 048 572, out 1 048 576 > the limit): refused with its offset,
 * naming the class where the walk up the chain passed the limit (A).
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/convert.h"

#define NLONG 65535u
#define C_IN (2u * NLONG * 8u + 4u)

/* The file: 3 classes of the chain, E and D, then one instance of `cls`
 * holding `nvals` zero value bytes. */
static uint8_t *build(hprof_id cls, uint32_t nvals, size_t *len)
{
    hw_options o;
    hw_options_init(&o);
    o.id_size = 4;
    o.clock = HW_CLOCK_FIXED;
    hw_sink *s = hw_sink_memory(0);
    hw_writer *w = hw_writer_open(s, &o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_utf8z(w, 0x1, "f");
    hw_heap_begin(w);
    static hw_field longs[NLONG];
    for (unsigned i = 0; i < NLONG; i++)
        longs[i] = (hw_field){0x1, HPROF_TYPE_LONG};
    hw_field obj[1] = {{0x1, HPROF_TYPE_OBJECT}};
    hw_field ints[2] = {{0x1, HPROF_TYPE_INT}, {0x1, HPROF_TYPE_INT}};
    hw_class a = {.class_id = 0x100, .nfields = NLONG, .fields = longs};
    hw_class b = {.class_id = 0x200, .super_id = 0x100, .nfields = NLONG, .fields = longs};
    hw_class c = {.class_id = 0x300, .super_id = 0x200, .nfields = 1, .fields = obj};
    hw_class e = {.class_id = 0x500, .super_id = 0x300, .nfields = 1, .fields = ints};
    hw_class d = {.class_id = 0x400, .super_id = 0x300, .nfields = 2, .fields = ints};
    CU_ASSERT_EQUAL(hw_class_dump(w, &a) | hw_class_dump(w, &b) | hw_class_dump(w, &c) |
                        hw_class_dump(w, &e) | hw_class_dump(w, &d), 0);
    uint8_t *vals = calloc(nvals, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(vals);
    CU_ASSERT_EQUAL(hw_instance_dump(w, 0x9000, 0, cls, vals, nvals), 0);
    free(vals);
    hw_heap_end(w);
    char msg[256];
    CU_ASSERT_EQUAL(hw_writer_close(w, msg, sizeof msg), 0);
    uint8_t *copy = tu_sink_copy(s, len);
    hw_sink_free(s);
    return copy;
}

/* Converts to id size 8: the status, the message in msg. */
static int to8(hprof_id cls, uint32_t nvals, char *msg, size_t msglen, size_t *inlen)
{
    size_t n;
    uint8_t *in = build(cls, nvals, &n);
    *inlen = n;
    convert_options o;
    convert_options_init(&o);
    o.id_size = 8;
    hw_sink *s = hw_sink_memory(0);
    msg[0] = 0;
    int rc = convert_memory(in, n, s, &o, NULL, msg, msglen);
    hw_sink_free(s);
    free(in);
    return rc;
}

static void test_under(void)
{
    char msg[512];
    size_t n;
    CU_ASSERT_EQUAL(to8(0x300, C_IN, msg, sizeof msg, &n), 0);
    CU_ASSERT_EQUAL(to8(0x500, C_IN + 4, msg, sizeof msg, &n), 0);
    if (msg[0])
        fprintf(stderr, "\n  %s\n", msg);
}

static void test_over(void)
{
    char msg[512];
    size_t n;
    CU_ASSERT_EQUAL(to8(0x400, C_IN + 8, msg, sizeof msg, &n), CONVERT_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, ": the fields of class 0x400 and its superclasses take more "
                                       "than 1048575 bytes (at class 0x100)"));
    /* the instance is the last sub-record, before HEAP DUMP END (9 bytes):
     * its offset is the file's size less those and its 17 + values */
    char want[64];
    snprintf(want, sizeof want, "offset %zu: ", n - 9 - (17 + C_IN + 8));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
    if (!strstr(msg, want) || !strstr(msg, "more than 1048575"))
        fprintf(stderr, "\n  %s\n", msg);
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("convert layout limit", NULL, NULL);
    if (!s || !CU_add_test(s, "chains under the limit convert", test_under) ||
        !CU_add_test(s, "a chain over it is refused", test_over))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
