/*
 * fixture.c: `hprof fixture OUT [options]`: writes a deterministic HPROF file
 * that exercises every record and heap sub-record type of libhprofwriter.
 *
 * Owns the fixture model (classes, ids, strings, threads, the object graph),
 * its option parsing and its emission through the writer API. The counts it
 * promises are documented in fixture.h; the layout copies HotSpot's (UTF8,
 * LOAD CLASS, TRACE/FRAME, then a heap dump of CLASS DUMPs, roots with each
 * THREAD OBJECT before its frame roots, then objects) and adds the legacy
 * records of the original agent around it.
 *
 * Determinism: the clock is fixed and every "random" value comes from a
 * splitmix64 stream seeded by --seed, drawn in a fixed order, so the same
 * options give the same bytes.
 */
#include "fixture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/hw_writer.h"

#define FIXTURE_TIMESTAMP_MS 1700000000000ull /* 2023-11-14T22:13:20Z */
#define FIXTURE_MAX_OBJECTS 50000000ull
#define FIXTURE_MAX_BIG_ARRAY (1u << 20)
#define FIXTURE_MIN_SEGMENT 64u
#define FIXTURE_MAX_SEGMENT (1u << 30) /* the writer buffers a whole segment */
#define FIXTURE_NRAND_MIN 16u
#define FIXTURE_NPROPS 8
#define FIXTURE_PROPS_TABLE 16
#define FIXTURE_NTHREADS 4 /* 3 live (rooted) + 1 ended */
#define FIXTURE_MAX_FIXED_STRINGS 64
#define FIXTURE_MAX_CHAIN_FIELDS 24

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
#define FIELDS(a) a, NELEM(a)
#define NOFIELDS NULL, 0

static const fixture_fielddef fx_class_f[] = {
    {"name", T_OBJ}, {"classLoader", T_OBJ}, {"componentType", T_OBJ}};
static const fixture_fielddef fx_string_f[] = {
    {"value", T_OBJ}, {"coder", T_B}, {"hash", T_I}, {"hashIsZero", T_Z}};
static const fixture_fielddef fx_string_s[] = {
    {"serialVersionUID", T_J}, {"COMPACT_STRINGS", T_Z}};
/* VisualVM decodes UTF-16 strings with these two shifts. */
static const fixture_fielddef fx_utf16_s[] = {{"HI_BYTE_SHIFT", T_I}, {"LO_BYTE_SHIFT", T_I}};
static const fixture_fielddef fx_system_s[] = {
    {"props", T_OBJ}, {"lineSeparator", T_OBJ}, {"out", T_OBJ}};
static const fixture_fielddef fx_thread_f[] = {
    {"name", T_OBJ}, {"priority", T_I}, {"daemon", T_Z}, {"tid", T_J},
    {"group", T_OBJ}, {"contextClassLoader", T_OBJ}};
static const fixture_fielddef fx_thread_s[] = {{"threadSeqNumber", T_J}};
static const fixture_fielddef fx_tgroup_f[] = {
    {"parent", T_OBJ}, {"name", T_OBJ}, {"maxPriority", T_I}, {"daemon", T_Z}};
static const fixture_fielddef fx_loader_f[] = {{"parent", T_OBJ}, {"name", T_OBJ}};
static const fixture_fielddef fx_pd_f[] = {{"codesource", T_OBJ}, {"hasAllPerm", T_Z}};
static const fixture_fielddef fx_hashtable_f[] = {
    {"table", T_OBJ}, {"count", T_I}, {"threshold", T_I}, {"loadFactor", T_F}, {"modCount", T_I}};
static const fixture_fielddef fx_props_f[] = {{"defaults", T_OBJ}, {"map", T_OBJ}};
static const fixture_fielddef fx_absmap_f[] = {{"keySet", T_OBJ}, {"values", T_OBJ}};
static const fixture_fielddef fx_chm_f[] = {
    {"table", T_OBJ}, {"nextTable", T_OBJ}, {"baseCount", T_J}, {"sizeCtl", T_I}};
static const fixture_fielddef fx_chm_s[] = {{"NCPU", T_I}, {"serialVersionUID", T_J}};
static const fixture_fielddef fx_chm_node_f[] = {
    {"hash", T_I}, {"key", T_OBJ}, {"val", T_OBJ}, {"next", T_OBJ}};
static const fixture_fielddef fx_main_s[] = {
    {"<resolved_references>", T_OBJ}, {"nodes", T_OBJ}, {"strings", T_OBJ},
    {"mixed", T_OBJ}, {"arrays", T_OBJ}, {"matrix", T_OBJ}};
static const fixture_fielddef fx_node_f[] = {
    {"z", T_Z}, {"b", T_B}, {"c", T_C}, {"sh", T_S}, {"i", T_I},
    {"l", T_J}, {"f", T_F}, {"d", T_D}, {"o", T_OBJ}, {"s", T_OBJ}};
static const fixture_fielddef fx_node_s[] = {
    {"sZ", T_Z}, {"sB", T_B}, {"sC", T_C}, {"sS", T_S}, {"sI", T_I},
    {"sJ", T_J}, {"sF", T_F}, {"sD", T_D}, {"sObj", T_OBJ}, {"sStr", T_OBJ}};
static const fixture_fielddef fx_subnode_f[] = {{"extra", T_J}, {"peer", T_OBJ}};
static const fixture_fielddef fx_marker_f[] = {{"id", T_I}, {"label", T_OBJ}};
static const fixture_fielddef fx_marker_s[] = {{"count", T_I}};

static const fixture_classdef fx_classes[FX_NCLASSES] = {
    [FX_OBJECT] = {"java/lang/Object", -1, NOFIELDS, NOFIELDS, 0},
    [FX_CLASS] = {"java/lang/Class", FX_OBJECT, FIELDS(fx_class_f), NOFIELDS, 0},
    [FX_STRING] = {"java/lang/String", FX_OBJECT, FIELDS(fx_string_f), FIELDS(fx_string_s), 0},
    [FX_STRINGUTF16] = {"java/lang/StringUTF16", FX_OBJECT, NOFIELDS, FIELDS(fx_utf16_s), 0},
    [FX_SYSTEM] = {"java/lang/System", FX_OBJECT, NOFIELDS, FIELDS(fx_system_s), 0},
    [FX_THREAD] = {"java/lang/Thread", FX_OBJECT, FIELDS(fx_thread_f), FIELDS(fx_thread_s), 0},
    [FX_THREADGROUP] = {"java/lang/ThreadGroup", FX_OBJECT, FIELDS(fx_tgroup_f), NOFIELDS, 0},
    [FX_CLASSLOADER] = {"java/lang/ClassLoader", FX_OBJECT, FIELDS(fx_loader_f), NOFIELDS, 0},
    [FX_PROTDOMAIN] = {"java/security/ProtectionDomain", FX_OBJECT, FIELDS(fx_pd_f), NOFIELDS, 0},
    [FX_DICTIONARY] = {"java/util/Dictionary", FX_OBJECT, NOFIELDS, NOFIELDS, 0},
    [FX_HASHTABLE] = {"java/util/Hashtable", FX_DICTIONARY, FIELDS(fx_hashtable_f), NOFIELDS, 0},
    [FX_PROPERTIES] = {"java/util/Properties", FX_HASHTABLE, FIELDS(fx_props_f), NOFIELDS, 0},
    [FX_ABSTRACTMAP] = {"java/util/AbstractMap", FX_OBJECT, FIELDS(fx_absmap_f), NOFIELDS, 0},
    [FX_CHM] = {"java/util/concurrent/ConcurrentHashMap", FX_ABSTRACTMAP, FIELDS(fx_chm_f),
                FIELDS(fx_chm_s), 0},
    [FX_CHM_NODE] = {"java/util/concurrent/ConcurrentHashMap$Node", FX_OBJECT,
                     FIELDS(fx_chm_node_f), NOFIELDS, 0},
    /* no fields of its own: its instances carry only ClassLoader's */
    [FX_APPLOADER] = {"jdk/internal/loader/ClassLoaders$AppClassLoader", FX_CLASSLOADER,
                      NOFIELDS, NOFIELDS, 0},
    [FX_ARR_Z] = {"[Z", FX_OBJECT, NOFIELDS, NOFIELDS, T_Z},
    [FX_ARR_C] = {"[C", FX_OBJECT, NOFIELDS, NOFIELDS, T_C},
    [FX_ARR_F] = {"[F", FX_OBJECT, NOFIELDS, NOFIELDS, T_F},
    [FX_ARR_D] = {"[D", FX_OBJECT, NOFIELDS, NOFIELDS, T_D},
    [FX_ARR_B] = {"[B", FX_OBJECT, NOFIELDS, NOFIELDS, T_B},
    [FX_ARR_S] = {"[S", FX_OBJECT, NOFIELDS, NOFIELDS, T_S},
    [FX_ARR_I] = {"[I", FX_OBJECT, NOFIELDS, NOFIELDS, T_I},
    [FX_ARR_J] = {"[J", FX_OBJECT, NOFIELDS, NOFIELDS, T_J},
    [FX_ARR_II] = {"[[I", FX_OBJECT, NOFIELDS, NOFIELDS, T_OBJ},
    [FX_ARR_OBJECT] = {"[Ljava/lang/Object;", FX_OBJECT, NOFIELDS, NOFIELDS, T_OBJ},
    [FX_ARR_STRING] = {"[Ljava/lang/String;", FX_OBJECT, NOFIELDS, NOFIELDS, T_OBJ},
    [FX_ARR_CHM_NODE] = {"[Ljava/util/concurrent/ConcurrentHashMap$Node;", FX_OBJECT, NOFIELDS,
                         NOFIELDS, T_OBJ},
    [FX_MAIN] = {"com/example/fixture/FixtureMain", FX_OBJECT, NOFIELDS, FIELDS(fx_main_s), 0},
    [FX_NODE] = {"com/example/fixture/Node", FX_OBJECT, FIELDS(fx_node_f), FIELDS(fx_node_s), 0},
    [FX_SUBNODE] = {"com/example/fixture/SubNode", FX_NODE, FIELDS(fx_subnode_f), NOFIELDS, 0},
    [FX_MARKER] = {"com/example/fixture/Marker", FX_OBJECT, FIELDS(fx_marker_f),
                   FIELDS(fx_marker_s), 0},
    [FX_ARR_NODE] = {"[Lcom/example/fixture/Node;", FX_OBJECT, NOFIELDS, NOFIELDS, T_OBJ},
};

/* The eight primitive array classes, in hprof_type order (4..11). */
static const int fx_prim_array_class[8] = {FX_ARR_Z, FX_ARR_C, FX_ARR_F, FX_ARR_D,
                                           FX_ARR_B, FX_ARR_S, FX_ARR_I, FX_ARR_J};
static const char *const fx_prim_names[9] = {"boolean", "char",  "float", "double", "byte",
                                             "short",   "int",   "long",  "void"};

/* A class that is loaded and then unloaded: LOAD CLASS + UNLOAD CLASS only. */
#define FX_GONE_NAME "com/example/fixture/Gone"

/* -------------------------------------------------------- stack traces */

enum { FX_TRACE_EMPTY = 1, FX_TRACE_MAIN, FX_TRACE_WORKER1, FX_TRACE_WORKER2, FX_TRACE_ALLOC,
       FX_TRACE_SHORT, FX_NTRACES = FX_TRACE_SHORT };

typedef struct fixture_framedef {
    const char *method, *sig, *source; /* source NULL: id 0, as HotSpot for hidden frames */
    int cls;
    int32_t line;
} fixture_framedef;

static const fixture_framedef fx_frames[] = {
    /* 1 */ {"main", "([Ljava/lang/String;)V", "FixtureMain.java", FX_MAIN, 42},
    /* 2 */ {"makeNodes", "(I)V", "FixtureMain.java", FX_MAIN, 30},
    /* 3 */ {"wait", "(J)V", "Object.java", FX_OBJECT, HPROF_LINE_NATIVE},
    /* 4 */ {"deep", "(I)V", "Node.java", FX_NODE, 17},
    /* 5 */ {"deep", "(I)V", "Node.java", FX_NODE, 18},
    /* 6 */ {"lambda$main$0", "()V", NULL, FX_MAIN, HPROF_LINE_UNKNOWN},
    /* 7 */ {"run", "()V", "Thread.java", FX_THREAD, 840},
    /* 8 */ {"compute", "()J", "Node.java", FX_NODE, HPROF_LINE_COMPILED},
    /* 9 */ {"sleep", "(J)V", "Thread.java", FX_THREAD, HPROF_LINE_NATIVE},
};
#define FX_NFRAMES ((unsigned)NELEM(fx_frames))

/* Frame numbers (1-based into fx_frames), innermost first; 0 ends a list. */
static const uint8_t fx_trace_frames[FX_NTRACES + 1][6] = {
    [FX_TRACE_EMPTY] = {0},
    [FX_TRACE_MAIN] = {9, 1, 0},
    [FX_TRACE_WORKER1] = {3, 4, 5, 6, 7, 0},
    [FX_TRACE_WORKER2] = {8, 4, 6, 7, 0},
    [FX_TRACE_ALLOC] = {2, 1, 0},
    [FX_TRACE_SHORT] = {7, 0},
};
/* The thread each trace belongs to (0: none). */
static const uint32_t fx_trace_thread[FX_NTRACES + 1] = {
    [FX_TRACE_EMPTY] = 0, [FX_TRACE_MAIN] = 1, [FX_TRACE_WORKER1] = 2,
    [FX_TRACE_WORKER2] = 3, [FX_TRACE_ALLOC] = 1, [FX_TRACE_SHORT] = 4};
/* Written in this order: each thread's frames and traces together. */
/* (The empty trace is written on its own, before LOAD CLASS.) */
static const int fx_trace_order[FX_NTRACES - 1] = {FX_TRACE_MAIN, FX_TRACE_ALLOC, FX_TRACE_WORKER1,
                                                   FX_TRACE_WORKER2, FX_TRACE_SHORT};

static const char *const fx_thread_names[FIXTURE_NTHREADS] = {"main", "worker-1", "worker-2",
                                                              "short-lived"};
static const uint32_t fx_thread_trace[FIXTURE_NTHREADS] = {FX_TRACE_MAIN, FX_TRACE_WORKER1,
                                                           FX_TRACE_WORKER2, FX_TRACE_SHORT};

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

static const char *const fx_prop_keys[FIXTURE_NPROPS] = {
    "java.version", "java.vm.name", "java.vendor",       "os.name",
    "file.encoding", "line.separator", "hprof.fixture.seed", "hprof.fixture.objects"};

/* ------------------------------------------------------------ helpers */

static uint64_t fixture_rand(fixture_ctx *c)
{
    uint64_t z = (c->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t fixture_fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static uint64_t fixture_dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static void fixture_fail(fixture_ctx *c, const char *fmt, ...)
{
    va_list ap;
    if (c->err[0])
        return; /* keep the first */
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
}

/* Object ids look like 8-aligned addresses. With 8-byte ids they lie above
 * 4 GiB, so that a reader or writer that truncates ids is caught. */
static hprof_id fixture_new_ids(fixture_ctx *c, uint64_t n)
{
    hprof_id id = c->next_obj;
    c->next_obj += 8 * n;
    if (c->idsz == 4 && c->next_obj > 0xFFFFFFFFull)
        fixture_fail(c, "too many objects for 4-byte ids");
    return id;
}

static hprof_id fixture_new_id(fixture_ctx *c)
{
    return fixture_new_ids(c, 1);
}

/* The name as written: VM form, or the dotted Java form with --names dot
 * (java.lang.String, int[], java.lang.Object[][]). */
static void fixture_style_name(const fixture_ctx *c, const char *vm, char *out, size_t cap)
{
    static const struct { char d; const char *name; } prims[] = {
        {'Z', "boolean"}, {'C', "char"}, {'F', "float"}, {'D', "double"},
        {'B', "byte"},    {'S', "short"}, {'I', "int"},  {'J', "long"}};
    unsigned dims = 0;
    size_t n = 0;
    const char *p = vm, *end;

    if (!c->o.dot_names) {
        snprintf(out, cap, "%s", vm);
        return;
    }
    while (*p == '[') {
        dims++;
        p++;
    }
    if (dims && *p != 'L') {
        const char *pn = "?";
        for (size_t i = 0; i < NELEM(prims); i++)
            if (prims[i].d == *p)
                pn = prims[i].name;
        n = (size_t)snprintf(out, cap, "%s", pn);
    } else {
        if (dims)
            p++; /* skip 'L' */
        end = dims ? strchr(p, ';') : p + strlen(p);
        for (; p < end && n + 1 < cap; p++)
            out[n++] = *p == '/' ? '.' : *p;
        out[n] = '\0';
    }
    while (dims-- && n + 3 < cap) {
        out[n++] = '[';
        out[n++] = ']';
        out[n] = '\0';
    }
}

/* Returns the UTF8 id of `s`, adding it to the table the first time. */
static hprof_id fixture_utf8_id(fixture_ctx *c, const char *s)
{
    for (size_t i = 0; i < c->nutf8; i++)
        if (strcmp(c->utf8[i].s, s) == 0)
            return c->utf8[i].id;
    if (c->nutf8 == c->cap_utf8) {
        size_t cap = c->cap_utf8 ? 2 * c->cap_utf8 : 128;
        fixture_utf8 *t = realloc(c->utf8, cap * sizeof *t);
        if (!t) {
            fixture_fail(c, "out of memory");
            return 0;
        }
        c->utf8 = t;
        c->cap_utf8 = cap;
    }
    c->utf8[c->nutf8].s = strdup(s);
    if (!c->utf8[c->nutf8].s) {
        fixture_fail(c, "out of memory");
        return 0;
    }
    c->utf8[c->nutf8].id = c->next_utf8;
    c->next_utf8 += 8;
    return c->utf8[c->nutf8++].id;
}

static unsigned fixture_fixed_string(fixture_ctx *c, const char *text)
{
    fixture_string *s;
    if (c->nfstr == FIXTURE_MAX_FIXED_STRINGS) {
        fixture_fail(c, "internal: too many fixed strings");
        return 0;
    }
    s = &c->fstr[c->nfstr];
    snprintf(s->text, sizeof s->text, "%s", text);
    s->id = fixture_new_id(c);
    s->value_id = fixture_new_id(c);
    return c->nfstr++;
}

static hprof_id fixture_str(const fixture_ctx *c, unsigned i)
{
    return c->fstr[i].id;
}

/* ------------------------------------------------------ building the model */

static void fixture_model(fixture_ctx *c)
{
    char name[256], buf[64];
    uint64_t n = c->o.objects;

    c->idsz = c->o.id_size;
    c->rng = c->o.seed;
    /* Separate ranges keep UTF8 ids, object ids and JNI handles apart, as in
     * HotSpot (Symbol*, oop and handle addresses). */
    if (c->idsz == 8) {
        c->next_utf8 = 0x00007f1000000000ull;
        c->next_obj = 0x00000007c0000000ull;
        c->next_jni = 0x00007f5500001000ull;
    } else {
        c->next_utf8 = 0x01000000u;
        c->next_obj = 0x20000000u;
        c->next_jni = 0x10001000u;
    }

    c->nnodes = n;
    c->nsub = n / 20;
    c->nrand = FIXTURE_NRAND_MIN + n / 10;
    c->npad = 3 + n / 8;
    c->big_len = n < FIXTURE_MAX_BIG_ARRAY ? (uint32_t)n : FIXTURE_MAX_BIG_ARRAY;

    /* classes: ids, serials, names, field names, chain sizes */
    for (int i = 0; i < FX_NCLASSES; i++) {
        const fixture_classdef *d = &fx_classes[i];
        fixture_class *k = &c->cls[i];
        k->id = fixture_new_id(c);
        k->serial = (uint32_t)i + 1;
        fixture_style_name(c, d->name, name, sizeof name);
        k->name_utf8 = fixture_utf8_id(c, name);
        for (unsigned f = 0; f < d->nfields; f++)
            k->field_utf8[f] = fixture_utf8_id(c, d->fields[f].name);
        for (unsigned f = 0; f < d->nstatics; f++)
            k->static_utf8[f] = fixture_utf8_id(c, d->statics[f].name);
        for (int s = i; s >= 0; s = fx_classes[s].super) {
            for (unsigned f = 0; f < fx_classes[s].nfields; f++)
                k->data_size += hprof_type_size(fx_classes[s].fields[f].type, c->idsz);
            k->chain_fields += fx_classes[s].nfields;
        }
        k->trace = FX_TRACE_EMPTY;
    }
    c->cls[FX_NODE].trace = FX_TRACE_ALLOC;
    c->cls[FX_SUBNODE].trace = FX_TRACE_ALLOC;
    c->cls[FX_MARKER].trace = FX_TRACE_WORKER1;
    c->gone_id = fixture_new_id(c);
    c->gone_serial = FX_NCLASSES + 1;
    fixture_style_name(c, FX_GONE_NAME, name, sizeof name);
    c->gone_utf8 = fixture_utf8_id(c, name);

    /* frames: small sequential ids, as HotSpot writes them */
    for (unsigned f = 1; f <= FX_NFRAMES; f++) {
        const fixture_framedef *fd = &fx_frames[f - 1];
        c->frame_id[f] = f;
        c->frame_method_utf8[f] = fixture_utf8_id(c, fd->method);
        c->frame_sig_utf8[f] = fixture_utf8_id(c, fd->sig);
        c->frame_source_utf8[f] = fd->source ? fixture_utf8_id(c, fd->source) : 0;
    }
    for (int t = 0; t < FIXTURE_NTHREADS; t++)
        c->thread_name_utf8[t] = fixture_utf8_id(c, fx_thread_names[t]);
    c->group_main_utf8 = fixture_utf8_id(c, "main");
    c->group_system_utf8 = fixture_utf8_id(c, "system");
    if (c->o.android) {
        c->heap_image_utf8 = fixture_utf8_id(c, "image");
        c->heap_app_utf8 = fixture_utf8_id(c, "app");
    }

    /* fixed strings (41 of them; fixture.h promises the number) */
    c->s_fixture = fixture_fixed_string(c, "hprof-fixture");
    /* "Grüße, 世界": not Latin-1, so it is stored with coder 1 (UTF-16LE) */
    c->s_utf16 = fixture_fixed_string(c, "Gr\xc3\xbc\xc3\x9f" "e, \xe4\xb8\x96\xe7\x95\x8c");
    c->s_unreachable = fixture_fixed_string(c, "unreachable");
    for (int t = 0; t < FIXTURE_NTHREADS; t++)
        c->s_thread[t] = fixture_fixed_string(c, fx_thread_names[t]);
    c->s_group_system = fixture_fixed_string(c, "system");
    c->s_group_main = fixture_fixed_string(c, "main");
    c->s_loader = fixture_fixed_string(c, "app");
    for (int m = 0; m < 9; m++)
        c->s_mirror[m] = fixture_fixed_string(c, fx_prim_names[m]);
    for (int p = 0; p < FIXTURE_NPROPS; p++) {
        const char *v = "";
        switch (p) {
        case 0: v = "17.0.15"; break;
        case 1: v = "hprof fixture VM"; break;
        case 2: v = "hprof"; break;
        case 3: v = "Linux"; break;
        case 4: v = "UTF-8"; break;
        case 5: v = "\n"; break;
        case 6: snprintf(buf, sizeof buf, "%" PRIu64, c->o.seed); v = buf; break;
        case 7: snprintf(buf, sizeof buf, "%" PRIu64, c->o.objects); v = buf; break;
        }
        c->s_pkey[p] = fixture_fixed_string(c, fx_prop_keys[p]);
        c->s_pval[p] = fixture_fixed_string(c, v);
    }
    c->s_linesep = fixture_fixed_string(c, "\n");
    c->s_node_static = fixture_fixed_string(c, "node-static");
    for (int m = 0; m < 3; m++) {
        snprintf(buf, sizeof buf, "marker-%d", m + 1);
        c->s_marker[m] = fixture_fixed_string(c, buf);
    }
    c->s_cp = fixture_fixed_string(c, "cp-string");
    if (c->nfstr != 41)
        fixture_fail(c, "internal: %u fixed strings, fixture.h promises 41", c->nfstr);

    /* the rest of the graph */
    for (int t = 0; t < FIXTURE_NTHREADS; t++)
        c->thread[t] = fixture_new_id(c);
    c->group_system = fixture_new_id(c);
    c->group_main = fixture_new_id(c);
    c->apploader = fixture_new_id(c);
    c->pd = fixture_new_id(c);
    for (int m = 0; m < 9; m++)
        c->mirror[m] = fixture_new_id(c);
    for (int m = 0; m < 3; m++)
        c->markers[m] = fixture_new_id(c);
    c->props = fixture_new_id(c);
    c->chm = fixture_new_id(c);
    c->chm_table = fixture_new_id(c);
    for (int p = 0; p < FIXTURE_NPROPS; p++)
        c->chm_node[p] = fixture_new_id(c);
    c->node_array = fixture_new_id(c);
    c->string_array = fixture_new_id(c);
    c->mixed = fixture_new_id(c);
    c->resolved = fixture_new_id(c);
    c->signers = fixture_new_id(c);
    c->arrays = fixture_new_id(c);
    c->matrix = fixture_new_id(c);
    for (int r = 0; r < 3; r++)
        c->matrix_row[r] = fixture_new_id(c);
    for (int t = 0; t < 8; t++)
        for (int k = 0; k < 3; k++)
            c->prim[t][k] = fixture_new_id(c);
    c->rstr_base = fixture_new_ids(c, c->nrand);
    c->rval_base = fixture_new_ids(c, c->nrand);
    c->nodes_base = fixture_new_ids(c, c->nnodes);
    c->sub_base = fixture_new_ids(c, c->nsub);
    c->jni_ref[0] = c->next_jni;
    c->jni_ref[1] = c->next_jni + 8;
}

static hprof_id fixture_node(const fixture_ctx *c, uint64_t i)
{
    return c->nodes_base + 8 * i;
}

static hprof_id fixture_subnode(const fixture_ctx *c, uint64_t i)
{
    return c->sub_base + 8 * i;
}

static hprof_id fixture_rstr(const fixture_ctx *c, uint64_t i)
{
    return c->rstr_base + 8 * i;
}

/* ------------------------------------------------------------ emission */

/* Shallow size in the model the HEAP SUMMARY and ALLOC SITES report: a
 * two-word header, the data, 8-byte alignment. */
static uint64_t fixture_align8(uint64_t v)
{
    return (v + 7) & ~(uint64_t)7;
}

static void fixture_count(fixture_ctx *c, int cls, uint64_t bytes)
{
    c->cls[cls].count++;
    c->cls[cls].bytes += bytes;
    c->objects++;
}

/* INSTANCE DUMP of class `cls` with `vals` given for the whole chain: this
 * class's fields first, then the super's, in CLASS DUMP order. The number
 * of values is checked against the chain, so a fixture bug cannot write an
 * instance whose length disagrees with its class. */
static void fixture_instance(fixture_ctx *c, int cls, hprof_id id, const uint64_t *vals,
                             unsigned nvals)
{
    uint8_t data[FIXTURE_MAX_CHAIN_FIELDS * 8];
    uint32_t len = 0;
    unsigned v = 0;
    const fixture_class *k = &c->cls[cls];

    if (nvals != k->chain_fields) {
        fixture_fail(c, "internal: %u values for %s, whose chain has %u fields", nvals,
                     fx_classes[cls].name, k->chain_fields);
        return;
    }
    for (int s = cls; s >= 0; s = fx_classes[s].super) {
        for (unsigned f = 0; f < fx_classes[s].nfields; f++, v++) {
            unsigned sz = hprof_type_size(fx_classes[s].fields[f].type, c->idsz);
            for (unsigned b = 0; b < sz; b++)
                data[len + b] = (uint8_t)(vals[v] >> (8 * (sz - 1 - b)));
            len += sz;
        }
    }
    if (len != k->data_size) {
        fixture_fail(c, "internal: %s instance is %u bytes, chain says %u", fx_classes[cls].name,
                     len, k->data_size);
        return;
    }
    if (cls == FX_SUBNODE) {
        /* the same bytes through the streaming API the agent's heap walk
         * uses, so that a fixture exercises hw_put_u1/u2/u4/u8/id too */
        v = 0;
        hw_instance_begin(c->w, id, k->trace, k->id, len);
        for (int s = cls; s >= 0; s = fx_classes[s].super) {
            for (unsigned f = 0; f < fx_classes[s].nfields; f++, v++) {
                switch (fx_classes[s].fields[f].type) {
                case T_OBJ: hw_put_id(c->w, vals[v]); break;
                case T_Z: case T_B: hw_put_u1(c->w, (uint8_t)vals[v]); break;
                case T_C: case T_S: hw_put_u2(c->w, (uint16_t)vals[v]); break;
                case T_F: case T_I: hw_put_u4(c->w, (uint32_t)vals[v]); break;
                default: hw_put_u8(c->w, vals[v]); break;
                }
            }
        }
        hw_sub_end(c->w);
    } else {
        hw_instance_dump(c->w, id, k->trace, k->id, data, len);
    }
    fixture_count(c, cls, fixture_align8(2 * c->idsz + len));
}

static void fixture_obj_array(fixture_ctx *c, int cls, hprof_id id, uint32_t n,
                              const hprof_id *elems)
{
    hw_obj_array_dump(c->w, id, c->cls[cls].trace, c->cls[cls].id, n, elems);
    fixture_count(c, cls, fixture_align8(2 * c->idsz + 4 + (uint64_t)n * c->idsz));
}

static void fixture_prim_array(fixture_ctx *c, uint8_t type, hprof_id id, uint32_t n,
                               const void *elems)
{
    int cls = fx_prim_array_class[type - HPROF_TYPE_BOOLEAN];
    hw_prim_array_dump(c->w, id, c->cls[cls].trace, type, n, elems);
    fixture_count(c, cls, fixture_align8(2 * c->idsz + 4 + (uint64_t)n * hprof_type_size(type, 4)));
}

/* A java/lang/String in the JDK 9+ layout: byte[] value + byte coder.
 * Latin-1 text is stored as is (coder 0); anything else as UTF-16 in the
 * host's order, little-endian here, as HotSpot dumps it (coder 1). */
static void fixture_string_obj(fixture_ctx *c, hprof_id id, hprof_id value_id, const char *utf8)
{
    uint8_t bytes[2 * 64];
    uint32_t nb = 0, nunits = 0;
    uint16_t units[64];
    int latin1 = 1;
    const unsigned char *p = (const unsigned char *)utf8;
    int32_t h = 0;

    while (*p && nunits < 62) {
        uint32_t cp;
        if (*p < 0x80) {
            cp = *p++;
        } else if ((*p & 0xE0) == 0xC0 && p[1]) {
            cp = ((uint32_t)(p[0] & 0x1F) << 6) | (p[1] & 0x3F);
            p += 2;
        } else if ((*p & 0xF0) == 0xE0 && p[1] && p[2]) {
            cp = ((uint32_t)(p[0] & 0x0F) << 12) | ((uint32_t)(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
            p += 3;
        } else if ((*p & 0xF8) == 0xF0 && p[1] && p[2] && p[3]) {
            cp = ((uint32_t)(p[0] & 0x07) << 18) | ((uint32_t)(p[1] & 0x3F) << 12) |
                 ((uint32_t)(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
            p += 4;
        } else {
            cp = 0xFFFD;
            p++;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            units[nunits++] = (uint16_t)(0xD800 | (cp >> 10));
            units[nunits++] = (uint16_t)(0xDC00 | (cp & 0x3FF));
            latin1 = 0;
        } else {
            units[nunits++] = (uint16_t)cp;
            if (cp > 0xFF)
                latin1 = 0;
        }
    }
    for (uint32_t i = 0; i < nunits; i++) {
        h = (int32_t)(31u * (uint32_t)h + units[i]);
        if (latin1) {
            bytes[nb++] = (uint8_t)units[i];
        } else {
            bytes[nb++] = (uint8_t)(units[i] & 0xFF);
            bytes[nb++] = (uint8_t)(units[i] >> 8);
        }
    }
    fixture_prim_array(c, HPROF_TYPE_BYTE, value_id, nb, bytes);
    {
        uint64_t v[] = {value_id, latin1 ? 0u : 1u, (uint32_t)h, h == 0};
        fixture_instance(c, FX_STRING, id, v, NELEM(v));
    }
}

/* String.hashCode() spread as ConcurrentHashMap does; the text is ASCII. */
static uint32_t fixture_chm_hash(const char *s)
{
    uint32_t h = 0;
    for (; *s; s++)
        h = 31u * h + (unsigned char)*s;
    return (h ^ (h >> 16)) & 0x7fffffffu;
}

static void fixture_class_dumps(fixture_ctx *c)
{
    for (int i = 0; i < FX_NCLASSES; i++) {
        const fixture_classdef *d = &fx_classes[i];
        const fixture_class *k = &c->cls[i];
        hw_static_field st[12];
        hw_field fl[12];
        hw_cp_entry cp[9];
        hw_class cd;
        uint64_t sv[12] = {0};

        memset(&cd, 0, sizeof cd);
        cd.class_id = k->id;
        cd.trace_serial = FX_TRACE_EMPTY;
        cd.super_id = d->super >= 0 ? c->cls[d->super].id : 0;
        if (i >= FX_FIRST_APP) {
            cd.loader_id = c->apploader;
            cd.protection_domain_id = c->pd;
        }
        /* HotSpot writes the instance data length; java/lang/Object gets 16
         * so that VisualVM can size objects with 8-byte ids (pitfall 11). */
        cd.instance_size = i == FX_OBJECT ? 16 : d->array_type ? 0 : k->data_size;

        switch (i) {
        case FX_STRING:
            sv[0] = (uint64_t)-6849794470754667710LL;
            sv[1] = 1;
            break;
        case FX_STRINGUTF16:
            sv[0] = 0; /* HI_BYTE_SHIFT: little-endian host */
            sv[1] = 8;
            break;
        case FX_SYSTEM:
            sv[0] = c->props;
            sv[1] = fixture_str(c, c->s_linesep);
            sv[2] = 0;
            break;
        case FX_THREAD:
            sv[0] = FIXTURE_NTHREADS + 10;
            break;
        case FX_CHM:
            sv[0] = 2;
            sv[1] = 7249069246763182397ull;
            break;
        case FX_MAIN:
            sv[0] = c->resolved;
            sv[1] = c->node_array;
            sv[2] = c->string_array;
            sv[3] = c->mixed;
            sv[4] = c->arrays;
            sv[5] = c->matrix;
            break;
        case FX_NODE: {
            /* one static of every type, from the seeded stream */
            uint64_t r = fixture_rand(c);
            sv[0] = r & 1;
            sv[1] = (uint8_t)(r >> 8);
            sv[2] = 'a' + (r >> 16) % 26;
            sv[3] = (uint16_t)(r >> 24);
            sv[4] = (uint32_t)(r >> 32);
            sv[5] = fixture_rand(c);
            sv[6] = fixture_fbits((float)(int32_t)(fixture_rand(c) % 200001u) / 8.0f);
            sv[7] = fixture_dbits((double)(fixture_rand(c) >> 11) / 65536.0);
            sv[8] = c->node_array;
            sv[9] = fixture_str(c, c->s_node_static);
            /* a constant pool entry of every type (HotSpot writes none, the
             * format and VisualVM allow them) */
            for (unsigned e = 0; e < 9; e++) {
                static const uint8_t types[9] = {T_OBJ, T_Z, T_C, T_F, T_D, T_B, T_S, T_I, T_J};
                cp[e].index = (uint16_t)(e + 1);
                cp[e].value.type = types[e];
                cp[e].value.u = types[e] == T_OBJ ? fixture_str(c, c->s_cp)
                                : types[e] == T_F ? fixture_fbits(1.5f)
                                : types[e] == T_D ? fixture_dbits(-2.25)
                                : types[e] == T_Z ? 1
                                                  : 0x0102030405060708ull + e;
            }
            cd.ncp = 9;
            cd.cp = cp;
            break;
        }
        case FX_SUBNODE:
            /* HotSpot always writes 0 for signers; an empty Object[] checks
             * that readers resolve the field */
            cd.signers_id = c->signers;
            break;
        case FX_MARKER:
            sv[0] = 3;
            break;
        default:
            break;
        }
        for (unsigned f = 0; f < d->nstatics; f++) {
            st[f].name_id = k->static_utf8[f];
            st[f].value.type = d->statics[f].type;
            st[f].value.u = sv[f];
        }
        for (unsigned f = 0; f < d->nfields; f++) {
            fl[f].name_id = k->field_utf8[f];
            fl[f].type = d->fields[f].type;
        }
        cd.nstatics = (uint16_t)d->nstatics;
        cd.statics = st;
        cd.nfields = (uint16_t)d->nfields;
        cd.fields = fl;
        hw_class_dump(c->w, &cd);
    }
}

static void fixture_roots(fixture_ctx *c)
{
    hw_writer *w = c->w;
    /* THREAD OBJECT first: single-pass readers look the thread up when
     * they meet its frame roots */
    for (uint32_t t = 0; t < 3; t++)
        hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, c->thread[t], t + 1, fx_thread_trace[t], 0);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, c->markers[0], 2, 1, 0);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, c->markers[1], 2, 2, 0);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, c->markers[2], 3, 0, 0);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, c->node_array, 1, 1, 0);
    hw_root(w, HPROF_GC_ROOT_JNI_LOCAL, fixture_str(c, c->s_fixture), 1, 0, 0);
    hw_root(w, HPROF_GC_ROOT_NATIVE_STACK, c->mixed, 2, 0, 0);
    hw_root(w, HPROF_GC_ROOT_THREAD_BLOCK, c->matrix, 3, 0, 0);
    hw_root(w, HPROF_GC_ROOT_MONITOR_USED, c->props, 0, 0, 0);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, c->apploader, 0, 0, c->jni_ref[0]);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, c->props, 0, 0, c->jni_ref[1]);
    c->roots += 3 + 4 + 1 + 1 + 1 + 1 + 2;
    for (int i = 0; i < FX_FIRST_APP; i++) {
        hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, c->cls[i].id, 0, 0, 0);
        c->roots++;
    }
    hw_root(w, HPROF_GC_ROOT_UNKNOWN, fixture_str(c, c->s_utf16), 0, 0, 0);
    c->roots++;
    if (c->o.android) {
        hw_root(w, HPROF_GC_ROOT_INTERNED_STRING, fixture_str(c, c->s_fixture), 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_FINALIZING, c->markers[2], 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_DEBUGGER, c->thread[0], 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_REFERENCE_CLEANUP, c->mixed, 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_VM_INTERNAL, c->apploader, 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_JNI_MONITOR, c->props, 1, 0, 0);
        hw_root(w, HPROF_GC_ROOT_UNREACHABLE, fixture_str(c, c->s_unreachable), 0, 0, 0);
        c->roots += 7;
    }
}

/* Threads, groups, loader, mirrors, fixed strings, System.props, markers. */
static void fixture_runtime_objects(fixture_ctx *c)
{
    for (int t = 0; t < FIXTURE_NTHREADS; t++) {
        uint64_t v[] = {fixture_str(c, c->s_thread[t]), 5, t >= 1 && t <= 2,
                        (uint64_t)t + 1, c->group_main, c->apploader};
        fixture_instance(c, FX_THREAD, c->thread[t], v, NELEM(v));
    }
    {
        uint64_t v[] = {0, fixture_str(c, c->s_group_system), 10, 0};
        fixture_instance(c, FX_THREADGROUP, c->group_system, v, NELEM(v));
    }
    {
        uint64_t v[] = {c->group_system, fixture_str(c, c->s_group_main), 10, 0};
        fixture_instance(c, FX_THREADGROUP, c->group_main, v, NELEM(v));
    }
    {
        uint64_t v[] = {0, fixture_str(c, c->s_loader)}; /* ClassLoader's fields */
        fixture_instance(c, FX_APPLOADER, c->apploader, v, NELEM(v));
    }
    {
        uint64_t v[] = {0, 0};
        fixture_instance(c, FX_PROTDOMAIN, c->pd, v, NELEM(v));
    }
    /* primitive mirrors: INSTANCE DUMPs of java/lang/Class, as HotSpot */
    for (int m = 0; m < 9; m++) {
        uint64_t v[] = {fixture_str(c, c->s_mirror[m]), 0, 0};
        fixture_instance(c, FX_CLASS, c->mirror[m], v, NELEM(v));
    }
    for (unsigned s = 0; s < c->nfstr; s++)
        fixture_string_obj(c, c->fstr[s].id, c->fstr[s].value_id, c->fstr[s].text);

    /* System.props: Properties -> map (ConcurrentHashMap) -> table -> nodes
     * with key/val/next, the JDK 9+ shape VisualVM walks (pitfall 11) */
    {
        hprof_id table[FIXTURE_PROPS_TABLE] = {0};
        hprof_id next[FIXTURE_NPROPS] = {0};
        uint32_t hash[FIXTURE_NPROPS];
        for (int p = 0; p < FIXTURE_NPROPS; p++) {
            unsigned slot;
            hash[p] = fixture_chm_hash(fx_prop_keys[p]);
            slot = hash[p] & (FIXTURE_PROPS_TABLE - 1);
            next[p] = table[slot]; /* chain: newest first */
            table[slot] = c->chm_node[p];
        }
        for (int p = 0; p < FIXTURE_NPROPS; p++) {
            uint64_t v[] = {hash[p], fixture_str(c, c->s_pkey[p]), fixture_str(c, c->s_pval[p]),
                            next[p]};
            fixture_instance(c, FX_CHM_NODE, c->chm_node[p], v, NELEM(v));
        }
        fixture_obj_array(c, FX_ARR_CHM_NODE, c->chm_table, FIXTURE_PROPS_TABLE, table);
        {
            uint64_t v[] = {c->chm_table, 0, FIXTURE_NPROPS, 12, /* AbstractMap: */ 0, 0};
            fixture_instance(c, FX_CHM, c->chm, v, NELEM(v));
        }
        {
            /* Hashtable.table stays null: JDK 9+ keeps the entries in map */
            uint64_t v[] = {0, c->chm, /* Hashtable: */ 0, 0, 0, fixture_fbits(0.75f), 0};
            fixture_instance(c, FX_PROPERTIES, c->props, v, NELEM(v));
        }
    }
    for (int m = 0; m < 3; m++) {
        uint64_t v[] = {(uint64_t)m + 1, fixture_str(c, c->s_marker[m])};
        fixture_instance(c, FX_MARKER, c->markers[m], v, NELEM(v));
    }
}

/* N Nodes, N/20 SubNodes and 16 + N/10 random strings, values from the seed. */
static void fixture_synthetic_objects(fixture_ctx *c)
{
    char text[48];
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

    for (uint64_t i = 0; i < c->nrand && !hw_writer_error(c->w) && !c->err[0]; i++) {
        uint64_t r = fixture_rand(c);
        int len = snprintf(text, sizeof text, "s%" PRIu64 "-", i);
        unsigned extra = (unsigned)(r % 17);
        for (unsigned k = 0; k < extra && len + 1 < (int)sizeof text; k++) {
            if (k % 10 == 0)
                r = fixture_rand(c);
            text[len++] = letters[(r & 63) % (sizeof letters - 1)];
            r >>= 6;
        }
        text[len] = '\0';
        fixture_string_obj(c, fixture_rstr(c, i), c->rval_base + 8 * i, text);
    }
    for (uint64_t i = 0; i < c->nnodes + c->nsub && !hw_writer_error(c->w) && !c->err[0]; i++) {
        uint64_t r = fixture_rand(c), r2 = fixture_rand(c), r3 = fixture_rand(c);
        int sub = i >= c->nnodes;
        hprof_id o;
        uint64_t v[12], *nv;
        switch (r3 & 3) {
        case 0: o = 0; break;
        case 1: o = c->nnodes ? fixture_node(c, (i + 1) % c->nnodes) : 0; break;
        case 2: o = fixture_rstr(c, (r3 >> 8) % c->nrand); break;
        default: o = c->nsub ? fixture_subnode(c, (r3 >> 8) % c->nsub) : 0; break;
        }
        nv = v;
        if (sub) {
            v[0] = r2 ^ r;
            v[1] = c->nnodes ? fixture_node(c, (r2 >> 3) % c->nnodes) : 0;
            nv = v + 2;
        }
        nv[0] = r & 1;
        nv[1] = (uint8_t)(r >> 8);
        nv[2] = 'A' + (r >> 16) % 26;
        nv[3] = (uint16_t)(r >> 24);
        nv[4] = (uint32_t)(r >> 32);
        nv[5] = r2;
        nv[6] = fixture_fbits((float)((int32_t)(r3 >> 40) - (1 << 23)) / 64.0f);
        nv[7] = fixture_dbits((double)(int64_t)(r2 >> 12) / 1048576.0);
        nv[8] = o;
        nv[9] = fixture_rstr(c, (r >> 40) % c->nrand);
        if (sub)
            fixture_instance(c, FX_SUBNODE, fixture_subnode(c, i - c->nnodes), v, 12);
        else
            fixture_instance(c, FX_NODE, fixture_node(c, i), v, 10);
    }
}

static int fixture_arrays(fixture_ctx *c)
{
    uint32_t big = c->big_len;
    size_t cap = (size_t)(big > 8 ? big : 8) * 8;
    uint8_t *buf = malloc(cap);

    if (!buf) {
        fixture_fail(c, "out of memory");
        return -1;
    }
    /* Node[]: the nodes, then the subnodes, then nulls that must survive */
    {
        uint64_t n = c->nnodes + c->nsub + c->npad;
        if (n > 0xFFFFFFFFull / c->idsz) {
            fixture_fail(c, "too many objects for one Node[]");
        } else {
            hw_obj_array_begin(c->w, c->node_array, c->cls[FX_ARR_NODE].trace,
                               c->cls[FX_ARR_NODE].id, (uint32_t)n);
            for (uint64_t i = 0; i < c->nnodes; i++)
                hw_put_id(c->w, fixture_node(c, i));
            for (uint64_t i = 0; i < c->nsub; i++)
                hw_put_id(c->w, fixture_subnode(c, i));
            for (uint64_t i = 0; i < c->npad; i++)
                hw_put_id(c->w, 0);
            hw_sub_end(c->w);
            fixture_count(c, FX_ARR_NODE, fixture_align8(2 * c->idsz + 4 + n * c->idsz));
        }
    }
    /* String[]: every random string, then two nulls */
    {
        uint64_t n = c->nrand + 2;
        hw_obj_array_begin(c->w, c->string_array, c->cls[FX_ARR_STRING].trace,
                           c->cls[FX_ARR_STRING].id, (uint32_t)n);
        for (uint64_t i = 0; i < c->nrand; i++)
            hw_put_id(c->w, fixture_rstr(c, i));
        hw_put_id(c->w, 0);
        hw_put_id(c->w, 0);
        hw_sub_end(c->w);
        fixture_count(c, FX_ARR_STRING, fixture_align8(2 * c->idsz + 4 + n * c->idsz));
    }
    /* Object[] of mixed kinds, including a class (by its CLASS DUMP id) and
     * a primitive mirror (an INSTANCE DUMP of java/lang/Class) */
    {
        hprof_id m[] = {fixture_str(c, c->s_fixture), c->nnodes ? fixture_node(c, 0) : 0,
                        c->prim[HPROF_TYPE_INT - HPROF_TYPE_BOOLEAN][0], c->cls[FX_NODE].id,
                        c->thread[0], c->props, c->matrix, c->mirror[6], 0, 0};
        fixture_obj_array(c, FX_ARR_OBJECT, c->mixed, NELEM(m), m);
    }
    {
        hprof_id m[] = {fixture_str(c, c->s_fixture), c->cls[FX_MARKER].id};
        fixture_obj_array(c, FX_ARR_OBJECT, c->resolved, NELEM(m), m);
    }
    fixture_obj_array(c, FX_ARR_OBJECT, c->signers, 0, NULL);
    {
        hprof_id all[8 * 3 + 1];
        for (int t = 0; t < 8; t++)
            for (int k = 0; k < 3; k++)
                all[t * 3 + k] = c->prim[t][k];
        all[24] = 0;
        fixture_obj_array(c, FX_ARR_OBJECT, c->arrays, NELEM(all), all);
    }
    /* int[3][7] */
    fixture_obj_array(c, FX_ARR_II, c->matrix, 3, c->matrix_row);
    for (int r = 0; r < 3; r++) {
        int32_t row[7];
        for (int k = 0; k < 7; k++)
            row[k] = r * 7 + k;
        fixture_prim_array(c, HPROF_TYPE_INT, c->matrix_row[r], 7, row);
    }
    /* every primitive type: a big array (scaled by --objects), an empty
     * one and one of 7 elements, in the host's order as the API takes them */
    for (uint8_t type = HPROF_TYPE_BOOLEAN; type <= HPROF_TYPE_LONG; type++) {
        const hprof_id *ids = c->prim[type - HPROF_TYPE_BOOLEAN];
        uint32_t lens[3] = {big, 0, 7};
        for (int k = 0; k < 3; k++) {
            uint32_t n = lens[k];
            for (uint32_t e = 0; e < n; e++) {
                uint64_t r = fixture_rand(c);
                switch (type) {
                case T_Z: buf[e] = (uint8_t)(r & 1); break;
                case T_B: buf[e] = (uint8_t)r; break;
                case T_C: {
                    uint16_t ch = (r & 7) == 0 ? (uint16_t)(0x3B1 + (r >> 8) % 24)
                                               : (uint16_t)(' ' + (r >> 8) % 95);
                    memcpy(buf + 2 * (size_t)e, &ch, 2);
                    break;
                }
                case T_S: {
                    uint16_t s = (uint16_t)r;
                    memcpy(buf + 2 * (size_t)e, &s, 2);
                    break;
                }
                case T_I: {
                    uint32_t i = (uint32_t)r;
                    memcpy(buf + 4 * (size_t)e, &i, 4);
                    break;
                }
                case T_F: {
                    float f = (float)((int32_t)(r >> 40) - (1 << 23)) / 256.0f;
                    memcpy(buf + 4 * (size_t)e, &f, 4);
                    break;
                }
                case T_J: memcpy(buf + 8 * (size_t)e, &r, 8); break;
                case T_D: {
                    double d = (double)(int64_t)(r >> 11) / 4096.0 - 1e12;
                    memcpy(buf + 8 * (size_t)e, &d, 8);
                    break;
                }
                }
            }
            fixture_prim_array(c, type, ids[k], n, buf);
        }
        if (hw_writer_error(c->w) || c->err[0])
            break;
    }
    free(buf);
    return 0;
}

static int fixture_site_cmp(const void *a, const void *b)
{
    const hw_alloc_site *x = a, *y = b;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes > y->live_bytes ? -1 : 1;
    return x->class_serial < y->class_serial ? -1 : x->class_serial > y->class_serial;
}

static uint32_t fixture_u4(uint64_t v)
{
    return v > HPROF_U4_MAX ? HPROF_U4_MAX : (uint32_t)v;
}

/* ALLOC SITES and HEAP SUMMARY from what the dump really holds, so that
 * VisualVM, which shows HEAP SUMMARY as its summary, agrees with the heap.
 * Every class is one site at its allocation trace; some Nodes were
 * "allocated and freed", so allocation totals exceed the live ones. */
static void fixture_sites_and_summary(fixture_ctx *c)
{
    hw_alloc_site sites[FX_NCLASSES];
    hw_alloc_sites_head h;
    uint32_t n = 0, kept = 0;
    uint64_t live_b = 0, live_i = 0, alloc_b = 0, alloc_i = 0;

    memset(&h, 0, sizeof h);
    for (int i = 0; i < FX_NCLASSES; i++) {
        const fixture_class *k = &c->cls[i];
        uint64_t freed_i = 0, freed_b = 0;
        if (!k->count)
            continue;
        if (i == FX_NODE && k->count) {
            freed_i = k->count / 4;
            freed_b = k->bytes / k->count * freed_i;
        }
        sites[n].array_type = fx_classes[i].array_type;
        sites[n].class_serial = k->serial;
        sites[n].trace_serial = k->trace;
        sites[n].live_bytes = fixture_u4(k->bytes);
        sites[n].live_instances = fixture_u4(k->count);
        sites[n].alloc_bytes = fixture_u4(k->bytes + freed_b);
        sites[n].alloc_instances = fixture_u4(k->count + freed_i);
        live_b += sites[n].live_bytes;
        live_i += sites[n].live_instances;
        alloc_b += sites[n].alloc_bytes;
        alloc_i += sites[n].alloc_instances;
        n++;
    }
    qsort(sites, n, sizeof sites[0], fixture_site_cmp);
    h.flags = HPROF_SITES_FORCE_GC;
    /* The original agent's default cutoff: sites below 0.01 % of the live
     * bytes are left out, the totals still count them. */
    h.cutoff = 0.0001f;
    h.total_live_bytes = fixture_u4(live_b);
    h.total_live_instances = fixture_u4(live_i);
    h.total_alloc_bytes = alloc_b;
    h.total_alloc_instances = alloc_i;
    while (kept < n && live_b && (double)sites[kept].live_bytes / (double)live_b >= h.cutoff)
        kept++;
    hw_alloc_sites(c->w, &h, sites, kept);
    hw_heap_summary(c->w, fixture_u4(live_b), fixture_u4(live_i), alloc_b, alloc_i);
}

static void fixture_traces(fixture_ctx *c)
{
    int written[FX_NFRAMES + 1] = {0};
    for (int oi = 0; oi < FX_NTRACES - 1; oi++) {
        int t = fx_trace_order[oi];
        hprof_id ids[8];
        uint32_t n = 0;
        /* a FRAME before the first TRACE that lists it */
        for (; fx_trace_frames[t][n]; n++) {
            unsigned f = fx_trace_frames[t][n];
            ids[n] = c->frame_id[f];
            if (!written[f]) {
                const fixture_framedef *fd = &fx_frames[f - 1];
                hw_frame(c->w, c->frame_id[f], c->frame_method_utf8[f], c->frame_sig_utf8[f],
                         c->frame_source_utf8[f], c->cls[fd->cls].serial, fd->line);
                written[f] = 1;
            }
        }
        hw_trace(c->w, (uint32_t)t, fx_trace_thread[t], n, ids);
    }
}

static int fixture_write(fixture_ctx *c)
{
    hw_writer *w = c->w;

    for (size_t i = 0; i < c->nutf8; i++)
        hw_utf8z(w, c->utf8[i].id, c->utf8[i].s);
    /* HotSpot writes the empty trace after the LOAD CLASS records that use
     * it; `hprof verify` asks for it before, which every reader accepts. */
    hw_trace(w, FX_TRACE_EMPTY, 0, 0, NULL);
    for (int i = 0; i < FX_NCLASSES; i++)
        hw_load_class(w, c->cls[i].serial, c->cls[i].id, FX_TRACE_EMPTY, c->cls[i].name_utf8);
    hw_load_class(w, c->gone_serial, c->gone_id, FX_TRACE_EMPTY, c->gone_utf8);
    hw_unload_class(w, c->gone_serial);
    hw_control_settings(w, HPROF_CTRL_ALLOC_TRACES | HPROF_CTRL_CPU_SAMPLING, 8);
    fixture_traces(c);
    for (uint32_t t = 0; t < FIXTURE_NTHREADS; t++)
        hw_start_thread(w, t + 1, c->thread[t], fx_thread_trace[t], c->thread_name_utf8[t],
                        c->group_main_utf8, c->group_system_utf8);
    hw_end_thread(w, FIXTURE_NTHREADS);

    hw_heap_begin(w);
    if (c->o.android)
        hw_heap_dump_info(w, 'I', c->heap_image_utf8);
    fixture_class_dumps(c);
    fixture_roots(c);
    if (c->o.android)
        hw_heap_dump_info(w, 'A', c->heap_app_utf8);
    fixture_runtime_objects(c);
    fixture_synthetic_objects(c);
    if (!c->err[0] && !hw_writer_error(w))
        fixture_arrays(c);
    hw_heap_end(w);

    /* the original agent writes these at exit, after its dumps */
    fixture_sites_and_summary(c);
    {
        hw_cpu_sample s[FX_NTRACES - 1];
        uint32_t total = 0;
        for (uint32_t t = 0; t < FX_NTRACES - 1; t++) {
            s[t].trace_serial = t + 2;
            s[t].count = 1 + (uint32_t)(fixture_rand(c) % 100);
            total += s[t].count;
        }
        hw_cpu_samples(w, total, s, FX_NTRACES - 1);
    }
    return c->err[0] ? -1 : 0;
}

/* ------------------------------------------------------------ options */

static void fixture_usage(FILE *f)
{
    fprintf(f,
            "usage: hprof fixture OUT [options]\n"
            "Writes a deterministic HPROF file that uses every record and heap\n"
            "sub-record type (OUT may be - for stdout).\n"
            "\n"
            "  --id-size 4|8            identifier size (default 8)\n"
            "  --version 1.0.1|1.0.2|1.0.3\n"
            "                           format version (default 1.0.2; 1.0.3 with --android);\n"
            "                           1.0.1 writes one HEAP DUMP record, the others\n"
            "                           HEAP DUMP SEGMENTs and HEAP DUMP END\n"
            "  --objects N              synthetic Node instances, 0..%llu (default 1000);\n"
            "                           also scales strings and arrays\n"
            "  --segment-size BYTES     max bytes per heap dump segment, %u..%u, with an\n"
            "                           optional K or M suffix (default 1M)\n"
            "  --names slash|dot        java/lang/String and [I, or java.lang.String and int[]\n"
            "                           (default slash)\n"
            "  --seed N                 seed of the field values, 0..2^64-1 (default 1)\n"
            "  --android                add Android's roots and HEAP DUMP INFO (0x89-0x8E,\n"
            "                           0x90, 0xFE); jhat rejects them\n"
            "  -h, --help               this text\n"
            "\n"
            "Same options, same bytes. Prints one summary line on stdout.\n",
            (unsigned long long)FIXTURE_MAX_OBJECTS, FIXTURE_MIN_SEGMENT, FIXTURE_MAX_SEGMENT);
}

static int fixture_bad(const char *opt, const char *val, const char *accepts)
{
    if (val)
        fprintf(stderr, "hprof fixture: bad value '%s' for %s: accepts %s\n", val, opt, accepts);
    else
        fprintf(stderr, "hprof fixture: %s needs a value: %s\n", opt, accepts);
    fprintf(stderr, "Try 'hprof fixture --help'.\n");
    return 2;
}

/* Strict unsigned decimal (or 0x hex): no sign, no spaces, no trailing junk.
 * `suffix` allows K/M (KiB/MiB). */
static int fixture_parse_u64(const char *s, int suffix, uint64_t *out)
{
    uint64_t v = 0, mul = 1;
    unsigned base = 10;
    const char *p = s;
    int digits = 0;

    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    for (; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            break;
        if (v > (UINT64_MAX - d) / base)
            return -1;
        v = v * base + d;
        digits++;
    }
    if (!digits)
        return -1;
    if (suffix && base == 10 && *p && !p[1]) {
        if (*p == 'k' || *p == 'K')
            mul = 1024;
        else if (*p == 'm' || *p == 'M')
            mul = 1024 * 1024;
        else
            return -1;
        p++;
    }
    if (*p)
        return -1;
    if (v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

static int fixture_parse(int argc, char **argv, fixture_opts *o)
{
    memset(o, 0, sizeof *o);
    o->id_size = 8;
    o->version = HPROF_VERSION_1_0_2;
    o->objects = 1000;
    o->segment_size = HW_DEFAULT_SEGMENT_SIZE;
    o->seed = 1;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL, *eq;
        char opt[32];
        uint64_t v;

        if (a[0] != '-' || strcmp(a, "-") == 0) {
            if (o->out) {
                fprintf(stderr, "hprof fixture: one output file only ('%s' and '%s')\n",
                        o->out, a);
                return 2;
            }
            o->out = a;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fixture_usage(stdout);
            return -1;
        }
        if (strcmp(a, "--") == 0) {
            if (i + 1 < argc && !o->out && i + 2 == argc) {
                o->out = argv[++i];
                continue;
            }
            fprintf(stderr, "hprof fixture: '--' must be followed by OUT only\n");
            return 2;
        }
        if (strcmp(a, "--android") == 0) {
            o->android = 1;
            continue;
        }
        /* --opt value or --opt=value */
        eq = strchr(a, '=');
        if (eq) {
            size_t n = (size_t)(eq - a);
            if (n >= sizeof opt)
                n = sizeof opt - 1;
            memcpy(opt, a, n);
            opt[n] = '\0';
            val = eq + 1;
        } else {
            snprintf(opt, sizeof opt, "%s", a);
        }
#define FIXTURE_VALUE()                                                                         \
    do {                                                                                        \
        if (!val) {                                                                             \
            if (i + 1 >= argc)                                                                  \
                val = NULL;                                                                     \
            else                                                                                \
                val = argv[++i];                                                                \
        }                                                                                       \
    } while (0)
        if (strcmp(opt, "--id-size") == 0) {
            FIXTURE_VALUE();
            if (!val || (strcmp(val, "4") != 0 && strcmp(val, "8") != 0))
                return fixture_bad("--id-size", val, "4 or 8");
            o->id_size = (unsigned)(val[0] - '0');
        } else if (strcmp(opt, "--version") == 0) {
            FIXTURE_VALUE();
            if (val && strcmp(val, "1.0.1") == 0)
                o->version = HPROF_VERSION_1_0_1;
            else if (val && strcmp(val, "1.0.2") == 0)
                o->version = HPROF_VERSION_1_0_2;
            else if (val && strcmp(val, "1.0.3") == 0)
                o->version = HPROF_VERSION_1_0_3;
            else
                return fixture_bad("--version", val, "1.0.1, 1.0.2 or 1.0.3");
            o->version_given = 1;
        } else if (strcmp(opt, "--objects") == 0) {
            FIXTURE_VALUE();
            if (!val || fixture_parse_u64(val, 0, &v) || v > FIXTURE_MAX_OBJECTS) {
                char acc[64];
                snprintf(acc, sizeof acc, "an integer from 0 to %llu",
                         (unsigned long long)FIXTURE_MAX_OBJECTS);
                return fixture_bad("--objects", val, acc);
            }
            o->objects = v;
        } else if (strcmp(opt, "--segment-size") == 0) {
            FIXTURE_VALUE();
            if (!val || fixture_parse_u64(val, 1, &v) || v < FIXTURE_MIN_SEGMENT ||
                v > FIXTURE_MAX_SEGMENT) {
                char acc[96];
                snprintf(acc, sizeof acc, "a byte count from %u to %u (K and M suffixes allowed)",
                         FIXTURE_MIN_SEGMENT, FIXTURE_MAX_SEGMENT);
                return fixture_bad("--segment-size", val, acc);
            }
            o->segment_size = (uint32_t)v;
        } else if (strcmp(opt, "--names") == 0) {
            FIXTURE_VALUE();
            if (val && strcmp(val, "slash") == 0)
                o->dot_names = 0;
            else if (val && strcmp(val, "dot") == 0)
                o->dot_names = 1;
            else
                return fixture_bad("--names", val, "slash or dot");
        } else if (strcmp(opt, "--seed") == 0) {
            FIXTURE_VALUE();
            if (!val || fixture_parse_u64(val, 0, &v))
                return fixture_bad("--seed", val, "an integer from 0 to 2^64-1 (decimal or 0x hex)");
            o->seed = v;
        } else {
            fprintf(stderr, "hprof fixture: unknown option '%s'\n", a);
            fprintf(stderr, "Try 'hprof fixture --help'.\n");
            return 2;
        }
#undef FIXTURE_VALUE
    }
    if (!o->out) {
        fprintf(stderr, "hprof fixture: missing OUT (the file to write)\n");
        fprintf(stderr, "Try 'hprof fixture --help'.\n");
        return 2;
    }
    if (o->android && !o->version_given)
        o->version = HPROF_VERSION_1_0_3;
    return 0;
}

static const char *fixture_magic(hprof_version v)
{
    return v == HPROF_VERSION_1_0_1 ? HPROF_MAGIC_1_0_1
           : v == HPROF_VERSION_1_0_3 ? HPROF_MAGIC_1_0_3
                                      : HPROF_MAGIC_1_0_2;
}

int fixture_main(int argc, char **argv)
{
    fixture_ctx *c;
    hw_options ho;
    hw_sink *sink;
    int err = 0, rc, to_stdout;
    char msg[256] = "";
    uint64_t bytes, segments;

    c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "hprof fixture: out of memory\n");
        return 1;
    }
    rc = fixture_parse(argc, argv, &c->o);
    if (rc) {
        free(c);
        return rc < 0 ? 0 : rc;
    }
    to_stdout = strcmp(c->o.out, "-") == 0;

    fixture_model(c);
    if (c->err[0]) {
        fprintf(stderr, "hprof fixture: %s\n", c->err);
        rc = 1;
        goto out;
    }

    hw_options_init(&ho);
    ho.id_size = c->o.id_size;
    ho.version = c->o.version;
    ho.heap_mode = c->o.version == HPROF_VERSION_1_0_1 ? HW_HEAP_SINGLE : HW_HEAP_SEGMENTED;
    ho.clock = HW_CLOCK_FIXED;
    ho.timestamp_ms = FIXTURE_TIMESTAMP_MS;
    ho.segment_size = c->o.segment_size;

    /* an output file by the library's rules: 0600, no symbolic link */
    char why[256] = "";
    sink = to_stdout ? hw_sink_fd(1, 0) : hw_sink_file_ex(c->o.out, 0, &err, why, sizeof why);
    if (!sink) {
        fprintf(stderr, "hprof fixture: cannot create %s: %s\n", c->o.out,
                why[0] ? why : strerror(err ? err : ENOMEM));
        rc = 1;
        goto out;
    }
    c->w = hw_writer_open(sink, &ho, &err);
    if (!c->w) {
        fprintf(stderr, "hprof fixture: cannot open a writer on %s: %s\n", c->o.out,
                strerror(err));
        rc = 1;
        goto out;
    }
    fixture_write(c);
    bytes = hw_writer_offset(c->w);
    segments = hw_heap_segments(c->w);
    err = hw_writer_close(c->w, msg, sizeof msg);
    c->w = NULL;
    if (c->err[0]) {
        fprintf(stderr, "hprof fixture: %s\n", c->err);
        rc = 1;
    } else if (err) {
        fprintf(stderr, "hprof fixture: writing %s failed: %s\n", c->o.out,
                msg[0] ? msg : strerror(err));
        rc = 1;
    } else {
        unsigned nclasses = FX_NCLASSES;
        fprintf(to_stdout ? stderr : stdout,
                "fixture: %s: %" PRIu64 " bytes, %" PRIu64 " objects, %u classes, %" PRIu64
                " segments, %" PRIu64 " roots (%s, id size %u, seed %" PRIu64 "%s)\n",
                c->o.out, bytes, c->objects, nclasses, segments, c->roots,
                fixture_magic(c->o.version), c->o.id_size, c->o.seed,
                c->o.android ? ", android" : "");
        rc = 0;
    }
out:
    for (size_t i = 0; i < c->nutf8; i++)
        free(c->utf8[i].s);
    free(c->utf8);
    free(c);
    return rc;
}
