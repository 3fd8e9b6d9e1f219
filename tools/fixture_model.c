/*
 * fixture_model.c: the fixture's tables and the building of its model
 * (fixture_model.h): ids, names (VM or dotted form), strings and sizes.
 */
#include "fixture_model.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURE_MAX_BIG_ARRAY (1u << 20)
#define FIXTURE_NRAND_MIN 16u

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

const fixture_classdef fx_classes[FX_NCLASSES] = {
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

const int fx_prim_array_class[8] = {FX_ARR_Z, FX_ARR_C, FX_ARR_F, FX_ARR_D,
                                    FX_ARR_B, FX_ARR_S, FX_ARR_I, FX_ARR_J};
static const char *const fx_prim_names[9] = {"boolean", "char",  "float", "double", "byte",
                                             "short",   "int",   "long",  "void"};

/* A class that is loaded and then unloaded: LOAD CLASS + UNLOAD CLASS only. */
#define FX_GONE_NAME "com/example/fixture/Gone"

const fixture_framedef fx_frames[FX_NFRAMES] = {
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

const uint8_t fx_trace_frames[FX_NTRACES + 1][6] = {
    [FX_TRACE_EMPTY] = {0},
    [FX_TRACE_MAIN] = {9, 1, 0},
    [FX_TRACE_WORKER1] = {3, 4, 5, 6, 7, 0},
    [FX_TRACE_WORKER2] = {8, 4, 6, 7, 0},
    [FX_TRACE_ALLOC] = {2, 1, 0},
    [FX_TRACE_SHORT] = {7, 0},
};
const uint32_t fx_trace_thread[FX_NTRACES + 1] = {
    [FX_TRACE_EMPTY] = 0, [FX_TRACE_MAIN] = 1, [FX_TRACE_WORKER1] = 2,
    [FX_TRACE_WORKER2] = 3, [FX_TRACE_ALLOC] = 1, [FX_TRACE_SHORT] = 4};
const int fx_trace_order[FX_NTRACES - 1] = {FX_TRACE_MAIN, FX_TRACE_ALLOC, FX_TRACE_WORKER1,
                                            FX_TRACE_WORKER2, FX_TRACE_SHORT};

static const char *const fx_thread_names[FIXTURE_NTHREADS] = {"main", "worker-1", "worker-2",
                                                              "short-lived"};
const uint32_t fx_thread_trace[FIXTURE_NTHREADS] = {FX_TRACE_MAIN, FX_TRACE_WORKER1,
                                                    FX_TRACE_WORKER2, FX_TRACE_SHORT};

const char *const fx_prop_keys[FIXTURE_NPROPS] = {
    "java.version", "java.vm.name", "java.vendor",       "os.name",
    "file.encoding", "line.separator", "hprof.fixture.seed", "hprof.fixture.objects"};

/* ------------------------------------------------------------ helpers */

uint64_t fixture_model_rand(fixture_ctx *c)
{
    uint64_t z = (c->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t fixture_model_fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

uint64_t fixture_model_dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

void fixture_model_fail(fixture_ctx *c, const char *fmt, ...)
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
        fixture_model_fail(c, "too many objects for 4-byte ids");
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
            fixture_model_fail(c, "out of memory");
            return 0;
        }
        c->utf8 = t;
        c->cap_utf8 = cap;
    }
    c->utf8[c->nutf8].s = strdup(s);
    if (!c->utf8[c->nutf8].s) {
        fixture_model_fail(c, "out of memory");
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
        fixture_model_fail(c, "internal: too many fixed strings");
        return 0;
    }
    s = &c->fstr[c->nfstr];
    snprintf(s->text, sizeof s->text, "%s", text);
    s->id = fixture_new_id(c);
    s->value_id = fixture_new_id(c);
    return c->nfstr++;
}

hprof_id fixture_model_str(const fixture_ctx *c, unsigned i)
{
    return c->fstr[i].id;
}

/* ------------------------------------------------------ building the model */

void fixture_model_build(fixture_ctx *c)
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
        fixture_model_fail(c, "internal: %u fixed strings, fixture.h promises 41", c->nfstr);

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

hprof_id fixture_model_node(const fixture_ctx *c, uint64_t i)
{
    return c->nodes_base + 8 * i;
}

hprof_id fixture_model_subnode(const fixture_ctx *c, uint64_t i)
{
    return c->sub_base + 8 * i;
}

hprof_id fixture_model_rstr(const fixture_ctx *c, uint64_t i)
{
    return c->rstr_base + 8 * i;
}

void fixture_model_cleanup(fixture_ctx *c)
{
    for (size_t i = 0; i < c->nutf8; i++)
        free(c->utf8[i].s);
    free(c->utf8);
    c->utf8 = NULL;
    c->nutf8 = c->cap_utf8 = 0;
}
