/*
 * histo.h: the class histogram of a heap dump (`hprof histo`, the report's
 * histogram): per class, instances and shallow bytes, sized as HotSpot
 * counts them (objsize.h), as `jmap -histo` prints them.
 *
 * It reads nothing itself: a caller feeds it from its own hr_parse (so one
 * pass over a file can serve several views), then finishes it once.
 */
#ifndef HPROF_TOOLS_HISTO_H
#define HPROF_TOOLS_HISTO_H

#include <stddef.h>
#include <stdint.h>

#include "hprof/hr_reader.h"

typedef struct histo histo;

typedef struct histo_row {
    hprof_id class_id; /* 0 for a primitive array type whose class is not loaded */
    uint64_t count, bytes;
    const char *name; /* the dump's spelling (java/lang/String or java.lang.String, [I),
                       * or "<unknown class 0x...>"; owned by the histo */
} histo_row;

/* NULL when out of memory. */
histo *histo_new(void);
void histo_free(histo *h);

/* The three hr_callbacks a caller forwards to (ctx: the histo). They return
 * nonzero to stop the parse when out of memory. */
int histo_on_header(void *ctx, const hr_header *hd);
int histo_on_record(void *ctx, const hr_record *r);
int histo_on_sub(void *ctx, const hr_sub *s);

/* Once the parse is over: sizes the instances, names the rows, merges rows
 * of one normalized name when `normalize` (normalize.h), sorts by bytes,
 * then instances, then name. 0, or -1 when out of memory (also when a
 * callback had met it). Call once. */
int histo_finish(histo *h, int normalize);
/* The rows, after histo_finish (NULL and 0 before, or with no row). */
const histo_row *histo_rows(const histo *h, size_t *n);
/* HEAP DUMP and HEAP DUMP SEGMENT records seen: 0 means no heap dump. */
uint64_t histo_heap_records(const histo *h);

#endif /* HPROF_TOOLS_HISTO_H */
