/*
 * test_hdlate.c: the heap dump's log of late objects (agent/hdlate.c): what
 * the walk logs comes back object by object, in order, across growth of
 * every array; needed classes are a set.
 */
#include <string.h>

#include "hdlate.h"
#include "testutil.h"

/* 3000 objects of 0..4 values each, every third a primitive array: each
 * object's values and elements are its own, whatever the arrays grew by */
static void test_log_round_trip(void)
{
    hl_log l;
    hl_init(&l);
    for (uint32_t k = 0; k < 3000; k++) {
        CU_ASSERT_EQUAL_FATAL(hl_begin(&l, 1000 + k, 7 + (k % 5), k % 3 ? -1 : (int64_t)k, k % 7 == 0), 0);
        for (uint32_t v = 0; v < k % 5; v++)
            CU_ASSERT_EQUAL_FATAL(hl_value(&l, (uint8_t)(v + 1), k * 10 + v, 2, (uint64_t)k << 8 | v), 0);
        if (k % 3 == 0) {
            uint8_t b[16];
            memset(b, (int)(k & 0xFF), sizeof b);
            CU_ASSERT_EQUAL_FATAL(hl_elements(&l, 8, b, k % 17), 0);
        }
    }
    CU_ASSERT_EQUAL(l.nobj, 3000);
    CU_ASSERT_FALSE(l.oom);
    for (uint32_t k = 0; k < 3000; k++) {
        hl_obj *o = &l.objs[k];
        CU_ASSERT_EQUAL(o->tag, 1000 + k);
        CU_ASSERT_EQUAL(o->class_tag, 7 + (k % 5));
        CU_ASSERT_EQUAL(o->length, k % 3 ? -1 : (int64_t)k);
        CU_ASSERT_EQUAL(o->is_class, k % 7 == 0);
        CU_ASSERT_EQUAL_FATAL(o->n, k % 5);
        for (uint32_t v = 0; v < o->n; v++) {
            hl_val *x = &l.vals[o->first + v];
            CU_ASSERT_EQUAL(x->what, v + 1);
            CU_ASSERT_EQUAL(x->index, k * 10 + v);
            CU_ASSERT_EQUAL(x->bits, (uint64_t)k << 8 | v);
        }
        if (k % 3 == 0) {
            CU_ASSERT_EQUAL(o->prim_type, 8);
            CU_ASSERT_EQUAL_FATAL(o->ndata, k % 17);
            for (size_t i = 0; i < o->ndata; i++)
                CU_ASSERT_EQUAL(l.bytes[o->data + i], k & 0xFF);
        } else {
            CU_ASSERT_EQUAL(o->ndata, 0);
        }
    }
    hl_cleanup(&l);
}

/* a value or elements before any object are refused; needs are a set */
static void test_log_edges(void)
{
    hl_log l;
    hl_init(&l);
    CU_ASSERT_EQUAL(hl_value(&l, 1, 0, 2, 0), -1);
    CU_ASSERT_EQUAL(hl_elements(&l, 8, "x", 1), -1);
    for (int r = 0; r < 3; r++)
        for (uint32_t i = 1; i <= 100; i++)
            CU_ASSERT_EQUAL(hl_need(&l, i), 0);
    CU_ASSERT_EQUAL(l.need.count, 100);
    CU_ASSERT_PTR_NOT_NULL(hu_map_get(&l.need, 42));
    CU_ASSERT_PTR_NULL(hu_map_get(&l.need, 101));
    hl_cleanup(&l);
}

static int hdlate_suites(void)
{
    CU_pSuite s = CU_add_suite("hdlate", NULL, NULL);
    if (!s || !CU_add_test(s, "objects, values and elements round trip", test_log_round_trip) ||
        !CU_add_test(s, "edges: no object yet, needs are a set", test_log_edges))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(hdlate_suites);
}
