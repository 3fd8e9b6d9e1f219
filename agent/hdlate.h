/*
 * hdlate.h: what a heap dump's walk meets of classes it has no CLASS DUMP
 * for yet ("late" classes: loaded, or first seen, after the dump fixed its
 * set of classes and before the walk's safepoint). The walk cannot ask the
 * JVM for their fields (its callbacks run at a safepoint, with no JVMTI),
 * so it logs here, without interpreting them, every value the JVM reports
 * of such objects (instance fields, array elements, a mirror's statics and
 * loader), and the late classes that anything refers to. After the walk,
 * heapdump.c lays the classes out and writes their LOAD CLASS, CLASS DUMP
 * and objects from this log: every object the walk reached is in the dump.
 *
 * Pure data: no JNI, no JVMTI, no locks; malloc only (the walk's callbacks
 * run on the VM thread, where malloc is allowed). Memory grows with the
 * late objects only, which are few: those of classes loaded in the window.
 */
#ifndef HPROF_HDLATE_H
#define HPROF_HDLATE_H

#include <stddef.h>
#include <stdint.h>

#include "hu_map.h"

/* One reported value of a late object. `what` is the JVMTI heap reference
 * kind (jvmtiHeapReferenceKind: FIELD, STATIC_FIELD, ARRAY_ELEMENT,
 * CLASS_LOADER, SIGNERS, PROTECTION_DOMAIN); `type` is the HPROF type of a
 * primitive value, or HPROF_TYPE_OBJECT for a reference (`bits`: its id). */
typedef struct hl_val {
    uint32_t index;
    uint8_t what, type;
    uint64_t bits;
} hl_val;

typedef struct hl_obj {
    uint64_t tag;        /* the object's tag (its id) */
    uint64_t class_tag;  /* its class's tag: 0 when the class has none */
    int64_t length;      /* array length, -1 for an instance (or unknown) */
    uint32_t cls;        /* class index, once resolved after the walk; 0 before */
    uint8_t is_class;    /* a class object (mirror) of a late class */
    uint8_t prim_type;   /* a primitive array: its element type */
    size_t first, n;     /* its values: vals[first .. first + n) */
    size_t data, ndata;  /* a primitive array's elements: bytes[data .. data + ndata) */
} hl_obj;

typedef struct hl_log {
    hl_obj *objs;
    size_t nobj, capobj;
    hl_val *vals;
    size_t nval, capval;
    uint8_t *bytes;
    size_t nbytes, capbytes;
    hu_map need;   /* class index -> 1: late classes something refers to */
    int oom;       /* latched: an allocation failed */
} hl_log;

void hl_init(hl_log *l);
void hl_cleanup(hl_log *l);
/* Starts a late object; its values follow (hl_value, hl_elements). Returns
 * 0, or -1 when out of memory (latched in oom). */
int hl_begin(hl_log *l, uint64_t tag, uint64_t class_tag, int64_t length, int is_class);
int hl_value(hl_log *l, uint8_t what, uint32_t index, uint8_t type, uint64_t bits);
/* The elements of the current object, a primitive array (copied). */
int hl_elements(hl_log *l, uint8_t type, const void *p, size_t nbytes);
/* Class `index` is referred to and must get a CLASS DUMP. */
int hl_need(hl_log *l, uint32_t index);

#endif
