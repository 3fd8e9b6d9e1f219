/*
 * test_errors.c: failures on the way out and bad input on the way in.
 *
 * Writer side:
 *  - a custom sink that fails with ENOSPC after N bytes (many N): the error
 *    is latched (hw_writer_error, every later call returns ENOSPC and writes
 *    nothing, the sink is not written again, close returns ENOSPC with a
 *    message holding strerror(ENOSPC)); the bytes that reached the sink are
 *    exactly a prefix of the good output, the reader reports truncation or a
 *    clean end (at a record boundary), and every record before the cut is
 *    delivered intact;
 *  - a pipe whose read end is closed, and a socket whose peer is closed:
 *    EPIPE latched, the process is not killed by SIGPIPE and none is left
 *    pending; a closed fd: EBADF;
 *  - hw_sink_file on a path that cannot be created: NULL with the errno.
 * Reader side:
 *  - a small valid file cut at every byte offset: never a crash (the cut
 *    copy is exactly sized, so ASan sees any over-read), truncation reported
 *    unless the cut falls on a record boundary;
 *  - garbage headers refused; lying lengths and bad types reported, with
 *    every pointer handed to a callback walked to its announced end.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#define CHECK_EQ(a, b)                                                              \
    do {                                                                            \
        unsigned long long a_ = (unsigned long long)(a);                            \
        unsigned long long b_ = (unsigned long long)(b);                            \
        if (a_ != b_)                                                               \
            fprintf(stderr, "\n  %s:%d: %s = %#llx, expected %s = %#llx\n",         \
                    __FILE__, __LINE__, #a, a_, #b, b_);                            \
        CU_ASSERT(a_ == b_);                                                        \
    } while (0)

/* ------------------------------------------------------- event log */

enum { EV_RECORD = 1, EV_SUB, EV_PROBLEM };

typedef struct ev {
    int kind;
    uint8_t tag;
    uint32_t length;
    uint64_t offset;
    uint64_t end; /* RECORD: end of the record; SUB: end of its record */
    uint8_t *data;
    size_t ndata;
    char pkind[40];
} ev;

typedef struct evlog {
    ev *v;
    size_t n, cap;
    unsigned id_size;
    uint64_t cur_rec_end;
    uint64_t sum; /* of every byte the callbacks were handed */
} evlog;

static ev *log_add(evlog *l, int kind)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 256;
        ev *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            abort();
        l->v = nv;
        l->cap = nc;
    }
    ev *e = &l->v[l->n++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    return e;
}

static void log_free(evlog *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].data);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static uint64_t touch(const uint8_t *p, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += p[i];
    return s;
}

static int cb_header(void *ctx, const hr_header *h)
{
    ((evlog *)ctx)->id_size = h->id_size;
    return 0;
}

/* Walks everything a record hands out, as a careless caller would. */
static int cb_record(void *ctx, const hr_record *r)
{
    evlog *l = ctx;
    ev *e = log_add(l, EV_RECORD);
    e->tag = r->tag;
    e->length = r->length;
    e->offset = r->offset;
    e->end = r->offset + HPROF_RECORD_HEADER_SIZE + r->length;
    l->cur_rec_end = e->end;
    unsigned id = l->id_size;
    if (r->body) {
        e->ndata = r->length;
        e->data = malloc(r->length ? r->length : 1);
        if (!e->data)
            abort();
        memcpy(e->data, r->body, r->length);
        switch (r->tag) {
        case HPROF_TAG_UTF8:
            if (r->u.utf8.len)
                l->sum += touch((const uint8_t *)r->u.utf8.str, r->u.utf8.len);
            break;
        case HPROF_TAG_TRACE:
            for (uint32_t i = 0; i < r->u.trace.nframes; i++)
                l->sum += hr_trace_frame(r, id, i);
            break;
        case HPROF_TAG_ALLOC_SITES:
            for (uint32_t i = 0; i < r->u.alloc_sites.nsites; i++) {
                hr_alloc_site s;
                hr_alloc_site_at(r, i, &s);
                l->sum += s.alloc_bytes;
            }
            break;
        case HPROF_TAG_CPU_SAMPLES:
            for (uint32_t i = 0; i < r->u.cpu_samples.ntraces; i++) {
                uint32_t c, t;
                hr_cpu_sample_at(r, i, &c, &t);
                l->sum += c + t;
            }
            break;
        default:
            break;
        }
    }
    return 0;
}

static int cb_sub(void *ctx, const hr_sub *s)
{
    evlog *l = ctx;
    unsigned id = l->id_size;
    ev *e = log_add(l, EV_SUB);
    e->tag = s->tag;
    e->length = s->length;
    e->offset = s->offset;
    e->end = l->cur_rec_end;
    e->ndata = s->length - 1;
    e->data = malloc(e->ndata ? e->ndata : 1);
    if (!e->data)
        abort();
    memcpy(e->data, s->body, e->ndata);
    switch (s->tag) {
    case HPROF_GC_CLASS_DUMP: {
        const uint8_t *p = s->u.cls.cp;
        for (unsigned i = 0; i < s->u.cls.ncp; i++) {
            hr_cp_entry c;
            p = hr_class_cp_next(p, id, &c);
            l->sum += c.value;
        }
        p = s->u.cls.statics;
        for (unsigned i = 0; i < s->u.cls.nstatics; i++) {
            hr_static st;
            p = hr_class_static_next(p, id, &st);
            l->sum += st.value;
        }
        p = s->u.cls.fields;
        for (unsigned i = 0; i < s->u.cls.nfields; i++) {
            hr_field f;
            p = hr_class_field_next(p, id, &f);
            l->sum += f.type;
        }
        break;
    }
    case HPROF_GC_INSTANCE_DUMP:
        l->sum += touch(s->u.inst.values, s->u.inst.nbytes);
        break;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        for (uint32_t i = 0; i < s->u.oarr.n; i++)
            l->sum += hr_get_id(s->u.oarr.elems + (size_t)i * id, id);
        break;
    case HPROF_GC_PRIM_ARRAY_DUMP:
        l->sum += touch(s->u.parr.elems,
                        (size_t)s->u.parr.n * hprof_type_size(s->u.parr.type, id));
        break;
    default:
        break;
    }
    return 0;
}

static void cb_problem(void *ctx, hr_severity sev, const char *kind, uint64_t offset,
                       const char *msg)
{
    evlog *l = ctx;
    ev *e = log_add(l, EV_PROBLEM);
    e->offset = offset;
    snprintf(e->pkind, sizeof e->pkind, "%s", kind ? kind : "(null)");
    CU_ASSERT_PTR_NOT_NULL(msg);
    if (msg)
        CU_ASSERT(strlen(msg) > 0);
}

static const hr_callbacks LOG_CB = {cb_header, cb_record, cb_sub, cb_problem, NULL};

static hr_status parse_mem(const uint8_t *data, size_t len, evlog *l, hr_stats *st)
{
    memset(l, 0, sizeof *l);
    /* an exactly sized copy: any read past the end is an ASan error */
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        abort();
    if (len)
        memcpy(copy, data, len);
    hr_source *src = hr_source_memory(copy, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    hr_status rc = hr_parse(src, &LOG_CB, l, st);
    hr_source_close(src);
    free(copy);
    return rc;
}

static size_t count_problems(const evlog *l, const char *kind)
{
    size_t c = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].kind == EV_PROBLEM && (!kind || !strcmp(l->v[i].pkind, kind)))
            c++;
    return c;
}

static int same_ev(const ev *a, const ev *b)
{
    return a->kind == b->kind && a->tag == b->tag && a->length == b->length &&
           a->offset == b->offset && a->ndata == b->ndata &&
           (!a->ndata || !memcmp(a->data, b->data, a->ndata));
}

/* ------------------------------------------------------- the workload */

#define NCALLS 400

typedef struct calls {
    int rc[NCALLS];
    uint64_t off[NCALLS];
    int n;
} calls;

static void rec_call(calls *c, hw_writer *w, int rc)
{
    if (c->n < NCALLS) {
        c->rc[c->n] = rc;
        c->off[c->n] = hw_writer_offset(w);
        c->n++;
    }
}

/* About 60 KB: plain records, then a dump over many 256-byte segments with
 * every kind of sub-record, then plain records again. */
static void workload(hw_writer *w, calls *c)
{
#define C(call) rec_call(c, w, (call))
    char name[32];
    for (unsigned i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "string-%u", i);
        C(hw_utf8z(w, 0x100 + i, name));
    }
    for (unsigned i = 0; i < 10; i++)
        C(hw_load_class(w, i + 1, 0x1000 + i, 1, 0x100 + i));
    for (unsigned i = 0; i < 10; i++)
        C(hw_frame(w, 0x2000 + i, 0x101, 0x102, 0x103, i + 1, (int32_t)i - 3));
    hprof_id fr[10];
    for (unsigned i = 0; i < 10; i++)
        fr[i] = 0x2000 + i;
    C(hw_trace(w, 1, 1, 10, fr));
    C(hw_start_thread(w, 1, 0x3000, 1, 0x104, 0x105, 0x106));
    hw_alloc_sites_head h = {0, 0.25f, 100, 10, 1000, 100};
    hw_alloc_site sites[3] = {{0, 1, 1, 10, 1, 100, 10}, {HPROF_TYPE_BYTE, 2, 1, 20, 2, 200, 20},
                              {0, 3, 1, 30, 3, 300, 30}};
    C(hw_alloc_sites(w, &h, sites, 3));
    hw_cpu_sample cs[2] = {{5, 1}, {6, 1}};
    C(hw_cpu_samples(w, 11, cs, 2));
    C(hw_heap_begin(w));
    C(hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, 0x3000, 1, 1, 0));
    for (unsigned i = 0; i < 30; i++)
        C(hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x4000 + i, 0, 0, 0x5000 + i));
    hw_field f[2] = {{0x101, HPROF_TYPE_INT}, {0x102, HPROF_TYPE_OBJECT}};
    hw_static_field sf[1] = {{0x103, {HPROF_TYPE_LONG, 77}}};
    hw_cp_entry cp[1] = {{3, {HPROF_TYPE_SHORT, 5}}};
    for (unsigned i = 0; i < 10; i++) {
        hw_class cl = {0x1000 + i, 1, i ? 0x1000 : 0, 0, 0, 0, 0, 0, 12, 1, cp, 1, sf, 2, f};
        C(hw_class_dump(w, &cl));
    }
    uint8_t vals[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0};
    for (unsigned i = 0; i < 150; i++)
        C(hw_instance_dump(w, 0x6000 + i, 1, 0x1001, vals, 12));
    hprof_id el[20];
    for (unsigned i = 0; i < 20; i++)
        el[i] = i % 2 ? 0x6000 + i : 0;
    for (unsigned i = 0; i < 40; i++)
        C(hw_obj_array_dump(w, 0x7000 + i, 1, 0x1002, 20, el));
    static int32_t ints[300];
    for (unsigned i = 0; i < 300; i++)
        ints[i] = (int32_t)(i * 7919);
    for (unsigned i = 0; i < 40; i++)
        C(hw_prim_array_dump(w, 0x8000 + i, 1, HPROF_TYPE_INT, i * 7, ints));
    C(hw_prim_array_dump(w, 0x9000, 1, HPROF_TYPE_INT, 300, ints)); /* oversized */
    C(hw_heap_end(w));
    C(hw_end_thread(w, 1));
    for (unsigned i = 0; i < 10; i++)
        C(hw_utf8z(w, 0x200 + i, "tail"));
    C(hw_writer_flush(w));
#undef C
}

static hw_writer *open_writer(hw_sink *s)
{
    hw_options o;
    hw_options_init(&o);
    o.id_size = 8;
    o.clock = HW_CLOCK_FIXED;
    o.timestamp_ms = 1234567;
    o.segment_size = 256;
    o.buffer_size = 4096;
    return hw_writer_open(s, &o, NULL);
}

/* The good output and its parse. */
static uint8_t *g_ref;
static size_t g_ref_len;
static evlog g_ref_log;

static int make_reference(void)
{
    hw_sink *s = hw_sink_memory(0);
    hw_writer *w = open_writer(s);
    if (!w)
        return -1;
    calls c = {{0}, {0}, 0};
    workload(w, &c);
    for (int i = 0; i < c.n; i++)
        if (c.rc[i])
            return -1;
    if (hw_writer_close(w, NULL, 0) != 0)
        return -1;
    const uint8_t *d = hw_sink_memory_data(s, &g_ref_len);
    g_ref = malloc(g_ref_len);
    memcpy(g_ref, d, g_ref_len);
    hw_sink_free(s);
    hr_stats st;
    if (parse_mem(g_ref, g_ref_len, &g_ref_log, &st) != HR_OK)
        return -1;
    if (count_problems(&g_ref_log, NULL) != 0)
        return -1;
    return 0;
}

/* ---------------------------------------------- the failing sink */

typedef struct failsink {
    size_t limit;
    uint8_t *buf;
    size_t len;
    int failed;
    int writes_after_fail;
    int closes;
} failsink;

static int fs_write(void *ctx, const void *data, size_t len)
{
    failsink *f = ctx;
    if (f->failed) {
        f->writes_after_fail++;
        return ENOSPC;
    }
    size_t room = f->limit - f->len;
    size_t n = len < room ? len : room;
    memcpy(f->buf + f->len, data, n);
    f->len += n;
    if (n < len) {
        f->failed = 1; /* like a disk: the part that fitted is there */
        return ENOSPC;
    }
    return 0;
}

static int fs_close(void *ctx)
{
    ((failsink *)ctx)->closes++;
    return 0;
}

/* Is `cut` the start of a record (or the end of the header)? */
static int at_boundary(size_t cut)
{
    if (cut == HPROF_HEADER_SIZE)
        return 1;
    for (size_t i = 0; i < g_ref_log.n; i++) {
        const ev *e = &g_ref_log.v[i];
        if (e->kind == EV_RECORD && e->end == cut)
            return 1;
    }
    return 0;
}

/* Parses a prefix of the good output and checks what the reader says. */
static void check_prefix(const uint8_t *d, size_t cut, const char *what)
{
    evlog l;
    hr_stats st;
    hr_status rc = parse_mem(d, cut, &l, &st);
    size_t nprob = count_problems(&l, NULL);
    if (cut < HPROF_HEADER_SIZE) {
        CHECK_EQ(rc, HR_MALFORMED);
        CU_ASSERT(nprob >= 1);
        CU_ASSERT(count_problems(&l, "truncated") + count_problems(&l, "bad-header") == nprob);
    } else if (at_boundary(cut)) {
        if (rc != HR_OK || nprob)
            fprintf(stderr, "\n  %s: cut at record boundary %zu: status %d, %zu problems\n",
                    what, cut, rc, nprob);
        CHECK_EQ(rc, HR_OK);
        CHECK_EQ(nprob, 0);
    } else {
        if (rc != HR_MALFORMED || nprob == 0 || count_problems(&l, "truncated") != nprob)
            fprintf(stderr, "\n  %s: cut at %zu: status %d, %zu problems, %zu truncated\n",
                    what, cut, rc, nprob, count_problems(&l, "truncated"));
        CHECK_EQ(rc, HR_MALFORMED);
        CU_ASSERT(nprob >= 1);
        CHECK_EQ(count_problems(&l, "truncated"), nprob);
    }
    /* what was delivered is a prefix of the good parse, byte for byte */
    size_t j = 0, bad = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (l.v[i].kind == EV_PROBLEM)
            continue;
        while (j < g_ref_log.n && g_ref_log.v[j].kind == EV_PROBLEM)
            j++;
        if (j >= g_ref_log.n || !same_ev(&l.v[i], &g_ref_log.v[j]))
            bad++;
        j++;
    }
    CHECK_EQ(bad, 0);
    /* ... and holds every complete record before the cut with its subs */
    size_t need = 0;
    for (size_t i = 0; i < g_ref_log.n; i++)
        if (g_ref_log.v[i].kind != EV_PROBLEM && g_ref_log.v[i].end <= cut)
            need = i + 1;
    if (j < need)
        fprintf(stderr, "\n  %s: cut at %zu: %zu events delivered, %zu complete before the cut\n",
                what, cut, j, need);
    CU_ASSERT(j >= need);
    log_free(&l);
}

static void run_failing(size_t limit)
{
    failsink f;
    memset(&f, 0, sizeof f);
    f.limit = limit;
    f.buf = malloc(limit ? limit : 1);
    hw_sink *s = hw_sink_custom(fs_write, fs_close, &f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hw_writer *w = open_writer(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    calls c;
    memset(&c, 0, sizeof c);
    workload(w, &c);
    int err = hw_writer_error(w);
    char text[256];
    snprintf(text, sizeof text, "%s", hw_writer_error_text(w));
    char msg[256] = "";
    int crc = hw_writer_close(w, msg, sizeof msg);
    CHECK_EQ(f.closes, 1);
    CHECK_EQ(f.writes_after_fail, 0);
    char what[64];
    snprintf(what, sizeof what, "ENOSPC after %zu bytes", limit);
    if (limit >= g_ref_len) {
        for (int i = 0; i < c.n; i++)
            CHECK_EQ(c.rc[i], 0);
        CHECK_EQ(err, 0);
        CHECK_EQ(crc, 0);
        CHECK_EQ(f.len, g_ref_len);
        CU_ASSERT(memcmp(f.buf, g_ref, g_ref_len) == 0);
    } else {
        /* the first failing call returns ENOSPC, and so does every later one,
         * without moving the offset */
        int first = -1;
        for (int i = 0; i < c.n; i++)
            if (c.rc[i]) {
                first = i;
                break;
            }
        CU_ASSERT(first >= 0 || crc == ENOSPC); /* may first show at close */
        int later_bad = 0;
        for (int i = first < 0 ? c.n : first; i < c.n; i++) {
            if (c.rc[i] != ENOSPC)
                later_bad++;
            if (i > first && c.off[i] != c.off[first])
                later_bad++;
        }
        if (later_bad)
            fprintf(stderr, "\n  %s: %d calls after the error did not return ENOSPC or moved"
                    " the offset\n", what, later_bad);
        CHECK_EQ(later_bad, 0);
        CHECK_EQ(err, first >= 0 ? ENOSPC : 0);
        if (first >= 0)
            CU_ASSERT(strstr(text, strerror(ENOSPC)) != NULL);
        CHECK_EQ(crc, ENOSPC);
        if (!strstr(msg, strerror(ENOSPC)))
            fprintf(stderr, "\n  %s: close message \"%s\"\n", what, msg);
        CU_ASSERT(strstr(msg, strerror(ENOSPC)) != NULL);
        /* the sink got exactly `limit` bytes, a prefix of the good output */
        CHECK_EQ(f.len, limit);
        CU_ASSERT(memcmp(f.buf, g_ref, f.len) == 0);
        check_prefix(f.buf, f.len, what);
    }
    free(f.buf);
}

static void test_enospc(void)
{
    CU_ASSERT_FATAL(make_reference() == 0);
    CU_ASSERT_FATAL(g_ref_len > 40000);
    static const size_t fixed[] = {0, 1, 18, 30, 31, 32, 40, 100, 4095, 4096, 4097, 5000,
                                   8192, 10000, 20000};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        run_failing(fixed[k]);
    for (size_t n = 333; n < g_ref_len; n += 997)
        run_failing(n);
    run_failing(g_ref_len - 1);
    run_failing(g_ref_len - 9); /* inside the last record's header */
    run_failing(g_ref_len);
    run_failing(g_ref_len + 1);
}

/* ------------------------------------------------ EPIPE and friends */

/* In a child with SIGPIPE at its default action: write into `fd` whose
 * reader is gone. Exit status 0: EPIPE latched, no SIGPIPE pending. */
static int epipe_child(int fd)
{
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    hw_sink *s = hw_sink_fd(fd, 1);
    if (!s)
        return 10;
    hw_options o;
    hw_options_init(&o);
    o.buffer_size = 4096;
    hw_writer *w = hw_writer_open(s, &o, NULL);
    if (!w)
        return 11;
    int first = 0;
    for (unsigned i = 0; i < 2000 && !first; i++)
        first = hw_utf8z(w, i + 1, "some string to fill the pipe buffer");
    if (!first)
        first = hw_writer_flush(w);
    if (first != EPIPE)
        return 12;
    if (hw_writer_error(w) != EPIPE)
        return 13;
    if (hw_utf8z(w, 1, "x") != EPIPE)
        return 14;
    char msg[256] = "";
    if (hw_writer_close(w, msg, sizeof msg) != EPIPE)
        return 15;
    if (!strstr(msg, strerror(EPIPE)))
        return 16;
    sigset_t pend;
    sigemptyset(&pend);
    sigpending(&pend);
    if (sigismember(&pend, SIGPIPE))
        return 17; /* a blocked SIGPIPE left pending would kill us later */
    return 0;
}

static void run_epipe(int use_socket)
{
    int fds[2];
    int prc = use_socket ? socketpair(AF_UNIX, SOCK_STREAM, 0, fds) : pipe(fds);
    CU_ASSERT_FATAL(prc == 0);
    close(fds[0]); /* the reader goes away */
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0)
        _exit(epipe_child(fds[1]));
    close(fds[1]);
    int status = 0;
    CU_ASSERT(waitpid(pid, &status, 0) == pid);
    if (WIFSIGNALED(status))
        fprintf(stderr, "\n  %s with closed reader: child killed by signal %d%s\n",
                use_socket ? "socket" : "pipe", WTERMSIG(status),
                WTERMSIG(status) == SIGPIPE ? " (SIGPIPE)" : "");
    else if (WEXITSTATUS(status) != 0)
        fprintf(stderr, "\n  %s with closed reader: child failed with check %d\n",
                use_socket ? "socket" : "pipe", WEXITSTATUS(status));
    CU_ASSERT(WIFEXITED(status));
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_epipe_pipe(void) { run_epipe(0); }
static void test_epipe_socket(void) { run_epipe(1); }

static void test_ebadf(void)
{
    int fd = open("/dev/null", O_WRONLY);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd); /* now a closed descriptor */
    hw_sink *s = hw_sink_fd(fd, 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hw_writer *w = hw_writer_open(s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CHECK_EQ(hw_utf8z(w, 1, "x"), 0); /* buffered */
    CHECK_EQ(hw_writer_flush(w), EBADF);
    CHECK_EQ(hw_writer_error(w), EBADF);
    CHECK_EQ(hw_utf8z(w, 2, "y"), EBADF);
    char msg[256] = "";
    CHECK_EQ(hw_writer_close(w, msg, sizeof msg), EBADF);
    CU_ASSERT(strstr(msg, strerror(EBADF)) != NULL);
}

static void test_sink_file_unwritable(void)
{
    int err = 0;
    hw_sink *s = hw_sink_file("/nonexistent-hprof-dir/sub/out.hprof", &err);
    CU_ASSERT_PTR_NULL(s);
    CHECK_EQ(err, ENOENT);
    if (s)
        hw_sink_free(s);
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/hprof-err-XXXXXX");
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    err = 0;
    s = hw_sink_file(dir, &err); /* a directory */
    CU_ASSERT_PTR_NULL(s);
    CHECK_EQ(err, EISDIR);
    if (s)
        hw_sink_free(s);
    /* a file where a directory is needed */
    char path[128];
    snprintf(path, sizeof path, "%s/file", dir);
    FILE *fp = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    fclose(fp);
    char sub[160];
    snprintf(sub, sizeof sub, "%s/x.hprof", path);
    err = 0;
    s = hw_sink_file(sub, &err);
    CU_ASSERT_PTR_NULL(s);
    CHECK_EQ(err, ENOTDIR);
    if (s)
        hw_sink_free(s);
    unlink(path);
    rmdir(dir);
}

/* The custom sink's own close error is reported by hw_writer_close. */
static int cl_fail(void *ctx)
{
    (void)ctx;
    return EIO;
}
static int wr_ok(void *ctx, const void *d, size_t n)
{
    (void)ctx;
    (void)d;
    (void)n;
    return 0;
}

static void test_close_error(void)
{
    hw_sink *s = hw_sink_custom(wr_ok, cl_fail, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hw_writer *w = hw_writer_open(s, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CHECK_EQ(hw_utf8z(w, 1, "x"), 0);
    char msg[256] = "";
    CHECK_EQ(hw_writer_close(w, msg, sizeof msg), EIO);
    CU_ASSERT(strstr(msg, strerror(EIO)) != NULL);
}

/* ------------------------------------------------- reader robustness */

/* A small file with every kind of record and sub-record. */
static uint8_t *small_file(unsigned idsz, hw_heap_mode mode, size_t *len)
{
    hw_options o;
    hw_options_init(&o);
    o.id_size = idsz;
    o.clock = HW_CLOCK_FIXED;
    o.heap_mode = mode;
    o.segment_size = 64;
    hw_sink *s = hw_sink_memory(0);
    hw_writer *w = hw_writer_open(s, &o, NULL);
    if (!w)
        return NULL;
    hw_utf8z(w, 1, "main");
    hw_load_class(w, 1, 0x10, 1, 1);
    hw_frame(w, 0x20, 1, 1, 1, 1, -3);
    hprof_id fr[2] = {0x20, 0x20};
    hw_trace(w, 1, 1, 2, fr);
    hw_alloc_sites_head h = {1, 0.5f, 1, 1, 1, 1};
    hw_alloc_site site = {0, 1, 1, 1, 1, 1, 1};
    hw_alloc_sites(w, &h, &site, 1);
    hw_heap_summary(w, 1, 2, 3, 4);
    hw_start_thread(w, 1, 0x30, 1, 1, 1, 1);
    hw_heap_begin(w);
    hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, 0x30, 1, 1, 0);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x31, 0, 0, 0x32);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, 0x31, 1, 0, 0);
    hw_cp_entry cp[1] = {{1, {HPROF_TYPE_DOUBLE, 0x4000000000000000ULL}}};
    hw_static_field sf[1] = {{1, {HPROF_TYPE_OBJECT, 0x31}}};
    hw_field f[2] = {{1, HPROF_TYPE_INT}, {1, HPROF_TYPE_OBJECT}};
    hw_class cl = {0x10, 1, 0, 0, 0, 0, 0, 0, 4 + idsz, 1, cp, 1, sf, 2, f};
    hw_class_dump(w, &cl);
    uint8_t v[12] = {0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0x31};
    hw_instance_dump(w, 0x31, 1, 0x10, v, 4 + idsz);
    hprof_id el[3] = {0x31, 0, 0x30};
    hw_obj_array_dump(w, 0x33, 1, 0x10, 3, el);
    int16_t sh[5] = {1, -1, 2, -2, 3};
    hw_prim_array_dump(w, 0x34, 1, HPROF_TYPE_SHORT, 5, sh);
    hw_heap_end(w);
    hw_cpu_sample cs = {3, 1};
    hw_cpu_samples(w, 3, &cs, 1);
    hw_control_settings(w, 3, 4);
    hw_end_thread(w, 1);
    if (hw_writer_close(w, NULL, 0) != 0) {
        hw_sink_free(s);
        return NULL;
    }
    const uint8_t *d = hw_sink_memory_data(s, len);
    uint8_t *c = malloc(*len);
    memcpy(c, d, *len);
    hw_sink_free(s);
    return c;
}

/* Top-level record boundaries of a well-formed file. */
static int is_boundary(const uint8_t *d, size_t len, size_t cut)
{
    size_t o = HPROF_HEADER_SIZE;
    while (o < len) {
        if (o == cut)
            return 1;
        o += HPROF_RECORD_HEADER_SIZE + hr_get_u4(d + o + 5);
    }
    return o == cut;
}

static void truncations(unsigned idsz, hw_heap_mode mode)
{
    size_t len = 0;
    uint8_t *d = small_file(idsz, mode, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT(len > 200 && len < 2000);
    evlog full;
    CHECK_EQ(parse_mem(d, len, &full, NULL), HR_OK);
    CHECK_EQ(count_problems(&full, NULL), 0);
    int bad = 0;
    for (size_t cut = 0; cut <= len; cut++) {
        evlog l;
        hr_stats st;
        hr_status rc = parse_mem(d, cut, &l, &st);
        size_t np = count_problems(&l, NULL), nt = count_problems(&l, "truncated");
        int ok;
        if (cut < HPROF_HEADER_SIZE)
            ok = rc == HR_MALFORMED && np >= 1 &&
                 np == nt + count_problems(&l, "bad-header");
        else if (is_boundary(d, len, cut))
            ok = rc == HR_OK && np == 0;
        else
            ok = rc == HR_MALFORMED && np >= 1 && np == nt;
        /* the events delivered are a prefix of the full parse */
        size_t j = 0;
        for (size_t i = 0; i < l.n && ok; i++) {
            if (l.v[i].kind == EV_PROBLEM)
                continue;
            while (j < full.n && full.v[j].kind == EV_PROBLEM)
                j++;
            ok = j < full.n && same_ev(&l.v[i], &full.v[j]);
            j++;
        }
        CU_ASSERT(st.bytes <= cut);
        if (!ok) {
            if (bad < 5)
                fprintf(stderr, "\n  id %u mode %d: cut at %zu of %zu: status %d, %zu problems"
                        " (%zu truncated)\n", idsz, (int)mode, cut, len, rc, np, nt);
            bad++;
        }
        log_free(&l);
    }
    CHECK_EQ(bad, 0);
    log_free(&full);
    free(d);
}

static void test_truncations(void)
{
    truncations(4, HW_HEAP_SEGMENTED);
    truncations(8, HW_HEAP_SEGMENTED);
    truncations(4, HW_HEAP_SINGLE);
}

/* Truncated gzip files: no crash, the status reflects a problem when the
 * data ends inside a record, never more bytes than exist. */
static void test_gzip_truncations(void)
{
    size_t len = 0;
    uint8_t *d = small_file(8, HW_HEAP_SEGMENTED, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/hprof-gz-XXXXXX");
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/full.gz", dir);
    gzFile gz = gzopen(path, "wb9");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
    CHECK_EQ(gzwrite(gz, d, (unsigned)len), len);
    CHECK_EQ(gzclose(gz), Z_OK);
    FILE *fp = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    uint8_t gzb[4096];
    size_t gzlen = fread(gzb, 1, sizeof gzb, fp);
    fclose(fp);
    CU_ASSERT_FATAL(gzlen > 20 && gzlen < sizeof gzb);
    char cutpath[128];
    snprintf(cutpath, sizeof cutpath, "%s/cut.gz", dir);
    for (size_t cut = 0; cut <= gzlen; cut++) {
        fp = fopen(cutpath, "wb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
        fwrite(gzb, 1, cut, fp);
        fclose(fp);
        int err = 0;
        hr_source *src = hr_source_file(cutpath, &err);
        if (!src)
            continue; /* an empty file may be refused outright */
        evlog l;
        memset(&l, 0, sizeof l);
        hr_stats st;
        hr_status rc = hr_parse(src, &LOG_CB, &l, &st);
        hr_source_close(src);
        CU_ASSERT(rc == HR_OK || rc == HR_MALFORMED || rc == HR_IO);
        CU_ASSERT(st.bytes <= len);
        if (cut == gzlen) {
            CHECK_EQ(rc, HR_OK);
            CHECK_EQ(st.bytes, len);
        }
        if (rc == HR_OK)
            CU_ASSERT(is_boundary(d, len, st.bytes));
        log_free(&l);
    }
    unlink(cutpath);
    unlink(path);
    rmdir(dir);
    free(d);
}

static void test_garbage_headers(void)
{
    uint8_t good[64];
    size_t glen = 0;
    {
        size_t len;
        uint8_t *d = small_file(4, HW_HEAP_SEGMENTED, &len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(d);
        glen = sizeof good;
        memcpy(good, d, glen);
        free(d);
    }
    struct {
        const char *name;
        uint8_t bytes[64];
        size_t len;
    } cases[8];
    memset(cases, 0, sizeof cases);
    /* unknown version */
    cases[0].name = "JAVA PROFILE 9.9.9";
    memcpy(cases[0].bytes, good, glen);
    memcpy(cases[0].bytes, "JAVA PROFILE 9.9.9", 18);
    cases[0].len = glen;
    /* not HPROF at all */
    cases[1].name = "text";
    memcpy(cases[1].bytes, "Hello, this is certainly not an HPROF heap dump file!!", 54);
    cases[1].len = 54;
    /* id size 3 */
    cases[2].name = "id size 3";
    memcpy(cases[2].bytes, good, glen);
    cases[2].bytes[22] = 3;
    cases[2].len = glen;
    /* id size 0xFFFFFFFF */
    cases[3].name = "id size 0xFFFFFFFF";
    memcpy(cases[3].bytes, good, glen);
    memset(cases[3].bytes + 19, 0xFF, 4);
    cases[3].len = glen;
    /* no NUL after the magic */
    cases[4].name = "no NUL";
    memcpy(cases[4].bytes, good, glen);
    cases[4].bytes[18] = 'X';
    cases[4].len = glen;
    /* all zero */
    cases[5].name = "zeros";
    cases[5].len = 64;
    /* all 0xFF */
    cases[6].name = "0xFF";
    memset(cases[6].bytes, 0xFF, 64);
    cases[6].len = 64;
    /* gzip magic with garbage after it, from memory */
    cases[7].name = "gzip magic in memory";
    cases[7].bytes[0] = 0x1F;
    cases[7].bytes[1] = 0x8B;
    cases[7].len = 40;
    for (unsigned k = 0; k < 8; k++) {
        evlog l;
        hr_stats st;
        hr_status rc = parse_mem(cases[k].bytes, cases[k].len, &l, &st);
        if (rc != HR_MALFORMED || count_problems(&l, "bad-header") == 0)
            fprintf(stderr, "\n  garbage header \"%s\": status %d\n", cases[k].name, rc);
        CHECK_EQ(rc, HR_MALFORMED);
        CU_ASSERT(count_problems(&l, "bad-header") >= 1);
        size_t nrec = 0;
        for (size_t i = 0; i < l.n; i++)
            if (l.v[i].kind != EV_PROBLEM)
                nrec++;
        CHECK_EQ(nrec, 0);
        log_free(&l);
    }
}

/* ------------------------------------------- hand-made lying files */

typedef struct hb {
    uint8_t b[512];
    size_t n;
} hb;

static void hb_be(hb *h, uint64_t v, unsigned size)
{
    for (unsigned i = 0; i < size; i++)
        h->b[h->n++] = (uint8_t)(v >> (8 * (size - 1 - i)));
}

static void hb_header(hb *h)
{
    h->n = 0;
    memcpy(h->b, HPROF_MAGIC_1_0_2, 19);
    h->n = 19;
    hb_be(h, 4, 4);
    hb_be(h, 0, 8);
}

static void hb_rec(hb *h, uint8_t tag, uint32_t len)
{
    hb_be(h, tag, 1);
    hb_be(h, 0, 4);
    hb_be(h, len, 4);
}

/* Each case: a file (id size 4) and the problem kind it must produce. */
static void lying(const char *name, const hb *h, const char *kind)
{
    evlog l;
    hr_status rc = parse_mem(h->b, h->n, &l, NULL);
    size_t nk = count_problems(&l, kind);
    if (nk == 0) {
        fprintf(stderr, "\n  %s: no \"%s\" problem (status %d; problems:", name, kind, rc);
        for (size_t i = 0; i < l.n; i++)
            if (l.v[i].kind == EV_PROBLEM)
                fprintf(stderr, " %s", l.v[i].pkind);
        fprintf(stderr, ")\n");
    }
    CU_ASSERT(nk >= 1);
    CU_ASSERT(rc == HR_OK || rc == HR_MALFORMED);
    log_free(&l);
}

static void test_lying_files(void)
{
    hb h;
    /* TRACE claiming 1000 frames in a 12-byte body */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_TRACE, 12);
    hb_be(&h, 1, 4); hb_be(&h, 1, 4); hb_be(&h, 1000, 4);
    lying("TRACE nframes > body", &h, "bad-length");
    /* ALLOC SITES claiming 100 sites, none there */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_ALLOC_SITES, 34);
    hb_be(&h, 0, 2); hb_be(&h, 0, 4); hb_be(&h, 0, 4); hb_be(&h, 0, 4);
    hb_be(&h, 0, 8); hb_be(&h, 0, 8); hb_be(&h, 100, 4);
    lying("ALLOC SITES nsites > body", &h, "bad-length");
    /* CPU SAMPLES claiming 0xFFFFFFFF pairs */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_CPU_SAMPLES, 8);
    hb_be(&h, 1, 4); hb_be(&h, 0xFFFFFFFFu, 4);
    lying("CPU SAMPLES ntraces > body", &h, "bad-length");
    /* UTF8 shorter than an id */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_UTF8, 2);
    hb_be(&h, 0, 2);
    lying("UTF8 shorter than its id", &h, "bad-length");
    /* END THREAD of length 2 */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_END_THREAD, 2);
    hb_be(&h, 0, 2);
    lying("END THREAD length 2", &h, "bad-length");
    /* a record longer than the file */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_UTF8, 0xFFFFFFF0u);
    hb_be(&h, 1, 4);
    lying("record longer than the file", &h, "truncated");
    /* segment whose root needs 5 bytes but has 3 */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_SEGMENT, 3);
    hb_be(&h, HPROF_GC_ROOT_UNKNOWN, 1); hb_be(&h, 0, 2);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_END, 0);
    lying("root crossing its segment", &h, "crosses-segment");
    /* prim array claiming 0x10000000 ints in a small segment */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_SEGMENT, 14 + 8);
    hb_be(&h, HPROF_GC_PRIM_ARRAY_DUMP, 1); hb_be(&h, 1, 4); hb_be(&h, 0, 4);
    hb_be(&h, 0x10000000u, 4); hb_be(&h, HPROF_TYPE_INT, 1); hb_be(&h, 0, 8);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_END, 0);
    lying("prim array longer than its segment", &h, "crosses-segment");
    /* obj array n = 0xFFFFFFFF */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_SEGMENT, 17 + 4);
    hb_be(&h, HPROF_GC_OBJ_ARRAY_DUMP, 1); hb_be(&h, 1, 4); hb_be(&h, 0, 4);
    hb_be(&h, 0xFFFFFFFFu, 4); hb_be(&h, 2, 4); hb_be(&h, 0, 4);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_END, 0);
    lying("obj array longer than its segment", &h, "crosses-segment");
    /* instance nbytes = 0xFFFFFFFF */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_SEGMENT, 17 + 4);
    hb_be(&h, HPROF_GC_INSTANCE_DUMP, 1); hb_be(&h, 1, 4); hb_be(&h, 0, 4);
    hb_be(&h, 2, 4); hb_be(&h, 0xFFFFFFFFu, 4); hb_be(&h, 0, 4);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_END, 0);
    lying("instance longer than its segment", &h, "crosses-segment");
    /* class dump claiming 0xFFFF fields */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_SEGMENT, 1 + 36 + 6);
    hb_be(&h, HPROF_GC_CLASS_DUMP, 1);
    for (int i = 0; i < 7; i++)
        hb_be(&h, i == 0 ? 0x10 : 0, 4);
    hb_be(&h, 0, 4); hb_be(&h, 0, 4);
    hb_be(&h, 0, 2); hb_be(&h, 0, 2); hb_be(&h, 0xFFFF, 2);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_END, 0);
    lying("class dump with more fields than bytes", &h, "crosses-segment");
    /* prim array of type 3 (not a type) */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_SEGMENT, 14 + 4);
    hb_be(&h, HPROF_GC_PRIM_ARRAY_DUMP, 1); hb_be(&h, 1, 4); hb_be(&h, 0, 4);
    hb_be(&h, 1, 4); hb_be(&h, 3, 1); hb_be(&h, 0, 4);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_END, 0);
    lying("prim array of type 3", &h, "bad-type");
    /* prim array of type object */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_SEGMENT, 14 + 4);
    hb_be(&h, HPROF_GC_PRIM_ARRAY_DUMP, 1); hb_be(&h, 1, 4); hb_be(&h, 0, 4);
    hb_be(&h, 1, 4); hb_be(&h, HPROF_TYPE_OBJECT, 1); hb_be(&h, 0, 4);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_END, 0);
    lying("prim array of type object", &h, "bad-type");
    /* class dump with a static of type 0 */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_SEGMENT, 1 + 36 + 2 + 2 + 5 + 4 + 2);
    hb_be(&h, HPROF_GC_CLASS_DUMP, 1);
    for (int i = 0; i < 7; i++)
        hb_be(&h, i == 0 ? 0x10 : 0, 4);
    hb_be(&h, 0, 4); hb_be(&h, 0, 4);
    hb_be(&h, 0, 2); hb_be(&h, 1, 2);
    hb_be(&h, 7, 4); hb_be(&h, 0, 1); hb_be(&h, 0, 4);
    hb_be(&h, 0, 2);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_END, 0);
    lying("class dump static of type 0", &h, "bad-type");
    /* a heap dump record that runs past the end of the file, with a
     * problem inside it before the cut: the truncation must still be
     * reported, and no more bytes counted than exist (found by fuzzing) */
    static const uint8_t inner[3][6] = {
        {0x24, 0, 0, 0, 0, 0},                         /* unknown sub-tag */
        {HPROF_GC_PRIM_ARRAY_DUMP, 0, 0, 0, 1, 0},     /* cut inside: fine */
        {HPROF_GC_ROOT_UNKNOWN, 0, 0, 0, 1, 0x24},     /* root, then unknown */
    };
    for (unsigned k = 0; k < 3; k++) {
        hb_header(&h);
        hb_rec(&h, k == 0 ? HPROF_TAG_HEAP_DUMP : HPROF_TAG_HEAP_DUMP_SEGMENT, 1000);
        memcpy(h.b + h.n, inner[k], 6);
        h.n += 6;
        evlog l;
        hr_stats st;
        hr_status rc = parse_mem(h.b, h.n, &l, &st);
        if (rc != HR_MALFORMED || count_problems(&l, "truncated") == 0 || st.bytes > h.n)
            fprintf(stderr, "\n  heap record past EOF, case %u: status %d, %zu truncated, "
                    "stats.bytes %llu of %zu\n", k, rc, count_problems(&l, "truncated"),
                    (unsigned long long)st.bytes, h.n);
        CHECK_EQ(rc, HR_MALFORMED);
        CU_ASSERT(count_problems(&l, "truncated") >= 1);
        CU_ASSERT(st.bytes <= h.n);
        log_free(&l);
    }
    /* unknown sub-record tag */
    hb_header(&h);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_SEGMENT, 5);
    hb_be(&h, 0x24, 1); hb_be(&h, 0, 4);
    hb_rec(&h, HPROF_TAG_HEAP_DUMP_END, 0);
    lying("unknown sub-record tag", &h, "unknown-subtag");
}

/* ----------------------------------------------------------- main */

static int suite_clean(void)
{
    free(g_ref);
    log_free(&g_ref_log);
    return 0;
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("errors", NULL, suite_clean);
    if (!s)
        return -1;
    if (!CU_add_test(s, "ENOSPC after N bytes, many N", test_enospc) ||
        !CU_add_test(s, "EPIPE on a pipe, no SIGPIPE", test_epipe_pipe) ||
        !CU_add_test(s, "EPIPE on a socket, no SIGPIPE", test_epipe_socket) ||
        !CU_add_test(s, "EBADF on a closed fd", test_ebadf) ||
        !CU_add_test(s, "hw_sink_file on unwritable paths", test_sink_file_unwritable) ||
        !CU_add_test(s, "a sink close error is reported", test_close_error) ||
        !CU_add_test(s, "truncation at every offset", test_truncations) ||
        !CU_add_test(s, "truncated gzip files", test_gzip_truncations) ||
        !CU_add_test(s, "garbage headers refused", test_garbage_headers) ||
        !CU_add_test(s, "lying lengths and bad types", test_lying_files))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
