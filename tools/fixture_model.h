/*
 * fixture_model.h: the model behind `hprof fixture` (fixture.h): the classes,
 * threads, traces and strings of the fixture, the ids given to them, and the
 * sizes --objects drives. fixture_heap.c writes its heap dump from it,
 * fixture.c the records around the dump.
 *
 * Owns the model's tables (constant) and, per run, the fixture_ctx that
 * holds the options, the ids, the UTF8 table (freed by
 * fixture_model_cleanup) and the first model error. Every "random" value
 * comes from fixture_model_rand, a splitmix64 stream seeded by --seed and
 * drawn in a fixed order: the same options give the same bytes.
 */
#ifndef HPROF_TOOLS_FIXTURE_MODEL_H
#define HPROF_TOOLS_FIXTURE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "hprof/hw_writer.h"

#define FIXTURE_NPROPS 8
#define FIXTURE_NTHREADS 4 /* 3 live (rooted) + 1 ended */
#define FIXTURE_MAX_FIXED_STRINGS 64

/* ------------------------------------------------------------ the classes */

enum fixture_class_index {
    FX_OBJECT, FX_CLASS, FX_STRING, FX_STRINGUTF16, FX_SYSTEM, FX_THREAD,
    FX_THREADGROUP, FX_CLASSLOADER, FX_PROTDOMAIN, FX_DICTIONARY, FX_HASHTABLE,
    FX_PROPERTIES, FX_ABSTRACTMAP, FX_CHM, FX_CHM_NODE, FX_APPLOADER,
    FX_ARR_Z, FX_ARR_C, FX_ARR_F, FX_ARR_D, FX_ARR_B, FX_ARR_S, FX_ARR_I, FX_ARR_J,
    FX_ARR_II, FX_ARR_OBJECT, FX_ARR_STRING, FX_ARR_CHM_NODE,
    FX_MAIN, FX_NODE, FX_SUBNODE, FX_MARKER, FX_ARR_NODE,
    FX_NCLASSES
};
/* Classes before FX_MAIN belong to the boot loader: STICKY CLASS roots, no
 * loader, as HotSpot writes them. */
#define FX_FIRST_APP FX_MAIN

typedef struct fixture_fielddef {
    const char *name;
    uint8_t type;
} fixture_fielddef;

typedef struct fixture_classdef {
    const char *name; /* VM form: slashes, descriptor-style arrays */
    int super;        /* class index, -1 for java/lang/Object */
    const fixture_fielddef *fields;
    unsigned nfields;
    const fixture_fielddef *statics;
    unsigned nstatics;
    uint8_t array_type; /* 0: not an array; else the element's hprof_type */
} fixture_classdef;

#define T_OBJ HPROF_TYPE_OBJECT
#define T_Z HPROF_TYPE_BOOLEAN
#define T_C HPROF_TYPE_CHAR
#define T_F HPROF_TYPE_FLOAT
#define T_D HPROF_TYPE_DOUBLE
#define T_B HPROF_TYPE_BYTE
#define T_S HPROF_TYPE_SHORT
#define T_I HPROF_TYPE_INT
#define T_J HPROF_TYPE_LONG
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

extern const fixture_classdef fx_classes[FX_NCLASSES];
/* The eight primitive array classes, in hprof_type order (4..11). */
extern const int fx_prim_array_class[8];

/* -------------------------------------------------------- stack traces */

enum { FX_TRACE_EMPTY = 1, FX_TRACE_MAIN, FX_TRACE_WORKER1, FX_TRACE_WORKER2, FX_TRACE_ALLOC,
       FX_TRACE_SHORT, FX_NTRACES = FX_TRACE_SHORT };

typedef struct fixture_framedef {
    const char *method, *sig, *source; /* source NULL: id 0, as HotSpot for hidden frames */
    int cls;
    int32_t line;
} fixture_framedef;

#define FX_NFRAMES 9u
extern const fixture_framedef fx_frames[FX_NFRAMES];
/* Frame numbers (1-based into fx_frames), innermost first; 0 ends a list. */
extern const uint8_t fx_trace_frames[FX_NTRACES + 1][6];
/* The thread each trace belongs to (0: none). */
extern const uint32_t fx_trace_thread[FX_NTRACES + 1];
/* Written in this order: each thread's frames and traces together. */
/* (The empty trace is written on its own, before LOAD CLASS.) */
extern const int fx_trace_order[FX_NTRACES - 1];
extern const uint32_t fx_thread_trace[FIXTURE_NTHREADS];
/* The keys of System.props. */
extern const char *const fx_prop_keys[FIXTURE_NPROPS];

/* ------------------------------------------------------------ the model */

typedef struct fixture_opts {
    const char *out;
    unsigned id_size;
    hprof_version version;
    int version_given;
    uint64_t objects;
    uint32_t segment_size;
    int dot_names;
    uint64_t seed;
    int android;
} fixture_opts;

typedef struct fixture_class {
    hprof_id id;
    uint32_t serial;
    hprof_id name_utf8;
    hprof_id field_utf8[12];
    hprof_id static_utf8[12];
    uint32_t data_size;    /* instance data bytes of the whole chain */
    unsigned chain_fields; /* number of fields of the whole chain */
    uint64_t count, bytes; /* objects written, their shallow size (for sites) */
    uint32_t trace;        /* allocation trace of its objects */
} fixture_class;

typedef struct fixture_string {
    hprof_id id, value_id;
    char text[48]; /* UTF-8 */
} fixture_string;

typedef struct fixture_utf8 {
    char *s;
    hprof_id id;
} fixture_utf8;

typedef struct fixture_ctx {
    fixture_opts o;
    hw_writer *w;
    unsigned idsz;
    uint64_t rng;
    char err[256]; /* a model error (not the writer's), empty if none */

    hprof_id next_obj, next_utf8, next_jni;
    fixture_utf8 *utf8;
    size_t nutf8, cap_utf8;

    fixture_class cls[FX_NCLASSES];
    hprof_id gone_id, gone_utf8;
    uint32_t gone_serial;
    hprof_id frame_id[FX_NFRAMES + 1];
    hprof_id frame_method_utf8[FX_NFRAMES + 1], frame_sig_utf8[FX_NFRAMES + 1],
        frame_source_utf8[FX_NFRAMES + 1];
    hprof_id thread_name_utf8[FIXTURE_NTHREADS], group_main_utf8, group_system_utf8;
    hprof_id heap_image_utf8, heap_app_utf8;

    /* sizes driven by --objects */
    uint64_t nnodes, nsub, nrand, npad;
    uint32_t big_len;

    /* ids of the object graph */
    hprof_id nodes_base, sub_base, rstr_base, rval_base;
    fixture_string fstr[FIXTURE_MAX_FIXED_STRINGS];
    unsigned nfstr;
    unsigned s_fixture, s_utf16, s_unreachable, s_thread[FIXTURE_NTHREADS], s_group_main,
        s_group_system, s_loader, s_mirror[9], s_pkey[FIXTURE_NPROPS], s_pval[FIXTURE_NPROPS],
        s_linesep, s_node_static, s_marker[3], s_cp;
    hprof_id thread[FIXTURE_NTHREADS], group_system, group_main, apploader, pd;
    hprof_id mirror[9], markers[3];
    hprof_id props, chm, chm_table, chm_node[FIXTURE_NPROPS];
    hprof_id node_array, string_array, mixed, resolved, signers, arrays;
    hprof_id matrix, matrix_row[3];
    hprof_id prim[8][3]; /* per type: big, empty, seven */
    hprof_id jni_ref[2];

    /* totals */
    uint64_t objects, roots;
} fixture_ctx;

/* Builds the model for c->o: every id, name and size. A problem is left in
 * c->err. */
void fixture_model_build(fixture_ctx *c);

/* Frees what the model holds (the UTF8 table); c itself stays the caller's. */
void fixture_model_cleanup(fixture_ctx *c);

/* The next value of the --seed stream. */
uint64_t fixture_model_rand(fixture_ctx *c);
/* The bits of a float or double, as a field value. */
uint64_t fixture_model_fbits(float f);
uint64_t fixture_model_dbits(double d);
/* Records the first model error in c->err (later ones are dropped). */
void fixture_model_fail(fixture_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The String object of fixed string i. */
hprof_id fixture_model_str(const fixture_ctx *c, unsigned i);
/* The ids of Node i, SubNode i and random String i. */
hprof_id fixture_model_node(const fixture_ctx *c, uint64_t i);
hprof_id fixture_model_subnode(const fixture_ctx *c, uint64_t i);
hprof_id fixture_model_rstr(const fixture_ctx *c, uint64_t i);

#endif /* HPROF_TOOLS_FIXTURE_MODEL_H */
