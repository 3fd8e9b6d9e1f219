/*
 * hw_writer.h: libhprofwriter's encoder API: sinks, the writer, every record
 * and heap sub-record of HPROF 1.0.1/1.0.2/1.0.3.
 *
 * Contract, shared by every function below:
 *  - Big-endian output; ids are written with the id size chosen at open (4 or 8).
 *  - Sticky error: the first failure (a sink errno such as ENOSPC/EPIPE/EBADF,
 *    or a logical one: EFBIG for a length that does not fit a u4, EOVERFLOW for
 *    an id that does not fit 4 bytes, EINVAL for misuse) is latched with a
 *    message. Every later call does nothing and returns that same error.
 *    Functions return 0 or the latched errno value.
 *  - No length field is ever written that is not true: a record is either
 *    emitted whole with its exact length, or refused before any byte of it.
 *    After a refused record (EFBIG, EOVERFLOW, EINVAL) the sink still gets,
 *    at close, every record and sub-record completed before it, the open
 *    segment cut to its true length: a clean prefix (without HEAP DUMP END
 *    if a dump was open). After a sink failure the bytes that reached it end
 *    at a buffer boundary. The reader and verifier explain either prefix.
 *  - Heap dumps: between hw_heap_begin and hw_heap_end, sub-records go into
 *    HEAP DUMP SEGMENTs of at most `segment_size` bytes (a sub-record larger
 *    than that gets a segment of its own), never crossing a segment, never
 *    an empty segment, closed by HEAP DUMP END. The sink is never seeked, so
 *    pipes and sockets work. In single mode (one 0x0C HEAP DUMP record, for
 *    1.0.1 fixtures) the whole dump is held in memory until hw_heap_end.
 *  - A writer is not thread-safe; callers serialise access.
 */
#ifndef HPROF_HW_WRITER_H
#define HPROF_HW_WRITER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "hprof_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ sinks */

typedef struct hw_sink hw_sink;

/* A custom sink's write: deliver all `len` bytes or return an errno value. */
typedef int (*hw_sink_write_fn)(void *ctx, const void *data, size_t len);
/* A custom sink's close: release ctx; return 0 or an errno value. */
typedef int (*hw_sink_close_fn)(void *ctx);

/* ------------------------------------------------------------- output files
 *
 * Profiles and heap dumps hold what the program held (passwords, keys,
 * personal data), and they are often written into shared directories such
 * as /tmp. So an output file is created the way HotSpot creates its heap
 * dumps (mode 0600), and never written through something another user may
 * have planted at its path:
 *  - a symbolic link as the last component of the path is refused (ELOOP,
 *    "it is a symbolic link; refusing to write through it"), whoever owns
 *    it and wherever it points (links in the directories above are
 *    followed: the user chose them);
 *  - a new file is created with mode 0600 (less with the umask);
 *  - an existing path is written into only when it is a regular file owned
 *    by the effective user with a single link (EPERM, EMLINK otherwise: a
 *    hard link planted to someone's file, or another user's file, is never
 *    truncated), a FIFO owned by the effective user (EPERM otherwise: a
 *    planted FIFO would block the opener until someone reads it), or a
 *    character device (/dev/null; only root makes those). Anything else is
 *    refused (EINVAL). A regular file is truncated only after these checks,
 *    on the open descriptor (no race between the check and the write), and
 *    keeps its mode, as a shell redirection does;
 *  - HW_FILE_NEW: the file must not exist at all (O_EXCL; a dangling link
 *    counts as existing): EEXIST;
 *  - HW_FILE_FRESH: the same, except that a regular file of the effective
 *    user's with one link already there (a previous run's) is removed first,
 *    so the file written is always one this call created.
 * HotSpot refuses an existing dump file unless told to overwrite it, then
 * follows links; the original hprof created 0644 files through any link.
 * Overwriting the user's own regular file stays the default here (it is
 * what force=y, the original's default, means). */
#define HW_FILE_NEW 1u   /* the file must not exist */
#define HW_FILE_FRESH 2u /* must be created here; a stale file of ours is replaced */
#define HW_FILE_READ 4u  /* opened read-write (default: write-only) */

/* Opens `path` for writing as the rules above say. Returns the fd
 * (close-on-exec, at offset 0, empty if a regular file), or -1 with *err set
 * to the errno value and, when why/whylen are given, a reason for messages
 * ("it is a symbolic link; refusing to write through it", or the errno
 * text) that does not repeat the path. */
HPROF_API int hw_file_create(const char *path, unsigned flags, int *err, char *why, size_t whylen);
/* hw_file_create as a sink (described by its path in writer messages). */
HPROF_API hw_sink *hw_sink_file_ex(const char *path, unsigned flags, int *err, char *why,
                                   size_t whylen);
/* hw_sink_file_ex(path, 0, err, NULL, 0): an output file as above, mode 0600
 * if new. On failure returns NULL and sets *err to the errno value. */
HPROF_API hw_sink *hw_sink_file(const char *path, int *err);
/* Writes to an open fd (file, pipe, socket). EINTR and short writes are
 * handled; SIGPIPE is not raised (MSG_NOSIGNAL on sockets). If `owns` the fd
 * is closed with the sink. */
HPROF_API hw_sink *hw_sink_fd(int fd, int owns);
/* Appends to a growable memory buffer; `reserve` is an initial capacity hint.
 * A memory sink is not destroyed by hw_writer_close: read it with
 * hw_sink_memory_data, then free it with hw_sink_free. */
HPROF_API hw_sink *hw_sink_memory(size_t reserve);
HPROF_API const uint8_t *hw_sink_memory_data(const hw_sink *s, size_t *len);
/* Caller-defined sink (tests use one that fails with ENOSPC after N bytes). */
HPROF_API hw_sink *hw_sink_custom(hw_sink_write_fn wr, hw_sink_close_fn cl, void *ctx);
/* gzip in HotSpot's `-gz` layout over `inner`: one complete gzip member
 * per HW_GZIP_BLOCK_SIZE (1 MiB) of uncompressed bytes, the last one
 * shorter, each with the FCOMMENT HW_GZIP_COMMENT (as JDK 17; JDK 25 names
 * it on the first member only); at least one member. `level` is zlib's
 * (-1 default, 0-9). Streams with bounded memory (a block in, a block out);
 * never patchable. Takes ownership of `inner` (closed and freed with this
 * sink), except a memory sink, which the caller frees after this one. The
 * first failure of `inner` is sticky: later writes return it. Returns NULL
 * with *err = EINVAL (no inner, bad level) or ENOMEM; `inner` is then still
 * the caller's. */
#define HW_GZIP_BLOCK_SIZE (1u << 20)
#define HW_GZIP_COMMENT "HPROF BLOCKSIZE=1048576"
HPROF_API hw_sink *hw_sink_gzip(hw_sink *inner, int level, int *err);
/* Members completed so far by a gzip sink (0 for any other sink). */
HPROF_API uint64_t hw_sink_gzip_members(const hw_sink *s);
/* Frees a sink that no writer owns (a memory sink after its writer closed,
 * or any sink never handed to hw_writer_open). Closes it first if needed. */
HPROF_API void hw_sink_free(hw_sink *s);

/* ------------------------------------------------------ whole output files
 *
 * The one way the hprof commands write an output FILE named by the user
 * (-o OUT), so that a failed run never leaves a partial or destroyed file
 * and nothing planted at the path redirects the bytes:
 *  - "-": standard output, written in place (never closed here);
 *  - a character device (/dev/null) or a FIFO: written in place, opened by
 *    hw_file_create's rules (a FIFO of another user's is refused), never
 *    removed or replaced;
 *  - a symbolic link: refused (ELOOP), its target untouched;
 *  - anything else that exists and is no regular file: refused (EINVAL);
 *  - a regular file (existing or not): the bytes go to a new file
 *    OUT.tmp.PID next to it (HW_FILE_FRESH: created by this call, 0600, no
 *    link followed), renamed over OUT by hw_outfile_commit only; an
 *    existing OUT is checked first as hw_file_create would (ours, one link:
 *    EPERM, EMLINK otherwise) and stays intact until the rename;
 *  - the output is the input (`in`, same st_dev and st_ino, "-" meaning
 *    standard input; standard output checked too): refused (EINVAL), before
 *    anything is opened or truncated.
 * Errors are values: NULL, *err set, and `msg` "OUT: reason" (the reason
 * does not repeat the path) for "hprof: %s" messages. */
typedef struct hw_outfile hw_outfile;

HPROF_API hw_outfile *hw_outfile_open(const char *path, const char *in, int *err, char *msg,
                                      size_t msglen);
/* The descriptor to write (the temporary file, the device, or 1). */
HPROF_API int hw_outfile_fd(const hw_outfile *o);
/* A stdio stream over hw_outfile_fd (made on first call, stdout for "-");
 * owned by the outfile: flushed and closed by commit/abort. NULL: ENOMEM. */
HPROF_API FILE *hw_outfile_stream(hw_outfile *o);
/* 1 when the bytes go to a fresh regular file of this call's at offset 0,
 * not opened O_APPEND: it may be seeked back, truncated and rewritten. */
HPROF_API int hw_outfile_rewindable(const hw_outfile *o);
/* The path written now (OUT.tmp.PID, OUT, or "(stdout)"), for messages. */
HPROF_API const char *hw_outfile_name(const hw_outfile *o);
/* Flushes and closes (not stdout), renames a temporary file over OUT, frees
 * `o`. Returns 0, or an errno value with msg "PATH: strerror"; on failure
 * the temporary file is removed and OUT is as it was. */
HPROF_API int hw_outfile_commit(hw_outfile *o, char *msg, size_t msglen);
/* Closes (not stdout), removes a temporary file, frees `o` (NULL: nothing).
 * A device, FIFO or stdout keeps what was written; OUT is as it was. */
HPROF_API void hw_outfile_abort(hw_outfile *o);

/* ----------------------------------------------------------------- writer */

typedef struct hw_writer hw_writer;

typedef enum hw_heap_mode {
    HW_HEAP_SEGMENTED = 0, /* 0x1C segments + 0x2C END (default) */
    HW_HEAP_SINGLE = 1     /* one 0x0C record per dump */
} hw_heap_mode;

typedef enum hw_clock {
    HW_CLOCK_REAL = 0, /* header = now (ms); record time = µs since then */
    HW_CLOCK_FIXED = 1 /* header = `timestamp_ms`, every record time 0: deterministic */
} hw_clock;

#define HW_DEFAULT_BUFFER_SIZE (1u << 20)
#define HW_DEFAULT_SEGMENT_SIZE (1u << 20)

typedef struct hw_options {
    unsigned id_size;       /* 4 or 8; default 8 */
    hprof_version version;  /* default 1.0.2 */
    hw_heap_mode heap_mode; /* default segmented */
    hw_clock clock;         /* default real */
    uint64_t timestamp_ms;  /* header timestamp for HW_CLOCK_FIXED */
    size_t buffer_size;     /* output buffer; default 1 MiB, raised to hold a segment */
    uint32_t segment_size;  /* max bytes of sub-records per segment; default 1 MiB */
    int io_thread;          /* 1: a helper thread writes while the caller encodes */
    int raw;                /* 1: no HPROF header; only hw_raw_bytes (text outputs
                               that want the buffering and the I/O thread) */
} hw_options;

HPROF_API void hw_options_init(hw_options *o);

/* Opens a writer on `sink` (taking ownership; see hw_sink_memory for the one
 * exception) and writes the file header. Returns NULL only if out of memory
 * or options are invalid; then *err (if given) holds the errno value and the
 * sink has been freed (except a memory sink, which the caller always frees).
 * A header write failure is latched, not returned. */
HPROF_API hw_writer *hw_writer_open(hw_sink *sink, const hw_options *o, int *err);

/* 0 or the latched errno value. */
HPROF_API int hw_writer_error(const hw_writer *w);
/* The latched error as a sentence ("write failed: No space left on device"),
 * or "" when there is none. Valid until the writer is closed. */
HPROF_API const char *hw_writer_error_text(const hw_writer *w);
/* Bytes accepted so far (header included), whether or not flushed. */
HPROF_API uint64_t hw_writer_offset(const hw_writer *w);
HPROF_API unsigned hw_writer_id_size(const hw_writer *w);
/* Pushes buffered bytes to the sink (refused with EINVAL inside a single-mode
 * heap dump, whose length is not known yet). */
HPROF_API int hw_writer_flush(hw_writer *w);
/* True when written bytes can be overwritten with hw_writer_patch: the sink
 * is a regular file (not opened for appending) or memory. */
HPROF_API int hw_writer_can_patch(const hw_writer *w);
/* Overwrites `len` bytes already written at `offset` (as hw_writer_offset
 * counts), after a flush (which closes an open heap segment): for records
 * whose contents are known only after later ones (the agent's CLASS DUMPs,
 * whose static values the heap walk finds). The caller keeps every length
 * field true. A sink that cannot be overwritten, or a range not written yet,
 * is refused with EINVAL; a write failure is latched like any other. */
HPROF_API int hw_writer_patch(hw_writer *w, uint64_t offset, const void *data, size_t len);
/* Appends bytes encoded elsewhere, as they are: flushes first (closing an
 * open heap segment), then hands them to the sink. For a caller that wrote
 * part of the file through another writer (the agent's heap walk into a
 * temporary file): inside a heap dump, the caller vouches that they are
 * whole HEAP DUMP SEGMENT records, or continue those spliced before, and
 * that the writer's next record starts where they end. Flags:
 *  - HW_SPLICE_GZIP: the sink is a gzip sink (hw_sink_gzip) at a block
 *    boundary and `data` complete gzip members in its layout that inflate
 *    to `plain_len` bytes, whole blocks: passed through without inflating
 *    (EINVAL otherwise). Without it, `data` is plain HPROF (compressed by a
 *    gzip sink as any write) and plain_len must be len.
 *  - HW_SPLICE_HEAP_END: `data` ends with the HEAP DUMP END of the heap
 *    dump open in the writer, which is then over (hw_heap_end is not called).
 * hw_writer_offset counts plain_len. Returns 0 or the latched error. */
#define HW_SPLICE_GZIP 1u
#define HW_SPLICE_HEAP_END 2u
HPROF_API int hw_writer_splice(hw_writer *w, const void *data, size_t len, unsigned flags,
                               uint64_t plain_len);
/* Ends an open heap dump (hw_heap_end), flushes, closes the sink, frees the
 * writer. Returns 0 or the first error; if `msg` is given, the error sentence
 * is copied there (NUL-terminated, truncated to `msglen`). */
HPROF_API int hw_writer_close(hw_writer *w, char *msg, size_t msglen);

/* --------------------------------------------------------- plain records */

HPROF_API int hw_utf8(hw_writer *w, hprof_id id, const char *s, size_t len);
/* Same, with strlen(s). */
HPROF_API int hw_utf8z(hw_writer *w, hprof_id id, const char *s);
HPROF_API int hw_load_class(hw_writer *w, uint32_t class_serial, hprof_id class_id,
                            uint32_t trace_serial, hprof_id name_id);
HPROF_API int hw_unload_class(hw_writer *w, uint32_t class_serial);
HPROF_API int hw_frame(hw_writer *w, hprof_id frame_id, hprof_id method_name_id,
                       hprof_id method_sig_id, hprof_id source_file_id,
                       uint32_t class_serial, int32_t line);
HPROF_API int hw_trace(hw_writer *w, uint32_t trace_serial, uint32_t thread_serial,
                       uint32_t nframes, const hprof_id *frame_ids);

typedef struct hw_alloc_site {
    uint8_t array_type; /* 0 = not an array, else the element hprof_type */
    uint32_t class_serial;
    uint32_t trace_serial;
    uint32_t live_bytes;
    uint32_t live_instances;
    uint32_t alloc_bytes;
    uint32_t alloc_instances;
} hw_alloc_site;

typedef struct hw_alloc_sites_head {
    uint16_t flags; /* HPROF_SITES_* */
    float cutoff;   /* written as its IEEE-754 bits */
    uint32_t total_live_bytes;
    uint32_t total_live_instances;
    uint64_t total_alloc_bytes;
    uint64_t total_alloc_instances;
} hw_alloc_sites_head;

HPROF_API int hw_alloc_sites(hw_writer *w, const hw_alloc_sites_head *h,
                             const hw_alloc_site *sites, uint32_t nsites);
HPROF_API int hw_heap_summary(hw_writer *w, uint32_t live_bytes, uint32_t live_instances,
                              uint64_t alloc_bytes, uint64_t alloc_instances);
HPROF_API int hw_start_thread(hw_writer *w, uint32_t thread_serial, hprof_id thread_id,
                              uint32_t trace_serial, hprof_id name_id,
                              hprof_id group_name_id, hprof_id parent_group_name_id);
HPROF_API int hw_end_thread(hw_writer *w, uint32_t thread_serial);

typedef struct hw_cpu_sample {
    uint32_t count;
    uint32_t trace_serial;
} hw_cpu_sample;

HPROF_API int hw_cpu_samples(hw_writer *w, uint32_t total, const hw_cpu_sample *s,
                             uint32_t n);
HPROF_API int hw_control_settings(hw_writer *w, uint32_t flags, uint16_t depth);
/* Any record, body given raw (fixtures of unknown tags; converters). Refused
 * with EINVAL for the heap dump tags, which have their own API. */
HPROF_API int hw_raw_record(hw_writer *w, uint8_t tag, const void *body, uint32_t len);

/* Appends bytes as they are (a writer opened with `raw`: text output).
 * Refused with EINVAL in a heap dump or a streaming sub-record. */
HPROF_API int hw_raw_bytes(hw_writer *w, const void *data, size_t len);

/* -------------------------------------------------------------- heap dump */

/* Starts a heap dump. A plain record written while a segmented dump is open
 * closes the current segment first (single mode refuses it with EINVAL). */
HPROF_API int hw_heap_begin(hw_writer *w);
/* Closes the last segment and writes HEAP DUMP END (segmented), or emits the
 * single 0x0C record (single mode). A dump with no sub-record writes no
 * segment, only the END (nothing at all in single mode: VisualVM rejects a
 * zero-length record). */
HPROF_API int hw_heap_end(hw_writer *w);
/* Appends one HEAP DUMP SEGMENT whose body is `len` bytes of complete
 * sub-records, encoded by another writer with the same id size: a heap dump
 * spilled to a temporary file and copied in (the agent writes class dumps
 * before the objects that a single heap walk finds first). Closes the open
 * segment first. Segmented mode only (EINVAL otherwise); len 0 writes
 * nothing. The caller vouches for the body: it is not parsed. Afterwards the
 * body starts at hw_writer_offset() - len (for hw_writer_patch). */
HPROF_API int hw_heap_segment_raw(hw_writer *w, const void *body, uint32_t len);
/* Number of HEAP DUMP SEGMENT records written so far (all dumps). */
HPROF_API uint64_t hw_heap_segments(const hw_writer *w);

/* Roots. Which arguments a tag uses:
 *   UNKNOWN, STICKY CLASS, MONITOR USED, 0x89-0x8D, 0x90: obj only
 *   JNI GLOBAL: obj, ref (the JNI global ref id)
 *   JNI LOCAL, JAVA FRAME, JNI MONITOR (0x8E): obj, thread_serial, frame
 *   NATIVE STACK, THREAD BLOCK: obj, thread_serial
 *   THREAD OBJECT: obj, thread_serial, frame = the stack trace serial
 * Any other tag is refused with EINVAL. */
HPROF_API int hw_root(hw_writer *w, uint8_t tag, hprof_id obj, uint32_t thread_serial,
                      uint32_t frame, hprof_id ref);
/* Android HEAP DUMP INFO (0xFE). */
HPROF_API int hw_heap_dump_info(hw_writer *w, uint32_t heap_type, hprof_id heap_name_id);

/* A typed value, for constant pool entries and static fields. Object values
 * and floats are given by bits: `.u` carries the id, or the raw float/double
 * bits, or the integer value (truncated to the type's size). */
typedef struct hw_value {
    uint8_t type; /* hprof_type */
    uint64_t u;
} hw_value;

typedef struct hw_cp_entry {
    uint16_t index;
    hw_value value;
} hw_cp_entry;

typedef struct hw_static_field {
    hprof_id name_id;
    hw_value value;
} hw_static_field;

typedef struct hw_field {
    hprof_id name_id;
    uint8_t type;
} hw_field;

typedef struct hw_class {
    hprof_id class_id;
    uint32_t trace_serial;
    hprof_id super_id, loader_id, signers_id, protection_domain_id;
    hprof_id reserved1, reserved2;
    uint32_t instance_size; /* bytes of this class's instance data chain */
    uint16_t ncp;
    const hw_cp_entry *cp;
    uint16_t nstatics;
    const hw_static_field *statics;
    uint16_t nfields;
    const hw_field *fields;
} hw_class;

HPROF_API int hw_class_dump(hw_writer *w, const hw_class *c);

/* INSTANCE DUMP with its field values already encoded (big-endian, this
 * class's fields, then the super's, ...). */
HPROF_API int hw_instance_dump(hw_writer *w, hprof_id obj, uint32_t trace_serial,
                               hprof_id class_id, const void *values, uint32_t nbytes);
/* OBJ ARRAY DUMP; `elems` may be NULL when n == 0. */
HPROF_API int hw_obj_array_dump(hw_writer *w, hprof_id obj, uint32_t trace_serial,
                                hprof_id array_class_id, uint32_t n, const hprof_id *elems);
/* PRIM ARRAY DUMP; `elems` holds n elements of `type` in the host's native
 * order (as JNI/JVMTI hand them out); the writer makes them big-endian. */
HPROF_API int hw_prim_array_dump(hw_writer *w, hprof_id obj, uint32_t trace_serial,
                                 uint8_t type, uint32_t n, const void *elems);

/* Streaming form of INSTANCE / OBJ ARRAY DUMP for callers that produce the
 * values one by one (the agent's heap walk): begin with the exact count,
 * put exactly that many bytes/ids, then end. A mismatch is latched as EINVAL. */
HPROF_API int hw_instance_begin(hw_writer *w, hprof_id obj, uint32_t trace_serial,
                                hprof_id class_id, uint32_t nbytes);
HPROF_API int hw_obj_array_begin(hw_writer *w, hprof_id obj, uint32_t trace_serial,
                                 hprof_id array_class_id, uint32_t n);
HPROF_API int hw_put_u1(hw_writer *w, uint8_t v);
HPROF_API int hw_put_u2(hw_writer *w, uint16_t v);
HPROF_API int hw_put_u4(hw_writer *w, uint32_t v);
HPROF_API int hw_put_u8(hw_writer *w, uint64_t v);
HPROF_API int hw_put_id(hw_writer *w, hprof_id v);
HPROF_API int hw_sub_end(hw_writer *w);

#ifdef __cplusplus
}
#endif

#endif /* HPROF_HW_WRITER_H */
