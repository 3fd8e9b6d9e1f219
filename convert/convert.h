/*
 * convert.h: libhprofconvert: rewrites an HPROF file into another variant
 * (id size 4/8, 1.0.1 single HEAP DUMP or 1.0.2 segments, Android 1.0.3 to
 * standard 1.0.2, plain or gzip in HotSpot's -gz layout), streaming.
 *
 * Contract:
 *  - Input: plain or gzip (any gzip, multi-member included), from a file,
 *    standard input ("-") or memory. Every length is checked against what
 *    is really there; a malformed file ends the conversion with a message
 *    naming the offset (uncompressed) and what is wrong, never a crash.
 *  - Memory: the class layouts (field types of every CLASS DUMP, kept only
 *    when ids change size), one output segment, an input window: nothing
 *    grows with the size of the file. Converting to 1.0.1 reads each heap
 *    dump twice (its length comes first); an INSTANCE DUMP met before its
 *    CLASS DUMP when ids change size makes one pass over the whole input
 *    collecting class dumps first. Both need an input that can be read
 *    again (a file or memory, not a pipe).
 *  - Output: convert_file opens OUT by hw_outfile's rules (hw_writer.h):
 *    a regular OUT is written as OUT.tmp.PID next to it and renamed only
 *    when everything went well, so a failed conversion leaves the previous
 *    OUT as it was (and no temporary file), never something that could pass
 *    for a whole one. An OUT that exists is first checked as hw_file_create
 *    would (no link, no other user's file, no file with other names); "-"
 *    (standard output), a FIFO or a character device (/dev/null) is written
 *    in place; OUT being the input file is refused.
 *  - Errors are values: 0, or CONVERT_EINPUT / CONVERT_EOUTPUT with a
 *    sentence in msg. Nothing is printed; the library has no globals.
 */
#ifndef HPROF_CONVERT_H
#define HPROF_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "hprof/hprof_format.h"
#include "hprof/hw_writer.h"

#define CONVERT_EINPUT 1  /* the input is malformed or cannot be converted so */
#define CONVERT_EOUTPUT 2 /* writing the output failed */

typedef struct convert_options {
    unsigned id_size;       /* 4 or 8; 0 keeps the input's */
    hprof_version version;  /* 1.0.1 or 1.0.2; 0 keeps the input's (1.0.3 -> 1.0.2) */
    uint32_t segment_size;  /* 1.0.2 output: most sub-record bytes per segment;
                               0 = HW_DEFAULT_SEGMENT_SIZE. Given, segments are
                               always re-cut */
    int gzip;               /* 1: gzip output (hw_sink_gzip), 0: plain */
    int gzip_level;         /* zlib level for gzip (-1 zlib default, 0-9); default 1, as jcmd -gz=1 */
    int app_only;           /* Android: drop the objects of the zygote and
                               image heaps (hprof-conv -z) */
    int renumber;           /* ids that are not objects (names: UTF8; stack
                               frames; JNI global refs) become 1, 2, 3... in
                               order of first sight, per kind: HotSpot's are
                               addresses (Symbol*, Method*, jobject) that
                               never fit 4 bytes. Object ids are kept */
} convert_options;

typedef struct convert_stats {
    uint64_t in_bytes;       /* uncompressed bytes read (first pass) */
    uint64_t out_bytes;      /* uncompressed bytes written */
    uint64_t records;        /* top-level records written */
    uint64_t subs;           /* heap sub-records written */
    uint64_t segments;       /* HEAP DUMP SEGMENTs written */
    uint64_t heap_dumps;     /* HEAP DUMP (0x0C) records written */
    uint64_t ids;            /* ids rewritten to another size */
    uint64_t android_roots;  /* 0x89-0x8E, 0x90 written as ROOT UNKNOWN */
    uint64_t android_infos;  /* HEAP DUMP INFO dropped */
    uint64_t nodata_arrays;  /* 0xC3 expanded to zero-filled arrays */
    uint64_t app_only_dropped; /* objects of zygote/image heaps dropped */
    uint64_t unknown_records;  /* unknown tags copied as they are */
    int class_prepass;       /* 1: an instance came before its class dump */
    int recut;               /* 1: heap dump segments were re-cut */
} convert_stats;

/* Defaults: keep id size and version, plain output, zlib's level. */
void convert_options_init(convert_options *o);

/* Converts the file `in` ("-": standard input) into `out` ("-": standard
 * output, where a failure may leave a prefix behind). Returns 0,
 * CONVERT_EINPUT or CONVERT_EOUTPUT; `msg` gets the reason. */
int convert_file(const char *in, const char *out, const convert_options *o,
                 convert_stats *st, char *msg, size_t msglen);

/* Converts `len` bytes of memory (plain or gzip) into `out`, which is
 * consumed (closed and freed, except a memory sink, which the caller reads
 * and frees). Same results as convert_file. */
int convert_memory(const void *in, size_t len, hw_sink *out, const convert_options *o,
                   convert_stats *st, char *msg, size_t msglen);

#endif /* HPROF_CONVERT_H */
