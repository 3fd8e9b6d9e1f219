/*
 * ctl_scan.h: hprof-ctl's heap dump scanner. It counts the sub-records of
 * a heap dump from its segment bodies, fed in pieces of any size: it reads
 * only each sub-record's fixed part and skips the rest, so a dump of any
 * size costs a few steps per object and a few dozen bytes of state.
 *
 * Owns the count of one dump at a time. The struct is embedded by value
 * (no allocation, nothing to free); its fields other than the counts are
 * the scanner's own.
 */
#ifndef HPROF_CTL_SCAN_H
#define HPROF_CTL_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "hprof/hprof_format.h"

/* The largest fixed part of a heap sub-record the scanner has to read whole:
 * a CLASS DUMP's with 8-byte ids, plus its u2 constant pool count. */
#define CTL_SUB_HDR_MAX (HPROF_CLASS_DUMP_FIXED(8u) + 2u)

typedef enum ctl_sub_step {
    SS_TAG,
    SS_CLASS_FIXED,
    SS_CP_ENTRY,
    SS_STATICS_COUNT,
    SS_STATIC_ENTRY,
    SS_FIELDS_COUNT,
    SS_INSTANCE_FIXED,
    SS_OBJ_ARRAY_FIXED,
    SS_PRIM_ARRAY_FIXED,
    SS_DEAD /* an unknown sub-record or type: the rest is not counted */
} ctl_sub_step;

typedef struct ctl_scan {
    unsigned idsz;
    ctl_sub_step step;
    uint8_t hdr[CTL_SUB_HDR_MAX];
    unsigned have, need;
    uint64_t skip;
    uint32_t left; /* constant pool entries or statics still to read */
    uint8_t tag;   /* of the sub-record being read */
    /* the counts so far: callers read these */
    uint64_t instances, arrays, classes, roots;
} ctl_scan;

/* Where the scanner stands once the dump's bytes are all in. */
typedef enum ctl_scan_state {
    CTL_SCAN_WHOLE, /* at a sub-record boundary: every sub-record counted */
    CTL_SCAN_CUT,   /* inside a sub-record: the bytes ended in it */
    CTL_SCAN_BAD    /* stopped at an unknown sub-record or type */
} ctl_scan_state;

/* Starts counting a new dump whose ids are idsz bytes. */
void ctl_scan_init(ctl_scan *s, unsigned idsz);

/* The next n bytes of the dump's sub-records (segment bodies, in order). */
void ctl_scan_feed(ctl_scan *s, const uint8_t *p, size_t n);

/* Where the scan stands; with CTL_SCAN_BAD, *bad_tag is the sub-record tag
 * it stopped at. */
ctl_scan_state ctl_scan_end(const ctl_scan *s, uint8_t *bad_tag);

#endif /* HPROF_CTL_SCAN_H */
