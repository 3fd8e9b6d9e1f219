/*
 * test_asm.c: libhprofasm, the text form of HPROF (hprof disasm / asm).
 *
 *  - hand-written text assembles to exact bytes: header, time and lengths,
 *    escapes in strings (modified UTF-8 NUL, bytes that are not UTF-8),
 *    floats exactly (-0, NaN payloads), booleans that are 7, explicit
 *    length= and count= kept although wrong, instance fields by name
 *    (a name shadowed in the super class set in layout order);
 *  - disasm writes those values back in the same spelling;
 *  - the round trip asm(disasm(X)) == X on a fixture cut at every offset
 *    and with bytes flipped, and on bytes that are not HPROF at all;
 *  - wrong text is refused with the line number, never a crash;
 *  - file input: 1f 8b that is not a gzip header is plain input; a gzip
 *    stream cut short gives the text of what it holds, then an error;
 *  - a class without fields and an instance of it (no layout buffers);
 *  - on an output that seeks, a big heap dump record is written as it
 *    grows and its length patched: the same bytes as the buffered way.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "hasm_asm.h"
#include "hasm_disasm.h"

typedef struct membuf {
    uint8_t *p;
    size_t n, cap;
    size_t at; /* seekable use: where the next write goes */
    int seeking;
} membuf;

static int mem_write(void *ctx, const void *buf, size_t len)
{
    membuf *m = ctx;
    if (m->seeking && m->at < m->n) {
        if (m->at + len > m->n)
            return -1; /* patches stay inside what was written */
        memcpy(m->p + m->at, buf, len);
        m->at += len;
        return 0;
    }
    if (m->n + len > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 4096;
        while (cap < m->n + len)
            cap *= 2;
        uint8_t *p = realloc(m->p, cap);
        if (!p)
            return -1;
        m->p = p;
        m->cap = cap;
    }
    memcpy(m->p + m->n, buf, len);
    m->n += len;
    m->at = m->n;
    return 0;
}

static int mem_seek(void *ctx, uint64_t offset)
{
    membuf *m = ctx;
    m->at = offset == UINT64_MAX ? m->n : (size_t)offset;
    return m->at <= m->n ? 0 : -1;
}

/* Assembles `text`; returns hasm_asm_stream's status, bytes in *out. */
static int assemble(const char *text, size_t tlen, membuf *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *in = fmemopen((void *)text, tlen ? tlen : 1, "r");
    CU_ASSERT_FATAL(in != NULL);
    if (tlen == 0)
        fgetc(in); /* fmemopen refuses size 0: an empty text is a read past one byte */
    int rc = hasm_asm_stream(in, "t", mem_write, out, err, errlen);
    fclose(in);
    return rc;
}

static char *disassemble(const uint8_t *p, size_t n, size_t *tlen)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, tlen);
    CU_ASSERT_FATAL(f != NULL);
    char err[256];
    int rc = hasm_disasm_mem(p, n, f, err, sizeof err);
    fclose(f);
    CU_ASSERT_EQUAL(rc, 0);
    return text;
}

/* 1 if asm(disasm(p)) == p. */
static int round_trip(const uint8_t *p, size_t n)
{
    size_t tlen;
    char *text = disassemble(p, n, &tlen);
    membuf out;
    char err[256] = "";
    int rc = assemble(text, tlen, &out, err, sizeof err);
    int same = rc == 0 && out.n == n && (n == 0 || memcmp(out.p, p, n) == 0);
    if (!same) {
        fprintf(stderr, "round trip of %zu bytes: rc %d (%s), %zu bytes back\n%s\n", n, rc, err,
                out.n, text);
    }
    free(text);
    free(out.p);
    return same;
}

static const char head4[] = "header \"JAVA PROFILE 1.0.2\" id-size=4 time=0x0102030405060708\n";
static const uint8_t head4_bytes[] = "JAVA PROFILE 1.0.2\0\0\0\0\4\1\2\3\4\5\6\7\x08";
#define HEAD4_LEN 31u

static void expect_bytes(const char *text, const uint8_t *want, size_t n)
{
    membuf out;
    char err[256] = "";
    int rc = assemble(text, strlen(text), &out, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc)
        fprintf(stderr, "asm: %s\n", err);
    CU_ASSERT_EQUAL(out.n, n);
    CU_ASSERT(out.n == n && memcmp(out.p, want, n) == 0);
    free(out.p);
}

static void t_strings(void)
{
    char text[512];
    snprintf(text, sizeof text, "%sUTF8 id=0x10 time=7 \"a\\x00\\xc0\\x80\\xff\xc3\xa9\\\"\"\n", head4);
    uint8_t want[64];
    memcpy(want, head4_bytes, HEAD4_LEN);
    static const uint8_t rec[] = { 0x01, 0, 0, 0, 7, 0, 0, 0, 12, 0, 0, 0, 0x10,
                                   'a', 0, 0xc0, 0x80, 0xff, 0xc3, 0xa9, '"' };
    memcpy(want + HEAD4_LEN, rec, sizeof rec);
    expect_bytes(text, want, HEAD4_LEN + sizeof rec);
    size_t tlen;
    char *back = disassemble(want, HEAD4_LEN + sizeof rec, &tlen);
    CU_ASSERT_PTR_NOT_NULL(strstr(back, "UTF8 time=7 id=0x10 \"a\\x00\\xc0\\x80\\xff\xc3\xa9\\\"\"\n"));
    free(back);
}

static void t_values(void)
{
    char text[1024];
    snprintf(text, sizeof text,
             "%sHEAP_DUMP_SEGMENT\n"
             "  PRIM_ARRAY_DUMP id=0x20 type=float\n"
             "    elems -0 nan:0x7fc00001 1.5 0.1\n"
             "  PRIM_ARRAY_DUMP id=0x21 type=boolean\n"
             "    elems 7 true false\n"
             "  PRIM_ARRAY_DUMP id=0x22 type=double count=9\n"
             "    elems -inf nan:0xfff0000000000001\n",
             head4);
    static const uint8_t seg[] = {
        0x1c, 0, 0, 0, 0, 0, 0, 0, 77,
        0x23, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 4, 6,
        0x80, 0, 0, 0, 0x7f, 0xc0, 0, 1, 0x3f, 0xc0, 0, 0, 0x3d, 0xcc, 0xcc, 0xcd,
        0x23, 0, 0, 0, 0x21, 0, 0, 0, 0, 0, 0, 0, 3, 4, 7, 1, 0,
        0x23, 0, 0, 0, 0x22, 0, 0, 0, 0, 0, 0, 0, 9, 7,
        0xff, 0xf0, 0, 0, 0, 0, 0, 0, 0xff, 0xf0, 0, 0, 0, 0, 0, 1,
    };
    uint8_t want[256];
    memcpy(want, head4_bytes, HEAD4_LEN);
    memcpy(want + HEAD4_LEN, seg, sizeof seg);
    expect_bytes(text, want, HEAD4_LEN + sizeof seg);
    size_t tlen;
    char *back = disassemble(want, HEAD4_LEN + sizeof seg, &tlen);
    CU_ASSERT_PTR_NOT_NULL(strstr(back, "    elems -0 nan:0x7fc00001 1.5 0.1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(back, "  data 070100\n"));
    /* the declared count (9) is more than the segment holds: from that
     * sub-record on, the rest of the record is raw */
    CU_ASSERT_PTR_NOT_NULL(strstr(back, "    data 070100\n  raw 2300000022000000000000000907\n"
                                        "  raw fff0000000000000fff0000000000001\n"));
    CU_ASSERT_EQUAL(round_trip(want, HEAD4_LEN + sizeof seg), 1);
    free(back);
}

static void t_lengths(void)
{
    char text[512];
    snprintf(text, sizeof text,
             "%sLOAD_CLASS serial=1 class=0x30 trace=0 name=0x10 length=5\n"
             "TRACE serial=2 thread=3 count=7\n  frame id=0x40\n"
             "record tag=0x99 time=1\n  raw 0102 03\n"
             "end\nraw ff\n",
             head4);
    static const uint8_t recs[] = {
        0x02, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0x30, 0, 0, 0, 0, 0, 0, 0, 0x10,
        0x05, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 7, 0, 0, 0, 0x40,
        0x99, 0, 0, 0, 1, 0, 0, 0, 3, 1, 2, 3,
        0xff,
    };
    uint8_t want[256];
    memcpy(want, head4_bytes, HEAD4_LEN);
    memcpy(want + HEAD4_LEN, recs, sizeof recs);
    expect_bytes(text, want, HEAD4_LEN + sizeof recs);
    CU_ASSERT_EQUAL(round_trip(want, HEAD4_LEN + sizeof recs), 1);
}

static void t_instance_values(void)
{
    char text[2048];
    snprintf(text, sizeof text,
             "%sUTF8 id=0x1 \"x\"\nUTF8 id=0x2 \"y\"\n"
             "HEAP_DUMP\n"
             "  CLASS_DUMP id=0x100 size=5\n    field name=0x1 type=int\n"
             "  CLASS_DUMP id=0x200 super=0x100 size=11\n"
             "    static name=0x2 type=short value=-2\n"
             "    field name=0x1 type=short\n    field name=0x2 type=byte\n"
             "  INSTANCE_DUMP id=0x300 class=0x200\n    values y=-1 x=2 x=0x10203040\n"
             "  INSTANCE_DUMP id=0x301 class=0x200\n"
             "  INSTANCE_DUMP id=0x302 class=0x999\n    data 0102\n",
             head4);
    membuf out;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(assemble(text, strlen(text), &out, err, sizeof err), 0);
    /* header + 2 UTF8 (14 + 14) + record header 9 + class 0x100 (1+36+2+2+2+5=48)
     * + class 0x200 (1+36+2+2+7+2+10=60) + 3 instances (17+7, 17+7, 17+2) */
    CU_ASSERT_EQUAL(out.n, HEAD4_LEN + 28 + 9 + 48 + 60 + 24 + 24 + 19);
    /* layout: x short, y byte (0x200), then x int (0x100) */
    static const uint8_t inst[] = { 0x21, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 7,
                                    0, 2, 0xff, 0x10, 0x20, 0x30, 0x40 };
    CU_ASSERT(out.n > 200 && memcmp(out.p + HEAD4_LEN + 28 + 9 + 48 + 60, inst, sizeof inst) == 0);
    CU_ASSERT_EQUAL(round_trip(out.p, out.n), 1);
    size_t tlen;
    char *back = disassemble(out.p, out.n, &tlen);
    CU_ASSERT_PTR_NOT_NULL(strstr(back, "    values x=2 y=-1 x=270544960\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(back, "    values x=0 y=0 x=0\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(back, "    data 0102\n"));
    free(back);
    free(out.p);
}

/* An instance of a class without fields: the layout has no slots (no
 * buffers at all) and the instance is its 17-byte head only. */
static void t_no_fields(void)
{
    char text[512];
    snprintf(text, sizeof text,
             "%sHEAP_DUMP\n  CLASS_DUMP id=0x100\n  INSTANCE_DUMP id=0x1 class=0x100\n", head4);
    membuf out;
    char err[256] = "";
    CU_ASSERT_EQUAL_FATAL(assemble(text, strlen(text), &out, err, sizeof err), 0);
    /* record header 9 + class (1+36+2+2+2 = 43) + instance (1+4+4+4+4 = 17) */
    CU_ASSERT_EQUAL(out.n, HEAD4_LEN + 9 + 43 + 17);
    static const uint8_t inst[] = { 0x21, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0 };
    CU_ASSERT(out.n == HEAD4_LEN + 69 && memcmp(out.p + HEAD4_LEN + 52, inst, sizeof inst) == 0);
    CU_ASSERT_EQUAL(round_trip(out.p, out.n), 1);
    free(out.p);
}

static void t_not_hprof(void)
{
    static const uint8_t junk[] = "JAVA PROFILE 1.0.2 without its NUL";
    CU_ASSERT_EQUAL(round_trip(junk, sizeof junk - 1), 1);
    CU_ASSERT_EQUAL(round_trip(junk, 0), 1);
    static const uint8_t idsz3[] = "JAVA PROFILE 1.0.2\0\0\0\0\3\0\0\0\0\0\0\0\0\1\2\3";
    CU_ASSERT_EQUAL(round_trip(idsz3, sizeof idsz3 - 1), 1);
    uint8_t all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (uint8_t)i;
    CU_ASSERT_EQUAL(round_trip(all, sizeof all), 1);
}

static void expect_error(const char *text, const char *msg)
{
    membuf out;
    char err[256] = "";
    int rc = assemble(text, strlen(text), &out, err, sizeof err);
    CU_ASSERT_EQUAL(rc, 1);
    if (!strstr(err, msg))
        fprintf(stderr, "expected '%s' in '%s'\n", msg, err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
    free(out.p);
}

static void t_errors(void)
{
    expect_error("LOAD_CLASS serial=1\n", "t:1: records need a header");
    expect_error("header \"JAVA PROFILE 1.0.2\" id-size=8\nFOO\n", "t:2: unknown keyword 'FOO'");
    expect_error("header \"JAVA PROFILE 1.0.2\" id-size=4\nUTF8 id=0x100000000 \"a\"\n",
                 "t:2: id=0x100000000: number out of range");
    expect_error("header \"J\" id-size=8\nHEAP_DUMP\n INSTANCE_DUMP id=1 class=2\n  values a=1\n",
                 "t:4: values need the CLASS_DUMP of class 0x2");
    expect_error("header \"J\" id-size=8\nUTF8 id=1 \"abc\n", "t:2: string without its closing quote");
    expect_error("header \"J\" id-size=8\nHEAP_DUMP\n PRIM_ARRAY_DUMP type=int\n data 010203\n",
                 "t:4: PRIM_ARRAY_DUMP: 3 data bytes are not whole elements of 4 bytes");
    expect_error("raw 0g\n", "t:1: '0g': expected hex bytes");
    expect_error("header \"J\" id-size=8\nrepeat 3 CLASS_DUMP\n", "t:2: CLASS_DUMP outside a HEAP_DUMP");
    expect_error("repeat 3 repeat 3 raw 00\n", "t:1: repeat N LINE...: not nested");
    expect_error("repeat 16777216 raw 00\nrepeat 1 raw 00\n", "t:2: repeat N LINE...: not nested, up to 16777216 lines in all");
}

/* A fixture from the hprof tool, cut at every offset and with bytes flipped. */
static void t_damage(void)
{
    char path[] = "/tmp/test_asm_XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "'%s' fixture %s --objects 10 --id-size 4 --segment-size 1024 --android >/dev/null",
             HPROF_TOOL, path);
    CU_ASSERT_FATAL(system(cmd) == 0);
    FILE *f = fopen(path, "rb");
    CU_ASSERT_FATAL(f != NULL);
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    unlink(path);
    CU_ASSERT_FATAL(n > 10000 && n < sizeof buf);
    size_t ok = 0, runs = 0;
    for (size_t cut = 0; cut <= n; cut++, runs++)
        ok += (size_t)round_trip(buf, cut);
    CU_ASSERT_EQUAL(ok, runs);
    ok = runs = 0;
    for (size_t at = 0; at < n; at += 3, runs++) {
        uint8_t was = buf[at];
        buf[at] ^= (uint8_t)(1u << (at % 8)) | 0x80;
        ok += (size_t)round_trip(buf, n);
        buf[at] = was;
    }
    CU_ASSERT_EQUAL(ok, runs);
    CU_ASSERT_EQUAL(runs, (n + 2) / 3);
}

/* hasm_disasm_path of `n` bytes written to a file: its status, the text
 * in *text (freed by the caller), the message in err. */
static int disasm_file(const uint8_t *p, size_t n, char **text, size_t *tlen, char *err,
                       size_t errlen)
{
    char path[] = "/tmp/test_asm_XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, p, n) == (ssize_t)n);
    close(fd);
    *text = NULL;
    FILE *f = open_memstream(text, tlen);
    CU_ASSERT_FATAL(f != NULL);
    err[0] = 0;
    int rc = hasm_disasm_path(path, f, err, errlen);
    fclose(f);
    unlink(path);
    return rc;
}

/* Inflates gzip bytes as far as they go: the count written to out. */
static size_t gunzip(const uint8_t *p, size_t n, uint8_t *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    CU_ASSERT_FATAL(inflateInit2(&z, 16 + MAX_WBITS) == Z_OK);
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    while (inflate(&z, Z_NO_FLUSH) == Z_OK && z.avail_in > 0 && z.avail_out > 0)
        ;
    size_t got = cap - z.avail_out;
    inflateEnd(&z);
    return got;
}

/* Files that start with gzip's magic 1f 8b but are not gzip (method 7, a
 * reserved flag, cut inside the 10-byte header): plain input, the text
 * has no `gzip` line and gives the same bytes back, status 0. */
static void t_gzip_magic_not_gzip(void)
{
    static const uint8_t m7[] = {0x1f, 0x8b, 0x07, 0x00, 'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o'};
    static const uint8_t flag[] = {0x1f, 0x8b, 0x08, 0xe0, 0, 0, 0, 0, 0, 3, 'x', 'y'};
    static const uint8_t short9[] = {0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0};
    const uint8_t *files[] = {m7, flag, short9};
    size_t lens[] = {sizeof m7, sizeof flag, sizeof short9};
    for (size_t i = 0; i < 3; i++) {
        char *text, err[256];
        size_t tlen;
        CU_ASSERT_EQUAL(disasm_file(files[i], lens[i], &text, &tlen, err, sizeof err), 0);
        CU_ASSERT_PTR_NULL(strstr(text, "\ngzip"));
        membuf out;
        char aerr[256] = "";
        CU_ASSERT_EQUAL(assemble(text, tlen, &out, aerr, sizeof aerr), 0);
        CU_ASSERT(out.n == lens[i] && memcmp(out.p, files[i], lens[i]) == 0);
        free(out.p);
        free(text);
    }
}

/* A gzip file whole, then cut in the middle of its deflate stream: the
 * text of the bytes it gives (exactly those zlib can inflate), a comment
 * saying so at its end, status -1 with the count in the message. */
static void t_gzip_cut(void)
{
    enum { NSTR = 4000 };
    static uint8_t plain[HEAD4_LEN + 9 + 4 + NSTR];
    memcpy(plain, head4_bytes, HEAD4_LEN);
    static const uint8_t rh[] = {0x01, 0, 0, 0, 0, 0, 0, (4 + NSTR) >> 8, (4 + NSTR) & 0xff, 0, 0, 0, 1};
    memcpy(plain + HEAD4_LEN, rh, sizeof rh);
    uint32_t x = 12345;
    for (size_t i = 0; i < NSTR; i++) { /* letters, not compressible to nothing */
        x = x * 1103515245u + 12345u;
        plain[HEAD4_LEN + sizeof rh + i] = (uint8_t)('a' + (x >> 16) % 26);
    }
    static uint8_t gz[8192];
    z_stream z;
    memset(&z, 0, sizeof z);
    CU_ASSERT_FATAL(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    z.next_in = plain;
    z.avail_in = sizeof plain;
    z.next_out = gz;
    z.avail_out = sizeof gz;
    CU_ASSERT_FATAL(deflate(&z, Z_FINISH) == Z_STREAM_END);
    size_t gn = sizeof gz - z.avail_out;
    deflateEnd(&z);

    char *text, err[256];
    size_t tlen;
    CU_ASSERT_EQUAL(disasm_file(gz, gn, &text, &tlen, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\ngzip  # the input was gzip-compressed"));
    CU_ASSERT_PTR_NULL(strstr(text, "cut short"));
    free(text);

    size_t cut = gn / 2;
    static uint8_t part[sizeof plain];
    size_t pn = gunzip(gz, cut, part, sizeof part);
    CU_ASSERT_FATAL(pn > HEAD4_LEN && pn < sizeof plain);
    CU_ASSERT(memcmp(part, plain, pn) == 0);
    CU_ASSERT_EQUAL(disasm_file(gz, cut, &text, &tlen, err, sizeof err), -1);
    char want[200];
    snprintf(want, sizeof want, ": gzip input: unexpected end of file (the text holds the %zu "
             "uncompressed bytes before it)", pn);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    snprintf(want, sizeof want, "\n# the gzip stream is cut short: this text ends with the %zu "
             "bytes it gave\n", pn);
    CU_ASSERT(tlen > strlen(want) && strcmp(text + tlen - strlen(want), want) == 0);
    /* asm writes gzip again: those bytes, uncompressed */
    membuf out;
    char aerr[256] = "";
    CU_ASSERT_EQUAL(assemble(text, tlen, &out, aerr, sizeof aerr), 0);
    static uint8_t back[sizeof plain];
    CU_ASSERT_EQUAL(gunzip(out.p, out.n, back, sizeof back), pn);
    CU_ASSERT(memcmp(back, plain, pn) == 0);
    free(out.p);
    free(text);
}

/* A heap dump record past 16 MiB on an output that seeks: written as it
 * grows, its length patched; the bytes are those of the buffered way. */
static void t_seek(void)
{
    static const char *const texts[] = {
        "header \"JAVA PROFILE 1.0.1\" id-size=8\nHEAP_DUMP time=3\n"
        "repeat 1000000 ROOT_JNI_GLOBAL id=0x1 ref=0x2\nUTF8 id=1 \"x\"\n",
        "header \"JAVA PROFILE 1.0.1\" id-size=8\nHEAP_DUMP length=5\n"
        "repeat 1000000 ROOT_JNI_GLOBAL id=0x1 ref=0x2\n",
    };
    for (size_t i = 0; i < 2; i++) {
        membuf plain, sought;
        char err[256] = "";
        CU_ASSERT_EQUAL(assemble(texts[i], strlen(texts[i]), &plain, err, sizeof err), 0);
        memset(&sought, 0, sizeof sought);
        sought.seeking = 1;
        FILE *in = fmemopen((void *)texts[i], strlen(texts[i]), "r");
        CU_ASSERT_FATAL(in != NULL);
        CU_ASSERT_EQUAL(hasm_asm_stream_seek(in, "t", mem_write, mem_seek, &sought, err, sizeof err), 0);
        fclose(in);
        size_t want = 31 + 9 + 17000000u + (i == 0 ? 9 + 8 + 1 : 0);
        CU_ASSERT_EQUAL(plain.n, want);
        CU_ASSERT_EQUAL(sought.n, want);
        CU_ASSERT(plain.n == sought.n && memcmp(plain.p, sought.p, plain.n) == 0);
        /* the length field: 17 000 000 computed, or the 5 given */
        CU_ASSERT_EQUAL(sought.n > 40 ? (sought.p[36] << 24 | sought.p[37] << 16 | sought.p[38] << 8 | sought.p[39]) : -1,
                        i == 0 ? 17000000 : 5);
        free(plain.p);
        free(sought.p);
    }
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("asm", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "strings", t_strings) || !CU_add_test(s, "values", t_values) ||
        !CU_add_test(s, "lengths", t_lengths) || !CU_add_test(s, "instance values", t_instance_values) ||
        !CU_add_test(s, "no fields", t_no_fields) ||
        !CU_add_test(s, "not hprof", t_not_hprof) || !CU_add_test(s, "errors", t_errors) ||
        !CU_add_test(s, "damage", t_damage) ||
        !CU_add_test(s, "1f 8b but not gzip: plain", t_gzip_magic_not_gzip) ||
        !CU_add_test(s, "gzip cut short", t_gzip_cut) || !CU_add_test(s, "seekable output", t_seek))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
