/*
 * superchain.h: how many classes a super chain really holds, in a file that
 * may lie.
 *
 * A CLASS DUMP names its super class by id, and a hostile file can make the
 * chain loop (a class its own super, A -> B -> A, longer cycles). A walk up
 * the chain (the field values of an INSTANCE DUMP are the class's fields,
 * then its super's, ...) must stop after the distinct classes it holds, not
 * after "as many steps as there are classes", which is quadratic over a
 * dump: sc_chain_lengths computes, in linear time, each class's count of
 * distinct classes on its chain (itself included), so a walk of that many
 * steps visits each of them once, cycle or not.
 */
#ifndef HPROF_TOOLS_SUPERCHAIN_H
#define HPROF_TOOLS_SUPERCHAIN_H

#include <stddef.h>
#include <stdint.h>

#define SC_NONE SIZE_MAX /* no super class (or none with a CLASS DUMP) */

/* `super_ix[i]` is the index of class i's super class, or SC_NONE. Fills
 * len[i] (n of them) with the number of distinct classes on i's chain.
 * Returns 0, or -1 when out of memory (len untouched). */
int sc_chain_lengths(const size_t *super_ix, size_t n, uint32_t *len);

#endif /* HPROF_TOOLS_SUPERCHAIN_H */
