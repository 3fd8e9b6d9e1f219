/*
 * hg_dom.h: the dominator tree of a heap graph (hg_graph.h) and the retained
 * sizes it gives.
 *
 * Every GC root hangs under one virtual root, as in MAT; objects that no
 * root reaches are left out (MAT's default: unreachable objects are
 * removed), counted in hg_dom_unreachable(). The tree is computed by
 * semi-NCA (Georgiadis, Tarjan) over a depth-first numbering: no
 * recursion anywhere, so chains of millions of objects cost no stack. An
 * object's retained size is its own shallow size plus those of every
 * object it dominates; its retained count, the number of those objects
 * (itself included).
 *
 * hg_dom_compute() drops the graph's edges once it no longer needs them
 * (the graph keeps its objects, classes and roots): the peak memory is the
 * graph's plus 16 bytes per object and 4 per reference (hg_dom.c has the
 * budget).
 */
#ifndef HPROF_HG_DOM_H
#define HPROF_HG_DOM_H

#include <stdint.h>

#include "hg_graph.h"

typedef struct hg_dom hg_dom;

/* 0, or -1 when out of memory (then *out is NULL and the graph may have
 * lost its edges). */
int hg_dom_compute(hg_graph *g, hg_dom **out);
void hg_dom_free(hg_dom *d);

/* Objects reached from the roots, and the others (left out). */
uint32_t hg_dom_reachable(const hg_dom *d);
uint64_t hg_dom_unreachable(const hg_dom *d);
uint64_t hg_dom_unreachable_bytes(const hg_dom *d);
/* 1 when object i is reached from a root. */
int hg_dom_is_reachable(const hg_dom *d, uint32_t i);
/* The immediate dominator of object i: an object index, HG_NONE for the
 * virtual root (i is dominated by no object), or HG_NONE for an
 * unreachable object (see hg_dom_is_reachable). */
uint32_t hg_dom_idom(const hg_dom *d, uint32_t i);
uint64_t hg_dom_retained(const hg_dom *d, uint32_t i);   /* 0 if unreachable */
uint64_t hg_dom_retained_count(const hg_dom *d, uint32_t i);
/* The whole reachable heap: bytes and objects. */
uint64_t hg_dom_total_bytes(const hg_dom *d);

/* The `n` objects of largest retained size, largest first (ties: lower
 * id first); returns how many were written to out. */
uint32_t hg_dom_top(const hg_dom *d, uint32_t n, uint32_t *out);

/* Per class (class table index; hg_nclasses() + 1 entries, the last one
 * the objects of unknown class): reachable instances, their shallow bytes,
 * and the bytes their instances retain together, each object counted
 * once: the sum of the retained sizes of the instances that no other
 * instance of the class dominates (MAT's "retained heap" of a class, the
 * minimum it calculates). Computed on first call; -1 when out of memory. */
typedef struct hg_class_row {
    uint64_t instances, shallow, retained;
} hg_class_row;
int hg_dom_classes(hg_dom *d, const hg_class_row **rows);

#endif /* HPROF_HG_DOM_H */
