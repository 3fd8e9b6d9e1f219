/*
 * test_iothread.c: the writer's I/O thread (hw_options.io_thread): the bytes
 * that reach the sink are exactly those of a synchronous writer, across many
 * buffer rotations, in segmented and single heap modes; a sink failure is
 * latched and reported by close, and what reached the sink is a prefix of
 * the synchronous output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define IOT_OBJECTS 40000

/* A dump of ~14 MiB: many 1 MiB buffers, so the ring wraps several times. */
static void iot_workload(hw_writer *w)
{
    static int32_t ints[4096];
    static uint8_t vals[24];
    for (unsigned i = 0; i < sizeof ints / sizeof ints[0]; i++)
        ints[i] = (int32_t)(i * 2654435761u);
    for (unsigned i = 0; i < sizeof vals; i++)
        vals[i] = (uint8_t)(i * 7);
    hw_utf8z(w, 1, "java/lang/Object");
    hw_utf8z(w, 2, "[I");
    hw_load_class(w, 1, 0x100, 1, 1);
    hw_load_class(w, 2, 0x200, 1, 2);
    hw_trace(w, 1, 0, 0, NULL);
    hw_heap_begin(w);
    hw_class c = {.class_id = 0x100, .trace_serial = 1, .instance_size = 24};
    hw_class_dump(w, &c);
    hw_class a = {.class_id = 0x200, .trace_serial = 1, .super_id = 0x100};
    hw_class_dump(w, &a);
    for (uint64_t i = 0; i < IOT_OBJECTS; i++) {
        hw_instance_dump(w, 0x10000 + 8 * i, 1, 0x100, vals, sizeof vals);
        if (i % 16 == 0)
            hw_prim_array_dump(w, 0x8000000 + 8 * i, 1, HPROF_TYPE_INT, 4096, ints);
    }
    hw_heap_end(w);
}

static uint8_t *iot_run(int io_thread, hw_heap_mode mode, size_t *len)
{
    hw_options o;
    hw_options_init(&o);
    o.clock = HW_CLOCK_FIXED;
    o.timestamp_ms = 1700000000000ULL;
    o.io_thread = io_thread;
    o.heap_mode = mode;
    hw_sink *s = hw_sink_memory(0);
    hw_writer *w = hw_writer_open(s, &o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    iot_workload(w);
    CU_ASSERT_EQUAL(hw_writer_close(w, NULL, 0), 0);
    uint8_t *copy = tu_sink_copy(s, len);
    hw_sink_free(s);
    return copy;
}

static void iot_same_bytes(hw_heap_mode mode)
{
    size_t n0 = 0, n1 = 0;
    uint8_t *sync = iot_run(0, mode, &n0);
    uint8_t *thr = iot_run(1, mode, &n1);
    CU_ASSERT(n0 > 8u * 1024 * 1024); /* several buffer rotations */
    CU_ASSERT_EQUAL(n0, n1);
    CU_ASSERT(n0 == n1 && memcmp(sync, thr, n0) == 0);
    free(sync);
    free(thr);
}

static void test_segmented_same_bytes(void)
{
    iot_same_bytes(HW_HEAP_SEGMENTED);
}

static void test_single_same_bytes(void)
{
    iot_same_bytes(HW_HEAP_SINGLE);
}

/* A sink that accepts `left` bytes, then fails with ENOSPC. */
typedef struct iot_sink {
    uint8_t *data;
    size_t len, left;
} iot_sink;

static int iot_write(void *ctx, const void *p, size_t n)
{
    iot_sink *s = ctx;
    if (n > s->left)
        return ENOSPC;
    memcpy(s->data + s->len, p, n);
    s->len += n;
    s->left -= n;
    return 0;
}

static void test_enospc_through_thread(void)
{
    size_t nref = 0;
    uint8_t *ref = iot_run(0, HW_HEAP_SEGMENTED, &nref);
    const size_t limits[] = {0, 31, 1000, 3u << 20, (5u << 20) + 17};
    for (unsigned k = 0; k < sizeof limits / sizeof limits[0]; k++) {
        iot_sink st = {.data = malloc(nref), .len = 0, .left = limits[k]};
        CU_ASSERT_PTR_NOT_NULL_FATAL(st.data);
        hw_options o;
        hw_options_init(&o);
        o.clock = HW_CLOCK_FIXED;
        o.timestamp_ms = 1700000000000ULL;
        o.io_thread = 1;
        hw_writer *w = hw_writer_open(hw_sink_custom(iot_write, NULL, &st), &o, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        iot_workload(w);
        char msg[256] = "";
        CU_ASSERT_EQUAL(hw_writer_close(w, msg, sizeof msg), ENOSPC);
        CU_ASSERT_PTR_NOT_NULL(strstr(msg, strerror(ENOSPC)));
        /* what reached the sink: whole buffers, a prefix of the reference */
        CU_ASSERT(st.len <= limits[k]);
        CU_ASSERT(memcmp(st.data, ref, st.len) == 0);
        free(st.data);
    }
    free(ref);
}

static int iot_suites(void)
{
    CU_pSuite s = CU_add_suite("io thread", NULL, NULL);
    if (!s || !CU_add_test(s, "segmented dump: same bytes as synchronous", test_segmented_same_bytes) ||
        !CU_add_test(s, "single 0x0C dump: same bytes as synchronous", test_single_same_bytes) ||
        !CU_add_test(s, "ENOSPC latched through the thread, prefix kept", test_enospc_through_thread))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(iot_suites);
}
