/*
 * cv_classes.h: libhprofconvert's class layout table: for each CLASS DUMP
 * (the first of an id), its superclass and own field types, and once
 * asked for, the whole chain's types flattened (what INSTANCE DUMP values
 * hold, in that order). Memory: one byte per field of each class, plus
 * the flattened chains of classes that have instances converted.
 * Internal to the library.
 */
#ifndef HPROF_CV_CLASSES_H
#define HPROF_CV_CLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "hu_map.h"

/* A CLASS DUMP's instance layout: its own field types (in the pool), its
 * super, and once computed the whole chain's types, flattened (own fields
 * first, then the super's, as INSTANCE DUMP values are laid out). */
typedef struct cv_class {
    uint64_t super;
    uint32_t own_off, own_n;
    int flat_state;          /* 0 not computed, 1 ready */
    uint32_t flat_off, flat_n;
    uint32_t in_size;        /* value bytes with the input's id size */
    uint32_t out_size;       /* with the output's */
    int has_obj;
} cv_class;

typedef struct cv_classes {
    hu_map index;            /* class id -> position + 1 */
    cv_class *v;
    size_t n, cap;
    uint8_t *pool;           /* field types */
    size_t pool_len, pool_cap;
} cv_classes;

void cv_classes_init(cv_classes *t);
void cv_classes_cleanup(cv_classes *t);
/* Appends field types to the pool: 0, or -1 when out of memory. */
int cv_classes_pool_add(cv_classes *t, const uint8_t *types, size_t n);
/* Records a class's own field types; the first CLASS DUMP of an id wins.
 * 0, or -1 when out of memory. */
int cv_classes_add(cv_classes *t, uint64_t id, uint64_t super, const uint8_t *types, uint32_t n);
/* The class, or NULL. Valid until the next cv_classes_add. */
cv_class *cv_classes_get(const cv_classes *t, uint64_t id);

#endif
