/*
 * hasm_text.c: the vocabulary and value spellings of the HPROF text form.
 *
 * Owns the schema tables (one line per record and sub-record kind, in the
 * order their fields are stored) and the exact spelling of values. Floats
 * are written in the shortest decimal that reads back to the same bits;
 * NaNs (whose payload a decimal cannot carry) as nan:0xBITS.
 */
#include "hasm_text.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hprof/hprof_format.h"

#define F(k, t) { k, HASM_K_##t }

static const hasm_field f_utf8[] = { F("id", ID) };
static const hasm_field f_load[] = { F("serial", U4), F("class", ID), F("trace", U4), F("name", ID) };
static const hasm_field f_serial[] = { F("serial", U4) };
static const hasm_field f_frame[] = { F("id", ID), F("method", ID), F("sig", ID), F("source", ID),
                                      F("class", U4), F("line", I4) };
static const hasm_field f_trace[] = { F("serial", U4), F("thread", U4) };
static const hasm_field i_trace[] = { F("id", ID) };
static const hasm_field f_sites[] = { F("flags", X2), F("cutoff", F4), F("live-bytes", U4),
                                      F("live-instances", U4), F("alloc-bytes", U8),
                                      F("alloc-instances", U8) };
static const hasm_field i_sites[] = { F("array", U1), F("class", U4), F("trace", U4),
                                      F("live-bytes", U4), F("live-instances", U4),
                                      F("alloc-bytes", U4), F("alloc-instances", U4) };
static const hasm_field f_summary[] = { F("live-bytes", U4), F("live-instances", U4),
                                        F("alloc-bytes", U8), F("alloc-instances", U8) };
static const hasm_field f_start[] = { F("serial", U4), F("thread", ID), F("trace", U4),
                                      F("name", ID), F("group", ID), F("parent", ID) };
static const hasm_field f_samples[] = { F("total", U4) };
static const hasm_field i_samples[] = { F("count", U4), F("trace", U4) };
static const hasm_field f_control[] = { F("flags", X4), F("depth", U2) };

static const hasm_schema records[] = {
    { HPROF_TAG_UTF8, "UTF8", f_utf8, 1, HASM_B_STRING, NULL, NULL, 0 },
    { HPROF_TAG_LOAD_CLASS, "LOAD_CLASS", f_load, 4, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_TAG_UNLOAD_CLASS, "UNLOAD_CLASS", f_serial, 1, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_TAG_FRAME, "FRAME", f_frame, 6, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_TAG_TRACE, "TRACE", f_trace, 2, HASM_B_ITEMS, "frame", i_trace, 1 },
    { HPROF_TAG_ALLOC_SITES, "ALLOC_SITES", f_sites, 6, HASM_B_ITEMS, "site", i_sites, 7 },
    { HPROF_TAG_HEAP_SUMMARY, "HEAP_SUMMARY", f_summary, 4, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_TAG_START_THREAD, "START_THREAD", f_start, 6, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_TAG_END_THREAD, "END_THREAD", f_serial, 1, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_TAG_HEAP_DUMP, "HEAP_DUMP", NULL, 0, HASM_B_HEAP, NULL, NULL, 0 },
    { HPROF_TAG_CPU_SAMPLES, "CPU_SAMPLES", f_samples, 1, HASM_B_ITEMS, "sample", i_samples, 2 },
    { HPROF_TAG_CONTROL_SETTINGS, "CONTROL_SETTINGS", f_control, 2, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_TAG_HEAP_DUMP_SEGMENT, "HEAP_DUMP_SEGMENT", NULL, 0, HASM_B_HEAP, NULL, NULL, 0 },
    { HPROF_TAG_HEAP_DUMP_END, "HEAP_DUMP_END", NULL, 0, HASM_B_NONE, NULL, NULL, 0 },
};

static const hasm_field s_id[] = { F("id", ID) };
static const hasm_field s_jni_global[] = { F("id", ID), F("ref", ID) };
static const hasm_field s_frame_root[] = { F("id", ID), F("thread", U4), F("frame", I4) };
static const hasm_field s_thread_root[] = { F("id", ID), F("thread", U4) };
static const hasm_field s_thread_obj[] = { F("id", ID), F("thread", U4), F("trace", U4) };
static const hasm_field s_info[] = { F("type", U4), F("name", ID) };
static const hasm_field s_class[] = { F("id", ID), F("trace", U4), F("super", ID), F("loader", ID),
                                      F("signers", ID), F("domain", ID), F("reserved1", ID),
                                      F("reserved2", ID), F("size", U4) };
static const hasm_field s_instance[] = { F("id", ID), F("trace", U4), F("class", ID) };
/* stored order: id, trace, u4 count, class id / u1 type */
static const hasm_field s_objarray[] = { F("id", ID), F("trace", U4), F("class", ID) };
static const hasm_field s_primarray[] = { F("id", ID), F("trace", U4), F("type", TYPE) };

static const hasm_schema subs[] = {
    { HPROF_GC_ROOT_JNI_GLOBAL, "ROOT_JNI_GLOBAL", s_jni_global, 2, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_JNI_LOCAL, "ROOT_JNI_LOCAL", s_frame_root, 3, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_JAVA_FRAME, "ROOT_JAVA_FRAME", s_frame_root, 3, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_NATIVE_STACK, "ROOT_NATIVE_STACK", s_thread_root, 2, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_STICKY_CLASS, "ROOT_STICKY_CLASS", s_id, 1, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_THREAD_BLOCK, "ROOT_THREAD_BLOCK", s_thread_root, 2, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_MONITOR_USED, "ROOT_MONITOR_USED", s_id, 1, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_THREAD_OBJ, "ROOT_THREAD_OBJ", s_thread_obj, 3, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_CLASS_DUMP, "CLASS_DUMP", s_class, 9, HASM_B_CLASS, NULL, NULL, 0 },
    { HPROF_GC_INSTANCE_DUMP, "INSTANCE_DUMP", s_instance, 3, HASM_B_INSTANCE, NULL, NULL, 0 },
    { HPROF_GC_OBJ_ARRAY_DUMP, "OBJ_ARRAY_DUMP", s_objarray, 3, HASM_B_OBJARRAY, NULL, NULL, 0 },
    { HPROF_GC_PRIM_ARRAY_DUMP, "PRIM_ARRAY_DUMP", s_primarray, 3, HASM_B_PRIMARRAY, NULL, NULL, 0 },
    { HPROF_GC_ROOT_INTERNED_STRING, "ROOT_INTERNED_STRING", s_id, 1, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_FINALIZING, "ROOT_FINALIZING", s_id, 1, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_DEBUGGER, "ROOT_DEBUGGER", s_id, 1, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_REFERENCE_CLEANUP, "ROOT_REFERENCE_CLEANUP", s_id, 1, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_VM_INTERNAL, "ROOT_VM_INTERNAL", s_id, 1, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_JNI_MONITOR, "ROOT_JNI_MONITOR", s_frame_root, 3, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_UNREACHABLE, "ROOT_UNREACHABLE", s_id, 1, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_HEAP_DUMP_INFO, "HEAP_DUMP_INFO", s_info, 2, HASM_B_NONE, NULL, NULL, 0 },
    { HPROF_GC_ROOT_UNKNOWN, "ROOT_UNKNOWN", s_id, 1, HASM_B_NONE, NULL, NULL, 0 },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const hasm_schema *hasm_text_record(unsigned tag)
{
    for (size_t i = 0; i < N_OF(records); i++)
        if (records[i].tag == tag)
            return &records[i];
    return NULL;
}

const hasm_schema *hasm_text_record_named(const char *name)
{
    for (size_t i = 0; i < N_OF(records); i++)
        if (strcmp(records[i].name, name) == 0)
            return &records[i];
    return NULL;
}

const hasm_schema *hasm_text_sub(unsigned tag)
{
    for (size_t i = 0; i < N_OF(subs); i++)
        if (subs[i].tag == tag)
            return &subs[i];
    return NULL;
}

const hasm_schema *hasm_text_sub_named(const char *name)
{
    for (size_t i = 0; i < N_OF(subs); i++)
        if (strcmp(subs[i].name, name) == 0)
            return &subs[i];
    return NULL;
}

unsigned hasm_text_kind_size(unsigned kind, unsigned id_size)
{
    switch (kind) {
    case HASM_K_ID: return id_size;
    case HASM_K_U1: case HASM_K_TYPE: return 1;
    case HASM_K_U2: case HASM_K_X2: return 2;
    case HASM_K_U8: return 8;
    default: return 4;
    }
}

static const char *const type_names[] = {
    [HPROF_TYPE_OBJECT] = "object", [HPROF_TYPE_BOOLEAN] = "boolean", [HPROF_TYPE_CHAR] = "char",
    [HPROF_TYPE_FLOAT] = "float",   [HPROF_TYPE_DOUBLE] = "double",   [HPROF_TYPE_BYTE] = "byte",
    [HPROF_TYPE_SHORT] = "short",   [HPROF_TYPE_INT] = "int",         [HPROF_TYPE_LONG] = "long",
};

unsigned hasm_text_type_named(const char *name)
{
    for (unsigned t = 0; t < N_OF(type_names); t++)
        if (type_names[t] && strcmp(type_names[t], name) == 0)
            return t;
    return 0;
}

const char *hasm_text_type_name(unsigned type)
{
    return type < N_OF(type_names) ? type_names[type] : NULL;
}

uint64_t hasm_text_get(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

void hasm_text_put(uint8_t *p, unsigned n, uint64_t v)
{
    for (unsigned i = n; i-- > 0;) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

static float bits_float(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static double bits_double(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* snprintf-free integers: disasm writes millions of them */
static void fmt_u64(char *buf, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *buf++ = tmp[--n];
    *buf = '\0';
}

static void fmt_i64(char *buf, int64_t v)
{
    if (v < 0) {
        *buf++ = '-';
        fmt_u64(buf, 0 - (uint64_t)v);
    } else {
        fmt_u64(buf, (uint64_t)v);
    }
}

static void fmt_hex(char *buf, uint64_t v)
{
    static const char hx[] = "0123456789abcdef";
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = hx[v & 15];
        v >>= 4;
    } while (v);
    *buf++ = '0';
    *buf++ = 'x';
    while (n)
        *buf++ = tmp[--n];
    *buf = '\0';
}

/* Shortest %.Ng that reads back to the same bits (not for NaN). Reading
 * back is monotonic in N (more digits are never farther), so N is found by
 * bisection; whole numbers, the common case, go straight to an integer. */
static int float_back(const char *buf, uint32_t bits)
{
    float back = strtof(buf, NULL);
    uint32_t bb;
    memcpy(&bb, &back, 4);
    return bb == bits;
}

static int double_back(const char *buf, uint64_t bits)
{
    double back = strtod(buf, NULL);
    uint64_t bb;
    memcpy(&bb, &back, 8);
    return bb == bits;
}

static int fmt_whole(char *buf, double d)
{
    if (d == 0 || d != d || d < -1e15 || d > 1e15 || d != (double)(int64_t)d)
        return 0;
    fmt_i64(buf, (int64_t)d);
    return 1;
}

/* %.*g with prec <= 17 fits HASM_VALUE_MAX; the check is for the compiler,
 * which cannot see the bound at -O0 (-Wformat-truncation) */
static void fmt_g(char *buf, int prec, double d)
{
    int n = snprintf(buf, HASM_VALUE_MAX, "%.*g", prec, d);
    if (n < 0 || n >= HASM_VALUE_MAX)
        buf[0] = '\0';
}

static void fmt_float(char *buf, uint32_t bits)
{
    float f = bits_float(bits);
    if (fmt_whole(buf, (double)f))
        return;
    int lo = 1, hi = 9;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        fmt_g(buf, mid, (double)f);
        if (float_back(buf, bits))
            hi = mid;
        else
            lo = mid + 1;
    }
    fmt_g(buf, lo, (double)f);
}

static void fmt_double(char *buf, uint64_t bits)
{
    double d = bits_double(bits);
    if (fmt_whole(buf, d))
        return;
    int lo = 1, hi = 17;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        fmt_g(buf, mid, d);
        if (double_back(buf, bits))
            hi = mid;
        else
            lo = mid + 1;
    }
    fmt_g(buf, lo, d);
}

static int64_t sign_extend(uint64_t v, unsigned n)
{
    if (n >= 8)
        return (int64_t)v;
    uint64_t m = 1ull << (n * 8 - 1);
    return (int64_t)((v ^ m) - m);
}

void hasm_text_fmt_value(char *buf, unsigned type, uint64_t v, unsigned n)
{
    switch (type) {
    case HPROF_TYPE_OBJECT:
        if (v == 0)
            strcpy(buf, "0");
        else
            fmt_hex(buf, v);
        return;
    case HPROF_TYPE_BOOLEAN:
        if (v <= 1)
            strcpy(buf, v ? "true" : "false");
        else
            fmt_u64(buf, v);
        return;
    case HPROF_TYPE_CHAR:
        fmt_u64(buf, v);
        return;
    case HPROF_TYPE_FLOAT:
        if (isnan(bits_float((uint32_t)v)))
            snprintf(buf, HASM_VALUE_MAX, "nan:0x%08" PRIx64, v);
        else
            fmt_float(buf, (uint32_t)v);
        return;
    case HPROF_TYPE_DOUBLE:
        if (isnan(bits_double(v)))
            snprintf(buf, HASM_VALUE_MAX, "nan:0x%016" PRIx64, v);
        else
            fmt_double(buf, v);
        return;
    default:
        fmt_i64(buf, sign_extend(v, n));
        return;
    }
}

void hasm_text_fmt_kind(char *buf, unsigned kind, uint64_t v)
{
    switch (kind) {
    case HASM_K_ID: hasm_text_fmt_value(buf, HPROF_TYPE_OBJECT, v, 8); return;
    case HASM_K_I4: fmt_i64(buf, sign_extend(v, 4)); return;
    case HASM_K_X2: case HASM_K_X4: fmt_hex(buf, v); return;
    case HASM_K_F4: hasm_text_fmt_value(buf, HPROF_TYPE_FLOAT, v, 4); return;
    case HASM_K_TYPE: {
        const char *t = hasm_text_type_name((unsigned)v);
        if (t)
            strcpy(buf, t);
        else
            snprintf(buf, HASM_VALUE_MAX, "%" PRIu64, v);
        return;
    }
    default: fmt_u64(buf, v); return;
    }
}

int hasm_text_parse_int(const char *s, unsigned n, uint64_t *v, const char **why)
{
    int neg = 0;
    const char *p = s;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    int base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (*p == '\0' || *p == '-' || *p == '+' || *p == ' ') {
        *why = "not a number";
        return -1;
    }
    errno = 0;
    char *end;
    unsigned long long u = strtoull(p, &end, base);
    if (*end != '\0') {
        *why = "not a number";
        return -1;
    }
    if (errno == ERANGE) {
        *why = "number out of range";
        return -1;
    }
    uint64_t max = n >= 8 ? UINT64_MAX : (1ull << (n * 8)) - 1;
    if (neg) {
        uint64_t lim = n >= 8 ? (1ull << 63) : (1ull << (n * 8 - 1));
        if (u > lim) {
            *why = "number out of range";
            return -1;
        }
        *v = (0 - (uint64_t)u) & max;
        return 0;
    }
    if (u > max) {
        *why = "number out of range";
        return -1;
    }
    *v = u;
    return 0;
}

static int parse_nan_bits(const char *s, unsigned n, uint64_t *v, const char **why)
{
    if (strncmp(s, "nan:", 4) != 0)
        return 1;
    return hasm_text_parse_int(s + 4, n, v, why);
}

int hasm_text_parse_value(const char *s, unsigned type, unsigned n, uint64_t *v, const char **why)
{
    switch (type) {
    case HPROF_TYPE_BOOLEAN:
        if (strcmp(s, "true") == 0) {
            *v = 1;
            return 0;
        }
        if (strcmp(s, "false") == 0) {
            *v = 0;
            return 0;
        }
        return hasm_text_parse_int(s, n, v, why);
    case HPROF_TYPE_FLOAT: {
        int r = parse_nan_bits(s, 4, v, why);
        if (r <= 0)
            return r;
        char *end;
        errno = 0;
        float f = strtof(s, &end);
        if (*s == '\0' || *end != '\0') {
            *why = "not a float";
            return -1;
        }
        uint32_t b;
        memcpy(&b, &f, 4);
        *v = b;
        return 0;
    }
    case HPROF_TYPE_DOUBLE: {
        int r = parse_nan_bits(s, 8, v, why);
        if (r <= 0)
            return r;
        char *end;
        errno = 0;
        double d = strtod(s, &end);
        if (*s == '\0' || *end != '\0') {
            *why = "not a double";
            return -1;
        }
        memcpy(v, &d, 8);
        return 0;
    }
    default:
        return hasm_text_parse_int(s, n, v, why);
    }
}

int hasm_text_parse_kind(const char *s, unsigned kind, unsigned n, uint64_t *v, const char **why)
{
    if (kind == HASM_K_F4)
        return hasm_text_parse_value(s, HPROF_TYPE_FLOAT, 4, v, why);
    if (kind == HASM_K_TYPE) {
        unsigned t = hasm_text_type_named(s);
        if (t) {
            *v = t;
            return 0;
        }
    }
    return hasm_text_parse_int(s, n, v, why);
}

/* Length of a valid (standard) UTF-8 multi-byte sequence at p, or 0. */
static size_t utf8_seq(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (n < len || p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xBF)
            return 0;
    return len;
}

void hasm_text_put_string(FILE *out, const uint8_t *s, size_t n)
{
    putc('"', out);
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c == '"' || c == '\\') {
            putc('\\', out);
            putc(c, out);
            i++;
        } else if (c >= 0x20 && c < 0x7F) {
            putc(c, out);
            i++;
        } else if (c == '\n') {
            fputs("\\n", out);
            i++;
        } else if (c == '\t') {
            fputs("\\t", out);
            i++;
        } else if (c == '\r') {
            fputs("\\r", out);
            i++;
        } else {
            size_t len = c >= 0x80 ? utf8_seq(s + i, n - i) : 0;
            if (len) {
                fwrite(s + i, 1, len, out);
                i += len;
            } else {
                fprintf(out, "\\x%02x", c);
                i++;
            }
        }
    }
    putc('"', out);
}

int hasm_text_is_word(const uint8_t *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$' || c == '.' || c == '<' || c == '>' || c == '-'))
            return 0;
    }
    return 1;
}
