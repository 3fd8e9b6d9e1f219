/*
 * bench_writer.c: throughput benchmark of libhprofwriter (writer and reader).
 *
 * Owns the synthetic heap: a deterministic, HotSpot-like dump (UTF8 + LOAD
 * CLASS for ~50 classes including array classes, an empty TRACE, CLASS DUMPs,
 * a few roots, then a mix of small INSTANCE DUMPs, OBJ ARRAY DUMPs and PRIM
 * ARRAY DUMPs where arrays hold about half of the bytes), and the timing of
 * writing it to a memory sink, a file (with and without the I/O thread), a
 * discarding sink, and of reading the file back with hr_parse.
 *
 * Every output is checked: the per-tag record and sub-record counts the
 * reader sees must equal those written, and so must the byte count.
 *
 * Output: one line per measurement, machine-readable for bench/run.sh:
 *   NAME BYTES bytes SECONDS s GBPS GB/s FAULTS faults
 * GB is 10^9 bytes; FAULTS are the minor page faults the measurement paid.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hprof/hr_reader.h"
#include "hprof/hw_writer.h"

#define ID_SIZE 8u
#define POOL_BYTES (4u << 20)  /* random field/element bytes, read in turn */
#define ID_POOL 65536u         /* random object ids for OBJ ARRAY elements */
#define MAX_PRIM_LEN 8192u
#define MAX_OBJ_LEN 1024u  /* must stay below ID_POOL */
#define NDESC (1u << 16)      /* the object mix repeats every NDESC objects */
#define HEAP_BASE 0x0000000700000000ull
#define CLASS_BASE 0x00000007f0000000ull

/* ------------------------------------------------------------------ PRNG */

/* splitmix64: one multiply-xorshift per draw, so the generator costs little
 * next to the writer it is feeding. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ------------------------------------------------------------- the model */

typedef struct bclass {
    const char *name;
    hprof_id id;
    hprof_id name_id;
    uint8_t array_type; /* 0: instance class; HPROF_TYPE_OBJECT: object array; else prim */
    uint32_t size;      /* instance field bytes (instance classes) */
    uint16_t nfields;
    hw_field fields[8];
} bclass;

static const char *const class_names[] = {
    "java/lang/Object", "java/lang/String", "java/lang/Integer", "java/lang/Long",
    "java/lang/Class", "java/lang/ref/WeakReference", "java/lang/ref/SoftReference",
    "java/lang/Thread", "java/lang/ThreadGroup", "java/lang/ClassLoader",
    "java/util/HashMap", "java/util/HashMap$Node", "java/util/ArrayList",
    "java/util/LinkedList$Node", "java/util/TreeMap$Entry", "java/util/HashSet",
    "java/util/concurrent/ConcurrentHashMap$Node", "java/util/LinkedHashMap$Entry",
    "java/util/Collections$UnmodifiableRandomAccessList", "java/lang/invoke/MethodType",
    "java/lang/invoke/MemberName", "java/lang/invoke/LambdaForm", "java/lang/reflect/Method",
    "java/lang/reflect/Field", "java/lang/StringBuilder", "java/math/BigInteger",
    "java/time/Instant", "java/util/Optional", "java/util/UUID", "java/net/URI",
    "java/io/File", "jdk/internal/loader/ClassLoaders$AppClassLoader", "sun/nio/fs/UnixPath",
    "com/example/app/Order", "com/example/app/Customer", "com/example/app/LineItem",
    "com/example/app/Money", "com/example/app/Session", "com/example/cache/Entry",
    "com/example/cache/Segment", "com/example/app/Event", "com/example/app/Address",
    /* array classes: HotSpot names them by descriptor */
    "[B", "[C", "[I", "[J", "[Ljava/lang/Object;", "[Ljava/lang/String;",
    "[Ljava/util/HashMap$Node;", "[Ljava/util/concurrent/ConcurrentHashMap$Node;",
};
#define NCLASSES (sizeof class_names / sizeof class_names[0])

static const char *const field_names[] = {
    "value", "next", "key", "hash", "count", "size", "modCount", "table", "name", "parent",
    "left", "right", "id", "amount", "owner", "state", "flags", "referent", "queue", "elementData",
};
#define NFIELDNAMES (sizeof field_names / sizeof field_names[0])
#define FIELD_NAME_ID(i) (0x10000u + (i))

/* One object of the mix: drawn once, so the timed loop spends nothing on
 * drawing it. */
typedef struct bobj {
    uint8_t kind; /* HPROF_GC_INSTANCE_DUMP / _OBJ_ARRAY_DUMP / _PRIM_ARRAY_DUMP */
    uint8_t type; /* prim arrays: element type */
    uint16_t cls; /* instances, obj arrays: index in model.cls */
    uint32_t n;   /* arrays: length */
} bobj;

typedef struct model {
    bclass cls[NCLASSES];
    unsigned ninst;          /* instance classes: cls[0..ninst) */
    int prim_cls[12];        /* prim type -> class index (or -1) */
    int objarr_cls[4];       /* object array class indexes */
    unsigned nobjarr;
    uint8_t *pool;           /* POOL_BYTES of random bytes, 8-aligned */
    hprof_id *ids;           /* ID_POOL ids (a quarter null) */
    bobj *desc;              /* NDESC objects */
} model;

static void model_init(model *m)
{
    uint64_t s = 42;
    memset(m, 0, sizeof *m);
    for (unsigned i = 0; i < 12; i++)
        m->prim_cls[i] = -1;
    for (unsigned i = 0; i < NCLASSES; i++) {
        bclass *c = &m->cls[i];
        c->name = class_names[i];
        c->id = CLASS_BASE + (hprof_id)i * 0x200;
        c->name_id = 0x1000u + i;
        if (c->name[0] == '[') {
            switch (c->name[1]) {
            case 'B': c->array_type = HPROF_TYPE_BYTE; break;
            case 'C': c->array_type = HPROF_TYPE_CHAR; break;
            case 'I': c->array_type = HPROF_TYPE_INT; break;
            case 'J': c->array_type = HPROF_TYPE_LONG; break;
            default: c->array_type = HPROF_TYPE_OBJECT; break;
            }
            if (c->array_type == HPROF_TYPE_OBJECT)
                m->objarr_cls[m->nobjarr++] = (int)i;
            else
                m->prim_cls[c->array_type] = (int)i;
            continue;
        }
        m->ninst = i + 1;
        if (i == 0)
            continue; /* java/lang/Object has no fields */
        /* 16..48 bytes of fields: some references, the rest ints/longs */
        uint32_t target = 16 + 8 * (uint32_t)(rng_next(&s) % 5);
        uint32_t size = 0;
        while (size < target && c->nfields < 8) {
            uint64_t r = rng_next(&s);
            uint8_t t;
            uint32_t left = target - size;
            if (left >= 8)
                t = (r & 1) ? HPROF_TYPE_OBJECT : ((r & 2) ? HPROF_TYPE_LONG : HPROF_TYPE_INT);
            else
                t = HPROF_TYPE_INT;
            c->fields[c->nfields].name_id = FIELD_NAME_ID((r >> 8) % NFIELDNAMES);
            c->fields[c->nfields].type = t;
            c->nfields++;
            size += hprof_type_size(t, ID_SIZE);
        }
        c->size = size;
    }
    m->pool = aligned_alloc(64, POOL_BYTES);
    m->ids = malloc(ID_POOL * sizeof *m->ids);
    m->desc = malloc(NDESC * sizeof *m->desc);
    if (!m->pool || !m->ids || !m->desc) {
        fprintf(stderr, "bench_writer: out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < POOL_BYTES; i += 8) {
        uint64_t r = rng_next(&s);
        memcpy(m->pool + i, &r, 8);
    }
    for (unsigned i = 0; i < ID_POOL; i++) {
        uint64_t r = rng_next(&s);
        m->ids[i] = (r & 3) == 0 ? 0 : HEAP_BASE + ((r >> 8) % (1ull << 30)) * 8;
    }
    /* The mix. Sizes on the wire: instance 25 + 16..48 bytes; obj array
     * 25 + 8n; prim array 18 + n * elem. 75% of the objects are instances,
     * most arrays are short and a few long; arrays end up with about half of
     * the bytes, at ~90 bytes per object (HotSpot's own dump of a real heap
     * averaged ~60). */
    static const uint8_t prim_types[8] = {HPROF_TYPE_BYTE, HPROF_TYPE_BYTE, HPROF_TYPE_BYTE,
                                          HPROF_TYPE_CHAR, HPROF_TYPE_CHAR, HPROF_TYPE_INT,
                                          HPROF_TYPE_INT,  HPROF_TYPE_LONG};
    for (unsigned i = 0; i < NDESC; i++) {
        bobj *d = &m->desc[i];
        uint64_t r = rng_next(&s);
        unsigned kind = (unsigned)(r & 1023);
        unsigned b = (unsigned)((r >> 10) % 1000);
        uint32_t v = (uint32_t)(r >> 20);
        if (kind < 768) {
            d->kind = HPROF_GC_INSTANCE_DUMP;
            d->cls = (uint16_t)(1 + (r >> 40) % (m->ninst - 1));
        } else if (kind < 864) {
            /* 75% 0..15 elements, 24% 16..63, 1% 64..1023 */
            d->kind = HPROF_GC_OBJ_ARRAY_DUMP;
            d->cls = (uint16_t)m->objarr_cls[(r >> 40) % m->nobjarr];
            d->n = b < 750 ? v % 16 : b < 990 ? 16 + v % 48 : 64 + v % (MAX_OBJ_LEN - 64);
        } else {
            /* 85% 1..32 elements (strings' byte[]), 14.5% 33..256, 0.5% up to 8 Ki */
            d->kind = HPROF_GC_PRIM_ARRAY_DUMP;
            d->type = prim_types[(r >> 40) & 7];
            d->n = b < 850 ? 1 + v % 32 : b < 995 ? 33 + v % 224 : 257 + v % (MAX_PRIM_LEN - 256);
        }
    }
}

static void model_free(model *m)
{
    free(m->pool);
    free(m->ids);
    free(m->desc);
}

/* What was written, per tag, to compare with what is read back. */
typedef struct counts {
    uint64_t records[256];
    uint64_t subs[256];
    uint64_t bytes;
    uint64_t kind_bytes[3]; /* payload share: instances, obj arrays, prim arrays */
} counts;

/* Writes the whole file: header (by hw_writer_open), names, classes, then
 * objects until `target` bytes. `w` NULL means generate only (to measure the
 * generator's own cost). Returns 0 or the writer's error. */
static int emit(hw_writer *w, const model *m, uint64_t target, counts *c)
{
    memset(c, 0, sizeof *c);
#define CALL(expr)                                                                               \
    do {                                                                                         \
        if (w && (expr))                                                                         \
            return hw_writer_error(w);                                                           \
    } while (0)

    for (unsigned i = 0; i < NFIELDNAMES; i++) {
        CALL(hw_utf8z(w, FIELD_NAME_ID(i), field_names[i]));
        c->records[HPROF_TAG_UTF8]++;
    }
    for (unsigned i = 0; i < NCLASSES; i++) {
        CALL(hw_utf8z(w, m->cls[i].name_id, m->cls[i].name));
        c->records[HPROF_TAG_UTF8]++;
    }
    for (unsigned i = 0; i < NCLASSES; i++) {
        CALL(hw_load_class(w, i + 1, m->cls[i].id, 1, m->cls[i].name_id));
        c->records[HPROF_TAG_LOAD_CLASS]++;
    }
    /* HotSpot writes one empty trace (serial 1) that every object refers to */
    CALL(hw_trace(w, 1, 0, 0, NULL));
    c->records[HPROF_TAG_TRACE]++;

    CALL(hw_heap_begin(w));
    for (unsigned i = 0; i < NCLASSES; i++) {
        const bclass *k = &m->cls[i];
        hw_class cd;
        memset(&cd, 0, sizeof cd);
        cd.class_id = k->id;
        cd.trace_serial = 1;
        cd.super_id = i == 0 ? 0 : m->cls[0].id;
        cd.instance_size = k->array_type ? 0 : 16 + k->size;
        hw_static_field st = {.name_id = FIELD_NAME_ID(0),
                              .value = {.type = HPROF_TYPE_INT, .u = i}};
        if (!k->array_type && i % 3 == 0) {
            cd.nstatics = 1;
            cd.statics = &st;
        }
        cd.nfields = k->nfields;
        cd.fields = k->fields;
        CALL(hw_class_dump(w, &cd));
        c->subs[HPROF_GC_CLASS_DUMP]++;
        CALL(hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, k->id, 0, 0, 0));
        c->subs[HPROF_GC_ROOT_STICKY_CLASS]++;
    }
    CALL(hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, HEAP_BASE, 1, 1, 0));
    c->subs[HPROF_GC_ROOT_THREAD_OBJ]++;
    for (unsigned i = 0; i < 16; i++) {
        CALL(hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, m->ids[i] | HEAP_BASE, 0, 0, 0x1000 + i));
        c->subs[HPROF_GC_ROOT_JNI_GLOBAL]++;
    }

    /* The objects, in the order of the precomputed mix (see model_init),
     * their payload read sequentially from the pools as a heap walk reads
     * the heap in address order. */
    hprof_id addr = HEAP_BASE + 0x100;
    uint64_t written = 0; /* our own estimate when w is NULL */
    size_t pc = 0, ic = 0; /* pool and id cursors */
    for (uint32_t i = 0;; i = (i + 1) & (NDESC - 1)) {
        uint64_t off = w ? hw_writer_offset(w) : written;
        if (off >= target)
            break;
        const bobj *d = &m->desc[i];
        hprof_id obj = addr;
        uint64_t payload;
        if (d->kind == HPROF_GC_INSTANCE_DUMP) {
            const bclass *k = &m->cls[d->cls];
            payload = k->size;
            if (pc + payload > POOL_BYTES)
                pc = 0;
            CALL(hw_instance_dump(w, obj, 1, k->id, m->pool + pc, k->size));
            written += 25 + payload;
            c->kind_bytes[0] += 25 + payload;
        } else if (d->kind == HPROF_GC_OBJ_ARRAY_DUMP) {
            payload = 8ull * d->n;
            if (ic + d->n > ID_POOL)
                ic = 0;
            CALL(hw_obj_array_dump(w, obj, 1, m->cls[d->cls].id, d->n, m->ids + ic));
            ic += d->n;
            written += 25 + payload;
            c->kind_bytes[1] += 25 + payload;
        } else {
            payload = (uint64_t)d->n * hprof_type_size(d->type, ID_SIZE);
            if (pc + payload > POOL_BYTES)
                pc = 0;
            CALL(hw_prim_array_dump(w, obj, 1, d->type, d->n, m->pool + pc));
            written += 18 + payload;
            c->kind_bytes[2] += 18 + payload;
        }
        c->subs[d->kind]++;
        payload = (payload + 7) & ~7ull;
        if (d->kind != HPROF_GC_OBJ_ARRAY_DUMP)
            pc += payload;
        addr += 16 + payload;
    }
    CALL(hw_heap_end(w));
    c->records[HPROF_TAG_HEAP_DUMP_END]++;
    if (w) {
        c->records[HPROF_TAG_HEAP_DUMP_SEGMENT] = hw_heap_segments(w);
        c->bytes = hw_writer_offset(w);
    } else {
        c->bytes = written;
    }
#undef CALL
    return 0;
}

/* ----------------------------------------------------------------- timing */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* Page faults since the previous report: on this VM they can cost more than
 * the work measured, so every line says how many it paid. */
static long faults_mark;

static void report(const char *name, uint64_t bytes, double secs)
{
    long f = minor_faults();
    printf("%-14s %12" PRIu64 " bytes %8.4f s %7.3f GB/s %8ld faults\n", name, bytes, secs,
           secs > 0 ? (double)bytes / secs / 1e9 : 0.0, f - faults_mark);
    fflush(stdout);
    faults_mark = minor_faults();
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_writer: %s: %s\n", what, msg);
    exit(1);
}

static void writer_options(hw_options *o, int io_thread)
{
    hw_options_init(o);
    o->id_size = ID_SIZE;
    o->version = HPROF_VERSION_1_0_2;
    o->clock = HW_CLOCK_FIXED; /* byte-identical output on every run */
    o->io_thread = io_thread;
}

/* Writes the dump to `sink` and closes the writer; returns the seconds
 * spent from open to close (the sink's creation is the caller's). */
static double write_dump(hw_sink *sink, const model *m, uint64_t target, int io_thread,
                         counts *c)
{
    hw_options o;
    writer_options(&o, io_thread);
    int err = 0;
    faults_mark = minor_faults();
    double t0 = now_s();
    hw_writer *w = hw_writer_open(sink, &o, &err);
    if (!w)
        die("hw_writer_open", strerror(err));
    if (emit(w, m, target, c))
        die("writing", hw_writer_error_text(w));
    char msg[256];
    if (hw_writer_close(w, msg, sizeof msg))
        die("hw_writer_close", msg);
    return now_s() - t0;
}

/* ---------------------------------------------------------------- reading */

typedef struct readback {
    counts got;
    uint64_t touch; /* sum over decoded fields, so the callbacks are not dead code */
    uint64_t problems;
} readback;

static int rb_record(void *ctx, const hr_record *r)
{
    readback *rb = ctx;
    rb->got.records[r->tag]++;
    rb->touch += r->length;
    return 0;
}

static int rb_sub(void *ctx, const hr_sub *s)
{
    readback *rb = ctx;
    if (s->part) /* a later part of an object array (hr_sub): counted once */
        return 0;
    rb->got.subs[s->tag]++;
    switch (s->tag) {
    case HPROF_GC_INSTANCE_DUMP: rb->touch += s->u.inst.class_id + s->u.inst.nbytes; break;
    case HPROF_GC_OBJ_ARRAY_DUMP: rb->touch += s->u.oarr.class_id + s->u.oarr.n; break;
    case HPROF_GC_PRIM_ARRAY_DUMP: rb->touch += s->u.parr.type + s->u.parr.n; break;
    default: rb->touch += s->length; break;
    }
    return 0;
}

static void rb_problem(void *ctx, hr_severity sev, const char *kind, uint64_t off, const char *msg)
{
    readback *rb = ctx;
    (void)sev; /* any problem at all fails the check */
    if (rb->problems++ < 5)
        fprintf(stderr, "bench_writer: reader problem at %" PRIu64 " [%s]: %s\n", off, kind, msg);
}

/* Parses `src` with counting callbacks; returns the seconds it took. */
static double read_dump(hr_source *src, readback *rb)
{
    static hr_stats st;
    hr_callbacks cb = {.on_record = rb_record, .on_sub = rb_sub, .on_problem = rb_problem};
    memset(rb, 0, sizeof *rb);
    double t0 = now_s();
    hr_status rc = hr_parse(src, &cb, rb, &st);
    double dt = now_s() - t0;
    rb->got.bytes = st.bytes;
    if (rc != HR_OK || rb->problems || st.problems)
        die("reading back", "the parse did not end cleanly");
    for (unsigned t = 0; t < 256; t++)
        if (st.records[t] != rb->got.records[t] || st.subs[t] != rb->got.subs[t])
            die("reading back", "hr_stats and callback counts disagree");
    return dt;
}

/* The check every measurement ends with: what the reader saw is what we wrote. */
static void verify(const counts *want, const counts *got, const char *what)
{
    int bad = 0;
    if (want->bytes != got->bytes) {
        fprintf(stderr, "bench_writer: %s: %" PRIu64 " bytes written, %" PRIu64 " read\n", what,
                want->bytes, got->bytes);
        bad = 1;
    }
    for (unsigned t = 0; t < 256; t++) {
        if (want->records[t] != got->records[t]) {
            fprintf(stderr, "bench_writer: %s: record 0x%02X: %" PRIu64 " written, %" PRIu64
                            " read\n", what, t, want->records[t], got->records[t]);
            bad = 1;
        }
        if (want->subs[t] != got->subs[t]) {
            fprintf(stderr, "bench_writer: %s: sub-record 0x%02X: %" PRIu64 " written, %" PRIu64
                            " read\n", what, t, want->subs[t], got->subs[t]);
            bad = 1;
        }
    }
    if (bad)
        exit(1);
}

static int discard_write(void *ctx, const void *data, size_t len)
{
    /* read one byte per page so the buffer is not entirely unobserved */
    const uint8_t *p = data;
    uint64_t *acc = ctx;
    for (size_t i = 0; i < len; i += 4096)
        *acc += p[i];
    return 0;
}

/* ------------------------------------------------------------------- main */

typedef struct args {
    uint64_t size;
    const char *out;
    const char *mode;
    int io; /* -1: both, else 0 or 1 */
    int repeat;
    int cold;
} args;

static void usage(void)
{
    fprintf(stderr,
            "usage: bench_writer [--size BYTES] [--out PATH] [--mode MODE] [--io 0|1]\n"
            "                    [--repeat N] [--cold]\n"
            "  MODE: memory | file | read | all (default), or null (discarding sink)\n"
            "        and gen (the synthetic heap alone, no writer)\n"
            "  --size   bytes of HPROF to write (default 1 GiB; suffixes K M G)\n"
            "  --out    file for file/read modes (default /tmp/bench_writer.hprof)\n"
            "  --io     file mode: only io_thread=0 or only io_thread=1 (default both)\n"
            "  --repeat measurements per mode (default 1)\n"
            "  --cold   memory mode writes into freshly mapped pages (pays the page\n"
            "           faults; reported as memory-cold) instead of pre-faulted ones\n");
    exit(2);
}

static uint64_t parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        usage();
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end)
        usage();
    return v;
}

static void print_mix(const counts *c)
{
    uint64_t tot = c->kind_bytes[0] + c->kind_bytes[1] + c->kind_bytes[2];
    if (!tot)
        return;
    printf("# mix: %" PRIu64 " instances (%.1f%% of object bytes), %" PRIu64
           " obj arrays (%.1f%%), %" PRIu64 " prim arrays (%.1f%%), %.0f bytes/object, %" PRIu64
           " segments\n",
           c->subs[HPROF_GC_INSTANCE_DUMP], 100.0 * (double)c->kind_bytes[0] / (double)tot,
           c->subs[HPROF_GC_OBJ_ARRAY_DUMP], 100.0 * (double)c->kind_bytes[1] / (double)tot,
           c->subs[HPROF_GC_PRIM_ARRAY_DUMP], 100.0 * (double)c->kind_bytes[2] / (double)tot,
           (double)tot / (double)(c->subs[HPROF_GC_INSTANCE_DUMP] + c->subs[HPROF_GC_OBJ_ARRAY_DUMP] +
                                  c->subs[HPROF_GC_PRIM_ARRAY_DUMP]),
           c->records[HPROF_TAG_HEAP_DUMP_SEGMENT]);
}

static void run_memory(const model *m, const args *a, counts *c)
{
    for (int i = 0; i < a->repeat; i++) {
        /* the reserve covers the overshoot past --size (at most one object
         * plus a segment header), so the sink never reallocs */
        hw_sink *sink = hw_sink_memory(a->size + (8u << 20));
        if (!sink)
            die("hw_sink_memory", "out of memory");
        double dt = write_dump(sink, m, a->size, 0, c);
        report(a->cold ? "memory-cold" : "memory", c->bytes, dt);
        size_t len;
        const uint8_t *data = hw_sink_memory_data(sink, &len);
        hr_source *src = hr_source_memory(data, len);
        readback rb;
        read_dump(src, &rb);
        hr_source_close(src);
        verify(c, &rb.got, "memory sink");
        hw_sink_free(sink);
    }
}

static void run_file(const model *m, const args *a, counts *c)
{
    for (int i = 0; i < a->repeat; i++) {
        for (int io = 0; io <= 1; io++) {
            if (a->io >= 0 && io != a->io)
                continue;
            /* truncating a cached 1 GiB file costs time that is not writing */
            unlink(a->out);
            int err = 0;
            faults_mark = minor_faults();
            double t0 = now_s();
            hw_sink *sink = hw_sink_file(a->out, &err);
            if (!sink)
                die(a->out, strerror(err));
            write_dump(sink, m, a->size, io, c);
            /* from open(2) to close(2), as dd is timed */
            double dt = now_s() - t0;
            report(io ? "file-iothread" : "file-sync", c->bytes, dt);
            struct stat stt;
            if (stat(a->out, &stt) != 0 || (uint64_t)stt.st_size != c->bytes)
                die(a->out, "file size differs from the writer's byte count");
        }
    }
}

static void run_read(const args *a, const counts *want)
{
    for (int i = 0; i < a->repeat; i++) {
        int err = 0;
        faults_mark = minor_faults();
        double t0 = now_s();
        hr_source *src = hr_source_file(a->out, &err);
        if (!src)
            die(a->out, strerror(err));
        readback rb;
        read_dump(src, &rb);
        hr_source_close(src);
        double dt = now_s() - t0;
        report("read", rb.got.bytes, dt);
        verify(want, &rb.got, a->out);
    }
}

int main(int argc, char **argv)
{
    args a = {.size = 1ull << 30, .out = "/tmp/bench_writer.hprof", .mode = "all", .io = -1,
              .repeat = 1};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cold") == 0) {
            a.cold = 1;
            continue;
        }
        if (i + 1 >= argc)
            usage();
        if (strcmp(argv[i], "--size") == 0)
            a.size = parse_size(argv[++i]);
        else if (strcmp(argv[i], "--out") == 0)
            a.out = argv[++i];
        else if (strcmp(argv[i], "--mode") == 0)
            a.mode = argv[++i];
        else if (strcmp(argv[i], "--io") == 0)
            a.io = atoi(argv[++i]);
        else if (strcmp(argv[i], "--repeat") == 0)
            a.repeat = atoi(argv[++i]);

        else
            usage();
    }
    if (a.repeat < 1 || a.size == 0)
        usage();
    model m;
    model_init(&m);
    counts c;
    /* stdout's buffer is static: malloc'ed lazily at the first report, it
     * would sit above the first memory sink's block and keep the next, same
     * sized block from reusing it (fresh pages, faults, on the second run) */
    static char outbuf[1 << 12];
    setvbuf(stdout, outbuf, _IOLBF, sizeof outbuf);
    int all = strcmp(a.mode, "all") == 0;
    if (!a.cold) {
        /* Page faults are expensive on this VM (~5 us per 4 KiB page: 1 GiB
         * of fresh memory costs more than encoding it), and they are the
         * kernel's cost, not the writer's. So big blocks come from the heap,
         * never trimmed, and the heap is faulted in once up front: the memory
         * sink's reserve then lands on pages that are already there. --cold
         * measures with fresh pages (mmap) on every run instead. */
        mallopt(M_MMAP_MAX, 0);
        mallopt(M_TRIM_THRESHOLD, -1);
        if (all || strcmp(a.mode, "memory") == 0) {
            /* twice the sink: glibc puts the second sink after the first
             * (the sink's own small struct is carved from the start of the
             * freed block), the third one back in the first's place */
            size_t n = 2 * (a.size + (16u << 20));
            uint8_t *p = malloc(n);
            if (!p)
                die("prefault", "out of memory");
            /* volatile: a memset right before free would be optimised away */
            volatile uint8_t *vp = p;
            for (size_t i = 0; i < n; i += 4096)
                vp[i] = 1;
            free(p);
        }
    }

    if (strcmp(a.mode, "gen") == 0) {
        for (int i = 0; i < a.repeat; i++) {
            faults_mark = minor_faults();
            double t0 = now_s();
            emit(NULL, &m, a.size, &c);
            report("gen", c.bytes, now_s() - t0);
        }
        print_mix(&c);
    } else if (strcmp(a.mode, "null") == 0) {
        for (int i = 0; i < a.repeat; i++) {
            uint64_t acc = 0;
            hw_sink *sink = hw_sink_custom(discard_write, NULL, &acc);
            double dt = write_dump(sink, &m, a.size, 0, &c);
            report("null", c.bytes, dt);
        }
    } else if (all || strcmp(a.mode, "memory") == 0 || strcmp(a.mode, "file") == 0 ||
               strcmp(a.mode, "read") == 0) {
        if (all || strcmp(a.mode, "memory") == 0)
            run_memory(&m, &a, &c);
        if (all || strcmp(a.mode, "file") == 0)
            run_file(&m, &a, &c);
        if (all || strcmp(a.mode, "read") == 0) {
            if (!all && strcmp(a.mode, "read") == 0) {
                /* what the file must hold: the same dump, encoded into a
                 * discarding sink (untimed) */
                uint64_t acc = 0;
                write_dump(hw_sink_custom(discard_write, NULL, &acc), &m, a.size, 0, &c);
            }
            run_read(&a, &c);
        }
        print_mix(&c);
    } else {
        usage();
    }
    model_free(&m);
    return 0;
}
