/*
 * objsize.h: the shallow size of each object of a heap dump, in bytes, the
 * way HotSpot itself counts it: `jmap -histo`, `jcmd GC.class_histogram`,
 * JVMTI GetObjectSize (hence the agent's SITES) and JFR all report the
 * object's real footprint. A dump does not carry that size; it holds each
 * reference as an id (8 bytes on 64-bit JVMs) and no header, so the layout
 * is rebuilt: a 64-bit JVM with compressed oops and compressed class
 * pointers (HotSpot's default below 32 GB of heap) gives an object a
 * 12-byte header (mark word, class pointer), an array 4 bytes more for its
 * length, 4 bytes per reference, and aligns every object to 8 bytes. Field
 * packing (JDK 15+) leaves no gap that this sum and alignment do not
 * cover for ordinary classes. Heaps of 32 GB or more (no compressed oops)
 * and -XX:+UseCompactObjectHeaders lay objects out differently: their
 * sizes here are estimates.
 *
 * An instance's size needs its class's count of reference fields, its
 * supers' included (their CLASS DUMPs), hence a small class table.
 */
#ifndef HPROF_TOOLS_OBJSIZE_H
#define HPROF_TOOLS_OBJSIZE_H

#include <stddef.h>
#include <stdint.h>

#include "hprof/hr_reader.h"
#include "hu_map.h"

#define OBJSIZE_HEADER 12       /* mark word + compressed class pointer */
#define OBJSIZE_ARRAY_HEADER 16 /* the header + the u4 length */
#define OBJSIZE_REF 4           /* a compressed oop */
#define OBJSIZE_ALIGN 8         /* every object starts on 8 bytes */

typedef struct objsize_classes {
    hu_map ix;       /* class id -> index + 1 */
    hprof_id *super; /* per class: its super class id */
    uint32_t *refs;  /* per class: its own reference fields; after
                      * objsize_finish, those of its whole chain */
    size_t n, cap;
    int finished;
} objsize_classes;

void objsize_init(objsize_classes *t);
void objsize_cleanup(objsize_classes *t);
/* Records a CLASS DUMP (its super and reference fields). 0, or -1 when out
 * of memory. A class dumped twice keeps its first record. */
int objsize_add_class(objsize_classes *t, const hr_sub *s, unsigned id_size);
/* Sums each class's reference fields up its super chain (a chain that
 * loops counts each class once). Call once every class is in; 0 or -1. */
int objsize_finish(objsize_classes *t);
/* The size of an INSTANCE, OBJ ARRAY or PRIM ARRAY DUMP (0 for other
 * sub-records). An instance of a class without a CLASS DUMP is counted as
 * if it had no reference field. */
uint64_t objsize_of(const objsize_classes *t, const hr_sub *s, unsigned id_size);
/* The size of an instance of `class_id` whose field values take `nbytes`
 * in a dump with ids of `id_size` bytes. */
uint64_t objsize_instance(const objsize_classes *t, hprof_id class_id, uint64_t nbytes,
                          unsigned id_size);

#endif /* HPROF_TOOLS_OBJSIZE_H */
