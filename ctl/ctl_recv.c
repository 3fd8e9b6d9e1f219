/*
 * ctl_recv.c: one agent's stream into its files, shown as it arrives
 * (ctl_recv.h).
 */
#include "ctl_recv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl_rec.h"
#include "ctl_scan.h"
#include "ctl_util.h"
#include "hprof/hprof_format.h"
#include "hprof/hr_reader.h"
#include "hprof/hw_writer.h"

#define CTL_COPY_CHUNK (1u << 20) /* re-reading the main file for a FILE.N prelude */

/* Where the bytes of the current record go. */
#define CTL_DEST_MAIN 1u /* the agent's file */
#define CTL_DEST_DUMP 2u /* the open FILE.N (heap dumps 2, 3, ...) */

typedef struct ctl_file {
    int fd; /* -1: not open */
    char *path;
    int failed; /* a write failed: reported once, nothing more written */
} ctl_file;

typedef enum ctl_phase {
    PH_MAGIC,      /* the first HPROF_MAGIC_LEN + 1 bytes: which format */
    PH_HEADER,     /* the rest of the binary header (id size, timestamp) */
    PH_REC_HEADER, /* a record header, possibly across reads */
    PH_REC_BODY,
    PH_TEXT, /* the text layout (or any text): shown line by line */
    PH_RAW   /* not understood: written as is, not shown */
} ctl_phase;

/* A byte range of the main file (a piece of heap dump 1). */
typedef struct ctl_range {
    uint64_t start, end;
} ctl_range;

struct ctl_recv {
    unsigned k; /* 1-based, in accept order */
    ctl_show *show;
    int *status;
    ctl_file main;
    ctl_phase phase;
    int binary;
    unsigned idsz;
    uint8_t head[HPROF_HEADER_SIZE];
    unsigned head_len;
    uint64_t bytes, records;

    /* the current record */
    uint8_t rh[HPROF_RECORD_HEADER_SIZE];
    unsigned rh_len;
    uint8_t tag;
    uint32_t rec_len;
    uint64_t rec_left;
    unsigned dest;
    int rec_is_dump;
    uint8_t *rec; /* the kept body of a small record */
    size_t rec_keep, rec_have, rec_cap;
    uint64_t range_start;

    /* heap dumps */
    int dump_open, dump_single;
    unsigned ndumps;
    ctl_file dump; /* FILE.N for dumps 2, 3, ... */
    uint64_t dump_records, dump_bytes;
    ctl_scan scan;
    ctl_range *ranges; /* where heap dump 1 sits in the main file */
    size_t nranges, cap_ranges;
    int ranges_lost; /* out of memory: FILE.N cannot leave dump 1 out */
    uint64_t main_off; /* bytes sent to the main file so far */

    /* what is shown, and the names it needs */
    ctl_rec view;

    /* text streams */
    char line[CTL_LINE_MAX];
    size_t line_len;
    uint64_t lines;

    /* pending output: a run of bytes with one destination */
    const uint8_t *span;
    size_t span_len;
    unsigned span_dest;
};

ctl_recv *ctl_recv_new(unsigned k, ctl_show *show, int *status)
{
    ctl_recv *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (ctl_rec_init(&c->view, k, show) != 0) {
        free(c);
        return NULL;
    }
    c->k = k;
    c->show = show;
    c->status = status;
    c->main.fd = c->dump.fd = -1;
    c->idsz = 8; /* text streams: the protocol's default id size */
    return c;
}

static void ctl_recv_say(ctl_recv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ctl_recv_say(ctl_recv *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ctl_show_vline(c->show, c->k, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------ files */

static void ctl_recv_file_fail(ctl_recv *c, ctl_file *f, int err)
{
    if (!f->failed)
        ctl_util_err("cannot write %s: %s", f->path, strerror(err));
    f->failed = 1;
    *c->status = CTL_EXIT_ERROR;
}

/* Opens an agent's file by libhprofwriter's rules for output files
 * (hw_file_create, hw_writer.h): mode 0600 (a profile holds what the
 * program held), never through a symbolic link, never someone else's file
 * (or a hard link to it) truncated. An agent's main file is overwritten
 * when it is a regular file of ours, like the agent's output with force=y;
 * heap dumps 2, 3, ... (`fresh`) always go to files created here (O_EXCL),
 * a previous run's file of ours being removed first. */
static int ctl_recv_file_open(ctl_recv *c, ctl_file *f, char *path, int fresh)
{
    f->path = path;
    f->failed = 0;
    /* read-write: heap dump 2's prelude is re-read from the main file */
    int err = 0;
    char why[256];
    f->fd = hw_file_create(path, HW_FILE_READ | (fresh ? HW_FILE_FRESH : 0), &err, why, sizeof why);
    if (f->fd < 0) {
        ctl_util_err("cannot write %s: %s", path, why);
        f->failed = 1;
        *c->status = CTL_EXIT_ERROR;
        return -1;
    }
    return 0;
}

static void ctl_recv_file_write(ctl_recv *c, ctl_file *f, const uint8_t *p, size_t n)
{
    if (f->fd < 0 || f->failed)
        return;
    while (n) {
        ssize_t w = write(f->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            ctl_recv_file_fail(c, f, errno);
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static void ctl_recv_file_close(ctl_recv *c, ctl_file *f)
{
    if (f->fd >= 0 && close(f->fd) != 0)
        ctl_recv_file_fail(c, f, errno);
    f->fd = -1;
    free(f->path);
    f->path = NULL;
}

char *ctl_recv_path(const char *out, unsigned k)
{
    size_t n = strlen(out) + 24;
    char *p = malloc(n);
    if (!p)
        return NULL;
    if (k == 1) {
        memcpy(p, out, strlen(out) + 1);
        return p;
    }
    const char *base = strrchr(out, '/');
    base = base ? base + 1 : out;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base) /* no extension (".hidden" is a name, not one) */
        snprintf(p, n, "%s-%u", out, k);
    else
        snprintf(p, n, "%.*s-%u%s", (int)(dot - out), out, k, dot);
    return p;
}



/* Writes the pending span to its destinations. */
static void ctl_recv_flush(ctl_recv *c)
{
    if (!c->span_len)
        return;
    if (c->span_dest & CTL_DEST_MAIN)
        ctl_recv_file_write(c, &c->main, c->span, c->span_len);
    if (c->span_dest & CTL_DEST_DUMP)
        ctl_recv_file_write(c, &c->dump, c->span, c->span_len);
    c->span_len = 0;
}

/* Queues bytes for dest. Consecutive bytes of the read buffer with the same
 * destination become one write(2). */
static void ctl_recv_out(ctl_recv *c, unsigned dest, const uint8_t *p, size_t n)
{
    if (!n)
        return;
    if (dest & CTL_DEST_MAIN)
        c->main_off += n;
    if (c->span_len && c->span_dest == dest && c->span + c->span_len == p) {
        c->span_len += n;
        return;
    }
    ctl_recv_flush(c);
    c->span = p;
    c->span_len = n;
    c->span_dest = dest;
}

/* ------------------------------------------------------------ heap dumps */

static void ctl_recv_range_add(ctl_recv *c, uint64_t start, uint64_t end)
{
    if (c->nranges && c->ranges[c->nranges - 1].end == start) {
        c->ranges[c->nranges - 1].end = end;
        return;
    }
    if (c->nranges == c->cap_ranges) {
        size_t cap = c->cap_ranges ? 2 * c->cap_ranges : 16;
        ctl_range *r = realloc(c->ranges, cap * sizeof *r);
        if (!r) {
            c->ranges_lost = 1;
            return;
        }
        c->ranges = r;
        c->cap_ranges = cap;
    }
    c->ranges[c->nranges++] = (ctl_range){ start, end };
}

/* Copies [start, end) of the main file into the dump file. */
static int ctl_recv_copy_range(ctl_recv *c, uint8_t *buf, uint64_t start, uint64_t end)
{
    while (start < end) {
        size_t want = end - start < CTL_COPY_CHUNK ? (size_t)(end - start) : CTL_COPY_CHUNK;
        ssize_t r = pread(c->main.fd, buf, want, (off_t)start);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            ctl_util_err("cannot read %s back for %s: %s", c->main.path, c->dump.path,
                         r < 0 ? strerror(errno) : "it is shorter than written");
            return -1;
        }
        ctl_recv_file_write(c, &c->dump, buf, (size_t)r);
        start += (uint64_t)r;
    }
    return 0;
}

/* FILE.N gets what the main file holds minus heap dump 1: the header and
 * every non-dump record received so far, so it is complete on its own.
 * Returns 0, or -1 once the reason is reported. */
static int ctl_recv_dump_prelude(ctl_recv *c)
{
    uint8_t *buf = c->ranges_lost ? NULL : malloc(CTL_COPY_CHUNK);
    if (!buf) {
        ctl_util_err("%s: out of memory", c->dump.path);
        return -1;
    }
    uint64_t pos = 0;
    int rc = 0;
    for (size_t i = 0; i < c->nranges && rc == 0; i++) {
        rc = ctl_recv_copy_range(c, buf, pos, c->ranges[i].start);
        pos = c->ranges[i].end;
    }
    if (rc == 0)
        rc = ctl_recv_copy_range(c, buf, pos, c->main_off);
    free(buf);
    return rc == 0 && !c->dump.failed ? 0 : -1;
}

static void ctl_recv_dump_start(ctl_recv *c, int single)
{
    c->dump_open = 1;
    c->dump_single = single;
    c->ndumps++;
    c->dump_records = c->dump_bytes = 0;
    ctl_scan_init(&c->scan, c->idsz);
    if (c->ndumps < 2)
        return;
    if (!c->main.path) { /* never opened (ctl_recv_open): no file to split */
        c->dump = (ctl_file){ -1, NULL, 1 };
        return;
    }
    ctl_recv_flush(c); /* the main file is read back for the prelude */
    size_t n = strlen(c->main.path) + 16;
    char *path = malloc(n);
    c->dump = (ctl_file){ -1, path, 1 }; /* failed until its prelude is in */
    if (!path) {
        ctl_util_err("out of memory: heap dump %u not written", c->ndumps);
        *c->status = CTL_EXIT_ERROR;
        return;
    }
    snprintf(path, n, "%s.%u", c->main.path, c->ndumps);
    ctl_recv_say(c, "heap dump %u: %s", c->ndumps, path);
    if (c->main.fd < 0 || c->main.failed) {
        ctl_util_err("%s not written: it would start with what %s holds, which could not be "
                     "written",
                     path, c->main.path);
        *c->status = CTL_EXIT_ERROR;
        return;
    }
    if (ctl_recv_file_open(c, &c->dump, path, 1) != 0)
        return;
    if (ctl_recv_dump_prelude(c) != 0) { /* a file without its names is no use */
        ctl_util_err("%s removed: its prelude could not be written", path);
        close(c->dump.fd);
        unlink(path);
        c->dump.fd = -1;
        c->dump.failed = 1;
        *c->status = CTL_EXIT_ERROR;
    }
}

/* The dump is complete (why NULL) or cut short (why says how). */
static void ctl_recv_dump_end(ctl_recv *c, const char *why)
{
    ctl_recv_flush(c);
    const ctl_scan *s = &c->scan;
    char where[CTL_SHOW_MAX / 4] = "", tail[CTL_SHOW_MAX / 4] = "", cut[CTL_SHOW_MAX / 4] = "";
    if (c->ndumps >= 2 && c->dump.path)
        snprintf(where, sizeof where, c->dump.fd >= 0 ? ", in %s" : ", %s not written",
                 c->dump.path);
    uint8_t bad_tag;
    ctl_scan_state state = ctl_scan_end(s, &bad_tag);
    if (state == CTL_SCAN_BAD)
        snprintf(tail, sizeof tail, "; counting stopped at a bad sub-record (tag 0x%02x)", bad_tag);
    else if (state == CTL_SCAN_CUT)
        snprintf(tail, sizeof tail, "; the last sub-record is cut");
    if (why)
        snprintf(cut, sizeof cut, " (incomplete: %s)", why);
    ctl_recv_say(c,
                 "HEAP DUMP %u: %" PRIu64 " %s, %" PRIu64 " bytes, %" PRIu64 " instances, %" PRIu64
                 " arrays, %" PRIu64 " classes, %" PRIu64 " roots%s%s%s",
                 c->ndumps, c->dump_records, c->dump_single ? "HEAP DUMP record" : "segments",
                 c->dump_bytes, s->instances, s->arrays, s->classes, s->roots, where, tail, cut);
    if (c->ndumps >= 2)
        ctl_recv_file_close(c, &c->dump);
    c->dump_open = 0;
}

/* ------------------------------------------------------------ the stream parser */

/* The record header c->rh is complete; inbuf points at it in the read
 * buffer, or is NULL when it came across two reads. */
static void ctl_recv_rec_begin(ctl_recv *c, const uint8_t *inbuf)
{
    c->tag = c->rh[0];
    ctl_rec_begin(&c->view, c->tag);
    c->rec_len = hr_get_u4(c->rh + 5);
    c->rec_left = c->rec_len;
    c->rec_is_dump = 0;
    switch (c->tag) {
    case HPROF_TAG_HEAP_DUMP: /* a whole dump in one record */
        if (c->dump_open)
            ctl_recv_dump_end(c, "a HEAP DUMP record came before its HEAP DUMP END");
        ctl_recv_dump_start(c, 1);
        c->rec_is_dump = 1;
        break;
    case HPROF_TAG_HEAP_DUMP_SEGMENT:
        if (!c->dump_open)
            ctl_recv_dump_start(c, 0);
        c->rec_is_dump = 1;
        break;
    case HPROF_TAG_HEAP_DUMP_END:
        c->rec_is_dump = c->dump_open;
        break;
    default:
        break;
    }
    if (c->rec_is_dump) {
        c->dest = c->ndumps == 1 ? CTL_DEST_MAIN : CTL_DEST_DUMP;
        if (c->tag != HPROF_TAG_HEAP_DUMP_END) {
            c->dump_records++;
            c->dump_bytes += HPROF_RECORD_HEADER_SIZE + (uint64_t)c->rec_len;
        }
    } else {
        /* records between the segments of dump N belong to both files */
        c->dest = CTL_DEST_MAIN | (c->dump_open && c->ndumps >= 2 ? CTL_DEST_DUMP : 0);
    }
    c->range_start = c->main_off;
    if (inbuf) {
        ctl_recv_out(c, c->dest, inbuf, HPROF_RECORD_HEADER_SIZE);
    } else { /* c->rh is reused by the next header: written at once */
        ctl_recv_out(c, c->dest, c->rh, HPROF_RECORD_HEADER_SIZE);
        ctl_recv_flush(c);
    }
    c->rec_have = 0;
    c->rec_keep = c->rec_is_dump ? 0 : ctl_rec_keep_size(c->tag, c->rec_len, c->idsz);
    if (c->rec_keep > c->rec_cap) {
        uint8_t *p = realloc(c->rec, c->rec_keep);
        if (p) {
            c->rec = p;
            c->rec_cap = c->rec_keep;
        }
    }
    c->phase = PH_REC_BODY;
}

static void ctl_recv_rec_end(ctl_recv *c)
{
    c->records++;
    c->phase = PH_REC_HEADER;
    if (c->rec_is_dump && c->ndumps == 1)
        ctl_recv_range_add(c, c->range_start, c->main_off);
    switch (c->tag) {
    case HPROF_TAG_HEAP_DUMP:
        ctl_recv_dump_end(c, NULL);
        return;
    case HPROF_TAG_HEAP_DUMP_SEGMENT:
        return;
    case HPROF_TAG_HEAP_DUMP_END:
        if (c->rec_is_dump)
            ctl_recv_dump_end(c, NULL);
        else if (ctl_rec_odd(&c->view))
            ctl_recv_say(c, "HEAP DUMP END without a heap dump");
        return;
    default:
        ctl_rec_show(&c->view, c->tag, c->rec_len, c->rec, c->rec_have, c->rec_keep, c->idsz);
    }
}

/* One complete line of a text stream. */
static void ctl_recv_text_line(ctl_recv *c)
{
    size_t n = c->line_len;
    c->line_len = 0;
    c->lines++;
    while (n && (c->line[n - 1] == '\r' || c->line[n - 1] == '\n'))
        n--;
    c->line[n] = '\0';
    ctl_rec_text(&c->view, c->line, n);
}

static void ctl_recv_text_feed(ctl_recv *c, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            ctl_recv_text_line(c);
            continue;
        }
        if (c->line_len + 1 < sizeof c->line) /* long lines: their start is enough */
            c->line[c->line_len++] = (char)p[i];
    }
}

/* The first HPROF_MAGIC_LEN + 1 bytes are in c->head (fewer at end of
 * stream): binary HPROF, text, or something else. */
static void ctl_recv_detect(ctl_recv *c)
{
    static const char *const magics[] = { HPROF_MAGIC_1_0_1, HPROF_MAGIC_1_0_2, HPROF_MAGIC_1_0_3 };
    if (c->head_len == HPROF_MAGIC_LEN + 1 && c->head[HPROF_MAGIC_LEN] == '\0') {
        for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++) {
            if (memcmp(c->head, magics[i], HPROF_MAGIC_LEN) == 0) {
                c->binary = 1;
                c->phase = PH_HEADER;
                return;
            }
        }
    }
    /* the text layout starts with "JAVA PROFILE 1.0.x, created": plain
     * ASCII. Random bytes pass this test about once in 10^8. */
    int printable = 1;
    for (unsigned i = 0; i < c->head_len; i++) {
        unsigned char ch = c->head[i];
        if ((ch < 0x20 && ch != '\n' && ch != '\r' && ch != '\t') || ch >= 0x7f)
            printable = 0;
    }
    if (printable) {
        ctl_recv_say(c, "format: text");
        c->phase = PH_TEXT;
        ctl_recv_text_feed(c, c->head, c->head_len);
    } else {
        char hex[3 * (HPROF_MAGIC_LEN + 1) + 1] = "";
        for (unsigned i = 0; i < c->head_len && i < 8; i++) {
            size_t hl = strlen(hex);
            snprintf(hex + hl, sizeof hex - hl, "%s%02x", i ? " " : "", c->head[i]);
        }
        ctl_recv_say(c, "format: unknown (first bytes %s...): written as is, not shown", hex);
        c->phase = PH_RAW;
    }
}

/* The binary header is complete in c->head. */
static void ctl_recv_header_done(ctl_recv *c)
{
    uint32_t idsz = hr_get_u4(c->head + HPROF_MAGIC_LEN + 1);
    uint64_t ts = hr_get_u8(c->head + HPROF_MAGIC_LEN + 5);
    if (idsz != 4 && idsz != 8) {
        ctl_recv_say(c,
                     "format: %.*s with id size %" PRIu32 " (not 4 or 8): written as is, not shown",
                     (int)HPROF_MAGIC_LEN, (const char *)c->head, idsz);
        c->phase = PH_RAW;
        return;
    }
    c->idsz = idsz;
    char when[64] = "?";
    time_t t = (time_t)(ts / 1000);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    ctl_recv_say(c, "format: binary %.*s, id size %u, created %s", (int)HPROF_MAGIC_LEN,
                 (const char *)c->head, c->idsz, when);
    c->phase = PH_REC_HEADER;
}

void ctl_recv_feed(ctl_recv *c, const uint8_t *buf, size_t n)
{
    const uint8_t *p = buf, *end = buf + n;
    c->bytes += n;
    while (p < end) {
        size_t avail = (size_t)(end - p);
        switch (c->phase) {
        case PH_MAGIC:
        case PH_HEADER: {
            unsigned want = (c->phase == PH_MAGIC ? HPROF_MAGIC_LEN + 1 : HPROF_HEADER_SIZE) -
                            c->head_len;
            size_t take = avail < want ? avail : want;
            memcpy(c->head + c->head_len, p, take);
            ctl_recv_out(c, CTL_DEST_MAIN, p, take);
            c->head_len += (unsigned)take;
            p += take;
            if (take == want) {
                if (c->phase == PH_MAGIC)
                    ctl_recv_detect(c);
                else
                    ctl_recv_header_done(c);
            }
            break;
        }
        case PH_REC_HEADER: {
            const uint8_t *start = c->rh_len == 0 ? p : NULL;
            size_t want = HPROF_RECORD_HEADER_SIZE - c->rh_len;
            size_t take = avail < want ? avail : want;
            memcpy(c->rh + c->rh_len, p, take);
            c->rh_len += (unsigned)take;
            p += take;
            if (c->rh_len < HPROF_RECORD_HEADER_SIZE)
                break; /* the rest comes with the next read */
            c->rh_len = 0;
            ctl_recv_rec_begin(c, start);
            if (c->rec_left == 0)
                ctl_recv_rec_end(c);
            break;
        }
        case PH_REC_BODY: {
            size_t take = c->rec_left < avail ? (size_t)c->rec_left : avail;
            ctl_recv_out(c, c->dest, p, take);
            if (c->rec_have < c->rec_keep && c->rec_cap >= c->rec_keep) {
                size_t k = c->rec_keep - c->rec_have;
                if (k > take)
                    k = take;
                memcpy(c->rec + c->rec_have, p, k);
                c->rec_have += k;
            }
            if (c->rec_is_dump && c->tag != HPROF_TAG_HEAP_DUMP_END)
                ctl_scan_feed(&c->scan, p, take);
            c->rec_left -= take;
            p += take;
            if (c->rec_left == 0)
                ctl_recv_rec_end(c);
            break;
        }
        case PH_TEXT:
            ctl_recv_out(c, CTL_DEST_MAIN, p, avail);
            ctl_recv_text_feed(c, p, avail);
            p = end;
            break;
        case PH_RAW:
            ctl_recv_out(c, CTL_DEST_MAIN, p, avail);
            p = end;
            break;
        }
    }
    ctl_recv_flush(c); /* the read buffer is reused */
    /* a message is shown when it arrives, not with the next output: a
     * thread's name and its START THREAD are written together, so they come
     * in one read but for rare splits */
    ctl_rec_messages(&c->view);
}

void ctl_recv_free(ctl_recv *c)
{
    if (!c)
        return;
    ctl_rec_cleanup(&c->view);
    /* closed and NULL once ctl_recv_end finished the files */
    if (c->main.fd >= 0)
        close(c->main.fd);
    if (c->dump.fd >= 0)
        close(c->dump.fd);
    free(c->main.path);
    free(c->dump.path);
    free(c->rec);
    free(c->ranges);
    free(c);
}

void ctl_recv_end(ctl_recv *c, const char *why)
{
    const char *cut = "";
    if (c->phase == PH_MAGIC && c->head_len)
        ctl_recv_detect(c);
    if (c->phase == PH_TEXT && c->line_len) {
        cut = ", ended inside a line";
        ctl_recv_text_line(c);
    }
    if (c->phase == PH_REC_HEADER && c->rh_len) {
        /* the bytes of a cut record header still go where the record
         * would have gone: the file stays the stream, byte for byte */
        uint8_t t = c->rh[0];
        int dumpish = t == HPROF_TAG_HEAP_DUMP_SEGMENT || t == HPROF_TAG_HEAP_DUMP_END ||
                      t == HPROF_TAG_HEAP_DUMP;
        unsigned dest = CTL_DEST_MAIN;
        if (c->dump_open && c->ndumps >= 2)
            dest = dumpish ? CTL_DEST_DUMP : CTL_DEST_MAIN | CTL_DEST_DUMP;
        ctl_recv_out(c, dest, c->rh, c->rh_len);
    }
    if (c->phase == PH_REC_BODY || (c->phase == PH_REC_HEADER && c->rh_len))
        cut = ", ended inside a record";
    else if (c->phase == PH_HEADER)
        cut = ", ended inside the file header";
    ctl_rec_messages(&c->view);
    if (c->dump_open)
        ctl_recv_dump_end(c, "the stream ended inside it");
    ctl_recv_flush(c);
    ctl_recv_file_close(c, &c->main);
    if (c->phase == PH_TEXT)
        ctl_recv_say(c, "disconnected: %" PRIu64 " bytes, %" PRIu64 " lines%s%s", c->bytes,
                     c->lines, cut, why);
    else
        ctl_recv_say(c, "disconnected: %" PRIu64 " bytes, %" PRIu64 " records%s%s", c->bytes,
                     c->records, cut, why);
}

int ctl_recv_open(ctl_recv *c, char *path)
{
    return ctl_recv_file_open(c, &c->main, path, 0);
}

unsigned ctl_recv_id_size(const ctl_recv *c)
{
    return c->binary ? c->idsz : 8;
}

int ctl_recv_thread_obj(const ctl_recv *c, uint64_t serial, uint64_t *obj)
{
    return ctl_names_thread_obj(c->view.names, serial, obj);
}
