/*
 * test_convert.c: libhprofconvert (convert/convert.h).
 *
 * The same content is written by libhprofwriter in each variant (id size,
 * 1.0.1 single record or 1.0.2 segments, Android 1.0.3); converting one
 * variant must give exactly the bytes the writer gives for the other.
 * Checked:
 *  - ids 8 -> 4 and 4 -> 8 (records, class dumps with object constants,
 *    statics and fields, instance values through a superclass, object
 *    arrays, roots), 1.0.2 <-> 1.0.1, composed, and gzip input;
 *  - an INSTANCE DUMP before its CLASS DUMP: converted after a pre-pass;
 *  - an id above 4 GiB: refused, naming the id and its offset; renumber
 *    makes names and frames fit;
 *  - Android: 0x89-0x8E and 0x90 become ROOT UNKNOWN, 0xFE is dropped,
 *    0xC3 becomes a zero-filled PRIMITIVE ARRAY DUMP; app_only drops the
 *    zygote heap's objects;
 *  - malformed input: every prefix of a file fails with CONVERT_EINPUT
 *    unless it ends on a record boundary (then it converts); an unknown
 *    sub-record and one crossing its segment are refused with messages;
 *  - a record of an unknown tag: copied as it is when ids keep their size
 *    and numbers, refused (naming tag and offset) when they change;
 *  - a dump past 4 GiB once converted (a NODATA array of 4 GiB): refused
 *    for 1.0.1 before any of it is written, and for a segment;
 *  - output errors: /dev/full gives CONVERT_EOUTPUT; convert_file leaves
 *    neither OUT nor its temporary file behind after a failure.
 */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert/convert.h"

#define CHECK_EQ(a, b)                                                              \
    do {                                                                            \
        unsigned long long a_ = (unsigned long long)(a);                            \
        unsigned long long b_ = (unsigned long long)(b);                            \
        if (a_ != b_)                                                               \
            fprintf(stderr, "\n  %s:%d: %s = %llu, expected %s = %llu\n", __FILE__, \
                    __LINE__, #a, a_, #b, b_);                                      \
        CU_ASSERT(a_ == b_);                                                        \
    } while (0)

enum { V_PLAIN = 0, V_INST_FIRST = 1, V_ANDROID = 2, V_ANDROID_CONVERTED = 4, V_BIG_ID = 8 };

typedef struct variant {
    unsigned id_size;
    hprof_version version;
    int single;
    unsigned flags;
} variant;

/* The content, written by the writer in variant v. With V_ANDROID, the
 * Android sub-records (and a NODATA array, spliced in as a raw segment);
 * with V_ANDROID_CONVERTED, what hprof-conv makes of them instead. */
static uint8_t *build(variant v, size_t *len)
{
    hw_options o;
    hw_options_init(&o);
    o.id_size = v.id_size;
    o.version = v.version;
    o.heap_mode = v.single ? HW_HEAP_SINGLE : HW_HEAP_SEGMENTED;
    o.clock = HW_CLOCK_FIXED;
    o.timestamp_ms = 1700000000000ULL;
    hw_sink *s = hw_sink_memory(0);
    hw_writer *w = hw_writer_open(s, &o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hw_utf8z(w, 0x101, "Base");
    hw_utf8z(w, 0x102, "Derived");
    hw_utf8z(w, 0x103, "next");
    hw_utf8z(w, 0x104, "count");
    hw_utf8z(w, 0x105, "main");
    hw_load_class(w, 1, 0x1000, 0, 0x101);
    hw_load_class(w, 2, 0x2000, 0, 0x102);
    hw_frame(w, 0x500, 0x105, 0x104, 0x103, 1, 42);
    hprof_id frames[2] = {0x500, 0x500};
    hw_trace(w, 7, 1, 2, frames);
    hw_start_thread(w, 1, 0x9000, 7, 0x105, 0x103, 0);
    hw_heap_begin(w);
    hprof_id big = (v.flags & V_BIG_ID) ? 0x100000010ull : 0x3010;
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x3000, 0, 0, 0x777);
    hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, 0x9000, 1, 7, 0);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, 0x3000, 1, 0, 0);
    if (v.flags & V_ANDROID) {
        hw_heap_dump_info(w, HPROF_HEAP_APP, 0x105);
        hw_root(w, HPROF_GC_ROOT_INTERNED_STRING, 0x3000, 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_VM_INTERNAL, 0x3000, 0, 0, 0);
        hw_root(w, HPROF_GC_ROOT_JNI_MONITOR, 0x3000, 1, 3, 0);
        hw_root(w, HPROF_GC_ROOT_UNREACHABLE, 0x3000, 0, 0, 0);
    } else if (v.flags & V_ANDROID_CONVERTED) {
        for (int i = 0; i < 4; i++)
            hw_root(w, HPROF_GC_ROOT_UNKNOWN, 0x3000, 0, 0, 0);
    }
    hw_field bf[2] = {{0x104, HPROF_TYPE_INT}, {0x103, HPROF_TYPE_OBJECT}};
    hw_field df[1] = {{0x103, HPROF_TYPE_OBJECT}};
    hw_cp_entry cp[1] = {{3, {HPROF_TYPE_OBJECT, 0x3000}}};
    hw_static_field st[2] = {{0x104, {HPROF_TYPE_LONG, 0x1122334455667788ull}},
                             {0x103, {HPROF_TYPE_OBJECT, 0x3000}}};
    hw_class base = {.class_id = 0x1000, .super_id = 0, .instance_size = 12, .ncp = 1, .cp = cp,
                     .nstatics = 2, .statics = st, .nfields = 2, .fields = bf};
    hw_class der = {.class_id = 0x2000, .super_id = 0x1000, .loader_id = 0x3000,
                    .instance_size = 20, .nfields = 1, .fields = df};
    /* instance values: Derived.next, then Base.count, Base.next */
    uint8_t vals[8 + 4 + 8];
    size_t vn = 0;
    uint64_t ids[2] = {0x3000, big};
    for (int k = 0; k < 2; k++) {
        unsigned sz = v.id_size;
        uint64_t id = ids[k];
        for (unsigned i = 0; i < sz; i++)
            vals[vn++] = (uint8_t)(id >> (8 * (sz - 1 - i)));
        if (k == 0) {
            vals[vn++] = 0;
            vals[vn++] = 0;
            vals[vn++] = 1;
            vals[vn++] = 2;
        }
    }
    if (v.flags & V_INST_FIRST)
        hw_instance_dump(w, 0x3000, 0, 0x2000, vals, (uint32_t)vn);
    hw_class_dump(w, &base);
    hw_class_dump(w, &der);
    if (!(v.flags & V_INST_FIRST))
        hw_instance_dump(w, 0x3000, 0, 0x2000, vals, (uint32_t)vn);
    hprof_id elems[3] = {0x3000, 0, 0x3000};
    hw_obj_array_dump(w, 0x3100, 0, 0x2000, 3, elems);
    int32_t ints[4] = {1, -2, 3, -4};
    hw_prim_array_dump(w, 0x3200, 0, HPROF_TYPE_INT, 4, ints);
    if (v.flags & V_ANDROID) {
        /* PRIMITIVE ARRAY NODATA: id, u4 trace, u4 n = 5, u1 short */
        uint8_t nd[1 + 8 + 9];
        size_t k = 0;
        nd[k++] = HPROF_GC_PRIM_ARRAY_NODATA;
        for (unsigned i = 0; i < v.id_size; i++)
            nd[k++] = (uint8_t)(0x3300u >> (8 * (v.id_size - 1 - i)));
        memset(nd + k, 0, 4);
        k += 4;
        nd[k++] = 0, nd[k++] = 0, nd[k++] = 0, nd[k++] = 5;
        nd[k++] = HPROF_TYPE_SHORT;
        hw_heap_segment_raw(w, nd, (uint32_t)k);
    } else if (v.flags & V_ANDROID_CONVERTED) {
        int16_t zeros[5] = {0};
        hw_prim_array_dump(w, 0x3300, 0, HPROF_TYPE_SHORT, 5, zeros);
    }
    hw_heap_end(w);
    hw_end_thread(w, 1);
    char msg[256];
    CU_ASSERT_EQUAL(hw_writer_close(w, msg, sizeof msg), 0);
    uint8_t *copy = tu_sink_copy(s, len);
    hw_sink_free(s);
    return copy;
}

/* Converts in memory; returns the output (NULL on failure, with rc). */
static uint8_t *conv(const uint8_t *in, size_t n, const convert_options *o, size_t *outlen, int *rc,
                     char *msg, size_t msglen, convert_stats *st)
{
    hw_sink *s = hw_sink_memory(0);
    *rc = convert_memory(in, n, s, o, st, msg, msglen);
    uint8_t *out = tu_sink_copy(s, outlen);
    hw_sink_free(s);
    return out;
}

/* Converting variant `from` with options gives exactly variant `to`. */
static void expect_conversion(variant from, variant to, const convert_options *o)
{
    size_t n_in, n_want, n_out;
    uint8_t *in = build(from, &n_in);
    uint8_t *want = build(to, &n_want);
    int rc;
    char msg[600] = "";
    convert_stats st;
    uint8_t *out = conv(in, n_in, o, &n_out, &rc, msg, sizeof msg, &st);
    if (rc)
        fprintf(stderr, "\n  conversion failed: %s\n", msg);
    CHECK_EQ(rc, 0);
    CHECK_EQ(n_out, n_want);
    CU_ASSERT(n_out == n_want && memcmp(out, want, n_out) == 0);
    CHECK_EQ(st.out_bytes, n_want);
    free(in);
    free(want);
    free(out);
}

static void test_id_sizes(void)
{
    convert_options o;
    convert_options_init(&o);
    variant v8 = {8, HPROF_VERSION_1_0_2, 0, 0}, v4 = {4, HPROF_VERSION_1_0_2, 0, 0};
    o.id_size = 4;
    expect_conversion(v8, v4, &o);
    o.id_size = 8;
    expect_conversion(v4, v8, &o);
    /* and the ids counted: 8 -> 4 rewrote every id of the file */
    size_t n8, n4, n;
    uint8_t *a = build(v8, &n8), *b = build(v4, &n4);
    int rc;
    char msg[600];
    convert_stats st;
    o.id_size = 4;
    uint8_t *c = conv(a, n8, &o, &n, &rc, msg, sizeof msg, &st);
    CHECK_EQ(st.ids * 4, n8 - n4);
    CHECK_EQ(st.in_bytes, n8);
    CHECK_EQ(st.class_prepass, 0);
    free(a);
    free(b);
    free(c);
}

static void test_versions(void)
{
    convert_options o;
    convert_options_init(&o);
    variant s101 = {8, HPROF_VERSION_1_0_1, 1, 0}, s102 = {8, HPROF_VERSION_1_0_2, 0, 0};
    o.version = HPROF_VERSION_1_0_1;
    expect_conversion(s102, s101, &o);
    o.version = HPROF_VERSION_1_0_2;
    expect_conversion(s101, s102, &o);
    /* composed: 8 -> 4 and 1.0.2 -> 1.0.1 at once */
    variant s101_4 = {4, HPROF_VERSION_1_0_1, 1, 0};
    o.version = HPROF_VERSION_1_0_1;
    o.id_size = 4;
    expect_conversion(s102, s101_4, &o);
    /* unchanged: the same bytes */
    convert_options_init(&o);
    expect_conversion(s102, s102, &o);
    expect_conversion(s101, s101, &o);
}

static void test_instance_first(void)
{
    convert_options o;
    convert_options_init(&o);
    o.id_size = 4;
    variant a = {8, HPROF_VERSION_1_0_2, 0, V_INST_FIRST}, b = {4, HPROF_VERSION_1_0_2, 0, V_INST_FIRST};
    expect_conversion(a, b, &o);
    size_t n, m;
    uint8_t *in = build(a, &n);
    int rc;
    char msg[600];
    convert_stats st;
    uint8_t *out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, 0);
    CHECK_EQ(st.class_prepass, 1);
    free(in);
    free(out);
}

static void test_gzip_input_and_output(void)
{
    variant v = {8, HPROF_VERSION_1_0_2, 0, 0};
    size_t n, gn, m;
    uint8_t *in = build(v, &n);
    convert_options o;
    convert_options_init(&o);
    o.gzip = 1;
    int rc;
    char msg[600];
    convert_stats st;
    uint8_t *gz = conv(in, n, &o, &gn, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, 0);
    CU_ASSERT(gn > 10 && gz[0] == 0x1f && gz[1] == 0x8b);
    convert_options_init(&o);
    uint8_t *back = conv(gz, gn, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, 0);
    CHECK_EQ(m, n);
    CU_ASSERT(m == n && memcmp(back, in, n) == 0);
    free(in);
    free(gz);
    free(back);
}

static void test_big_id(void)
{
    variant v = {8, HPROF_VERSION_1_0_2, 0, V_BIG_ID};
    size_t n, m;
    uint8_t *in = build(v, &n);
    convert_options o;
    convert_options_init(&o);
    o.id_size = 4;
    int rc;
    char msg[600] = "";
    convert_stats st;
    uint8_t *out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, CONVERT_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "id 0x100000010 at offset "));
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "does not fit 4 bytes"));
    /* the offset named is the id's: read it back from the input */
    const char *p = strstr(msg, "at offset ");
    unsigned long long off = p ? strtoull(p + 10, NULL, 10) : 0;
    CU_ASSERT(off + 8 <= n);
    if (off + 8 <= n) {
        static const uint8_t id[8] = {0, 0, 0, 1, 0, 0, 0, 0x10};
        CU_ASSERT(memcmp(in + off, id, 8) == 0);
    }
    free(out);
    free(in);
}

static void test_renumber(void)
{
    /* names and frames far above 4 GiB: refused, unless renumbered */
    hw_options ho;
    hw_options_init(&ho);
    ho.clock = HW_CLOCK_FIXED;
    hw_sink *s = hw_sink_memory(0);
    hw_writer *w = hw_writer_open(s, &ho, NULL);
    hw_utf8z(w, 0x7f0000000001ull, "A");
    hw_load_class(w, 1, 0x1000, 0, 0x7f0000000001ull);
    hw_frame(w, 0x7e0000000000ull, 0x7f0000000001ull, 0x7f0000000001ull, 0, 1, 1);
    hprof_id f = 0x7e0000000000ull;
    hw_trace(w, 1, 1, 1, &f);
    hw_heap_begin(w);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x1000, 0, 0, 0x7d0000000000ull);
    hw_heap_end(w);
    hw_writer_close(w, NULL, 0);
    size_t n, m;
    uint8_t *in = tu_sink_copy(s, &n);
    hw_sink_free(s);
    convert_options o;
    convert_options_init(&o);
    o.id_size = 4;
    int rc;
    char msg[600];
    convert_stats st;
    uint8_t *out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, CONVERT_EINPUT);
    free(out);
    o.renumber = 1;
    out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, 0);
    /* header 31; UTF8 9+4+1; LOAD CLASS 9+16; FRAME 9+24; TRACE 9+16;
     * segment 9 + (1+8) ROOT JNI GLOBAL; END 9 */
    CHECK_EQ(m, 31 + 14 + 25 + 33 + 25 + 18 + 9);
    if (m == 31 + 14 + 25 + 33 + 25 + 18 + 9) {
        static const uint8_t utf8[] = {HPROF_TAG_UTF8, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 'A'};
        CU_ASSERT(memcmp(out + 31, utf8, sizeof utf8) == 0);
        /* LOAD CLASS name id = 1 */
        CU_ASSERT(out[31 + 14 + 9 + 12 + 3] == 1);
        /* FRAME id 1, method name 1 */
        CU_ASSERT(out[31 + 14 + 25 + 9 + 3] == 1 && out[31 + 14 + 25 + 9 + 7] == 1);
        /* TRACE's frame = 1 */
        CU_ASSERT(out[31 + 14 + 25 + 33 + 9 + 15] == 1);
        /* JNI GLOBAL: object kept, ref = 1 */
        const uint8_t *r = out + 31 + 14 + 25 + 33 + 25 + 9;
        CU_ASSERT(r[0] == HPROF_GC_ROOT_JNI_GLOBAL && r[3] == 0x10 && r[4] == 0 && r[8] == 1);
    }
    free(out);
    free(in);
}

static void test_android(void)
{
    convert_options o;
    convert_options_init(&o);
    variant a = {4, HPROF_VERSION_1_0_3, 0, V_ANDROID};
    variant b = {4, HPROF_VERSION_1_0_2, 0, V_ANDROID_CONVERTED};
    expect_conversion(a, b, &o);
    size_t n, m;
    uint8_t *in = build(a, &n);
    int rc;
    char msg[600];
    convert_stats st;
    uint8_t *out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, 0);
    CHECK_EQ(st.android_roots, 4);
    CHECK_EQ(st.android_infos, 1);
    CHECK_EQ(st.nodata_arrays, 1);
    free(out);
    /* 8-byte ids and 1.0.1 at once */
    o.id_size = 8;
    o.version = HPROF_VERSION_1_0_1;
    variant c = {8, HPROF_VERSION_1_0_1, 1, V_ANDROID_CONVERTED};
    expect_conversion(a, c, &o);
    free(in);
}

static void test_app_only(void)
{
    /* a zygote heap's instance and array dropped, the app heap's kept */
    hw_options ho;
    hw_options_init(&ho);
    ho.id_size = 4;
    ho.version = HPROF_VERSION_1_0_3;
    ho.clock = HW_CLOCK_FIXED;
    hw_sink *s = hw_sink_memory(0);
    hw_writer *w = hw_writer_open(s, &ho, NULL);
    hw_heap_begin(w);
    hw_heap_dump_info(w, HPROF_HEAP_ZYGOTE, 0);
    int32_t x[2] = {1, 2};
    hw_prim_array_dump(w, 0x10, 0, HPROF_TYPE_INT, 2, x);
    hw_instance_dump(w, 0x11, 0, 0x20, NULL, 0);
    hw_heap_dump_info(w, HPROF_HEAP_APP, 0);
    hw_prim_array_dump(w, 0x12, 0, HPROF_TYPE_INT, 2, x);
    hw_heap_end(w);
    hw_writer_close(w, NULL, 0);
    size_t n, m;
    uint8_t *in = tu_sink_copy(s, &n);
    hw_sink_free(s);
    convert_options o;
    convert_options_init(&o);
    o.app_only = 1;
    int rc;
    char msg[600];
    convert_stats st;
    uint8_t *out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, 0);
    CHECK_EQ(st.app_only_dropped, 2);
    /* header, one segment holding one array (1 + 4 + 9 + 8), END */
    CHECK_EQ(m, 31 + 9 + 22 + 9);
    if (m == 31 + 9 + 22 + 9)
        CU_ASSERT(out[40] == HPROF_GC_PRIM_ARRAY_DUMP && out[44] == 0x12);
    free(out);
    free(in);
}

/* Top-level record boundaries of a file (header included). */
static size_t boundaries(const uint8_t *d, size_t n, size_t *out, size_t max)
{
    size_t k = 0, pos = HPROF_HEADER_SIZE;
    out[k++] = pos;
    while (pos + 9 <= n && k < max) {
        uint32_t len = ((uint32_t)d[pos + 5] << 24) | ((uint32_t)d[pos + 6] << 16) |
                       ((uint32_t)d[pos + 7] << 8) | d[pos + 8];
        pos += 9 + len;
        out[k++] = pos;
    }
    return k;
}

static void test_truncations(void)
{
    variant v = {8, HPROF_VERSION_1_0_2, 0, 0};
    size_t n;
    uint8_t *in = build(v, &n);
    size_t b[64];
    size_t nb = boundaries(in, n, b, 64);
    static const unsigned idsz[2] = {0, 4};
    for (int pass = 0; pass < 2; pass++) {
        convert_options o;
        convert_options_init(&o);
        o.id_size = idsz[pass];
        size_t ok = 0, bad = 0;
        for (size_t len = 0; len <= n; len++) {
            size_t m;
            int rc;
            char msg[600];
            convert_stats st;
            uint8_t *out = conv(in, len, &o, &m, &rc, msg, sizeof msg, &st);
            int boundary = 0;
            for (size_t i = 0; i < nb; i++)
                boundary |= b[i] == len;
            if (rc == 0)
                ok++;
            else if (rc == CONVERT_EINPUT)
                bad++;
            CU_ASSERT(rc == (boundary ? 0 : CONVERT_EINPUT));
            free(out);
        }
        CHECK_EQ(ok, nb);
        CHECK_EQ(bad, n + 1 - nb);
    }
    free(in);
}

static void test_bad_subs(void)
{
    variant v = {4, HPROF_VERSION_1_0_2, 0, 0};
    size_t n;
    uint8_t *in = build(v, &n);
    /* find the segment and break its first sub-record's tag */
    size_t b[64], nb = boundaries(in, n, b, 64), seg = 0;
    for (size_t i = 0; i + 1 < nb; i++)
        if (in[b[i]] == HPROF_TAG_HEAP_DUMP_SEGMENT)
            seg = b[i];
    CU_ASSERT_FATAL(seg != 0);
    convert_options o;
    convert_options_init(&o);
    size_t m;
    int rc;
    char msg[600] = "";
    convert_stats st;
    in[seg + 9] = 0x42;
    uint8_t *out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, CONVERT_EINPUT);
    char want[128];
    snprintf(want, sizeof want, "offset %zu: unknown heap sub-record tag 0x42", seg + 9);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
    free(out);
    in[seg + 9] = HPROF_GC_ROOT_JNI_GLOBAL;
    /* the segment 3 bytes shorter: its last sub-record crosses its end */
    uint32_t len = ((uint32_t)in[seg + 7] << 8) | in[seg + 8];
    len -= 3;
    in[seg + 7] = (uint8_t)(len >> 8);
    in[seg + 8] = (uint8_t)len;
    out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, CONVERT_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "crosses the record's end"));
    free(out);
    /* not HPROF at all */
    out = conv((const uint8_t *)"hello", 5, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, CONVERT_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "not an HPROF file"));
    free(out);
    free(in);
}

/* A record of an unknown tag (0x99, 3 bytes) after the header: copied
 * when ids keep their size and numbers, refused (tag, offset) otherwise. */
static void test_unknown_record(void)
{
    variant v = {4, HPROF_VERSION_1_0_2, 0, 0};
    size_t n0;
    uint8_t *in0 = build(v, &n0);
    static const uint8_t rec[] = {0x99, 0, 0, 0, 5, 0, 0, 0, 3, 1, 2, 3};
    size_t hdr = HPROF_HEADER_SIZE, n = n0 + sizeof rec;
    uint8_t *in = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    memcpy(in, in0, hdr);
    memcpy(in + hdr, rec, sizeof rec);
    memcpy(in + hdr + sizeof rec, in0 + hdr, n0 - hdr);
    free(in0);
    convert_options o;
    convert_options_init(&o);
    o.id_size = 4;
    size_t m;
    int rc;
    char msg[600] = "";
    convert_stats st;
    uint8_t *out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, 0);
    CHECK_EQ(st.unknown_records, 1);
    CHECK_EQ(m, n);
    CU_ASSERT(m == n && memcmp(out, in, n) == 0);
    free(out);
    o.id_size = 8;
    out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, CONVERT_EINPUT);
    char want[160];
    snprintf(want, sizeof want, "offset %zu: record of unknown tag 0x99 (3 bytes): ids in it, if any, "
             "cannot be resized", hdr);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
    free(out);
    o.id_size = 4;
    o.renumber = 1;
    out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, CONVERT_EINPUT);
    snprintf(want, sizeof want, "offset %zu: record of unknown tag 0x99 (3 bytes): ids in it, if any, "
             "cannot be renumbered", hdr);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
    free(out);
    free(in);
}

/* A 1.0.3 file whose NODATA array expands to 4 GiB of zeros: 1.0.1 cannot
 * hold that in one record (refused before writing), nor a segment (one
 * sub-record of more than 4 GiB). Cheap: nothing is expanded. */
static void test_4gib(void)
{
    hw_options ho;
    hw_options_init(&ho);
    ho.id_size = 4;
    ho.version = HPROF_VERSION_1_0_3;
    ho.clock = HW_CLOCK_FIXED;
    hw_sink *s = hw_sink_memory(0);
    hw_writer *w = hw_writer_open(s, &ho, NULL);
    hw_heap_begin(w);
    /* 0x20000000 longs = 4 GiB of elements */
    static const uint8_t nd[] = {HPROF_GC_PRIM_ARRAY_NODATA, 0, 0, 0, 0x10, 0, 0, 0, 0,
                                 0x20, 0, 0, 0, HPROF_TYPE_LONG};
    hw_heap_segment_raw(w, nd, sizeof nd);
    hw_heap_end(w);
    hw_writer_close(w, NULL, 0);
    size_t n, m;
    uint8_t *in = tu_sink_copy(s, &n);
    hw_sink_free(s);
    convert_options o;
    convert_options_init(&o);
    o.version = HPROF_VERSION_1_0_1;
    int rc;
    char msg[600] = "";
    convert_stats st;
    uint8_t *out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, CONVERT_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "the heap dump at offset 31 is 4294967310 bytes once converted: "
                                       "more than a 1.0.1 HEAP DUMP record can hold"));
    CHECK_EQ(m, 0); /* refused before the buffered header was flushed: nothing written */
    free(out);
    o.version = HPROF_VERSION_1_0_2;
    out = conv(in, n, &o, &m, &rc, msg, sizeof msg, &st);
    CHECK_EQ(rc, CONVERT_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "a sub-record of 4294967310 bytes once converted does not fit "
                                       "a HEAP DUMP SEGMENT"));
    free(out);
    free(in);
}

static int count_dir(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void test_files(void)
{
    char dir[] = "/tmp/test_convert.XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char in_path[256], out_path[256];
    snprintf(in_path, sizeof in_path, "%s/in.hprof", dir);
    snprintf(out_path, sizeof out_path, "%s/out.hprof", dir);
    variant v = {8, HPROF_VERSION_1_0_2, 0, V_BIG_ID};
    size_t n;
    uint8_t *in = build(v, &n);
    FILE *f = fopen(in_path, "wb");
    fwrite(in, 1, n, f);
    fclose(f);
    convert_options o;
    convert_options_init(&o);
    o.id_size = 4;
    char msg[600];
    convert_stats st;
    /* refused: no OUT, no temporary file */
    CHECK_EQ(convert_file(in_path, out_path, &o, &st, msg, sizeof msg), CONVERT_EINPUT);
    struct stat sb;
    CU_ASSERT(stat(out_path, &sb) != 0 && errno == ENOENT);
    CHECK_EQ(count_dir(dir), 1);
    /* accepted: OUT, 0600, nothing else */
    o.id_size = 0;
    o.gzip = 1;
    CHECK_EQ(convert_file(in_path, out_path, &o, &st, msg, sizeof msg), 0);
    CU_ASSERT(stat(out_path, &sb) == 0 && (sb.st_mode & 0777) == 0600);
    CHECK_EQ(count_dir(dir), 2);
    /* a missing input */
    CHECK_EQ(convert_file("/nonexistent/x.hprof", out_path, &o, &st, msg, sizeof msg),
             CONVERT_EINPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "/nonexistent/x.hprof"));
    /* /dev/full as output, through a sink */
    int e;
    hw_sink *full = hw_sink_file("/dev/full", &e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(full);
    o.gzip = 0;
    CHECK_EQ(convert_memory(in, n, full, &o, &st, msg, sizeof msg), CONVERT_EOUTPUT);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, "No space left on device"));
    unlink(out_path);
    unlink(in_path);
    rmdir(dir);
    free(in);
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("convert", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "id size 8 <-> 4", test_id_sizes) ||
        !CU_add_test(s, "1.0.2 <-> 1.0.1, composed", test_versions) ||
        !CU_add_test(s, "instance before its class: pre-pass", test_instance_first) ||
        !CU_add_test(s, "gzip output read back", test_gzip_input_and_output) ||
        !CU_add_test(s, "id above 4 GiB refused", test_big_id) ||
        !CU_add_test(s, "renumber names, frames, refs", test_renumber) ||
        !CU_add_test(s, "Android 1.0.3 -> 1.0.2", test_android) ||
        !CU_add_test(s, "Android app-only (-z)", test_app_only) ||
        !CU_add_test(s, "every truncation", test_truncations) ||
        !CU_add_test(s, "bad sub-records", test_bad_subs) ||
        !CU_add_test(s, "unknown record: copied or refused", test_unknown_record) ||
        !CU_add_test(s, "past 4 GiB: refused", test_4gib) ||
        !CU_add_test(s, "files: nothing left after a failure", test_files))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
