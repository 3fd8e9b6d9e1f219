/*
 * hprof_format.h: every constant of the HPROF binary format, in one place.
 *
 * Owns: record tags, heap sub-record tags, basic type codes and their sizes,
 * header strings, flag bits and special line numbers. Nothing else in the
 * project spells one of these numbers; it includes this header instead.
 * Sources: the JDK's hprof_b_spec.h (1.0.1/1.0.2), HotSpot's heapDumper.cpp,
 * and Android's 1.0.3 extensions (ART hprof.cc).
 */
#ifndef HPROF_FORMAT_H
#define HPROF_FORMAT_H

#include <stdint.h>
#include <stddef.h>

/* Marks the library's public API; everything else has hidden visibility. */
#if defined(__GNUC__)
#define HPROF_API __attribute__((visibility("default")))
#else
#define HPROF_API
#endif

/* An HPROF identifier; written with the file's id size (4 or 8 bytes). */
typedef uint64_t hprof_id;

/* ---- header ---- */
typedef enum hprof_version {
    HPROF_VERSION_1_0_1 = 1, /* original agent, JDK <= 5: no segments */
    HPROF_VERSION_1_0_2 = 2, /* HEAP DUMP SEGMENT + END; what HotSpot writes */
    HPROF_VERSION_1_0_3 = 3  /* Android (ART); jhat rejects it */
} hprof_version;

#define HPROF_MAGIC_1_0_1 "JAVA PROFILE 1.0.1"
#define HPROF_MAGIC_1_0_2 "JAVA PROFILE 1.0.2"
#define HPROF_MAGIC_1_0_3 "JAVA PROFILE 1.0.3"
#define HPROF_MAGIC_LEN 18u               /* without the terminating NUL */
#define HPROF_HEADER_SIZE (HPROF_MAGIC_LEN + 1u + 4u + 8u) /* 31 bytes */
#define HPROF_RECORD_HEADER_SIZE 9u       /* u1 tag, u4 time, u4 length */
#define HPROF_U4_MAX 0xFFFFFFFFu

/* ---- top-level record tags ---- */
enum hprof_tag {
    HPROF_TAG_UTF8 = 0x01,
    HPROF_TAG_LOAD_CLASS = 0x02,
    HPROF_TAG_UNLOAD_CLASS = 0x03,
    HPROF_TAG_FRAME = 0x04,
    HPROF_TAG_TRACE = 0x05,
    HPROF_TAG_ALLOC_SITES = 0x06,
    HPROF_TAG_HEAP_SUMMARY = 0x07,
    HPROF_TAG_START_THREAD = 0x0A,
    HPROF_TAG_END_THREAD = 0x0B,
    HPROF_TAG_HEAP_DUMP = 0x0C,
    HPROF_TAG_CPU_SAMPLES = 0x0D,
    HPROF_TAG_CONTROL_SETTINGS = 0x0E,
    HPROF_TAG_HEAP_DUMP_SEGMENT = 0x1C,
    HPROF_TAG_HEAP_DUMP_END = 0x2C
};

/* ---- heap dump sub-record tags ---- */
enum hprof_sub {
    HPROF_GC_ROOT_JNI_GLOBAL = 0x01,   /* id obj, id jni-ref */
    HPROF_GC_ROOT_JNI_LOCAL = 0x02,    /* id obj, u4 thread, u4 frame */
    HPROF_GC_ROOT_JAVA_FRAME = 0x03,   /* id obj, u4 thread, u4 frame */
    HPROF_GC_ROOT_NATIVE_STACK = 0x04, /* id obj, u4 thread */
    HPROF_GC_ROOT_STICKY_CLASS = 0x05, /* id obj */
    HPROF_GC_ROOT_THREAD_BLOCK = 0x06, /* id obj, u4 thread */
    HPROF_GC_ROOT_MONITOR_USED = 0x07, /* id obj */
    HPROF_GC_ROOT_THREAD_OBJ = 0x08,   /* id obj, u4 thread, u4 trace */
    HPROF_GC_CLASS_DUMP = 0x20,
    HPROF_GC_INSTANCE_DUMP = 0x21,
    HPROF_GC_OBJ_ARRAY_DUMP = 0x22,
    HPROF_GC_PRIM_ARRAY_DUMP = 0x23,
    /* Android (1.0.3) extensions; VisualVM knows them, jhat does not */
    HPROF_GC_ROOT_INTERNED_STRING = 0x89,   /* id obj */
    HPROF_GC_ROOT_FINALIZING = 0x8A,        /* id obj */
    HPROF_GC_ROOT_DEBUGGER = 0x8B,          /* id obj */
    HPROF_GC_ROOT_REFERENCE_CLEANUP = 0x8C, /* id obj */
    HPROF_GC_ROOT_VM_INTERNAL = 0x8D,       /* id obj */
    HPROF_GC_ROOT_JNI_MONITOR = 0x8E,       /* id obj, u4 thread, u4 frame */
    HPROF_GC_ROOT_UNREACHABLE = 0x90,       /* id obj */
    HPROF_GC_PRIM_ARRAY_NODATA = 0xC3,      /* id obj, u4 trace, u4 n, u1 type: no elements
                                               (old Android; hprof-conv rewrites it) */
    HPROF_GC_HEAP_DUMP_INFO = 0xFE,         /* u4 heap type, id heap name */
    HPROF_GC_ROOT_UNKNOWN = 0xFF            /* id obj */
};

/* Android HEAP DUMP INFO heap types (ART's HprofHeapId) */
enum hprof_heap_id {
    HPROF_HEAP_DEFAULT = 0,
    HPROF_HEAP_ZYGOTE = 'Z',
    HPROF_HEAP_APP = 'A',
    HPROF_HEAP_IMAGE = 'I'
};

/* ---- basic types (field, array element and constant pool types) ---- */
enum hprof_type {
    HPROF_TYPE_OBJECT = 2,
    HPROF_TYPE_BOOLEAN = 4,
    HPROF_TYPE_CHAR = 5,
    HPROF_TYPE_FLOAT = 6,
    HPROF_TYPE_DOUBLE = 7,
    HPROF_TYPE_BYTE = 8,
    HPROF_TYPE_SHORT = 9,
    HPROF_TYPE_INT = 10,
    HPROF_TYPE_LONG = 11
};

/* Size in bytes of a value of type `t` in a file with `id_size`; 0 if `t`
 * is not a valid basic type. */
static inline unsigned hprof_type_size(unsigned t, unsigned id_size)
{
    switch (t) {
    case HPROF_TYPE_OBJECT: return id_size;
    case HPROF_TYPE_BOOLEAN: case HPROF_TYPE_BYTE: return 1;
    case HPROF_TYPE_CHAR: case HPROF_TYPE_SHORT: return 2;
    case HPROF_TYPE_FLOAT: case HPROF_TYPE_INT: return 4;
    case HPROF_TYPE_DOUBLE: case HPROF_TYPE_LONG: return 8;
    default: return 0;
    }
}

/* True for the eight primitive types (valid PRIM ARRAY element types). */
static inline int hprof_type_is_primitive(unsigned t)
{
    return t >= HPROF_TYPE_BOOLEAN && t <= HPROF_TYPE_LONG;
}

/* ---- flags ---- */
/* ALLOC SITES u2 flags */
#define HPROF_SITES_INCREMENTAL 0x0001u
#define HPROF_SITES_SORT_BY_ALLOC 0x0002u
#define HPROF_SITES_FORCE_GC 0x0004u
/* The agent's binary ALLOC SITES carry what the format cannot hold in UTF8 records
 * (ids far above any name's, text starting "HPROF SITES "), written
 * just before the record they describe, each only when needed:
 *   "HPROF SITES NOTE: <text>"  live counts not exact, and why;
 *   "HPROF SITES SAMPLES: <bytes> <a>/<l> ..."  sample=BYTES: per row of
 *       the record, in its order, the allocation and live samples behind
 *       the scaled figures;
 *   "HPROF SITES U8: <tlb> <tli> <i>:<lb>,<li>,<ab>,<ai> ..."  true values
 *       where a u4 field saturated (4294967295): the totals of live bytes
 *       and instances, then each such row by its index in the record.
 * hprof's agent writes them; `hprof sites` reads them; other readers skip
 * them (a UTF8 record nothing refers to). Binary readers also see whether
 * live counts follow a forced GC: HPROF_SITES_FORCE_GC in the flags. */
#define HPROF_SITES_NOTE "HPROF SITES NOTE: "
#define HPROF_SITES_SAMPLES "HPROF SITES SAMPLES: "
#define HPROF_SITES_U8 "HPROF SITES U8: "
/* The run's settings, once, as a UTF8 record nothing refers to (binary)
 * or a line of the prelude, before its "--------" (text):
 *   "HPROF RUN: heap=sites; cpu=samples; interval=10; depth=4; ...;
 *    jvm=<java.vm.name> <java.vm.version>; options=<the option string>"
 * "key=value" pairs separated by "; ", options last (it may hold "; ").
 * hprof's agent writes it; `hprof report` shows it; other readers skip it.
 * A file holding heap dumps alone (HotSpot's records only) has none. */
#define HPROF_RUN_NOTE "HPROF RUN: "
/* zlib level of gzip'd dumps (the agent's gzip=y, heap=dump's conversion):
 * jcmd GC.heap_dump's recommended -gz=1; higher levels cost 2-5x the time
 * for a file some 10 % smaller. The layout: hw_sink_gzip (hw_writer.h). */
#define HPROF_GZIP_LEVEL 1
/* CONTROL SETTINGS u4 flags */
#define HPROF_CTRL_ALLOC_TRACES 0x00000001u
#define HPROF_CTRL_CPU_SAMPLING 0x00000002u

/* ---- FRAME line numbers ---- */
#define HPROF_LINE_UNKNOWN (-1)
#define HPROF_LINE_COMPILED (-2)
#define HPROF_LINE_NATIVE (-3)

/* ---- sizes of fixed parts (without the u1 sub-tag), as multiples of id ---- */
/* CLASS DUMP fixed part: 7 ids + u4 trace + u4 instance size */
#define HPROF_CLASS_DUMP_FIXED(idsz) (7u * (idsz) + 8u)
#define HPROF_INSTANCE_DUMP_FIXED(idsz) (2u * (idsz) + 8u)
#define HPROF_OBJ_ARRAY_DUMP_FIXED(idsz) (2u * (idsz) + 8u)
#define HPROF_PRIM_ARRAY_DUMP_FIXED(idsz) ((idsz) + 9u)

/* ---- body lengths of top-level records (without the 9-byte record header) ---- */
/* LOAD CLASS: u4 class serial, id class, u4 trace serial, id name */
#define HPROF_LOAD_CLASS_SIZE(idsz) (2u * (idsz) + 8u)
#define HPROF_UNLOAD_CLASS_SIZE 4u  /* u4 class serial */
/* FRAME: id frame, id method name, id signature, id source file, u4 class
 * serial, i4 line */
#define HPROF_FRAME_SIZE(idsz) (4u * (idsz) + 8u)
/* TRACE: u4 serial, u4 thread serial, u4 n, then n frame ids */
#define HPROF_TRACE_FIXED 12u
/* ALLOC SITES: u2 flags, f4 cutoff, u4 live bytes, u4 live instances, u8
 * bytes allocated, u8 instances allocated, u4 n; then n sites of u1 is_array,
 * u4 class serial, u4 trace serial and four u4 counts */
#define HPROF_ALLOC_SITES_FIXED 34u
#define HPROF_ALLOC_SITE_SIZE 25u
/* HEAP SUMMARY: u4 live bytes, u4 live instances, u8 bytes, u8 instances */
#define HPROF_HEAP_SUMMARY_SIZE 24u
/* START THREAD: u4 serial, id thread, u4 trace serial, id name, id group
 * name, id parent group name */
#define HPROF_START_THREAD_SIZE(idsz) (4u * (idsz) + 8u)
#define HPROF_END_THREAD_SIZE 4u    /* u4 thread serial */
/* CPU SAMPLES: u4 total, u4 n, then n of (u4 count, u4 trace serial) */
#define HPROF_CPU_SAMPLES_FIXED 8u
#define HPROF_CPU_SAMPLE_SIZE 8u
#define HPROF_CONTROL_SETTINGS_SIZE 6u /* u4 flags, u2 stack depth */
#define HPROF_HEAP_DUMP_END_SIZE 0u

/* ---- sizes of GC root and Android sub-records (without the u1 sub-tag) ---- */
#define HPROF_ROOT_ID_FIXED(idsz) (idsz)                  /* id obj */
#define HPROF_ROOT_JNI_GLOBAL_FIXED(idsz) (2u * (idsz))   /* id obj, id jni-ref */
#define HPROF_ROOT_THREAD_FRAME_FIXED(idsz) ((idsz) + 8u) /* id obj, u4, u4 */
#define HPROF_ROOT_THREAD_FIXED(idsz) ((idsz) + 4u)       /* id obj, u4 thread */
#define HPROF_HEAP_DUMP_INFO_FIXED(idsz) ((idsz) + 4u)    /* u4 heap type, id name */
#define HPROF_PRIM_ARRAY_NODATA_FIXED(idsz) ((idsz) + 9u) /* id, u4 trace, u4 n, u1 type */
/* where CLASS DUMP's two reserved ids start, from its class id (after the
 * sub-tag): id class, u4 trace, id super, id loader, id signers, id
 * protection domain */
#define HPROF_CLASS_DUMP_RESERVED_OFF(idsz) (5u * (idsz) + 4u)

/* ---- byte lengths (and offsets) of fixed fields, for code that takes
 * records and sub-records apart field by field ---- */
#define HPROF_ID_SIZE_MAX 8u           /* the larger id size: buffer bounds */
#define HPROF_U2_LEN 2u
#define HPROF_U4_LEN 4u
#define HPROF_SUB_TAG_LEN 1u           /* u1 sub-record tag */
#define HPROF_RECORD_TIME_AT 1u        /* record header: u1 tag, then u4 time */
#define HPROF_RECORD_LENGTH_AT 5u      /* ... then u4 length */
/* GC roots: one id, or two (JNI GLOBAL: the object, then its JNI ref),
 * then the tail: u4 thread serial and u4 frame / depth (JNI LOCAL, JAVA
 * FRAME, THREAD OBJ, JNI MONITOR) or a u4 thread serial only (NATIVE
 * STACK, THREAD BLOCK); the *_FIXED sizes above are id + tail */
#define HPROF_ROOT_IDS_MAX 2u
#define HPROF_ROOT_THREAD_FRAME_TAIL_LEN 8u
#define HPROF_ROOT_THREAD_TAIL_LEN 4u
/* CLASS DUMP, after its fixed part: u2 constant pool count, entries of
 * u2 index + u1 type + value; u2 static count, statics of id name + u1
 * type + value; u2 field count, fields of id name + u1 type */
#define HPROF_CP_ENTRY_HEAD_LEN 3u
#define HPROF_FIELD_HEAD_LEN(idsz) ((idsz) + 1u)

/* Human-readable names, for tools and messages ("UTF8", "ROOT JNI GLOBAL").
 * Return NULL for an unknown tag. Defined in the writer library. */
HPROF_API const char *hprof_tag_name(unsigned tag);
HPROF_API const char *hprof_sub_name(unsigned sub);
HPROF_API const char *hprof_type_name(unsigned type); /* "int", "object", ... */

#endif /* HPROF_FORMAT_H */
