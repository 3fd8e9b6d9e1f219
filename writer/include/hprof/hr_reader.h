/*
 * hr_reader.h: libhprofwriter's streaming reader.
 *
 * Parses any HPROF (1.0.1/1.0.2/1.0.3, id size 4 or 8, plain or gzip) from a
 * file, an fd or memory, calling back once per top-level record and once per
 * heap sub-record. It never reads out of bounds: every length is checked
 * against what is really there, and a file that lies stops the parse with a
 * problem report (offset + sentence), never a crash.
 *
 * Memory: a regular file is mapped; an fd or gzip stream is read through a
 * window that holds the unit being parsed: a plain record, or one heap
 * sub-record. The window grows only as bytes really arrive, never to a
 * length read from the file, so a record that claims more than the file
 * holds costs what the file holds, and is reported as truncated. A unit
 * longer than HR_BODY_MAX is not held whole even when its bytes are there
 * (a legitimate 200 MB UTF8, an unknown 4 GB record): its first bytes are
 * delivered, flagged `cut`, and the rest is read past in bounded chunks
 * (checked to be present). An OBJECT ARRAY DUMP longer than that comes in
 * parts (hr_sub.part). Other heap sub-records are held whole: INSTANCE
 * DUMP values and CLASS DUMPs are bounded by their classes' layouts in
 * any real dump (a lying one costs what its bytes really hold).
 */
#ifndef HPROF_HR_READER_H
#define HPROF_HR_READER_H

#include <stddef.h>
#include <stdint.h>

#include "hprof_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most bytes of one record's body (or of one primitive array's
 * elements) the reader holds at once: 16 MiB, far above what a JVM writes
 * (its symbols, the UTF8 records, are at most 64 KiB; an ALLOC SITES record
 * of 16 MiB lists 670 000 sites). A build may lower it for the whole tree
 * (the fuzz build does, so that inputs of a few KB reach the cut paths);
 * at least 64. */
#ifndef HR_BODY_MAX
#define HR_BODY_MAX (16u << 20)
#endif

typedef struct hr_header {
    hprof_version version; /* 0 when the magic is unknown (then parsing stops) */
    char magic[32];        /* the NUL-terminated format string as found */
    unsigned id_size;
    uint64_t timestamp_ms;
} hr_header;

/* A top-level record. `body` points at its `body_len` bytes (NULL for HEAP
 * DUMP and HEAP DUMP SEGMENT, whose sub-records are delivered one by one).
 * The decoded fields of the known fixed-layout records are filled in `u`.
 *
 * A body longer than HR_BODY_MAX is delivered `cut`: the reader has checked
 * that all `length` bytes are in the file, but hands over only the first
 * ones: HR_BODY_MAX of a UTF8, TRACE, ALLOC SITES or CPU SAMPLES record,
 * with utf8.len, trace.nframes, alloc_sites.nsites and cpu_samples.ntraces
 * cut to what lies in them (the "long-record" warning says so); none of any
 * other record (an unknown tag, or a fixed-layout record whose length is
 * wrong anyway: nothing in it can be used). */
typedef struct hr_record {
    uint8_t tag;
    uint32_t time_us;
    uint32_t length;
    uint64_t offset; /* of the tag byte */
    const uint8_t *body;
    uint32_t body_len; /* bytes at body: `length`, or fewer when `cut` */
    uint8_t cut;       /* 1 when the body is longer than HR_BODY_MAX (above) */
    /* 1 when the length contradicts the record's layout (reported as
     * "bad-length"): then `u` is all zero and must not be used */
    uint8_t malformed;
    union {
        struct { hprof_id id; const char *str; uint32_t len; } utf8; /* str not NUL-terminated */
        struct { uint32_t class_serial; hprof_id class_id; uint32_t trace_serial; hprof_id name_id; } load_class;
        struct { uint32_t class_serial; } unload_class;
        struct { hprof_id frame_id, method_name_id, method_sig_id, source_file_id;
                 uint32_t class_serial; int32_t line; } frame;
        struct { uint32_t trace_serial, thread_serial, nframes; } trace; /* ids: hr_trace_frame */
        struct { uint16_t flags; float cutoff; uint32_t total_live_bytes, total_live_instances;
                 uint64_t total_alloc_bytes, total_alloc_instances; uint32_t nsites; } alloc_sites;
        struct { uint32_t live_bytes, live_instances; uint64_t alloc_bytes, alloc_instances; } heap_summary;
        struct { uint32_t thread_serial; hprof_id thread_id; uint32_t trace_serial;
                 hprof_id name_id, group_name_id, parent_group_name_id; } start_thread;
        struct { uint32_t thread_serial; } end_thread;
        struct { uint32_t total, ntraces; } cpu_samples; /* pairs: hr_cpu_sample */
        struct { uint32_t flags; uint16_t depth; } control;
    } u;
} hr_record;

/* A heap sub-record. `body` points after the sub-tag; `length` counts the
 * sub-tag too. Fields not used by a tag are 0.
 *
 * A PRIMITIVE ARRAY DUMP whose elements take more than HR_BODY_MAX bytes is
 * delivered `cut`: parr.n is the whole count, but parr.elems holds only the
 * first HR_BODY_MAX bytes of elements (the rest is checked to be there, and
 * read past).
 *
 * An OBJECT ARRAY DUMP whose elements take more than HR_BODY_MAX bytes is
 * delivered in parts, one on_sub call each, in order: every part has the
 * same tag, offset, length and header fields (oarr.id, n, class_id...), and
 * oarr.elems holds oarr.count elements starting at element oarr.first; `part`
 * numbers them from 0. A consumer counts the object on part 0 only. Parts
 * after the first have `body` NULL (the header's bytes are gone). A stream
 * (fd, pipe, gzip) that ends inside such an array has had its first parts
 * delivered before the truncation is reported; from memory or a mapped file
 * no part is delivered, as for any other sub-record the file cuts. A whole
 * array: part 0, first 0, count n. */
typedef struct hr_sub {
    uint8_t tag;
    uint8_t cut;
    uint32_t part; /* OBJECT ARRAY DUMP in parts (above); 0 otherwise */
    uint32_t length;
    uint64_t offset;         /* of the sub-tag byte */
    uint64_t record_offset;  /* of the enclosing 0x0C/0x1C record */
    const uint8_t *body;
    union {
        /* every root and 0x90/0xFE: `id` the object (0xFE: the heap name id),
         * thread/frame/ref as written (THREAD OBJECT: frame = trace serial;
         * JNI GLOBAL: ref = the JNI ref id; 0xFE: thread = heap type) */
        struct { hprof_id id; uint32_t thread_serial; uint32_t frame; hprof_id ref; } root;
        struct { hprof_id class_id; uint32_t trace_serial;
                 hprof_id super_id, loader_id, signers_id, protection_domain_id, reserved1, reserved2;
                 uint32_t instance_size; uint16_t ncp, nstatics, nfields;
                 const uint8_t *cp, *statics, *fields; /* walk with hr_class_* */ } cls;
        struct { hprof_id id; uint32_t trace_serial; hprof_id class_id; uint32_t nbytes;
                 const uint8_t *values; } inst;
        struct { hprof_id id; uint32_t trace_serial; uint32_t n; hprof_id class_id;
                 const uint8_t *elems; uint32_t first, count; } oarr;
                 /* elems: `count` ids from element `first` (all n unless in
                  * parts, above); use hr_get_id */
        struct { hprof_id id; uint32_t trace_serial; uint32_t n; uint8_t type;
                 const uint8_t *elems; } parr; /* elems: n big-endian values */
    } u;
} hr_sub;

typedef enum hr_severity {
    HR_WARNING = 1, /* real readers tolerate it (some with a warning) */
    HR_ERROR = 2    /* a real reader fails or silently loses data */
} hr_severity;

/* Callbacks return 0 to go on, non-zero to stop the parse (hr_parse then
 * returns HR_STOPPED). Any may be NULL. */
typedef struct hr_callbacks {
    int (*on_header)(void *ctx, const hr_header *h);
    int (*on_record)(void *ctx, const hr_record *r);
    int (*on_sub)(void *ctx, const hr_sub *s);
    /* Structural problems the parser itself meets: unknown tags, truncation,
     * a sub-record crossing its segment, a bad length, a record delivered
     * cut ("long-record", a warning). `kind` is a short
     * stable key ("truncated", "unknown-tag", ...), a string literal that
     * stays valid for the life of the program; `msg` only during the call. */
    void (*on_problem)(void *ctx, hr_severity sev, const char *kind, uint64_t offset,
                       const char *msg);
    /* Called after each heap dump record's sub-records (0x0C/0x1C). */
    int (*on_record_end)(void *ctx, const hr_record *r);
} hr_callbacks;

typedef struct hr_source hr_source;

/* Sources. A file source maps regular files (and reads gzip via zlib);
 * "-" means stdin. Return NULL with *err = errno value on failure. */
HPROF_API hr_source *hr_source_file(const char *path, int *err);
HPROF_API hr_source *hr_source_fd(int fd, int *err);  /* fd not closed */
HPROF_API hr_source *hr_source_memory(const void *data, size_t len); /* not copied */
/* Re-read from the start: files, memory, and an fd that can seek (from where
 * it was when the source was made); -1 for pipes and sockets. */
HPROF_API int hr_source_rewind(hr_source *s);
HPROF_API int hr_source_is_gzip(const hr_source *s);
HPROF_API void hr_source_close(hr_source *s);

typedef enum hr_status {
    HR_OK = 0,        /* parsed to a clean end of file */
    HR_STOPPED = 1,   /* a callback asked to stop */
    HR_MALFORMED = 2, /* a structural problem ended the parse (reported) */
    HR_IO = 3         /* read error (reported) */
} hr_status;

typedef struct hr_stats {
    uint64_t bytes;              /* parsed (uncompressed) */
    uint64_t records[256];       /* per top-level tag */
    uint64_t record_bytes[256];  /* per top-level tag, headers included */
    uint64_t subs[256];          /* per sub-record tag */
    uint64_t sub_bytes[256];
    uint64_t problems;
} hr_stats;

/* Parses the whole source. `stats` (optional) is filled as it goes. */
HPROF_API hr_status hr_parse(hr_source *src, const hr_callbacks *cb, void *ctx, hr_stats *stats);

/* ---- decoding helpers over the pointers handed to callbacks ---- */
HPROF_API hprof_id hr_get_id(const uint8_t *p, unsigned id_size);
static inline uint16_t hr_get_u2(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t hr_get_u4(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t hr_get_u8(const uint8_t *p)
{
    return ((uint64_t)hr_get_u4(p) << 32) | hr_get_u4(p + 4);
}

/* i-th frame id of a TRACE record. */
HPROF_API hprof_id hr_trace_frame(const hr_record *r, unsigned id_size, uint32_t i);
/* i-th site of an ALLOC SITES record (same struct the writer takes). */
typedef struct hr_alloc_site {
    uint8_t array_type;
    uint32_t class_serial, trace_serial, live_bytes, live_instances, alloc_bytes, alloc_instances;
} hr_alloc_site;
HPROF_API void hr_alloc_site_at(const hr_record *r, uint32_t i, hr_alloc_site *out);
/* i-th (count, trace) pair of a CPU SAMPLES record. */
HPROF_API void hr_cpu_sample_at(const hr_record *r, uint32_t i, uint32_t *count, uint32_t *trace_serial);

/* Walking a CLASS DUMP. Each iterator starts from the pointer in hr_sub and
 * is advanced by the call; the parser has already checked that the whole
 * class dump is in bounds and every type code valid. */
typedef struct hr_cp_entry { uint16_t index; uint8_t type; uint64_t value; } hr_cp_entry;
typedef struct hr_static { hprof_id name_id; uint8_t type; uint64_t value; } hr_static;
typedef struct hr_field { hprof_id name_id; uint8_t type; } hr_field;
HPROF_API const uint8_t *hr_class_cp_next(const uint8_t *p, unsigned id_size, hr_cp_entry *out);
HPROF_API const uint8_t *hr_class_static_next(const uint8_t *p, unsigned id_size, hr_static *out);
HPROF_API const uint8_t *hr_class_field_next(const uint8_t *p, unsigned id_size, hr_field *out);

#ifdef __cplusplus
}
#endif

#endif /* HPROF_HR_READER_H */
