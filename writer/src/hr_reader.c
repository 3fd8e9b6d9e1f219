/*
 * hr_reader.c: the streaming HPROF parser and its byte sources.
 *
 * Owns the input window. A memory source or a mapped regular file exposes
 * all bytes at once; an fd or gzip source reads forward into a window that
 * keeps bytes from the current record (or sub-record) on, growing only as
 * far as that unit needs and as bytes really arrive. A unit longer than
 * HR_BODY_MAX is held only in part: the parser checks that the rest exists
 * by reading past it through a small scratch buffer (hr_present), so the
 * memory used never follows a length read from the file. The parser asks for bytes with hr_need() before
 * touching them, and every length read from the file is compared with what
 * is left of its enclosing record before it is used: hostile input stops
 * the parse with a problem report, never an out-of-bounds read.
 */
#include "hprof/hr_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum hr_kind { HR_MEM, HR_MMAP, HR_FD, HR_GZ };

#define HR_READ_CHUNK (1u << 20)
#define HR_SKIP_CHUNK (256u << 10) /* scratch reads of hr_present */

/* a cut body still holds the fixed head of every record kind it decodes */
_Static_assert(HR_BODY_MAX >= 64, "HR_BODY_MAX below the longest fixed record head");

struct hr_source {
    enum hr_kind kind;
    /* whole-input kinds */
    const uint8_t *data;
    size_t size;
    /* streaming kinds */
    int fd;
    int owns_fd;
    gzFile gz;
    char *path;      /* for rewind (files) */
    off_t fd_start;  /* for rewind (an fd that can seek); -1 otherwise */
    uint8_t *win;    /* window; win[0] is at file offset win_off */
    size_t win_cap, win_len;
    uint64_t win_off;
    /* non-zero after hr_present read past the window: the stream is at this
     * offset, and the window's bytes stay valid until the next hr_need */
    uint64_t skip_to;
    uint8_t *scratch; /* HR_SKIP_CHUNK bytes, for hr_present */
    int eof;
    int ioerr;
    int is_gzip;
};

/* ------------------------------------------------------------- sources */

static hr_source *hr_src_new(enum hr_kind k)
{
    hr_source *s = calloc(1, sizeof *s);
    if (s) {
        s->kind = k;
        s->fd = -1;
        s->fd_start = -1;
    }
    return s;
}

hr_source *hr_source_memory(const void *data, size_t len)
{
    hr_source *s = hr_src_new(HR_MEM);
    if (s) {
        s->data = data;
        s->size = len;
        /* zlib's gz* API reads only fds: gzip in memory is refused by hr_parse */
        s->is_gzip = len >= 2 && s->data[0] == 0x1f && s->data[1] == 0x8b;
    }
    return s;
}

/* Opens `fd` as a stream (gzip detected from its first two bytes). */
static int hr_src_open_stream(hr_source *s, int fd)
{
    uint8_t magic[2];
    ssize_t r = 0;
    /* peek only on seekable fds; a pipe is read as a plain stream unless
     * it starts with the gzip magic, which the window handles below */
    if (lseek(fd, 0, SEEK_CUR) >= 0) {
        r = pread(fd, magic, 2, lseek(fd, 0, SEEK_CUR));
        if (r == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
            int d = dup(fd);
            if (d < 0)
                return errno;
            s->gz = gzdopen(d, "rb");
            if (!s->gz) {
                close(d);
                return ENOMEM;
            }
            gzbuffer(s->gz, 256 * 1024);
            s->kind = HR_GZ;
            s->is_gzip = 1;
        }
    }
    s->fd = fd;
    return 0;
}

hr_source *hr_source_fd(int fd, int *err)
{
    hr_source *s = hr_src_new(HR_FD);
    if (!s) {
        if (err)
            *err = ENOMEM;
        return NULL;
    }
    s->fd_start = lseek(fd, 0, SEEK_CUR);
    int e = hr_src_open_stream(s, fd);
    if (e) {
        free(s);
        if (err)
            *err = e;
        return NULL;
    }
    return s;
}

static int hr_src_open_path(hr_source *s)
{
    int fd = open(s->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        uint8_t magic[2] = {0, 0};
        ssize_t r = pread(fd, magic, 2, 0);
        if (!(r == 2 && magic[0] == 0x1f && magic[1] == 0x8b) && (uint64_t)st.st_size <= SIZE_MAX) {
            void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (m != MAP_FAILED) {
                madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
                close(fd);
                s->kind = HR_MMAP;
                s->data = m;
                s->size = (size_t)st.st_size;
                return 0;
            }
        }
    }
    s->kind = HR_FD;
    s->owns_fd = 1;
    int e = hr_src_open_stream(s, fd);
    if (e)
        close(fd);
    return e;
}

hr_source *hr_source_file(const char *path, int *err)
{
    if (strcmp(path, "-") == 0)
        return hr_source_fd(0, err);
    hr_source *s = hr_src_new(HR_FD);
    int e = ENOMEM;
    if (s && (s->path = strdup(path)) != NULL && (e = hr_src_open_path(s)) == 0)
        return s;
    if (s) {
        free(s->path);
        free(s);
    }
    if (err)
        *err = e;
    return NULL;
}

static void hr_src_release(hr_source *s)
{
    if (s->kind == HR_MMAP && s->data)
        munmap((void *)s->data, s->size);
    if (s->gz)
        gzclose(s->gz);
    if (s->owns_fd && s->fd >= 0)
        close(s->fd);
    s->gz = NULL;
    s->fd = -1;
    s->owns_fd = 0;
    s->data = NULL;
    s->size = 0;
    s->win_len = 0;
    s->win_off = 0;
    s->skip_to = 0;
    s->eof = 0;
    s->ioerr = 0;
}

int hr_source_rewind(hr_source *s)
{
    if (s->kind == HR_MEM) {
        return 0;
    }
    if (s->path) {
        hr_src_release(s);
        return hr_src_open_path(s) == 0 ? 0 : -1;
    }
    if (s->fd_start < 0)
        return -1; /* a pipe: what was read is gone */
    int fd = s->fd, owns = s->owns_fd;
    s->owns_fd = 0; /* the fd stays open; only the window and zlib go */
    hr_src_release(s);
    s->owns_fd = owns;
    s->kind = HR_FD;
    if (lseek(fd, s->fd_start, SEEK_SET) < 0 || hr_src_open_stream(s, fd) != 0) {
        s->fd = owns ? fd : -1; /* still closed with the source */
        return -1;
    }
    return 0;
}

int hr_source_is_gzip(const hr_source *s)
{
    return s->is_gzip;
}

void hr_source_close(hr_source *s)
{
    if (!s)
        return;
    hr_src_release(s);
    free(s->win);
    free(s->scratch);
    free(s->path);
    free(s);
}

/* Reads more bytes into the window; returns bytes read, 0 at EOF, -1 error. */
static ssize_t hr_src_read(hr_source *s, uint8_t *dst, size_t n)
{
    for (;;) {
        if (s->kind == HR_GZ) {
            unsigned k = n > (1u << 30) ? (1u << 30) : (unsigned)n;
            int r = gzread(s->gz, dst, k);
            if (r < 0) {
                s->ioerr = EIO;
                return -1;
            }
            return r;
        }
        ssize_t r = read(s->fd, dst, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            s->ioerr = errno;
        return r;
    }
}

/* Makes bytes [pos, pos + n) contiguous. Returns a pointer to pos, and in
 * *avail how many of the n bytes exist (fewer only at end of input or on a
 * read error). Bytes before `pos` may be discarded: the parser only moves
 * forward and never asks again for what lies before its current unit. */
static const uint8_t *hr_need(hr_source *s, uint64_t pos, uint64_t n, uint64_t *avail)
{
    if (s->kind == HR_MEM || s->kind == HR_MMAP) {
        if (pos >= s->size) {
            *avail = 0;
            return s->data + s->size;
        }
        uint64_t left = s->size - pos;
        *avail = left < n ? left : n;
        return s->data + pos;
    }
    if (s->skip_to) {
        /* hr_present read past the window: what it held is gone now */
        if (pos < s->skip_to) { /* cannot happen: forward-only parser */
            *avail = 0;
            s->ioerr = EINVAL;
            return s->win;
        }
        s->win_off = s->skip_to;
        s->win_len = 0;
        s->skip_to = 0;
    }
    if (pos < s->win_off) { /* cannot happen: forward-only parser */
        *avail = 0;
        s->ioerr = EINVAL;
        return s->win;
    }
    uint64_t rel = pos - s->win_off;
    if (rel < s->win_len && s->win_len - rel >= n) {
        *avail = n; /* fast path: already in the window */
        return s->win + rel;
    }
    if (rel >= s->win_len) {
        /* pos at or beyond the window: skip forward by reading */
        uint64_t skip = rel - s->win_len;
        s->win_off += s->win_len;
        s->win_len = 0;
        while (skip > 0 && !s->eof && !s->ioerr) {
            if (s->win_cap == 0) {
                s->win = malloc(HR_READ_CHUNK);
                if (!s->win) {
                    s->ioerr = ENOMEM;
                    break;
                }
                s->win_cap = HR_READ_CHUNK;
            }
            size_t k = skip < s->win_cap ? (size_t)skip : s->win_cap;
            ssize_t r = hr_src_read(s, s->win, k);
            if (r <= 0) {
                if (r == 0)
                    s->eof = 1;
                break;
            }
            s->win_off += (uint64_t)r;
            skip -= (uint64_t)r;
        }
        if (skip > 0) {
            *avail = 0;
            return s->win;
        }
    } else if (rel > 0) {
        /* compact only when the unit at pos does not fit: about once per
         * window's worth of input, not once per record */
        memmove(s->win, s->win + rel, s->win_len - (size_t)rel);
        s->win_len -= (size_t)rel;
        s->win_off = pos;
    }
    while (s->win_len < n && !s->eof && !s->ioerr) {
        if (s->win_cap - s->win_len < HR_READ_CHUNK / 4) {
            /* doubled as bytes arrive, never sized from `n` at once: n may
             * be a length a hostile file claims, and the window must cost
             * what the input really holds */
            uint64_t want = s->win_cap ? 2 * (uint64_t)s->win_cap : HR_READ_CHUNK;
            if (want > SIZE_MAX) {
                s->ioerr = ENOMEM;
                break;
            }
            uint8_t *nw = realloc(s->win, (size_t)want);
            if (!nw) {
                s->ioerr = ENOMEM;
                break;
            }
            s->win = nw;
            s->win_cap = (size_t)want;
        }
        ssize_t r = hr_src_read(s, s->win + s->win_len, s->win_cap - s->win_len);
        if (r < 0)
            break;
        if (r == 0) {
            s->eof = 1;
            break;
        }
        s->win_len += (size_t)r;
    }
    *avail = s->win_len < n ? s->win_len : n;
    return s->win;
}

/* How far the input reaches towards `end`: returns `end` when every byte
 * before it exists, else the input's length. The bytes are not kept: a
 * stream reads past its window through the scratch buffer (so a pointer
 * into the window stays valid until the next hr_need). Used to check that
 * a unit held only in part (longer than HR_BODY_MAX) is really all there. */
static uint64_t hr_present(hr_source *s, uint64_t end)
{
    if (s->kind == HR_MEM || s->kind == HR_MMAP)
        return end < s->size ? end : s->size;
    uint64_t at = s->skip_to ? s->skip_to : s->win_off + s->win_len;
    if (at >= end)
        return end;
    if (!s->scratch && !(s->scratch = malloc(HR_SKIP_CHUNK))) {
        s->ioerr = ENOMEM;
        return at;
    }
    while (at < end && !s->eof && !s->ioerr) {
        uint64_t left = end - at;
        ssize_t r = hr_src_read(s, s->scratch, left < HR_SKIP_CHUNK ? (size_t)left : HR_SKIP_CHUNK);
        if (r <= 0) {
            if (r == 0)
                s->eof = 1;
            break;
        }
        at += (uint64_t)r;
    }
    s->skip_to = at;
    return at;
}

/* ------------------------------------------------------------- decoding */

hprof_id hr_get_id(const uint8_t *p, unsigned id_size)
{
    return id_size == 4 ? hr_get_u4(p) : hr_get_u8(p);
}

hprof_id hr_trace_frame(const hr_record *r, unsigned id_size, uint32_t i)
{
    return hr_get_id(r->body + 12 + (size_t)i * id_size, id_size);
}

void hr_alloc_site_at(const hr_record *r, uint32_t i, hr_alloc_site *out)
{
    const uint8_t *p = r->body + 34 + (size_t)i * 25;
    out->array_type = p[0];
    out->class_serial = hr_get_u4(p + 1);
    out->trace_serial = hr_get_u4(p + 5);
    out->live_bytes = hr_get_u4(p + 9);
    out->live_instances = hr_get_u4(p + 13);
    out->alloc_bytes = hr_get_u4(p + 17);
    out->alloc_instances = hr_get_u4(p + 21);
}

void hr_cpu_sample_at(const hr_record *r, uint32_t i, uint32_t *count, uint32_t *trace_serial)
{
    const uint8_t *p = r->body + 8 + (size_t)i * 8;
    *count = hr_get_u4(p);
    *trace_serial = hr_get_u4(p + 4);
}

static uint64_t hr_get_value(const uint8_t *p, unsigned size)
{
    switch (size) {
    case 1: return p[0];
    case 2: return hr_get_u2(p);
    case 4: return hr_get_u4(p);
    default: return hr_get_u8(p);
    }
}

const uint8_t *hr_class_cp_next(const uint8_t *p, unsigned id_size, hr_cp_entry *out)
{
    out->index = hr_get_u2(p);
    out->type = p[2];
    unsigned ts = hprof_type_size(out->type, id_size);
    out->value = hr_get_value(p + 3, ts);
    return p + 3 + ts;
}

const uint8_t *hr_class_static_next(const uint8_t *p, unsigned id_size, hr_static *out)
{
    out->name_id = hr_get_id(p, id_size);
    out->type = p[id_size];
    unsigned ts = hprof_type_size(out->type, id_size);
    out->value = hr_get_value(p + id_size + 1, ts);
    return p + id_size + 1 + ts;
}

const uint8_t *hr_class_field_next(const uint8_t *p, unsigned id_size, hr_field *out)
{
    out->name_id = hr_get_id(p, id_size);
    out->type = p[id_size];
    return p + id_size + 1;
}

/* -------------------------------------------------------------- parsing */

typedef struct hr_parser {
    hr_source *src;
    const hr_callbacks *cb;
    void *ctx;
    hr_stats *st;
    unsigned idsz;
    int stopped;
    int fatal;
} hr_parser;

static void hr_problem(hr_parser *p, hr_severity sev, const char *kind, uint64_t off,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void hr_problem(hr_parser *p, hr_severity sev, const char *kind, uint64_t off,
                       const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->st)
        p->st->problems++;
    if (p->cb->on_problem)
        p->cb->on_problem(p->ctx, sev, kind, off, msg);
}

static void hr_truncated(hr_parser *p, uint64_t off, const char *what, uint64_t need,
                         uint64_t have)
{
    if (p->src->ioerr)
        hr_problem(p, HR_ERROR, "io", off, "read error inside %s at offset %llu: %s", what,
                   (unsigned long long)off, strerror(p->src->ioerr));
    else
        hr_problem(p, HR_ERROR, "truncated", off,
                   "file ends inside %s at offset %llu: %llu bytes needed, %llu present", what,
                   (unsigned long long)off, (unsigned long long)need, (unsigned long long)have);
    p->fatal = 1;
}

/* Expected body length of the fixed-layout records; 0 = variable. */
static uint64_t hr_fixed_len(unsigned tag, unsigned id)
{
    switch (tag) {
    case HPROF_TAG_LOAD_CLASS: return 8 + 2 * (uint64_t)id;
    case HPROF_TAG_UNLOAD_CLASS: return 4;
    case HPROF_TAG_FRAME: return 8 + 4 * (uint64_t)id;
    case HPROF_TAG_HEAP_SUMMARY: return 24;
    case HPROF_TAG_START_THREAD: return 8 + 4 * (uint64_t)id;
    case HPROF_TAG_END_THREAD: return 4;
    case HPROF_TAG_CONTROL_SETTINGS: return 6;
    default: return 0;
    }
}

/* How many bytes of a plain record's body the parser holds (see
 * hr_record.cut): all of a body up to HR_BODY_MAX; the first HR_BODY_MAX of
 * a longer one whose first entries are still of use; none of the others. */
static uint32_t hr_body_keep(unsigned tag, uint32_t length)
{
    if (length <= HR_BODY_MAX)
        return length;
    switch (tag) {
    case HPROF_TAG_UTF8:
    case HPROF_TAG_TRACE:
    case HPROF_TAG_ALLOC_SITES:
    case HPROF_TAG_CPU_SAMPLES: return HR_BODY_MAX;
    default: return 0;
    }
}

/* Decodes a plain record's body into r->u; returns 0 or -1 if the length
 * does not match its layout (reported). */
static int hr_decode(hr_parser *p, hr_record *r)
{
    const uint8_t *b = r->body;
    unsigned id = p->idsz;
    uint64_t fixed = hr_fixed_len(r->tag, id);
    const char *name = hprof_tag_name(r->tag);
    if (fixed && r->length != fixed) {
        hr_problem(p, HR_ERROR, "bad-length", r->offset,
                   "%s record at offset %llu has length %u; its layout needs %llu", name,
                   (unsigned long long)r->offset, r->length, (unsigned long long)fixed);
        r->malformed = 1;
        return -1;
    }
    uint64_t need = 0;
    switch (r->tag) {
    case HPROF_TAG_UTF8:
        if (r->length < id) {
            need = id;
            break;
        }
        r->u.utf8.id = hr_get_id(b, id);
        r->u.utf8.str = (const char *)b + id;
        r->u.utf8.len = r->body_len - id; /* cut: HR_BODY_MAX >= id */
        return 0;
    case HPROF_TAG_LOAD_CLASS:
        r->u.load_class.class_serial = hr_get_u4(b);
        r->u.load_class.class_id = hr_get_id(b + 4, id);
        r->u.load_class.trace_serial = hr_get_u4(b + 4 + id);
        r->u.load_class.name_id = hr_get_id(b + 8 + id, id);
        return 0;
    case HPROF_TAG_UNLOAD_CLASS:
        r->u.unload_class.class_serial = hr_get_u4(b);
        return 0;
    case HPROF_TAG_FRAME:
        r->u.frame.frame_id = hr_get_id(b, id);
        r->u.frame.method_name_id = hr_get_id(b + id, id);
        r->u.frame.method_sig_id = hr_get_id(b + 2 * id, id);
        r->u.frame.source_file_id = hr_get_id(b + 3 * id, id);
        r->u.frame.class_serial = hr_get_u4(b + 4 * id);
        r->u.frame.line = (int32_t)hr_get_u4(b + 4 * id + 4);
        return 0;
    case HPROF_TAG_TRACE:
        if (r->length < 12) {
            need = 12;
            break;
        }
        r->u.trace.trace_serial = hr_get_u4(b);
        r->u.trace.thread_serial = hr_get_u4(b + 4);
        r->u.trace.nframes = hr_get_u4(b + 8);
        need = 12 + (uint64_t)r->u.trace.nframes * id;
        if (need == r->length) {
            if (r->cut)
                r->u.trace.nframes = (r->body_len - 12) / id;
            return 0;
        }
        break;
    case HPROF_TAG_ALLOC_SITES:
        if (r->length < 34) {
            need = 34;
            break;
        }
        {
            uint32_t bits = hr_get_u4(b + 2);
            r->u.alloc_sites.flags = hr_get_u2(b);
            memcpy(&r->u.alloc_sites.cutoff, &bits, 4);
            r->u.alloc_sites.total_live_bytes = hr_get_u4(b + 6);
            r->u.alloc_sites.total_live_instances = hr_get_u4(b + 10);
            r->u.alloc_sites.total_alloc_bytes = hr_get_u8(b + 14);
            r->u.alloc_sites.total_alloc_instances = hr_get_u8(b + 22);
            r->u.alloc_sites.nsites = hr_get_u4(b + 30);
            need = 34 + (uint64_t)r->u.alloc_sites.nsites * 25;
            if (need == r->length) {
                if (r->cut)
                    r->u.alloc_sites.nsites = (r->body_len - 34) / 25;
                return 0;
            }
        }
        break;
    case HPROF_TAG_HEAP_SUMMARY:
        r->u.heap_summary.live_bytes = hr_get_u4(b);
        r->u.heap_summary.live_instances = hr_get_u4(b + 4);
        r->u.heap_summary.alloc_bytes = hr_get_u8(b + 8);
        r->u.heap_summary.alloc_instances = hr_get_u8(b + 16);
        return 0;
    case HPROF_TAG_START_THREAD:
        r->u.start_thread.thread_serial = hr_get_u4(b);
        r->u.start_thread.thread_id = hr_get_id(b + 4, id);
        r->u.start_thread.trace_serial = hr_get_u4(b + 4 + id);
        r->u.start_thread.name_id = hr_get_id(b + 8 + id, id);
        r->u.start_thread.group_name_id = hr_get_id(b + 8 + 2 * id, id);
        r->u.start_thread.parent_group_name_id = hr_get_id(b + 8 + 3 * id, id);
        return 0;
    case HPROF_TAG_END_THREAD:
        r->u.end_thread.thread_serial = hr_get_u4(b);
        return 0;
    case HPROF_TAG_CPU_SAMPLES:
        if (r->length < 8) {
            need = 8;
            break;
        }
        r->u.cpu_samples.total = hr_get_u4(b);
        r->u.cpu_samples.ntraces = hr_get_u4(b + 4);
        need = 8 + (uint64_t)r->u.cpu_samples.ntraces * 8;
        if (need == r->length) {
            if (r->cut)
                r->u.cpu_samples.ntraces = (r->body_len - 8) / 8;
            return 0;
        }
        break;
    case HPROF_TAG_CONTROL_SETTINGS:
        r->u.control.flags = hr_get_u4(b);
        r->u.control.depth = hr_get_u2(b + 4);
        return 0;
    default:
        return 0;
    }
    hr_problem(p, HR_ERROR, "bad-length", r->offset,
               "%s record at offset %llu has length %u; its contents need %llu", name,
               (unsigned long long)r->offset, r->length, (unsigned long long)need);
    memset(&r->u, 0, sizeof r->u);
    r->malformed = 1;
    return -1;
}

/* Size of the sub-record at `pos` (tag included), reading as much of it as
 * its layout requires; `limit` is the end of the enclosing record. Returns
 * 0 and sets *size, or -1 after reporting (truncation, bad type, crossing). */
static int hr_sub_size(hr_parser *p, uint64_t pos, uint64_t limit, uint8_t tag, uint64_t *size)
{
    unsigned id = p->idsz;
    uint64_t fixed;
    switch (tag) {
    case HPROF_GC_ROOT_UNKNOWN:
    case HPROF_GC_ROOT_STICKY_CLASS:
    case HPROF_GC_ROOT_MONITOR_USED:
    case HPROF_GC_ROOT_INTERNED_STRING:
    case HPROF_GC_ROOT_FINALIZING:
    case HPROF_GC_ROOT_DEBUGGER:
    case HPROF_GC_ROOT_REFERENCE_CLEANUP:
    case HPROF_GC_ROOT_VM_INTERNAL:
    case HPROF_GC_ROOT_UNREACHABLE: *size = 1 + id; return 0;
    case HPROF_GC_ROOT_JNI_GLOBAL: *size = 1 + 2 * (uint64_t)id; return 0;
    case HPROF_GC_ROOT_JNI_LOCAL:
    case HPROF_GC_ROOT_JAVA_FRAME:
    case HPROF_GC_ROOT_JNI_MONITOR:
    case HPROF_GC_ROOT_THREAD_OBJ: *size = 1 + id + 8; return 0;
    case HPROF_GC_ROOT_NATIVE_STACK:
    case HPROF_GC_ROOT_THREAD_BLOCK: *size = 1 + id + 4; return 0;
    case HPROF_GC_HEAP_DUMP_INFO: *size = 1 + 4 + id; return 0;
    case HPROF_GC_INSTANCE_DUMP: fixed = 1 + HPROF_INSTANCE_DUMP_FIXED(id); break;
    case HPROF_GC_OBJ_ARRAY_DUMP: fixed = 1 + HPROF_OBJ_ARRAY_DUMP_FIXED(id); break;
    case HPROF_GC_PRIM_ARRAY_DUMP: fixed = 1 + HPROF_PRIM_ARRAY_DUMP_FIXED(id); break;
    case HPROF_GC_CLASS_DUMP: fixed = 1 + HPROF_CLASS_DUMP_FIXED(id) + 2; break;
    default: return -2; /* unknown: the caller reports it */
    }
    /* variable-size sub-records: read their fixed part first */
    if (fixed > limit - pos) {
        *size = fixed;
        return -3; /* crosses the record end */
    }
    uint64_t avail;
    const uint8_t *b = hr_need(p->src, pos, fixed, &avail);
    if (avail < fixed) {
        hr_truncated(p, pos, hprof_sub_name(tag), fixed, avail);
        return -1;
    }
    switch (tag) {
    case HPROF_GC_INSTANCE_DUMP:
        *size = fixed + hr_get_u4(b + 1 + 2 * id + 4);
        return 0;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        *size = fixed + (uint64_t)hr_get_u4(b + 1 + id + 4) * id;
        return 0;
    case HPROF_GC_PRIM_ARRAY_DUMP: {
        uint8_t t = b[1 + id + 8];
        if (!hprof_type_is_primitive(t)) {
            hr_problem(p, HR_ERROR, "bad-type", pos,
                       "PRIM ARRAY DUMP at offset %llu has element type %u, not a primitive type",
                       (unsigned long long)pos, t);
            return -1;
        }
        *size = fixed + (uint64_t)hr_get_u4(b + 1 + id + 4) * hprof_type_size(t, id);
        return 0;
    }
    default:
        break;
    }
    /* CLASS DUMP: walk constant pool, statics, fields; each count, each
     * type byte and each value is checked to lie inside the record */
    uint64_t off = fixed; /* at the constant pool count */
    uint64_t n = hr_get_u2(b + fixed - 2);
    for (int part = 0; part < 3; part++) {
        unsigned head = part == 0 ? 3u : id + 1u; /* bytes up to and incl. the type */
        for (uint64_t i = 0; i < n; i++) {
            if (off + head > limit - pos) {
                *size = off + head;
                return -3;
            }
            b = hr_need(p->src, pos, off + head, &avail);
            if (avail < off + head) {
                hr_truncated(p, pos, "CLASS DUMP", off + head, avail);
                return -1;
            }
            uint8_t t = b[off + head - 1];
            unsigned ts = hprof_type_size(t, id);
            if (!ts) {
                hr_problem(p, HR_ERROR, "bad-type", pos + off + head - 1,
                           "CLASS DUMP 0x%llx at offset %llu: %s %llu has type %u, not a basic type",
                           (unsigned long long)hr_get_id(b + 1, id), (unsigned long long)pos,
                           part == 0 ? "constant pool entry" : part == 1 ? "static field" : "instance field",
                           (unsigned long long)i, t);
                return -1;
            }
            off += head + (part == 2 ? 0 : ts);
        }
        if (part < 2) {
            if (off + 2 > limit - pos) {
                *size = off + 2;
                return -3;
            }
            b = hr_need(p->src, pos, off + 2, &avail);
            if (avail < off + 2) {
                hr_truncated(p, pos, "CLASS DUMP", off + 2, avail);
                return -1;
            }
            n = hr_get_u2(b + off);
            off += 2;
        }
    }
    *size = off;
    return 0;
}

static void hr_fill_sub(hr_parser *p, hr_sub *s)
{
    const uint8_t *b = s->body;
    unsigned id = p->idsz;
    switch (s->tag) {
    case HPROF_GC_ROOT_JNI_GLOBAL:
        s->u.root.id = hr_get_id(b, id);
        s->u.root.ref = hr_get_id(b + id, id);
        break;
    case HPROF_GC_ROOT_JNI_LOCAL:
    case HPROF_GC_ROOT_JAVA_FRAME:
    case HPROF_GC_ROOT_JNI_MONITOR:
    case HPROF_GC_ROOT_THREAD_OBJ:
        s->u.root.id = hr_get_id(b, id);
        s->u.root.thread_serial = hr_get_u4(b + id);
        s->u.root.frame = hr_get_u4(b + id + 4);
        break;
    case HPROF_GC_ROOT_NATIVE_STACK:
    case HPROF_GC_ROOT_THREAD_BLOCK:
        s->u.root.id = hr_get_id(b, id);
        s->u.root.thread_serial = hr_get_u4(b + id);
        break;
    case HPROF_GC_HEAP_DUMP_INFO:
        s->u.root.thread_serial = hr_get_u4(b);
        s->u.root.id = hr_get_id(b + 4, id);
        break;
    case HPROF_GC_CLASS_DUMP: {
        s->u.cls.class_id = hr_get_id(b, id);
        s->u.cls.trace_serial = hr_get_u4(b + id);
        const uint8_t *q = b + id + 4;
        s->u.cls.super_id = hr_get_id(q, id);
        s->u.cls.loader_id = hr_get_id(q + id, id);
        s->u.cls.signers_id = hr_get_id(q + 2 * id, id);
        s->u.cls.protection_domain_id = hr_get_id(q + 3 * id, id);
        s->u.cls.reserved1 = hr_get_id(q + 4 * id, id);
        s->u.cls.reserved2 = hr_get_id(q + 5 * id, id);
        q += 6 * id;
        s->u.cls.instance_size = hr_get_u4(q);
        q += 4;
        s->u.cls.ncp = hr_get_u2(q);
        q += 2;
        s->u.cls.cp = q;
        for (unsigned i = 0; i < s->u.cls.ncp; i++)
            q += 3 + hprof_type_size(q[2], id);
        s->u.cls.nstatics = hr_get_u2(q);
        q += 2;
        s->u.cls.statics = q;
        for (unsigned i = 0; i < s->u.cls.nstatics; i++)
            q += id + 1 + hprof_type_size(q[id], id);
        s->u.cls.nfields = hr_get_u2(q);
        q += 2;
        s->u.cls.fields = q;
        break;
    }
    case HPROF_GC_INSTANCE_DUMP:
        s->u.inst.id = hr_get_id(b, id);
        s->u.inst.trace_serial = hr_get_u4(b + id);
        s->u.inst.class_id = hr_get_id(b + id + 4, id);
        s->u.inst.nbytes = hr_get_u4(b + 2 * id + 4);
        s->u.inst.values = b + 2 * id + 8;
        break;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        s->u.oarr.id = hr_get_id(b, id);
        s->u.oarr.trace_serial = hr_get_u4(b + id);
        s->u.oarr.n = hr_get_u4(b + id + 4);
        s->u.oarr.class_id = hr_get_id(b + id + 8, id);
        s->u.oarr.elems = b + 2 * id + 8;
        s->u.oarr.count = s->u.oarr.n;
        break;
    case HPROF_GC_PRIM_ARRAY_DUMP:
        s->u.parr.id = hr_get_id(b, id);
        s->u.parr.trace_serial = hr_get_u4(b + id);
        s->u.parr.n = hr_get_u4(b + id + 4);
        s->u.parr.type = b[id + 8];
        s->u.parr.elems = b + id + 9;
        break;
    default: /* one-id roots */
        s->u.root.id = hr_get_id(b, id);
        break;
    }
}

/* Skips the rest of a heap dump record after a problem, from `pos` to its
 * `end`, checking that those bytes exist: a record that claims more than
 * the file holds is truncation, not a clean end. Returns 0 or -1 (fatal). */
static int hr_skip_rest(hr_parser *p, const hr_record *r, uint64_t pos, uint64_t end)
{
    if (end <= pos)
        return 0;
    uint64_t avail;
    hr_need(p->src, end - 1, 1, &avail);
    if (avail < 1) {
        hr_truncated(p, r->offset, hprof_tag_name(r->tag), HPROF_RECORD_HEADER_SIZE + (uint64_t)r->length,
                     0);
        return -1;
    }
    return 0;
}

/* Delivers the OBJECT ARRAY DUMP at `pos` (`size` bytes, its elements
 * longer than HR_BODY_MAX) in parts of at most HR_BODY_MAX bytes of
 * elements (hr_sub.part): its readers need every element (print lists
 * them, the verifier resolves them), and holding them all would let a
 * file choose the reader's memory. Returns 0, or -1 to stop. */
static int hr_obj_array_parts(hr_parser *p, const hr_record *r, uint64_t pos, uint64_t size)
{
    unsigned id = p->idsz;
    uint64_t fixed = 1 + HPROF_OBJ_ARRAY_DUMP_FIXED(id), avail;
    uint32_t per = HR_BODY_MAX / id; /* elements per part */
    /* all bytes at hand (memory, a mapped file): an array the file cuts is
     * refused whole, as any other sub-record; a stream cannot know before */
    if ((p->src->kind == HR_MEM || p->src->kind == HR_MMAP) &&
        hr_present(p->src, pos + size) < pos + size) {
        hr_truncated(p, pos, hprof_sub_name(HPROF_GC_OBJ_ARRAY_DUMP), size,
                     hr_present(p->src, pos + size) - pos);
        return -1;
    }
    const uint8_t *b = hr_need(p->src, pos, fixed + (uint64_t)per * id, &avail);
    if (avail < fixed + (uint64_t)per * id) {
        hr_truncated(p, pos, hprof_sub_name(HPROF_GC_OBJ_ARRAY_DUMP), size, avail);
        return -1;
    }
    if (p->st) {
        p->st->subs[HPROF_GC_OBJ_ARRAY_DUMP]++;
        p->st->sub_bytes[HPROF_GC_OBJ_ARRAY_DUMP] += size;
    }
    hr_sub s;
    memset(&s, 0, sizeof s);
    s.tag = HPROF_GC_OBJ_ARRAY_DUMP;
    s.length = (uint32_t)size;
    s.offset = pos;
    s.record_offset = r->offset;
    s.body = b + 1;
    hr_fill_sub(p, &s);
    uint32_t n = s.u.oarr.n;
    for (uint32_t first = 0; first < n; first += s.u.oarr.count, s.part++) {
        uint32_t k = n - first < per ? n - first : per;
        if (first) {
            uint64_t at = pos + fixed + (uint64_t)first * id;
            b = hr_need(p->src, at, (uint64_t)k * id, &avail);
            if (avail < (uint64_t)k * id) {
                hr_truncated(p, pos, hprof_sub_name(HPROF_GC_OBJ_ARRAY_DUMP), size, at - pos + avail);
                return -1;
            }
            s.body = NULL;
            s.u.oarr.elems = b;
        }
        s.u.oarr.first = first;
        s.u.oarr.count = k;
        if (p->cb->on_sub && p->cb->on_sub(p->ctx, &s)) {
            p->stopped = 1;
            return -1;
        }
    }
    return 0;
}

/* Parses the sub-records of the heap dump record `r` whose body spans
 * [start, end). Returns 0 to go on with the next record, -1 to stop. */
static int hr_parse_heap(hr_parser *p, const hr_record *r, uint64_t start, uint64_t end)
{
    uint64_t pos = start;
    while (pos < end) {
        uint64_t avail;
        const uint8_t *b = hr_need(p->src, pos, 1, &avail);
        if (avail < 1) {
            hr_truncated(p, pos, hprof_tag_name(r->tag), end - pos, 0);
            return -1;
        }
        uint8_t tag = b[0];
        uint64_t size = 0;
        int rc = hr_sub_size(p, pos, end, tag, &size);
        if (rc == -1) /* bad type: skip the rest of this record */
            return p->fatal ? -1 : hr_skip_rest(p, r, pos, end);
        if (rc == -2) {
            hr_problem(p, HR_ERROR, "unknown-subtag", pos,
                       "unknown heap sub-record tag 0x%02X at offset %llu in the %s at offset %llu; "
                       "sub-records carry no length, so the rest of this record (%llu bytes) is skipped",
                       tag, (unsigned long long)pos, hprof_tag_name(r->tag),
                       (unsigned long long)r->offset, (unsigned long long)(end - pos));
            return hr_skip_rest(p, r, pos, end);
        }
        if (rc == -3 || size > end - pos) {
            hr_problem(p, HR_ERROR, "crosses-segment", pos,
                       "%s at offset %llu needs %llu bytes but only %llu remain in the %s at "
                       "offset %llu: a sub-record crosses its record boundary",
                       hprof_sub_name(tag), (unsigned long long)pos, (unsigned long long)size,
                       (unsigned long long)(end - pos), hprof_tag_name(r->tag),
                       (unsigned long long)r->offset);
            return hr_skip_rest(p, r, pos, end);
        }
        if (tag == HPROF_GC_OBJ_ARRAY_DUMP && size - (1 + HPROF_OBJ_ARRAY_DUMP_FIXED(p->idsz)) > HR_BODY_MAX) {
            if (hr_obj_array_parts(p, r, pos, size) != 0)
                return -1;
            pos += size;
            continue;
        }
        /* a primitive array's elements are held up to HR_BODY_MAX bytes: no
         * reader of them needs more, and real dumps hold 100 MB byte[]s */
        uint64_t hold = size, pfixed = 1 + HPROF_PRIM_ARRAY_DUMP_FIXED(p->idsz);
        if (tag == HPROF_GC_PRIM_ARRAY_DUMP && size - pfixed > HR_BODY_MAX)
            hold = pfixed + HR_BODY_MAX;
        b = hr_need(p->src, pos, hold, &avail);
        if (avail < hold) {
            hr_truncated(p, pos, hprof_sub_name(tag), size, avail);
            return -1;
        }
        if (hold < size) {
            uint64_t reach = hr_present(p->src, pos + size);
            if (reach < pos + size) {
                hr_truncated(p, pos, hprof_sub_name(tag), size, reach - pos);
                return -1;
            }
        }
        if (p->st) {
            p->st->subs[tag]++;
            p->st->sub_bytes[tag] += size;
        }
        if (p->cb->on_sub) {
            hr_sub s;
            memset(&s, 0, sizeof s);
            s.tag = tag;
            s.cut = hold < size;
            s.length = (uint32_t)size;
            s.offset = pos;
            s.record_offset = r->offset;
            s.body = b + 1;
            hr_fill_sub(p, &s);
            if (p->cb->on_sub(p->ctx, &s)) {
                p->stopped = 1;
                return -1;
            }
        }
        pos += size;
    }
    return 0;
}

static int hr_parse_header(hr_parser *p, hr_header *h)
{
    uint64_t avail;
    const uint8_t *b = hr_need(p->src, 0, HPROF_HEADER_SIZE, &avail);
    memset(h, 0, sizeof *h);
    size_t nul = 0;
    while (nul < avail && nul < sizeof h->magic - 1 && b[nul])
        nul++;
    memcpy(h->magic, b, nul);
    h->magic[nul] = 0;
    if (avail < HPROF_HEADER_SIZE) {
        hr_problem(p, HR_ERROR, "truncated", 0,
                   "file is %llu bytes long, shorter than the %u-byte HPROF header",
                   (unsigned long long)avail, HPROF_HEADER_SIZE);
        return -1;
    }
    if (b[HPROF_MAGIC_LEN] != 0) {
        hr_problem(p, HR_ERROR, "bad-header", 0,
                   "not an HPROF file: the header does not start with \"JAVA PROFILE 1.0.x\\0\"");
        return -1;
    }
    if (strcmp(h->magic, HPROF_MAGIC_1_0_1) == 0)
        h->version = HPROF_VERSION_1_0_1;
    else if (strcmp(h->magic, HPROF_MAGIC_1_0_2) == 0)
        h->version = HPROF_VERSION_1_0_2;
    else if (strcmp(h->magic, HPROF_MAGIC_1_0_3) == 0)
        h->version = HPROF_VERSION_1_0_3;
    else {
        hr_problem(p, HR_ERROR, "bad-header", 0,
                   "unknown format string \"%.18s\" (expected JAVA PROFILE 1.0.1, 1.0.2 or 1.0.3)",
                   h->magic);
        return -1;
    }
    h->id_size = hr_get_u4(b + HPROF_MAGIC_LEN + 1);
    h->timestamp_ms = hr_get_u8(b + HPROF_MAGIC_LEN + 5);
    if (h->id_size != 4 && h->id_size != 8) {
        hr_problem(p, HR_ERROR, "bad-header", HPROF_MAGIC_LEN + 1,
                   "identifier size %u is not supported (4 or 8)", h->id_size);
        return -1;
    }
    return 0;
}

hr_status hr_parse(hr_source *src, const hr_callbacks *cb, void *ctx, hr_stats *st)
{
    static const hr_callbacks none;
    hr_parser p = {.src = src, .cb = cb ? cb : &none, .ctx = ctx, .st = st};
    if (st)
        memset(st, 0, sizeof *st);
    if (src->kind == HR_MEM && src->is_gzip) {
        hr_problem(&p, HR_ERROR, "bad-header", 0,
                   "gzip data in memory: decompress it first or read it from a file or fd");
        return HR_MALFORMED;
    }
    hr_header h;
    if (hr_parse_header(&p, &h) != 0)
        return src->ioerr ? HR_IO : HR_MALFORMED;
    p.idsz = h.id_size;
    if (st)
        st->bytes = HPROF_HEADER_SIZE;
    if (p.cb->on_header && p.cb->on_header(ctx, &h))
        return HR_STOPPED;
    uint64_t pos = HPROF_HEADER_SIZE;
    for (;;) {
        uint64_t avail;
        const uint8_t *b = hr_need(src, pos, HPROF_RECORD_HEADER_SIZE, &avail);
        if (avail == 0 && !src->ioerr)
            break; /* clean end */
        if (avail < HPROF_RECORD_HEADER_SIZE) {
            hr_truncated(&p, pos, "a record header", HPROF_RECORD_HEADER_SIZE, avail);
            break;
        }
        hr_record r;
        memset(&r, 0, sizeof r);
        r.tag = b[0];
        r.time_us = hr_get_u4(b + 1);
        r.length = hr_get_u4(b + 5);
        r.offset = pos;
        uint64_t body = pos + HPROF_RECORD_HEADER_SIZE;
        uint64_t end = body + r.length;
        const char *name = hprof_tag_name(r.tag);
        int heap = r.tag == HPROF_TAG_HEAP_DUMP || r.tag == HPROF_TAG_HEAP_DUMP_SEGMENT;
        if (st && heap) { /* counted when opened: its sub-records follow */
            st->records[r.tag]++;
            st->record_bytes[r.tag] += HPROF_RECORD_HEADER_SIZE + (uint64_t)r.length;
        }
        if (heap) {
            if (p.cb->on_record && p.cb->on_record(ctx, &r)) {
                p.stopped = 1;
                break;
            }
            if (hr_parse_heap(&p, &r, body, end) != 0)
                break;
            if (p.cb->on_record_end && p.cb->on_record_end(ctx, &r)) {
                p.stopped = 1;
                break;
            }
            pos = end;
            if (st)
                st->bytes = pos;
            continue;
        }
        uint64_t whole = HPROF_RECORD_HEADER_SIZE + (uint64_t)r.length;
        r.body_len = hr_body_keep(r.tag, r.length);
        r.cut = r.body_len < r.length;
        b = hr_need(src, pos, HPROF_RECORD_HEADER_SIZE + (uint64_t)r.body_len, &avail);
        if (avail < HPROF_RECORD_HEADER_SIZE + (uint64_t)r.body_len) {
            hr_truncated(&p, pos, name ? name : "a record", whole, avail);
            break;
        }
        if (r.cut) {
            uint64_t reach = hr_present(src, end);
            if (reach < end) {
                hr_truncated(&p, pos, name ? name : "a record", whole, reach - pos);
                break;
            }
        }
        r.body = b + HPROF_RECORD_HEADER_SIZE;
        if (st) {
            st->records[r.tag]++;
            st->record_bytes[r.tag] += HPROF_RECORD_HEADER_SIZE + (uint64_t)r.length;
        }
        if (!name) {
            hr_problem(&p, HR_WARNING, "unknown-tag", pos,
                       "unknown record tag 0x%02X at offset %llu (%u bytes) skipped", r.tag,
                       (unsigned long long)pos, r.length);
        } else if (r.tag == HPROF_TAG_HEAP_DUMP_END && r.length != 0) {
            hr_problem(&p, HR_WARNING, "bad-length", pos,
                       "HEAP DUMP END at offset %llu has length %u; it should be empty",
                       (unsigned long long)pos, r.length);
        } else if (hr_decode(&p, &r) == 0 && r.cut) {
            hr_problem(&p, HR_WARNING, "long-record", pos,
                       "%s record at offset %llu is %u bytes long; only its first %u bytes are "
                       "read (%s)",
                       name, (unsigned long long)pos, r.length, r.body_len,
                       r.tag == HPROF_TAG_UTF8 ? "the string is cut" : "the entries after them are left out");
        }
        if (p.cb->on_record && p.cb->on_record(ctx, &r)) {
            p.stopped = 1;
            break;
        }
        pos = end;
        if (st)
            st->bytes = pos;
    }
    if (p.stopped)
        return HR_STOPPED;
    if (p.fatal)
        return src->ioerr ? HR_IO : HR_MALFORMED;
    return HR_OK;
}
