/*
 * hasm_asm.c: the assembler (text -> HPROF bytes), see hasm_asm.h.
 *
 * Owns the encoding of the text form. Line by line: a record keyword opens
 * a record (closing the one before), a sub-record keyword opens a
 * sub-record of the open heap dump record, item lines (frame, site, sample,
 * const, static, field, values, data, elems) append to what is open, and a
 * line that starts with key=value adds attributes to it (count=, length=).
 * Counts and lengths are patched in when a sub-record or record closes,
 * unless given. INSTANCE DUMP values by field name use the layout of the
 * CLASS DUMPs assembled before, with the same rule as the disassembler.
 */
#include "hasm_asm.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hasm_lex.h"
#include "hasm_meta.h"
#include "hasm_text.h"
#include "hprof/hprof_format.h"

#define AS_MAX_FIELDS 16
/* repeat: at most this many lines in all, and no repeat of a repeat, so
 * that a short text cannot ask for unbounded work */
#define AS_MAX_REPEAT 16777216u
/* a heap dump record bigger than this is written as it grows when the
 * output can seek back to patch its length */
#ifdef HASM_BODY_MAX
#define AS_FLUSH_AT 4096u /* fuzzing builds */
#else
#define AS_FLUSH_AT (16u * 1024u * 1024u)
#endif
/* a record body past what a u4 length can say is refused as it grows */
#ifdef HASM_BODY_MAX
#define AS_BODY_LIMIT (64u * 1024u * 1024u) /* fuzzing builds */
#else
#define AS_BODY_LIMIT ((size_t)HPROF_U4_MAX + 1u)
#endif

typedef struct as_buf {
    uint8_t *p;
    size_t len, cap;
} as_buf;

typedef struct as {
    hasm_write_fn w;
    hasm_seek_fn seek;    /* NULL: the output cannot seek */
    void *ctx;
    uint64_t out_pos;     /* bytes written (uncompressed output) */
    uint64_t rec_at;      /* the open record's offset, once streaming */
    uint64_t flushed;     /* its body bytes already written */
    int streaming;
    int gzip, zinit, wrote;
    z_stream z;
    int err; /* 1: the text is wrong; -1: output or memory */
    char *errbuf;
    size_t errlen;
    const char *name;
    unsigned long lineno;
    uint64_t repeated; /* lines made by repeat so far */
    int in_repeat;
    unsigned id_size;
    hasm_meta *meta;
    hasm_lex *lx;
    /* the open record */
    int rec;
    const hasm_schema *rs; /* NULL for `record tag=` */
    unsigned tag;
    uint32_t time;
    int has_len, has_count;
    uint64_t len, count;
    uint64_t nitems;
    size_t count_at;
    as_buf body;
    /* the open sub-record */
    const hasm_schema *ss;
    size_t sub_count_at;  /* array count / instance length / class counts */
    int sub_has_count;
    uint64_t sub_count;
    uint64_t nelems;
    size_t data_at;
    unsigned esz, etype;
    int mode;             /* instance: 0 nothing yet, 1 data, 2 values */
    uint64_t class_id, super_id;
    int phase;            /* class: 0 consts, 1 statics, 2 fields */
    size_t st_at, fl_at;
    uint64_t ncp, nst, nfl;
    uint64_t *fnames;
    uint8_t *ftypes;
    size_t fcap;
    hasm_slot *slots;     /* instance: the layout, copied */
    uint64_t *offs;       /* and each field's offset */
    long nslots;
    uint64_t lsize;
    uint8_t *ivals, *iset;
    size_t icap, scap;
    long hint;            /* the first field not set yet */
} as;

static void as_fail(as *a, const char *fmt, ...)
{
    if (a->err)
        return;
    a->err = 1;
    int k = snprintf(a->errbuf, a->errlen, "%s:%lu: ", a->name, a->lineno);
    if (k < 0 || (size_t)k >= a->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->errbuf + k, a->errlen - (size_t)k, fmt, ap);
    va_end(ap);
}

static void as_sysfail(as *a, const char *what)
{
    if (a->err)
        return;
    a->err = -1;
    snprintf(a->errbuf, a->errlen, "%s: %s", what, strerror(errno ? errno : ENOMEM));
}

static int buf_reserve(as *a, as_buf *b, size_t more)
{
    if (b->len + more <= b->cap)
        return 0;
    if (b->len + more > AS_BODY_LIMIT) {
        as_fail(a, "record body longer than %zu bytes", (size_t)AS_BODY_LIMIT - 1);
        return -1;
    }
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < b->len + more)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        errno = ENOMEM;
        as_sysfail(a, "out of memory");
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

static void put_n(as *a, uint64_t v, unsigned n)
{
    if (buf_reserve(a, &a->body, n) < 0)
        return;
    hasm_text_put(a->body.p + a->body.len, n, v);
    a->body.len += n;
}

/* ------------------------------------------------------------ output */

static void out_bytes(as *a, const void *p, size_t n)
{
    if (a->err || n == 0)
        return;
    a->wrote = 1;
    if (!a->gzip) {
        if (a->w(a->ctx, p, n) < 0)
            as_sysfail(a, "writing the output");
        a->out_pos += n;
        return;
    }
    uint8_t chunk[65536];
    a->z.next_in = (Bytef *)(uintptr_t)p;
    a->z.avail_in = (uInt)n;
    do {
        a->z.next_out = chunk;
        a->z.avail_out = sizeof chunk;
        deflate(&a->z, Z_NO_FLUSH);
        size_t k = sizeof chunk - a->z.avail_out;
        if (k && a->w(a->ctx, chunk, k) < 0) {
            as_sysfail(a, "writing the output");
            return;
        }
    } while (a->z.avail_in > 0 || a->z.avail_out == 0);
}

static void out_finish(as *a)
{
    if (!a->zinit)
        return;
    uint8_t chunk[65536];
    int r;
    do {
        a->z.next_in = NULL;
        a->z.avail_in = 0;
        a->z.next_out = chunk;
        a->z.avail_out = sizeof chunk;
        r = deflate(&a->z, Z_FINISH);
        size_t k = sizeof chunk - a->z.avail_out;
        if (!a->err && k && a->w(a->ctx, chunk, k) < 0)
            as_sysfail(a, "writing the output");
    } while (r == Z_OK);
    deflateEnd(&a->z);
    a->zinit = 0;
}

/* -------------------------------------------------------------- values */

static int as_int(as *a, const hasm_tok *t, unsigned n, uint64_t *v)
{
    const char *why;
    if (hasm_text_parse_int(t->val, n, v, &why) < 0) {
        as_fail(a, "%s%s%s: %s", t->key ? t->key : "", t->key ? "=" : "", t->val, why);
        return -1;
    }
    return 0;
}

static int as_value(as *a, const char *s, unsigned type, uint64_t *v)
{
    const char *why;
    unsigned n = hprof_type_size(type, a->id_size);
    if (hasm_text_parse_value(s, type, n, v, &why) < 0) {
        as_fail(a, "%s: %s (a %s value)", s, why, hasm_text_type_name(type));
        return -1;
    }
    return 0;
}

static int as_type(as *a, const char *s, int primitive_only, unsigned *type)
{
    unsigned t = hasm_text_type_named(s);
    if (t == 0 || (primitive_only && !hprof_type_is_primitive(t))) {
        as_fail(a, "unknown %stype '%s'", primitive_only ? "primitive " : "", s);
        return -1;
    }
    *type = t;
    return 0;
}

static int need_id(as *a)
{
    if (a->id_size != 4 && a->id_size != 8) {
        as_fail(a, "records need a header line with id-size=4 or 8 first");
        return -1;
    }
    return 0;
}

/* Extra attributes a line may carry besides its schema's fields. */
typedef struct as_extra {
    int has_time, has_len, has_count, has_tag;
    uint64_t time, len, count, tag;
} as_extra;

/* key=value tokens into vals (schema order, default 0) and extras; the one
 * bare token allowed (the UTF8 string) into *str. */
static int as_attrs(as *a, hasm_tok *t, long n, const hasm_field *f, unsigned nf, uint64_t *vals,
                    as_extra *x, const char *extras, hasm_tok **str)
{
    memset(vals, 0, nf * sizeof *vals);
    memset(x, 0, sizeof *x);
    for (long i = 0; i < n; i++) {
        if (!t[i].key) {
            if (str && !*str && t[i].quoted) {
                *str = &t[i];
                continue;
            }
            as_fail(a, "'%s': expected key=value", t[i].val);
            return -1;
        }
        unsigned k;
        for (k = 0; k < nf; k++)
            if (strcmp(f[k].key, t[i].key) == 0)
                break;
        if (k < nf) {
            const char *why;
            unsigned sz = hasm_text_kind_size(f[k].kind, a->id_size);
            if (hasm_text_parse_kind(t[i].val, f[k].kind, sz, &vals[k], &why) < 0) {
                as_fail(a, "%s=%s: %s", t[i].key, t[i].val, why);
                return -1;
            }
            continue;
        }
        const char *key = t[i].key;
        int ok = strstr(extras, key) != NULL && strlen(key) >= 3;
        if (ok && strcmp(key, "time") == 0) {
            x->has_time = 1;
            if (as_int(a, &t[i], 4, &x->time) < 0)
                return -1;
        } else if (ok && strcmp(key, "length") == 0) {
            x->has_len = 1;
            if (as_int(a, &t[i], 4, &x->len) < 0)
                return -1;
        } else if (ok && strcmp(key, "count") == 0) {
            x->has_count = 1;
            if (as_int(a, &t[i], 4, &x->count) < 0)
                return -1;
        } else if (ok && strcmp(key, "tag") == 0) {
            x->has_tag = 1;
            if (as_int(a, &t[i], 1, &x->tag) < 0)
                return -1;
        } else {
            as_fail(a, "unknown key '%s'", key);
            return -1;
        }
    }
    return 0;
}

static void put_fields(as *a, const hasm_field *f, unsigned nf, const uint64_t *vals)
{
    for (unsigned i = 0; i < nf; i++)
        put_n(a, vals[i], hasm_text_kind_size(f[i].kind, a->id_size));
}

static void patch4(as *a, size_t at, uint64_t v)
{
    hasm_text_put(a->body.p + at, 4, v);
}

/* ------------------------------------------------------- sub-records */

static void class_field_add(as *a, uint64_t name, unsigned type)
{
    if (a->nfl >= a->fcap) {
        size_t cap = a->fcap ? a->fcap * 2 : 64;
        uint64_t *n = realloc(a->fnames, cap * sizeof *n);
        if (n)
            a->fnames = n;
        uint8_t *t = realloc(a->ftypes, cap);
        if (t)
            a->ftypes = t;
        if (!n || !t) {
            errno = ENOMEM;
            as_sysfail(a, "out of memory");
            return;
        }
        a->fcap = cap;
    }
    a->fnames[a->nfl] = name;
    a->ftypes[a->nfl] = (uint8_t)type;
}

static void class_phase(as *a, int phase)
{
    if (a->phase < 1 && phase >= 1) {
        a->st_at = a->body.len;
        put_n(a, 0, 2);
        a->phase = 1;
    }
    if (a->phase < 2 && phase >= 2) {
        a->fl_at = a->body.len;
        put_n(a, 0, 2);
        a->phase = 2;
    }
}

static void sub_close(as *a)
{
    const hasm_schema *s = a->ss;
    if (!s || a->err) {
        a->ss = NULL;
        return;
    }
    a->ss = NULL;
    switch (s->body) {
    case HASM_B_CLASS:
        class_phase(a, 2);
        if (a->err)
            return;
        if (a->ncp > 0xFFFF || a->nst > 0xFFFF || a->nfl > 0xFFFF) {
            as_fail(a, "CLASS_DUMP with more than 65535 constants, statics or fields");
            return;
        }
        hasm_text_put(a->body.p + a->sub_count_at, 2, a->ncp);
        hasm_text_put(a->body.p + a->st_at, 2, a->nst);
        hasm_text_put(a->body.p + a->fl_at, 2, a->nfl);
        if (hasm_meta_put_class(a->meta, a->class_id, a->super_id, (size_t)a->nfl, a->fnames,
                                a->ftypes) < 0) {
            errno = ENOMEM;
            as_sysfail(a, "out of memory");
        }
        return;
    case HASM_B_INSTANCE:
        /* no fields (lsize 0): ivals may be NULL, nothing to copy */
        if (a->mode != 1 && a->nslots >= 0 && a->lsize > 0) {
            if (buf_reserve(a, &a->body, (size_t)a->lsize) < 0)
                return;
            memcpy(a->body.p + a->body.len, a->ivals, (size_t)a->lsize);
            a->body.len += (size_t)a->lsize;
        }
        if (a->body.len - a->data_at > HPROF_U4_MAX) {
            as_fail(a, "INSTANCE_DUMP data longer than 4 GiB");
            return;
        }
        patch4(a, a->sub_count_at, a->sub_has_count ? a->sub_count : a->body.len - a->data_at);
        return;
    case HASM_B_OBJARRAY:
    case HASM_B_PRIMARRAY: {
        uint64_t bytes = a->body.len - a->data_at;
        if (!a->sub_has_count && bytes % a->esz != 0) {
            as_fail(a, "%s: %llu data bytes are not whole elements of %u bytes (give count=)",
                    s->name, (unsigned long long)bytes, a->esz);
            return;
        }
        if (!a->sub_has_count && bytes / a->esz > HPROF_U4_MAX) {
            as_fail(a, "%s with more than 4294967295 elements", s->name);
            return;
        }
        patch4(a, a->sub_count_at, a->sub_has_count ? a->sub_count : bytes / a->esz);
        return;
    }
    default:
        return;
    }
}

static int as_layout(as *a)
{
    const hasm_slot *slots;
    a->nslots = hasm_meta_layout(a->meta, a->class_id, a->id_size, &slots, &a->lsize);
    if (a->nslots < 0)
        return 0;
    size_t n = (size_t)a->nslots;
    if (n > a->scap) {
        hasm_slot *s = realloc(a->slots, n * sizeof *s);
        uint8_t *set = realloc(a->iset, n);
        uint64_t *o = realloc(a->offs, n * sizeof *o);
        if (s)
            a->slots = s;
        if (set)
            a->iset = set;
        if (o)
            a->offs = o;
        if (!s || !set || !o)
            goto oom;
        a->scap = n;
    }
    if (a->lsize > a->icap) {
        uint8_t *v = realloc(a->ivals, (size_t)a->lsize);
        if (!v)
            goto oom;
        a->ivals = v;
        a->icap = (size_t)a->lsize;
    }
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        a->slots[i] = slots[i];
        a->offs[i] = off;
        off += slots[i].size;
    }
    if (n) /* a class chain without fields: no buffers (iset may be NULL) */
        memset(a->iset, 0, n);
    if (a->lsize)
        memset(a->ivals, 0, (size_t)a->lsize);
    a->hint = 0;
    return 0;
oom:
    errno = ENOMEM;
    as_sysfail(a, "out of memory");
    return -1;
}

static void sub_open(as *a, const hasm_schema *s, hasm_tok *t, long n)
{
    uint64_t vals[AS_MAX_FIELDS];
    as_extra x;
    const char *extras = s->body == HASM_B_INSTANCE ? "length"
                         : (s->body == HASM_B_OBJARRAY || s->body == HASM_B_PRIMARRAY) ? "count"
                                                                                        : "";
    if (as_attrs(a, t, n, s->fields, s->nfields, vals, &x, extras, NULL) < 0)
        return;
    a->ss = s;
    a->mode = 0;
    a->sub_has_count = x.has_count || x.has_len;
    a->sub_count = x.has_count ? x.count : x.len;
    put_n(a, s->tag, 1);
    switch (s->body) {
    case HASM_B_CLASS:
        put_fields(a, s->fields, s->nfields, vals);
        a->class_id = vals[0];
        a->super_id = vals[2];
        a->sub_count_at = a->body.len;
        put_n(a, 0, 2);
        a->phase = 0;
        a->ncp = a->nst = a->nfl = 0;
        return;
    case HASM_B_INSTANCE:
        put_fields(a, s->fields, s->nfields, vals);
        a->sub_count_at = a->body.len;
        put_n(a, 0, 4);
        a->data_at = a->body.len;
        a->mode = 0;
        a->class_id = vals[2];
        as_layout(a);
        return;
    case HASM_B_OBJARRAY:
    case HASM_B_PRIMARRAY:
        put_n(a, vals[0], a->id_size);
        put_n(a, vals[1], 4);
        a->sub_count_at = a->body.len;
        put_n(a, 0, 4);
        if (s->body == HASM_B_OBJARRAY) {
            put_n(a, vals[2], a->id_size);
            a->etype = HPROF_TYPE_OBJECT;
        } else {
            a->etype = (unsigned)vals[2];
            put_n(a, vals[2], 1);
        }
        a->esz = hprof_type_size(a->etype, a->id_size);
        if (s->body == HASM_B_PRIMARRAY && !hprof_type_is_primitive(a->etype)) {
            as_fail(a, "PRIM_ARRAY_DUMP needs a primitive type=");
            return;
        }
        a->data_at = a->body.len;
        return;
    default:
        put_fields(a, s->fields, s->nfields, vals);
        a->ss = NULL; /* nothing can follow */
        return;
    }
}

/* ------------------------------------------------------------ records */

static void rec_close(as *a)
{
    if (!a->rec)
        return;
    sub_close(a);
    a->rec = 0;
    if (a->err)
        return;
    if (a->rs && a->rs->body == HASM_B_ITEMS) {
        if (!a->has_count && a->nitems > HPROF_U4_MAX) {
            as_fail(a, "%s with more than 4294967295 items", a->rs->name);
            return;
        }
        patch4(a, a->count_at, a->has_count ? a->count : a->nitems);
    }
    if (!a->has_len && a->body.len > HPROF_U4_MAX) {
        as_fail(a, "record body longer than 4294967295 bytes (split it, or give length=)");
        return;
    }
    if (a->streaming) {
        uint64_t total = a->flushed + a->body.len;
        a->streaming = 0;
        if (!a->has_len && total > HPROF_U4_MAX) {
            as_fail(a, "record body longer than 4294967295 bytes (split it, or give length=)");
            return;
        }
        out_bytes(a, a->body.p, a->body.len);
        uint8_t l[4];
        hasm_text_put(l, 4, a->has_len ? a->len : total);
        if (!a->err && (a->seek(a->ctx, a->rec_at + 5) < 0 || a->w(a->ctx, l, 4) < 0 ||
                        a->seek(a->ctx, UINT64_MAX) < 0))
            as_sysfail(a, "writing the output");
        return;
    }
    uint8_t h[HPROF_RECORD_HEADER_SIZE];
    h[0] = (uint8_t)a->tag;
    hasm_text_put(h + 1, 4, a->time);
    hasm_text_put(h + 5, 4, a->has_len ? a->len : a->body.len);
    out_bytes(a, h, sizeof h);
    out_bytes(a, a->body.p, a->body.len);
}

/* Between two sub-records of a big heap dump record, on an output that can
 * seek: the body so far goes out (the header first, its length patched by
 * rec_close), so memory stays at one sub-record. */
static void rec_flush(as *a)
{
    if (!a->seek || a->gzip || a->err || a->body.len < AS_FLUSH_AT || !a->rs ||
        a->rs->body != HASM_B_HEAP)
        return;
    if (!a->streaming) {
        uint8_t h[HPROF_RECORD_HEADER_SIZE];
        h[0] = (uint8_t)a->tag;
        hasm_text_put(h + 1, 4, a->time);
        hasm_text_put(h + 5, 4, 0);
        a->rec_at = a->out_pos;
        out_bytes(a, h, sizeof h);
        a->streaming = 1;
    }
    out_bytes(a, a->body.p, a->body.len);
    a->flushed += a->body.len;
    a->body.len = 0;
}

static void rec_open(as *a, const hasm_schema *s, hasm_tok *t, long n)
{
    uint64_t vals[AS_MAX_FIELDS];
    as_extra x;
    hasm_tok *str = NULL;
    rec_close(a);
    if (a->err || need_id(a) < 0)
        return;
    const char *extras = !s ? "time length tag" : s->body == HASM_B_ITEMS ? "time length count"
                                                                           : "time length";
    if (as_attrs(a, t, n, s ? s->fields : NULL, s ? s->nfields : 0, vals, &x, extras,
                 s && s->body == HASM_B_STRING ? &str : NULL) < 0)
        return;
    if (!s && !x.has_tag) {
        as_fail(a, "record needs tag=");
        return;
    }
    a->rec = 1;
    a->rs = s;
    a->tag = s ? s->tag : (unsigned)x.tag;
    a->time = (uint32_t)x.time;
    a->has_len = x.has_len;
    a->len = x.len;
    a->has_count = x.has_count;
    a->count = x.count;
    a->nitems = 0;
    a->body.len = 0;
    a->flushed = 0;
    a->streaming = 0;
    a->ss = NULL;
    if (!s)
        return;
    put_fields(a, s->fields, s->nfields, vals);
    if (s->body == HASM_B_ITEMS) {
        a->count_at = a->body.len;
        put_n(a, 0, 4);
    } else if (s->body == HASM_B_STRING) {
        if (!str) {
            as_fail(a, "UTF8 needs its string in quotes");
            return;
        }
        if (buf_reserve(a, &a->body, str->len) < 0)
            return;
        memcpy(a->body.p + a->body.len, str->val, str->len);
        a->body.len += str->len;
        if (hasm_meta_put_string(a->meta, vals[0], (const uint8_t *)str->val, str->len) < 0) {
            errno = ENOMEM;
            as_sysfail(a, "out of memory");
        }
    } else if (s->tag == HPROF_TAG_LOAD_CLASS) {
        if (hasm_meta_put_class_name(a->meta, vals[1], vals[3], (uint32_t)vals[0]) < 0) {
            errno = ENOMEM;
            as_sysfail(a, "out of memory");
        }
    }
}

/* ---------------------------------------------------------------- lines */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Hex digits of the tokens (blanks between bytes allowed) into the body,
 * or straight to the output outside a record. */
static void as_hex(as *a, hasm_tok *t, long n)
{
    uint8_t small[256];
    size_t ns = 0;
    for (long i = 0; i < n && !a->err; i++) {
        if (t[i].key || t[i].quoted || t[i].len % 2 != 0) {
            as_fail(a, "'%s': expected hex bytes", t[i].val);
            return;
        }
        size_t k = t[i].len / 2;
        if (a->rec && buf_reserve(a, &a->body, k) < 0)
            return;
        for (size_t j = 0; j < k; j++) {
            int h = hexval(t[i].val[2 * j]), l = hexval(t[i].val[2 * j + 1]);
            if (h < 0 || l < 0) {
                as_fail(a, "'%s': expected hex bytes", t[i].val);
                return;
            }
            uint8_t b = (uint8_t)(h * 16 + l);
            if (a->rec) {
                a->body.p[a->body.len++] = b;
            } else {
                small[ns++] = b;
                if (ns == sizeof small) {
                    out_bytes(a, small, ns);
                    ns = 0;
                }
            }
        }
    }
    out_bytes(a, small, ns);
}

static void as_header(as *a, hasm_tok *t, long n)
{
    uint64_t id = 0, time = 0;
    hasm_tok *magic = NULL;
    rec_close(a);
    for (long i = 0; i < n && !a->err; i++) {
        if (!t[i].key && t[i].quoted && !magic)
            magic = &t[i];
        else if (t[i].key && strcmp(t[i].key, "id-size") == 0)
            as_int(a, &t[i], 4, &id);
        else if (t[i].key && strcmp(t[i].key, "time") == 0)
            as_int(a, &t[i], 8, &time);
        else
            as_fail(a, "'%s': header takes \"MAGIC\" id-size=N time=MS", t[i].val);
    }
    if (a->err)
        return;
    if (!magic) {
        as_fail(a, "header needs its magic string in quotes (\"JAVA PROFILE 1.0.2\")");
        return;
    }
    uint8_t tail[HPROF_HEADER_SIZE - HPROF_MAGIC_LEN] = { 0 }; /* NUL, u4 id size, u8 time */
    hasm_text_put(tail + 1, 4, id);
    hasm_text_put(tail + 5, 8, time);
    out_bytes(a, magic->val, magic->len);
    out_bytes(a, tail, sizeof tail);
    a->id_size = (unsigned)id;
}

/* `name=value` pairs of an instance's fields. */
static void as_values(as *a, hasm_tok *t, long n)
{
    if (a->nslots < 0) {
        as_fail(a, "values need the CLASS_DUMP of class 0x%llx and of its super classes before "
                   "(else give the field bytes as data)",
                (unsigned long long)a->class_id);
        return;
    }
    for (long i = 0; i < n && !a->err; i++) {
        if (!t[i].key) {
            as_fail(a, "'%s': values are name=value", t[i].val);
            return;
        }
        size_t kl = strlen(t[i].key);
        /* the first unset field of that name, in layout order; disasm
         * writes them in order, so the scan usually stops at once */
        long found = -1;
        for (long j = a->hint; j < a->nslots; j++) {
            if (a->iset[j])
                continue;
            size_t sl;
            const uint8_t *s = hasm_meta_string(a->meta, a->slots[j].name, &sl);
            if (s && sl == kl && memcmp(s, t[i].key, kl) == 0) {
                found = j;
                break;
            }
        }
        if (found < 0) {
            as_fail(a, "class 0x%llx has no field '%s' left to set",
                    (unsigned long long)a->class_id, t[i].key);
            return;
        }
        const hasm_slot *sl = &a->slots[found];
        if (sl->size == 0) {
            as_fail(a, "field '%s' has an invalid type", t[i].key);
            return;
        }
        uint64_t v;
        if (as_value(a, t[i].val, sl->type, &v) < 0)
            return;
        hasm_text_put(a->ivals + a->offs[found], sl->size, v);
        a->iset[found] = 1;
        while (a->hint < a->nslots && a->iset[a->hint])
            a->hint++;
    }
}

static void as_class_item(as *a, const char *kw, hasm_tok *t, long n)
{
    uint64_t index = 0, name = 0, v = 0;
    unsigned type = 0;
    const char *value = NULL;
    int is_field = strcmp(kw, "field") == 0;
    for (long i = 0; i < n && !a->err; i++) {
        const char *k = t[i].key ? t[i].key : "";
        if (strcmp(k, "index") == 0 && strcmp(kw, "const") == 0)
            as_int(a, &t[i], 2, &index);
        else if (strcmp(k, "name") == 0 && strcmp(kw, "const") != 0)
            as_int(a, &t[i], a->id_size, &name);
        else if (strcmp(k, "type") == 0) {
            /* a field's type is not checked by readers of the dump: any byte */
            if (is_field && !hasm_text_type_named(t[i].val)) {
                uint64_t tv;
                if (as_int(a, &t[i], 1, &tv) == 0)
                    type = (unsigned)tv;
            } else
                as_type(a, t[i].val, 0, &type);
        } else if (strcmp(k, "value") == 0 && !is_field)
            value = t[i].val;
        else
            as_fail(a, "'%s': %s takes %s", t[i].val, kw,
                    is_field ? "name= type=" : strcmp(kw, "const") == 0 ? "index= type= value="
                                                                        : "name= type= value=");
    }
    if (a->err)
        return;
    if (type == 0 && !is_field) {
        as_fail(a, "%s needs type=", kw);
        return;
    }
    if (!is_field && value && as_value(a, value, type, &v) < 0)
        return;
    if (strcmp(kw, "const") == 0) {
        if (a->phase > 0) {
            as_fail(a, "const after static or field: a CLASS_DUMP lists consts, statics, fields");
            return;
        }
        put_n(a, index, 2);
        put_n(a, type, 1);
        put_n(a, v, hprof_type_size(type, a->id_size));
        a->ncp++;
    } else if (!is_field) {
        if (a->phase > 1) {
            as_fail(a, "static after field: a CLASS_DUMP lists consts, statics, fields");
            return;
        }
        class_phase(a, 1);
        put_n(a, name, a->id_size);
        put_n(a, type, 1);
        put_n(a, v, hprof_type_size(type, a->id_size));
        a->nst++;
    } else {
        class_phase(a, 2);
        put_n(a, name, a->id_size);
        put_n(a, type, 1);
        class_field_add(a, name, type);
        a->nfl++;
    }
}

static void as_line(as *a, hasm_tok *t, long n);

static void as_item(as *a, const char *kw, hasm_tok *t, long n)
{
    const hasm_schema *s = a->ss;
    if (strcmp(kw, "const") == 0 || strcmp(kw, "static") == 0 || strcmp(kw, "field") == 0) {
        if (!s || s->body != HASM_B_CLASS) {
            as_fail(a, "%s outside a CLASS_DUMP", kw);
            return;
        }
        as_class_item(a, kw, t, n);
        return;
    }
    if (strcmp(kw, "values") == 0) {
        if (!s || s->body != HASM_B_INSTANCE || a->mode == 1) {
            as_fail(a, "values outside an INSTANCE_DUMP (or after its data)");
            return;
        }
        a->mode = 2;
        as_values(a, t, n);
        return;
    }
    if (strcmp(kw, "data") == 0) {
        if (!s || (s->body != HASM_B_INSTANCE && s->body != HASM_B_OBJARRAY &&
                   s->body != HASM_B_PRIMARRAY) || a->mode == 2) {
            as_fail(a, "data outside an INSTANCE_DUMP or array (or after values)");
            return;
        }
        a->mode = 1;
        as_hex(a, t, n);
        return;
    }
    if (strcmp(kw, "elems") == 0) {
        if (!s || (s->body != HASM_B_OBJARRAY && s->body != HASM_B_PRIMARRAY)) {
            as_fail(a, "elems outside an array");
            return;
        }
        if (buf_reserve(a, &a->body, (size_t)n * a->esz) < 0)
            return;
        for (long i = 0; i < n && !a->err; i++) {
            uint64_t v;
            if (t[i].key) {
                as_fail(a, "'%s=%s': elems are values", t[i].key, t[i].val);
                return;
            }
            if (as_value(a, t[i].val, a->etype, &v) < 0)
                return;
            put_n(a, v, a->esz);
        }
        return;
    }
    /* frame, site, sample */
    if (!a->rec || !a->rs || !a->rs->item_name || strcmp(a->rs->item_name, kw) != 0) {
        as_fail(a, "unknown keyword '%s' here", kw);
        return;
    }
    uint64_t vals[AS_MAX_FIELDS];
    as_extra x;
    if (as_attrs(a, t, n, a->rs->item_fields, a->rs->nitem_fields, vals, &x, "", NULL) < 0)
        return;
    put_fields(a, a->rs->item_fields, a->rs->nitem_fields, vals);
    a->nitems++;
}

/* A line that starts with key=value: attributes of what is open. */
static void as_continue(as *a, hasm_tok *t, long n)
{
    for (long i = 0; i < n && !a->err; i++) {
        uint64_t v;
        if (!t[i].key) {
            as_fail(a, "'%s': a line of attributes holds key=value only", t[i].val);
            return;
        }
        int is_count = strcmp(t[i].key, "count") == 0, is_len = strcmp(t[i].key, "length") == 0;
        if ((!is_count && !is_len) || as_int(a, &t[i], 4, &v) < 0) {
            as_fail(a, "'%s=': only count= and length= can continue a line", t[i].key);
            return;
        }
        const hasm_schema *s = a->ss;
        if (s && ((is_count && (s->body == HASM_B_OBJARRAY || s->body == HASM_B_PRIMARRAY)) ||
                  (is_len && s->body == HASM_B_INSTANCE))) {
            a->sub_has_count = 1;
            a->sub_count = v;
        } else if (!s && a->rec && is_len) {
            a->has_len = 1;
            a->len = v;
        } else if (!s && a->rec && is_count && a->rs && a->rs->body == HASM_B_ITEMS) {
            a->has_count = 1;
            a->count = v;
        } else {
            as_fail(a, "%s= does not apply here", t[i].key);
            return;
        }
    }
}

static void as_line(as *a, hasm_tok *t, long n)
{
    if (n == 0 || a->err)
        return;
    if (t[0].key) {
        as_continue(a, t, n);
        return;
    }
    if (t[0].quoted) {
        as_fail(a, "a line starts with a keyword, not a string");
        return;
    }
    const char *kw = t[0].val;
    const hasm_schema *s;
    if (strcmp(kw, "repeat") == 0) {
        uint64_t times;
        if (n < 3 || t[1].key || a->in_repeat || as_int(a, &t[1], 4, &times) < 0 ||
            a->repeated + times > AS_MAX_REPEAT) {
            as_fail(a, "repeat N LINE...: not nested, up to %u lines in all", AS_MAX_REPEAT);
            return;
        }
        a->repeated += times;
        a->in_repeat = 1;
        for (uint64_t i = 0; i < times && !a->err; i++)
            as_line(a, t + 2, n - 2);
        a->in_repeat = 0;
    } else if (strcmp(kw, "gzip") == 0) {
        if (a->wrote || a->gzip || n > 1) {
            as_fail(a, "gzip comes alone, before anything is written");
            return;
        }
        memset(&a->z, 0, sizeof a->z);
        if (deflateInit2(&a->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            errno = ENOMEM;
            as_sysfail(a, "gzip");
            return;
        }
        a->gzip = a->zinit = 1;
    } else if (strcmp(kw, "header") == 0) {
        as_header(a, t + 1, n - 1);
    } else if (strcmp(kw, "end") == 0) {
        sub_close(a);
        if (n > 1)
            as_continue(a, t + 1, n - 1);
        rec_close(a);
    } else if (strcmp(kw, "raw") == 0) {
        sub_close(a);
        as_hex(a, t + 1, n - 1);
    } else if (strcmp(kw, "record") == 0) {
        rec_open(a, NULL, t + 1, n - 1);
    } else if ((s = hasm_text_record_named(kw)) != NULL) {
        rec_open(a, s, t + 1, n - 1);
    } else if ((s = hasm_text_sub_named(kw)) != NULL) {
        if (!a->rec || !a->rs || a->rs->body != HASM_B_HEAP) {
            as_fail(a, "%s outside a HEAP_DUMP or HEAP_DUMP_SEGMENT", kw);
            return;
        }
        sub_close(a);
        rec_flush(a);
        sub_open(a, s, t + 1, n - 1);
    } else {
        as_item(a, kw, t + 1, n - 1);
    }
}

int hasm_asm_stream(FILE *in, const char *name, hasm_write_fn w, void *ctx, char *err,
                    size_t errlen)
{
    return hasm_asm_stream_seek(in, name, w, NULL, ctx, err, errlen);
}

int hasm_asm_stream_seek(FILE *in, const char *name, hasm_write_fn w, hasm_seek_fn seek,
                         void *ctx, char *err, size_t errlen)
{
    as a;
    memset(&a, 0, sizeof a);
    a.w = w;
    a.seek = seek;
    a.ctx = ctx;
    a.errbuf = err;
    a.errlen = errlen;
    a.name = name;
    a.nslots = -1;
    a.meta = hasm_meta_init();
    a.lx = hasm_lex_init();
    if (!a.meta || !a.lx) {
        errno = ENOMEM;
        as_sysfail(&a, "out of memory");
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while (!a.err && (len = getline(&line, &cap, in)) >= 0) {
        a.lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            as_fail(&a, "a NUL byte in the text (write it as \\x00 or in hex)");
            break;
        }
        hasm_tok *t;
        const char *why;
        long n = hasm_lex_line(a.lx, line, &t, &why);
        if (n < 0) {
            as_fail(&a, "%s", why);
            break;
        }
        as_line(&a, t, n);
    }
    if (!a.err && ferror(in))
        as_sysfail(&a, "reading the text");
    rec_close(&a);
    out_finish(&a);
    free(line);
    hasm_meta_cleanup(a.meta);
    hasm_lex_cleanup(a.lx);
    free(a.body.p);
    free(a.fnames);
    free(a.ftypes);
    free(a.slots);
    free(a.offs);
    free(a.ivals);
    free(a.iset);
    return a.err;
}
