/*
 * redact.c: libhprofredact (redact.h): zero every primitive value of an
 * HPROF file, keep its structure.
 *
 * How it stays fast (>= 1 GB/s) and small:
 *  - the input is one mapped byte range; the walk over it is a tight loop
 *    over records and heap sub-records (no callbacks per object);
 *  - the output is the input with "zones" overwritten (zeros, or '*' in a
 *    redacted UTF8): zones are listed, and the input is copied to a 4 MiB
 *    buffer in large blocks, the zones memset on the copy, the block written
 *    once. The output therefore has the input's size and layout exactly;
 *  - the blocks are written by a thread of the redactor's own, so the
 *    kernel's copy into the page cache (half the time on one core) runs
 *    while the next block is made; the write callback is called from that
 *    thread, in order (or from the caller's if the thread cannot start);
 *  - every class's instance layout is computed once: the list of byte ranges
 *    of its primitive fields (its own and its superclasses', merged when
 *    adjacent), so an INSTANCE DUMP costs one class lookup and a few zones.
 *
 * Passes (each a walk of the mapped input, cheap next to the output):
 *  PRE    class dumps (before or after their instances; redact_file without
 *         keep options reads sub-records only up to the first object, and
 *         starts again if a class dump comes later), LOAD CLASS names, and
 *         the set of UTF8 ids that are names (classes, fields, statics,
 *         FRAME method/signature/source, Android heap names; thread names
 *         with keep_thread_names);
 *  NAMES  top-level records only: the UTF8 texts of the names the layouts
 *         need (java/lang/String, java/lang/Thread, "name", "value",
 *         "coder", the classes matching keep_strings);
 *  KEEP1  (options only) ids of the objects held by Thread.name, and by
 *         fields and statics of the classes matching keep_strings;
 *  KEEP2  (options only) of those, the String instances, and their value
 *         arrays;
 *  OUT    the output.
 * Memory: classes, names, the kept ids; never the input's size (the pages
 * of a mapped file are released behind each walk).
 *
 * Why zones and not a rewrite: the output must keep every offset-free
 * structure byte for byte (ids, lengths, record headers), so only values
 * change, in place; equal sizes also make "nothing but values changed"
 * checkable by any reader (tests/integration/redact_check.py).
 */
#include "redact/redact.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "hprof/hprof_format.h"
#include "hprof/hr_reader.h"
#include "hprof/hw_writer.h"
#include "hu_map.h"

#define RD_BUF (4u << 20)   /* output block */
#define RD_NBUF 3u          /* output blocks in flight (writer thread) */
#define RD_ZMAX 65536u      /* zones listed before a flush */
#define RD_FILL_UTF8 '*'    /* what a redacted UTF8 byte becomes */

enum rd_pass { RD_PRE, RD_NAMES, RD_KEEP1, RD_KEEP2, RD_OUT };

/* special names, found in the NAMES pass (bits of a name id's flags) */
#define RD_N_STRING 0x01u  /* java/lang/String */
#define RD_N_THREAD 0x02u  /* java/lang/Thread */
#define RD_N_GLOB 0x04u    /* a class name matching keep_strings */
#define RD_N_FNAME 0x08u   /* field "name" */
#define RD_N_FVALUE 0x10u  /* field "value" */
#define RD_N_FCODER 0x20u  /* field "coder" */
#define RD_N_CLASSNAME 0x100u /* (PRE) the id names a class */
#define RD_N_FIELDNAME 0x200u /* (PRE) the id names a field */

typedef struct rd_range { uint32_t off, len; } rd_range;

typedef struct rd_class {
    hprof_id id, super;
    uint64_t fields_off; /* of the instance field list (after u2 nfields) */
    uint16_t nfields;
    uint8_t state;       /* 0 not laid out, 1 laid out, 2 broken (reason below) */
    uint8_t is_string, glob;
    const char *broken;  /* why its instances cannot be redacted */
    uint32_t size;       /* bytes of an instance's values */
    uint32_t rfirst, rcount; /* primitive ranges, in r->ranges */
    uint32_t ofirst, ocount; /* object field offsets (glob classes), in r->orefs */
    int64_t thread_name_off, string_value_off; /* -1 when none */
} rd_class;

typedef struct rd_zone { uint64_t start, end; uint8_t fill; } rd_zone;

struct redact {
    /* options */
    int keep_thread_names;
    char **globs;
    size_t nglobs;
    /* input */
    const uint8_t *in;
    uint64_t len;
    unsigned id;
    /* the input is a file mapping of our own: pages behind the walk are
     * unmapped from the process as it goes (they stay in the page cache),
     * so the resident set does not grow with the file */
    int drop_ok;
    /* redact_file without keep options: the PRE pass reads sub-records only
     * up to the first object (HotSpot writes every CLASS DUMP before them),
     * saving a walk; the output pass then meets a CLASS DUMP (or HEAP DUMP
     * INFO) past pre_limit only in files of another order: it stops
     * (`late`), and redact_file starts again with a whole PRE pass */
    int optimistic, late;
    uint64_t pre_limit;
    uint64_t dropped;   /* input offset below which pages were dropped */
    uint64_t next_drop; /* where the walk next drops pages */
    /* tables */
    hu_map class_ix;   /* class id -> index in classes */
    rd_class *classes;
    size_t nclasses, capclasses;
    hu_map load_name;  /* class id -> name id (LOAD CLASS) */
    hu_map names;      /* UTF8 id -> RD_N_* flags */
    rd_range *ranges;
    size_t nranges, capranges;
    uint32_t *orefs;
    size_t norefs, caporefs;
    hu_map cand, kept_str, kept_arr;
    int keeping;       /* any keep option in effect */
    /* output */
    redact_write_fn write;
    void *wctx;
    uint8_t *buf[RD_NBUF];
    size_t blen[RD_NBUF];
    pthread_t wthread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int threaded;      /* the writer thread runs */
    unsigned qhead, qn; /* queued blocks: qn of them from qhead */
    int wdone, werr;   /* no more blocks; the writer's first errno */
    rd_zone *z;
    size_t nz;
    uint64_t span; /* input offset the next flush starts at */
    /* last class looked up (instances of one class often follow each other) */
    hprof_id last_id;
    rd_class *last_cls;
    int ran;
    /* errors */
    char err[512];
    int err_input;
    redact_stats st;
};

/* hr_get_id, inlined: it runs several times per object */
static inline hprof_id rd_id(const uint8_t *p, unsigned id)
{
    return id == 8 ? hr_get_u8(p) : hr_get_u4(p);
}

/* ------------------------------------------------------------- errors */

static int redact_fail(redact *r, int input, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int redact_fail(redact *r, int input, const char *fmt, ...)
{
    if (r->err[0])
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    r->err_input = input;
    return -1;
}

const char *redact_error(const redact *r) { return r->err[0] ? r->err : NULL; }
int redact_error_is_input(const redact *r) { return r->err_input; }
const redact_stats *redact_get_stats(const redact *r) { return &r->st; }

/* ------------------------------------------------------------ life */

redact *redact_init(const redact_opts *opts)
{
    redact *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    hu_map_init(&r->class_ix);
    hu_map_init(&r->load_name);
    hu_map_init(&r->names);
    hu_map_init(&r->cand);
    hu_map_init(&r->kept_str);
    hu_map_init(&r->kept_arr);
    if (opts) {
        r->keep_thread_names = opts->keep_thread_names;
        if (opts->nkeep_strings) {
            r->globs = calloc(opts->nkeep_strings, sizeof *r->globs);
            if (!r->globs) {
                redact_cleanup(r);
                return NULL;
            }
            for (size_t i = 0; i < opts->nkeep_strings; i++) {
                r->globs[i] = strdup(opts->keep_strings[i]);
                if (!r->globs[i]) {
                    redact_cleanup(r);
                    return NULL;
                }
                r->nglobs++;
            }
        }
    }
    r->keeping = r->keep_thread_names || r->nglobs;
    return r;
}

void redact_cleanup(redact *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nglobs; i++)
        free(r->globs[i]);
    free(r->globs);
    hu_map_cleanup(&r->class_ix);
    hu_map_cleanup(&r->load_name);
    hu_map_cleanup(&r->names);
    hu_map_cleanup(&r->cand);
    hu_map_cleanup(&r->kept_str);
    hu_map_cleanup(&r->kept_arr);
    free(r->classes);
    free(r->ranges);
    free(r->orefs);
    for (unsigned i = 0; i < RD_NBUF; i++)
        free(r->buf[i]);
    free(r->z);
    free(r);
}

/* ------------------------------------------------------------- glob */

static int redact_glob_eq(char a, char b)
{
    if (a == '.')
        a = '/';
    if (b == '.')
        b = '/';
    return a == b;
}

int redact_glob_match(const char *g, const char *s, size_t slen)
{
    /* iterative, with one backtrack point: linear in practice */
    size_t si = 0;
    const char *star = NULL;
    size_t star_si = 0;
    while (si < slen) {
        if (*g == '*') {
            star = g++;
            star_si = si;
        } else if (*g && (*g == '?' || redact_glob_eq(*g, s[si]))) {
            g++;
            si++;
        } else if (star) {
            g = star + 1;
            si = ++star_si;
        } else {
            return 0;
        }
    }
    while (*g == '*')
        g++;
    return *g == '\0';
}

/* ------------------------------------------------------------ tables */

static int redact_names_or(redact *r, hprof_id id, uint64_t flags)
{
    int ins;
    uint64_t *v = hu_map_upsert(&r->names, id, flags, &ins);
    if (!v)
        return redact_fail(r, 0, "out of memory");
    *v |= flags;
    return 0;
}

static uint64_t redact_name_flags(const redact *r, hprof_id id)
{
    const uint64_t *v = hu_map_get(&r->names, id);
    return v ? *v : 0;
}

static int redact_set_add(redact *r, hu_map *m, hprof_id id)
{
    int ins;
    if (!hu_map_upsert(m, id, 1, &ins))
        return redact_fail(r, 0, "out of memory");
    return 0;
}

static int redact_class_add(redact *r, uint64_t off, hprof_id id, hprof_id super,
                            uint64_t fields_off, uint16_t nfields)
{
    int ins;
    uint64_t *v = hu_map_upsert(&r->class_ix, id, r->nclasses, &ins);
    if (!v)
        return redact_fail(r, 0, "out of memory");
    if (!ins)
        return redact_fail(r, 1, "offset %llu: a second CLASS DUMP of class 0x%llx",
                           (unsigned long long)off, (unsigned long long)id);
    if (r->nclasses == r->capclasses) {
        size_t nc = r->capclasses ? 2 * r->capclasses : 1024;
        rd_class *n = realloc(r->classes, nc * sizeof *n);
        if (!n)
            return redact_fail(r, 0, "out of memory");
        r->classes = n;
        r->capclasses = nc;
    }
    rd_class *c = &r->classes[r->nclasses++];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->super = super;
    c->fields_off = fields_off;
    c->nfields = nfields;
    c->thread_name_off = c->string_value_off = -1;
    return 0;
}

static rd_class *redact_class(redact *r, hprof_id id)
{
    if (r->last_cls && r->last_id == id)
        return r->last_cls;
    const uint64_t *v = hu_map_get(&r->class_ix, id);
    if (!v)
        return NULL;
    r->last_id = id;
    r->last_cls = &r->classes[*v];
    return r->last_cls;
}

static int redact_range_add(redact *r, rd_class *c, uint32_t off, uint32_t len)
{
    if (c->rcount) {
        rd_range *last = &r->ranges[r->nranges - 1];
        if (last->off + last->len == off) {
            last->len += len;
            return 0;
        }
    }
    if (r->nranges == r->capranges) {
        size_t nc = r->capranges ? 2 * r->capranges : 4096;
        rd_range *n = realloc(r->ranges, nc * sizeof *n);
        if (!n)
            return redact_fail(r, 0, "out of memory");
        r->ranges = n;
        r->capranges = nc;
    }
    r->ranges[r->nranges].off = off;
    r->ranges[r->nranges].len = len;
    r->nranges++;
    c->rcount++;
    return 0;
}

static int redact_oref_add(redact *r, rd_class *c, uint32_t off)
{
    if (r->norefs == r->caporefs) {
        size_t nc = r->caporefs ? 2 * r->caporefs : 1024;
        uint32_t *n = realloc(r->orefs, nc * sizeof *n);
        if (!n)
            return redact_fail(r, 0, "out of memory");
        r->orefs = n;
        r->caporefs = nc;
    }
    r->orefs[r->norefs++] = off;
    c->ocount++;
    return 0;
}

/* Lays out one class: its instances' values are its own fields, then its
 * superclass's, and so on up to java.lang.Object (HotSpot's and the JDK
 * agent's order, which every reader assumes). */
static int redact_layout(redact *r, rd_class *c)
{
    unsigned id = r->id;
    c->state = 2;
    c->rfirst = (uint32_t)r->nranges;
    c->ofirst = (uint32_t)r->norefs;
    uint64_t off = 0;
    const rd_class *k = c;
    for (size_t depth = 0;; depth++) {
        if (depth > r->nclasses) {
            c->broken = "its superclass chain loops";
            return 0;
        }
        const uint64_t *nm = hu_map_get(&r->load_name, k->id);
        uint64_t kflags = nm ? redact_name_flags(r, *nm) : 0;
        const uint8_t *p = r->in + k->fields_off;
        for (uint16_t i = 0; i < k->nfields; i++) {
            hprof_id fname = rd_id(p, id);
            unsigned t = p[id];
            p += id + 1;
            unsigned sz = hprof_type_size(t, id);
            uint64_t fflags = redact_name_flags(r, fname);
            if (off + sz > HPROF_U4_MAX) {
                c->broken = "its instances are larger than 4 GiB";
                return 0;
            }
            if (t == HPROF_TYPE_OBJECT) {
                if ((kflags & RD_N_THREAD) && (fflags & RD_N_FNAME))
                    c->thread_name_off = (int64_t)off;
                if ((kflags & RD_N_STRING) && (fflags & RD_N_FVALUE))
                    c->string_value_off = (int64_t)off;
                if (c->glob && redact_oref_add(r, c, (uint32_t)off))
                    return -1;
            } else if (!((kflags & RD_N_STRING) && (fflags & RD_N_FCODER))) {
                /* String.coder is kept: the value array's length is kept,
                 * and with the coder a reader tells its length in chars */
                if (redact_range_add(r, c, (uint32_t)off, sz))
                    return -1;
            }
            off += sz;
        }
        if (k->super == 0)
            break;
        const uint64_t *v = hu_map_get(&r->class_ix, k->super);
        if (!v) {
            c->broken = "a superclass has no CLASS DUMP";
            return 0;
        }
        k = &r->classes[*v];
    }
    c->size = (uint32_t)off;
    c->state = 1;
    return 0;
}

/* ------------------------------------------------------------ output */

static void *redact_writer(void *arg)
{
    redact *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (r->qn == 0 && !r->wdone)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->qn == 0)
            break;
        unsigned i = r->qhead;
        int skip = r->werr != 0;
        pthread_mutex_unlock(&r->mu);
        int e = skip ? 0 : r->write(r->wctx, r->buf[i], r->blen[i]);
        pthread_mutex_lock(&r->mu);
        if (e && !r->werr)
            r->werr = e;
        r->qhead = (r->qhead + 1) % RD_NBUF;
        r->qn--;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* A free output block (waits for the writer thread), or -1 after an error. */
static int redact_block(redact *r, unsigned *idx)
{
    if (!r->threaded) {
        *idx = 0;
        return r->werr ? -1 : 0;
    }
    pthread_mutex_lock(&r->mu);
    while (r->qn == RD_NBUF && !r->werr)
        pthread_cond_wait(&r->cv, &r->mu);
    *idx = (r->qhead + r->qn) % RD_NBUF;
    int e = r->werr;
    pthread_mutex_unlock(&r->mu);
    return e ? -1 : 0;
}

static void redact_block_done(redact *r, unsigned idx, size_t n)
{
    if (!r->threaded) {
        int e = r->write(r->wctx, r->buf[0], n);
        if (e && !r->werr)
            r->werr = e;
        return;
    }
    pthread_mutex_lock(&r->mu);
    r->blen[idx] = n;
    r->qn++;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

/* Waits for the writer thread to write everything; the first write error. */
static int redact_writer_stop(redact *r)
{
    if (r->threaded) {
        pthread_mutex_lock(&r->mu);
        r->wdone = 1;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->wthread, NULL);
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->cv);
        r->threaded = 0;
    }
    return r->werr;
}

static int redact_flush(redact *r, uint64_t upto)
{
    uint64_t p = r->span;
    size_t zi = 0;
    while (p < upto) {
        unsigned bi;
        if (redact_block(r, &bi))
            return redact_fail(r, 0, "write: %s", strerror(r->werr));
        uint8_t *buf = r->buf[bi];
        size_t n = upto - p > RD_BUF ? RD_BUF : (size_t)(upto - p);
        memcpy(buf, r->in + p, n);
        while (zi < r->nz && r->z[zi].start < p + n) {
            uint64_t s = r->z[zi].start > p ? r->z[zi].start : p;
            uint64_t e = r->z[zi].end < p + n ? r->z[zi].end : p + n;
            memset(buf + (s - p), r->z[zi].fill, (size_t)(e - s));
            if (r->z[zi].end <= p + n)
                zi++;
            else
                break;
        }
        redact_block_done(r, bi, n);
        p += n;
    }
    r->span = upto;
    r->nz = 0;
    return 0;
}

static inline int redact_zone(redact *r, uint64_t start, uint64_t end, uint8_t fill)
{
    if (start >= end)
        return 0;
    if (r->nz && r->z[r->nz - 1].end == start && r->z[r->nz - 1].fill == fill) {
        r->z[r->nz - 1].end = end;
        return 0;
    }
    if (r->nz == RD_ZMAX && redact_flush(r, start))
        return -1;
    r->z[r->nz].start = start;
    r->z[r->nz].end = end;
    r->z[r->nz].fill = fill;
    r->nz++;
    return 0;
}

/* ------------------------------------------------------------- walk */

static int redact_trunc(redact *r, uint64_t off, const char *what)
{
    return redact_fail(r, 1, "offset %llu: %s goes past the end of its record or of the file",
                       (unsigned long long)off, what);
}

/* A CLASS DUMP at `p` (the sub-tag), within [p, end). */
static int redact_class_dump(redact *r, int pass, uint64_t p, uint64_t end, uint64_t *next)
{
    unsigned id = r->id;
    const uint8_t *in = r->in;
    uint64_t q = p + 1 + HPROF_CLASS_DUMP_FIXED(id);
    if (q + 2 > end)
        return redact_trunc(r, p, "CLASS DUMP");
    hprof_id cid = rd_id(in + p + 1, id);
    hprof_id super = rd_id(in + p + 1 + id + 4, id);
    rd_class *c = pass == RD_PRE ? NULL : redact_class(r, cid);
    /* the two reserved ids are no reference (readers skip them), so
     * whatever they hold goes */
    uint64_t res = p + 1 + HPROF_CLASS_DUMP_RESERVED_OFF(id);
    if (pass == RD_OUT && (rd_id(in + res, id) || rd_id(in + res + id, id))) {
        if (redact_zone(r, res, res + 2 * (uint64_t)id, 0))
            return -1;
        r->st.slack_records++;
        r->st.slack_bytes += 2 * (uint64_t)id;
    }
    int glob_statics = pass == RD_KEEP1 && c && c->glob;
    /* constant pool */
    unsigned n = hr_get_u2(in + q);
    q += 2;
    for (unsigned i = 0; i < n; i++) {
        if (q + 3 > end)
            return redact_trunc(r, p, "CLASS DUMP constant pool");
        unsigned t = in[q + 2], sz = hprof_type_size(t, id);
        if (!sz)
            return redact_fail(r, 1, "offset %llu: CLASS DUMP constant pool entry of bad type %u",
                               (unsigned long long)p, t);
        if (q + 3 + sz > end)
            return redact_trunc(r, p, "CLASS DUMP constant pool");
        if (pass == RD_OUT && t != HPROF_TYPE_OBJECT) {
            if (redact_zone(r, q + 3, q + 3 + sz, 0))
                return -1;
            r->st.statics_zeroed++;
        }
        q += 3 + sz;
    }
    /* statics */
    if (q + 2 > end)
        return redact_trunc(r, p, "CLASS DUMP");
    n = hr_get_u2(in + q);
    q += 2;
    for (unsigned i = 0; i < n; i++) {
        if (q + id + 1 > end)
            return redact_trunc(r, p, "CLASS DUMP statics");
        unsigned t = in[q + id], sz = hprof_type_size(t, id);
        if (!sz)
            return redact_fail(r, 1, "offset %llu: CLASS DUMP static field of bad type %u",
                               (unsigned long long)p, t);
        if (q + id + 1 + sz > end)
            return redact_trunc(r, p, "CLASS DUMP statics");
        if (pass == RD_PRE && redact_names_or(r, rd_id(in + q, id), RD_N_FIELDNAME))
            return -1;
        if (pass == RD_OUT && t != HPROF_TYPE_OBJECT) {
            if (redact_zone(r, q + id + 1, q + id + 1 + sz, 0))
                return -1;
            r->st.statics_zeroed++;
        }
        if (glob_statics && t == HPROF_TYPE_OBJECT) {
            hprof_id ref = rd_id(in + q + id + 1, id);
            if (ref && redact_set_add(r, &r->cand, ref))
                return -1;
        }
        q += id + 1 + sz;
    }
    /* instance fields */
    if (q + 2 > end)
        return redact_trunc(r, p, "CLASS DUMP");
    n = hr_get_u2(in + q);
    q += 2;
    uint64_t fields_off = q;
    for (unsigned i = 0; i < n; i++) {
        if (q + id + 1 > end)
            return redact_trunc(r, p, "CLASS DUMP fields");
        unsigned t = in[q + id];
        if (t != HPROF_TYPE_OBJECT && !hprof_type_is_primitive(t))
            return redact_fail(r, 1, "offset %llu: CLASS DUMP instance field of bad type %u",
                               (unsigned long long)p, t);
        if (pass == RD_PRE && redact_names_or(r, rd_id(in + q, id), RD_N_FIELDNAME))
            return -1;
        q += id + 1;
    }
    if (pass == RD_PRE) {
        r->st.classes++;
        if (redact_class_add(r, p, cid, super, fields_off, (uint16_t)n))
            return -1;
    }
    *next = q;
    return 0;
}

static int redact_instance(redact *r, int pass, uint64_t p, uint64_t end, uint64_t *next)
{
    unsigned id = r->id;
    const uint8_t *in = r->in;
    uint64_t vals = p + 1 + HPROF_INSTANCE_DUMP_FIXED(id);
    if (vals > end)
        return redact_trunc(r, p, "INSTANCE DUMP");
    uint32_t nbytes = hr_get_u4(in + vals - 4);
    if (vals + nbytes > end)
        return redact_trunc(r, p, "INSTANCE DUMP");
    *next = vals + nbytes;
    if (pass == RD_PRE)
        return 0;
    hprof_id cid = rd_id(in + p + 1 + id + 4, id);
    rd_class *c = redact_class(r, cid);
    if ((!c || c->state != 1) && r->optimistic) {
        r->late = 1; /* its CLASS DUMP may come later: again, reading them all first */
        return redact_fail(r, 0, "offset %llu: an object before its CLASS DUMP",
                           (unsigned long long)p);
    }
    if (!c)
        return redact_fail(r, 1,
                           "offset %llu: INSTANCE DUMP of class 0x%llx, which has no CLASS DUMP: "
                           "its primitive fields cannot be told from its references",
                           (unsigned long long)p, (unsigned long long)cid);
    if (c->state != 1)
        return redact_fail(r, 1, "offset %llu: INSTANCE DUMP of class 0x%llx: %s",
                           (unsigned long long)p, (unsigned long long)cid,
                           c->broken ? c->broken : "no layout");
    if (nbytes != c->size)
        return redact_fail(r, 1,
                           "offset %llu: INSTANCE DUMP of class 0x%llx holds %u bytes of values, "
                           "its class's fields take %u",
                           (unsigned long long)p, (unsigned long long)cid, nbytes, c->size);
    if (pass == RD_KEEP1) {
        if (r->keep_thread_names && c->thread_name_off >= 0) {
            hprof_id ref = rd_id(in + vals + c->thread_name_off, id);
            if (ref && redact_set_add(r, &r->cand, ref))
                return -1;
        }
        for (uint32_t i = 0; i < c->ocount; i++) {
            hprof_id ref = rd_id(in + vals + r->orefs[c->ofirst + i], id);
            if (ref && redact_set_add(r, &r->cand, ref))
                return -1;
        }
        return 0;
    }
    hprof_id oid = rd_id(in + p + 1, id);
    if (pass == RD_KEEP2) {
        if (c->is_string && c->string_value_off >= 0 && hu_map_get(&r->cand, oid)) {
            if (redact_set_add(r, &r->kept_str, oid))
                return -1;
            hprof_id arr = rd_id(in + vals + c->string_value_off, id);
            if (arr && redact_set_add(r, &r->kept_arr, arr))
                return -1;
        }
        return 0;
    }
    /* RD_OUT */
    r->st.instances++;
    if (r->keeping && c->is_string && hu_map_get(&r->kept_str, oid)) {
        r->st.strings_kept++;
        return 0;
    }
    const rd_range *rg = r->ranges + c->rfirst;
    for (uint32_t i = 0; i < c->rcount; i++) {
        if (redact_zone(r, vals + rg[i].off, vals + rg[i].off + rg[i].len, 0))
            return -1;
        r->st.zeroed_bytes += rg[i].len;
    }
    return 0;
}

#define RD_DROP_STEP (16u << 20)

static void redact_drop(redact *r, int pass, uint64_t p)
{
    /* the output still copies from r->span on */
    uint64_t upto = pass == RD_OUT && r->span < p ? r->span : p;
    upto &= ~(uint64_t)((1u << 21) - 1);
    if (upto > r->dropped) {
        madvise((void *)(r->in + r->dropped), (size_t)(upto - r->dropped), MADV_DONTNEED);
        r->dropped = upto;
    }
}

static int redact_subs(redact *r, int pass, uint64_t p, uint64_t end)
{

    unsigned id = r->id;
    const uint8_t *in = r->in;
    if (pass == RD_PRE && p >= r->pre_limit)
        return 0;
    while (p < end) {
        /* the walk jumps from object to object: ask for the bytes ahead */
        __builtin_prefetch(in + p + 1024);
        if (p > r->next_drop) {
            redact_drop(r, pass, p);
            r->next_drop = p + RD_DROP_STEP;
        }
        uint8_t tag = in[p];
        uint64_t size = 0;
        if (r->optimistic) {
            int object = tag == HPROF_GC_INSTANCE_DUMP || tag == HPROF_GC_OBJ_ARRAY_DUMP ||
                         tag == HPROF_GC_PRIM_ARRAY_DUMP || tag == HPROF_GC_PRIM_ARRAY_NODATA;
            if (pass == RD_PRE && object) {
                r->pre_limit = p;
                return 0;
            }
            if (pass == RD_OUT && p >= r->pre_limit &&
                (tag == HPROF_GC_CLASS_DUMP || tag == HPROF_GC_HEAP_DUMP_INFO)) {
                r->late = 1;
                return redact_fail(r, 0, "offset %llu: a CLASS DUMP after the first object",
                                   (unsigned long long)p);
            }
        }
        switch (tag) {
        case HPROF_GC_ROOT_UNKNOWN:
        case HPROF_GC_ROOT_STICKY_CLASS:
        case HPROF_GC_ROOT_MONITOR_USED:
        case HPROF_GC_ROOT_INTERNED_STRING:
        case HPROF_GC_ROOT_FINALIZING:
        case HPROF_GC_ROOT_DEBUGGER:
        case HPROF_GC_ROOT_REFERENCE_CLEANUP:
        case HPROF_GC_ROOT_VM_INTERNAL:
        case HPROF_GC_ROOT_UNREACHABLE: size = 1 + HPROF_ROOT_ID_FIXED(id); break;
        case HPROF_GC_ROOT_JNI_GLOBAL: size = 1 + HPROF_ROOT_JNI_GLOBAL_FIXED(id); break;
        case HPROF_GC_ROOT_JNI_LOCAL:
        case HPROF_GC_ROOT_JAVA_FRAME:
        case HPROF_GC_ROOT_JNI_MONITOR:
        case HPROF_GC_ROOT_THREAD_OBJ: size = 1 + HPROF_ROOT_THREAD_FRAME_FIXED(id); break;
        case HPROF_GC_ROOT_NATIVE_STACK:
        case HPROF_GC_ROOT_THREAD_BLOCK: size = 1 + HPROF_ROOT_THREAD_FIXED(id); break;
        case HPROF_GC_HEAP_DUMP_INFO:
            size = 1 + HPROF_HEAP_DUMP_INFO_FIXED(id);
            /* the heap's name ("app", "image", "zygote"): a name, kept */
            if (pass == RD_PRE && p + size <= end &&
                redact_names_or(r, rd_id(in + p + 5, id), RD_N_FIELDNAME))
                return -1;
            break;
        case HPROF_GC_PRIM_ARRAY_NODATA: size = 1 + HPROF_PRIM_ARRAY_NODATA_FIXED(id); break;
        case HPROF_GC_CLASS_DUMP: {
            uint64_t next = end;
            if (redact_class_dump(r, pass, p, end, &next))
                return -1;
            p = next;
            continue;
        }
        case HPROF_GC_INSTANCE_DUMP: {
            uint64_t next = end;
            if (redact_instance(r, pass, p, end, &next))
                return -1;
            p = next;
            continue;
        }
        case HPROF_GC_OBJ_ARRAY_DUMP: {
            uint64_t h = p + 1 + HPROF_OBJ_ARRAY_DUMP_FIXED(id);
            if (h > end)
                return redact_trunc(r, p, "OBJECT ARRAY DUMP");
            size = HPROF_OBJ_ARRAY_DUMP_FIXED(id) + 1 + (uint64_t)hr_get_u4(in + p + 1 + id + 4) * id;
            break;
        }
        case HPROF_GC_PRIM_ARRAY_DUMP: {
            uint64_t h = p + 1 + HPROF_PRIM_ARRAY_DUMP_FIXED(id);
            if (h > end)
                return redact_trunc(r, p, "PRIMITIVE ARRAY DUMP");
            unsigned t = in[h - 1];
            if (!hprof_type_is_primitive(t))
                return redact_fail(r, 1, "offset %llu: PRIMITIVE ARRAY DUMP of bad type %u",
                                   (unsigned long long)p, t);
            uint64_t n = hr_get_u4(in + p + 1 + id + 4);
            uint64_t e = h + n * hprof_type_size(t, id);
            if (e > end)
                return redact_trunc(r, p, "PRIMITIVE ARRAY DUMP");
            if (pass == RD_OUT) {
                if (r->keeping && hu_map_get(&r->kept_arr, rd_id(in + p + 1, id))) {
                    r->st.arrays_kept++;
                } else {
                    if (redact_zone(r, h, e, 0))
                        return -1;
                    r->st.prim_arrays++;
                    r->st.zeroed_bytes += e - h;
                }
            }
            p = e;
            continue;
        }
        default:
            return redact_fail(r, 1, "offset %llu: unknown heap sub-record tag 0x%02X",
                               (unsigned long long)p, tag);
        }
        if (p + size > end)
            return redact_trunc(r, p, hprof_sub_name(tag));
        p += size;
    }
    return 0;
}

/* The UTF8 record whose text is at [s, s+n): in the NAMES pass, note the
 * names the layouts need. */
static int redact_utf8_names(redact *r, hprof_id uid, const uint8_t *s, uint32_t n)
{
    uint64_t f = redact_name_flags(r, uid);
    uint64_t add = 0;
    if (f & RD_N_CLASSNAME) {
        if (n == 16 && memcmp(s, "java/lang/String", 16) == 0)
            add |= RD_N_STRING;
        if (n == 16 && memcmp(s, "java/lang/Thread", 16) == 0)
            add |= RD_N_THREAD;
        for (size_t i = 0; i < r->nglobs; i++)
            if (redact_glob_match(r->globs[i], (const char *)s, n))
                add |= RD_N_GLOB;
    }
    if (f & RD_N_FIELDNAME) {
        if (n == 4 && memcmp(s, "name", 4) == 0)
            add |= RD_N_FNAME;
        if (n == 5 && memcmp(s, "value", 5) == 0)
            add |= RD_N_FVALUE;
        if (n == 5 && memcmp(s, "coder", 5) == 0)
            add |= RD_N_FCODER;
    }
    return add ? redact_names_or(r, uid, add) : 0;
}

/* ------------------------------------------------ agent's site notes */

/* The UTF8 texts of the agent's notes to `hprof sites` (hprof_format.h,
 * HPROF_SITES_*), kept because they hold counts and fixed sentences only.
 * A text is kept only when it is exactly one of these, so a program's
 * string that merely starts "HPROF SITES " is redacted like any other.
 * Pattern letters: '#' one or more digits, '@' a time "HH:MM:SS" or
 * nothing, '~' an "s" or nothing, '*' a repeat of the rest of the pattern
 * from the next character (zero or more times, each time after a ' ');
 * everything else stands for itself. The NOTE sentences are the ones the
 * agent's hp_live_note (agent/agent.c) writes; a sentence it does not
 * write is redacted. */
static const char *const redact_note_forms[] = {
    HPROF_SITES_NOTE "live as of the GC forced when the exit began at @: # sampled object~ "
                     "allocated after it count~ as live",
    HPROF_SITES_NOTE "live as of the GC forced when the exit began at @: # object~ "
                     "allocated after it count~ as live",
    HPROF_SITES_NOTE "live not exact: no GC is forced with ZGC or Shenandoah: "
                     "objects not yet collected count as live",
    HPROF_SITES_NOTE "live not exact: no GC forced since @: "
                     "objects not yet collected count as live",
    HPROF_SITES_NOTE "live not exact: no GC forced since @ and the JVM is exiting: "
                     "objects not yet collected count as live",
    HPROF_SITES_NOTE "live not exact: no GC forced before this output: "
                     "objects not yet collected count as live",
    HPROF_SITES_NOTE "live not exact: no GC forced before this output as the JVM exits: "
                     "objects not yet collected count as live",
    HPROF_SITES_SAMPLES "#*#/#",           /* sample bytes, then per row alloc/live */
    HPROF_SITES_U8 "# #*#:#,#,#,#",        /* totals, then per saturated row */
};

/* Digits from s[*i]: at least one. */
static int redact_digits(const uint8_t *s, size_t n, size_t *i)
{
    size_t k = *i;
    while (k < n && s[k] >= '0' && s[k] <= '9')
        k++;
    if (k == *i)
        return 0;
    *i = k;
    return 1;
}

static int redact_form_match(const char *f, const uint8_t *s, size_t n, size_t i)
{
    for (; *f; f++) {
        switch (*f) {
        case '#':
            if (!redact_digits(s, n, &i))
                return 0;
            break;
        case '@': /* "HH:MM:SS" (strftime's %H:%M:%S) or "" */
            if (i + 8 <= n && s[i + 2] == ':' && s[i + 5] == ':') {
                size_t k = i;
                int ok = 1;
                for (unsigned d = 0; d < 8 && ok; d++, k++)
                    ok = d == 2 || d == 5 || (s[k] >= '0' && s[k] <= '9');
                if (ok)
                    i += 8;
            }
            break;
        case '~':
            if (i < n && s[i] == 's' && redact_form_match(f + 1, s, n, i + 1))
                return 1;
            break;
        case '*': /* ( ' ' rest )* : rest ends the pattern */
            while (i < n) {
                if (s[i] != ' ')
                    return 0;
                size_t k = i + 1;
                const char *g = f + 1;
                for (; *g; g++) {
                    if (*g == '#') {
                        if (!redact_digits(s, n, &k))
                            return 0;
                    } else if (k >= n || s[k++] != (uint8_t)*g) {
                        return 0;
                    }
                }
                i = k;
            }
            return 1;
        default:
            if (i >= n || s[i] != (uint8_t)*f)
                return 0;
            i++;
        }
    }
    return i == n;
}

/* 1 when the UTF8 text [s, s+n) is one of the agent's notes. */
static int redact_sites_note(const uint8_t *s, uint64_t n)
{
    for (size_t k = 0; k < sizeof redact_note_forms / sizeof redact_note_forms[0]; k++)
        if (redact_form_match(redact_note_forms[k], s, (size_t)n, 0))
            return 1;
    return 0;
}

/* ------------------------------------------------- kept records' layout */

/* The length the layout of a record kept as it is gives it, from its first
 * bytes (TRACE's, ALLOC SITES' and CPU SAMPLES' count is the last u4 of
 * their fixed part); UINT64_MAX when the record is too short to hold even
 * that count. */
static uint64_t redact_layout_len(const redact *r, unsigned tag, const uint8_t *b, uint64_t rlen)
{
    switch (tag) {
    case HPROF_TAG_UNLOAD_CLASS: return HPROF_UNLOAD_CLASS_SIZE;
    case HPROF_TAG_HEAP_SUMMARY: return HPROF_HEAP_SUMMARY_SIZE;
    case HPROF_TAG_END_THREAD: return HPROF_END_THREAD_SIZE;
    case HPROF_TAG_CONTROL_SETTINGS: return HPROF_CONTROL_SETTINGS_SIZE;
    case HPROF_TAG_HEAP_DUMP_END: return HPROF_HEAP_DUMP_END_SIZE;
    case HPROF_TAG_TRACE:
        if (rlen < HPROF_TRACE_FIXED)
            return UINT64_MAX;
        return HPROF_TRACE_FIXED + (uint64_t)hr_get_u4(b + HPROF_TRACE_FIXED - 4) * r->id;
    case HPROF_TAG_ALLOC_SITES:
        if (rlen < HPROF_ALLOC_SITES_FIXED)
            return UINT64_MAX;
        return HPROF_ALLOC_SITES_FIXED +
               (uint64_t)hr_get_u4(b + HPROF_ALLOC_SITES_FIXED - 4) * HPROF_ALLOC_SITE_SIZE;
    case HPROF_TAG_CPU_SAMPLES:
        if (rlen < HPROF_CPU_SAMPLES_FIXED)
            return UINT64_MAX;
        return HPROF_CPU_SAMPLES_FIXED +
               (uint64_t)hr_get_u4(b + HPROF_CPU_SAMPLES_FIXED - 4) * HPROF_CPU_SAMPLE_SIZE;
    default: return UINT64_MAX;
    }
}

/* A record at `p` kept as it is, whose layout takes `need` bytes of its
 * `rlen`: shorter is refused (its fields cannot be told apart); the bytes
 * past the layout are no field of it, and could be anything: zeroed. */
static int redact_kept_record(redact *r, int pass, uint64_t p, uint64_t rlen, uint64_t need)
{
    if (need > rlen) {
        const char *name = hprof_tag_name(r->in[p]);
        if (need == UINT64_MAX)
            return redact_fail(r, 1,
                               "offset %llu: %s record of length %llu, too short for its layout",
                               (unsigned long long)p, name, (unsigned long long)rlen);
        return redact_fail(r, 1, "offset %llu: %s record of length %llu, its layout needs %llu",
                           (unsigned long long)p, name, (unsigned long long)rlen,
                           (unsigned long long)need);
    }
    if (pass == RD_OUT && need < rlen) {
        uint64_t b = p + HPROF_RECORD_HEADER_SIZE;
        if (redact_zone(r, b + need, b + rlen, 0))
            return -1;
        r->st.slack_records++;
        r->st.slack_bytes += rlen - need;
    }
    return 0;
}

static int redact_pass(redact *r, int pass)
{
    const uint8_t *in = r->in;
    uint64_t len = r->len;
    unsigned id = r->id;
    uint64_t p = HPROF_HEADER_SIZE;
    r->st.passes++;
    r->dropped = 0;
    r->next_drop = r->drop_ok ? RD_DROP_STEP : UINT64_MAX;
    r->last_cls = NULL;
    while (p < len) {
        if (len - p < HPROF_RECORD_HEADER_SIZE)
            return redact_trunc(r, p, "record header");
        uint8_t tag = in[p];
        uint64_t rlen = hr_get_u4(in + p + 5);
        uint64_t b = p + HPROF_RECORD_HEADER_SIZE, e = b + rlen;
        if (e > len)
            return redact_trunc(r, p, "record");
        if (p > r->next_drop) {
            redact_drop(r, pass, p);
            r->next_drop = p + RD_DROP_STEP;
        }
        switch (tag) {
        case HPROF_TAG_UTF8:
            if (rlen < id)
                return redact_fail(r, 1, "offset %llu: UTF8 record shorter than an id",
                                   (unsigned long long)p);
            if (pass == RD_NAMES &&
                redact_utf8_names(r, rd_id(in + b, id), in + b + id, (uint32_t)(rlen - id)))
                return -1;
            if (pass == RD_OUT) {
                hprof_id uid = rd_id(in + b, id);
                int keep = (redact_name_flags(r, uid) & (RD_N_CLASSNAME | RD_N_FIELDNAME)) != 0 ||
                           redact_sites_note(in + b + id, rlen - id);
                if (!keep && rlen > id) {
                    if (redact_zone(r, b + id, e, RD_FILL_UTF8))
                        return -1;
                    r->st.utf8_redacted++;
                }
            }
            break;
        case HPROF_TAG_LOAD_CLASS:
            if (redact_kept_record(r, pass, p, rlen, HPROF_LOAD_CLASS_SIZE(id)))
                return -1;
            if (pass == RD_PRE) {
                hprof_id nid = rd_id(in + b + 8 + id, id);
                if (hu_map_put(&r->load_name, rd_id(in + b + 4, id), nid))
                    return redact_fail(r, 0, "out of memory");
                if (redact_names_or(r, nid, RD_N_CLASSNAME))
                    return -1;
            }
            break;
        case HPROF_TAG_FRAME:
            if (redact_kept_record(r, pass, p, rlen, HPROF_FRAME_SIZE(id)))
                return -1;
            if (pass == RD_PRE)
                for (unsigned i = 1; i <= 3; i++)
                    if (redact_names_or(r, rd_id(in + b + i * id, id), RD_N_FIELDNAME))
                        return -1;
            break;
        case HPROF_TAG_START_THREAD:
            if (redact_kept_record(r, pass, p, rlen, HPROF_START_THREAD_SIZE(id)))
                return -1;
            if (pass == RD_PRE && r->keep_thread_names) {
                uint64_t q = b + 4 + id + 4;
                for (unsigned i = 0; i < 3; i++)
                    if (redact_names_or(r, rd_id(in + q + i * id, id), RD_N_FIELDNAME))
                        return -1;
            }
            break;
        case HPROF_TAG_HEAP_DUMP:
        case HPROF_TAG_HEAP_DUMP_SEGMENT:
            if (pass != RD_NAMES && redact_subs(r, pass, b, e))
                return -1;
            break;
        case HPROF_TAG_UNLOAD_CLASS:
        case HPROF_TAG_TRACE:
        case HPROF_TAG_ALLOC_SITES:
        case HPROF_TAG_HEAP_SUMMARY:
        case HPROF_TAG_END_THREAD:
        case HPROF_TAG_CPU_SAMPLES:
        case HPROF_TAG_CONTROL_SETTINGS:
        case HPROF_TAG_HEAP_DUMP_END: {
            /* serials, counts, ids and flags, kept as they are: only as
             * many bytes as their layout says */
            uint64_t need = redact_layout_len(r, tag, in + b, rlen);
            if (redact_kept_record(r, pass, p, rlen, need))
                return -1;
            break;
        }
        default:
            /* a record we cannot read could hold anything: its body goes */
            if (pass == RD_OUT) {
                if (redact_zone(r, b, e, 0))
                    return -1;
                r->st.unknown_records++;
            }
            break;
        }
        p = e;
    }
    return 0;
}

static int redact_header(redact *r)
{
    static const char *const magics[] = {HPROF_MAGIC_1_0_1, HPROF_MAGIC_1_0_2, HPROF_MAGIC_1_0_3};
    if (r->len < HPROF_HEADER_SIZE)
        return redact_fail(r, 1, "offset 0: not an HPROF file (%llu bytes, a header takes %u)",
                           (unsigned long long)r->len, HPROF_HEADER_SIZE);
    int ok = 0;
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
        if (memcmp(r->in, magics[i], HPROF_MAGIC_LEN + 1) == 0)
            ok = 1;
    if (!ok)
        return redact_fail(r, 1, "offset 0: not an HPROF file (no JAVA PROFILE 1.0.1/2/3 header)");
    r->id = hr_get_u4(r->in + HPROF_MAGIC_LEN + 1);
    if (r->id != 4 && r->id != 8)
        return redact_fail(r, 1, "offset %u: id size %u (4 or 8 expected)", HPROF_MAGIC_LEN + 1,
                           r->id);
    return 0;
}

int redact_run(redact *r, const uint8_t *in, size_t len, redact_write_fn out, void *ctx)
{
    if (r->ran)
        return redact_fail(r, 0, "a redactor runs once");
    r->ran = 1;
    r->pre_limit = UINT64_MAX;
    r->late = 0;
    r->in = in;
    r->len = len;
    r->write = out;
    r->wctx = ctx;
    r->st.bytes = len;
    if (redact_header(r) || redact_pass(r, RD_PRE) || redact_pass(r, RD_NAMES))
        return -1;
    for (size_t i = 0; i < r->nclasses; i++) {
        rd_class *c = &r->classes[i];
        const uint64_t *nm = hu_map_get(&r->load_name, c->id);
        uint64_t f = nm ? redact_name_flags(r, *nm) : 0;
        c->is_string = (f & RD_N_STRING) != 0;
        c->glob = (f & RD_N_GLOB) != 0;
    }
    for (size_t i = 0; i < r->nclasses; i++)
        if (redact_layout(r, &r->classes[i]))
            return -1;
    if (r->keeping && (redact_pass(r, RD_KEEP1) || redact_pass(r, RD_KEEP2)))
        return -1;
    hu_map_cleanup(&r->cand);
    for (unsigned i = 0; i < RD_NBUF; i++)
        if (!(r->buf[i] = malloc(RD_BUF)))
            return redact_fail(r, 0, "out of memory");
    r->z = malloc(RD_ZMAX * sizeof *r->z);
    if (!r->z)
        return redact_fail(r, 0, "out of memory");
    r->span = 0;
    r->nz = 0;
    if (pthread_mutex_init(&r->mu, NULL) == 0) {
        if (pthread_cond_init(&r->cv, NULL) == 0) {
            if (pthread_create(&r->wthread, NULL, redact_writer, r) == 0)
                r->threaded = 1;
            else
                pthread_cond_destroy(&r->cv);
        }
        if (!r->threaded)
            pthread_mutex_destroy(&r->mu);
    }
    int rc = redact_pass(r, RD_OUT) || redact_flush(r, r->len) ? -1 : 0;
    int e = redact_writer_stop(r);
    if (e)
        return redact_fail(r, 0, "write: %s", strerror(e));
    return rc;
}

/* ------------------------------------------------------------- files */

typedef struct redact_fd { int fd; } redact_fd;

static int redact_write_fd(void *ctx, const void *buf, size_t n)
{
    const redact_fd *o = ctx;
    const uint8_t *p = buf;
    while (n) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* After a gzread that gave no bytes: 0 at a clean end, else -1 with the
 * error latched (a corrupt or cut stream is the input's fault; the message
 * is zlib's without gzdopen's "<fd:N>: " prefix). */
static int redact_gz_error(redact *r, gzFile gz, const char *path)
{
    int en;
    const char *m = gzerror(gz, &en);
    if (en == Z_OK)
        return 0;
    if (en == Z_ERRNO)
        return redact_fail(r, 0, "%s: %s", path, strerror(errno));
    if (strncmp(m, "<fd:", 4) == 0 && strstr(m, ": "))
        m = strstr(m, ": ") + 2;
    return redact_fail(r, 1, "gzip input: %s", m);
}

/* An unlinked temporary file holding what `fd` gives (inflated if gzip). */
static int redact_spool(redact *r, int fd, const char *path)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int t = open(dir, O_TMPFILE | O_RDWR, 0600);
    if (t < 0) {
        char tmpl[4096];
        snprintf(tmpl, sizeof tmpl, "%s/hprof-redact-XXXXXX", dir);
        t = mkstemp(tmpl);
        if (t >= 0)
            unlink(tmpl);
    }
    if (t < 0) {
        redact_fail(r, 0, "%s: temporary file: %s", dir, strerror(errno));
        return -1;
    }
    int d = dup(fd);
    gzFile gz = d >= 0 ? gzdopen(d, "rb") : NULL;
    if (!gz) {
        if (d >= 0)
            close(d);
        close(t);
        redact_fail(r, 0, "%s: %s", path, strerror(errno ? errno : ENOMEM));
        return -1;
    }
    gzbuffer(gz, 1u << 20);
    uint8_t *b = malloc(RD_BUF);
    if (!b) {
        gzclose(gz);
        close(t);
        redact_fail(r, 0, "out of memory");
        return -1;
    }
    redact_fd o = {t};
    for (;;) {
        int n = gzread(gz, b, RD_BUF);
        if (n < 0) {
            if (redact_gz_error(r, gz, path) == 0)
                redact_fail(r, 1, "gzip input: unreadable");
            break;
        }
        if (n == 0) { /* the end or a stream cut short: only gzerror tells */
            redact_gz_error(r, gz, path);
            break;
        }
        int e = redact_write_fd(&o, b, (size_t)n);
        if (e) {
            redact_fail(r, 0, "%s/(temporary file): %s", dir, strerror(e));
            break;
        }
    }
    free(b);
    gzclose(gz);
    if (r->err[0]) {
        close(t);
        return -1;
    }
    return t;
}

/* Back to the state redact_init left (options kept), for a second run. */
static void redact_reset(redact *r)
{
    hu_map *maps[] = {&r->class_ix, &r->load_name, &r->names, &r->cand, &r->kept_str, &r->kept_arr};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        hu_map_cleanup(maps[i]);
        hu_map_init(maps[i]);
    }
    r->nclasses = r->nranges = r->norefs = 0;
    for (unsigned i = 0; i < RD_NBUF; i++) {
        free(r->buf[i]);
        r->buf[i] = NULL;
    }
    free(r->z);
    r->z = NULL;
    r->nz = 0;
    r->qhead = r->qn = 0;
    r->wdone = r->werr = 0;
    r->last_cls = NULL;
    r->ran = 0;
    r->err[0] = '\0';
    r->err_input = 0;
    memset(&r->st, 0, sizeof r->st);
}

int redact_file(redact *r, const char *in_path, const char *out_path)
{
    int fd = strcmp(in_path, "-") == 0 ? 0 : open(in_path, O_RDONLY);
    if (fd < 0)
        return redact_fail(r, 0, "%s: %s", in_path, strerror(errno));
    struct stat sb;
    uint8_t mg[2] = {0, 0};
    int plain = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
                (sb.st_size < 2 || (pread(fd, mg, 2, 0) == 2 && !(mg[0] == 0x1f && mg[1] == 0x8b)));
    int src = fd;
    if (!plain) {
        src = redact_spool(r, fd, in_path);
        if (fd != 0)
            close(fd);
        if (src < 0)
            return -1;
        if (fstat(src, &sb) != 0) {
            close(src);
            return redact_fail(r, 0, "%s: %s", in_path, strerror(errno));
        }
    }
    size_t len = (size_t)sb.st_size;
    const uint8_t *map = NULL;
    if (len) {
        void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, src, 0);
        if (m == MAP_FAILED) {
            int e = errno;
            if (src != 0)
                close(src);
            return redact_fail(r, 0, "%s: mmap: %s", in_path, strerror(e));
        }
        madvise(m, len, MADV_SEQUENTIAL);
        map = m;
        r->drop_ok = 1;
    }
    if (src != 0)
        close(src);
    static const uint8_t none[1];

    /* hw_outfile: a regular OUT is replaced only when whole; "-", a FIFO or
     * a device is written in place, so it cannot be rewritten: the class
     * pre-pass then runs first instead of being a retry. */
    char msg[sizeof r->err];
    int rc = -1, e = 0;
    hw_outfile *of = hw_outfile_open(out_path, in_path, &e, msg, sizeof msg);
    if (!of) {
        redact_fail(r, 0, "%s", msg);
        goto out;
    }
    redact_fd o = {hw_outfile_fd(of)};
    r->optimistic = !r->keeping && hw_outfile_rewindable(of);
    rc = redact_run(r, map ? map : none, len, redact_write_fd, &o);
    if (rc != 0 && r->late && hw_outfile_rewindable(of)) {
        /* CLASS DUMPs after objects: again, with every class read first */
        uint64_t passes = r->st.passes;
        redact_reset(r);
        r->optimistic = 0;
        if (ftruncate(o.fd, 0) != 0 || lseek(o.fd, 0, SEEK_SET) != 0) {
            rc = redact_fail(r, 0, "%s: %s", hw_outfile_name(of), strerror(errno));
        } else {
            rc = redact_run(r, map ? map : none, len, redact_write_fd, &o);
            r->st.passes += passes;
        }
    }
    if (rc == 0) {
        if (hw_outfile_commit(of, msg, sizeof msg) != 0)
            rc = redact_fail(r, 0, "%s", msg);
    } else {
        hw_outfile_abort(of);
        if (strncmp(r->err, "write: ", 7) == 0) { /* add the path to the sink's error */
            snprintf(msg, sizeof msg, "%s: %s", out_path, r->err + 7);
            memcpy(r->err, msg, sizeof msg);
        }
    }
out:
    if (map)
        munmap((void *)map, len);
    return rc;
}
