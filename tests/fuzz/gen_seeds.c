/*
 * gen_seeds.c: writes the seed corpus of fuzz_reader (tests/fuzz/corpus/):
 * a few tiny valid files made with the writer that together hold every
 * record and sub-record kind, every header version and both id sizes, plus
 * the first bytes of the three shared reference files when given their
 * folder. Every seed is well under 64 KB.
 *
 * Usage: fuzz_seeds OUTDIR [CORPUS_DIR]   (CORPUS_DIR: shared/corpus/original-agent)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/hr_reader.h"
#include "hprof/hw_writer.h"

static int save(const char *dir, const char *name, const uint8_t *d, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(d, 1, len, f) != len) {
        perror(path);
        if (f)
            fclose(f);
        return -1;
    }
    fclose(f);
    printf("%s: %zu bytes\n", path, len);
    return 0;
}

static hw_writer *open_mem(hw_sink **s, unsigned idsz, hprof_version v, hw_heap_mode m)
{
    hw_options o;
    hw_options_init(&o);
    o.id_size = idsz;
    o.version = v;
    o.heap_mode = m;
    o.clock = HW_CLOCK_FIXED;
    o.timestamp_ms = 1700000000000ULL;
    o.segment_size = 64; /* several segments even in a tiny file */
    *s = hw_sink_memory(0);
    return *s ? hw_writer_open(*s, &o, NULL) : NULL;
}

static int finish(const char *dir, const char *name, hw_writer *w, hw_sink *s)
{
    char msg[256];
    if (hw_writer_close(w, msg, sizeof msg) != 0) {
        fprintf(stderr, "%s: %s\n", name, msg);
        hw_sink_free(s);
        return -1;
    }
    size_t len;
    const uint8_t *d = hw_sink_memory_data(s, &len);
    int rc = save(dir, name, d, len);
    hw_sink_free(s);
    return rc;
}

/* A small program's worth: strings, a class, frames, a trace, a thread and a
 * heap dump with every object sub-record kind. */
static void program(hw_writer *w, unsigned idsz)
{
    hw_utf8z(w, 1, "java/lang/Object");
    hw_utf8z(w, 2, "Main");
    hw_utf8z(w, 3, "main");
    hw_utf8z(w, 4, "([Ljava/lang/String;)V");
    hw_utf8z(w, 5, "Main.java");
    hw_utf8z(w, 6, "value");
    hw_utf8z(w, 7, "[I");
    hw_load_class(w, 1, 0x100, 1, 1);
    hw_load_class(w, 2, 0x200, 1, 2);
    hw_load_class(w, 3, 0x300, 1, 7);
    hw_frame(w, 0x10, 3, 4, 5, 2, 12);
    hw_frame(w, 0x11, 3, 4, 0, 2, HPROF_LINE_NATIVE);
    hprof_id fr[2] = {0x10, 0x11};
    hw_trace(w, 1, 1, 0, NULL);
    hw_trace(w, 2, 1, 2, fr);
    hw_start_thread(w, 1, 0x400, 2, 3, 3, 3);
    hw_heap_begin(w);
    hw_root(w, HPROF_GC_ROOT_THREAD_OBJ, 0x400, 1, 2, 0);
    hw_root(w, HPROF_GC_ROOT_JAVA_FRAME, 0x500, 1, 0, 0);
    hw_root(w, HPROF_GC_ROOT_JNI_GLOBAL, 0x500, 0, 0, 0x999);
    hw_root(w, HPROF_GC_ROOT_JNI_LOCAL, 0x500, 1, 1, 0);
    hw_root(w, HPROF_GC_ROOT_NATIVE_STACK, 0x500, 1, 0, 0);
    hw_root(w, HPROF_GC_ROOT_STICKY_CLASS, 0x100, 0, 0, 0);
    hw_root(w, HPROF_GC_ROOT_THREAD_BLOCK, 0x500, 1, 0, 0);
    hw_root(w, HPROF_GC_ROOT_MONITOR_USED, 0x500, 0, 0, 0);
    hw_root(w, HPROF_GC_ROOT_UNKNOWN, 0x600, 0, 0, 0);
    hw_class obj = {0x100, 1, 0, 0, 0, 0, 0, 0, 16, 0, NULL, 0, NULL, 0, NULL};
    hw_class_dump(w, &obj);
    hw_cp_entry cp[2] = {{1, {HPROF_TYPE_INT, 42}}, {2, {HPROF_TYPE_OBJECT, 0x600}}};
    hw_static_field sf[3] = {{6, {HPROF_TYPE_LONG, 7}},
                             {6, {HPROF_TYPE_FLOAT, 0x3FC00000}},
                             {6, {HPROF_TYPE_OBJECT, 0x500}}};
    hw_field f[3] = {{6, HPROF_TYPE_INT}, {6, HPROF_TYPE_OBJECT}, {6, HPROF_TYPE_BOOLEAN}};
    hw_class main_c = {0x200, 1, 0x100, 0, 0, 0, 0, 0, 5 + idsz, 2, cp, 3, sf, 3, f};
    hw_class_dump(w, &main_c);
    hw_class arr = {0x300, 1, 0x100, 0, 0, 0, 0, 0, 0, 0, NULL, 0, NULL, 0, NULL};
    hw_class_dump(w, &arr);
    uint8_t v[13] = {0};
    v[3] = 9;                /* int 9 */
    v[4 + idsz - 2] = 0x06;  /* the object field: 0x600 */
    v[4 + idsz] = 1;         /* boolean true */
    hw_instance_dump(w, 0x500, 2, 0x200, v, 5 + idsz);
    hw_instance_begin(w, 0x501, 2, 0x200, 5 + idsz);
    hw_put_u4(w, 10);
    hw_put_id(w, 0x500);
    hw_put_u1(w, 0);
    hw_sub_end(w);
    hprof_id el[3] = {0x500, 0, 0x501};
    hw_obj_array_dump(w, 0x600, 2, 0x100, 3, el);
    int32_t ints[4] = {1, -1, 0x01020304, 0};
    hw_prim_array_dump(w, 0x700, 2, HPROF_TYPE_INT, 4, ints);
    uint16_t chars[3] = {'h', 'i', 0x20AC};
    hw_prim_array_dump(w, 0x701, 2, HPROF_TYPE_CHAR, 3, chars);
    double dd[1] = {2.5};
    hw_prim_array_dump(w, 0x702, 2, HPROF_TYPE_DOUBLE, 1, dd);
    hw_heap_end(w);
    hw_end_thread(w, 1);
}

static int copy_prefix(const char *dir, const char *corpus, const char *file, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", corpus, file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    uint8_t *b = malloc(n);
    size_t got = b ? fread(b, 1, n, f) : 0;
    fclose(f);
    char name[256];
    snprintf(name, sizeof name, "prefix-%zuk-%s", n / 1024, file);
    int rc = got ? save(dir, name, b, got) : -1;
    free(b);
    return rc;
}

/* The first sub-records (up to `max` bytes) of a real file's heap dump,
 * behind its header, as one 0x0C record: real class/instance/array dumps. */
typedef struct slice {
    const uint8_t *file;
    uint8_t *out;
    size_t n, max;
    int full;
} slice;

static int slice_sub(void *ctx, const hr_sub *sub)
{
    slice *sl = ctx;
    if (sub->part) /* a later part of an object array: its bytes went with part 0 */
        return 0;
    if (sl->n + sub->length > sl->max) {
        sl->full = 1;
        return 1; /* stop */
    }
    memcpy(sl->out + sl->n, sl->file + sub->offset, sub->length);
    sl->n += sub->length;
    return 0;
}

static int heap_slice(const char *dir, const char *corpus, const char *file, size_t max)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", corpus, file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)len);
    if (!d || fread(d, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(d);
        return -1;
    }
    fclose(f);
    slice sl = {d, malloc(HPROF_HEADER_SIZE + 9 + max), 0, max, 0};
    uint8_t *body = sl.out + HPROF_HEADER_SIZE + 9;
    slice inner = sl;
    inner.out = body;
    hr_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.on_sub = slice_sub;
    hr_source *src = hr_source_memory(d, (size_t)len);
    hr_parse(src, &cb, &inner, NULL);
    hr_source_close(src);
    memcpy(sl.out, d, HPROF_HEADER_SIZE);
    uint8_t *rh = sl.out + HPROF_HEADER_SIZE;
    rh[0] = HPROF_TAG_HEAP_DUMP;
    memset(rh + 1, 0, 4);
    rh[5] = (uint8_t)(inner.n >> 24);
    rh[6] = (uint8_t)(inner.n >> 16);
    rh[7] = (uint8_t)(inner.n >> 8);
    rh[8] = (uint8_t)inner.n;
    char name[256];
    snprintf(name, sizeof name, "heapslice-%zuk-%s", max / 1024, file);
    int rc = inner.n ? save(dir, name, sl.out, HPROF_HEADER_SIZE + 9 + inner.n) : -1;
    free(sl.out);
    free(d);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUTDIR [CORPUS_DIR]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    int bad = 0;
    hw_sink *s;
    hw_writer *w;

    /* 1.0.2, segmented, id 4 and id 8 */
    w = open_mem(&s, 4, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED);
    program(w, 4);
    bad |= finish(dir, "program-102-id4.hprof", w, s);
    w = open_mem(&s, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED);
    program(w, 8);
    bad |= finish(dir, "program-102-id8.hprof", w, s);

    /* 1.0.1 with one 0x0C HEAP DUMP */
    w = open_mem(&s, 4, HPROF_VERSION_1_0_1, HW_HEAP_SINGLE);
    program(w, 4);
    bad |= finish(dir, "program-101-single.hprof", w, s);

    /* legacy records of the original agent */
    w = open_mem(&s, 4, HPROF_VERSION_1_0_1, HW_HEAP_SEGMENTED);
    hw_control_settings(w, HPROF_CTRL_ALLOC_TRACES | HPROF_CTRL_CPU_SAMPLING, 4);
    hw_utf8z(w, 1, "java.lang.String");
    hw_load_class(w, 1, 0x100, 1, 1);
    hw_frame(w, 0x10, 1, 1, 1, 1, HPROF_LINE_COMPILED);
    hprof_id fr[1] = {0x10};
    hw_trace(w, 1, 1, 1, fr);
    hw_alloc_sites_head h = {HPROF_SITES_SORT_BY_ALLOC, 0.0001f, 100, 2, 1000, 20};
    hw_alloc_site sites[2] = {{0, 1, 1, 60, 1, 600, 12}, {HPROF_TYPE_CHAR, 1, 1, 40, 1, 400, 8}};
    hw_alloc_sites(w, &h, sites, 2);
    hw_heap_summary(w, 100, 2, 1000, 20);
    hw_cpu_sample cs[2] = {{7, 1}, {3, 1}};
    hw_cpu_samples(w, 10, cs, 2);
    hw_unload_class(w, 1);
    static const uint8_t raw[4] = {1, 2, 3, 4};
    hw_raw_record(w, 0x50, raw, 4);
    bad |= finish(dir, "legacy-101.hprof", w, s);

    /* Android 1.0.3: HEAP DUMP INFO and the extra roots */
    w = open_mem(&s, 4, HPROF_VERSION_1_0_3, HW_HEAP_SEGMENTED);
    hw_utf8z(w, 1, "app");
    hw_heap_begin(w);
    hw_heap_dump_info(w, 0x41, 1);
    static const uint8_t android[7] = {
        HPROF_GC_ROOT_INTERNED_STRING, HPROF_GC_ROOT_FINALIZING, HPROF_GC_ROOT_DEBUGGER,
        HPROF_GC_ROOT_REFERENCE_CLEANUP, HPROF_GC_ROOT_VM_INTERNAL, HPROF_GC_ROOT_JNI_MONITOR,
        HPROF_GC_ROOT_UNREACHABLE};
    for (unsigned i = 0; i < 7; i++)
        hw_root(w, android[i], 0x100 + i, 1, 2, 0);
    int8_t bytes[5] = {1, 2, 3, -4, 5};
    hw_prim_array_dump(w, 0x200, 0, HPROF_TYPE_BYTE, 5, bytes);
    hw_heap_end(w);
    bad |= finish(dir, "android-103.hprof", w, s);

    /* an empty dump, id 8 */
    w = open_mem(&s, 8, HPROF_VERSION_1_0_2, HW_HEAP_SEGMENTED);
    hw_heap_begin(w);
    hw_heap_end(w);
    bad |= finish(dir, "empty-dump.hprof", w, s);

    if (argc > 2) {
        bad |= copy_prefix(dir, argv[2], "minimal.bin", 4096);
        bad |= copy_prefix(dir, argv[2], "hprof.bin", 8192);
        bad |= copy_prefix(dir, argv[2], "jmap.bin", 4096);
        bad |= heap_slice(dir, argv[2], "hprof.bin", 16384);
        bad |= heap_slice(dir, argv[2], "jmap.bin", 16384);
    }
    return bad ? 1 : 0;
}
