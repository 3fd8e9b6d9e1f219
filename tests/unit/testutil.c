/*
 * testutil.c: the CUnit runner wrapper and memory-writer helpers.
 */
#include "testutil.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tu_main(int (*add_suites)(void))
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    if (add_suites() != 0) {
        fprintf(stderr, "test registration failed: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 2;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    unsigned ran = CU_get_number_of_tests_run();
    unsigned tfailed = CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    if (CU_get_error() != CUE_SUCCESS)
        return 2;
    return (failed == 0 && tfailed == 0 && ran > 0) ? 0 : 1;
}

hw_writer *tu_mem_writer(unsigned id_size, hw_sink **sink)
{
    hw_options o;
    hw_options_init(&o);
    o.id_size = id_size;
    o.clock = HW_CLOCK_FIXED;
    o.timestamp_ms = 1700000000000ULL;
    *sink = hw_sink_memory(0);
    if (!*sink)
        return NULL;
    return hw_writer_open(*sink, &o, NULL);
}

uint8_t *tu_sink_copy(const hw_sink *sink, size_t *len)
{
    const uint8_t *d = hw_sink_memory_data(sink, len);
    uint8_t *c = malloc(*len ? *len : 1);
    if (c && *len)
        memcpy(c, d, *len);
    return c;
}
