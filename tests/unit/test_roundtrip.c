/*
 * test_roundtrip.c: every record and every heap sub-record written with the
 * writer and read back with the reader, at id sizes 4 and 8, checking every
 * decoded field and the exact bytes where the encoding matters (big-endian
 * conversion of primitive arrays, float bits, negative line numbers).
 *
 * Also: the three header versions, the fixed clock, the streaming sub-record
 * API and its misuse (EINVAL), ids > 32 bits at id size 4 (EOVERFLOW),
 * single-mode heap dumps (one 0x0C), and the same file read back through a
 * file source, a gzip file and a pipe (hr_source_fd).
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* ------------------------------------------------------------ checks */

#define CHECK_EQ(a, b)                                                              \
    do {                                                                            \
        unsigned long long a_ = (unsigned long long)(a);                            \
        unsigned long long b_ = (unsigned long long)(b);                            \
        if (a_ != b_)                                                               \
            fprintf(stderr, "\n  %s:%d: %s = %#llx, expected %s = %#llx\n",         \
                    __FILE__, __LINE__, #a, a_, #b, b_);                            \
        CU_ASSERT(a_ == b_);                                                        \
    } while (0)

#define CHECK_MEM(p, q, n)                                                          \
    do {                                                                            \
        const void *p_ = (p), *q_ = (q);                                            \
        size_t n_ = (n);                                                            \
        int ok_ = p_ && q_ && memcmp(p_, q_, n_) == 0;                              \
        if (!ok_)                                                                   \
            fprintf(stderr, "\n  %s:%d: bytes of %s differ from %s (%zu bytes)\n",  \
                    __FILE__, __LINE__, #p, #q, n_);                                \
        CU_ASSERT(ok_);                                                             \
    } while (0)

static uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static void be_put(uint8_t *p, uint64_t v, unsigned size)
{
    for (unsigned i = 0; i < size; i++)
        p[i] = (uint8_t)(v >> (8 * (size - 1 - i)));
}

/* A value of `size` bytes read back into a uint64: equal to `want` in its
 * low `size` bytes, and either zero- or sign-extended above. */
static int val_eq(uint64_t got, uint64_t want, unsigned size)
{
    if (size >= 8)
        return got == want;
    uint64_t mask = (1ULL << (8 * size)) - 1;
    if ((got & mask) != (want & mask))
        return 0;
    uint64_t hi = got & ~mask;
    return hi == 0 || hi == ~mask;
}

/* ------------------------------------------------------- event log */

enum { EV_HEADER = 1, EV_RECORD, EV_SUB, EV_RECORD_END, EV_PROBLEM };

typedef struct ev {
    int kind;
    hr_header h;
    hr_record r;
    hr_sub s;
    uint8_t *data; /* copy of the body (record or sub) */
    size_t ndata;
    hr_severity sev;
    char pkind[40];
    uint64_t poff;
    char pmsg[256];
} ev;

typedef struct evlog {
    ev *v;
    size_t n, cap;
    unsigned id_size;
    int bad_ptr; /* a callback pointer outside its body */
    uint64_t nproblems;
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

static uint8_t *copy_bytes(const uint8_t *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    if (!c)
        abort();
    if (n)
        memcpy(c, p, n);
    return c;
}

static const uint8_t *rebase(evlog *l, const uint8_t *p, const uint8_t *from, size_t n,
                             const uint8_t *to)
{
    if (!p)
        return NULL;
    uintptr_t up = (uintptr_t)p, uf = (uintptr_t)from;
    if (up < uf || up > uf + n) {
        l->bad_ptr = 1;
        return NULL;
    }
    return to + (up - uf);
}

static int cb_header(void *ctx, const hr_header *h)
{
    evlog *l = ctx;
    ev *e = log_add(l, EV_HEADER);
    e->h = *h;
    l->id_size = h->id_size;
    return 0;
}

static int cb_record(void *ctx, const hr_record *r)
{
    evlog *l = ctx;
    ev *e = log_add(l, EV_RECORD);
    e->r = *r;
    if (r->body) {
        e->ndata = r->length;
        e->data = copy_bytes(r->body, r->length);
        e->r.body = e->data;
        if (r->tag == HPROF_TAG_UTF8)
            e->r.u.utf8.str = (const char *)rebase(l, (const uint8_t *)r->u.utf8.str,
                                                   r->body, r->length, e->data);
    }
    return 0;
}

static int cb_sub(void *ctx, const hr_sub *s)
{
    evlog *l = ctx;
    ev *e = log_add(l, EV_SUB);
    e->s = *s;
    size_t n = s->length ? s->length - 1 : 0;
    if (s->body) {
        e->ndata = n;
        e->data = copy_bytes(s->body, n);
        e->s.body = e->data;
        switch (s->tag) {
        case HPROF_GC_CLASS_DUMP:
            e->s.u.cls.cp = rebase(l, s->u.cls.cp, s->body, n, e->data);
            e->s.u.cls.statics = rebase(l, s->u.cls.statics, s->body, n, e->data);
            e->s.u.cls.fields = rebase(l, s->u.cls.fields, s->body, n, e->data);
            break;
        case HPROF_GC_INSTANCE_DUMP:
            e->s.u.inst.values = rebase(l, s->u.inst.values, s->body, n, e->data);
            break;
        case HPROF_GC_OBJ_ARRAY_DUMP:
            e->s.u.oarr.elems = rebase(l, s->u.oarr.elems, s->body, n, e->data);
            break;
        case HPROF_GC_PRIM_ARRAY_DUMP:
            e->s.u.parr.elems = rebase(l, s->u.parr.elems, s->body, n, e->data);
            break;
        default:
            break;
        }
    }
    return 0;
}

static int cb_record_end(void *ctx, const hr_record *r)
{
    evlog *l = ctx;
    ev *e = log_add(l, EV_RECORD_END);
    e->r = *r;
    e->r.body = NULL;
    return 0;
}

static void cb_problem(void *ctx, hr_severity sev, const char *kind, uint64_t offset,
                       const char *msg)
{
    evlog *l = ctx;
    ev *e = log_add(l, EV_PROBLEM);
    e->sev = sev;
    snprintf(e->pkind, sizeof e->pkind, "%s", kind ? kind : "(null)");
    e->poff = offset;
    snprintf(e->pmsg, sizeof e->pmsg, "%s", msg ? msg : "(null)");
    l->nproblems++;
    if (strcmp(e->pkind, "unknown-tag") != 0)
        fprintf(stderr, "\n  [reader problem] %s at %llu: %s\n", e->pkind,
            (unsigned long long)offset, e->pmsg);
}

static const hr_callbacks LOG_CB = {cb_header, cb_record, cb_sub, cb_problem, cb_record_end};

static hr_status parse_mem(const uint8_t *data, size_t len, evlog *l, hr_stats *st)
{
    memset(l, 0, sizeof *l);
    if (st)
        memset(st, 0, sizeof *st);
    hr_source *src = hr_source_memory(data, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    hr_status rc = hr_parse(src, &LOG_CB, l, st);
    hr_source_close(src);
    return rc;
}

/* Two logs describe the same parse (tags, offsets, lengths, bytes). */
static int log_same(const evlog *a, const evlog *b)
{
    if (a->n != b->n) {
        fprintf(stderr, "\n  logs differ in length: %zu vs %zu\n", a->n, b->n);
        return 0;
    }
    for (size_t i = 0; i < a->n; i++) {
        const ev *x = &a->v[i], *y = &b->v[i];
        int same = x->kind == y->kind;
        if (same && x->kind == EV_HEADER)
            same = x->h.version == y->h.version && x->h.id_size == y->h.id_size &&
                   x->h.timestamp_ms == y->h.timestamp_ms && !strcmp(x->h.magic, y->h.magic);
        if (same && (x->kind == EV_RECORD || x->kind == EV_RECORD_END))
            same = x->r.tag == y->r.tag && x->r.length == y->r.length &&
                   x->r.offset == y->r.offset && x->r.time_us == y->r.time_us;
        if (same && x->kind == EV_SUB)
            same = x->s.tag == y->s.tag && x->s.length == y->s.length &&
                   x->s.offset == y->s.offset && x->s.record_offset == y->s.record_offset;
        if (same && x->kind == EV_PROBLEM)
            same = !strcmp(x->pkind, y->pkind) && x->poff == y->poff;
        if (same)
            same = x->ndata == y->ndata && (!x->ndata || !memcmp(x->data, y->data, x->ndata));
        if (!same) {
            fprintf(stderr, "\n  logs differ at event %zu\n", i);
            return 0;
        }
    }
    return 1;
}

/* Only "truncated" problems (or none). */
static int only_truncation(const evlog *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].kind == EV_PROBLEM && strcmp(l->v[i].pkind, "truncated") != 0)
            return 0;
    return 1;
}

static size_t count_kind(const evlog *l, int kind, int tag)
{
    size_t c = 0;
    for (size_t i = 0; i < l->n; i++) {
        const ev *e = &l->v[i];
        if (e->kind != kind)
            continue;
        if (tag < 0 || (kind == EV_SUB ? e->s.tag : e->r.tag) == tag)
            c++;
    }
    return c;
}

/* ------------------------------------------------------- the workload */

/* Ids with bits above 32 at id size 8, so that truncation would show. */
static hprof_id I(unsigned idsz, uint32_t lo)
{
    return idsz == 8 ? (0xA1B2C3D400000000ULL | lo) : (hprof_id)lo;
}

#define TS_FIXED 1700000000000ULL

enum { U_TH = 1, U_FR = 2, U_REF = 4 };
static const struct {
    uint8_t tag;
    unsigned uses;
} ROOTS[] = {
    {HPROF_GC_ROOT_UNKNOWN, 0},
    {HPROF_GC_ROOT_JNI_GLOBAL, U_REF},
    {HPROF_GC_ROOT_JNI_LOCAL, U_TH | U_FR},
    {HPROF_GC_ROOT_JAVA_FRAME, U_TH | U_FR},
    {HPROF_GC_ROOT_NATIVE_STACK, U_TH},
    {HPROF_GC_ROOT_STICKY_CLASS, 0},
    {HPROF_GC_ROOT_THREAD_BLOCK, U_TH},
    {HPROF_GC_ROOT_MONITOR_USED, 0},
    {HPROF_GC_ROOT_THREAD_OBJ, U_TH | U_FR},
    {HPROF_GC_ROOT_INTERNED_STRING, 0},
    {HPROF_GC_ROOT_FINALIZING, 0},
    {HPROF_GC_ROOT_DEBUGGER, 0},
    {HPROF_GC_ROOT_REFERENCE_CLEANUP, 0},
    {HPROF_GC_ROOT_VM_INTERNAL, 0},
    {HPROF_GC_ROOT_JNI_MONITOR, U_TH | U_FR},
    {HPROF_GC_ROOT_UNREACHABLE, 0},
};
#define NROOTS (sizeof ROOTS / sizeof ROOTS[0])

static const uint8_t T9[9] = {HPROF_TYPE_OBJECT, HPROF_TYPE_BOOLEAN, HPROF_TYPE_CHAR,
                              HPROF_TYPE_FLOAT,  HPROF_TYPE_DOUBLE,  HPROF_TYPE_BYTE,
                              HPROF_TYPE_SHORT,  HPROF_TYPE_INT,     HPROF_TYPE_LONG};

/* The value of type T9[k] used in the class dump (index 0: an object id). */
static uint64_t v9(unsigned idsz, unsigned k)
{
    switch (k) {
    case 0: return I(idsz, 0x601);
    case 1: return 1;
    case 2: return 0x20AC;
    case 3: return 0xBFC00000u; /* -1.5f */
    case 4: return 0xC002000000000000ULL; /* -2.25 */
    case 5: return 0x7F;
    case 6: return 0x1234;
    case 7: return 0x01020304;
    default: return 0x0102030405060708ULL;
    }
}

static const char UTF8_2[5] = {'a', '\0', 'b', (char)0xC3, (char)0xA9};

/* Primitive arrays, in the host's order, and their expected bytes. */
static const uint8_t PA_BOOL[3] = {1, 0, 1};
static const uint8_t PA_BOOL_BE[3] = {1, 0, 1};
static const uint16_t PA_CHAR[3] = {0x0041, 0x20AC, 0xFFFF};
static const uint8_t PA_CHAR_BE[6] = {0x00, 0x41, 0x20, 0xAC, 0xFF, 0xFF};
static const uint32_t PA_FLOAT_BITS[4] = {0x3FC00000u, 0x80000000u, 0x7F800000u, 0x7FC00123u};
static const uint8_t PA_FLOAT_BE[16] = {0x3F, 0xC0, 0, 0, 0x80, 0, 0, 0,
                                        0x7F, 0x80, 0, 0, 0x7F, 0xC0, 0x01, 0x23};
static const uint64_t PA_DOUBLE_BITS[3] = {0xC002000000000000ULL, 0x7E37E43C8800759CULL, 1};
static const uint8_t PA_DOUBLE_BE[24] = {0xC0, 0x02, 0, 0, 0, 0, 0, 0,
                                         0x7E, 0x37, 0xE4, 0x3C, 0x88, 0x00, 0x75, 0x9C,
                                         0, 0, 0, 0, 0, 0, 0, 1};
static const int8_t PA_BYTE[3] = {-128, 127, 0};
static const uint8_t PA_BYTE_BE[3] = {0x80, 0x7F, 0x00};
static const int16_t PA_SHORT[2] = {0x1234, -2};
static const uint8_t PA_SHORT_BE[4] = {0x12, 0x34, 0xFF, 0xFE};
static const int32_t PA_INT[3] = {0x01020304, -1, 0x7FFFFFFF};
static const uint8_t PA_INT_BE[12] = {1, 2, 3, 4, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF};
static const int64_t PA_LONG[2] = {0x0102030405060708LL, -2};
static const uint8_t PA_LONG_BE[16] = {1, 2, 3, 4, 5, 6, 7, 8,
                                       0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE};

typedef struct parr_case {
    uint8_t type;
    uint32_t n;
    const void *host;
    const uint8_t *be;
} parr_case;

static void parr_cases(parr_case pc[8], float fl[4], double db[3])
{
    memcpy(fl, PA_FLOAT_BITS, sizeof PA_FLOAT_BITS);
    memcpy(db, PA_DOUBLE_BITS, sizeof PA_DOUBLE_BITS);
    pc[0] = (parr_case){HPROF_TYPE_BOOLEAN, 3, PA_BOOL, PA_BOOL_BE};
    pc[1] = (parr_case){HPROF_TYPE_CHAR, 3, PA_CHAR, PA_CHAR_BE};
    pc[2] = (parr_case){HPROF_TYPE_FLOAT, 4, fl, PA_FLOAT_BE};
    pc[3] = (parr_case){HPROF_TYPE_DOUBLE, 3, db, PA_DOUBLE_BE};
    pc[4] = (parr_case){HPROF_TYPE_BYTE, 3, PA_BYTE, PA_BYTE_BE};
    pc[5] = (parr_case){HPROF_TYPE_SHORT, 2, PA_SHORT, PA_SHORT_BE};
    pc[6] = (parr_case){HPROF_TYPE_INT, 3, PA_INT, PA_INT_BE};
    pc[7] = (parr_case){HPROF_TYPE_LONG, 2, PA_LONG, PA_LONG_BE};
}

/* The instance dump's values: the 9 fields of the class, big-endian. */
static size_t inst_values(unsigned idsz, uint8_t *buf)
{
    size_t off = 0;
    for (unsigned k = 0; k < 9; k++) {
        unsigned sz = hprof_type_size(T9[k], idsz);
        be_put(buf + off, v9(idsz, k) + (k ? 0 : 0x10), sz);
        off += sz;
    }
    return off;
}

#define BIG_N 100000u /* ints in the big array of the file/gzip/pipe tests */

/* Writes every record and sub-record; the checker below expects exactly
 * this sequence. `big` adds a 400 KB int array at the end of the dump. */
static int write_all(hw_writer *w, unsigned idsz, int big)
{
    int rc = 0;
#define W(call)                                                                     \
    do {                                                                            \
        int r_ = (call);                                                            \
        if (r_ != 0) {                                                              \
            fprintf(stderr, "\n  %s:%d: %s returned %d (%s)\n", __FILE__, __LINE__,  \
                    #call, r_, hw_writer_error_text(w));                            \
            if (!rc)                                                                \
                rc = r_;                                                            \
        }                                                                           \
    } while (0)
    W(hw_utf8(w, I(idsz, 0x101), "main", 4));
    W(hw_utf8(w, I(idsz, 0x102), UTF8_2, sizeof UTF8_2));
    W(hw_utf8z(w, I(idsz, 0x103), "java/lang/String"));
    W(hw_utf8(w, I(idsz, 0x104), "", 0));
    W(hw_load_class(w, 7, I(idsz, 0x201), 3, I(idsz, 0x103)));
    W(hw_unload_class(w, 0xDEADBEEFu));
    static const int32_t lines[4] = {42, HPROF_LINE_UNKNOWN, HPROF_LINE_COMPILED,
                                     HPROF_LINE_NATIVE};
    for (unsigned k = 0; k < 4; k++)
        W(hw_frame(w, I(idsz, 0x301 + k), I(idsz, 0x101), I(idsz, 0x102),
                   k == 3 ? 0 : I(idsz, 0x104), 7 + k, lines[k]));
    hprof_id fr[4] = {I(idsz, 0x301), I(idsz, 0x302), I(idsz, 0x303), I(idsz, 0x304)};
    W(hw_trace(w, 3, 1, 4, fr));
    W(hw_trace(w, 4, 0xFFFFFFFFu, 0, NULL));
    hw_alloc_sites_head ah = {HPROF_SITES_SORT_BY_ALLOC | HPROF_SITES_FORCE_GC, 0.0125f,
                              1000, 10, 0x100000002ULL, 0x300000004ULL};
    hw_alloc_site sites[2] = {{0, 7, 3, 100, 1, 200, 2},
                              {HPROF_TYPE_INT, 8, 4, 0xFFFFFFFFu, 5, 6, 7}};
    W(hw_alloc_sites(w, &ah, sites, 2));
    hw_alloc_sites_head ah0 = {HPROF_SITES_INCREMENTAL, -0.5f, 0, 0, 0, 0};
    W(hw_alloc_sites(w, &ah0, NULL, 0));
    W(hw_heap_summary(w, 11, 12, 0x1300000014ULL, 0x1500000016ULL));
    W(hw_start_thread(w, 1, I(idsz, 0x401), 3, I(idsz, 0x101), I(idsz, 0x102),
                      I(idsz, 0x103)));
    W(hw_end_thread(w, 1));
    hw_cpu_sample cs[3] = {{10, 3}, {20, 4}, {30, 0xFFFFFFFFu}};
    W(hw_cpu_samples(w, 60, cs, 3));
    W(hw_control_settings(w, HPROF_CTRL_ALLOC_TRACES | HPROF_CTRL_CPU_SAMPLING, 16));
    static const uint8_t raw_end_thread[4] = {0, 0, 0, 9};
    W(hw_raw_record(w, HPROF_TAG_END_THREAD, raw_end_thread, 4));
    static const uint8_t raw_unknown[3] = {0xAA, 0xBB, 0xCC};
    W(hw_raw_record(w, 0x50, raw_unknown, 3));

    W(hw_heap_begin(w));
    for (unsigned k = 0; k < NROOTS; k++)
        W(hw_root(w, ROOTS[k].tag, I(idsz, 0x500 + k), 0x1000 + k, 0x2000 + k,
                  I(idsz, 0x3000 + k)));
    W(hw_heap_dump_info(w, 0x50, I(idsz, 0x104)));

    hw_cp_entry cp[9];
    hw_static_field st[9];
    hw_field fl[9];
    for (unsigned k = 0; k < 9; k++) {
        cp[k] = (hw_cp_entry){(uint16_t)(1 + k * 0x101), {T9[k], v9(idsz, k)}};
        st[k] = (hw_static_field){I(idsz, 0x701 + k), {T9[k], v9(idsz, k)}};
        fl[k] = (hw_field){I(idsz, 0x801 + k), T9[k]};
    }
    hw_class c = {I(idsz, 0x201), 3, I(idsz, 0x202), I(idsz, 0x203), I(idsz, 0x204),
                       I(idsz, 0x205), I(idsz, 0x206), I(idsz, 0x207), idsz + 30,
                       9, cp, 9, st, 9, fl};
    W(hw_class_dump(w, &c));
    hw_class c0 = {I(idsz, 0x202), 0, 0, 0, 0, 0, 0, 0, 16, 0, NULL, 0, NULL, 0, NULL};
    W(hw_class_dump(w, &c0));
    /* hw_value truncation: integers are cut to the type's size */
    hw_static_field st2[5] = {
        {I(idsz, 0x711), {HPROF_TYPE_INT, 0xAAAAAAAA01020304ULL}},
        {I(idsz, 0x712), {HPROF_TYPE_BYTE, 0x1FF}},
        {I(idsz, 0x713), {HPROF_TYPE_BOOLEAN, 0x101}},
        {I(idsz, 0x714), {HPROF_TYPE_SHORT, 0x12345678}},
        {I(idsz, 0x715), {HPROF_TYPE_CHAR, 0xABCD0041}},
    };
    hw_class c2 = {I(idsz, 0x208), 3, I(idsz, 0x202), 0, 0, 0, 0, 0, 0,
                        0, NULL, 5, st2, 0, NULL};
    W(hw_class_dump(w, &c2));

    uint8_t vals[64];
    size_t nv = inst_values(idsz, vals);
    W(hw_instance_dump(w, I(idsz, 0x901), 3, I(idsz, 0x201), vals, (uint32_t)nv));
    W(hw_instance_dump(w, I(idsz, 0x902), 0, I(idsz, 0x202), vals, 0));

    hprof_id oe[4] = {I(idsz, 0x901), 0, I(idsz, 0x902), 0};
    W(hw_obj_array_dump(w, I(idsz, 0x903), 3, I(idsz, 0x210), 4, oe));
    W(hw_obj_array_dump(w, I(idsz, 0x904), 4, I(idsz, 0x210), 0, NULL));

    parr_case pc[8];
    float fbuf[4];
    double dbuf[3];
    parr_cases(pc, fbuf, dbuf);
    for (unsigned k = 0; k < 8; k++)
        W(hw_prim_array_dump(w, I(idsz, 0x950 + k), 3, pc[k].type, pc[k].n, pc[k].host));
    W(hw_prim_array_dump(w, I(idsz, 0x960), 0, HPROF_TYPE_INT, 0, PA_INT));

    /* streaming forms */
    W(hw_instance_begin(w, I(idsz, 0xA01), 3, I(idsz, 0x201), 15 + idsz));
    W(hw_put_u1(w, 0xAB));
    W(hw_put_u2(w, 0xCDEF));
    W(hw_put_u4(w, 0x01020304));
    W(hw_put_u8(w, 0x1122334455667788ULL));
    W(hw_put_id(w, I(idsz, 0x999)));
    W(hw_sub_end(w));
    W(hw_obj_array_begin(w, I(idsz, 0xA02), 3, I(idsz, 0x210), 3));
    W(hw_put_id(w, I(idsz, 0x901)));
    W(hw_put_id(w, 0));
    W(hw_put_id(w, I(idsz, 0x902)));
    W(hw_sub_end(w));
    if (big) {
        int32_t *a = malloc(BIG_N * sizeof *a);
        if (!a)
            abort();
        for (uint32_t i = 0; i < BIG_N; i++)
            a[i] = (int32_t)(i * 2654435761u);
        W(hw_prim_array_dump(w, I(idsz, 0xB00), 3, HPROF_TYPE_INT, BIG_N, a));
        free(a);
    }
    W(hw_heap_end(w));
    W(hw_utf8z(w, I(idsz, 0x105), "after"));
#undef W
    return rc;
}

/* ------------------------------------------------------- the checker */

typedef struct cursor {
    const evlog *l;
    size_t i;
    unsigned idsz;
    uint64_t next_rec_off; /* where the next top-level record must start */
    uint64_t next_sub_off; /* inside a heap dump record: the next sub */
    uint64_t cur_rec_off;
    uint64_t cur_rec_end;
} cursor;

static const ev *next_ev(cursor *c)
{
    while (c->i < c->l->n) {
        const ev *e = &c->l->v[c->i++];
        if (e->kind == EV_RECORD || e->kind == EV_SUB || e->kind == EV_RECORD_END)
            return e;
    }
    return NULL;
}

/* Next event must be a top-level record of `tag` with a body of `len` bytes. */
static const ev *want_rec(cursor *c, uint8_t tag, uint32_t len, int line)
{
    const ev *e = next_ev(c);
    if (!e || e->kind != EV_RECORD || e->r.tag != tag) {
        fprintf(stderr, "\n  line %d: expected record 0x%02X, got %s 0x%02X\n", line, tag,
                !e ? "end" : e->kind == EV_RECORD ? "record" : e->kind == EV_SUB ? "sub" : "end-of-record",
                !e ? 0 : e->kind == EV_SUB ? e->s.tag : e->r.tag);
        CU_FAIL("unexpected event");
        return NULL;
    }
    CHECK_EQ(e->r.offset, c->next_rec_off);
    CHECK_EQ(e->r.time_us, 0);
    if (len != UINT32_MAX)
        CHECK_EQ(e->r.length, len);
    c->next_rec_off = e->r.offset + HPROF_RECORD_HEADER_SIZE + e->r.length;
    c->cur_rec_off = e->r.offset;
    c->cur_rec_end = c->next_rec_off;
    c->next_sub_off = e->r.offset + HPROF_RECORD_HEADER_SIZE;
    if (tag != HPROF_TAG_HEAP_DUMP && tag != HPROF_TAG_HEAP_DUMP_SEGMENT) {
        CU_ASSERT_PTR_NOT_NULL(e->r.body);
        CHECK_EQ(e->ndata, e->r.length);
    } else {
        CU_ASSERT_PTR_NULL(e->r.body);
    }
    return e;
}

static const ev *want_sub(cursor *c, uint8_t tag, uint32_t len, int line)
{
    const ev *e = next_ev(c);
    if (!e || e->kind != EV_SUB || e->s.tag != tag) {
        fprintf(stderr, "\n  line %d: expected sub-record 0x%02X, got %s 0x%02X\n", line, tag,
                !e ? "end" : e->kind == EV_SUB ? "sub" : "record",
                !e ? 0 : e->kind == EV_SUB ? e->s.tag : e->r.tag);
        CU_FAIL("unexpected event");
        return NULL;
    }
    CHECK_EQ(e->s.length, len);
    CHECK_EQ(e->s.offset, c->next_sub_off);
    CHECK_EQ(e->s.record_offset, c->cur_rec_off);
    CU_ASSERT(e->s.offset + e->s.length <= c->cur_rec_end);
    CU_ASSERT_PTR_NOT_NULL(e->s.body);
    CHECK_EQ(e->ndata, len - 1);
    c->next_sub_off = e->s.offset + e->s.length;
    return e;
}

static void want_rec_end(cursor *c, int line)
{
    const ev *e = next_ev(c);
    if (!e || e->kind != EV_RECORD_END) {
        fprintf(stderr, "\n  line %d: expected the end of a heap dump record\n", line);
        CU_FAIL("missing on_record_end");
        return;
    }
    CHECK_EQ(e->r.offset, c->cur_rec_off);
    /* the sub-records filled the record exactly */
    CHECK_EQ(c->next_sub_off, c->cur_rec_end);
}

#define WANT_REC(tag, len)                                                          \
    do {                                                                            \
        e = want_rec(&c, (tag), (len), __LINE__);                                   \
        if (!e)                                                                     \
            return;                                                                 \
    } while (0)
#define WANT_SUB(tag, len)                                                          \
    do {                                                                            \
        e = want_sub(&c, (tag), (len), __LINE__);                                   \
        if (!e)                                                                     \
            return;                                                                 \
    } while (0)

static void check_utf8(const ev *e, unsigned idsz, hprof_id id, const char *s, uint32_t len)
{
    CHECK_EQ(e->r.u.utf8.id, id);
    CHECK_EQ(e->r.u.utf8.len, len);
    CU_ASSERT_PTR_NOT_NULL(e->r.u.utf8.str);
    if (len && e->r.u.utf8.str)
        CHECK_MEM(e->r.u.utf8.str, s, len);
    CHECK_EQ(hr_get_id(e->r.body, idsz), id);
    if (len)
        CHECK_MEM(e->r.body + idsz, s, len);
}

/* Checks the whole sequence written by write_all (segmented mode, one
 * segment). */
static void check_all(const evlog *l, unsigned idsz, int big, uint64_t file_len)
{
    cursor c = {l, 0, idsz, HPROF_HEADER_SIZE, 0, 0, 0};
    const ev *e;

    CU_ASSERT_FATAL(l->n > 0);
    CHECK_EQ(l->v[0].kind, EV_HEADER);
    CHECK_EQ(l->v[0].h.version, HPROF_VERSION_1_0_2);
    CU_ASSERT_STRING_EQUAL(l->v[0].h.magic, HPROF_MAGIC_1_0_2);
    CHECK_EQ(l->v[0].h.id_size, idsz);
    CHECK_EQ(l->v[0].h.timestamp_ms, TS_FIXED);
    CU_ASSERT_FALSE(l->bad_ptr);

    WANT_REC(HPROF_TAG_UTF8, idsz + 4);
    check_utf8(e, idsz, I(idsz, 0x101), "main", 4);
    WANT_REC(HPROF_TAG_UTF8, idsz + 5);
    check_utf8(e, idsz, I(idsz, 0x102), UTF8_2, 5);
    WANT_REC(HPROF_TAG_UTF8, idsz + 16);
    check_utf8(e, idsz, I(idsz, 0x103), "java/lang/String", 16);
    WANT_REC(HPROF_TAG_UTF8, idsz);
    check_utf8(e, idsz, I(idsz, 0x104), "", 0);

    WANT_REC(HPROF_TAG_LOAD_CLASS, 8 + 2 * idsz);
    CHECK_EQ(e->r.u.load_class.class_serial, 7);
    CHECK_EQ(e->r.u.load_class.class_id, I(idsz, 0x201));
    CHECK_EQ(e->r.u.load_class.trace_serial, 3);
    CHECK_EQ(e->r.u.load_class.name_id, I(idsz, 0x103));

    WANT_REC(HPROF_TAG_UNLOAD_CLASS, 4);
    CHECK_EQ(e->r.u.unload_class.class_serial, 0xDEADBEEFu);
    static const uint8_t deadbeef[4] = {0xDE, 0xAD, 0xBE, 0xEF};
    CHECK_MEM(e->r.body, deadbeef, 4);

    static const int32_t lines[4] = {42, -1, -2, -3};
    for (unsigned k = 0; k < 4; k++) {
        WANT_REC(HPROF_TAG_FRAME, 4 * idsz + 8);
        CHECK_EQ(e->r.u.frame.frame_id, I(idsz, 0x301 + k));
        CHECK_EQ(e->r.u.frame.method_name_id, I(idsz, 0x101));
        CHECK_EQ(e->r.u.frame.method_sig_id, I(idsz, 0x102));
        CHECK_EQ(e->r.u.frame.source_file_id, k == 3 ? 0 : I(idsz, 0x104));
        CHECK_EQ(e->r.u.frame.class_serial, 7 + k);
        CU_ASSERT_EQUAL(e->r.u.frame.line, lines[k]);
        uint8_t lb[4];
        be_put(lb, (uint32_t)lines[k], 4);
        CHECK_MEM(e->r.body + 4 * idsz + 4, lb, 4);
    }

    WANT_REC(HPROF_TAG_TRACE, 12 + 4 * idsz);
    CHECK_EQ(e->r.u.trace.trace_serial, 3);
    CHECK_EQ(e->r.u.trace.thread_serial, 1);
    CHECK_EQ(e->r.u.trace.nframes, 4);
    for (unsigned k = 0; k < 4; k++)
        CHECK_EQ(hr_trace_frame(&e->r, idsz, k), I(idsz, 0x301 + k));
    WANT_REC(HPROF_TAG_TRACE, 12);
    CHECK_EQ(e->r.u.trace.trace_serial, 4);
    CHECK_EQ(e->r.u.trace.thread_serial, 0xFFFFFFFFu);
    CHECK_EQ(e->r.u.trace.nframes, 0);

    WANT_REC(HPROF_TAG_ALLOC_SITES, 34 + 2 * 25);
    CHECK_EQ(e->r.u.alloc_sites.flags, HPROF_SITES_SORT_BY_ALLOC | HPROF_SITES_FORCE_GC);
    CU_ASSERT(e->r.u.alloc_sites.cutoff == 0.0125f);
    CHECK_EQ(f2u(e->r.u.alloc_sites.cutoff), 0x3C4CCCCDu);
    static const uint8_t cutoff_be[4] = {0x3C, 0x4C, 0xCC, 0xCD};
    CHECK_MEM(e->r.body + 2, cutoff_be, 4);
    CHECK_EQ(e->r.u.alloc_sites.total_live_bytes, 1000);
    CHECK_EQ(e->r.u.alloc_sites.total_live_instances, 10);
    CHECK_EQ(e->r.u.alloc_sites.total_alloc_bytes, 0x100000002ULL);
    CHECK_EQ(e->r.u.alloc_sites.total_alloc_instances, 0x300000004ULL);
    CHECK_EQ(e->r.u.alloc_sites.nsites, 2);
    {
        hr_alloc_site s0, s1;
        memset(&s0, 0x5A, sizeof s0);
        memset(&s1, 0x5A, sizeof s1);
        hr_alloc_site_at(&e->r, 0, &s0);
        hr_alloc_site_at(&e->r, 1, &s1);
        CHECK_EQ(s0.array_type, 0);
        CHECK_EQ(s0.class_serial, 7);
        CHECK_EQ(s0.trace_serial, 3);
        CHECK_EQ(s0.live_bytes, 100);
        CHECK_EQ(s0.live_instances, 1);
        CHECK_EQ(s0.alloc_bytes, 200);
        CHECK_EQ(s0.alloc_instances, 2);
        CHECK_EQ(s1.array_type, HPROF_TYPE_INT);
        CHECK_EQ(s1.class_serial, 8);
        CHECK_EQ(s1.trace_serial, 4);
        CHECK_EQ(s1.live_bytes, 0xFFFFFFFFu);
        CHECK_EQ(s1.live_instances, 5);
        CHECK_EQ(s1.alloc_bytes, 6);
        CHECK_EQ(s1.alloc_instances, 7);
    }
    WANT_REC(HPROF_TAG_ALLOC_SITES, 34);
    CHECK_EQ(e->r.u.alloc_sites.flags, HPROF_SITES_INCREMENTAL);
    CU_ASSERT(e->r.u.alloc_sites.cutoff == -0.5f);
    CHECK_EQ(e->r.u.alloc_sites.nsites, 0);
    CHECK_EQ(e->r.u.alloc_sites.total_alloc_bytes, 0);

    WANT_REC(HPROF_TAG_HEAP_SUMMARY, 24);
    CHECK_EQ(e->r.u.heap_summary.live_bytes, 11);
    CHECK_EQ(e->r.u.heap_summary.live_instances, 12);
    CHECK_EQ(e->r.u.heap_summary.alloc_bytes, 0x1300000014ULL);
    CHECK_EQ(e->r.u.heap_summary.alloc_instances, 0x1500000016ULL);

    WANT_REC(HPROF_TAG_START_THREAD, 8 + 4 * idsz);
    CHECK_EQ(e->r.u.start_thread.thread_serial, 1);
    CHECK_EQ(e->r.u.start_thread.thread_id, I(idsz, 0x401));
    CHECK_EQ(e->r.u.start_thread.trace_serial, 3);
    CHECK_EQ(e->r.u.start_thread.name_id, I(idsz, 0x101));
    CHECK_EQ(e->r.u.start_thread.group_name_id, I(idsz, 0x102));
    CHECK_EQ(e->r.u.start_thread.parent_group_name_id, I(idsz, 0x103));

    WANT_REC(HPROF_TAG_END_THREAD, 4);
    CHECK_EQ(e->r.u.end_thread.thread_serial, 1);

    WANT_REC(HPROF_TAG_CPU_SAMPLES, 8 + 3 * 8);
    CHECK_EQ(e->r.u.cpu_samples.total, 60);
    CHECK_EQ(e->r.u.cpu_samples.ntraces, 3);
    {
        static const uint32_t cnt[3] = {10, 20, 30}, tr[3] = {3, 4, 0xFFFFFFFFu};
        for (uint32_t k = 0; k < 3; k++) {
            uint32_t a = 0x5A5A, b = 0x5A5A;
            hr_cpu_sample_at(&e->r, k, &a, &b);
            CHECK_EQ(a, cnt[k]);
            CHECK_EQ(b, tr[k]);
        }
    }

    WANT_REC(HPROF_TAG_CONTROL_SETTINGS, 6);
    CHECK_EQ(e->r.u.control.flags, HPROF_CTRL_ALLOC_TRACES | HPROF_CTRL_CPU_SAMPLING);
    CHECK_EQ(e->r.u.control.depth, 16);

    WANT_REC(HPROF_TAG_END_THREAD, 4);
    CHECK_EQ(e->r.u.end_thread.thread_serial, 9);
    WANT_REC(0x50, 3);
    static const uint8_t raw_unknown[3] = {0xAA, 0xBB, 0xCC};
    CHECK_MEM(e->r.body, raw_unknown, 3);

    /* ---- the heap dump: one segment ---- */
    WANT_REC(HPROF_TAG_HEAP_DUMP_SEGMENT, UINT32_MAX);
    for (unsigned k = 0; k < NROOTS; k++) {
        unsigned u = ROOTS[k].uses;
        uint32_t len = 1 + idsz + (u & U_REF ? idsz : 0) + (u & U_TH ? 4 : 0) + (u & U_FR ? 4 : 0);
        WANT_SUB(ROOTS[k].tag, len);
        CHECK_EQ(e->s.u.root.id, I(idsz, 0x500 + k));
        CHECK_EQ(e->s.u.root.thread_serial, u & U_TH ? 0x1000 + k : 0);
        CHECK_EQ(e->s.u.root.frame, u & U_FR ? 0x2000 + k : 0);
        CHECK_EQ(e->s.u.root.ref, u & U_REF ? I(idsz, 0x3000 + k) : 0);
        CHECK_EQ(hr_get_id(e->s.body, idsz), I(idsz, 0x500 + k));
    }
    WANT_SUB(HPROF_GC_HEAP_DUMP_INFO, 1 + 4 + idsz);
    CHECK_EQ(e->s.u.root.id, I(idsz, 0x104));
    CHECK_EQ(e->s.u.root.thread_serial, 0x50);
    CHECK_EQ(hr_get_u4(e->s.body), 0x50);
    CHECK_EQ(hr_get_id(e->s.body + 4, idsz), I(idsz, 0x104));

    /* the class dump with every type in cp, statics and fields */
    {
        uint32_t cplen = 0, stlen = 0;
        for (unsigned k = 0; k < 9; k++) {
            cplen += 3 + hprof_type_size(T9[k], idsz);
            stlen += idsz + 1 + hprof_type_size(T9[k], idsz);
        }
        WANT_SUB(HPROF_GC_CLASS_DUMP, 1 + HPROF_CLASS_DUMP_FIXED(idsz) + 2 + cplen + 2 + stlen +
                                          2 + 9 * (idsz + 1));
        CHECK_EQ(e->s.u.cls.class_id, I(idsz, 0x201));
        CHECK_EQ(e->s.u.cls.trace_serial, 3);
        CHECK_EQ(e->s.u.cls.super_id, I(idsz, 0x202));
        CHECK_EQ(e->s.u.cls.loader_id, I(idsz, 0x203));
        CHECK_EQ(e->s.u.cls.signers_id, I(idsz, 0x204));
        CHECK_EQ(e->s.u.cls.protection_domain_id, I(idsz, 0x205));
        CHECK_EQ(e->s.u.cls.reserved1, I(idsz, 0x206));
        CHECK_EQ(e->s.u.cls.reserved2, I(idsz, 0x207));
        CHECK_EQ(e->s.u.cls.instance_size, idsz + 30);
        CHECK_EQ(e->s.u.cls.ncp, 9);
        CHECK_EQ(e->s.u.cls.nstatics, 9);
        CHECK_EQ(e->s.u.cls.nfields, 9);
        const uint8_t *p = e->s.u.cls.cp;
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        for (unsigned k = 0; k < 9; k++) {
            hr_cp_entry ce;
            memset(&ce, 0x5A, sizeof ce);
            p = hr_class_cp_next(p, idsz, &ce);
            CU_ASSERT_PTR_NOT_NULL_FATAL(p);
            CHECK_EQ(ce.index, 1 + k * 0x101);
            CHECK_EQ(ce.type, T9[k]);
            CU_ASSERT(val_eq(ce.value, v9(idsz, k), hprof_type_size(T9[k], idsz)));
            if (!val_eq(ce.value, v9(idsz, k), hprof_type_size(T9[k], idsz)))
                fprintf(stderr, "\n  cp[%u] type %u: value %#llx, expected %#llx\n", k, T9[k],
                        (unsigned long long)ce.value, (unsigned long long)v9(idsz, k));
        }
        p = e->s.u.cls.statics;
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        for (unsigned k = 0; k < 9; k++) {
            hr_static sv;
            memset(&sv, 0x5A, sizeof sv);
            p = hr_class_static_next(p, idsz, &sv);
            CU_ASSERT_PTR_NOT_NULL_FATAL(p);
            CHECK_EQ(sv.name_id, I(idsz, 0x701 + k));
            CHECK_EQ(sv.type, T9[k]);
            CU_ASSERT(val_eq(sv.value, v9(idsz, k), hprof_type_size(T9[k], idsz)));
            if (!val_eq(sv.value, v9(idsz, k), hprof_type_size(T9[k], idsz)))
                fprintf(stderr, "\n  static[%u] type %u: value %#llx, expected %#llx\n", k,
                        T9[k], (unsigned long long)sv.value, (unsigned long long)v9(idsz, k));
        }
        p = e->s.u.cls.fields;
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        for (unsigned k = 0; k < 9; k++) {
            hr_field fv;
            memset(&fv, 0x5A, sizeof fv);
            p = hr_class_field_next(p, idsz, &fv);
            CU_ASSERT_PTR_NOT_NULL_FATAL(p);
            CHECK_EQ(fv.name_id, I(idsz, 0x801 + k));
            CHECK_EQ(fv.type, T9[k]);
        }
        /* the last field ends the sub-record */
        CU_ASSERT(p == e->s.body + e->s.length - 1);
        /* spot-check the raw encoding: the float and double cp values */
        static const uint8_t neg15[4] = {0xBF, 0xC0, 0, 0};
        static const uint8_t neg225[8] = {0xC0, 0x02, 0, 0, 0, 0, 0, 0};
        const uint8_t *cpb = e->s.body + HPROF_CLASS_DUMP_FIXED(idsz) + 2;
        /* entries 0..2: 3+idsz, 3+1, 3+2; entry 3 (float) value at +3 */
        const uint8_t *fcp = cpb + (3 + idsz) + 4 + 5;
        CHECK_EQ(hr_get_u2(fcp), 1 + 3 * 0x101);
        CHECK_EQ(fcp[2], HPROF_TYPE_FLOAT);
        CHECK_MEM(fcp + 3, neg15, 4);
        CHECK_EQ(fcp[7 + 2], HPROF_TYPE_DOUBLE);
        CHECK_MEM(fcp + 7 + 3, neg225, 8);
    }
    WANT_SUB(HPROF_GC_CLASS_DUMP, 1 + HPROF_CLASS_DUMP_FIXED(idsz) + 6);
    CHECK_EQ(e->s.u.cls.class_id, I(idsz, 0x202));
    CHECK_EQ(e->s.u.cls.trace_serial, 0);
    CHECK_EQ(e->s.u.cls.super_id, 0);
    CHECK_EQ(e->s.u.cls.instance_size, 16);
    CHECK_EQ(e->s.u.cls.ncp, 0);
    CHECK_EQ(e->s.u.cls.nstatics, 0);
    CHECK_EQ(e->s.u.cls.nfields, 0);
    {
        /* statics: int, byte, boolean, short, char: values truncated */
        uint32_t stlen = 5 * (idsz + 1) + 4 + 1 + 1 + 2 + 2;
        WANT_SUB(HPROF_GC_CLASS_DUMP, 1 + HPROF_CLASS_DUMP_FIXED(idsz) + 6 + stlen);
        CHECK_EQ(e->s.u.cls.class_id, I(idsz, 0x208));
        CHECK_EQ(e->s.u.cls.nstatics, 5);
        static const uint8_t ty[5] = {HPROF_TYPE_INT, HPROF_TYPE_BYTE, HPROF_TYPE_BOOLEAN,
                                      HPROF_TYPE_SHORT, HPROF_TYPE_CHAR};
        static const uint64_t want[5] = {0x01020304, 0xFF, 0x01, 0x5678, 0x0041};
        static const uint8_t bytes[10] = {1, 2, 3, 4, 0xFF, 0x01, 0x56, 0x78, 0x00, 0x41};
        const uint8_t *p = e->s.u.cls.statics;
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        unsigned boff = 0;
        for (unsigned k = 0; k < 5; k++) {
            hr_static sv;
            const uint8_t *q = p;
            p = hr_class_static_next(p, idsz, &sv);
            CU_ASSERT_PTR_NOT_NULL_FATAL(p);
            unsigned sz = hprof_type_size(ty[k], idsz);
            CHECK_EQ(sv.name_id, I(idsz, 0x711 + k));
            CHECK_EQ(sv.type, ty[k]);
            CU_ASSERT(val_eq(sv.value, want[k], sz));
            CHECK_EQ(q[idsz], ty[k]);
            CHECK_MEM(q + idsz + 1, bytes + boff, sz);
            boff += sz;
        }
    }

    {
        uint8_t vals[64];
        size_t nv = inst_values(idsz, vals);
        WANT_SUB(HPROF_GC_INSTANCE_DUMP, 1 + HPROF_INSTANCE_DUMP_FIXED(idsz) + (uint32_t)nv);
        CHECK_EQ(e->s.u.inst.id, I(idsz, 0x901));
        CHECK_EQ(e->s.u.inst.trace_serial, 3);
        CHECK_EQ(e->s.u.inst.class_id, I(idsz, 0x201));
        CHECK_EQ(e->s.u.inst.nbytes, nv);
        CHECK_MEM(e->s.u.inst.values, vals, nv);
        /* the int field is 01 02 03 04 */
        static const uint8_t i0102[4] = {1, 2, 3, 4};
        CHECK_MEM(e->s.u.inst.values + idsz + 1 + 2 + 4 + 8 + 1 + 2, i0102, 4);
    }
    WANT_SUB(HPROF_GC_INSTANCE_DUMP, 1 + HPROF_INSTANCE_DUMP_FIXED(idsz));
    CHECK_EQ(e->s.u.inst.id, I(idsz, 0x902));
    CHECK_EQ(e->s.u.inst.trace_serial, 0);
    CHECK_EQ(e->s.u.inst.class_id, I(idsz, 0x202));
    CHECK_EQ(e->s.u.inst.nbytes, 0);

    WANT_SUB(HPROF_GC_OBJ_ARRAY_DUMP, 1 + HPROF_OBJ_ARRAY_DUMP_FIXED(idsz) + 4 * idsz);
    CHECK_EQ(e->s.u.oarr.id, I(idsz, 0x903));
    CHECK_EQ(e->s.u.oarr.trace_serial, 3);
    CHECK_EQ(e->s.u.oarr.n, 4);
    CHECK_EQ(e->s.u.oarr.class_id, I(idsz, 0x210));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e->s.u.oarr.elems);
    CHECK_EQ(hr_get_id(e->s.u.oarr.elems, idsz), I(idsz, 0x901));
    CHECK_EQ(hr_get_id(e->s.u.oarr.elems + idsz, idsz), 0);
    CHECK_EQ(hr_get_id(e->s.u.oarr.elems + 2 * idsz, idsz), I(idsz, 0x902));
    CHECK_EQ(hr_get_id(e->s.u.oarr.elems + 3 * idsz, idsz), 0); /* trailing null kept */
    WANT_SUB(HPROF_GC_OBJ_ARRAY_DUMP, 1 + HPROF_OBJ_ARRAY_DUMP_FIXED(idsz));
    CHECK_EQ(e->s.u.oarr.id, I(idsz, 0x904));
    CHECK_EQ(e->s.u.oarr.trace_serial, 4);
    CHECK_EQ(e->s.u.oarr.n, 0);
    CHECK_EQ(e->s.u.oarr.class_id, I(idsz, 0x210));

    {
        parr_case pc[8];
        float fbuf[4];
        double dbuf[3];
        parr_cases(pc, fbuf, dbuf);
        for (unsigned k = 0; k < 8; k++) {
            unsigned esz = hprof_type_size(pc[k].type, idsz);
            WANT_SUB(HPROF_GC_PRIM_ARRAY_DUMP,
                     1 + HPROF_PRIM_ARRAY_DUMP_FIXED(idsz) + pc[k].n * esz);
            CHECK_EQ(e->s.u.parr.id, I(idsz, 0x950 + k));
            CHECK_EQ(e->s.u.parr.trace_serial, 3);
            CHECK_EQ(e->s.u.parr.n, pc[k].n);
            CHECK_EQ(e->s.u.parr.type, pc[k].type);
            CU_ASSERT_PTR_NOT_NULL_FATAL(e->s.u.parr.elems);
            if (memcmp(e->s.u.parr.elems, pc[k].be, pc[k].n * esz) != 0)
                fprintf(stderr, "\n  prim array of %s: wrong bytes\n",
                        hprof_type_name(pc[k].type));
            CHECK_MEM(e->s.u.parr.elems, pc[k].be, pc[k].n * esz);
        }
    }
    WANT_SUB(HPROF_GC_PRIM_ARRAY_DUMP, 1 + HPROF_PRIM_ARRAY_DUMP_FIXED(idsz));
    CHECK_EQ(e->s.u.parr.id, I(idsz, 0x960));
    CHECK_EQ(e->s.u.parr.n, 0);
    CHECK_EQ(e->s.u.parr.type, HPROF_TYPE_INT);

    /* streaming instance: u1 u2 u4 u8 id */
    WANT_SUB(HPROF_GC_INSTANCE_DUMP, 1 + HPROF_INSTANCE_DUMP_FIXED(idsz) + 15 + idsz);
    CHECK_EQ(e->s.u.inst.id, I(idsz, 0xA01));
    CHECK_EQ(e->s.u.inst.trace_serial, 3);
    CHECK_EQ(e->s.u.inst.class_id, I(idsz, 0x201));
    CHECK_EQ(e->s.u.inst.nbytes, 15 + idsz);
    {
        static const uint8_t sv[15] = {0xAB, 0xCD, 0xEF, 1, 2, 3, 4,
                                       0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88};
        CHECK_MEM(e->s.u.inst.values, sv, 15);
        if (e->s.u.inst.values)
            CHECK_EQ(hr_get_id(e->s.u.inst.values + 15, idsz), I(idsz, 0x999));
    }
    WANT_SUB(HPROF_GC_OBJ_ARRAY_DUMP, 1 + HPROF_OBJ_ARRAY_DUMP_FIXED(idsz) + 3 * idsz);
    CHECK_EQ(e->s.u.oarr.id, I(idsz, 0xA02));
    CHECK_EQ(e->s.u.oarr.trace_serial, 3);
    CHECK_EQ(e->s.u.oarr.n, 3);
    CHECK_EQ(e->s.u.oarr.class_id, I(idsz, 0x210));
    CU_ASSERT_PTR_NOT_NULL_FATAL(e->s.u.oarr.elems);
    CHECK_EQ(hr_get_id(e->s.u.oarr.elems, idsz), I(idsz, 0x901));
    CHECK_EQ(hr_get_id(e->s.u.oarr.elems + idsz, idsz), 0);
    CHECK_EQ(hr_get_id(e->s.u.oarr.elems + 2 * idsz, idsz), I(idsz, 0x902));
    if (big) {
        WANT_SUB(HPROF_GC_PRIM_ARRAY_DUMP, 1 + HPROF_PRIM_ARRAY_DUMP_FIXED(idsz) + 4 * BIG_N);
        CHECK_EQ(e->s.u.parr.n, BIG_N);
        CHECK_EQ(e->s.u.parr.type, HPROF_TYPE_INT);
        int ok = e->s.u.parr.elems != NULL;
        for (uint32_t i = 0; ok && i < BIG_N; i++)
            ok = hr_get_u4(e->s.u.parr.elems + 4 * i) == (uint32_t)(i * 2654435761u);
        CU_ASSERT(ok);
    }
    want_rec_end(&c, __LINE__);
    WANT_REC(HPROF_TAG_HEAP_DUMP_END, 0);
    WANT_REC(HPROF_TAG_UTF8, idsz + 5);
    check_utf8(e, idsz, I(idsz, 0x105), "after", 5);
    CU_ASSERT_PTR_NULL(next_ev(&c));
    CHECK_EQ(c.next_rec_off, file_len);
}

static void check_stats(const hr_stats *st, unsigned idsz, int big, uint64_t len)
{
    CHECK_EQ(st->bytes, len);
    CHECK_EQ(st->records[HPROF_TAG_UTF8], 5);
    CHECK_EQ(st->records[HPROF_TAG_LOAD_CLASS], 1);
    CHECK_EQ(st->records[HPROF_TAG_UNLOAD_CLASS], 1);
    CHECK_EQ(st->records[HPROF_TAG_FRAME], 4);
    CHECK_EQ(st->records[HPROF_TAG_TRACE], 2);
    CHECK_EQ(st->records[HPROF_TAG_ALLOC_SITES], 2);
    CHECK_EQ(st->records[HPROF_TAG_HEAP_SUMMARY], 1);
    CHECK_EQ(st->records[HPROF_TAG_START_THREAD], 1);
    CHECK_EQ(st->records[HPROF_TAG_END_THREAD], 2);
    CHECK_EQ(st->records[HPROF_TAG_CPU_SAMPLES], 1);
    CHECK_EQ(st->records[HPROF_TAG_CONTROL_SETTINGS], 1);
    CHECK_EQ(st->records[0x50], 1);
    CHECK_EQ(st->records[HPROF_TAG_HEAP_DUMP], 0);
    CHECK_EQ(st->records[HPROF_TAG_HEAP_DUMP_SEGMENT], 1);
    CHECK_EQ(st->records[HPROF_TAG_HEAP_DUMP_END], 1);
    uint64_t rb = 0;
    for (unsigned t = 0; t < 256; t++)
        rb += st->record_bytes[t];
    CHECK_EQ(rb + HPROF_HEADER_SIZE, len);
    CHECK_EQ(st->record_bytes[HPROF_TAG_UNLOAD_CLASS], 9 + 4);
    CHECK_EQ(st->record_bytes[HPROF_TAG_FRAME], 4 * (9 + 4 * idsz + 8));
    for (unsigned k = 0; k < NROOTS; k++)
        CHECK_EQ(st->subs[ROOTS[k].tag], 1);
    CHECK_EQ(st->subs[HPROF_GC_HEAP_DUMP_INFO], 1);
    CHECK_EQ(st->subs[HPROF_GC_CLASS_DUMP], 3);
    CHECK_EQ(st->subs[HPROF_GC_INSTANCE_DUMP], 3);
    CHECK_EQ(st->subs[HPROF_GC_OBJ_ARRAY_DUMP], 3);
    CHECK_EQ(st->subs[HPROF_GC_PRIM_ARRAY_DUMP], 9 + (big ? 1 : 0));
    CHECK_EQ(st->sub_bytes[HPROF_GC_ROOT_UNKNOWN], 1 + idsz);
    CHECK_EQ(st->sub_bytes[HPROF_GC_ROOT_JNI_GLOBAL], 1 + 2 * idsz);
    uint64_t sb = 0;
    for (unsigned t = 0; t < 256; t++)
        sb += st->sub_bytes[t];
    CHECK_EQ(sb + 9, st->record_bytes[HPROF_TAG_HEAP_DUMP_SEGMENT]);
}

/* Only an unknown top-level tag (0x50) may be reported, as a warning. */
static void check_problems(const evlog *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const ev *e = &l->v[i];
        if (e->kind != EV_PROBLEM)
            continue;
        CU_ASSERT_STRING_EQUAL(e->pkind, "unknown-tag");
        CHECK_EQ(e->sev, HR_WARNING);
    }
}

static void roundtrip(unsigned idsz)
{
    hw_sink *sink;
    hw_writer *w = tu_mem_writer(idsz, &sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CHECK_EQ(hw_writer_id_size(w), idsz);
    CHECK_EQ(hw_writer_offset(w), HPROF_HEADER_SIZE);
    CHECK_EQ(write_all(w, idsz, 0), 0);
    CHECK_EQ(hw_writer_error(w), 0);
    CU_ASSERT_STRING_EQUAL(hw_writer_error_text(w), "");
    CHECK_EQ(hw_heap_segments(w), 1);
    uint64_t off = hw_writer_offset(w);
    char msg[128] = "x";
    CHECK_EQ(hw_writer_close(w, msg, sizeof msg), 0);
    size_t len;
    const uint8_t *d = hw_sink_memory_data(sink, &len);
    CHECK_EQ(len, off);
    uint8_t *copy = malloc(len); /* exact size: ASan sees any over-read */
    CU_ASSERT_PTR_NOT_NULL_FATAL(copy);
    memcpy(copy, d, len);
    hw_sink_free(sink);

    /* header bytes */
    CHECK_MEM(copy, HPROF_MAGIC_1_0_2, HPROF_MAGIC_LEN + 1);
    CHECK_EQ(hr_get_u4(copy + 19), idsz);
    CHECK_EQ(hr_get_u4(copy + 23), (uint32_t)(TS_FIXED >> 32));
    CHECK_EQ(hr_get_u4(copy + 27), (uint32_t)TS_FIXED);

    evlog l;
    hr_stats st;
    CHECK_EQ(parse_mem(copy, len, &l, &st), HR_OK);
    check_problems(&l);
    check_all(&l, idsz, 0, len);
    check_stats(&st, idsz, 0, len);
    log_free(&l);
    free(copy);
}

static void test_roundtrip_id4(void) { roundtrip(4); }
static void test_roundtrip_id8(void) { roundtrip(8); }

/* ------------------------------------------------------------ headers */

static void test_headers(void)
{
    static const char *magic[4] = {NULL, HPROF_MAGIC_1_0_1, HPROF_MAGIC_1_0_2,
                                   HPROF_MAGIC_1_0_3};
    for (unsigned v = 1; v <= 3; v++) {
        for (unsigned idsz = 4; idsz <= 8; idsz += 4) {
            hw_options o;
            hw_options_init(&o);
            o.id_size = idsz;
            o.version = (hprof_version)v;
            o.clock = HW_CLOCK_FIXED;
            o.timestamp_ms = 0x0123456789ABULL;
            hw_sink *s = hw_sink_memory(0);
            CU_ASSERT_PTR_NOT_NULL_FATAL(s);
            int err = -1;
            hw_writer *w = hw_writer_open(s, &o, &err);
            CU_ASSERT_PTR_NOT_NULL_FATAL(w);
            CHECK_EQ(hw_writer_offset(w), HPROF_HEADER_SIZE);
            CHECK_EQ(hw_utf8z(w, 1, "x"), 0);
            CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
            size_t len;
            const uint8_t *d = hw_sink_memory_data(s, &len);
            CHECK_EQ(len, HPROF_HEADER_SIZE + 9 + idsz + 1);
            static const uint8_t ts[8] = {0, 0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB};
            CHECK_MEM(d, magic[v], HPROF_MAGIC_LEN + 1);
            CHECK_EQ(hr_get_u4(d + 19), idsz);
            CHECK_MEM(d + 23, ts, 8);
            /* record time is 0 with the fixed clock */
            CHECK_EQ(hr_get_u4(d + 32), 0);
            evlog l;
            CHECK_EQ(parse_mem(d, len, &l, NULL), HR_OK);
            CU_ASSERT_FATAL(l.n >= 2);
            CHECK_EQ(l.v[0].kind, EV_HEADER);
            CHECK_EQ(l.v[0].h.version, v);
            CU_ASSERT_STRING_EQUAL(l.v[0].h.magic, magic[v]);
            CHECK_EQ(l.v[0].h.id_size, idsz);
            CHECK_EQ(l.v[0].h.timestamp_ms, 0x0123456789ABULL);
            CHECK_EQ(l.v[1].kind, EV_RECORD);
            CHECK_EQ(l.v[1].r.tag, HPROF_TAG_UTF8);
            CHECK_EQ(l.v[1].r.time_us, 0);
            CHECK_EQ(l.nproblems, 0);
            log_free(&l);
            hw_sink_free(s);
        }
    }
}

/* The default options are id 8, 1.0.2, segmented; a header-only file parses. */
static void test_defaults_and_real_clock(void)
{
    hw_options o;
    hw_options_init(&o);
    CHECK_EQ(o.id_size, 8);
    CHECK_EQ(o.version, HPROF_VERSION_1_0_2);
    CHECK_EQ(o.heap_mode, HW_HEAP_SEGMENTED);
    CHECK_EQ(o.clock, HW_CLOCK_REAL);
    uint64_t before = (uint64_t)time(NULL) * 1000;
    hw_sink *s = hw_sink_memory(0);
    hw_writer *w = hw_writer_open(s, &o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    uint64_t after = ((uint64_t)time(NULL) + 1) * 1000;
    size_t len;
    const uint8_t *d = hw_sink_memory_data(s, &len);
    CHECK_EQ(len, HPROF_HEADER_SIZE);
    evlog l;
    CHECK_EQ(parse_mem(d, len, &l, NULL), HR_OK);
    CU_ASSERT_FATAL(l.n == 1);
    CHECK_EQ(l.v[0].h.version, HPROF_VERSION_1_0_2);
    CHECK_EQ(l.v[0].h.id_size, 8);
    CU_ASSERT(l.v[0].h.timestamp_ms >= before && l.v[0].h.timestamp_ms <= after);
    log_free(&l);
    hw_sink_free(s);
}

static int cs_write(void *ctx, const void *data, size_t len)
{
    (void)data;
    (void)len;
    ++*(int *)ctx;
    return 0;
}

static int cs_close(void *ctx)
{
    *(int *)ctx += 1000;
    return 0;
}

/* Invalid options: NULL with EINVAL, and the (non-memory) sink is freed,
 * i.e. closed through its close callback, without a byte written. */
static void test_bad_options(void)
{
    static const unsigned bad[4] = {2, 3, 5, 16};
    for (unsigned k = 0; k < 5; k++) {
        hw_options o;
        hw_options_init(&o);
        if (k < 4)
            o.id_size = bad[k];
        else
            o.version = (hprof_version)7;
        int calls = 0;
        hw_sink *s = hw_sink_custom(cs_write, cs_close, &calls);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        int err = 0;
        hw_writer *w = hw_writer_open(s, &o, &err);
        CU_ASSERT_PTR_NULL(w);
        CHECK_EQ(err, EINVAL);
        CHECK_EQ(calls, 1000);
        if (w)
            hw_writer_close(w, NULL, 0);
    }
}

/* ------------------------------------------------------- single mode */

static void test_single_mode(void)
{
    for (unsigned idsz = 4; idsz <= 8; idsz += 4) {
        hw_options o;
        hw_options_init(&o);
        o.id_size = idsz;
        o.version = HPROF_VERSION_1_0_1;
        o.heap_mode = HW_HEAP_SINGLE;
        o.clock = HW_CLOCK_FIXED;
        hw_sink *s = hw_sink_memory(0);
        hw_writer *w = hw_writer_open(s, &o, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        CHECK_EQ(hw_utf8z(w, 1, "x"), 0);
        CHECK_EQ(hw_heap_begin(w), 0);
        for (unsigned k = 0; k < 10; k++)
            CHECK_EQ(hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, 0x100 + k, 0, 0, 0), 0);
        int32_t ints[20];
        for (int k = 0; k < 20; k++)
            ints[k] = k;
        CHECK_EQ(hw_prim_array_dump(w, 0x200, 1, HPROF_TYPE_INT, 20, ints), 0);
        CHECK_EQ(hw_heap_end(w), 0);
        /* an empty single dump writes nothing (VisualVM rejects a
         * zero-length record) */
        CHECK_EQ(hw_heap_begin(w), 0);
        CHECK_EQ(hw_heap_end(w), 0);
        CHECK_EQ(hw_heap_segments(w), 0);
        CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
        size_t len;
        const uint8_t *d = hw_sink_memory_data(s, &len);
        evlog l;
        hr_stats st;
        CHECK_EQ(parse_mem(d, len, &l, &st), HR_OK);
        CHECK_EQ(l.nproblems, 0);
        CHECK_EQ(st.records[HPROF_TAG_HEAP_DUMP], 1);
        CHECK_EQ(st.records[HPROF_TAG_HEAP_DUMP_SEGMENT], 0);
        CHECK_EQ(st.records[HPROF_TAG_HEAP_DUMP_END], 0);
        CHECK_EQ(st.subs[HPROF_GC_ROOT_STICKY_CLASS], 10);
        CHECK_EQ(st.subs[HPROF_GC_PRIM_ARRAY_DUMP], 1);
        cursor c = {&l, 0, idsz, HPROF_HEADER_SIZE, 0, 0, 0};
        const ev *e;
        WANT_REC(HPROF_TAG_UTF8, idsz + 1);
        WANT_REC(HPROF_TAG_HEAP_DUMP, 10 * (1 + idsz) + 1 + idsz + 9 + 80);
        for (unsigned k = 0; k < 10; k++) {
            WANT_SUB(HPROF_GC_ROOT_STICKY_CLASS, 1 + idsz);
            CHECK_EQ(e->s.u.root.id, 0x100 + k);
        }
        WANT_SUB(HPROF_GC_PRIM_ARRAY_DUMP, 1 + idsz + 9 + 80);
        CHECK_EQ(e->s.u.parr.n, 20);
        CHECK_EQ(hr_get_u4(e->s.u.parr.elems + 4 * 19), 19);
        want_rec_end(&c, __LINE__);
        CU_ASSERT_PTR_NULL(next_ev(&c));
        CHECK_EQ(c.next_rec_off, len);
        log_free(&l);
        hw_sink_free(s);
    }
}

/* In single mode a plain record or a flush inside a dump is misuse. */
static void test_single_mode_misuse(void)
{
    for (int which = 0; which < 2; which++) {
        hw_options o;
        hw_options_init(&o);
        o.id_size = 4;
        o.heap_mode = HW_HEAP_SINGLE;
        hw_sink *s = hw_sink_memory(0);
        hw_writer *w = hw_writer_open(s, &o, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        CHECK_EQ(hw_heap_begin(w), 0);
        CHECK_EQ(hw_root(w, HPROF_GC_ROOT_UNKNOWN, 1, 0, 0, 0), 0);
        if (which == 0)
            CHECK_EQ(hw_utf8z(w, 1, "x"), EINVAL);
        else
            CHECK_EQ(hw_writer_flush(w), EINVAL);
        CHECK_EQ(hw_writer_error(w), EINVAL);
        CHECK_EQ(hw_writer_close(w, NULL, 0), EINVAL);
        hw_sink_free(s);
    }
}

/* ------------------------------------------------------ streaming API */

typedef int (*misuse_fn)(hw_writer *w);

static int mis_short_instance(hw_writer *w)
{
    hw_instance_begin(w, 0x10, 1, 0x20, 8);
    hw_put_u4(w, 1);
    return hw_sub_end(w);
}
static int mis_long_instance(hw_writer *w)
{
    hw_instance_begin(w, 0x10, 1, 0x20, 2);
    int r = hw_put_u4(w, 1);
    int r2 = hw_sub_end(w);
    return r ? r : r2;
}
static int mis_short_objarray(hw_writer *w)
{
    hw_obj_array_begin(w, 0x10, 1, 0x20, 2);
    hw_put_id(w, 5);
    return hw_sub_end(w);
}
static int mis_long_objarray(hw_writer *w)
{
    hw_obj_array_begin(w, 0x10, 1, 0x20, 1);
    hw_put_id(w, 5);
    int r = hw_put_id(w, 6);
    int r2 = hw_sub_end(w);
    return r ? r : r2;
}
static int mis_root_outside(hw_writer *w) { return hw_root(w, HPROF_GC_ROOT_UNKNOWN, 1, 0, 0, 0); }
static int mis_begin_outside(hw_writer *w) { return hw_instance_begin(w, 0x10, 1, 0x20, 4); }
static int mis_put_outside(hw_writer *w) { return hw_put_u1(w, 1); }
static int mis_end_outside(hw_writer *w) { return hw_sub_end(w); }
static int mis_sub_during_stream(hw_writer *w)
{
    hw_instance_begin(w, 0x10, 1, 0x20, 4);
    return hw_root(w, HPROF_GC_ROOT_UNKNOWN, 1, 0, 0, 0);
}
static int mis_record_during_stream(hw_writer *w)
{
    hw_instance_begin(w, 0x10, 1, 0x20, 4);
    return hw_utf8z(w, 1, "x");
}
static int mis_heap_end_during_stream(hw_writer *w)
{
    hw_instance_begin(w, 0x10, 1, 0x20, 4);
    hw_put_u2(w, 1);
    return hw_heap_end(w);
}
static int mis_bad_root_tag(hw_writer *w) { return hw_root(w, HPROF_GC_CLASS_DUMP, 1, 0, 0, 0); }
static int mis_unknown_root_tag(hw_writer *w) { return hw_root(w, 0x24, 1, 0, 0, 0); }
static int mis_bad_prim_type(hw_writer *w)
{
    int32_t x = 1;
    return hw_prim_array_dump(w, 1, 0, HPROF_TYPE_OBJECT, 1, &x);
}
static int mis_bad_prim_type2(hw_writer *w)
{
    int32_t x = 1;
    return hw_prim_array_dump(w, 1, 0, 12, 1, &x);
}

static const struct {
    const char *name;
    misuse_fn fn;
    int in_dump;
    int complete_ok; /* the sub-record was whole before the misuse */
} MISUSE[] = {
    {"instance: fewer bytes than declared", mis_short_instance, 1, 0},
    {"instance: more bytes than declared", mis_long_instance, 1, 0},
    {"obj array: fewer ids than declared", mis_short_objarray, 1, 0},
    {"obj array: more ids than declared", mis_long_objarray, 1, 1},
    {"hw_put_u1 outside a streamed sub-record", mis_put_outside, 1, 0},
    {"hw_sub_end outside a streamed sub-record", mis_end_outside, 1, 0},
    {"a root while an instance is streamed", mis_sub_during_stream, 1, 0},
    {"a plain record while an instance is streamed", mis_record_during_stream, 1, 0},
    {"hw_heap_end while an instance is streamed", mis_heap_end_during_stream, 1, 0},
    {"hw_root with tag CLASS DUMP", mis_bad_root_tag, 1, 0},
    {"hw_root with unknown tag 0x24", mis_unknown_root_tag, 1, 0},
    {"prim array of type object", mis_bad_prim_type, 1, 0},
    {"prim array of type 12", mis_bad_prim_type2, 1, 0},
    {"hw_root outside a heap dump", mis_root_outside, 0, 0},
    {"hw_instance_begin outside a heap dump", mis_begin_outside, 0, 0},
};

static void test_streaming_misuse(void)
{
    for (unsigned k = 0; k < sizeof MISUSE / sizeof MISUSE[0]; k++) {
        for (unsigned idsz = 4; idsz <= 8; idsz += 4) {
            hw_sink *s;
            hw_writer *w = tu_mem_writer(idsz, &s);
            CU_ASSERT_PTR_NOT_NULL_FATAL(w);
            CHECK_EQ(hw_utf8z(w, 1, "before"), 0);
            if (MISUSE[k].in_dump) {
                CHECK_EQ(hw_heap_begin(w), 0);
                CHECK_EQ(hw_root(w, HPROF_GC_ROOT_UNKNOWN, 0x77, 0, 0, 0), 0);
            }
            int r = MISUSE[k].fn(w);
            if (r != EINVAL || hw_writer_error(w) != EINVAL)
                fprintf(stderr, "\n  misuse \"%s\" (id %u): returned %d, latched %d\n",
                        MISUSE[k].name, idsz, r, hw_writer_error(w));
            CHECK_EQ(r, EINVAL);
            CHECK_EQ(hw_writer_error(w), EINVAL);
            CU_ASSERT(strlen(hw_writer_error_text(w)) > 0);
            /* sticky: later calls do nothing and return the same error */
            uint64_t off = hw_writer_offset(w);
            CHECK_EQ(hw_utf8z(w, 2, "later"), EINVAL);
            CHECK_EQ(hw_root(w, HPROF_GC_ROOT_UNKNOWN, 0x78, 0, 0, 0), EINVAL);
            CHECK_EQ(hw_heap_end(w), EINVAL);
            CHECK_EQ(hw_writer_offset(w), off);
            char msg[200] = "";
            CHECK_EQ(hw_writer_close(w, msg, sizeof msg), EINVAL);
            CU_ASSERT(strlen(msg) > 0);
            /* what reached the sink is a well-formed prefix: no sub-record
             * with a false length, nothing written after the error */
            size_t len;
            const uint8_t *d = hw_sink_memory_data(s, &len);
            uint8_t *copy = malloc(len ? len : 1);
            memcpy(copy, d, len);
            evlog l;
            hr_status rc = parse_mem(copy, len, &l, NULL);
            /* a refused record: at close the sink gets everything completed
             * before it, the open segment cut to its true length */
            CHECK_EQ(rc, HR_OK);
            CHECK_EQ(l.nproblems, 0);
            CHECK_EQ(count_kind(&l, EV_RECORD, HPROF_TAG_UTF8), 1);
            if (MISUSE[k].in_dump) {
                CU_ASSERT(count_kind(&l, EV_SUB, HPROF_GC_ROOT_UNKNOWN) == 1);
                CHECK_EQ(count_kind(&l, EV_RECORD, HPROF_TAG_HEAP_DUMP_SEGMENT), 1);
            }
            if (!only_truncation(&l))
                fprintf(stderr, "\n  misuse \"%s\": output is not a clean prefix\n",
                        MISUSE[k].name);
            CU_ASSERT(only_truncation(&l));
            if (MISUSE[k].complete_ok) {
                /* the array had all its ids when the extra one came: it may
                 * have been written, but then whole and true */
                for (size_t i = 0; i < l.n; i++)
                    if (l.v[i].kind == EV_SUB && l.v[i].s.tag == HPROF_GC_OBJ_ARRAY_DUMP) {
                        CHECK_EQ(l.v[i].s.u.oarr.n, 1);
                        CHECK_EQ(hr_get_id(l.v[i].s.u.oarr.elems, idsz), 5);
                    }
            } else if (count_kind(&l, EV_SUB, HPROF_GC_INSTANCE_DUMP) ||
                count_kind(&l, EV_SUB, HPROF_GC_OBJ_ARRAY_DUMP) || count_kind(&l, EV_SUB, -1) > 1)
                fprintf(stderr, "\n  misuse \"%s\" (id %u): the refused sub-record reached the "
                        "output (%zu subs)\n", MISUSE[k].name, idsz, count_kind(&l, EV_SUB, -1));
            if (!MISUSE[k].complete_ok) {
                CU_ASSERT(count_kind(&l, EV_SUB, HPROF_GC_INSTANCE_DUMP) == 0);
                CU_ASSERT(count_kind(&l, EV_SUB, HPROF_GC_OBJ_ARRAY_DUMP) == 0);
                CU_ASSERT(count_kind(&l, EV_SUB, -1) <= 1);
            }
            CU_ASSERT(count_kind(&l, EV_RECORD, HPROF_TAG_UTF8) <= 1);
            log_free(&l);
            free(copy);
            hw_sink_free(s);
        }
    }
}

/* hw_raw_record refuses the heap dump tags. */
static void test_raw_record_refuses_heap_tags(void)
{
    static const uint8_t tags[3] = {HPROF_TAG_HEAP_DUMP, HPROF_TAG_HEAP_DUMP_SEGMENT,
                                    HPROF_TAG_HEAP_DUMP_END};
    for (unsigned k = 0; k < 3; k++) {
        hw_sink *s;
        hw_writer *w = tu_mem_writer(8, &s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        uint64_t off = hw_writer_offset(w);
        static const uint8_t b[1] = {HPROF_GC_ROOT_UNKNOWN};
        CHECK_EQ(hw_raw_record(w, tags[k], b, 1), EINVAL);
        CHECK_EQ(hw_writer_error(w), EINVAL);
        CHECK_EQ(hw_writer_offset(w), off);
        CHECK_EQ(hw_writer_close(w, NULL, 0), EINVAL);
        hw_sink_free(s);
    }
}

/* Misuse of the heap dump brackets. */
static void test_heap_bracket_misuse(void)
{
    for (int which = 0; which < 2; which++) {
        hw_sink *s;
        hw_writer *w = tu_mem_writer(8, &s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        if (which == 0) {
            CHECK_EQ(hw_heap_end(w), EINVAL); /* no dump open */
        } else {
            CHECK_EQ(hw_heap_begin(w), 0);
            CHECK_EQ(hw_heap_begin(w), EINVAL); /* already open */
        }
        CHECK_EQ(hw_writer_error(w), EINVAL);
        hw_writer_close(w, NULL, 0);
        hw_sink_free(s);
    }
}

/* --------------------------------------------- ids > 32 bits at id 4 */

typedef int (*ovf_fn)(hw_writer *w, hprof_id big);

#define BIGID 0x100000001ULL

static int ov_utf8(hw_writer *w, hprof_id b) { return hw_utf8z(w, b, "x"); }
static int ov_load_class(hw_writer *w, hprof_id b) { return hw_load_class(w, 1, 2, 3, b); }
static int ov_frame(hw_writer *w, hprof_id b) { return hw_frame(w, 1, 2, 3, b, 5, 6); }
static int ov_trace(hw_writer *w, hprof_id b)
{
    hprof_id f[3] = {1, 2, b};
    return hw_trace(w, 1, 1, 3, f);
}
static int ov_start_thread(hw_writer *w, hprof_id b) { return hw_start_thread(w, 1, 2, 3, 4, 5, b); }
static int ov_root(hw_writer *w, hprof_id b) { return hw_root(w, HPROF_GC_ROOT_UNKNOWN, b, 0, 0, 0); }
static int ov_root_ref(hw_writer *w, hprof_id b) { return hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 1, 0, 0, b); }
static int ov_heap_info(hw_writer *w, hprof_id b) { return hw_heap_dump_info(w, 1, b); }
static int ov_class_super(hw_writer *w, hprof_id b)
{
    hw_class c = {1, 0, b, 0, 0, 0, 0, 0, 0, 0, NULL, 0, NULL, 0, NULL};
    return hw_class_dump(w, &c);
}
static int ov_class_cp(hw_writer *w, hprof_id b)
{
    hw_cp_entry cp[2] = {{1, {HPROF_TYPE_INT, 5}}, {2, {HPROF_TYPE_OBJECT, b}}};
    hw_class c = {1, 0, 0, 0, 0, 0, 0, 0, 0, 2, cp, 0, NULL, 0, NULL};
    return hw_class_dump(w, &c);
}
static int ov_class_static(hw_writer *w, hprof_id b)
{
    hw_static_field st[1] = {{7, {HPROF_TYPE_OBJECT, b}}};
    hw_class c = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, 1, st, 0, NULL};
    return hw_class_dump(w, &c);
}
static int ov_class_field(hw_writer *w, hprof_id b)
{
    hw_field f[1] = {{b, HPROF_TYPE_INT}};
    hw_class c = {1, 0, 0, 0, 0, 0, 0, 0, 4, 0, NULL, 0, NULL, 1, f};
    return hw_class_dump(w, &c);
}
static int ov_instance(hw_writer *w, hprof_id b)
{
    static const uint8_t v[4] = {0};
    return hw_instance_dump(w, 1, 0, b, v, 4);
}
static int ov_obj_array(hw_writer *w, hprof_id b)
{
    hprof_id e[3] = {1, 0, b};
    return hw_obj_array_dump(w, 1, 0, 2, 3, e);
}
static int ov_prim_array(hw_writer *w, hprof_id b)
{
    int32_t v[2] = {1, 2};
    return hw_prim_array_dump(w, b, 0, HPROF_TYPE_INT, 2, v);
}
static int ov_stream_begin(hw_writer *w, hprof_id b) { return hw_instance_begin(w, b, 0, 1, 4); }
static int ov_stream_put(hw_writer *w, hprof_id b)
{
    hw_obj_array_begin(w, 1, 0, 2, 1);
    return hw_put_id(w, b);
}

static const struct {
    const char *name;
    ovf_fn fn;
    int in_dump;
} OVF[] = {
    {"hw_utf8 id", ov_utf8, 0},
    {"hw_load_class name", ov_load_class, 0},
    {"hw_frame source file", ov_frame, 0},
    {"hw_trace last frame", ov_trace, 0},
    {"hw_start_thread parent group", ov_start_thread, 0},
    {"hw_root obj", ov_root, 1},
    {"hw_root JNI GLOBAL ref", ov_root_ref, 1},
    {"hw_heap_dump_info name", ov_heap_info, 1},
    {"class dump super", ov_class_super, 1},
    {"class dump cp object value", ov_class_cp, 1},
    {"class dump static object value", ov_class_static, 1},
    {"class dump field name", ov_class_field, 1},
    {"instance class id", ov_instance, 1},
    {"obj array last element", ov_obj_array, 1},
    {"prim array obj id", ov_prim_array, 1},
    {"hw_instance_begin obj", ov_stream_begin, 1},
    {"hw_put_id", ov_stream_put, 1},
};

static void test_id_overflow_id4(void)
{
    for (unsigned k = 0; k < sizeof OVF / sizeof OVF[0]; k++) {
        hw_sink *s;
        hw_writer *w = tu_mem_writer(4, &s);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        /* the largest 4-byte id is fine */
        CHECK_EQ(hw_utf8z(w, 0xFFFFFFFFu, "max"), 0);
        if (OVF[k].in_dump)
            CHECK_EQ(hw_heap_begin(w), 0);
        uint64_t off = hw_writer_offset(w);
        int r = OVF[k].fn(w, BIGID);
        if (r != EOVERFLOW)
            fprintf(stderr, "\n  id overflow in %s: returned %d, expected EOVERFLOW\n",
                    OVF[k].name, r);
        CHECK_EQ(r, EOVERFLOW);
        CHECK_EQ(hw_writer_error(w), EOVERFLOW);
        /* refused before any byte of it (a stream begin may count its header) */
        if (OVF[k].fn != ov_stream_put)
            CHECK_EQ(hw_writer_offset(w), off);
        CHECK_EQ(hw_utf8z(w, 3, "later"), EOVERFLOW);
        char msg[200] = "";
        CHECK_EQ(hw_writer_close(w, msg, sizeof msg), EOVERFLOW);
        CU_ASSERT(strlen(msg) > 0);
        size_t len;
        const uint8_t *d = hw_sink_memory_data(s, &len);
        evlog l;
        hr_status rc = parse_mem(d, len, &l, NULL);
        CHECK_EQ(rc, HR_OK);
        CHECK_EQ(l.nproblems, 0);
        CU_ASSERT(count_kind(&l, EV_SUB, -1) == 0);
        CHECK_EQ(count_kind(&l, EV_RECORD, -1), 1); /* only "max", no empty segment */
        if (count_kind(&l, EV_RECORD, -1) == 1) {
            const ev *e = NULL;
            for (size_t i = 0; i < l.n; i++)
                if (l.v[i].kind == EV_RECORD)
                    e = &l.v[i];
            CHECK_EQ(e->r.tag, HPROF_TAG_UTF8);
            CHECK_EQ(e->r.u.utf8.id, 0xFFFFFFFFu);
        }
        log_free(&l);
        hw_sink_free(s);
    }
}

/* The same ids are fine at id size 8 and round-trip whole. */
static void test_big_ids_id8(void)
{
    hw_sink *s;
    hw_writer *w = tu_mem_writer(8, &s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CHECK_EQ(hw_utf8z(w, 0xFFFFFFFFFFFFFFFFULL, "max"), 0);
    CHECK_EQ(hw_heap_begin(w), 0);
    CHECK_EQ(ov_root(w, BIGID), 0);
    CHECK_EQ(ov_obj_array(w, BIGID), 0);
    CHECK_EQ(hw_heap_end(w), 0);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);
    size_t len;
    const uint8_t *d = hw_sink_memory_data(s, &len);
    evlog l;
    CHECK_EQ(parse_mem(d, len, &l, NULL), HR_OK);
    cursor c = {&l, 0, 8, HPROF_HEADER_SIZE, 0, 0, 0};
    const ev *e;
    WANT_REC(HPROF_TAG_UTF8, 8 + 3);
    CHECK_EQ(e->r.u.utf8.id, 0xFFFFFFFFFFFFFFFFULL);
    WANT_REC(HPROF_TAG_HEAP_DUMP_SEGMENT, 9 + 1 + 16 + 8 + 24);
    WANT_SUB(HPROF_GC_ROOT_UNKNOWN, 9);
    CHECK_EQ(e->s.u.root.id, BIGID);
    WANT_SUB(HPROF_GC_OBJ_ARRAY_DUMP, 1 + 16 + 8 + 24);
    CHECK_EQ(hr_get_id(e->s.u.oarr.elems + 16, 8), BIGID);
    want_rec_end(&c, __LINE__);
    WANT_REC(HPROF_TAG_HEAP_DUMP_END, 0);
    log_free(&l);
    hw_sink_free(s);
}

/* ------------------------------------- file, gzip and pipe sources */

static char g_tmpdir[64];

static int make_tmpdir(void)
{
    snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/hprof-rt-XXXXXX");
    return mkdtemp(g_tmpdir) ? 0 : -1;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static hr_status parse_src(hr_source *src, evlog *l, hr_stats *st)
{
    memset(l, 0, sizeof *l);
    if (st)
        memset(st, 0, sizeof *st);
    return hr_parse(src, &LOG_CB, l, st);
}

static void file_gzip_pipe(unsigned idsz)
{
    char path[128], gzpath[128];
    snprintf(path, sizeof path, "%s/rt%u.hprof", g_tmpdir, idsz);
    snprintf(gzpath, sizeof gzpath, "%s/rt%u.hprof.gz", g_tmpdir, idsz);
    int err = 0;
    hw_sink *fs = hw_sink_file(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fs);
    hw_options o;
    hw_options_init(&o);
    o.id_size = idsz;
    o.clock = HW_CLOCK_FIXED;
    o.timestamp_ms = TS_FIXED;
    o.buffer_size = 4096; /* many sink writes */
    hw_writer *w = hw_writer_open(fs, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CHECK_EQ(write_all(w, idsz, 1), 0);
    CHECK_EQ(hw_writer_close(w, NULL, 0), 0);

    size_t len = 0;
    uint8_t *bytes = read_file(path, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(bytes);
    CU_ASSERT(len > 4 * BIG_N);

    /* the reference parse: memory */
    evlog lm;
    hr_stats sm;
    CHECK_EQ(parse_mem(bytes, len, &lm, &sm), HR_OK);
    check_all(&lm, idsz, 1, len);
    check_stats(&sm, idsz, 1, len);

    /* a plain file */
    hr_source *src = hr_source_file(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    CHECK_EQ(hr_source_is_gzip(src), 0);
    evlog lf;
    hr_stats sf;
    CHECK_EQ(parse_src(src, &lf, &sf), HR_OK);
    CU_ASSERT(log_same(&lm, &lf));
    CU_ASSERT(memcmp(&sm, &sf, sizeof sm) == 0);
    check_all(&lf, idsz, 1, len);
    /* rewind and parse again */
    CHECK_EQ(hr_source_rewind(src), 0);
    evlog lf2;
    CHECK_EQ(parse_src(src, &lf2, NULL), HR_OK);
    CU_ASSERT(log_same(&lm, &lf2));
    log_free(&lf2);
    hr_source_close(src);
    log_free(&lf);

    /* gzip it */
    gzFile gz = gzopen(gzpath, "wb6");
    CU_ASSERT_PTR_NOT_NULL_FATAL(gz);
    CHECK_EQ(gzwrite(gz, bytes, (unsigned)len), len);
    CHECK_EQ(gzclose(gz), Z_OK);
    size_t gzlen = 0;
    uint8_t *gzb = read_file(gzpath, &gzlen);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gzb);
    CU_ASSERT(gzlen < len);
    CU_ASSERT(gzb[0] == 0x1F && gzb[1] == 0x8B);
    free(gzb);
    src = hr_source_file(gzpath, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(src);
    CHECK_EQ(hr_source_is_gzip(src), 1);
    evlog lg;
    hr_stats sg;
    CHECK_EQ(parse_src(src, &lg, &sg), HR_OK);
    CU_ASSERT(log_same(&lm, &lg));
    CU_ASSERT(memcmp(&sm, &sg, sizeof sm) == 0);
    CHECK_EQ(sg.bytes, len); /* uncompressed */
    check_all(&lg, idsz, 1, len);
    check_stats(&sg, idsz, 1, len);
    log_free(&lg);
    hr_source_close(src);

    /* seekable fds, plain and gzip, positioned where the file starts: read
     * as streams, rewound to that position (not to 0), the fd left open */
    const char *fpaths[2] = {path, gzpath};
    for (int k = 0; k < 2; k++) {
        size_t flen = 0;
        uint8_t *fb = read_file(fpaths[k], &flen);
        CU_ASSERT_PTR_NOT_NULL_FATAL(fb);
        char tpath[160];
        snprintf(tpath, sizeof tpath, "%s/prefixed", g_tmpdir);
        int tfd = open(tpath, O_RDWR | O_CREAT | O_TRUNC, 0600);
        CU_ASSERT_FATAL(tfd >= 0);
        CHECK_EQ(write(tfd, "junk", 4), 4);
        CHECK_EQ(write(tfd, fb, flen), flen);
        CHECK_EQ(lseek(tfd, 4, SEEK_SET), 4);
        free(fb);
        src = hr_source_fd(tfd, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(src);
        CHECK_EQ(hr_source_is_gzip(src), k);
        for (int pass = 0; pass < 2; pass++) {
            evlog ld;
            CHECK_EQ(parse_src(src, &ld, NULL), HR_OK);
            CU_ASSERT(log_same(&lm, &ld));
            log_free(&ld);
            if (pass == 0)
                CHECK_EQ(hr_source_rewind(src), 0);
        }
        hr_source_close(src);
        CU_ASSERT(fcntl(tfd, F_GETFD) != -1); /* not closed by the source */
        close(tfd);
        unlink(tpath);
    }

    /* a pipe: a child writes, the reader streams */
    int fds[2];
    CU_ASSERT_FATAL(pipe(fds) == 0);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        size_t done = 0;
        while (done < len) {
            /* small writes: the reader must assemble records across reads */
            size_t chunk = len - done < 1000 ? len - done : 1000;
            ssize_t n = write(fds[1], bytes + done, chunk);
            if (n <= 0)
                _exit(1);
            done += (size_t)n;
        }
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    src = hr_source_fd(fds[0], &err);
    CU_ASSERT_PTR_NOT_NULL(src);
    if (src) {
        CHECK_EQ(hr_source_is_gzip(src), 0);
        evlog lp;
        hr_stats sp;
        CHECK_EQ(parse_src(src, &lp, &sp), HR_OK);
        CU_ASSERT(log_same(&lm, &lp));
        CU_ASSERT(memcmp(&sm, &sp, sizeof sm) == 0);
        check_all(&lp, idsz, 1, len);
        CHECK_EQ(hr_source_rewind(src), -1);
        log_free(&lp);
        hr_source_close(src);
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    log_free(&lm);
    free(bytes);
    unlink(path);
    unlink(gzpath);
}

static void test_file_gzip_pipe_id4(void) { file_gzip_pipe(4); }
static void test_file_gzip_pipe_id8(void) { file_gzip_pipe(8); }

static void test_source_file_missing(void)
{
    int err = 0;
    char path[128];
    snprintf(path, sizeof path, "%s/does-not-exist.hprof", g_tmpdir);
    hr_source *src = hr_source_file(path, &err);
    CU_ASSERT_PTR_NULL(src);
    CHECK_EQ(err, ENOENT);
    if (src)
        hr_source_close(src);
}

/* ----------------------------------------------------------- main */

static int suite_init(void) { return make_tmpdir(); }
static int suite_clean(void)
{
    rmdir(g_tmpdir);
    return 0;
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("roundtrip", suite_init, suite_clean);
    if (!s)
        return -1;
    if (!CU_add_test(s, "every record and sub-record, id 4", test_roundtrip_id4) ||
        !CU_add_test(s, "every record and sub-record, id 8", test_roundtrip_id8) ||
        !CU_add_test(s, "headers 1.0.1/1.0.2/1.0.3, fixed clock", test_headers) ||
        !CU_add_test(s, "default options, real clock", test_defaults_and_real_clock) ||
        !CU_add_test(s, "invalid id sizes refused", test_bad_options) ||
        !CU_add_test(s, "single mode: one 0x0C per dump", test_single_mode) ||
        !CU_add_test(s, "single mode misuse", test_single_mode_misuse) ||
        !CU_add_test(s, "streaming/sub-record misuse latches EINVAL", test_streaming_misuse) ||
        !CU_add_test(s, "raw record refuses heap tags", test_raw_record_refuses_heap_tags) ||
        !CU_add_test(s, "heap dump bracket misuse", test_heap_bracket_misuse) ||
        !CU_add_test(s, "ids > 32 bits refused at id 4", test_id_overflow_id4) ||
        !CU_add_test(s, "ids > 32 bits fine at id 8", test_big_ids_id8) ||
        !CU_add_test(s, "file, gzip and pipe sources, id 4", test_file_gzip_pipe_id4) ||
        !CU_add_test(s, "file, gzip and pipe sources, id 8", test_file_gzip_pipe_id8) ||
        !CU_add_test(s, "missing file source", test_source_file_missing))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
