/*
 * testutil.h: shared helpers of the CUnit test executables.
 */
#ifndef HPROF_TESTUTIL_H
#define HPROF_TESTUTIL_H

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

#include "hprof/hr_reader.h"
#include "hprof/hw_writer.h"

/* Runs every registered suite (basic interface, verbose) and returns the
 * process exit status: 0 only when all ran and none failed. `add_suites`
 * registers the suites with CU_add_suite/CU_add_test. */
int tu_main(int (*add_suites)(void));

/* Opens a writer on a fresh memory sink with the given id size and fixed
 * clock; *sink receives the sink (free it with hw_sink_free after close). */
hw_writer *tu_mem_writer(unsigned id_size, hw_sink **sink);

/* Returns a malloc'ed copy of the memory sink's bytes; *len gets the size. */
uint8_t *tu_sink_copy(const hw_sink *sink, size_t *len);

#endif
