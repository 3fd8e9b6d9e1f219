/*
 * hprof_ctl.c: hprof-ctl, the front end of the agent's net=host:port channel.
 *
 *   hprof-ctl listen PORT [--out FILE] [--any | --bind ADDR] [--port-file F]
 *                         [--script F] [--agents N] [--timeout S] [COMMAND ...]
 *
 * It listens on loopback (127.0.0.1 and ::1) unless told otherwise: the
 * channel has no authentication, and whoever connects first is agent 1.
 *
 * The agent is a TCP client: it connects here, sends its whole profile output
 * (binary HPROF or the original's text layout) and reads commands (hc_proto.h)
 * from the same socket. hprof-ctl owns the receiving side: one output file per
 * agent written byte for byte, later heap dumps split into complete files of
 * their own (FILE.2, FILE.3...: readers see one heap dump per file), one
 * readable line per interesting record, and the commands (from the command
 * line, a script with sleep/wait directives, then stdin) sent to the agents.
 *
 * Design: one thread and one poll() loop. A 1 MiB read buffer is shared by
 * every connection; each connection is a resumable parser that keeps only
 * small state (a record header, the body of a small record being decoded, the
 * names needed for display), so any byte stream of any length is handled in
 * bounded memory and the bytes go to disk with write(2) in large spans.
 * Heap dump bodies are never buffered: a streaming scanner counts their
 * sub-records as the bytes go by.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hc_net.h"
#include "hc_proto.h"
#include "hu_map.h"
#include "hprof/hprof_format.h"
#include "hprof/hr_reader.h"
#include "hprof/hw_writer.h"

/* ------------------------------------------------------------ constants */

enum { CTL_EXIT_OK = 0, CTL_EXIT_ERROR = 1, CTL_EXIT_USAGE = 2, CTL_EXIT_TIMEOUT = 3 };
#define CTL_DONE (-1) /* start-up finished the job (help shown): exit 0 */

#define CTL_DEFAULT_OUT "hprof-ctl.hprof"
#define CTL_DEFAULT_TIMEOUT_S 60.0
#define CTL_MAX_TIMEOUT_S 1e7
#define CTL_MAX_AGENTS_WANTED 1000000u
#define CTL_MAX_PORT 65535u
#define CTL_MAX_DEPTH 65535u /* u2 on the wire */
/* One read: heap dump segments are ~1 MiB, and big reads keep the syscalls
 * per byte low enough to stream at disk speed. */
#define CTL_READ_CHUNK (1u << 20)
#define CTL_COPY_CHUNK (1u << 20)    /* re-reading the main file for a FILE.N prelude */
#define CTL_DECODE_MAX (16u << 20)   /* bytes of one small record kept for display */
#define CTL_NAME_MAX 1024u           /* bytes of a UTF8 string kept */
#define CTL_NAMES_BUDGET (64u << 20) /* bytes of names kept per agent */
#define CTL_MAP_MAX (1u << 20)       /* ids kept per map and agent, for display only */
#define CTL_LINE_MAX 1024u           /* bytes of a text line, a command, a shown line */
#define CTL_SHOW_MAX 4096u           /* one shown line, prefix included */
#define CTL_STDIN_MAX 4096u          /* one command line read from stdin */
#define CTL_ACCEPT_PAUSE_S 0.5       /* out of fds: wait before accepting again */
#define CTL_WAITLOG_MAX (4u << 20)   /* shown lines kept for `wait` */
#define CTL_PROBLEMS_SHOWN 10u       /* odd records shown per agent before going quiet */
#define CTL_TOP_SAMPLES 3u
#define CTL_MAX_TOKENS 16
#define CTL_ADDR_MAX (NI_MAXHOST + NI_MAXSERV + 4) /* "[host]:port" */
#define CTL_MS_PER_S 1000.0
#define CTL_NS_PER_S 1e9

/* Where the bytes of the current record go. */
#define CTL_DEST_MAIN 1u /* the agent's file */
#define CTL_DEST_DUMP 2u /* the open FILE.N (heap dumps 2, 3, ...) */

/* Fixed layouts of the small records hprof-ctl decodes (bytes after the
 * record header; `id` is the stream's id size). */
#define CTL_LOAD_CLASS_SIZE(id) (8u + 2u * (id))     /* u4 serial, id, u4 trace, id name */
#define CTL_FRAME_SIZE(id) (4u * (id) + 8u)          /* 4 ids, u4 class serial, i4 line */
#define CTL_TRACE_FIXED 12u                          /* u4 serial, u4 thread, u4 nframes */
#define CTL_START_THREAD_SIZE(id) (8u + 4u * (id))   /* u4, id, u4, 3 ids */
#define CTL_U4_RECORD_SIZE 4u                        /* UNLOAD CLASS, END THREAD */
#define CTL_ALLOC_SITES_FIXED 34u /* u2 flags, f4 cutoff, u4 u4 live, u8 u8 alloc, u4 n */
#define CTL_ALLOC_SITE_SIZE 25u   /* u1 array type, 6 x u4 */
#define CTL_HEAP_SUMMARY_SIZE 24u /* u4 u4 u8 u8 */
#define CTL_CPU_SAMPLES_FIXED 8u  /* u4 total, u4 n */
#define CTL_CPU_SAMPLE_SIZE 8u    /* u4 count, u4 trace */
#define CTL_CONTROL_SIZE 6u       /* u4 flags, u2 depth */

/* The largest fixed part of a heap sub-record hprof-ctl has to read whole:
 * a CLASS DUMP's with 8-byte ids, plus its u2 constant pool count. */
#define CTL_SUB_HDR_MAX (HPROF_CLASS_DUMP_FIXED(8u) + 2u)

/* The in-band messages of the agent: UTF8 records whose text starts with
 * "HPROF " (or "HPROF:"). The agent's own threads are named so too: their
 * names are held back (CTL_MESSAGES_HELD at most) until the records that
 * follow show whether a START THREAD uses them. */
#define CTL_MESSAGE_PREFIX "HPROF"
#define CTL_MESSAGES_HELD 4u

/* ------------------------------------------------------------ small helpers */

static double ctl_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / CTL_NS_PER_S;
}

static void ctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ctl_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hprof-ctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Copies len bytes of untrusted text into dst as one printable line:
 * control bytes become '?', and with `dots` the VM's '/' become '.'. */
static void ctl_clean(char *dst, size_t cap, const char *src, size_t len, int dots)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < cap; i++) {
        unsigned char ch = (unsigned char)src[i];
        if (ch < 0x20 || ch == 0x7f)
            ch = '?';
        else if (dots && ch == '/')
            ch = '.';
        dst[n++] = (char)ch;
    }
    if (cap)
        dst[n] = '\0';
}

/* Strict decimal: digits only, no sign, fits in max. 0 on success. */
static int ctl_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s)
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int ctl_parse_hex(const char *s, uint64_t *out)
{
    if (!s || !*s || strlen(s) > 16)
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F')
            d = *p - 'A' + 10;
        else
            return -1;
        v = (v << 4) | (unsigned)d;
    }
    *out = v;
    return 0;
}

/* A cutoff: a finite number in [0, 1], as the protocol requires. */
static int ctl_parse_cutoff(const char *s, float *out)
{
    if (!s || !*s)
        return -1;
    char *end = NULL;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || *end || !isfinite(d) || d < 0.0 || d > 1.0)
        return -1;
    *out = (float)d;
    return 0;
}

/* ------------------------------------------------------------ id map */

/* The project's u64 -> u64 map (hu_map.h). Only display data lives here,
 * so a failed insertion (out of memory, or the bound below) just leaves a
 * name unknown. */
typedef hu_map ctl_map;

static int ctl_map_get(const ctl_map *m, uint64_t k, uint64_t *v)
{
    const uint64_t *p = hu_map_get(m, k);
    if (!p)
        return 0;
    *v = *p;
    return 1;
}

static int ctl_map_put(ctl_map *m, uint64_t k, uint64_t v)
{
    /* bounded memory whatever the stream: past CTL_MAP_MAX ids a map keeps
     * what it has (values of known ids still change), and shown lines say
     * "?" for the names it could not keep */
    if (m->count >= CTL_MAP_MAX && !hu_map_get(m, k))
        return -1;
    return hu_map_put(m, k, v);
}

static void ctl_map_free(ctl_map *m)
{
    hu_map_cleanup(m);
}

/* ------------------------------------------------------------ heap dump scanner */

/* Counts the sub-records of a heap dump from its segment bodies, fed in
 * pieces of any size: it reads only each sub-record's fixed part and skips
 * the rest, so a dump of any size costs a few steps per object. */
typedef enum ctl_sub_step {
    SS_TAG,
    SS_CLASS_FIXED,
    SS_CP_ENTRY,
    SS_STATICS_COUNT,
    SS_STATIC_ENTRY,
    SS_FIELDS_COUNT,
    SS_INSTANCE_FIXED,
    SS_OBJ_ARRAY_FIXED,
    SS_PRIM_ARRAY_FIXED,
    SS_DEAD /* an unknown sub-record or type: the rest is not counted */
} ctl_sub_step;

typedef struct ctl_scan {
    unsigned idsz;
    ctl_sub_step step;
    uint8_t hdr[CTL_SUB_HDR_MAX];
    unsigned have, need;
    uint64_t skip;
    uint32_t left; /* constant pool entries or statics still to read */
    uint8_t tag;   /* of the sub-record being read */
    uint64_t instances, arrays, classes, roots;
} ctl_scan;

static void ctl_scan_reset(ctl_scan *s, unsigned idsz)
{
    memset(s, 0, sizeof *s);
    s->idsz = idsz;
    s->step = SS_TAG;
    s->need = 1;
}

/* The body size (after the sub-tag) of a GC root, or 0 for other tags. */
static unsigned ctl_root_size(uint8_t tag, unsigned id)
{
    switch (tag) {
    case HPROF_GC_ROOT_JNI_GLOBAL:
        return 2 * id;
    case HPROF_GC_ROOT_JNI_LOCAL:
    case HPROF_GC_ROOT_JAVA_FRAME:
    case HPROF_GC_ROOT_THREAD_OBJ:
    case HPROF_GC_ROOT_JNI_MONITOR:
        return id + 8;
    case HPROF_GC_ROOT_NATIVE_STACK:
    case HPROF_GC_ROOT_THREAD_BLOCK:
        return id + 4;
    case HPROF_GC_ROOT_STICKY_CLASS:
    case HPROF_GC_ROOT_MONITOR_USED:
    case HPROF_GC_ROOT_INTERNED_STRING:
    case HPROF_GC_ROOT_FINALIZING:
    case HPROF_GC_ROOT_DEBUGGER:
    case HPROF_GC_ROOT_REFERENCE_CLEANUP:
    case HPROF_GC_ROOT_VM_INTERNAL:
    case HPROF_GC_ROOT_UNREACHABLE:
    case HPROF_GC_ROOT_UNKNOWN:
        return id;
    default:
        return 0;
    }
}

static void ctl_scan_next(ctl_scan *s, ctl_sub_step step, unsigned need)
{
    s->step = step;
    s->need = need;
}

/* The next entry of a CLASS DUMP's constant pool or statics, or the part
 * after them. */
static void ctl_scan_entries(ctl_scan *s, ctl_sub_step entry, unsigned entry_need,
                             ctl_sub_step after)
{
    if (s->left)
        ctl_scan_next(s, entry, entry_need);
    else
        ctl_scan_next(s, after, 2);
}

/* The fixed part h[0..need) of the current step is in: act on it. */
static void ctl_scan_step(ctl_scan *s, const uint8_t *h)
{
    const unsigned id = s->idsz;
    unsigned sz;
    switch (s->step) {
    case SS_TAG:
        s->tag = h[0];
        switch (h[0]) {
        case HPROF_GC_CLASS_DUMP:
            s->classes++;
            ctl_scan_next(s, SS_CLASS_FIXED, HPROF_CLASS_DUMP_FIXED(id) + 2);
            return;
        case HPROF_GC_INSTANCE_DUMP:
            s->instances++;
            ctl_scan_next(s, SS_INSTANCE_FIXED, HPROF_INSTANCE_DUMP_FIXED(id));
            return;
        case HPROF_GC_OBJ_ARRAY_DUMP:
            s->arrays++;
            ctl_scan_next(s, SS_OBJ_ARRAY_FIXED, HPROF_OBJ_ARRAY_DUMP_FIXED(id));
            return;
        case HPROF_GC_PRIM_ARRAY_DUMP:
            s->arrays++;
            ctl_scan_next(s, SS_PRIM_ARRAY_FIXED, HPROF_PRIM_ARRAY_DUMP_FIXED(id));
            return;
        case HPROF_GC_HEAP_DUMP_INFO: /* u4 heap type, id heap name */
            s->skip = 4 + id;
            ctl_scan_next(s, SS_TAG, 1);
            return;
        default:
            sz = ctl_root_size(h[0], id);
            if (!sz) {
                s->step = SS_DEAD;
                return;
            }
            s->roots++;
            s->skip = sz;
            ctl_scan_next(s, SS_TAG, 1);
            return;
        }
    case SS_CLASS_FIXED:
        s->left = hr_get_u2(h + HPROF_CLASS_DUMP_FIXED(id));
        ctl_scan_entries(s, SS_CP_ENTRY, 3, SS_STATICS_COUNT); /* u2 index, u1 type */
        return;
    case SS_CP_ENTRY:
        sz = hprof_type_size(h[2], id);
        if (!sz) {
            s->step = SS_DEAD;
            return;
        }
        s->skip = sz;
        s->left--;
        ctl_scan_entries(s, SS_CP_ENTRY, 3, SS_STATICS_COUNT);
        return;
    case SS_STATICS_COUNT:
        s->left = hr_get_u2(h);
        ctl_scan_entries(s, SS_STATIC_ENTRY, id + 1, SS_FIELDS_COUNT); /* id name, u1 type */
        return;
    case SS_STATIC_ENTRY:
        sz = hprof_type_size(h[id], id);
        if (!sz) {
            s->step = SS_DEAD;
            return;
        }
        s->skip = sz;
        s->left--;
        ctl_scan_entries(s, SS_STATIC_ENTRY, id + 1, SS_FIELDS_COUNT);
        return;
    case SS_FIELDS_COUNT:
        s->skip = (uint64_t)hr_get_u2(h) * (id + 1); /* id name, u1 type each */
        ctl_scan_next(s, SS_TAG, 1);
        return;
    case SS_INSTANCE_FIXED: /* id, u4 trace, id class, u4 nbytes */
        s->skip = hr_get_u4(h + 2 * id + 4);
        ctl_scan_next(s, SS_TAG, 1);
        return;
    case SS_OBJ_ARRAY_FIXED: /* id, u4 trace, u4 n, id class */
        s->skip = (uint64_t)hr_get_u4(h + id + 4) * id;
        ctl_scan_next(s, SS_TAG, 1);
        return;
    case SS_PRIM_ARRAY_FIXED: /* id, u4 trace, u4 n, u1 type */
        if (!hprof_type_is_primitive(h[id + 8])) {
            s->step = SS_DEAD;
            return;
        }
        s->skip = (uint64_t)hr_get_u4(h + id + 4) * hprof_type_size(h[id + 8], id);
        ctl_scan_next(s, SS_TAG, 1);
        return;
    case SS_DEAD:
        return;
    }
}

static void ctl_scan_feed(ctl_scan *s, const uint8_t *p, size_t n)
{
    while (n && s->step != SS_DEAD) {
        if (s->skip) {
            size_t k = s->skip < n ? (size_t)s->skip : n;
            s->skip -= k;
            p += k;
            n -= k;
            continue;
        }
        if (s->have == 0 && s->need <= n) { /* the usual case: read in place */
            const uint8_t *h = p;
            p += s->need;
            n -= s->need;
            ctl_scan_step(s, h);
            continue;
        }
        size_t k = s->need - s->have;
        if (k > n)
            k = n;
        memcpy(s->hdr + s->have, p, k);
        s->have += (unsigned)k;
        p += k;
        n -= k;
        if (s->have == s->need) {
            s->have = 0;
            ctl_scan_step(s, s->hdr);
        }
    }
}

/* ------------------------------------------------------------ connections */

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

typedef struct ctl_conn {
    unsigned k; /* 1-based, in accept order */
    int fd;
    char addr[CTL_ADDR_MAX];
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

    /* names, for display and thread ids */
    ctl_map utf8, class_name, frame_method, frame_class, trace_frame, thread_obj, thread_name;
    char *names;
    size_t names_len, names_cap;

    /* text streams */
    char line[CTL_LINE_MAX];
    size_t line_len;
    uint64_t lines;

    /* pending output: a run of bytes with one destination */
    const uint8_t *span;
    size_t span_len;
    unsigned span_dest;

    uint64_t held[CTL_MESSAGES_HELD]; /* UTF8 ids of possible messages */
    unsigned nheld;

    unsigned problems_shown;
    int send_failed;
    /* no more commands to this agent: it took EOF, or it stopped reading
     * them (its command channel was shut down rather than block on it) */
    int cmds_closed;
    int refusal_shown; /* "not sent" said once */
} ctl_conn;

/* ------------------------------------------------------------ commands */

typedef enum ctl_kind { CK_SEND, CK_QUIT, CK_SLEEP, CK_WAIT, CK_WAIT_AGENTS } ctl_kind;
typedef enum ctl_thread_kind { CT_ALL, CT_SERIAL, CT_ID } ctl_thread_kind;

typedef struct ctl_command {
    ctl_kind kind;
    unsigned target; /* 0: every agent; k: agent k only (@k) */
    hc_cmd cmd;
    ctl_thread_kind thread_kind;
    uint64_t thread; /* a thread serial (CT_SERIAL) or object id (CT_ID) */
    uint64_t number; /* sleep: ms; wait-agents: N */
    char text[CTL_LINE_MAX]; /* as echoed; for wait: the text waited for */
} ctl_command;

typedef enum ctl_stage { STAGE_ARGS, STAGE_SCRIPT, STAGE_STDIN } ctl_stage;

typedef struct ctl_script_line {
    char *text;
    unsigned lineno;
} ctl_script_line;

typedef struct ctl_ctx {
    /* options */
    const char *out;
    const char *bind; /* NULL: loopback (127.0.0.1 and ::1); "*": every address (--any) */
    int bind_given;   /* --any or --bind: where was said once */
    const char *port_file;
    const char *script;
    unsigned agents_wanted;
    double timeout_s;
    int timeout_given;
    char **args;
    size_t nargs;
    ctl_script_line *lines;
    size_t nlines;

    /* state */
    int lfd[HC_NET_MAX_LISTEN]; /* listening sockets: the first nlfd are open */
    int nlfd;
    unsigned port;
    ctl_conn **conns; /* connected agents */
    size_t nconns, cap_conns;
    unsigned total; /* agents accepted so far */
    uint32_t serial;
    ctl_stage stage;
    size_t pos;
    double start;
    double sleep_until; /* 0: not sleeping */
    /* out of file descriptors: the pending connection stays queued and the
     * listening socket readable, so it is left out of poll until then */
    double accept_pause_until;
    char *wait_text;    /* NULL: not waiting for text */
    int wait_found;
    unsigned wait_agents; /* 0: not waiting for agents */
    double wait_deadline;
    char *log; /* lines shown since the last command was sent */
    size_t log_len, log_cap;
    int stdin_open;
    char stdin_buf[CTL_STDIN_MAX];
    size_t stdin_len;
    int stdin_overlong;
    uint8_t *rbuf;
    int status; /* CTL_EXIT_ERROR once a file could not be written */
    int quit;
} ctl_ctx;

/* ------------------------------------------------------------ shown lines */

static void ctl_log_add(ctl_ctx *x, const char *line)
{
    size_t n = strlen(line);
    if (x->wait_text && strstr(line, x->wait_text))
        x->wait_found = 1;
    if (n + 2 > CTL_WAITLOG_MAX)
        return;
    if (x->log_len + n + 2 > CTL_WAITLOG_MAX) { /* keep the newer half */
        size_t drop = x->log_len / 2;
        memmove(x->log, x->log + drop, x->log_len - drop + 1);
        x->log_len -= drop;
    }
    if (x->log_len + n + 2 > x->log_cap) {
        size_t cap = x->log_cap ? x->log_cap : CTL_SHOW_MAX;
        while (cap < x->log_len + n + 2)
            cap *= 2;
        char *p = realloc(x->log, cap);
        if (!p)
            return;
        x->log = p;
        x->log_cap = cap;
    }
    memcpy(x->log + x->log_len, line, n);
    x->log_len += n;
    x->log[x->log_len++] = '\n';
    x->log[x->log_len] = '\0';
}

/* Shows one line "[k] ..." on stdout, flushed, and keeps it for `wait`. */
static void ctl_show(ctl_ctx *x, const ctl_conn *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ctl_show(ctl_ctx *x, const ctl_conn *c, const char *fmt, ...)
{
    char line[CTL_SHOW_MAX];
    int n = snprintf(line, sizeof line, "[%u] ", c->k);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    ctl_log_add(x, line);
}

/* Odd records (malformed, unknown) are shown, but only the first few: a
 * stream that has lost its framing would otherwise flood the terminal. */
static int ctl_problem_budget(ctl_ctx *x, ctl_conn *c)
{
    if (c->problems_shown == CTL_PROBLEMS_SHOWN) {
        c->problems_shown++;
        ctl_show(x, c, "(further odd records of this agent are not shown)");
        return 0;
    }
    return c->problems_shown++ < CTL_PROBLEMS_SHOWN;
}

/* ------------------------------------------------------------ files */

static void ctl_file_fail(ctl_ctx *x, ctl_file *f, int err)
{
    if (!f->failed)
        ctl_err("cannot write %s: %s", f->path, strerror(err));
    f->failed = 1;
    x->status = CTL_EXIT_ERROR;
}

/* Opens an agent's file by libhprofwriter's rules for output files
 * (hw_file_create, hw_writer.h): mode 0600 (a profile holds what the
 * program held), never through a symbolic link, never someone else's file
 * (or a hard link to it) truncated. An agent's main file is overwritten
 * when it is a regular file of ours, like the agent's output with force=y;
 * heap dumps 2, 3, ... (`fresh`) always go to files created here (O_EXCL),
 * a previous run's file of ours being removed first. */
static int ctl_file_open(ctl_ctx *x, ctl_file *f, char *path, int fresh)
{
    f->path = path;
    f->failed = 0;
    /* read-write: heap dump 2's prelude is re-read from the main file */
    int err = 0;
    char why[256];
    f->fd = hw_file_create(path, HW_FILE_READ | (fresh ? HW_FILE_FRESH : 0), &err, why, sizeof why);
    if (f->fd < 0) {
        ctl_err("cannot write %s: %s", path, why);
        f->failed = 1;
        x->status = CTL_EXIT_ERROR;
        return -1;
    }
    return 0;
}

static void ctl_file_write(ctl_ctx *x, ctl_file *f, const uint8_t *p, size_t n)
{
    if (f->fd < 0 || f->failed)
        return;
    while (n) {
        ssize_t w = write(f->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            ctl_file_fail(x, f, errno);
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

static void ctl_file_close(ctl_ctx *x, ctl_file *f)
{
    if (f->fd >= 0 && close(f->fd) != 0)
        ctl_file_fail(x, f, errno);
    f->fd = -1;
    free(f->path);
    f->path = NULL;
}

/* FILE for agent 1, FILE with "-k" before its last extension for agent k. */
static char *ctl_agent_path(const char *out, unsigned k)
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

/* ------------------------------------------------------------ output spans */

/* Writes the pending span to its destinations. */
static void ctl_flush(ctl_ctx *x, ctl_conn *c)
{
    if (!c->span_len)
        return;
    if (c->span_dest & CTL_DEST_MAIN)
        ctl_file_write(x, &c->main, c->span, c->span_len);
    if (c->span_dest & CTL_DEST_DUMP)
        ctl_file_write(x, &c->dump, c->span, c->span_len);
    c->span_len = 0;
}

/* Queues bytes for dest. Consecutive bytes of the read buffer with the same
 * destination become one write(2). */
static void ctl_out(ctl_ctx *x, ctl_conn *c, unsigned dest, const uint8_t *p, size_t n)
{
    if (!n)
        return;
    if (dest & CTL_DEST_MAIN)
        c->main_off += n;
    if (c->span_len && c->span_dest == dest && c->span + c->span_len == p) {
        c->span_len += n;
        return;
    }
    ctl_flush(x, c);
    c->span = p;
    c->span_len = n;
    c->span_dest = dest;
}

/* ------------------------------------------------------------ names */

static void ctl_remember_name(ctl_conn *c, uint64_t id, const uint8_t *s, size_t len)
{
    if (len > CTL_NAME_MAX)
        len = CTL_NAME_MAX;
    uint64_t old;
    if (ctl_map_get(&c->utf8, id, &old) && (old & 0xFFFF) >= len) {
        /* an id defined again: its old place is reused, nothing grows */
        memcpy(c->names + (old >> 16), s, len);
        ctl_map_put(&c->utf8, id, (old & ~(uint64_t)0xFFFF) | len);
        return;
    }
    if (c->names_len + len > CTL_NAMES_BUDGET)
        return; /* bounded memory: later names show as "?" */
    if (c->names_len + len > c->names_cap) {
        size_t cap = c->names_cap ? c->names_cap : CTL_SHOW_MAX;
        while (cap < c->names_len + len)
            cap *= 2;
        char *p = realloc(c->names, cap);
        if (!p)
            return;
        c->names = p;
        c->names_cap = cap;
    }
    memcpy(c->names + c->names_len, s, len);
    /* offset and length in one value: len < 2^16 */
    if (ctl_map_put(&c->utf8, id, ((uint64_t)c->names_len << 16) | len) == 0)
        c->names_len += len;
}

/* The UTF8 string `id` as a clean line (dots for slashes with `dots`), or
 * `fallback` when unknown. */
static const char *ctl_name(const ctl_conn *c, uint64_t id, int dots, char *buf, size_t cap,
                            const char *fallback)
{
    uint64_t v;
    if (!ctl_map_get(&c->utf8, id, &v))
        return fallback;
    ctl_clean(buf, cap, c->names + (v >> 16), (size_t)(v & 0xffff), dots);
    return buf;
}

static const char *ctl_class_name(const ctl_conn *c, uint32_t serial, char *buf, size_t cap)
{
    uint64_t name_id;
    if (!ctl_map_get(&c->class_name, serial, &name_id))
        return NULL;
    return ctl_name(c, name_id, 1, buf, cap, NULL);
}

/* "Class.method" of the top frame of a trace, or "?" */
static const char *ctl_trace_top(const ctl_conn *c, uint32_t trace, char *buf, size_t cap)
{
    uint64_t frame, method, cls;
    char mbuf[CTL_NAME_MAX + 1], cbuf[CTL_NAME_MAX + 1];
    if (!ctl_map_get(&c->trace_frame, trace, &frame))
        return "?";
    const char *m = ctl_map_get(&c->frame_method, frame, &method)
                        ? ctl_name(c, method, 0, mbuf, sizeof mbuf, "?")
                        : "?";
    const char *k = ctl_map_get(&c->frame_class, frame, &cls)
                        ? ctl_class_name(c, (uint32_t)cls, cbuf, sizeof cbuf)
                        : NULL;
    snprintf(buf, cap, "%s.%s", k ? k : "?", m);
    return buf;
}

/* ------------------------------------------------------------ record display */

static int ctl_is_message(const uint8_t *text, size_t len)
{
    size_t n = strlen(CTL_MESSAGE_PREFIX);
    return len > n && memcmp(text, CTL_MESSAGE_PREFIX, n) == 0 &&
           (text[n] == ' ' || text[n] == ':');
}

/* Shows the held messages, except a thread's names (ids in `names`). */
static void ctl_messages_show(ctl_ctx *x, ctl_conn *c, const uint64_t *names, unsigned nnames)
{
    for (unsigned i = 0; i < c->nheld; i++) {
        int is_name = 0;
        for (unsigned j = 0; j < nnames; j++)
            is_name |= names[j] == c->held[i];
        char msg[CTL_NAME_MAX + 1];
        if (!is_name)
            ctl_show(x, c, "message: %s", ctl_name(c, c->held[i], 0, msg, sizeof msg, "?"));
    }
    c->nheld = 0;
}

static void ctl_malformed(ctl_ctx *x, ctl_conn *c, const char *name, uint64_t need)
{
    if (ctl_problem_budget(x, c))
        ctl_show(x, c, "%s: malformed record, length %" PRIu32 " (its layout needs %" PRIu64 ")",
                 name, c->rec_len, need);
}

static void ctl_show_alloc_sites(ctl_ctx *x, ctl_conn *c, const uint8_t *b, size_t have)
{
    uint16_t flags = hr_get_u2(b);
    uint32_t cutoff_bits = hr_get_u4(b + 2);
    float cutoff;
    memcpy(&cutoff, &cutoff_bits, sizeof cutoff);
    uint32_t live_bytes = hr_get_u4(b + 6), live_inst = hr_get_u4(b + 10);
    uint64_t alloc_bytes = hr_get_u8(b + 14), alloc_inst = hr_get_u8(b + 22);
    uint32_t nsites = hr_get_u4(b + 30);
    char fl[64] = "";
    snprintf(fl, sizeof fl, "%s%s%s", flags & HPROF_SITES_INCREMENTAL ? ", incremental" : "",
             flags & HPROF_SITES_SORT_BY_ALLOC ? ", by alloc" : "",
             flags & HPROF_SITES_FORCE_GC ? ", gc" : "");
    char top[CTL_SHOW_MAX / 2] = "";
    if (nsites && have >= CTL_ALLOC_SITES_FIXED + CTL_ALLOC_SITE_SIZE) {
        const uint8_t *s = b + CTL_ALLOC_SITES_FIXED;
        uint8_t atype = s[0];
        uint32_t cls = hr_get_u4(s + 1), trace = hr_get_u4(s + 5);
        char nbuf[CTL_NAME_MAX + 1];
        const char *name = ctl_class_name(c, cls, nbuf, sizeof nbuf);
        if (!name && atype) {
            const char *t = hprof_type_name(atype);
            snprintf(nbuf, sizeof nbuf, "%s[]", t ? t : "?");
            name = nbuf;
        }
        snprintf(top, sizeof top, "; top: %s (trace %" PRIu32 ") %" PRIu32 " live bytes in %" PRIu32
                 " instances",
                 name ? name : "?", trace, hr_get_u4(s + 9), hr_get_u4(s + 13));
    }
    ctl_show(x, c,
             "ALLOC SITES: %" PRIu32 " sites (cutoff %g%s), live %" PRIu32 " bytes in %" PRIu32
             " instances, allocated %" PRIu64 " bytes in %" PRIu64 " instances%s",
             nsites, (double)cutoff, fl, live_bytes, live_inst, alloc_bytes, alloc_inst, top);
}

static void ctl_show_cpu_samples(ctl_ctx *x, ctl_conn *c, const uint8_t *b, size_t have)
{
    uint32_t total = hr_get_u4(b), n = hr_get_u4(b + 4);
    size_t avail = (have - CTL_CPU_SAMPLES_FIXED) / CTL_CPU_SAMPLE_SIZE;
    if (avail > n)
        avail = n;
    /* the top entries by count, the earlier first on ties */
    size_t best[CTL_TOP_SAMPLES];
    unsigned nbest = 0;
    for (size_t i = 0; i < avail; i++) {
        uint32_t cnt = hr_get_u4(b + CTL_CPU_SAMPLES_FIXED + i * CTL_CPU_SAMPLE_SIZE);
        unsigned pos = nbest;
        while (pos > 0 &&
               hr_get_u4(b + CTL_CPU_SAMPLES_FIXED + best[pos - 1] * CTL_CPU_SAMPLE_SIZE) < cnt)
            pos--;
        if (pos >= CTL_TOP_SAMPLES)
            continue;
        unsigned last = nbest < CTL_TOP_SAMPLES ? nbest : CTL_TOP_SAMPLES - 1;
        memmove(best + pos + 1, best + pos, (last - pos) * sizeof best[0]);
        best[pos] = i;
        if (nbest < CTL_TOP_SAMPLES)
            nbest++;
    }
    char top[CTL_SHOW_MAX / 2] = "";
    size_t len = 0;
    for (unsigned i = 0; i < nbest && len < sizeof top; i++) {
        const uint8_t *e = b + CTL_CPU_SAMPLES_FIXED + best[i] * CTL_CPU_SAMPLE_SIZE;
        char fbuf[2 * CTL_NAME_MAX + 2];
        uint32_t trace = hr_get_u4(e + 4);
        int w = snprintf(top + len, sizeof top - len, "%s%" PRIu32 " trace %" PRIu32 " %s",
                         i ? ", " : "; top: ", hr_get_u4(e), trace,
                         ctl_trace_top(c, trace, fbuf, sizeof fbuf));
        if (w < 0)
            break;
        len += (size_t)w;
    }
    ctl_show(x, c, "CPU SAMPLES: total %" PRIu32 ", %" PRIu32 " traces%s", total, n, top);
}

/* A complete small record is in c->rec (c->rec_have bytes of c->rec_len). */
static void ctl_rec_show(ctl_ctx *x, ctl_conn *c)
{
    const unsigned id = c->idsz;
    const uint8_t *b = c->rec;
    const uint32_t len = c->rec_len;
    const size_t have = c->rec_have;
    const char *name = hprof_tag_name(c->tag);
    char n1[CTL_NAME_MAX + 1], n2[CTL_NAME_MAX + 1];
    if (!name) {
        if (ctl_problem_budget(x, c))
            ctl_show(x, c, "unknown record tag 0x%02x, %" PRIu32 " bytes: written as is", c->tag,
                     len);
        return;
    }
    if (have < c->rec_keep) {
        ctl_show(x, c, "%s: not decoded (out of memory)", name);
        return;
    }
    switch (c->tag) {
    case HPROF_TAG_UTF8:
        if (len < id) {
            ctl_malformed(x, c, name, id);
            return;
        }
        if (ctl_is_message(b + id, have - id)) {
            size_t n = have - id; /* a message's line end is not part of it */
            while (n && (b[id + n - 1] == '\n' || b[id + n - 1] == '\r'))
                n--;
            if (c->nheld == CTL_MESSAGES_HELD)
                ctl_messages_show(x, c, NULL, 0);
            ctl_remember_name(c, hr_get_id(b, id), b + id, n);
            c->held[c->nheld++] = hr_get_id(b, id);
            return;
        }
        ctl_remember_name(c, hr_get_id(b, id), b + id, have - id);
        return;
    case HPROF_TAG_LOAD_CLASS:
        if (len != CTL_LOAD_CLASS_SIZE(id)) {
            ctl_malformed(x, c, name, CTL_LOAD_CLASS_SIZE(id));
            return;
        }
        ctl_map_put(&c->class_name, hr_get_u4(b), hr_get_id(b + 8 + id, id));
        return;
    case HPROF_TAG_UNLOAD_CLASS: {
        if (len != CTL_U4_RECORD_SIZE) {
            ctl_malformed(x, c, name, CTL_U4_RECORD_SIZE);
            return;
        }
        const char *cn = ctl_class_name(c, hr_get_u4(b), n1, sizeof n1);
        ctl_show(x, c, "UNLOAD CLASS %" PRIu32 " %s", hr_get_u4(b), cn ? cn : "?");
        return;
    }
    case HPROF_TAG_FRAME:
        if (len != CTL_FRAME_SIZE(id)) {
            ctl_malformed(x, c, name, CTL_FRAME_SIZE(id));
            return;
        }
        ctl_map_put(&c->frame_method, hr_get_id(b, id), hr_get_id(b + id, id));
        ctl_map_put(&c->frame_class, hr_get_id(b, id), hr_get_u4(b + 4 * id));
        return;
    case HPROF_TAG_TRACE: {
        uint32_t nframes = len >= CTL_TRACE_FIXED ? hr_get_u4(b + 8) : 0;
        uint64_t need = CTL_TRACE_FIXED + (uint64_t)nframes * id;
        if (len != need) {
            ctl_malformed(x, c, name, need < CTL_TRACE_FIXED ? CTL_TRACE_FIXED : need);
            return;
        }
        if (nframes)
            ctl_map_put(&c->trace_frame, hr_get_u4(b), hr_get_id(b + CTL_TRACE_FIXED, id));
        return;
    }
    case HPROF_TAG_START_THREAD: {
        if (len != CTL_START_THREAD_SIZE(id)) {
            ctl_messages_show(x, c, NULL, 0);
            ctl_malformed(x, c, name, CTL_START_THREAD_SIZE(id));
            return;
        }
        uint32_t serial = hr_get_u4(b);
        uint64_t obj = hr_get_id(b + 4, id), tname = hr_get_id(b + 8 + id, id);
        const uint64_t names[] = { tname, hr_get_id(b + 8 + 2 * id, id),
                                   hr_get_id(b + 8 + 3 * id, id) };
        ctl_messages_show(x, c, names, sizeof names / sizeof names[0]);
        ctl_map_put(&c->thread_obj, serial, obj);
        ctl_map_put(&c->thread_name, serial, tname);
        ctl_show(x, c, "START THREAD %" PRIu32 " \"%s\" (object 0x%" PRIx64 ", group \"%s\")",
                 serial, ctl_name(c, tname, 0, n1, sizeof n1, "?"), obj,
                 ctl_name(c, hr_get_id(b + 8 + 2 * id, id), 0, n2, sizeof n2, "?"));
        return;
    }
    case HPROF_TAG_END_THREAD: {
        if (len != CTL_U4_RECORD_SIZE) {
            ctl_malformed(x, c, name, CTL_U4_RECORD_SIZE);
            return;
        }
        uint32_t serial = hr_get_u4(b);
        uint64_t tname;
        const char *tn = ctl_map_get(&c->thread_name, serial, &tname)
                             ? ctl_name(c, tname, 0, n1, sizeof n1, "?")
                             : "?";
        ctl_show(x, c, "END THREAD %" PRIu32 " \"%s\"", serial, tn);
        return;
    }
    case HPROF_TAG_ALLOC_SITES: {
        uint64_t nsites = len >= CTL_ALLOC_SITES_FIXED ? hr_get_u4(b + 30) : 0;
        uint64_t need = CTL_ALLOC_SITES_FIXED + nsites * CTL_ALLOC_SITE_SIZE;
        if (len != need) {
            ctl_malformed(x, c, name, need);
            return;
        }
        ctl_show_alloc_sites(x, c, b, have);
        return;
    }
    case HPROF_TAG_HEAP_SUMMARY:
        if (len != CTL_HEAP_SUMMARY_SIZE) {
            ctl_malformed(x, c, name, CTL_HEAP_SUMMARY_SIZE);
            return;
        }
        ctl_show(x, c,
                 "HEAP SUMMARY: live %" PRIu32 " bytes in %" PRIu32 " instances, allocated %" PRIu64
                 " bytes in %" PRIu64 " instances",
                 hr_get_u4(b), hr_get_u4(b + 4), hr_get_u8(b + 8), hr_get_u8(b + 16));
        return;
    case HPROF_TAG_CPU_SAMPLES: {
        uint64_t nsamples = len >= CTL_CPU_SAMPLES_FIXED ? hr_get_u4(b + 4) : 0;
        uint64_t need = CTL_CPU_SAMPLES_FIXED + nsamples * CTL_CPU_SAMPLE_SIZE;
        if (len != need) {
            ctl_malformed(x, c, name, need);
            return;
        }
        ctl_show_cpu_samples(x, c, b, have);
        return;
    }
    case HPROF_TAG_CONTROL_SETTINGS: {
        if (len != CTL_CONTROL_SIZE) {
            ctl_malformed(x, c, name, CTL_CONTROL_SIZE);
            return;
        }
        uint32_t flags = hr_get_u4(b);
        ctl_show(x, c,
                 "CONTROL SETTINGS: flags 0x%" PRIx32 " (alloc traces %s, cpu sampling %s), "
                 "depth %u",
                 flags, flags & HPROF_CTRL_ALLOC_TRACES ? "on" : "off",
                 flags & HPROF_CTRL_CPU_SAMPLING ? "on" : "off", (unsigned)hr_get_u2(b + 4));
        return;
    }
    default:
        return;
    }
}

/* How many body bytes of a record with this tag are kept for decoding. */
static size_t ctl_keep_size(uint8_t tag, uint32_t len, unsigned id)
{
    size_t cap;
    switch (tag) {
    case HPROF_TAG_UTF8:
        cap = id + CTL_NAME_MAX; /* the id and the start of the text */
        break;
    case HPROF_TAG_LOAD_CLASS:
    case HPROF_TAG_UNLOAD_CLASS:
    case HPROF_TAG_FRAME:
    case HPROF_TAG_START_THREAD:
    case HPROF_TAG_END_THREAD:
    case HPROF_TAG_HEAP_SUMMARY:
    case HPROF_TAG_CONTROL_SETTINGS:
        cap = CTL_START_THREAD_SIZE(8u); /* larger than any of them when well formed */
        break;
    case HPROF_TAG_TRACE:
        cap = CTL_TRACE_FIXED + 8u; /* the top frame is all that is shown */
        break;
    case HPROF_TAG_ALLOC_SITES:
    case HPROF_TAG_CPU_SAMPLES:
        cap = CTL_DECODE_MAX;
        break;
    default:
        return 0;
    }
    return len < cap ? len : cap;
}

/* ------------------------------------------------------------ heap dumps */

static void ctl_range_add(ctl_conn *c, uint64_t start, uint64_t end)
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
static int ctl_copy_range(ctl_ctx *x, ctl_conn *c, uint8_t *buf, uint64_t start, uint64_t end)
{
    while (start < end) {
        size_t want = end - start < CTL_COPY_CHUNK ? (size_t)(end - start) : CTL_COPY_CHUNK;
        ssize_t r = pread(c->main.fd, buf, want, (off_t)start);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            ctl_err("cannot read %s back for %s: %s", c->main.path, c->dump.path,
                    r < 0 ? strerror(errno) : "it is shorter than written");
            return -1;
        }
        ctl_file_write(x, &c->dump, buf, (size_t)r);
        start += (uint64_t)r;
    }
    return 0;
}

/* FILE.N gets what the main file holds minus heap dump 1: the header and
 * every non-dump record received so far, so it is complete on its own.
 * Returns 0, or -1 once the reason is reported. */
static int ctl_dump_prelude(ctl_ctx *x, ctl_conn *c)
{
    uint8_t *buf = c->ranges_lost ? NULL : malloc(CTL_COPY_CHUNK);
    if (!buf) {
        ctl_err("%s: out of memory", c->dump.path);
        return -1;
    }
    uint64_t pos = 0;
    int rc = 0;
    for (size_t i = 0; i < c->nranges && rc == 0; i++) {
        rc = ctl_copy_range(x, c, buf, pos, c->ranges[i].start);
        pos = c->ranges[i].end;
    }
    if (rc == 0)
        rc = ctl_copy_range(x, c, buf, pos, c->main_off);
    free(buf);
    return rc == 0 && !c->dump.failed ? 0 : -1;
}

static void ctl_dump_start(ctl_ctx *x, ctl_conn *c, int single)
{
    c->dump_open = 1;
    c->dump_single = single;
    c->ndumps++;
    c->dump_records = c->dump_bytes = 0;
    ctl_scan_reset(&c->scan, c->idsz);
    if (c->ndumps < 2)
        return;
    ctl_flush(x, c); /* the main file is read back for the prelude */
    size_t n = strlen(c->main.path) + 16;
    char *path = malloc(n);
    c->dump = (ctl_file){ -1, path, 1 }; /* failed until its prelude is in */
    if (!path) {
        ctl_err("out of memory: heap dump %u not written", c->ndumps);
        x->status = CTL_EXIT_ERROR;
        return;
    }
    snprintf(path, n, "%s.%u", c->main.path, c->ndumps);
    ctl_show(x, c, "heap dump %u: %s", c->ndumps, path);
    if (c->main.fd < 0 || c->main.failed) {
        ctl_err("%s not written: it would start with what %s holds, which could not be written",
                path, c->main.path);
        x->status = CTL_EXIT_ERROR;
        return;
    }
    if (ctl_file_open(x, &c->dump, path, 1) != 0)
        return;
    if (ctl_dump_prelude(x, c) != 0) { /* a file without its names is no use */
        ctl_err("%s removed: its prelude could not be written", path);
        close(c->dump.fd);
        unlink(path);
        c->dump.fd = -1;
        c->dump.failed = 1;
        x->status = CTL_EXIT_ERROR;
    }
}

/* The dump is complete (why NULL) or cut short (why says how). */
static void ctl_dump_end(ctl_ctx *x, ctl_conn *c, const char *why)
{
    ctl_flush(x, c);
    const ctl_scan *s = &c->scan;
    char where[CTL_SHOW_MAX / 4] = "", tail[CTL_SHOW_MAX / 4] = "", cut[CTL_SHOW_MAX / 4] = "";
    if (c->ndumps >= 2 && c->dump.path)
        snprintf(where, sizeof where, c->dump.fd >= 0 ? ", in %s" : ", %s not written",
                 c->dump.path);
    if (s->step == SS_DEAD)
        snprintf(tail, sizeof tail, "; counting stopped at a bad sub-record (tag 0x%02x)", s->tag);
    else if (s->step != SS_TAG || s->have || s->skip)
        snprintf(tail, sizeof tail, "; the last sub-record is cut");
    if (why)
        snprintf(cut, sizeof cut, " (incomplete: %s)", why);
    ctl_show(x, c,
             "HEAP DUMP %u: %" PRIu64 " %s, %" PRIu64 " bytes, %" PRIu64 " instances, %" PRIu64
             " arrays, %" PRIu64 " classes, %" PRIu64 " roots%s%s%s",
             c->ndumps, c->dump_records, c->dump_single ? "HEAP DUMP record" : "segments",
             c->dump_bytes, s->instances, s->arrays, s->classes, s->roots, where, tail, cut);
    if (c->ndumps >= 2)
        ctl_file_close(x, &c->dump);
    c->dump_open = 0;
}

/* ------------------------------------------------------------ the stream parser */

/* The record header c->rh is complete; inbuf points at it in the read
 * buffer, or is NULL when it came across two reads. */
static void ctl_rec_begin(ctl_ctx *x, ctl_conn *c, const uint8_t *inbuf)
{
    c->tag = c->rh[0];
    /* only names and the START THREAD that uses them come between a
     * thread's name and its START THREAD */
    if (c->nheld && c->tag != HPROF_TAG_UTF8 && c->tag != HPROF_TAG_START_THREAD)
        ctl_messages_show(x, c, NULL, 0);
    c->rec_len = hr_get_u4(c->rh + 5);
    c->rec_left = c->rec_len;
    c->rec_is_dump = 0;
    switch (c->tag) {
    case HPROF_TAG_HEAP_DUMP: /* a whole dump in one record */
        if (c->dump_open)
            ctl_dump_end(x, c, "a HEAP DUMP record came before its HEAP DUMP END");
        ctl_dump_start(x, c, 1);
        c->rec_is_dump = 1;
        break;
    case HPROF_TAG_HEAP_DUMP_SEGMENT:
        if (!c->dump_open)
            ctl_dump_start(x, c, 0);
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
        ctl_out(x, c, c->dest, inbuf, HPROF_RECORD_HEADER_SIZE);
    } else { /* c->rh is reused by the next header: written at once */
        ctl_out(x, c, c->dest, c->rh, HPROF_RECORD_HEADER_SIZE);
        ctl_flush(x, c);
    }
    c->rec_have = 0;
    c->rec_keep = c->rec_is_dump ? 0 : ctl_keep_size(c->tag, c->rec_len, c->idsz);
    if (c->rec_keep > c->rec_cap) {
        uint8_t *p = realloc(c->rec, c->rec_keep);
        if (p) {
            c->rec = p;
            c->rec_cap = c->rec_keep;
        }
    }
    c->phase = PH_REC_BODY;
}

static void ctl_rec_end(ctl_ctx *x, ctl_conn *c)
{
    c->records++;
    c->phase = PH_REC_HEADER;
    if (c->rec_is_dump && c->ndumps == 1)
        ctl_range_add(c, c->range_start, c->main_off);
    switch (c->tag) {
    case HPROF_TAG_HEAP_DUMP:
        ctl_dump_end(x, c, NULL);
        return;
    case HPROF_TAG_HEAP_DUMP_SEGMENT:
        return;
    case HPROF_TAG_HEAP_DUMP_END:
        if (c->rec_is_dump)
            ctl_dump_end(x, c, NULL);
        else if (ctl_problem_budget(x, c))
            ctl_show(x, c, "HEAP DUMP END without a heap dump");
        return;
    default:
        ctl_rec_show(x, c);
    }
}

static const char *const ctl_text_sections[] = {
    "SITES BEGIN",   "CPU SAMPLES BEGIN", "CPU TIME",    "HEAP DUMP BEGIN", "MONITOR DUMP BEGIN",
    "MONITOR TIME BEGIN", "HEAP SUMMARY", "THREAD START", "THREAD END", "HPROF", "JAVA PROFILE",
    "HEAP DUMP INCOMPLETE", /* a dump the agent could not finish: say so at once */
};

/* One complete line of a text stream. */
static void ctl_text_line(ctl_ctx *x, ctl_conn *c)
{
    size_t n = c->line_len;
    c->line_len = 0;
    c->lines++;
    while (n && (c->line[n - 1] == '\r' || c->line[n - 1] == '\n'))
        n--;
    c->line[n] = '\0';
    for (size_t i = 0; i < sizeof ctl_text_sections / sizeof ctl_text_sections[0]; i++) {
        const char *s = ctl_text_sections[i];
        if (strncmp(c->line, s, strlen(s)) != 0)
            continue;
        unsigned long long obj;
        unsigned serial;
        /* thread serials map to object ids for `cpu on SERIAL` */
        if (sscanf(c->line, "THREAD START (obj=%llx, id = %u", &obj, &serial) == 2)
            ctl_map_put(&c->thread_obj, serial, obj);
        char clean[CTL_LINE_MAX];
        ctl_clean(clean, sizeof clean, c->line, n, 0);
        ctl_show(x, c, "%s", clean);
        return;
    }
}

static void ctl_text_feed(ctl_ctx *x, ctl_conn *c, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            ctl_text_line(x, c);
            continue;
        }
        if (c->line_len + 1 < sizeof c->line) /* long lines: their start is enough */
            c->line[c->line_len++] = (char)p[i];
    }
}

/* The first HPROF_MAGIC_LEN + 1 bytes are in c->head (fewer at end of
 * stream): binary HPROF, text, or something else. */
static void ctl_detect(ctl_ctx *x, ctl_conn *c)
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
        ctl_show(x, c, "format: text");
        c->phase = PH_TEXT;
        ctl_text_feed(x, c, c->head, c->head_len);
    } else {
        char hex[3 * (HPROF_MAGIC_LEN + 1) + 1] = "";
        for (unsigned i = 0; i < c->head_len && i < 8; i++) {
            size_t hl = strlen(hex);
            snprintf(hex + hl, sizeof hex - hl, "%s%02x", i ? " " : "", c->head[i]);
        }
        ctl_show(x, c, "format: unknown (first bytes %s...): written as is, not shown", hex);
        c->phase = PH_RAW;
    }
}

/* The binary header is complete in c->head. */
static void ctl_header_done(ctl_ctx *x, ctl_conn *c)
{
    uint32_t idsz = hr_get_u4(c->head + HPROF_MAGIC_LEN + 1);
    uint64_t ts = hr_get_u8(c->head + HPROF_MAGIC_LEN + 5);
    if (idsz != 4 && idsz != 8) {
        ctl_show(x, c,
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
    ctl_show(x, c, "format: binary %.*s, id size %u, created %s", (int)HPROF_MAGIC_LEN,
             (const char *)c->head, c->idsz, when);
    c->phase = PH_REC_HEADER;
}

/* Everything the agent sent in one read. */
static void ctl_feed(ctl_ctx *x, ctl_conn *c, const uint8_t *buf, size_t n)
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
            ctl_out(x, c, CTL_DEST_MAIN, p, take);
            c->head_len += (unsigned)take;
            p += take;
            if (take == want) {
                if (c->phase == PH_MAGIC)
                    ctl_detect(x, c);
                else
                    ctl_header_done(x, c);
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
            ctl_rec_begin(x, c, start);
            if (c->rec_left == 0)
                ctl_rec_end(x, c);
            break;
        }
        case PH_REC_BODY: {
            size_t take = c->rec_left < avail ? (size_t)c->rec_left : avail;
            ctl_out(x, c, c->dest, p, take);
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
                ctl_rec_end(x, c);
            break;
        }
        case PH_TEXT:
            ctl_out(x, c, CTL_DEST_MAIN, p, avail);
            ctl_text_feed(x, c, p, avail);
            p = end;
            break;
        case PH_RAW:
            ctl_out(x, c, CTL_DEST_MAIN, p, avail);
            p = end;
            break;
        }
    }
    ctl_flush(x, c); /* the read buffer is reused */
    /* a message is shown when it arrives, not with the next output: a
     * thread's name and its START THREAD are written together, so they come
     * in one read but for rare splits */
    ctl_messages_show(x, c, NULL, 0);
}

/* ------------------------------------------------------------ agents */

static void ctl_conn_free(ctl_conn *c)
{
    ctl_map *maps[] = { &c->utf8, &c->class_name, &c->frame_method, &c->frame_class,
                        &c->trace_frame, &c->thread_obj, &c->thread_name };
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
        ctl_map_free(maps[i]);
    free(c->names);
    free(c->rec);
    free(c->ranges);
    free(c);
}

/* The agent is gone (or hprof-ctl stops): finish its files, say so. */
static void ctl_conn_close(ctl_ctx *x, ctl_conn *c, const char *why)
{
    const char *cut = "";
    if (c->phase == PH_MAGIC && c->head_len)
        ctl_detect(x, c);
    if (c->phase == PH_TEXT && c->line_len) {
        cut = ", ended inside a line";
        ctl_text_line(x, c);
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
        ctl_out(x, c, dest, c->rh, c->rh_len);
    }
    if (c->phase == PH_REC_BODY || (c->phase == PH_REC_HEADER && c->rh_len))
        cut = ", ended inside a record";
    else if (c->phase == PH_HEADER)
        cut = ", ended inside the file header";
    ctl_messages_show(x, c, NULL, 0);
    if (c->dump_open)
        ctl_dump_end(x, c, "the stream ended inside it");
    ctl_flush(x, c);
    ctl_file_close(x, &c->main);
    if (c->phase == PH_TEXT)
        ctl_show(x, c, "disconnected: %" PRIu64 " bytes, %" PRIu64 " lines%s%s", c->bytes, c->lines,
                 cut, why);
    else
        ctl_show(x, c, "disconnected: %" PRIu64 " bytes, %" PRIu64 " records%s%s", c->bytes,
                 c->records, cut, why);
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    for (size_t i = 0; i < x->nconns; i++) {
        if (x->conns[i] == c) {
            memmove(x->conns + i, x->conns + i + 1, (x->nconns - i - 1) * sizeof *x->conns);
            x->nconns--;
            break;
        }
    }
    ctl_conn_free(c);
}

static void ctl_format_addr(const struct sockaddr_storage *ss, socklen_t len, char *out, size_t cap)
{
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (getnameinfo((const struct sockaddr *)ss, len, host, sizeof host, serv, sizeof serv,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(out, cap, "?");
        return;
    }
    const char *h = host;
    if (strncmp(h, "::ffff:", 7) == 0 && strchr(h + 7, '.')) /* IPv4 on a dual-stack socket */
        h += 7;
    if (strchr(h, ':'))
        snprintf(out, cap, "[%s]:%s", h, serv);
    else
        snprintf(out, cap, "%s:%s", h, serv);
}

static void ctl_accept(ctl_ctx *x, int lfd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM) {
            ctl_err("accept: %s: new agents wait %g s", strerror(e), CTL_ACCEPT_PAUSE_S);
            x->accept_pause_until = ctl_now() + CTL_ACCEPT_PAUSE_S;
        } else if (e != EINTR && e != EAGAIN && e != ECONNABORTED) {
            ctl_err("accept: %s", strerror(e));
        }
        return;
    }
    ctl_conn *c = calloc(1, sizeof *c);
    char *path = ctl_agent_path(x->out, x->total + 1);
    if (x->nconns == x->cap_conns) {
        size_t cap = x->cap_conns ? 2 * x->cap_conns : 8;
        ctl_conn **p = realloc(x->conns, cap * sizeof *p);
        if (p) {
            x->conns = p;
            x->cap_conns = cap;
        }
    }
    if (!c || !path || x->nconns == x->cap_conns) {
        ctl_err("out of memory: connection refused");
        free(c);
        free(path);
        close(fd);
        x->status = CTL_EXIT_ERROR;
        return;
    }
    c->k = ++x->total;
    c->fd = fd;
    c->main.fd = c->dump.fd = -1;
    c->idsz = 8; /* text streams: the protocol's default id size */
    ctl_format_addr(&ss, len, c->addr, sizeof c->addr);
    x->conns[x->nconns++] = c;
    ctl_show(x, c, "connected from %s: writing %s", c->addr, path);
    ctl_file_open(x, &c->main, path, 0);
}

/* ------------------------------------------------------------ command parsing */

/* Parses one command or directive (already trimmed, non-empty). 0, or -1
 * with the reason in err. */
static int ctl_parse_command(const char *line, ctl_command *cmd, char *err, size_t errlen)
{
    memset(cmd, 0, sizeof *cmd);
    char buf[CTL_LINE_MAX];
    if (strlen(line) >= sizeof buf) {
        snprintf(err, errlen, "command too long");
        return -1;
    }
    memcpy(buf, line, strlen(line) + 1);
    char *tok[CTL_MAX_TOKENS];
    int nt = 0;
    for (char *save = NULL, *t = strtok_r(buf, " \t\r\n", &save); t;
         t = strtok_r(NULL, " \t\r\n", &save)) {
        if (nt == CTL_MAX_TOKENS) {
            snprintf(err, errlen, "too many words");
            return -1;
        }
        tok[nt++] = t;
    }
    int i = 0;
    if (nt && tok[0][0] == '@') {
        uint64_t k;
        if (ctl_parse_u64(tok[0] + 1, UINT32_MAX, &k) != 0 || k == 0) {
            snprintf(err, errlen, "'%s': @ takes an agent number from 1", tok[0]);
            return -1;
        }
        cmd->target = (unsigned)k;
        i = 1;
    }
    if (i >= nt) {
        snprintf(err, errlen, nt ? "no command after '%s'" : "no command%s", nt ? tok[0] : "");
        return -1;
    }
    const char *verb = tok[i];
    int nargs = nt - i - 1;
    char **args = tok + i + 1;
    hc_cmd *h = &cmd->cmd;
    cmd->kind = CK_SEND;

    /* directives: not sent, so not for one agent */
    if (!strcmp(verb, "sleep") || !strcmp(verb, "wait") || !strcmp(verb, "wait-agents")) {
        if (cmd->target) {
            snprintf(err, errlen, "%s is a directive: it takes no @agent", verb);
            return -1;
        }
        if (!strcmp(verb, "wait")) {
            const char *rest = strstr(line, "wait") + strlen("wait");
            rest += strspn(rest, " \t");
            size_t n = strlen(rest);
            while (n && strchr(" \t\r\n", rest[n - 1]))
                n--;
            if (!n) {
                snprintf(err, errlen, "wait needs the TEXT to wait for");
                return -1;
            }
            cmd->kind = CK_WAIT;
            snprintf(cmd->text, sizeof cmd->text, "%.*s", (int)n, rest);
            return 0;
        }
        int sleep = !strcmp(verb, "sleep");
        if (nargs != 1 || ctl_parse_u64(args[0], sleep ? UINT32_MAX : CTL_MAX_AGENTS_WANTED,
                                        &cmd->number) != 0 ||
            (!sleep && cmd->number == 0)) {
            snprintf(err, errlen, sleep ? "sleep takes milliseconds: sleep MS"
                                        : "wait-agents takes a number of agents from 1");
            return -1;
        }
        cmd->kind = sleep ? CK_SLEEP : CK_WAIT_AGENTS;
        snprintf(cmd->text, sizeof cmd->text, "%s %s", verb, args[0]);
        return 0;
    }

    static const struct {
        const char *name;
        uint8_t tag;
        uint16_t control;
    } simple[] = {
        { "dump", HC_DUMP_HEAP, 0 },
        { "summary", HC_HEAP_SUMMARY, 0 },
        { "gc", HC_FORCE_GC, 0 },
        { "traces", HC_DUMP_TRACES, 0 },
        { "exit", HC_EXIT, 0 },
        { "eof", HC_EOF, 0 },
        { "clear-samples", HC_CONTROL, HC_CTL_CLEAR_SAMPLES },
        { "clear-sites", HC_CONTROL, HC_CTL_CLEAR_SITES },
    };
    int ok = 0;
    if (!strcmp(verb, "quit")) {
        if (cmd->target) {
            snprintf(err, errlen, "quit stops hprof-ctl: it takes no @agent");
            return -1;
        }
        cmd->kind = CK_QUIT;
        ok = nargs == 0;
    }
    for (size_t s = 0; s < sizeof simple / sizeof simple[0]; s++) {
        if (!strcmp(verb, simple[s].name)) {
            h->tag = simple[s].tag;
            h->control = simple[s].control;
            ok = nargs == 0;
        }
    }
    if (!strcmp(verb, "sites") || !strcmp(verb, "samples")) {
        int sites = !strcmp(verb, "sites");
        h->tag = sites ? HC_ALLOC_SITES : HC_CPU_SAMPLES;
        ok = 1;
        for (int a = 0; a < nargs && ok; a++) {
            if (!strcmp(args[a], "cutoff"))
                ok = a + 1 < nargs && ctl_parse_cutoff(args[++a], &h->cutoff) == 0;
            else if (sites && !strcmp(args[a], "incremental"))
                h->flags |= HC_SITES_INCREMENTAL;
            else if (sites && !strcmp(args[a], "by-alloc"))
                h->flags |= HC_SITES_BY_ALLOC;
            else if (sites && !strcmp(args[a], "gc"))
                h->flags |= HC_SITES_FORCE_GC;
            else
                ok = 0;
        }
        if (!ok) {
            snprintf(err, errlen, sites ? "usage: sites [incremental] [by-alloc] [gc] [cutoff X], "
                                          "X from 0 to 1"
                                        : "usage: samples [cutoff X], X from 0 to 1");
            return -1;
        }
    }
    if (!strcmp(verb, "alloc") || !strcmp(verb, "cpu")) {
        int cpu = !strcmp(verb, "cpu");
        h->tag = HC_CONTROL;
        int on = nargs >= 1 && !strcmp(args[0], "on");
        ok = nargs >= 1 && (on || !strcmp(args[0], "off")) && nargs <= (cpu ? 2 : 1);
        if (cpu)
            h->control = on ? HC_CTL_CPU_ON : HC_CTL_CPU_OFF;
        else
            h->control = on ? HC_CTL_ALLOC_ON : HC_CTL_ALLOC_OFF;
        if (ok && nargs == 2) {
            const char *t = args[1];
            if (!strncmp(t, "0x", 2) || !strncmp(t, "0X", 2)) {
                ok = ctl_parse_hex(t + 2, &cmd->thread) == 0;
                cmd->thread_kind = cmd->thread ? CT_ID : CT_ALL;
            } else {
                ok = ctl_parse_u64(t, UINT32_MAX, &cmd->thread) == 0;
                cmd->thread_kind = cmd->thread ? CT_SERIAL : CT_ALL;
            }
        }
        if (!ok) {
            snprintf(err, errlen, cpu ? "usage: cpu on|off [THREAD]: THREAD a thread serial "
                                        "(decimal), an object id (0x...) or 0 for all"
                                      : "usage: alloc on|off");
            return -1;
        }
    }
    if (!strcmp(verb, "depth")) {
        uint64_t d = 0;
        ok = nargs == 1 && ctl_parse_u64(args[0], CTL_MAX_DEPTH, &d) == 0;
        if (!ok) {
            snprintf(err, errlen, "usage: depth N, N from 0 to %u", CTL_MAX_DEPTH);
            return -1;
        }
        h->tag = HC_CONTROL;
        h->control = HC_CTL_SET_DEPTH;
        h->depth = (uint16_t)d;
    }
    if (!h->tag && cmd->kind == CK_SEND) {
        snprintf(err, errlen, "unknown command '%s' (hprof-ctl help lists them)", verb);
        return -1;
    }
    if (!ok) {
        snprintf(err, errlen, "'%s' takes no arguments", verb);
        return -1;
    }
    /* the echo: the words as typed, one space apart */
    size_t len = 0;
    for (int a = i; a < nt && len < sizeof cmd->text; a++) {
        int w = snprintf(cmd->text + len, sizeof cmd->text - len, "%s%s", a > i ? " " : "", tok[a]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return 0;
}

/* Trims blanks; returns NULL for a blank line or a # comment. */
static char *ctl_trim(char *s)
{
    s += strspn(s, " \t\r\n");
    size_t n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1]))
        s[--n] = '\0';
    return *s && *s != '#' ? s : NULL;
}

/* ------------------------------------------------------------ command execution */

static ctl_conn *ctl_find(ctl_ctx *x, unsigned k)
{
    for (size_t i = 0; i < x->nconns; i++)
        if (x->conns[i]->k == k)
            return x->conns[i];
    return NULL;
}

/* Sends cmd to one agent. 1 if sent. */
static int ctl_send_one(ctl_ctx *x, ctl_conn *c, const ctl_command *cmd, uint32_t serial)
{
    hc_cmd h = cmd->cmd;
    h.serial = serial;
    h.id_size = c->binary ? c->idsz : 8;
    char note[CTL_LINE_MAX / 4] = "";
    if (cmd->thread_kind == CT_ID) {
        h.thread_id = cmd->thread;
    } else if (cmd->thread_kind == CT_SERIAL) {
        /* the protocol names threads by object id, as START THREAD does. An
         * id of 0 there (a thread the agent has not tagged) would mean "all
         * threads": then the serial goes as is, which this project's agent
         * also matches. */
        if (ctl_map_get(&c->thread_obj, cmd->thread, &h.thread_id) && h.thread_id) {
            snprintf(note, sizeof note, ", thread object id 0x%" PRIx64, h.thread_id);
        } else {
            h.thread_id = cmd->thread;
            snprintf(note, sizeof note, ", thread serial sent as is: no object id seen for it");
        }
    }
    uint8_t buf[HC_HEADER_SIZE + HC_MAX_PAYLOAD];
    size_t n = hc_encode(&h, buf, sizeof buf);
    if (n == 0 || n > sizeof buf) {
        ctl_err("'%s' cannot be encoded for agent %u (a thread id of 0x%" PRIx64
                " with %u-byte ids?): not sent",
                cmd->text, c->k, h.thread_id, h.id_size);
        return 0;
    }
    if (c->cmds_closed) {
        if (!c->refusal_shown) /* once per agent: a script may send thousands */
            ctl_err("'%s' not sent to agent %u: it takes no more commands (%s); nor will the "
                    "next ones be",
                    cmd->text, c->k, c->send_failed ? "its command channel is closed" : "it was sent EOF");
        c->refusal_shown = 1;
        return 0;
    }
    /* never block: one agent that does not read its commands must not
     * stall the others, stdin or quit. A command is a few bytes, so it
     * goes whole unless the agent has left a full socket buffer unread;
     * then (or on a partial send) the channel to it is shut down, which
     * also keeps the stream framed: the agent sees its input end. */
    ssize_t w;
    do
        w = send(c->fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w != (ssize_t)n) {
        int e = w < 0 ? errno : EAGAIN;
        if (!c->send_failed)
            ctl_err("cannot send '%s' to agent %u: %s; no more commands go to it",
                    cmd->text, c->k,
                    e == EAGAIN || e == EWOULDBLOCK ? "it is not reading its commands" : strerror(e));
        c->send_failed = 1;
        c->cmds_closed = 1;
        shutdown(c->fd, SHUT_WR);
        return 0;
    }
    if (h.tag == HC_EOF)
        c->cmds_closed = 1; /* the agent reads no more (it drains them) */
    if (h.tag == HC_EOF)
        printf("[%u] -> %s\n", c->k, cmd->text);
    else
        printf("[%u] -> %s (serial %" PRIu32 "%s)\n", c->k, cmd->text, serial, note);
    fflush(stdout);
    return 1;
}

static void ctl_exec(ctl_ctx *x, const ctl_command *cmd)
{
    double now = ctl_now();
    switch (cmd->kind) {
    case CK_QUIT:
        x->quit = 1;
        return;
    case CK_SLEEP:
        x->sleep_until = now + (double)cmd->number / CTL_MS_PER_S;
        return;
    case CK_WAIT:
        free(x->wait_text);
        x->wait_text = strdup(cmd->text);
        x->wait_found = x->wait_text && x->log && strstr(x->log, x->wait_text) != NULL;
        x->wait_deadline = now + x->timeout_s;
        return;
    case CK_WAIT_AGENTS:
        x->wait_agents = (unsigned)cmd->number;
        x->wait_deadline = now + x->timeout_s;
        return;
    case CK_SEND:
        break;
    }
    ctl_conn *one = NULL;
    if (cmd->target) {
        one = ctl_find(x, cmd->target);
        if (!one) {
            ctl_err("no agent %u connected: '%s' not sent", cmd->target, cmd->text);
            return;
        }
    } else if (!x->nconns) {
        ctl_err("no agent connected: '%s' not sent", cmd->text);
        return;
    }
    /* EOF carries no serial: it does not use one up */
    uint32_t serial = cmd->cmd.tag == HC_EOF ? 0 : x->serial + 1;
    int sent = 0;
    if (one) {
        sent = ctl_send_one(x, one, cmd, serial);
    } else {
        for (size_t i = 0; i < x->nconns; i++)
            sent |= ctl_send_one(x, x->conns[i], cmd, serial);
    }
    if (sent) {
        if (serial)
            x->serial = serial;
        x->log_len = 0; /* `wait` looks at what comes after this command */
        if (x->log)
            x->log[0] = '\0';
    }
}

/* Runs a command line from stdin: errors are reported, not fatal. */
static void ctl_exec_line(ctl_ctx *x, char *line)
{
    char *t = ctl_trim(line);
    if (!t)
        return;
    ctl_command cmd;
    char err[CTL_LINE_MAX];
    if (ctl_parse_command(t, &cmd, err, sizeof err) != 0) {
        ctl_err("%s", err);
        return;
    }
    ctl_exec(x, &cmd);
}

/* Is a directive still holding the commands back? Ends the program with
 * CTL_EXIT_TIMEOUT when a wait is over without success. */
static int ctl_blocked(ctl_ctx *x, double now, int *exit_code)
{
    if (x->sleep_until) {
        if (now < x->sleep_until)
            return 1;
        x->sleep_until = 0;
    }
    if (x->wait_text) {
        if (x->wait_found) {
            free(x->wait_text);
            x->wait_text = NULL;
            return 0;
        }
        if (now >= x->wait_deadline) {
            ctl_err("wait '%s': not seen within %g s", x->wait_text, x->timeout_s);
            *exit_code = CTL_EXIT_TIMEOUT;
            return 1;
        }
        if (!x->nconns && x->total >= x->agents_wanted) {
            ctl_err("wait '%s': not seen before every agent disconnected", x->wait_text);
            *exit_code = CTL_EXIT_TIMEOUT;
            return 1;
        }
        return 1;
    }
    if (x->wait_agents) {
        if (x->total >= x->wait_agents) {
            x->wait_agents = 0;
            return 0;
        }
        if (now >= x->wait_deadline) {
            ctl_err("wait-agents %u: only %u agent(s) connected within %g s", x->wait_agents,
                    x->total, x->timeout_s);
            *exit_code = CTL_EXIT_TIMEOUT;
        }
        return 1;
    }
    return 0;
}

/* Runs the commands that can run now: arguments, then the script, then
 * complete stdin lines. Sets *exit_code (>= 0) to end the program. */
static void ctl_pump(ctl_ctx *x, int *exit_code)
{
    while (!x->quit && *exit_code < 0) {
        if (ctl_blocked(x, ctl_now(), exit_code))
            return;
        if (x->stage != STAGE_STDIN && x->total == 0)
            return; /* arguments and script wait for the first agent */
        if (x->stage == STAGE_ARGS) {
            if (x->pos < x->nargs) {
                ctl_command cmd;
                char err[CTL_LINE_MAX];
                /* checked at start-up */
                if (ctl_parse_command(ctl_trim(x->args[x->pos++]), &cmd, err, sizeof err) == 0)
                    ctl_exec(x, &cmd);
                continue;
            }
            x->stage = STAGE_SCRIPT;
            x->pos = 0;
        }
        if (x->stage == STAGE_SCRIPT) {
            if (x->pos < x->nlines) {
                ctl_command cmd;
                char err[CTL_LINE_MAX];
                if (ctl_parse_command(x->lines[x->pos++].text, &cmd, err, sizeof err) == 0)
                    ctl_exec(x, &cmd);
                continue;
            }
            x->stage = STAGE_STDIN;
        }
        char *nl = memchr(x->stdin_buf, '\n', x->stdin_len);
        if (!nl && !x->stdin_open && x->stdin_len) /* a last line without newline */
            nl = x->stdin_buf + x->stdin_len;
        if (!nl)
            return;
        char line[CTL_STDIN_MAX + 1];
        size_t n = (size_t)(nl - x->stdin_buf);
        memcpy(line, x->stdin_buf, n);
        line[n] = '\0';
        size_t used = n < x->stdin_len ? n + 1 : n;
        memmove(x->stdin_buf, x->stdin_buf + used, x->stdin_len - used);
        x->stdin_len -= used;
        ctl_exec_line(x, line);
    }
}

static void ctl_read_stdin(ctl_ctx *x)
{
    if (x->stdin_len == sizeof x->stdin_buf) { /* a line too long: dropped */
        if (!x->stdin_overlong)
            ctl_err("a command line longer than %u bytes: ignored", CTL_STDIN_MAX);
        x->stdin_overlong = 1;
        x->stdin_len = 0;
    }
    ssize_t r = read(STDIN_FILENO, x->stdin_buf + x->stdin_len, sizeof x->stdin_buf - x->stdin_len);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (r <= 0) {
        x->stdin_open = 0;
        return;
    }
    if (x->stdin_overlong) { /* skip the rest of the long line */
        char *nl = memchr(x->stdin_buf, '\n', (size_t)r);
        if (!nl)
            return;
        size_t skip = (size_t)(nl - x->stdin_buf) + 1;
        memmove(x->stdin_buf, x->stdin_buf + skip, (size_t)r - skip);
        r -= (ssize_t)skip;
        x->stdin_overlong = 0;
    }
    x->stdin_len += (size_t)r;
}

/* ------------------------------------------------------------ the loop */

static void ctl_read_agent(ctl_ctx *x, ctl_conn *c)
{
    ssize_t r = recv(c->fd, x->rbuf, CTL_READ_CHUNK, 0);
    if (r < 0) {
        if (errno == EINTR || errno == EAGAIN)
            return;
        char why[CTL_LINE_MAX];
        snprintf(why, sizeof why, " (%s)", strerror(errno));
        ctl_conn_close(x, c, why);
        return;
    }
    if (r == 0) {
        ctl_conn_close(x, c, "");
        return;
    }
    ctl_feed(x, c, x->rbuf, (size_t)r);
}

/* The poll timeout in ms until the next deadline, -1 for none. */
static int ctl_poll_timeout(const ctl_ctx *x, double now)
{
    double next = -1;
    if (x->timeout_given && x->total == 0)
        next = x->start + x->timeout_s;
    if (x->sleep_until && (next < 0 || x->sleep_until < next))
        next = x->sleep_until;
    if ((x->wait_text || x->wait_agents) && (next < 0 || x->wait_deadline < next))
        next = x->wait_deadline;
    if (x->accept_pause_until > now && (next < 0 || x->accept_pause_until < next))
        next = x->accept_pause_until;
    if (next < 0)
        return -1;
    double ms = (next - now) * CTL_MS_PER_S;
    if (ms <= 0)
        return 0;
    return ms > INT32_MAX ? INT32_MAX : (int)ms + 1;
}

static int ctl_loop(ctl_ctx *x)
{
    int exit_code = -1;
    struct pollfd *pfd = NULL;
    ctl_conn **polled = NULL; /* the agents of pfd: reading one may close it */
    size_t cap = 0;
    for (;;) {
        ctl_pump(x, &exit_code);
        if (x->quit)
            exit_code = x->status;
        double now = ctl_now();
        if (exit_code < 0 && x->timeout_given && x->total == 0 && now >= x->start + x->timeout_s) {
            ctl_err("no agent connected within %g s", x->timeout_s);
            exit_code = CTL_EXIT_TIMEOUT;
        }
        int directive_pending = x->sleep_until || x->wait_text || x->wait_agents;
        if (exit_code < 0 && x->total >= x->agents_wanted && !x->nconns &&
            x->stage == STAGE_STDIN && !directive_pending)
            exit_code = x->status;
        if (exit_code >= 0)
            break;

        size_t need = x->nconns + (size_t)x->nlfd + 1;
        if (need > cap) {
            struct pollfd *p = realloc(pfd, need * sizeof *p);
            if (p)
                pfd = p;
            ctl_conn **q = realloc(polled, need * sizeof *q);
            if (q)
                polled = q;
            if (!p || !q) {
                ctl_err("out of memory");
                exit_code = CTL_EXIT_ERROR;
                break;
            }
            cap = need;
        }
        size_t n = 0;
        /* poll ignores a negative fd: no accepting while out of fds */
        for (int i = 0; i < x->nlfd; i++)
            pfd[n++] = (struct pollfd){ .fd = now < x->accept_pause_until ? -1 : x->lfd[i],
                                        .events = POLLIN };
        /* a full buffer that holds whole lines waits for them to run (a
         * sleep or wait directive holds them back): read no more until then */
        int with_stdin = x->stage == STAGE_STDIN && x->stdin_open &&
                         !(x->stdin_len == sizeof x->stdin_buf &&
                           memchr(x->stdin_buf, '\n', x->stdin_len));
        size_t stdin_at = n;
        if (with_stdin)
            pfd[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
        size_t first = n, nc = x->nconns;
        for (size_t i = 0; i < nc; i++) {
            polled[i] = x->conns[i];
            pfd[n++] = (struct pollfd){ .fd = polled[i]->fd, .events = POLLIN };
        }
        int r = poll(pfd, n, ctl_poll_timeout(x, now));
        if (r < 0 && errno != EINTR) {
            ctl_err("poll: %s", strerror(errno));
            exit_code = CTL_EXIT_ERROR;
            break;
        }
        if (r <= 0)
            continue;
        /* agents first: what they sent is shown before a new agent's line */
        for (size_t i = 0; i < nc; i++)
            if (pfd[first + i].revents)
                ctl_read_agent(x, polled[i]);
        if (with_stdin && pfd[stdin_at].revents)
            ctl_read_stdin(x);
        for (int i = 0; i < x->nlfd; i++)
            if (pfd[i].revents & POLLIN)
                ctl_accept(x, x->lfd[i]);
    }
    free(pfd);
    free(polled);
    while (x->nconns)
        ctl_conn_close(x, x->conns[0], x->quit ? ", closed by quit" : ", closed by hprof-ctl");
    return exit_code;
}

/* ------------------------------------------------------------ start-up */

static void ctl_usage(FILE *f)
{
    fputs(
        "usage: hprof-ctl listen PORT [options] [COMMAND ...]\n"
        "       hprof-ctl help\n"
        "\n"
        "The front end of the agent's socket channel: run it, then start the JVM with\n"
        "  java -agentlib:hprof=net=HOST:PORT,format=b,... App\n"
        "It receives each agent's whole output into a file, shows what arrives, one\n"
        "line per record, and sends the agents commands.\n"
        "\n"
        "options:\n"
        "  PORT               the TCP port to listen on (0: any free port)\n"
        "  --out FILE         agent 1's file (default " CTL_DEFAULT_OUT "); agent k writes\n"
        "                     FILE with -k before its extension (run.hprof -> run-2.hprof)\n"
        "                     Heap dumps 2, 3, ... of an agent go to complete files of\n"
        "                     their own, FILE.2, FILE.3, ...\n"
        "  --any              listen on every address of this machine (by default: on\n"
        "                     the loopback addresses only, 127.0.0.1 and ::1; --loopback,\n"
        "                     kept for old scripts, says so). Anyone who can reach the\n"
        "                     port can connect as an agent and have what it sends\n"
        "                     written: there is no authentication\n"
        "  --bind ADDR        listen on this one IPv4 or IPv6 address (the same warning)\n"
        "  --port-file F      write the port to F once listening (for PORT 0)\n"
        "  --script F         run the commands of F (one per line, # comments)\n"
        "  --agents N         run until N agents have connected and all have gone (1)\n"
        "  --timeout S        seconds to wait for the first agent (default: forever), and\n"
        "                     for each wait and wait-agents (default 60)\n"
        "\n"
        "commands (the arguments, then the script, then stdin; each goes to every\n"
        "connected agent, or to agent k only with a leading @k):\n"
        "  dump                        DUMP HEAP\n"
        "  sites [incremental] [by-alloc] [gc] [cutoff X]    ALLOC SITES (cutoff 0..1)\n"
        "  summary                     HEAP SUMMARY\n"
        "  gc                          FORCE GC\n"
        "  traces                      DUMP TRACES\n"
        "  samples [cutoff X]          CPU SAMPLES\n"
        "  alloc on|off                CONTROL: allocation tracking\n"
        "  cpu on|off [THREAD]         CONTROL: CPU sampling of all threads (THREAD 0,\n"
        "                              the default) or one: its object id as 0x..., or\n"
        "                              its serial (sent as the object id its START THREAD\n"
        "                              gave, or as is when that was 0 or not seen)\n"
        "  clear-samples, clear-sites  CONTROL: clear the CPU samples or the sites\n"
        "  depth N                     CONTROL: stack depth\n"
        "  exit                        EXIT\n"
        "  eof                         the EOF byte: the agent stops reading commands\n"
        "  quit                        close every connection and stop\n"
        "directives:\n"
        "  sleep MS                    pause the commands for MS milliseconds\n"
        "  wait TEXT                   until a line shown since the last command sent\n"
        "                              contains TEXT (exit 3 after --timeout)\n"
        "  wait-agents N               until N agents have connected\n"
        "\n"
        "Commands from the arguments and the script run once the first agent has\n"
        "connected. hprof-ctl exits when --agents agents have connected and all have\n"
        "disconnected, and the arguments and the script are done, or on quit.\n"
        "\n"
        "exit status: 0 OK, 1 an error (cannot listen, cannot write a file),\n"
        "2 usage error, 3 timeout\n",
        f);
}

static int ctl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int ctl_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hprof-ctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n\n", stderr);
    va_end(ap);
    ctl_usage(stderr);
    return CTL_EXIT_USAGE;
}

/* Reads the script into x->lines, checking every command. */
static int ctl_load_script(ctl_ctx *x)
{
    FILE *f = fopen(x->script, "r");
    if (!f) {
        ctl_err("cannot read %s: %s", x->script, strerror(errno));
        return CTL_EXIT_ERROR;
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0;
    int rc = CTL_EXIT_OK;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *t = ctl_trim(line);
        if (!t)
            continue;
        ctl_command cmd;
        char err[CTL_LINE_MAX];
        if (ctl_parse_command(t, &cmd, err, sizeof err) != 0) {
            rc = ctl_usage_error("%s:%u: %s", x->script, lineno, err);
            break;
        }
        ctl_script_line *p = realloc(x->lines, (x->nlines + 1) * sizeof *p);
        char *copy = strdup(t);
        if (!p || !copy) {
            free(copy);
            if (p)
                x->lines = p;
            ctl_err("out of memory");
            rc = CTL_EXIT_ERROR;
            break;
        }
        x->lines = p;
        x->lines[x->nlines++] = (ctl_script_line){ copy, lineno };
    }
    if (rc == CTL_EXIT_OK && ferror(f)) {
        ctl_err("cannot read %s: %s", x->script, strerror(errno));
        rc = CTL_EXIT_ERROR;
    }
    free(line);
    fclose(f);
    return rc;
}

/* Fails early when FILE's directory cannot be written. */
static int ctl_check_out(const char *out)
{
    char *dir = strdup(out);
    if (!dir)
        return CTL_EXIT_ERROR;
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash) {
        slash[slash == dir ? 1 : 0] = '\0';
        d = dir;
    }
    int rc = CTL_EXIT_OK;
    if (access(d, W_OK | X_OK) != 0) {
        ctl_err("cannot write %s: %s", out, strerror(errno));
        rc = CTL_EXIT_ERROR;
    }
    free(dir);
    return rc;
}

static int ctl_write_port_file(const char *path, unsigned port)
{
    size_t n = strlen(path) + 5;
    char *tmp = malloc(n);
    if (!tmp)
        return -1;
    snprintf(tmp, n, "%s.tmp", path);
    /* created here (never written through a link planted at F.tmp), then
     * renamed whole over F (rename replaces a link, it does not follow it):
     * a reader never sees a partial number */
    int err = 0;
    char why[256];
    int fd = hw_file_create(tmp, HW_FILE_FRESH, &err, why, sizeof why);
    if (fd < 0) {
        ctl_err("cannot write %s: %s", tmp, why);
        free(tmp);
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f)
        close(fd);
    int ok = f && fprintf(f, "%u\n", port) > 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        ctl_err("cannot write %s: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

/* Takes an option's value from "--opt=V" or the next argument. */
static const char *ctl_opt_value(int argc, char **argv, int *i, const char *name)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (a[n] == '=')
        return a + n + 1;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

static int ctl_is_opt(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

static int ctl_parse_args(ctl_ctx *x, int argc, char **argv)
{
    int port_seen = 0, end_of_opts = 0;
    x->args = calloc((size_t)argc, sizeof *x->args);
    if (!x->args) {
        ctl_err("out of memory");
        return CTL_EXIT_ERROR;
    }
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!end_of_opts && a[0] == '-' && a[1]) {
            const char *v;
            if (!strcmp(a, "--")) {
                end_of_opts = 1;
            } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
                ctl_usage(stdout);
                return CTL_DONE;
            } else if (!strcmp(a, "--loopback") || !strcmp(a, "--any") ||
                       ctl_is_opt(a, "--bind")) {
                const char *where = !strcmp(a, "--any") ? "*" : NULL;
                if (ctl_is_opt(a, "--bind")) {
                    struct sockaddr_storage ss;
                    socklen_t sl;
                    if (!(v = ctl_opt_value(argc, argv, &i, "--bind")) ||
                        hc_net_parse_addr(v, 0, &ss, &sl) != 0)
                        return ctl_usage_error("--bind takes an IPv4 or IPv6 address, not '%s'",
                                               v ? v : "");
                    where = v;
                }
                if (x->bind_given &&
                    ((where == NULL) != (x->bind == NULL) || (where && strcmp(where, x->bind))))
                    return ctl_usage_error("--loopback, --any and --bind say where to listen: "
                                           "give one of them");
                x->bind = where;
                x->bind_given = 1;
            } else if (ctl_is_opt(a, "--out")) {
                if (!(v = ctl_opt_value(argc, argv, &i, "--out")) || !*v)
                    return ctl_usage_error("--out needs a FILE");
                x->out = v;
            } else if (ctl_is_opt(a, "--port-file")) {
                if (!(v = ctl_opt_value(argc, argv, &i, "--port-file")) || !*v)
                    return ctl_usage_error("--port-file needs a FILE");
                x->port_file = v;
            } else if (ctl_is_opt(a, "--script")) {
                if (!(v = ctl_opt_value(argc, argv, &i, "--script")) || !*v)
                    return ctl_usage_error("--script needs a FILE");
                x->script = v;
            } else if (ctl_is_opt(a, "--agents")) {
                uint64_t nag;
                v = ctl_opt_value(argc, argv, &i, "--agents");
                if (!v || ctl_parse_u64(v, CTL_MAX_AGENTS_WANTED, &nag) != 0 || nag == 0)
                    return ctl_usage_error("--agents takes a number from 1 to %u, not '%s'",
                                           CTL_MAX_AGENTS_WANTED, v ? v : "");
                x->agents_wanted = (unsigned)nag;
            } else if (ctl_is_opt(a, "--timeout")) {
                v = ctl_opt_value(argc, argv, &i, "--timeout");
                char *end = NULL;
                double s = v && *v ? strtod(v, &end) : -1;
                if (!v || !*v || *end || !isfinite(s) || s <= 0 || s > CTL_MAX_TIMEOUT_S)
                    return ctl_usage_error("--timeout takes seconds (a number > 0), not '%s'",
                                           v ? v : "");
                x->timeout_s = s;
                x->timeout_given = 1;
            } else {
                return ctl_usage_error("unknown option '%s'", a);
            }
            continue;
        }
        if (!port_seen) {
            uint64_t p;
            if (ctl_parse_u64(a, CTL_MAX_PORT, &p) != 0)
                return ctl_usage_error("PORT must be a number from 0 to %u, not '%s'", CTL_MAX_PORT,
                                       a);
            x->port = (unsigned)p;
            port_seen = 1;
            continue;
        }
        char *t = ctl_trim(argv[i]);
        if (!t)
            return ctl_usage_error("an empty command argument");
        ctl_command cmd;
        char err[CTL_LINE_MAX];
        if (ctl_parse_command(t, &cmd, err, sizeof err) != 0)
            return ctl_usage_error("command '%s': %s", t, err);
        x->args[x->nargs++] = t;
    }
    if (!port_seen)
        return ctl_usage_error("listen needs a PORT");
    return CTL_EXIT_OK;
}

/* True when `addr` (NULL: the default) is a loopback address: 127.0.0.0/8,
 * ::1, ::ffff:127.x.y.z. Only the machine's own users can connect there. */
static int ctl_is_loopback(const char *addr)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    if (!addr)
        return 1;
    if (hc_net_parse_addr(addr, 0, &ss, &sl) != 0) /* "*" */
        return 0;
    if (ss.ss_family == AF_INET)
        return (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
    const struct in6_addr *a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

static void ctl_free(ctl_ctx *x)
{
    for (size_t i = 0; i < x->nlines; i++)
        free(x->lines[i].text);
    free(x->lines);
    free(x->args);
    free(x->conns);
    free(x->wait_text);
    free(x->log);
    free(x->rbuf);
    for (int i = 0; i < x->nlfd; i++)
        close(x->lfd[i]);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return ctl_usage_error("missing COMMAND");
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        ctl_usage(stdout);
        return CTL_EXIT_OK;
    }
    if (strcmp(argv[1], "listen") != 0)
        return ctl_usage_error("unknown command '%s'", argv[1]);
    /* a dead agent socket is reported by send(MSG_NOSIGNAL); a closed stdout
     * must not kill the receiving of the profiles either */
    signal(SIGPIPE, SIG_IGN);

    ctl_ctx x;
    memset(&x, 0, sizeof x);
    x.nlfd = 0;
    x.out = CTL_DEFAULT_OUT;
    x.agents_wanted = 1;
    x.timeout_s = CTL_DEFAULT_TIMEOUT_S;
    x.stdin_open = 1;
    int rc = ctl_parse_args(&x, argc, argv);
    if (rc == CTL_EXIT_OK && x.script)
        rc = ctl_load_script(&x);
    if (rc == CTL_EXIT_OK)
        rc = ctl_check_out(x.out);
    if (rc == CTL_EXIT_OK && !(x.rbuf = malloc(CTL_READ_CHUNK))) {
        ctl_err("out of memory");
        rc = CTL_EXIT_ERROR;
    }
    if (rc != CTL_EXIT_OK) {
        ctl_free(&x);
        return rc == CTL_DONE ? CTL_EXIT_OK : rc;
    }
    char err[CTL_LINE_MAX];
    unsigned bound = 0;
    int n = hc_net_listen(x.bind, x.port, x.lfd, &bound, err, sizeof err);
    if (n < 0) {
        ctl_err("%s", err);
        ctl_free(&x);
        return CTL_EXIT_ERROR;
    }
    x.nlfd = n;
    x.port = bound;
    printf("hprof-ctl: listening on port %u\n", x.port);
    if (!x.bind)
        printf("hprof-ctl: on the loopback addresses only: 127.0.0.1%s (--any for other "
               "machines)\n", n > 1 ? " and [::1]" : " (this machine has no IPv6 loopback)");
    fflush(stdout);
    if (!ctl_is_loopback(x.bind)) /* on stderr: not for scripts, for the person */
        ctl_err("warning: listening on %s: anyone who can reach port %u can connect as an "
                "agent and have what it sends written to %s (there is no authentication)",
                strcmp(x.bind, "*") ? x.bind : "every address of this machine", x.port, x.out);
    if (x.port_file && ctl_write_port_file(x.port_file, x.port) != 0) {
        ctl_free(&x);
        return CTL_EXIT_ERROR;
    }
    x.start = ctl_now();
    rc = ctl_loop(&x);
    ctl_free(&x);
    return rc;
}
