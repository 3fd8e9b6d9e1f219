/*
 * print.c: `hprof sites`, `hprof print`, `hprof samples` and `hprof
 * collapsed`: a binary HPROF file shown as the original agent's text
 * (java.hprof.txt, reference §3), or as collapsed stacks.
 *
 * Owns the text layout of those commands and the two-pass reading they
 * share (the VM-to-Java class name conversion and the copy of standard
 * input are in print_util.c). The agent links this
 * file for format=a heap dumps: print_heap_dumps renders only the heap
 * dumps, to any FILE, with messages returned instead of printed.
 *
 *  - pass 1 keeps what the text needs by name: UTF8 strings, class names,
 *    FRAMEs, TRACEs, each CLASS DUMP's instance field list, and per heap dump
 *    its object count and size (the HEAP DUMP BEGIN line comes before the
 *    objects it counts). Memory grows with names, frames, traces and
 *    classes, never with objects.
 *  - pass 2 re-reads the file and writes as it goes, so a heap dump of any
 *    size streams through. Two passes are needed because the original agent
 *    writes the CLASS DUMPs after the INSTANCE DUMPs that need their field
 *    lists, and TRACE records may in general follow their first use.
 *    Standard input ("-") is first copied to a temporary file.
 *
 * What the binary does not carry is filled in as follows: timestamps are the
 * header time plus each record's offset (printed like ctime(3), in local
 * time); `sz` of OBJ/ARR and the HEAP DUMP BEGIN byte count are HotSpot's
 * sizes, as `hprof histo` and the agent's SITES count them (objsize.h);
 * ROOT <JNI global ref> prints trace=0; the TRACE phase
 * annotation is never printed; the prelude file (jvm.hprof.txt) is left out.
 * OBJ lists non-null reference fields in the binary's order (the class's own
 * fields, then its superclass's, and so on). The HEAP DUMP BEGIN counts are
 * those of the dump itself, not the agent's running totals. The original had
 * no text for HEAP SUMMARY nor for Android's roots: their lines here follow
 * its style.
 */
#include "print.h"
#include "tp_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hprof/hr_reader.h"
#include "hu_map.h"
#include "normalize.h"
#include "objsize.h"
#include "superchain.h"
#include "warnlimit.h"

#define PRINT_LINE_FLUSH (64u * 1024u) /* bytes of a huge array's lines held at once */

/* ------------------------------------------------------------ model */

typedef struct print_frame {
    hprof_id method_id, source_id;
    uint32_t class_serial;
    int32_t line;
} print_frame;

typedef struct print_trace {
    uint32_t serial, thread_serial, nframes;
    size_t first; /* into tframes */
} print_trace;

typedef struct print_field {
    hprof_id name_id;
    uint8_t type;
} print_field;

typedef struct print_layout {
    hprof_id super_id;
    uint32_t nfields;
    size_t first; /* into fields */
} print_layout;

typedef struct print_dump {
    uint64_t objects, bytes;
    hu_map inst; /* class id -> its instances in the dump: sized after pass 1 */
} print_dump;

typedef struct print_model {
    const char *path;
    char *err;     /* print_heap_dumps: the first message goes here, not to stderr */
    size_t errcap;
    unsigned idsz;
    uint64_t timestamp_ms;
    char magic[32];
    int oom;
    uint64_t problems;
    wl_limit shown; /* stderr: the first of each kind of message, then counts */

    char *str; /* NUL-terminated strings, addressed by offset */
    size_t nstr, capstr;
    hu_map utf8;          /* UTF8 id -> offset */
    hu_map class_serial;  /* class serial -> name id */
    hu_map class_id;      /* class object id -> name id */
    hu_map serial_name;   /* class serial -> offset of the Java name */
    hu_map id_name;       /* class object id -> offset of the Java name */
    hu_map frame_ix;      /* frame id -> index in frames */
    hu_map trace_ix;      /* trace serial -> index in traces */
    hu_map layout_ix;     /* class object id -> index in layouts */

    print_frame *frames;
    size_t nframes, capframes;
    print_trace *traces;
    size_t ntraces, captraces;
    hprof_id *tframes;
    size_t ntframes, captframes;
    print_layout *layouts;
    size_t nlayouts, caplayouts;
    uint32_t *chain_len; /* per layout: distinct classes on its super chain */
    print_field *fields;
    size_t nfields, capfields;
    print_dump *dumps;
    size_t ndumps, capdumps;
    int dump_state;

    uint64_t nsites, nsamples; /* ALLOC SITES and CPU SAMPLES records */
    int normalize; /* --normalize: class names without hidden-class addresses */
    objsize_classes sizes;     /* HotSpot's object sizes (objsize.h) */
    hu_map inst_nbytes;        /* class id -> field bytes of its instances */
} print_model;

static int print_oom(print_model *m)
{
    m->oom = 1;
    return 1;
}

static void print_note(print_model *m, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A problem with the input: on stderr for the commands, the first
 * WL_MAX_DEFAULT of each `kind` (a file can hold one per record; the rest
 * are counted, and print_run says how many); for a caller that gave a
 * buffer (the agent), the first one is kept there and the rest are dropped
 * (one message says what is wrong; the count is in m->problems). */
static void print_note(print_model *m, const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (m->err) {
        if (m->errcap && !m->err[0])
            vsnprintf(m->err, m->errcap, fmt, ap);
    } else if (wl_take(&m->shown, kind)) {
        fprintf(stderr, "hprof: %s: ", m->path);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

/* Appends `n` bytes and a NUL; returns the offset or SIZE_MAX when out of memory. */
static size_t print_add_str(print_model *m, const char *s, size_t n)
{
    if (print_grow(&m->str, &m->capstr, m->nstr + n + 1, 1) != 0)
        return SIZE_MAX;
    size_t off = m->nstr;
    memcpy(m->str + off, s, n);
    m->str[off + n] = 0;
    m->nstr += n + 1;
    return off;
}

static const char *print_lookup(const print_model *m, const hu_map *map, uint64_t key)
{
    const uint64_t *off = hu_map_get(map, key);
    return off ? m->str + *off : NULL;
}

static const char *print_utf8(const print_model *m, hprof_id id)
{
    return id ? print_lookup(m, &m->utf8, id) : NULL;
}

/* ---- pass 1 */

static int print_m_header(void *ctx, const hr_header *h)
{
    print_model *m = ctx;
    m->idsz = h->id_size;
    m->timestamp_ms = h->timestamp_ms;
    memcpy(m->magic, h->magic, sizeof m->magic);
    m->magic[sizeof m->magic - 1] = 0;
    return 0;
}

static void print_m_problem(void *ctx, hr_severity sev, const char *kind, uint64_t off,
                            const char *msg)
{
    print_model *m = ctx;
    m->problems++;
    print_note(m, kind, "%s at offset %" PRIu64 " [%s]: %s", sev == HR_ERROR ? "ERROR" : "warning", off,
               kind, msg);
}

static int print_m_trace(print_model *m, const hr_record *r)
{
    uint32_t n = r->u.trace.nframes;
    if (print_grow(&m->traces, &m->captraces, m->ntraces + 1, sizeof *m->traces) != 0)
        return print_oom(m);
    if (print_grow(&m->tframes, &m->captframes, m->ntframes + n, sizeof *m->tframes) != 0)
        return print_oom(m);
    print_trace *t = &m->traces[m->ntraces];
    t->serial = r->u.trace.trace_serial;
    t->thread_serial = r->u.trace.thread_serial;
    t->nframes = n;
    t->first = m->ntframes;
    for (uint32_t i = 0; i < n; i++)
        m->tframes[m->ntframes++] = hr_trace_frame(r, m->idsz, i);
    /* a serial written twice: the later TRACE wins, as in readers that index by serial */
    if (hu_map_put(&m->trace_ix, t->serial, m->ntraces) != 0)
        return print_oom(m);
    m->ntraces++;
    return 0;
}

static int print_m_record(void *ctx, const hr_record *r)
{
    print_model *m = ctx;
    int ev = print_dump_event(&m->dump_state, r->tag);
    if (ev & PRINT_DUMP_BEGIN) {
        if (print_grow(&m->dumps, &m->capdumps, m->ndumps + 1, sizeof *m->dumps) != 0)
            return print_oom(m);
        memset(&m->dumps[m->ndumps], 0, sizeof *m->dumps);
        hu_map_init(&m->dumps[m->ndumps++].inst);
    }
    if (!r->body || r->malformed)
        return 0;
    switch (r->tag) {
    case HPROF_TAG_UTF8: {
        size_t off = print_add_str(m, r->u.utf8.str, r->u.utf8.len);
        if (off == SIZE_MAX || hu_map_put(&m->utf8, r->u.utf8.id, off) != 0)
            return print_oom(m);
        break;
    }
    case HPROF_TAG_LOAD_CLASS:
        if (hu_map_put(&m->class_serial, r->u.load_class.class_serial, r->u.load_class.name_id) ||
            hu_map_put(&m->class_id, r->u.load_class.class_id, r->u.load_class.name_id))
            return print_oom(m);
        break;
    case HPROF_TAG_FRAME: {
        if (print_grow(&m->frames, &m->capframes, m->nframes + 1, sizeof *m->frames) != 0)
            return print_oom(m);
        print_frame *f = &m->frames[m->nframes];
        f->method_id = r->u.frame.method_name_id;
        f->source_id = r->u.frame.source_file_id;
        f->class_serial = r->u.frame.class_serial;
        f->line = r->u.frame.line;
        if (hu_map_put(&m->frame_ix, r->u.frame.frame_id, m->nframes) != 0)
            return print_oom(m);
        m->nframes++;
        break;
    }
    case HPROF_TAG_TRACE:
        return print_m_trace(m, r);
    case HPROF_TAG_ALLOC_SITES:
        m->nsites++;
        break;
    case HPROF_TAG_CPU_SAMPLES:
        m->nsamples++;
        break;
    default:
        break;
    }
    return 0;
}

static int print_m_record_end(void *ctx, const hr_record *r)
{
    print_model *m = ctx;
    print_dump_event(&m->dump_state, PRINT_EV_RECORD_END);
    return 0;
}

static int print_m_class_dump(print_model *m, const hr_sub *s)
{
    uint16_t n = s->u.cls.nfields;
    if (print_grow(&m->layouts, &m->caplayouts, m->nlayouts + 1, sizeof *m->layouts) != 0)
        return print_oom(m);
    if (print_grow(&m->fields, &m->capfields, m->nfields + n, sizeof *m->fields) != 0)
        return print_oom(m);
    print_layout *l = &m->layouts[m->nlayouts];
    l->super_id = s->u.cls.super_id;
    l->nfields = n;
    l->first = m->nfields;
    const uint8_t *q = s->u.cls.fields;
    for (uint16_t i = 0; i < n; i++) {
        hr_field f;
        q = hr_class_field_next(q, m->idsz, &f);
        m->fields[m->nfields].name_id = f.name_id;
        m->fields[m->nfields].type = f.type;
        m->nfields++;
    }
    if (hu_map_put(&m->layout_ix, s->u.cls.class_id, m->nlayouts) != 0)
        return print_oom(m);
    m->nlayouts++;
    return 0;
}

static int print_m_sub(void *ctx, const hr_sub *s)
{
    print_model *m = ctx;
    if (s->part) /* a later part of an object array (hr_sub): counted once */
        return 0;
    if (s->tag == HPROF_GC_CLASS_DUMP) {
        if (objsize_add_class(&m->sizes, s, m->idsz) != 0)
            return print_oom(m);
        return print_m_class_dump(m, s);
    }
    int object = s->tag == HPROF_GC_INSTANCE_DUMP || s->tag == HPROF_GC_OBJ_ARRAY_DUMP ||
                 s->tag == HPROF_GC_PRIM_ARRAY_DUMP;
    if (object && m->ndumps) {
        print_dump *d = &m->dumps[m->ndumps - 1];
        d->objects++;
        if (s->tag != HPROF_GC_INSTANCE_DUMP) {
            d->bytes += objsize_of(&m->sizes, s, m->idsz);
            return 0;
        }
        /* an instance's size needs its class chain's CLASS DUMPs, which
         * may come later: counted now, sized by print_m_sizes */
        int ins;
        uint64_t *n = hu_map_upsert(&d->inst, s->u.inst.class_id, 0, &ins);
        if (!n || (ins && hu_map_put(&m->inst_nbytes, s->u.inst.class_id, s->u.inst.nbytes) != 0))
            return print_oom(m);
        ++*n;
    }
    return 0;
}

/* The bytes of each dump's instances, once every class is known. */
static void print_m_sizes(print_model *m)
{
    if (objsize_finish(&m->sizes) != 0) {
        print_oom(m);
        return;
    }
    for (size_t i = 0; i < m->ndumps; i++) {
        size_t it = 0;
        uint64_t cls, n;
        while (hu_map_next(&m->dumps[i].inst, &it, &cls, &n)) {
            const uint64_t *nb = hu_map_get(&m->inst_nbytes, cls);
            m->dumps[i].bytes += n * objsize_instance(&m->sizes, cls, nb ? *nb : 0, m->idsz);
        }
    }
}

/* Resolves every class name once, in Java form, so pass 2 only looks up. */
static int print_m_finish(print_model *m, const hu_map *from, hu_map *to)
{
    size_t it = 0;
    uint64_t key, name_id;
    char small[256];
    while (hu_map_next(from, &it, &key, &name_id)) {
        const char *vm = print_utf8(m, name_id);
        if (!vm)
            continue;
        size_t len = strlen(vm);
        size_t n = print_java_name(vm, len, small, sizeof small);
        char *buf = small;
        if (n >= sizeof small) {
            buf = malloc(n + 1);
            if (!buf)
                return print_oom(m);
            print_java_name(vm, len, buf, n + 1);
        }
        if (m->normalize) { /* --normalize: see normalize.h */
            char *nb = norm_dup(buf, n, &n);
            if (buf != small)
                free(buf);
            if (!nb)
                return print_oom(m);
            buf = nb;
        }
        size_t off = print_add_str(m, buf, n);
        if (buf != small)
            free(buf);
        if (off == SIZE_MAX || hu_map_put(to, key, off) != 0)
            return print_oom(m);
    }
    return 0;
}

static void print_model_init(print_model *m, const char *path)
{
    memset(m, 0, sizeof *m);
    m->path = path;
    wl_init(&m->shown, WL_MAX_DEFAULT);
    hu_map *maps[] = {&m->utf8,     &m->class_serial, &m->class_id, &m->serial_name,
                      &m->id_name,  &m->frame_ix,     &m->trace_ix, &m->layout_ix};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        hu_map_init(maps[i]);
    objsize_init(&m->sizes);
    hu_map_init(&m->inst_nbytes);
}

static void print_model_cleanup(print_model *m)
{
    hu_map *maps[] = {&m->utf8,     &m->class_serial, &m->class_id, &m->serial_name,
                      &m->id_name,  &m->frame_ix,     &m->trace_ix, &m->layout_ix};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        hu_map_cleanup(maps[i]);
    free(m->str);
    free(m->frames);
    free(m->traces);
    free(m->tframes);
    free(m->layouts);
    free(m->chain_len);
    free(m->fields);
    for (size_t i = 0; i < m->ndumps; i++)
        hu_map_cleanup(&m->dumps[i].inst);
    free(m->dumps);
    objsize_cleanup(&m->sizes);
    hu_map_cleanup(&m->inst_nbytes);
}

/* After pass 1: each layout's count of distinct classes up its super chain
 * (superchain.h), the bound of print_instance's walk in a file whose
 * supers loop. */
static void print_m_chains(print_model *m)
{
    if (!m->nlayouts)
        return;
    size_t *sup = malloc(m->nlayouts * sizeof *sup);
    m->chain_len = malloc(m->nlayouts * sizeof *m->chain_len);
    if (sup && m->chain_len) {
        for (size_t i = 0; i < m->nlayouts; i++) {
            hprof_id super = m->layouts[i].super_id;
            const uint64_t *ix = super ? hu_map_get(&m->layout_ix, super) : NULL;
            sup[i] = ix ? (size_t)*ix : SC_NONE;
        }
    }
    if (!sup || !m->chain_len || sc_chain_lengths(sup, m->nlayouts, m->chain_len) != 0)
        m->oom = 1;
    free(sup);
}

/* ------------------------------------------------------------ pass 2 */

/* PRINT_HEAP: the heap dumps alone (print_heap_dumps), TRACE blocks only on request */
enum print_mode { PRINT_SITES, PRINT_TEXT, PRINT_SAMPLES, PRINT_COLLAPSED, PRINT_HEAP };

/* One collapsed stack before it is spelled: a trace, and for allocation
 * sites the class allocated there (the leaf). */
typedef struct print_acc {
    uint32_t trace_serial, class_serial;
    int has_class;
    uint8_t array_type; /* names a primitive array class without LOAD CLASS */
    uint64_t weight;
    size_t stack;     /* offset into the stack text, once built */
    const char *text; /* the stack, once the text no longer moves */
} print_acc;

typedef struct print_ctx {
    print_model *m;
    enum print_mode mode;
    FILE *out;
    double cutoff;  /* sites: rows below this share are left out */
    int by_alloc;   /* sites: order (and cut) by allocated bytes */
    int last_only;  /* sites: only the last ALLOC SITES record */
    int use_sites;  /* collapsed: ALLOC SITES instead of CPU SAMPLES */
    int heap_traces; /* heap: TRACE blocks before each dump, as `hprof print` */
    int normalize;   /* sites, samples, collapsed: --normalize (normalize.h) */
    const char *cut; /* heap: why the dumps are incomplete (print_heap_dumps_cut) */
    int oom;
    uint64_t sites_seen, dumps_seen;
    int dump_state;
    uint8_t *printed; /* per trace index: its TRACE block was written */
    hu_map warned;    /* trace serials used but never defined, reported once */
    hu_map acc_ix;    /* collapsed: key -> index in acc */
    print_acc *acc;
    size_t nacc, capacc;
    char *ln;         /* heap dumps: the line being built (print_ln_*) */
    size_t nln, capln;
    print_site_notes notes; /* sites: the agent's notes on the next ALLOC SITES */
} print_ctx;

static void print_time(const print_ctx *c, uint32_t time_us, char *buf, size_t cap)
{
    time_t t = (time_t)((c->m->timestamp_ms + time_us / 1000u) / 1000u);
    struct tm tmv;
    if (!localtime_r(&t, &tmv) || !strftime(buf, cap, "%a %b %e %H:%M:%S %Y", &tmv))
        snprintf(buf, cap, "?");
}

static const char *print_class_by_serial(const print_ctx *c, uint32_t serial)
{
    const char *s = print_lookup(c->m, &c->m->serial_name, serial);
    return s ? s : "<Unknown Class>";
}

static const char *print_class_by_id(const print_ctx *c, hprof_id id)
{
    const char *s = print_lookup(c->m, &c->m->id_name, id);
    return s ? s : "<Unknown Class>";
}

static const print_trace *print_find_trace(print_ctx *c, uint32_t serial, size_t *index)
{
    const uint64_t *ix = hu_map_get(&c->m->trace_ix, serial);
    if (ix) {
        if (index)
            *index = (size_t)*ix;
        return &c->m->traces[*ix];
    }
    int ins = 0;
    if (!hu_map_upsert(&c->warned, serial, 1, &ins))
        c->oom = 1;
    else if (ins)
        print_note(c->m, "undefined-trace", "trace %" PRIu32 " is used but no TRACE record defines it", serial);
    return NULL;
}

static const print_frame *print_find_frame(const print_ctx *c, hprof_id id)
{
    const uint64_t *ix = hu_map_get(&c->m->frame_ix, id);
    return ix ? &c->m->frames[*ix] : NULL;
}

static const char *print_method_name(const print_ctx *c, const print_frame *f)
{
    const char *s = print_utf8(c->m, f->method_id);
    return s ? s : "<Unknown Method>";
}

static void print_trace_block_at(print_ctx *c, size_t ix)
{
    if (c->printed[ix])
        return;
    c->printed[ix] = 1;
    const print_trace *t = &c->m->traces[ix];
    fprintf(c->out, "TRACE %" PRIu32 ":", t->serial);
    if (t->thread_serial)
        fprintf(c->out, " (thread=%" PRIu32 ")", t->thread_serial);
    fputc('\n', c->out);
    if (!t->nframes)
        fputs("\t<empty>\n", c->out);
    for (uint32_t i = 0; i < t->nframes; i++) {
        hprof_id fid = c->m->tframes[t->first + i];
        const print_frame *f = print_find_frame(c, fid);
        if (!f) {
            fprintf(c->out, "\t<unknown frame %" PRIx64 ">\n", fid);
            continue;
        }
        const char *src = print_utf8(c->m, f->source_id);
        char lbuf[16];
        fprintf(c->out, "\t%s.%s(%s:%s)\n", print_class_by_serial(c, f->class_serial),
                print_method_name(c, f), src && *src ? src : "<Unknown Source>",
                print_line_text(f->line, lbuf, sizeof lbuf));
    }
}

/* TRACE blocks are written once, just before the first section using them. */
static void print_trace_block(print_ctx *c, uint32_t serial)
{
    size_t ix;
    if (print_find_trace(c, serial, &ix))
        print_trace_block_at(c, ix);
}

/* ---- SITES */

typedef struct print_site_row {
    hr_alloc_site s;
    uint64_t v[4];  /* live bytes, objs, alloc bytes, objs: true values (print_notes_row) */
    int mark;       /* print_notes_row's result */
    uint32_t pos;   /* in the record: ties keep the writer's order */
} print_site_row;

static int print_site_by_live(const void *a, const void *b)
{
    const print_site_row *x = a, *y = b;
    if (x->v[0] != y->v[0])
        return x->v[0] < y->v[0] ? 1 : -1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int print_site_by_alloc(const void *a, const void *b)
{
    const print_site_row *x = a, *y = b;
    if (x->v[2] != y->v[2])
        return x->v[2] < y->v[2] ? 1 : -1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static const char *print_site_class(const print_ctx *c, const hr_alloc_site *s, char *buf,
                                    size_t cap)
{
    const char *n = print_lookup(c->m, &c->m->serial_name, s->class_serial);
    if (n)
        return n;
    /* a primitive array needs no LOAD CLASS to be named */
    if (hprof_type_is_primitive(s->array_type)) {
        snprintf(buf, cap, "%s[]", hprof_type_name(s->array_type));
        return buf;
    }
    snprintf(buf, cap, "<unknown class %" PRIu32 ">", s->class_serial);
    return buf;
}

/* Reads the rows of an ALLOC SITES record, sorted; NULL when out of memory
 * (or, with *n == 0, when there are none). */
static print_site_row *print_site_rows(print_ctx *c, const hr_record *r, int by_alloc, uint32_t *n)
{
    *n = r->u.alloc_sites.nsites;
    if (!*n)
        return NULL;
    print_site_row *rows = malloc((size_t)*n * sizeof *rows);
    if (!rows) {
        c->oom = 1;
        *n = 0;
        return NULL;
    }
    for (uint32_t i = 0; i < *n; i++) {
        hr_alloc_site_at(r, i, &rows[i].s);
        rows[i].pos = i;
        rows[i].v[0] = rows[i].s.live_bytes;
        rows[i].v[1] = rows[i].s.live_instances;
        rows[i].v[2] = rows[i].s.alloc_bytes;
        rows[i].v[3] = rows[i].s.alloc_instances;
        rows[i].mark = print_notes_row(&c->notes, i, rows[i].v);
    }
    qsort(rows, *n, sizeof *rows, by_alloc ? print_site_by_alloc : print_site_by_live);
    return rows;
}

static void print_sites_section(print_ctx *c, const hr_record *r)
{
    int by_alloc = c->by_alloc || (r->u.alloc_sites.flags & HPROF_SITES_SORT_BY_ALLOC);
    uint32_t n;
    print_site_row *rows = print_site_rows(c, r, by_alloc, &n);
    if (n && !rows)
        return;
    const print_site_notes *nt = &c->notes;
    double live_total = nt->has_u8 ? (double)nt->live_total[0] : r->u.alloc_sites.total_live_bytes;
    double alloc_total = (double)r->u.alloc_sites.total_alloc_bytes;
    /* the cutoff rule of the original (site share of the total, which
     * counts the sites the writer already left out), on the sort key */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        double key = (double)(by_alloc ? rows[i].v[2] : rows[i].v[0]);
        double total = by_alloc ? alloc_total : live_total;
        if (c->cutoff > 0 && (total <= 0 || key / total < c->cutoff))
            continue;
        rows[kept++] = rows[i];
    }
    for (uint32_t i = 0; i < kept; i++)
        print_trace_block(c, rows[i].s.trace_serial);
    char when[64];
    print_time(c, r->time_us, when, sizeof when);
    /* the agent's own text spells the notes the same way (agent/out.c) */
    char est[96] = "";
    if (nt->sample_bytes)
        snprintf(est, sizeof est, ", estimated from samples every %" PRIu64 " bytes", nt->sample_bytes);
    fprintf(c->out, "SITES BEGIN (ordered by %s%s%s%s) %s\n", by_alloc ? "allocated bytes" : "live bytes",
            est, nt->note ? "; " : "", nt->note ? nt->note : "", when);
    fputs("          percent          live          alloc'ed  stack class\n", c->out);
    fputs(" rank   self  accum     bytes objs     bytes  objs trace name\n", c->out);
    double accum = 0;
    for (uint32_t i = 0; i < kept; i++) {
        const hr_alloc_site *s = &rows[i].s;
        const uint64_t *v = rows[i].v;
        double self = live_total > 0 ? (double)v[0] / live_total : 0.0;
        accum += self;
        char buf[64], samp[64] = "";
        uint32_t pos = rows[i].pos;
        if (pos < nt->nsamp)
            snprintf(samp, sizeof samp, "  [%" PRIu64 " sample%s, %" PRIu64 " live]", nt->samp[2 * pos],
                     nt->samp[2 * pos] == 1 ? "" : "s", nt->samp[2 * pos + 1]);
        fprintf(c->out, "%5" PRIu32 " %5.2f%% %5.2f%% %9" PRIu64 " %4" PRIu64 " %9" PRIu64
                        " %5" PRIu64 " %5" PRIu32 " %s%s%s\n",
                i + 1, self * 100.0, accum * 100.0, v[0], v[1], v[2], v[3], s->trace_serial,
                print_site_class(c, s, buf, sizeof buf), samp,
                rows[i].mark & 2 ? "  [u4 saturated: may be larger]" : "");
    }
    fputs("SITES END\n", c->out);
    free(rows);
}

/* ---- CPU SAMPLES */

typedef struct print_sample_row {
    uint32_t count, trace, pos;
} print_sample_row;

static int print_sample_cmp(const void *a, const void *b)
{
    const print_sample_row *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void print_samples_section(print_ctx *c, const hr_record *r)
{
    uint32_t n = r->u.cpu_samples.ntraces;
    print_sample_row *rows = NULL;
    if (n) {
        rows = malloc((size_t)n * sizeof *rows);
        if (!rows) {
            c->oom = 1;
            return;
        }
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        hr_cpu_sample_at(r, i, &rows[i].count, &rows[i].trace);
        rows[i].pos = i;
        sum += rows[i].count;
    }
    if (n)
        qsort(rows, n, sizeof *rows, print_sample_cmp);
    for (uint32_t i = 0; i < n; i++)
        print_trace_block(c, rows[i].trace);
    /* a writer that leaves the total at 0 still gets percentages */
    double total = r->u.cpu_samples.total ? (double)r->u.cpu_samples.total : (double)sum;
    char when[64];
    print_time(c, r->time_us, when, sizeof when);
    fprintf(c->out, "CPU SAMPLES BEGIN (total = %" PRIu32 ") %s\n", r->u.cpu_samples.total, when);
    if (n)
        fputs("rank   self  accum   count trace method\n", c->out);
    double accum = 0;
    for (uint32_t i = 0; i < n; i++) {
        double self = total > 0 ? rows[i].count * 100.0 / total : 0.0;
        accum += self;
        fprintf(c->out, "%4" PRIu32 " %5.2f%% %5.2f%% %7" PRIu32 " %5" PRIu32, i + 1, self, accum,
                rows[i].count, rows[i].trace);
        const print_trace *t = print_find_trace(c, rows[i].trace, NULL);
        const print_frame *f = t && t->nframes ? print_find_frame(c, c->m->tframes[t->first]) : NULL;
        if (!t)
            fputs(" <unknown trace>\n", c->out);
        else if (!t->nframes)
            fputs(" <empty trace>\n", c->out);
        else if (!f)
            fprintf(c->out, " <unknown frame %" PRIx64 ">\n", c->m->tframes[t->first]);
        else
            fprintf(c->out, " %s.%s\n", print_class_by_serial(c, f->class_serial),
                    print_method_name(c, f));
    }
    fputs("CPU SAMPLES END\n", c->out);
    free(rows);
}

/* ---- collapsed stacks */

static void print_acc_add(print_ctx *c, uint32_t trace, uint32_t class_serial, int has_class,
                          uint8_t array_type, uint64_t w)
{
    if (!w)
        return;
    uint64_t key = ((uint64_t)(has_class ? class_serial : 0) << 32) | trace;
    int ins;
    uint64_t *slot = hu_map_upsert(&c->acc_ix, key, c->nacc, &ins);
    if (!slot) {
        c->oom = 1;
        return;
    }
    if (ins) {
        if (print_grow(&c->acc, &c->capacc, c->nacc + 1, sizeof *c->acc) != 0) {
            c->oom = 1;
            return;
        }
        print_acc *a = &c->acc[c->nacc++];
        memset(a, 0, sizeof *a);
        a->trace_serial = trace;
        a->class_serial = class_serial;
        a->has_class = has_class;
        a->array_type = array_type;
    }
    c->acc[*slot].weight += w;
}

typedef struct print_text {
    char *s;
    size_t n, cap;
    int oom;
} print_text;

/* Appends text; in a name (`sep` 0), ';' and newline become '_', as ';'
 * separates frames and a newline ends the line: a hostile name cannot split
 * a stack. */
static void print_text_add(print_text *t, const char *s, int sep)
{
    size_t k = strlen(s);
    if (print_grow(&t->s, &t->cap, t->n + k + 1, 1) != 0) {
        t->oom = 1;
        return;
    }
    for (size_t i = 0; i < k; i++)
        t->s[t->n++] = (!sep && (s[i] == ';' || s[i] == '\n')) ? '_' : s[i];
    t->s[t->n] = 0;
}

static void print_text_put(print_text *t, const char *s)
{
    print_text_add(t, s, 0);
}

static void print_acc_stack(print_ctx *c, const print_acc *a, print_text *t)
{
    const print_trace *tr = print_find_trace(c, a->trace_serial, NULL);
    if (!tr) {
        print_text_put(t, "<unknown trace>");
    } else if (!tr->nframes) {
        print_text_put(t, "<empty>");
    } else {
        /* TRACE lists the innermost frame first; flame graphs want the root first */
        for (uint32_t i = tr->nframes; i-- > 0;) {
            const print_frame *f = print_find_frame(c, c->m->tframes[tr->first + i]);
            print_text_put(t, f ? print_class_by_serial(c, f->class_serial) : "<Unknown Class>");
            print_text_put(t, ".");
            print_text_put(t, f ? print_method_name(c, f) : "<Unknown Method>");
            if (i)
                print_text_add(t, ";", 1);
        }
    }
    if (a->has_class) {
        char buf[64];
        hr_alloc_site s;
        memset(&s, 0, sizeof s);
        s.class_serial = a->class_serial;
        s.array_type = a->array_type;
        print_text_add(t, ";", 1);
        print_text_put(t, print_site_class(c, &s, buf, sizeof buf));
    }
    /* a NUL between stacks makes each one a C string for sorting */
    if (print_grow(&t->s, &t->cap, t->n + 2, 1) != 0) {
        t->oom = 1;
        return;
    }
    t->s[t->n++] = 0;
}

static int print_acc_cmp(const void *a, const void *b)
{
    const print_acc *x = a, *y = b;
    return strcmp(x->text, y->text);
}

static void print_collapsed_flush(print_ctx *c)
{
    print_text t = {0};
    for (size_t i = 0; i < c->nacc && !t.oom; i++) {
        c->acc[i].stack = t.n;
        print_acc_stack(c, &c->acc[i], &t);
    }
    if (t.oom) {
        c->oom = 1;
        free(t.s);
        return;
    }
    /* different traces can spell the same stack (other lines, other
     * threads): merge them, in a stable order */
    for (size_t i = 0; i < c->nacc; i++)
        c->acc[i].text = t.s + c->acc[i].stack;
    if (c->nacc)
        qsort(c->acc, c->nacc, sizeof *c->acc, print_acc_cmp);
    for (size_t i = 0; i < c->nacc;) {
        uint64_t w = 0;
        size_t j = i;
        while (j < c->nacc && strcmp(c->acc[j].text, c->acc[i].text) == 0)
            w += c->acc[j++].weight;
        fprintf(c->out, "%s %" PRIu64 "\n", c->acc[i].text, w);
        i = j;
    }
    free(t.s);
}

/* ---- HEAP DUMP */

/* The lines written once per object (OBJ, ARR, fields, elements) are built
 * here and written with one fwrite: fprintf's parsing and number formatting
 * took 70 % of a big heap dump's rendering. Out of memory latches c->oom. */
static void print_ln_put(print_ctx *c, const char *s, size_t k)
{
    if (print_grow(&c->ln, &c->capln, c->nln + k, 1) != 0) {
        c->oom = 1;
        return;
    }
    memcpy(c->ln + c->nln, s, k);
    c->nln += k;
}

#define print_ln_lit(c, lit) print_ln_put((c), (lit), sizeof(lit) - 1)

static void print_ln_str(print_ctx *c, const char *s)
{
    print_ln_put(c, s, strlen(s));
}

static void print_ln_hex(print_ctx *c, uint64_t v)
{
    char b[16];
    size_t n = sizeof b;
    do {
        b[--n] = "0123456789abcdef"[v & 0xF];
        v >>= 4;
    } while (v);
    print_ln_put(c, b + n, sizeof b - n);
}

static void print_ln_dec(print_ctx *c, uint64_t v)
{
    char b[20];
    size_t n = sizeof b;
    do {
        b[--n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    print_ln_put(c, b + n, sizeof b - n);
}

static void print_ln_flush(print_ctx *c)
{
    if (c->nln)
        fwrite(c->ln, 1, c->nln, c->out);
    c->nln = 0;
}

/* The modes that print heap dumps. */
static int print_heap_mode(const print_ctx *c)
{
    return c->mode == PRINT_TEXT || c->mode == PRINT_HEAP;
}

static void print_heap_begin(print_ctx *c, const hr_record *r)
{
    /* the original prints every trace not yet printed before a heap dump
     * (the agent prints its own, and asks for none here) */
    for (size_t i = 0; (c->mode == PRINT_TEXT || c->heap_traces) && i < c->m->ntraces; i++) {
        const uint64_t *ix = hu_map_get(&c->m->trace_ix, c->m->traces[i].serial);
        if (ix && *ix == i) /* a redefined serial prints once, as its last definition */
            print_trace_block_at(c, i);
    }
    print_dump d = {0};
    if (c->dumps_seen < c->m->ndumps)
        d = c->m->dumps[c->dumps_seen];
    c->dumps_seen++;
    char when[64];
    print_time(c, r->time_us, when, sizeof when);
    fprintf(c->out, "HEAP DUMP BEGIN (%" PRIu64 " objects, %" PRIu64 " bytes) %s\n", d.objects,
            d.bytes, when);
}

static void print_heap_events(print_ctx *c, int ev, const hr_record *r)
{
    int mask = print_dump_event(&c->dump_state, ev);
    if ((mask & PRINT_DUMP_END) && c->cut) {
        print_dump d = {0};
        if (c->dumps_seen && c->dumps_seen <= c->m->ndumps)
            d = c->m->dumps[c->dumps_seen - 1];
        fprintf(c->out, "HEAP DUMP INCOMPLETE: %s; this section holds only the %" PRIu64
                " objects (%" PRIu64 " bytes) written before that\n", c->cut, d.objects, d.bytes);
    }
    if (mask & PRINT_DUMP_END)
        fputs("HEAP DUMP END\n", c->out);
    if (mask & PRINT_DUMP_BEGIN)
        print_heap_begin(c, r);
}

static void print_instance(print_ctx *c, const hr_sub *s)
{
    const print_model *m = c->m;
    print_ln_lit(c, "OBJ ");
    print_ln_hex(c, s->u.inst.id);
    print_ln_lit(c, " (sz=");
    print_ln_dec(c, objsize_of(&m->sizes, s, m->idsz));
    print_ln_lit(c, ", trace=");
    print_ln_dec(c, s->u.inst.trace_serial);
    print_ln_lit(c, ", class=");
    print_ln_str(c, print_class_by_id(c, s->u.inst.class_id));
    print_ln_lit(c, "@");
    print_ln_hex(c, s->u.inst.class_id);
    print_ln_lit(c, ")\n");
    hprof_id cls = s->u.inst.class_id;
    uint64_t off = 0;
    /* the values hold the class's own fields, then each superclass's; in a
     * lying file whose supers loop, the walk ends after the distinct
     * classes of the chain, each visited once */
    const uint64_t *ix0 = hu_map_get(&m->layout_ix, cls);
    size_t steps = ix0 && m->chain_len ? m->chain_len[*ix0] : 0;
    for (size_t depth = 0; cls && depth < steps; depth++) {
        const uint64_t *ix = hu_map_get(&m->layout_ix, cls);
        if (!ix)
            break;
        const print_layout *l = &m->layouts[*ix];
        for (uint32_t i = 0; i < l->nfields; i++) {
            const print_field *f = &m->fields[l->first + i];
            unsigned sz = hprof_type_size(f->type, m->idsz);
            if (!sz || off + sz > s->u.inst.nbytes)
                goto out;
            if (f->type == HPROF_TYPE_OBJECT) {
                hprof_id v = hr_get_id(s->u.inst.values + off, m->idsz);
                if (v) {
                    const char *name = print_utf8(m, f->name_id);
                    if (!name)
                        name = "<unknown field>";
                    size_t k = strlen(name);
                    print_ln_lit(c, "\t");
                    print_ln_put(c, name, k);
                    /* a second tab when the name is short, as the original */
                    print_ln_put(c, "\t\t", k < 8 ? 2 : 1);
                    print_ln_hex(c, v);
                    print_ln_lit(c, "\n");
                }
            }
            off += sz;
        }
        cls = l->super_id;
    }
out:
    print_ln_flush(c);
}

/* ARR of objects: the array class and the non-null elements. */
static void print_obj_array(print_ctx *c, const hr_sub *s)
{
    unsigned idsz = c->m->idsz;
    if (s->part) /* a later part of its elements (hr_sub): no second header */
        goto elems;
    print_ln_lit(c, "ARR ");
    print_ln_hex(c, s->u.oarr.id);
    print_ln_lit(c, " (sz=");
    print_ln_dec(c, objsize_of(&c->m->sizes, s, idsz));
    print_ln_lit(c, ", trace=");
    print_ln_dec(c, s->u.oarr.trace_serial);
    print_ln_lit(c, ", nelems=");
    print_ln_dec(c, s->u.oarr.n);
    print_ln_lit(c, ", elem type=");
    print_ln_str(c, print_class_by_id(c, s->u.oarr.class_id));
    print_ln_lit(c, "@");
    print_ln_hex(c, s->u.oarr.class_id);
    print_ln_lit(c, ")\n");
elems:
    for (uint32_t i = 0; i < s->u.oarr.count; i++) {
        hprof_id e = hr_get_id(s->u.oarr.elems + (size_t)i * idsz, idsz);
        if (e) {
            print_ln_lit(c, "\t[");
            print_ln_dec(c, (uint64_t)s->u.oarr.first + i);
            print_ln_lit(c, "]\t\t");
            print_ln_hex(c, e);
            print_ln_lit(c, "\n");
        }
        if (c->nln >= PRINT_LINE_FLUSH) /* a huge array: bounded memory */
            print_ln_flush(c);
    }
    print_ln_flush(c);
}

/* ARR of primitives: only the type, as the original. */
static void print_prim_array(print_ctx *c, const hr_sub *s)
{
    const char *t = hprof_type_name(s->u.parr.type);
    print_ln_lit(c, "ARR ");
    print_ln_hex(c, s->u.parr.id);
    print_ln_lit(c, " (sz=");
    print_ln_dec(c, objsize_of(&c->m->sizes, s, c->m->idsz));
    print_ln_lit(c, ", trace=");
    print_ln_dec(c, s->u.parr.trace_serial);
    print_ln_lit(c, ", nelems=");
    print_ln_dec(c, s->u.parr.n);
    print_ln_lit(c, ", elem type=");
    print_ln_str(c, t ? t : "?");
    print_ln_lit(c, "[])\n");
    print_ln_flush(c);
}

static void print_class_dump(print_ctx *c, const hr_sub *s)
{
    FILE *o = c->out;
    unsigned idsz = c->m->idsz;
    fprintf(o, "CLS %" PRIx64 " (name=%s, trace=%" PRIu32 ")\n", s->u.cls.class_id,
            print_class_by_id(c, s->u.cls.class_id), s->u.cls.trace_serial);
    static const char *const label[] = {"super", "loader", "signers", "domain"};
    const hprof_id v[] = {s->u.cls.super_id, s->u.cls.loader_id, s->u.cls.signers_id,
                          s->u.cls.protection_domain_id};
    for (int i = 0; i < 4; i++)
        if (v[i])
            fprintf(o, "\t%s\t\t%" PRIx64 "\n", label[i], v[i]);
    const uint8_t *q = s->u.cls.statics;
    for (uint16_t i = 0; i < s->u.cls.nstatics; i++) {
        hr_static st;
        q = hr_class_static_next(q, idsz, &st);
        if (st.type == HPROF_TYPE_OBJECT && st.value) {
            const char *name = print_utf8(c->m, st.name_id);
            fprintf(o, "\tstatic %s\t%" PRIx64 "\n", name ? name : "<unknown field>", st.value);
        }
    }
    q = s->u.cls.cp;
    for (uint16_t i = 0; i < s->u.cls.ncp; i++) {
        hr_cp_entry e;
        q = hr_class_cp_next(q, idsz, &e);
        if (e.type == HPROF_TYPE_OBJECT && e.value)
            fprintf(o, "\tconstant pool entry %u\t%" PRIx64 "\n", (unsigned)e.index, e.value);
    }
}

static int print_sub(void *ctx, const hr_sub *s)
{
    print_ctx *c = ctx;
    FILE *o = c->out;
    hprof_id id = s->u.root.id;
    int32_t frame = (int32_t)s->u.root.frame;
    /* root kinds the original never wrote (Android's) get a name in its style */
    const char *plain = NULL;
    switch (s->tag) {
    case HPROF_GC_ROOT_THREAD_OBJ:
        fprintf(o, "ROOT %" PRIx64 " (kind=<thread>, id=%" PRIu32 ", trace=%" PRIu32 ")\n", id,
                s->u.root.thread_serial, s->u.root.frame);
        break;
    case HPROF_GC_ROOT_JNI_GLOBAL:
        fprintf(o, "ROOT %" PRIx64 " (kind=<JNI global ref>, id=%" PRIx64 ", trace=0)\n", id,
                s->u.root.ref);
        break;
    case HPROF_GC_ROOT_JNI_LOCAL:
        fprintf(o, "ROOT %" PRIx64 " (kind=<JNI local ref>, thread=%" PRIu32 ", frame=%" PRId32 ")\n",
                id, s->u.root.thread_serial, frame);
        break;
    case HPROF_GC_ROOT_JAVA_FRAME:
        fprintf(o, "ROOT %" PRIx64 " (kind=<Java stack>, thread=%" PRIu32 ", frame=%" PRId32 ")\n",
                id, s->u.root.thread_serial, frame);
        break;
    case HPROF_GC_ROOT_JNI_MONITOR:
        fprintf(o, "ROOT %" PRIx64 " (kind=<JNI monitor>, thread=%" PRIu32 ", frame=%" PRId32 ")\n",
                id, s->u.root.thread_serial, frame);
        break;
    case HPROF_GC_ROOT_NATIVE_STACK:
        fprintf(o, "ROOT %" PRIx64 " (kind=<native stack>, thread=%" PRIu32 ")\n", id,
                s->u.root.thread_serial);
        break;
    case HPROF_GC_ROOT_THREAD_BLOCK:
        fprintf(o, "ROOT %" PRIx64 " (kind=<thread block>, thread=%" PRIu32 ")\n", id,
                s->u.root.thread_serial);
        break;
    case HPROF_GC_ROOT_STICKY_CLASS:
        fprintf(o, "ROOT %" PRIx64 " (kind=<system class>, name=%s)\n", id, print_class_by_id(c, id));
        break;
    case HPROF_GC_ROOT_MONITOR_USED: plain = "busy monitor"; break;
    case HPROF_GC_ROOT_UNKNOWN: plain = "unknown"; break;
    case HPROF_GC_ROOT_INTERNED_STRING: plain = "interned string"; break;
    case HPROF_GC_ROOT_FINALIZING: plain = "finalizing"; break;
    case HPROF_GC_ROOT_DEBUGGER: plain = "debugger"; break;
    case HPROF_GC_ROOT_REFERENCE_CLEANUP: plain = "reference cleanup"; break;
    case HPROF_GC_ROOT_VM_INTERNAL: plain = "VM internal"; break;
    case HPROF_GC_ROOT_UNREACHABLE: plain = "unreachable"; break;
    case HPROF_GC_CLASS_DUMP: print_class_dump(c, s); break;
    case HPROF_GC_INSTANCE_DUMP: print_instance(c, s); break;
    case HPROF_GC_OBJ_ARRAY_DUMP: print_obj_array(c, s); break;
    case HPROF_GC_PRIM_ARRAY_DUMP: print_prim_array(c, s); break;
    default: /* HEAP DUMP INFO has no text form */
        break;
    }
    if (plain)
        fprintf(o, "ROOT %" PRIx64 " (kind=<%s>)\n", id, plain);
    return c->oom;
}

static void print_thread_start(print_ctx *c, const hr_record *r)
{
    const char *name = print_utf8(c->m, r->u.start_thread.name_id);
    const char *group = print_utf8(c->m, r->u.start_thread.group_name_id);
    fprintf(c->out, "THREAD START (obj=%" PRIx64 ", id = %" PRIu32 ", name=\"%s\", group=\"%s\")\n",
            r->u.start_thread.thread_id, r->u.start_thread.thread_serial, name ? name : "",
            group ? group : "");
}

static int print_record(void *ctx, const hr_record *r)
{
    print_ctx *c = ctx;
    if (print_heap_mode(c))
        print_heap_events(c, r->tag, r);
    if (!r->body || r->malformed)
        return c->oom;
    if (r->tag == HPROF_TAG_ALLOC_SITES) {
        c->sites_seen++;
        int last = c->sites_seen == c->m->nsites;
        if (c->mode == PRINT_TEXT || (c->mode == PRINT_SITES && (!c->last_only || last)))
            print_sites_section(c, r);
        /* sites are cumulative over a run: only the last record is the whole picture */
        if (c->mode == PRINT_COLLAPSED && c->use_sites && last)
            for (uint32_t i = 0; i < r->u.alloc_sites.nsites; i++) {
                hr_alloc_site s;
                hr_alloc_site_at(r, i, &s);
                uint64_t v[4] = {s.live_bytes, s.live_instances, s.alloc_bytes, s.alloc_instances};
                print_notes_row(&c->notes, i, v);
                print_acc_add(c, s.trace_serial, s.class_serial, 1, s.array_type, v[2]);
            }
        print_notes_clear(&c->notes); /* they described this record only */
    } else if (r->tag == HPROF_TAG_UTF8) {
        if (print_notes_take(&c->notes, (const char *)r->u.utf8.str, r->u.utf8.len) < 0)
            c->oom = 1;
    } else if (r->tag == HPROF_TAG_CPU_SAMPLES) {
        if (c->mode == PRINT_TEXT || c->mode == PRINT_SAMPLES)
            print_samples_section(c, r);
        /* each CPU SAMPLES covers the time since the previous dump: they add up */
        if (c->mode == PRINT_COLLAPSED && !c->use_sites)
            for (uint32_t i = 0; i < r->u.cpu_samples.ntraces; i++) {
                uint32_t n, t;
                hr_cpu_sample_at(r, i, &n, &t);
                print_acc_add(c, t, 0, 0, 0, n);
            }
    } else if (c->mode == PRINT_TEXT) {
        char when[64];
        switch (r->tag) {
        case HPROF_TAG_START_THREAD: print_thread_start(c, r); break;
        case HPROF_TAG_END_THREAD:
            fprintf(c->out, "THREAD END (id = %" PRIu32 ")\n", r->u.end_thread.thread_serial);
            break;
        case HPROF_TAG_HEAP_SUMMARY:
            /* binary only in the original (socket command 0x04): this line is ours */
            print_time(c, r->time_us, when, sizeof when);
            fprintf(c->out, "HEAP SUMMARY (live bytes = %" PRIu32 ", live objs = %" PRIu32
                            ", alloc'ed bytes = %" PRIu64 ", alloc'ed objs = %" PRIu64 ") %s\n",
                    r->u.heap_summary.live_bytes, r->u.heap_summary.live_instances,
                    r->u.heap_summary.alloc_bytes, r->u.heap_summary.alloc_instances, when);
            break;
        default: break;
        }
    }
    return c->oom;
}

static int print_record_end(void *ctx, const hr_record *r)
{
    print_ctx *c = ctx;
    if (print_heap_mode(c))
        print_heap_events(c, PRINT_EV_RECORD_END, r);
    return c->oom;
}

static int print_header(void *ctx, const hr_header *h)
{
    print_ctx *c = ctx;
    if (c->mode != PRINT_TEXT)
        return 0;
    char when[64];
    print_time(c, 0, when, sizeof when);
    /* ctime's own newline makes the blank line; the prelude file is not ours
     * to copy, its separator is kept */
    fprintf(c->out, "%s, created %s\n\n\n--------\n\n", h->magic, when);
    return 0;
}

/* ------------------------------------------------------------ driver */

/* The reasons print_passes could not run both passes. */
enum { PRINT_PASS_OK, PRINT_PASS_NOT_HPROF, PRINT_PASS_OOM, PRINT_PASS_REREAD };

/* Runs both passes over `src` (rewound in between) for the command set up
 * in `c`, whose model c->m is initialised and output c->out set. Returns
 * PRINT_PASS_OK when both ran (pass 1's status in *rc, and m->problems, c->oom
 * tell how clean the input and the run were), or why they could not. */
static int print_passes(print_ctx *c, hr_source *src, int want_heap, hr_status *rc)
{
    print_model *m = c->m;
    hr_callbacks cb1 = {.on_header = print_m_header, .on_record = print_m_record,
                        .on_record_end = print_m_record_end, .on_problem = print_m_problem,
                        .on_sub = want_heap ? print_m_sub : NULL};
    *rc = hr_parse(src, &cb1, m, NULL);
    if (!m->oom && !m->idsz)
        return PRINT_PASS_NOT_HPROF;
    if (!m->oom)
        print_m_finish(m, &m->class_serial, &m->serial_name);
    if (!m->oom)
        print_m_finish(m, &m->class_id, &m->id_name);
    if (!m->oom)
        print_m_chains(m);
    if (!m->oom)
        print_m_sizes(m);
    if (!m->oom && m->ntraces && !(c->printed = calloc(m->ntraces, 1)))
        m->oom = 1;
    if (m->oom)
        return PRINT_PASS_OOM;
    if (hr_source_rewind(src) != 0)
        return PRINT_PASS_REREAD;
    hr_callbacks cb2 = {.on_header = print_header, .on_record = print_record,
                        .on_record_end = print_record_end,
                        .on_sub = print_heap_mode(c) ? print_sub : NULL};
    hr_parse(src, &cb2, c, NULL);
    if (print_heap_mode(c))
        print_heap_events(c, PRINT_EV_EOF, NULL);
    return PRINT_PASS_OK;
}

static void print_ctx_init(print_ctx *c, print_model *m, FILE *out)
{
    c->m = m;
    c->out = out;
    hu_map_init(&c->warned);
    hu_map_init(&c->acc_ix);
}

static void print_ctx_cleanup(print_ctx *c)
{
    free(c->ln);
    c->ln = NULL;
    free(c->printed);
    c->printed = NULL;
    free(c->acc);
    c->acc = NULL;
    print_notes_clear(&c->notes);
    hu_map_cleanup(&c->warned);
    hu_map_cleanup(&c->acc_ix);
    print_model_cleanup(c->m);
    c->m = NULL;
}

/* Runs both passes over `path` for the command set up in `c`. */
static int print_run(print_ctx *c, const char *path, int want_heap)
{
    print_model m;
    print_model_init(&m, path);
    m.normalize = c->normalize;
    print_ctx_init(c, &m, stdout);
    int status = PRINT_EXIT_OK;
    char *spool = NULL;
    const char *real = path;
    uint8_t *tbin = NULL;
    size_t tlen = 0;
    if (strcmp(path, "-") == 0) {
        spool = print_spool_stdin();
        if (!spool) {
            fprintf(stderr, "hprof: cannot copy standard input to a temporary file (in $TMPDIR, "
                            "else /tmp): %s\n", strerror(errno));
            status = PRINT_EXIT_PROBLEMS;
            goto done;
        }
        real = spool;
    }
    int err = 0;
    /* the agent's text layout (format=a): read as the binary it stands for */
    char terr[256];
    tp_info tinfo;
    int text = tp_load_file(real, &tbin, &tlen, &tinfo, terr, sizeof terr);
    if (text < 0) {
        fprintf(stderr, "hprof: %s: %s\n", path, terr);
        status = PRINT_EXIT_PROBLEMS;
        goto done;
    }
    hr_source *src = text ? hr_source_memory(tbin, tlen) : hr_source_file(real, &err);
    if (!src) {
        fprintf(stderr, "hprof: cannot open %s: %s\n", path, strerror(err));
        status = PRINT_EXIT_PROBLEMS;
        goto done;
    }
    hr_status rc;
    int pass = print_passes(c, src, want_heap, &rc);
    hr_source_close(src);
    if (pass != PRINT_PASS_OK) {
        if (pass == PRINT_PASS_NOT_HPROF)
            fprintf(stderr, "hprof: %s is not an HPROF file: neither binary (\"JAVA PROFILE "
                            "1.0.x\" and a NUL) nor the agent's text layout (\"JAVA PROFILE "
                            "1.0.x, created ...\")\n", path);
        else if (pass == PRINT_PASS_OOM)
            fprintf(stderr, "hprof: out of memory reading %s\n", path);
        else
            fprintf(stderr, "hprof: cannot re-read %s\n", path);
        status = PRINT_EXIT_PROBLEMS;
        goto done;
    }
    if (c->mode == PRINT_COLLAPSED && !c->oom)
        print_collapsed_flush(c);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "hprof: %.50s: ", path);
    wl_summary(&m.shown, stderr, prefix);
    if (c->oom) {
        fprintf(stderr, "hprof: out of memory reading %s\n", path);
        status = PRINT_EXIT_PROBLEMS;
    } else if (rc != HR_OK || m.problems) {
        fprintf(stderr, "hprof: %s is malformed; the output covers what could be read "
                        "(run 'hprof verify %s')\n", path, path);
        status = PRINT_EXIT_PROBLEMS;
    }
    int need_sites = c->mode == PRINT_SITES || (c->mode == PRINT_COLLAPSED && c->use_sites);
    int need_samples = !need_sites && (c->mode == PRINT_SAMPLES || c->mode == PRINT_COLLAPSED);
    if (text && ((need_sites && !m.nsites) || (need_samples && !m.nsamples))) {
        /* the text layout: say which sections it has */
        char what[192];
        tp_describe(&tinfo, what, sizeof what);
        fprintf(stderr, "hprof: %s is the agent's text layout (format=a) with %s, no %s section "
                        "(written with %s)\n", path, what, need_sites ? "SITES" : "CPU SAMPLES",
                need_sites ? "heap=sites or heap=all" : "cpu=samples");
        status = PRINT_EXIT_PROBLEMS;
    } else if (c->mode == PRINT_SITES && !m.nsites) {
        fprintf(stderr, "hprof: %s has no ALLOC SITES record (written with heap=sites or heap=all)\n",
                path);
        status = PRINT_EXIT_PROBLEMS;
    } else if ((c->mode == PRINT_SAMPLES || (c->mode == PRINT_COLLAPSED && !c->use_sites)) &&
               !m.nsamples) {
        fprintf(stderr, "hprof: %s has no CPU SAMPLES record (written with cpu=samples)\n", path);
        status = PRINT_EXIT_PROBLEMS;
    } else if (c->mode == PRINT_COLLAPSED && c->use_sites && !m.nsites) {
        fprintf(stderr, "hprof: %s has no ALLOC SITES record (written with heap=sites or heap=all)\n",
                path);
        status = PRINT_EXIT_PROBLEMS;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "hprof: cannot write the output: %s\n", strerror(errno));
        status = PRINT_EXIT_PROBLEMS;
    }
done:
    free(tbin);
    if (spool) {
        unlink(spool);
        free(spool);
    }
    print_ctx_cleanup(c);
    return status;
}

int print_heap_dumps(hr_source *src, FILE *out, unsigned flags, char *err, size_t errcap)
{
    return print_heap_dumps_cut(src, out, flags, NULL, err, errcap);
}

int print_heap_dumps_cut(hr_source *src, FILE *out, unsigned flags, const char *cut, char *err,
                         size_t errcap)
{
    char none[1];
    if (!err || !errcap) {
        err = none;
        errcap = sizeof none;
    }
    err[0] = 0;
    print_ctx c;
    memset(&c, 0, sizeof c);
    c.mode = PRINT_HEAP;
    c.heap_traces = (flags & PRINT_HEAP_TRACES) != 0;
    c.cut = cut;
    print_model m;
    print_model_init(&m, "heap dump");
    m.err = err;
    m.errcap = errcap;
    print_ctx_init(&c, &m, out);
    hr_status rc = HR_OK;
    int pass = print_passes(&c, src, 1, &rc);
    int status = 0;
    /* the input's first problem (already in err) is the most useful message */
    if (pass == PRINT_PASS_NOT_HPROF) {
        if (!err[0])
            snprintf(err, errcap, "not an HPROF file");
        status = -1;
    } else if (pass == PRINT_PASS_OOM || c.oom) {
        snprintf(err, errcap, "out of memory");
        status = -1;
    } else if (pass == PRINT_PASS_REREAD) {
        snprintf(err, errcap, "cannot re-read the input");
        status = -1;
    } else if (rc != HR_OK || m.problems) {
        if (!err[0])
            snprintf(err, errcap, "malformed input");
        status = -1;
    }
    if (fflush(out) != 0 || ferror(out)) {
        snprintf(err, errcap, "cannot write the text: %s", strerror(errno ? errno : EIO));
        status = -1;
    }
    print_ctx_cleanup(&c);
    return status;
}

int print_sites_main(int argc, char **argv)
{
    print_ctx c;
    memset(&c, 0, sizeof c);
    c.mode = PRINT_SITES;
    const char *cutoff = NULL, *path;
    static const char *const flags[] = {"--alloc", "--last", "--normalize", NULL};
    int *const set[] = {&c.by_alloc, &c.last_only, &c.normalize};
    static const char *const valued[] = {"--cutoff", NULL};
    const char **const val[] = {&cutoff};
    int rc = print_args(argc, argv, flags, set, valued, val, &path);
    if (rc)
        return rc;
    if (cutoff) {
        char *end;
        errno = 0;
        c.cutoff = strtod(cutoff, &end);
        if (!*cutoff || *end || errno || !(c.cutoff >= 0.0 && c.cutoff <= 1.0))
            return print_usage_error("--cutoff needs a ratio from 0 to 1 (0.0001 = 0.01 %%), not '%s'",
                                     cutoff);
    }
    return print_run(&c, path, 0);
}

int print_print_main(int argc, char **argv)
{
    print_ctx c;
    memset(&c, 0, sizeof c);
    c.mode = PRINT_TEXT;
    const char *path;
    int rc = print_args(argc, argv, NULL, NULL, NULL, NULL, &path);
    return rc ? rc : print_run(&c, path, 1);
}

int print_samples_main(int argc, char **argv)
{
    print_ctx c;
    memset(&c, 0, sizeof c);
    c.mode = PRINT_SAMPLES;
    const char *path;
    static const char *const flags[] = {"--normalize", NULL};
    int *const set[] = {&c.normalize};
    int rc = print_args(argc, argv, flags, set, NULL, NULL, &path);
    return rc ? rc : print_run(&c, path, 0);
}

int print_collapsed_main(int argc, char **argv)
{
    print_ctx c;
    memset(&c, 0, sizeof c);
    c.mode = PRINT_COLLAPSED;
    const char *path;
    static const char *const flags[] = {"--sites", "--normalize", NULL};
    int *const set[] = {&c.use_sites, &c.normalize};
    int rc = print_args(argc, argv, flags, set, NULL, NULL, &path);
    return rc ? rc : print_run(&c, path, 0);
}
