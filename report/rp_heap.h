/* rp_heap.h: the report's retained sizes and leak suspects (docs/report.md
 * "Retained sizes and leak suspects"): the dominator tree of the last input
 * that holds a binary heap dump, computed with libhprofheap (heapgraph/),
 * turned into the TABLEs "retained-objects" and "retained-classes" and the
 * HEAP object's "suspects" and totals.
 *
 * Internal to the hprofreport library. The dump is read again (the model
 * read it once for the histogram): a second pass for the graph, and a third
 * one that looks only at the objects on the suspects' paths, for their
 * field names. What cannot be done (the graph would not fit in memory, the
 * dump is damaged, memory runs out) becomes a warning of the model and a
 * "retained_note" of the HEAP object: the report goes on without it. */
#ifndef RP_HEAP_H
#define RP_HEAP_H

#include <stdint.h>

#include "rj_json.h"
#include "rm_model.h"

typedef struct rp_heap rp_heap;

/* Suspects retain more than 1/RP_HEAP_SUSPECT_DIV of the reachable heap. */
#define RP_HEAP_SUSPECT_DIV 10
/* Rows of the two retained tables. */
#define RP_HEAP_TOP 20

/* The analysis of the last heap dump input of `m`, or NULL when no input
 * holds one. `max_memory`: the most bytes it may use (0: MemAvailable).
 * `skip`: 1 records only why there is none (--no-retained). Problems are
 * added to m's warnings; a non-NULL result without a tree says why in its
 * note. NULL also when out of memory before anything could be said. */
rp_heap *rp_heap_new(rm_model *m, uint64_t max_memory, int skip);
void rp_heap_free(rp_heap *h);

/* The two TABLE objects, inside the data's "tables" array (nothing without
 * a tree). */
void rp_heap_write_tables(const rp_heap *h, rj *j);
/* The HEAP object's keys: retained_input, reachable_objects,
 * reachable_bytes, unreachable_objects, unreachable_bytes, retained_rule,
 * suspect_rule, suspects, suspects_note; without a tree, only
 * retained_note (docs/report.md "Heap"). */
void rp_heap_write_fields(const rp_heap *h, rj *j);

#endif
