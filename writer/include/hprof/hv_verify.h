/*
 * hv_verify.h: the verifier: what real HPROF readers (VisualVM, jhat-style
 * single-pass readers) choke on, reported with byte offsets.
 *
 * It runs the reader over a source (twice when the source can be rewound,
 * so that references can be resolved against the whole dump) and reports
 * every problem through a callback: a severity, a stable `kind` key, the
 * byte offset where it was found and a plain sentence. The kinds:
 *
 *   parser's own:   truncated, bad-length, unknown-tag, unknown-subtag,
 *                   bad-header, crosses-segment, bad-type, io, long-record
 *   heap structure: no-heap-end, zero-length-segment, segments-in-1.0.1,
 *                   multiple-heap-dumps, sub-after-end
 *   resolution:     unresolved-utf8, unresolved-class-serial,
 *                   unresolved-trace, unresolved-frame, unresolved-thread,
 *                   dangling-ref, missing-class-dump, missing-array-class,
 *                   missing-load-class, duplicate-id
 *   layout:         instance-size-mismatch, super-cycle, wide-class (more
 *                   than 32 767 instance fields), sites-total-mismatch,
 *                   samples-total-mismatch, u4-saturated (an ALLOC SITES
 *                   value at 4294967295: the true figure may be larger)
 *   compatibility:  android-extension (Android sub-records: once per file);
 *                   which of the common readers reject the file, and why, is
 *                   judged from the result by hv_readers.h
 *   ordering:       utf8-after-use, frame-after-trace, class-dump-after-instance,
 *                   load-class-after-class-dump, root-before-thread-object,
 *                   class-dump-after-unload
 *
 * Each kind is reported in full up to `max_per_kind` times, then counted.
 */
#ifndef HPROF_HV_VERIFY_H
#define HPROF_HV_VERIFY_H

#include <stdint.h>

#include "hr_reader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hv_problem {
    hr_severity severity;
    const char *kind;
    uint64_t offset;
    const char *message;
} hv_problem;

typedef struct hv_options {
    unsigned max_per_kind; /* default 10; 0 = report every one */
    /* kinds to ignore, NULL-terminated (e.g. {"dangling-ref", NULL} for
     * HotSpot dumps with CDS, which hold ids of unloaded archived mirrors) */
    const char *const *ignore;
    void (*on_problem)(void *ctx, const hv_problem *p); /* may be NULL */
    void *ctx;
} hv_options;

typedef struct hv_kind_count {
    const char *kind;
    hr_severity severity;
    uint64_t count;
    uint64_t offset; /* of the first one counted */
} hv_kind_count;

/* Where a kind of record first appears, and how often: what the readers'
 * rules (hv_readers.h) are judged on. */
typedef struct hv_seen {
    uint64_t count;
    uint64_t first; /* byte offset of the first one */
} hv_seen;

/* The shape of the file, as far as readers care: filled by pass 1. */
typedef struct hv_profile {
    hprof_version version;   /* 0: the magic was not recognised */
    int gzip;                /* the source is gzip-compressed */
    hv_seen top[256];        /* top-level records by tag */
    hv_seen sub[256];        /* heap dump sub-records by tag */
} hv_profile;

typedef struct hv_result {
    uint64_t errors;   /* not counting ignored kinds */
    uint64_t warnings;
    hr_status parse_status;
    int resolved_refs; /* 1 if the second (reference) pass ran */
    unsigned nkinds;   /* per-kind totals, including ignored kinds */
    hv_kind_count kinds[64];
    hv_profile profile;
} hv_result;

HPROF_API void hv_options_init(hv_options *o);
/* Verifies the source from its start. Returns 0 if no (non-ignored) problem
 * was found, 1 if some were, -1 if the verifier itself ran out of memory. */
HPROF_API int hv_verify(hr_source *src, const hv_options *o, hv_result *res);

#ifdef __cplusplus
}
#endif

#endif /* HPROF_HV_VERIFY_H */
