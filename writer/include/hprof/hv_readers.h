/*
 * hv_readers.h: which common HPROF readers reject a file, and why, one
 * reader at a time.
 *
 * The verifier (hv_verify.h) finds problems in general terms; readers of
 * HotSpot's dumps differ in what they accept: one stops at the first record
 * type it does not know, another at a header version, another at a
 * dangling reference that HotSpot's own dumps hold. hv_reader_judge applies
 * one reader's rules (a table in hv_readers.c, each rule backed by the
 * reader's source) to a verifier result and says what that reader does
 * with the file, with a sentence per reason.
 *
 * Readers, by name: go-hprof (google/hprof-parser), jhat (the JDK test
 * library's HprofReader, jhat's parser), eaftan (eaftan/hprof-parser),
 * py-hprof (SonyMobile/py-hprof), visualvm (VisualVM 2.1.5's heap library).
 */
#ifndef HPROF_HV_READERS_H
#define HPROF_HV_READERS_H

#include "hv_verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a reader does with a file, worst reason first. */
typedef enum hv_verdict {
    HV_READS = 0,    /* reads it as written */
    HV_MISREADS = 1, /* reads it, but warns, loses or misnames part of it */
    HV_REJECTS = 2   /* stops with an error: the user gets nothing or a part */
} hv_verdict;

/* One reason for a verdict. */
typedef struct hv_reason {
    const char *reader;  /* hv_reader_name */
    hv_verdict verdict;  /* HV_MISREADS or HV_REJECTS */
    const char *kind;    /* a verifier kind, or "record", "sub-record", "header",
                          * "no-heap-dump", "gzip" */
    uint64_t offset;     /* where it first happens */
    uint64_t count;      /* how often it happens in the file */
    const char *message; /* a sentence naming the record and the reader's error */
} hv_reason;

HPROF_API unsigned hv_reader_count(void);
/* Short name for --reader ("go-hprof"), or NULL past the end. */
HPROF_API const char *hv_reader_name(unsigned reader);
/* What and which version the rules were taken from. */
HPROF_API const char *hv_reader_about(unsigned reader);
/* Index of the reader called `name`, or -1. */
HPROF_API int hv_reader_find(const char *name);
HPROF_API const char *hv_verdict_name(hv_verdict v); /* "reads", "misreads", "rejects" */

/* Judges a verifier result (hv_verify's, after it returned >= 0) for one
 * reader: calls on_reason (may be NULL) once per reason, worst first within
 * the reader's rule order, and returns the verdict. A result whose parse
 * stopped early is judged on what was read. */
HPROF_API hv_verdict hv_reader_judge(unsigned reader, const hv_result *res,
                                     void (*on_reason)(void *ctx, const hv_reason *r), void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* HPROF_HV_READERS_H */
