/*
 * fixture_heap.h: the heap dump of `hprof fixture` (fixture.h), written from
 * the model (fixture_model.h): what fixture.h promises about the heap is
 * written here.
 *
 * Owns no state of its own: it writes through c->w, counts each object in
 * c->cls[] (ALLOC SITES, HEAP SUMMARY) and c->objects, c->roots, and
 * leaves a model problem in c->err.
 */
#ifndef HPROF_TOOLS_FIXTURE_HEAP_H
#define HPROF_TOOLS_FIXTURE_HEAP_H

#include "fixture_model.h"

/* The whole heap dump, HEAP DUMP (SEGMENTs) through its end. */
void fixture_heap_write(fixture_ctx *c);

#endif /* HPROF_TOOLS_FIXTURE_HEAP_H */
