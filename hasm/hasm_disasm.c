/*
 * hasm_disasm.c: the disassembler (HPROF bytes -> text), see hasm_disasm.h.
 *
 * Owns the decoding of a byte stream into the text form. Structure:
 * header, then records; a record's body is read whole into a scratch buffer
 * (bounded), except heap dump records, whose sub-records are read one at a
 * time and whose arrays stream element by element. Whenever the structure
 * stops fitting (too short, unknown tag, bad type, crossing the record's
 * end), what was read of it and the rest of the record become `raw` lines:
 * the text always holds every byte, in order. A record whose declared length
 * is not what the file holds gets `length=` (on its first line when known
 * before writing, else on an `end` line).
 *
 * File input is read with read(2) and, when it starts with a valid gzip
 * header (RFC 1952: magic, method 8, no reserved flag), inflated here
 * (every member). Not through gzFile: zlib takes any 1f 8b start for gzip
 * and fails on it ("unknown compression method"), and a plain file that
 * starts so must still disassemble. A gzip stream cut short: the text of
 * what it gave, then an error (hasm_disasm.h).
 */
#include "hasm_disasm.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "hasm_meta.h"
#include "hasm_text.h"
#include "hprof/hprof_format.h"

#define DIS_IBUF (256u * 1024u)
/* largest record body or instance read whole; bigger ones stream as raw */
#ifdef HASM_BODY_MAX
#define DIS_BODY_MAX HASM_BODY_MAX
#else
#define DIS_BODY_MAX (64u * 1024u * 1024u)
#endif
#define DIS_HEADER_MAX 4096u /* bytes searched for the header's NUL */
#define DIS_RAW_LINE 32u     /* bytes per raw/data line */
#define DIS_PER_LINE 8u      /* values per elems/values line */
/* gzip (RFC 1952): ID1 ID2 CM FLG MTIME(4) XFL OS */
#define DIS_GZ_ID1 0x1fu
#define DIS_GZ_ID2 0x8bu
#define DIS_GZ_DEFLATE 8u
#define DIS_GZ_FLG_RESERVED 0xe0u
#define DIS_GZ_HEADER 10u

typedef struct dis {
    FILE *out;
    int fd;            /* file input, -1 for memory */
    int is_gz;         /* the file is gzip: inflated through zs */
    z_stream zs;       /* next_in/avail_in: the file's bytes read, not used yet */
    int zs_live;
    uint8_t *raw;      /* the file's bytes, as read */
    int raw_eof;
    int member_end;    /* a gzip member ended: another may follow */
    int gz_cut;        /* the file ended inside a gzip member */
    int gz_trailing;   /* bytes after the gzip stream (ignored, as gzip -d does) */
    const uint8_t *mem;
    size_t mem_len, mem_pos;
    uint8_t *ibuf;
    size_t ipos, ilen;
    int eof;
    int err;           /* read error or OOM: sticky */
    char *errbuf;
    size_t errlen;
    const char *name;
    uint64_t off;      /* file offset of the next byte */
    unsigned id_size;
    hasm_meta *meta;
    uint8_t *scr;      /* the current record body or sub-record */
    size_t scr_len, scr_cap;
    uint64_t rec_left; /* bytes of the current record not yet read */
} dis;

static void dis_fail(dis *d, const char *what)
{
    if (d->err)
        return;
    d->err = 1;
    snprintf(d->errbuf, d->errlen, "%s: %s", d->name, what);
}

/* Makes k (<= DIS_IBUF) bytes of the file available at zs.next_in; fewer
 * only at its end or on a read error (latched). */
static void dis_raw_need(dis *d, size_t k)
{
    while (d->zs.avail_in < k && !d->raw_eof && !d->err) {
        if (d->zs.next_in != d->raw) {
            memmove(d->raw, d->zs.next_in, d->zs.avail_in);
            d->zs.next_in = d->raw;
        }
        ssize_t n = read(d->fd, d->raw + d->zs.avail_in, DIS_IBUF - d->zs.avail_in);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            dis_fail(d, strerror(errno));
        else if (n == 0)
            d->raw_eof = 1;
        else
            d->zs.avail_in += (uInt)n;
    }
}

/* A gzip member's header starts here: its fixed part is whole and valid. */
static int dis_gz_header(const uint8_t *p, size_t n)
{
    return n >= DIS_GZ_HEADER && p[0] == DIS_GZ_ID1 && p[1] == DIS_GZ_ID2 &&
           p[2] == DIS_GZ_DEFLATE && (p[3] & DIS_GZ_FLG_RESERVED) == 0;
}

/* Inflates into ibuf until it holds something or the stream ends. */
static void dis_inflate(dis *d)
{
    d->zs.next_out = d->ibuf;
    d->zs.avail_out = DIS_IBUF;
    while (d->zs.avail_out == DIS_IBUF && !d->err) {
        if (d->member_end) {
            dis_raw_need(d, DIS_GZ_HEADER);
            if (d->zs.avail_in == 0)
                break; /* the end, after a whole member */
            if (!dis_gz_header(d->zs.next_in, d->zs.avail_in)) {
                d->gz_trailing = 1;
                d->zs.avail_in = 0;
                break;
            }
            if (inflateReset(&d->zs) != Z_OK) {
                dis_fail(d, "gzip input: inflateReset failed");
                break;
            }
            d->member_end = 0;
        }
        dis_raw_need(d, 1);
        if (d->err)
            break;
        if (d->zs.avail_in == 0) {
            d->gz_cut = 1;
            break;
        }
        int r = inflate(&d->zs, Z_NO_FLUSH);
        if (r == Z_STREAM_END) {
            d->member_end = 1;
        } else if (r == Z_MEM_ERROR) {
            dis_fail(d, "out of memory");
        } else if (r != Z_OK) {
            char m[160];
            snprintf(m, sizeof m, "gzip input: %s", d->zs.msg ? d->zs.msg : "corrupt data");
            dis_fail(d, m);
        }
    }
    d->ilen = DIS_IBUF - d->zs.avail_out;
}

static void dis_fill(dis *d)
{
    if (d->eof || d->err)
        return;
    d->ipos = 0;
    d->ilen = 0;
    if (d->mem) {
        size_t n = d->mem_len - d->mem_pos;
        if (n > DIS_IBUF)
            n = DIS_IBUF;
        memcpy(d->ibuf, d->mem + d->mem_pos, n);
        d->mem_pos += n;
        d->ilen = n;
    } else if (!d->is_gz) {
        dis_raw_need(d, 1);
        size_t n = d->zs.avail_in;
        memcpy(d->ibuf, d->zs.next_in, n);
        d->zs.next_in += n;
        d->zs.avail_in = 0;
        d->ilen = n;
    } else {
        dis_inflate(d);
    }
    if (d->ilen == 0)
        d->eof = 1;
}

/* Reads up to n bytes; fewer only at the end of the file. */
static size_t dis_read(dis *d, uint8_t *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        if (d->ipos == d->ilen) {
            dis_fill(d);
            if (d->ipos == d->ilen)
                break;
        }
        size_t k = d->ilen - d->ipos;
        if (k > n - got)
            k = n - got;
        memcpy(dst + got, d->ibuf + d->ipos, k);
        d->ipos += k;
        got += k;
    }
    d->off += got;
    return got;
}

/* Reads up to n bytes of the current record. */
static size_t dis_rec_read(dis *d, uint8_t *dst, size_t n)
{
    if (n > d->rec_left)
        n = (size_t)d->rec_left;
    size_t got = dis_read(d, dst, n);
    d->rec_left -= got;
    return got;
}

static int dis_scr_reserve(dis *d, size_t n)
{
    if (n <= d->scr_cap)
        return 0;
    size_t cap = d->scr_cap ? d->scr_cap : 65536;
    while (cap < n)
        cap *= 2;
    uint8_t *p = realloc(d->scr, cap);
    if (!p) {
        dis_fail(d, "out of memory");
        return -1;
    }
    d->scr = p;
    d->scr_cap = cap;
    return 0;
}

/* Makes the scratch hold k bytes of the current sub-record: -1 if they are
 * not in the record (or the file). */
static int dis_need(dis *d, uint64_t k)
{
    if (k <= d->scr_len)
        return 0;
    if (k - d->scr_len > d->rec_left || k > DIS_BODY_MAX)
        return -1;
    if (dis_scr_reserve(d, (size_t)k) < 0)
        return -1;
    d->scr_len += dis_rec_read(d, d->scr + d->scr_len, (size_t)k - d->scr_len);
    return d->scr_len == k ? 0 : -1;
}

/* ------------------------------------------------------------ writing */

/* The text of bytes or chars in a comment: printable ASCII, else '.'. */
static void put_text_comment(dis *d, const uint8_t *p, size_t n, unsigned esz)
{
    fputs_unlocked("  # \"", d->out);
    for (size_t i = 0; i + esz <= n; i += esz) {
        uint64_t c = hasm_text_get(p + i, esz);
        putc_unlocked(c >= 0x20 && c < 0x7F ? (int)c : '.', d->out);
    }
    putc_unlocked('"', d->out);
}

static void put_hex_line_text(dis *d, const char *kw, const uint8_t *p, size_t n, int text)
{
    static const char hx[] = "0123456789abcdef";
    char line[16 + 2 * DIS_RAW_LINE + 2];
    size_t k = strlen(kw);
    memcpy(line, kw, k);
    line[k++] = ' ';
    for (size_t i = 0; i < n; i++) {
        line[k++] = hx[p[i] >> 4];
        line[k++] = hx[p[i] & 15];
    }
    if (n == 0)
        k--;
    fwrite_unlocked(line, 1, k, d->out);
    if (text)
        put_text_comment(d, p, n, 1);
    putc_unlocked('\n', d->out);
}

static void put_hex_line(dis *d, const char *kw, const uint8_t *p, size_t n)
{
    put_hex_line_text(d, kw, p, n, 0);
}

/* A data line of a byte[]: mostly text (String.value since JDK 9). */
static void put_hex_text(dis *d, const uint8_t *p, size_t n)
{
    put_hex_line_text(d, "    data", p, n, 1);
}

static void put_hex(dis *d, const char *kw, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += DIS_RAW_LINE)
        put_hex_line(d, kw, p + i, n - i < DIS_RAW_LINE ? n - i : DIS_RAW_LINE);
}

/* Streams the rest of the current record (or, at top level, of the file)
 * as raw lines spelled `kw`. */
static void put_raw_rest(dis *d, const char *kw)
{
    uint8_t b[DIS_RAW_LINE];
    while (d->rec_left > 0 && !d->err) {
        size_t got = dis_rec_read(d, b, sizeof b);
        if (got == 0)
            break;
        put_hex_line(d, kw, b, got);
    }
}

/* A name for a comment: no line breaks or control bytes. */
static void put_name(dis *d, const uint8_t *s, size_t n)
{
    if (n > 200)
        n = 200;
    for (size_t i = 0; i < n; i++)
        putc(s[i] < 0x20 || s[i] == 0x7F ? '?' : s[i], d->out);
}

static void put_string_name(dis *d, uint64_t id)
{
    size_t n;
    const uint8_t *s = hasm_meta_string(d->meta, id, &n);
    if (s)
        put_name(d, s, n);
}

static void comment_class(dis *d, uint64_t class_id)
{
    size_t n;
    const uint8_t *s = hasm_meta_class_name(d->meta, class_id, &n);
    if (s) {
        fputs("  # ", d->out);
        put_name(d, s, n);
    }
}

/* key=value pairs of a schema's fields, stored at p; returns bytes used. */
static size_t put_fields(dis *d, const hasm_field *f, unsigned nf, const uint8_t *p, uint64_t *vals)
{
    char buf[48];
    size_t off = 0;
    for (unsigned i = 0; i < nf; i++) {
        unsigned sz = hasm_text_kind_size(f[i].kind, d->id_size);
        uint64_t v = hasm_text_get(p + off, sz);
        if (vals)
            vals[i] = v;
        hasm_text_fmt_kind(buf, f[i].kind, v);
        putc_unlocked(' ', d->out);
        fputs_unlocked(f[i].key, d->out);
        putc_unlocked('=', d->out);
        fputs_unlocked(buf, d->out);
        off += sz;
    }
    return off;
}

static size_t fields_size(const hasm_field *f, unsigned nf, unsigned id_size)
{
    size_t s = 0;
    for (unsigned i = 0; i < nf; i++)
        s += hasm_text_kind_size(f[i].kind, id_size);
    return s;
}

static void put_record_start(dis *d, const char *name, unsigned tag, uint32_t time, uint64_t off)
{
    if (name)
        fputs(name, d->out);
    else
        fprintf(d->out, "record tag=0x%02x", tag);
    if (time)
        fprintf(d->out, " time=%" PRIu32, time);
    (void)off;
}

/* ------------------------------------------------------- plain records */

static void comment_frame(dis *d, uint64_t frame_id)
{
    uint64_t method;
    uint32_t serial;
    if (!hasm_meta_frame(d->meta, frame_id, &method, &serial))
        return;
    fputs("  # ", d->out);
    size_t n;
    const uint8_t *c = hasm_meta_serial_name(d->meta, serial, &n);
    if (c) {
        put_name(d, c, n);
        putc('.', d->out);
    }
    put_string_name(d, method);
}

/* The body (in scratch, exactly `len` bytes) as the schema's structure;
 * 0 on success, -1 if it does not fit (nothing written then). */
static int put_plain(dis *d, const hasm_schema *s, uint32_t time, uint64_t rec_off)
{
    const uint8_t *p = d->scr;
    size_t len = d->scr_len;
    size_t fixed = fields_size(s->fields, s->nfields, d->id_size);
    uint64_t vals[8];
    size_t isz = 0, count = 0;
    if (len < fixed)
        return -1;
    if (s->body == HASM_B_NONE && len != fixed)
        return -1;
    if (s->body == HASM_B_ITEMS) {
        isz = fields_size(s->item_fields, s->nitem_fields, d->id_size);
        if (len < fixed + 4)
            return -1;
        count = (size_t)hasm_text_get(p + fixed, 4);
        if ((len - fixed - 4) / isz != count || (len - fixed - 4) % isz != 0)
            return -1;
    }
    put_record_start(d, s->name, s->tag, time, rec_off);
    put_fields(d, s->fields, s->nfields, p, vals);
    switch (s->tag) {
    case HPROF_TAG_UTF8:
        putc(' ', d->out);
        hasm_text_put_string(d->out, p + fixed, len - fixed);
        if (hasm_meta_put_string(d->meta, vals[0], p + fixed, len - fixed) < 0)
            dis_fail(d, "out of memory");
        break;
    case HPROF_TAG_LOAD_CLASS:
        fputs("  # ", d->out);
        put_string_name(d, vals[3]);
        if (hasm_meta_put_class_name(d->meta, vals[1], vals[3], (uint32_t)vals[0]) < 0)
            dis_fail(d, "out of memory");
        break;
    case HPROF_TAG_FRAME: {
        if (hasm_meta_put_frame(d->meta, vals[0], vals[1], (uint32_t)vals[4]) < 0)
            dis_fail(d, "out of memory");
        comment_frame(d, vals[0]);
        putc(' ', d->out);
        put_string_name(d, vals[2]);
        fputs(" (", d->out);
        put_string_name(d, vals[3]);
        fprintf(d->out, ":%" PRId32 ")", (int32_t)(uint32_t)vals[5]);
        break;
    }
    case HPROF_TAG_START_THREAD:
        fputs("  # ", d->out);
        put_string_name(d, vals[3]);
        break;
    default:
        break;
    }
    putc('\n', d->out);
    if (s->body == HASM_B_ITEMS) {
        const uint8_t *q = p + fixed + 4;
        for (size_t i = 0; i < count; i++, q += isz) {
            fprintf(d->out, "  %s", s->item_name);
            put_fields(d, s->item_fields, s->nitem_fields, q, vals);
            if (s->tag == HPROF_TAG_TRACE)
                comment_frame(d, vals[0]);
            else if (s->tag == HPROF_TAG_ALLOC_SITES) {
                size_t n;
                const uint8_t *c = hasm_meta_serial_name(d->meta, (uint32_t)vals[1], &n);
                if (c) {
                    fputs("  # ", d->out);
                    put_name(d, c, n);
                }
            }
            putc('\n', d->out);
        }
    }
    return 0;
}

/* ------------------------------------------------------ heap sub-records */

static void put_value(dis *d, unsigned type, const uint8_t *p)
{
    char buf[48];
    unsigned sz = hprof_type_size(type, d->id_size);
    hasm_text_fmt_value(buf, type, hasm_text_get(p, sz), sz);
    fputs_unlocked(buf, d->out);
}

/* CLASS DUMP from the scratch (sub-tag at 0); -1 if it does not parse. */
static int sub_class(dis *d, const hasm_schema *s)
{
    unsigned id = d->id_size;
    uint64_t off = 1 + fields_size(s->fields, s->nfields, id);
    uint64_t cp_at, st_at, fl_at;
    if (dis_need(d, off + 2) < 0)
        return -1;
    cp_at = off;
    unsigned ncp = (unsigned)hasm_text_get(d->scr + off, 2);
    off += 2;
    for (unsigned i = 0; i < ncp; i++) {
        if (dis_need(d, off + 3) < 0)
            return -1;
        unsigned sz = hprof_type_size(d->scr[off + 2], id);
        if (sz == 0 || dis_need(d, off + 3 + sz) < 0)
            return -1;
        off += 3 + sz;
    }
    if (dis_need(d, off + 2) < 0)
        return -1;
    st_at = off;
    unsigned nst = (unsigned)hasm_text_get(d->scr + off, 2);
    off += 2;
    for (unsigned i = 0; i < nst; i++) {
        if (dis_need(d, off + id + 1) < 0)
            return -1;
        unsigned sz = hprof_type_size(d->scr[off + id], id);
        if (sz == 0 || dis_need(d, off + id + 1 + sz) < 0)
            return -1;
        off += id + 1 + sz;
    }
    if (dis_need(d, off + 2) < 0)
        return -1;
    fl_at = off;
    unsigned nfl = (unsigned)hasm_text_get(d->scr + off, 2);
    if (dis_need(d, off + 2 + (uint64_t)nfl * (id + 1)) < 0)
        return -1;

    const uint8_t *p = d->scr;
    uint64_t vals[9];
    fputs("  CLASS_DUMP", d->out);
    put_fields(d, s->fields, s->nfields, p + 1, vals);
    comment_class(d, vals[0]);
    putc('\n', d->out);
    off = cp_at + 2;
    for (unsigned i = 0; i < ncp; i++) {
        unsigned t = p[off + 2];
        fprintf(d->out, "    const index=%u type=%s value=", (unsigned)hasm_text_get(p + off, 2),
                hasm_text_type_name(t));
        put_value(d, t, p + off + 3);
        putc('\n', d->out);
        off += 3 + hprof_type_size(t, id);
    }
    off = st_at + 2;
    for (unsigned i = 0; i < nst; i++) {
        uint64_t name = hasm_text_get(p + off, id);
        unsigned t = p[off + id];
        fprintf(d->out, "    static name=0x%" PRIx64 " type=%s value=", name, hasm_text_type_name(t));
        put_value(d, t, p + off + id + 1);
        fputs("  # ", d->out);
        put_string_name(d, name);
        putc('\n', d->out);
        off += id + 1 + hprof_type_size(t, id);
    }
    off = fl_at + 2;
    uint64_t *names = malloc((nfl ? nfl : 1) * sizeof *names);
    uint8_t *types = malloc(nfl ? nfl : 1);
    if (!names || !types) {
        free(names);
        free(types);
        dis_fail(d, "out of memory");
        return 0;
    }
    char tbuf[48];
    for (unsigned i = 0; i < nfl; i++) {
        names[i] = hasm_text_get(p + off, id);
        types[i] = p[off + id];
        hasm_text_fmt_kind(tbuf, HASM_K_TYPE, types[i]);
        fprintf(d->out, "    field name=0x%" PRIx64 " type=%s  # ", names[i], tbuf);
        put_string_name(d, names[i]);
        putc('\n', d->out);
        off += id + 1;
    }
    if (hasm_meta_put_class(d->meta, vals[0], vals[2], nfl, names, types) < 0)
        dis_fail(d, "out of memory");
    free(names);
    free(types);
    return 0;
}

/* Whether an instance of `class_id` with `len` field bytes shows by name:
 * the whole class chain known, every type valid, every name a word, and the
 * sizes adding up. hasm_asm applies the same rule. */
static long instance_layout(dis *d, uint64_t class_id, uint64_t len, const hasm_slot **slots)
{
    uint64_t size;
    long n = hasm_meta_layout(d->meta, class_id, d->id_size, slots, &size);
    if (n < 0 || size != len)
        return -1;
    for (long i = 0; i < n; i++) {
        size_t sl;
        const uint8_t *s = hasm_meta_string(d->meta, (*slots)[i].name, &sl);
        if ((*slots)[i].size == 0 || !s || !hasm_text_is_word(s, sl))
            return -1;
    }
    return n;
}

static int sub_instance(dis *d, const hasm_schema *s)
{
    unsigned id = d->id_size;
    uint64_t fixed = 1 + fields_size(s->fields, s->nfields, id);
    if (dis_need(d, fixed + 4) < 0)
        return -1;
    uint64_t len = hasm_text_get(d->scr + fixed, 4);
    if (dis_need(d, fixed + 4 + len) < 0)
        return -1;
    uint64_t vals[3];
    fputs("  INSTANCE_DUMP", d->out);
    put_fields(d, s->fields, s->nfields, d->scr + 1, vals);
    comment_class(d, vals[2]);
    putc('\n', d->out);
    const uint8_t *data = d->scr + fixed + 4;
    const hasm_slot *slots;
    long n = instance_layout(d, vals[2], len, &slots);
    if (n < 0) {
        if (len == 0)
            fputs("    data\n", d->out);
        put_hex(d, "    data", data, (size_t)len);
        return 0;
    }
    size_t off = 0;
    for (long i = 0; i < n; i++) {
        if (i % DIS_PER_LINE == 0)
            fputs(i ? "\n    values" : "    values", d->out);
        size_t sl;
        const uint8_t *name = hasm_meta_string(d->meta, slots[i].name, &sl);
        putc(' ', d->out);
        fwrite(name, 1, sl, d->out);
        putc('=', d->out);
        put_value(d, slots[i].type, data + off);
        off += slots[i].size;
    }
    if (n > 0)
        putc('\n', d->out);
    return 0;
}

/* OBJ/PRIM ARRAY: header from scratch, elements streamed. */
static int sub_array(dis *d, const hasm_schema *s)
{
    unsigned id = d->id_size;
    int prim = s->body == HASM_B_PRIMARRAY;
    uint64_t fixed = 1 + (prim ? HPROF_PRIM_ARRAY_DUMP_FIXED(id) : HPROF_OBJ_ARRAY_DUMP_FIXED(id));
    if (dis_need(d, fixed) < 0)
        return -1;
    const uint8_t *p = d->scr;
    uint64_t count = hasm_text_get(p + 1 + id + 4, 4);
    unsigned type = prim ? p[fixed - 1] : HPROF_TYPE_OBJECT;
    unsigned esz = prim ? (hprof_type_is_primitive(type) ? hprof_type_size(type, id) : 0) : id;
    if (esz == 0 || count * esz > d->rec_left)
        return -1;
    char buf[48];
    fprintf(d->out, "  %s", s->name);
    hasm_text_fmt_kind(buf, HASM_K_ID, hasm_text_get(p + 1, id));
    fprintf(d->out, " id=%s trace=%" PRIu64, buf, hasm_text_get(p + 1 + id, 4));
    if (prim) {
        fprintf(d->out, " type=%s\n", hasm_text_type_name(type));
    } else {
        uint64_t cls = hasm_text_get(p + 1 + id + 8, id);
        hasm_text_fmt_kind(buf, HASM_K_ID, cls);
        fprintf(d->out, " class=%s", buf);
        comment_class(d, cls);
        putc('\n', d->out);
    }
    int bytes = type == HPROF_TYPE_BYTE || type == HPROF_TYPE_BOOLEAN;
    uint64_t per = bytes ? DIS_RAW_LINE : DIS_PER_LINE;
    uint8_t line[DIS_RAW_LINE * 8];
    uint64_t done = 0;
    while (done < count && !d->err) {
        uint64_t k = count - done < per ? count - done : per;
        size_t want = (size_t)(k * esz);
        size_t got = dis_rec_read(d, line, want);
        uint64_t whole = got / esz;
        if (whole > 0) {
            if (type == HPROF_TYPE_BOOLEAN) {
                put_hex_line(d, "    data", line, (size_t)whole);
            } else if (bytes) {
                put_hex_text(d, line, (size_t)whole);
            } else {
                fputs("    elems", d->out);
                for (uint64_t i = 0; i < whole; i++) {
                    putc(' ', d->out);
                    put_value(d, type, line + i * esz);
                }
                if (type == HPROF_TYPE_CHAR)
                    put_text_comment(d, line, (size_t)(whole * esz), esz);
                putc('\n', d->out);
            }
        }
        done += whole;
        if (got < want) {
            /* the file ends inside the array: keep its declared count */
            fprintf(d->out, "    count=%" PRIu64 "\n", count);
            put_hex(d, "  raw", line + whole * esz, got - (size_t)(whole * esz));
            return 0;
        }
    }
    return 0;
}

static int sub_fixed(dis *d, const hasm_schema *s)
{
    if (dis_need(d, 1 + fields_size(s->fields, s->nfields, d->id_size)) < 0)
        return -1;
    fprintf(d->out, "  %s", s->name);
    put_fields(d, s->fields, s->nfields, d->scr + 1, NULL);
    putc('\n', d->out);
    return 0;
}

static void put_heap(dis *d)
{
    while (d->rec_left > 0 && !d->err) {
        d->scr_len = 0;
        if (dis_need(d, 1) < 0)
            break; /* end of file */
        const hasm_schema *s = hasm_text_sub(d->scr[0]);
        int r = -1;
        if (s) {
            switch (s->body) {
            case HASM_B_CLASS: r = sub_class(d, s); break;
            case HASM_B_INSTANCE: r = sub_instance(d, s); break;
            case HASM_B_OBJARRAY: case HASM_B_PRIMARRAY: r = sub_array(d, s); break;
            default: r = sub_fixed(d, s); break;
            }
        }
        if (r < 0) {
            put_hex(d, "  raw", d->scr, d->scr_len);
            put_raw_rest(d, "  raw");
            break;
        }
    }
}

/* ---------------------------------------------------------------- file */

static void dis_run(dis *d)
{
    fputs("# HPROF as text (docs/hprof-text.md): `hprof asm` turns it back into the same bytes\n",
          d->out);
    if (d->is_gz) {
        fputs("gzip  # the input was gzip-compressed; this text is of its uncompressed bytes\n",
                  d->out);
    }
    /* header: magic up to its NUL, u4 id size, u8 time */
    d->rec_left = DIS_HEADER_MAX + 12;
    d->scr_len = 0;
    size_t nul = 0;
    int have = 0;
    while (!d->err && dis_need(d, d->scr_len + 1) == 0) {
        if (d->scr[d->scr_len - 1] == 0) {
            nul = d->scr_len - 1;
            have = dis_need(d, nul + 1 + HPROF_HEADER_SIZE - HPROF_MAGIC_LEN - 1) == 0;
            break;
        }
        if (d->scr_len >= DIS_HEADER_MAX)
            break;
    }
    d->rec_left = UINT64_MAX;
    if (!have) {
        put_hex(d, "raw", d->scr, d->scr_len);
        put_raw_rest(d, "raw");
        return;
    }
    uint64_t idsz = hasm_text_get(d->scr + nul + 1, 4);
    fputs("header ", d->out);
    hasm_text_put_string(d->out, d->scr, nul);
    fprintf(d->out, " id-size=%" PRIu64 " time=%" PRIu64 "\n", idsz,
            hasm_text_get(d->scr + nul + 5, 8));
    if (idsz != 4 && idsz != 8) {
        fputs("# id size neither 4 nor 8: the rest is raw\n", d->out);
        put_raw_rest(d, "raw");
        return;
    }
    d->id_size = (unsigned)idsz;
    int open = 0;
    while (!d->err) {
        uint8_t h[HPROF_RECORD_HEADER_SIZE];
        uint64_t rec_off = d->off;
        d->rec_left = UINT64_MAX;
        size_t got = dis_read(d, h, sizeof h);
        if (got == 0)
            break;
        if (got < sizeof h) {
            if (open)
                fputs("end\n", d->out);
            fputs("# the file ends inside a record header\n", d->out);
            put_hex(d, "raw", h, got);
            break;
        }
        open = 1;
        unsigned tag = h[0];
        uint32_t time = (uint32_t)hasm_text_get(h + 1, 4);
        uint64_t len = hasm_text_get(h + 5, 4);
        const hasm_schema *s = hasm_text_record(tag);
        d->rec_left = len;
        if (s && s->body == HASM_B_HEAP) {
            put_record_start(d, s->name, tag, time, rec_off);
            fprintf(d->out, "  # @%" PRIu64 "\n", rec_off);
            put_heap(d);
        } else if (len <= DIS_BODY_MAX) {
            d->scr_len = 0;
            if (dis_scr_reserve(d, (size_t)len + 1) < 0)
                break;
            d->scr_len = dis_rec_read(d, d->scr, (size_t)len);
            if (d->scr_len == len && s && put_plain(d, s, time, rec_off) == 0)
                continue;
            put_record_start(d, NULL, tag, time, rec_off);
            if (d->scr_len != len) {
                fprintf(d->out, " length=%" PRIu64, len);
                d->rec_left = 0;
            }
            fprintf(d->out, "  # @%" PRIu64 "%s\n", rec_off,
                    s ? ": does not parse" : ": unknown tag");
            put_hex(d, "  raw", d->scr, d->scr_len);
            continue;
        } else {
            put_record_start(d, NULL, tag, time, rec_off);
            fprintf(d->out, "  # @%" PRIu64 "\n", rec_off);
            put_raw_rest(d, "  raw");
        }
        if (d->rec_left != 0) {
            fprintf(d->out, "end length=%" PRIu64 "  # the file ends %" PRIu64 " bytes short\n",
                    len, d->rec_left);
            open = 0;
        }
    }
}

static int dis_finish(dis *d, int rc)
{
    if (!d->err && (fflush(d->out) != 0 || ferror(d->out)))
        snprintf(d->errbuf, d->errlen, "writing the text: %s", strerror(errno)), d->err = 1;
    hasm_meta_cleanup(d->meta);
    if (d->zs_live)
        inflateEnd(&d->zs);
    if (d->fd >= 0)
        close(d->fd);
    free(d->raw);
    free(d->ibuf);
    free(d->scr);
    return d->err ? -1 : rc;
}

static int dis_setup(dis *d, FILE *out, char *err, size_t errlen, const char *name)
{
    memset(d, 0, sizeof *d);
    d->fd = -1;
    d->out = out;
    d->errbuf = err;
    d->errlen = errlen;
    d->name = name;
    d->meta = hasm_meta_init();
    d->ibuf = malloc(DIS_IBUF);
    if (!d->meta || !d->ibuf) {
        dis_fail(d, "out of memory");
        return -1;
    }
    return 0;
}

int hasm_disasm_mem(const void *data, size_t len, FILE *out, char *err, size_t errlen)
{
    dis d;
    static const uint8_t none[1] = { 0 };
    if (dis_setup(&d, out, err, errlen, "(memory)") == 0) {
        d.mem = data ? data : none;
        d.mem_len = len;
        dis_run(&d);
    }
    return dis_finish(&d, 0);
}

int hasm_disasm_path(const char *path, FILE *out, char *err, size_t errlen)
{
    dis d;
    if (dis_setup(&d, out, err, errlen, path) < 0)
        return dis_finish(&d, 0);
    d.fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
    d.raw = malloc(DIS_IBUF);
    if (d.fd < 0 || !d.raw) {
        dis_fail(&d, d.fd < 0 ? strerror(errno) : "out of memory");
        return dis_finish(&d, 0);
    }
    d.zs.next_in = d.raw;
    dis_raw_need(&d, DIS_GZ_HEADER);
    if (!d.err && dis_gz_header(d.zs.next_in, d.zs.avail_in)) {
        /* 16 + window bits: a gzip wrapper (header fields, CRC, length) */
        if (inflateInit2(&d.zs, 16 + MAX_WBITS) != Z_OK) {
            dis_fail(&d, "out of memory");
            return dis_finish(&d, 0);
        }
        d.zs_live = 1;
        d.is_gz = 1;
    }
    if (!d.err)
        dis_run(&d);
    if (d.gz_trailing && !d.err)
        fputs("# the file goes on after its gzip stream: those bytes were ignored\n", d.out);
    if (d.gz_cut && !d.err) {
        fprintf(d.out, "# the gzip stream is cut short: this text ends with the %" PRIu64
                       " bytes it gave\n", d.off);
        char m[160];
        snprintf(m, sizeof m, "gzip input: unexpected end of file (the text holds the %" PRIu64
                 " uncompressed bytes before it)", d.off);
        dis_fail(&d, m);
    }
    return dis_finish(&d, 0);
}
