/*
 * redact.h: libhprofredact, which makes a heap dump safe to share.
 *
 * Owns: the redaction of an HPROF file (1.0.1/1.0.2/1.0.3, id size 4 or 8)
 * into a file of the same size and the same structure in which every
 * primitive value is zero: primitive array elements, primitive instance
 * fields, primitive statics and constant-pool values; and in which every
 * UTF8 record that is not a name (of a class, field, method, signature,
 * source file or Android heap) or one of the agent's HPROF SITES notes has
 * its bytes replaced by '*'. What is kept as it is (records of serials,
 * counts and ids) is kept only as far as its layout goes: bytes past it,
 * and CLASS DUMPs' reserved ids, are zeroed. References,
 * roots, class dumps, lengths and names are kept, so a heap analyser shows
 * the same histogram, retained sizes and paths. Options keep selected
 * Strings readable (thread names, Strings held by classes matching a glob).
 *
 * Contract: the input is a byte range in memory (a mapped file); the output
 * goes through a write callback in large blocks, in order, exactly once. A
 * redactor refuses (an error, never a half-redacted output it calls good)
 * what it cannot redact safely: a structure it does not understand, an
 * instance whose class has no CLASS DUMP, an instance whose size does not
 * match its class's fields, a record shorter than its layout, a gzip
 * stream cut short. Memory is proportional to the classes, the
 * names and what the options keep, never to the input's size.
 * Errors are sticky: the first one is kept (message with the offset), the
 * caller checks once.
 */
#ifndef HPROF_REDACT_H
#define HPROF_REDACT_H

#include <stddef.h>
#include <stdint.h>

typedef struct redact redact;

typedef struct redact_opts {
    /* keep java.lang.Thread.name of every Thread instance (subclasses too)
     * and the names of START THREAD records (thread, group, parent group) */
    int keep_thread_names;
    /* keep the Strings referenced from instance fields (of instances whose
     * class matches) and statics of classes matching one of these globs:
     * '*' any run of characters, '?' one; "com.acme.*" and the JVM spelling (slashes)
     * are the same glob */
    const char *const *keep_strings;
    size_t nkeep_strings;
} redact_opts;

typedef struct redact_stats {
    uint64_t bytes;            /* input bytes (= output bytes) */
    uint64_t passes;           /* walks over the input */
    uint64_t classes;          /* CLASS DUMPs */
    uint64_t instances;        /* INSTANCE DUMPs */
    uint64_t prim_arrays;      /* PRIMITIVE ARRAY DUMPs zeroed */
    uint64_t zeroed_bytes;     /* bytes set to zero (values, elements) */
    uint64_t statics_zeroed;   /* primitive statics and constant-pool values */
    uint64_t utf8_redacted;    /* UTF8 records replaced by '*' */
    uint64_t unknown_records;  /* top-level records of unknown tags (body zeroed) */
    /* records kept as they are (TRACE, HEAP SUMMARY, LOAD CLASS, ...) whose
     * length goes past their layout, and CLASS DUMPs whose reserved ids are
     * not 0: those bytes, zeroed */
    uint64_t slack_records;
    uint64_t slack_bytes;
    uint64_t strings_kept;     /* String instances kept whole (options) */
    uint64_t arrays_kept;      /* their value arrays, kept */
} redact_stats;

/* Writes `n` bytes; returns 0 or an errno value (the redaction stops). */
typedef int (*redact_write_fn)(void *ctx, const void *buf, size_t n);

/* NULL when out of memory. The options' strings are copied. */
redact *redact_init(const redact_opts *opts);
void redact_cleanup(redact *r);

/* Redacts `in` (a whole HPROF file) into `out`. Returns 0, or -1 with the
 * reason in redact_error(). A redactor runs once. */
int redact_run(redact *r, const uint8_t *in, size_t len, redact_write_fn out, void *ctx);

/* Redacts the file at `in_path` (plain or gzip, "-" for standard input)
 * into `out_path`, opened by hw_outfile's rules (hw_writer.h): a regular
 * file is written as `out_path`.tmp.PID and renamed over it when complete
 * (on failure the temporary file is removed and `out_path` is as it was);
 * "-" (standard output), a FIFO or a character device is written in place;
 * a symbolic link, or the input itself, is refused. Gzip and non-seekable input is
 * first inflated to an unlinked temporary file (in $TMPDIR, else /tmp). The
 * output is plain HPROF. Returns 0, or -1 with redact_error(). */
int redact_file(redact *r, const char *in_path, const char *out_path);

/* The first error ("offset N: ...", "gzip input: ..." or "PATH: strerror"),
 * or NULL. */
const char *redact_error(const redact *r);
/* 1 when the error is the input's fault (malformed), 0 for I/O or memory. */
int redact_error_is_input(const redact *r);
const redact_stats *redact_get_stats(const redact *r);

/* Glob match used by keep_strings, exposed for tests: '.' and '/' are one
 * character class; '*' any run, '?' one character. */
int redact_glob_match(const char *glob, const char *s, size_t slen);

#endif /* HPROF_REDACT_H */
