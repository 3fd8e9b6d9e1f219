/* rj_json.c: the report's JSON writer (rj_json.h): a growing buffer, a
 * stack of "first element?" flags for the commas, the escaping the page's
 * <script> embedding needs (Java's modified UTF-8 read as the characters it
 * stands for, anything else invalid as U+FFFD), and locale-free numbers. */
#include "rj_json.h"

#include <stdlib.h>
#include <string.h>

#define RJ_DEPTH 64

struct rj {
    char *buf;
    size_t len, cap;
    int failed;
    int depth;
    unsigned char first[RJ_DEPTH]; /* 1: nothing written yet at this level */
    int after_key;
    uint64_t clamped;
};

rj *rj_new(void)
{
    return calloc(1, sizeof(rj));
}

void rj_free(rj *j)
{
    if (j)
        free(j->buf);
    free(j);
}

static void rj_put(rj *j, const char *s, size_t n)
{
    if (j->failed)
        return;
    if (j->len + n > j->cap) {
        size_t nc = j->cap ? j->cap : 4096;
        while (nc < j->len + n) {
            if (nc > SIZE_MAX / 2) {
                j->failed = 1;
                return;
            }
            nc *= 2;
        }
        char *b = realloc(j->buf, nc);
        if (!b) {
            j->failed = 1;
            return;
        }
        j->buf = b;
        j->cap = nc;
    }
    memcpy(j->buf + j->len, s, n);
    j->len += n;
}

static void rj_c(rj *j, char c)
{
    rj_put(j, &c, 1);
}

/* The separator before a value or key at the current level. */
static void rj_sep(rj *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth > 0) {
        if (!j->first[j->depth - 1])
            rj_c(j, ',');
        j->first[j->depth - 1] = 0;
    }
}

static void rj_open(rj *j, char c)
{
    rj_sep(j);
    rj_c(j, c);
    if (j->depth >= RJ_DEPTH) {
        j->failed = 1;
        return;
    }
    j->first[j->depth++] = 1;
}

static void rj_close(rj *j, char c)
{
    if (j->depth > 0)
        j->depth--;
    rj_c(j, c);
}

void rj_obj(rj *j) { rj_open(j, '{'); }
void rj_obj_end(rj *j) { rj_close(j, '}'); }
void rj_arr(rj *j) { rj_open(j, '['); }
void rj_arr_end(rj *j) { rj_close(j, ']'); }

static void rj_u4hex(rj *j, unsigned v)
{
    static const char hex[] = "0123456789abcdef";
    char b[6] = {'\\', 'u', hex[(v >> 12) & 15], hex[(v >> 8) & 15], hex[(v >> 4) & 15], hex[v & 15]};
    rj_put(j, b, 6);
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when invalid
 * (overlong forms, surrogates and values past U+10FFFF are invalid). */
static size_t rj_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t k;
    unsigned min;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        k = 2;
        min = 0x80;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        min = 0x800;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        min = 0x10000;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

/* Java's modified UTF-8, which HPROF names are in: a character past U+FFFF
 * is a surrogate pair of two 3-byte sequences, NUL is C0 80. The length of
 * such a form at s (6 or 2) with its code point in *cp, or 0. */
static size_t rj_mutf8_len(const unsigned char *s, size_t n, unsigned *cp)
{
    if (n >= 2 && s[0] == 0xC0 && s[1] == 0x80) {
        *cp = 0;
        return 2;
    }
    if (n >= 6 && s[0] == 0xED && (s[1] & 0xF0) == 0xA0 && (s[2] & 0xC0) == 0x80 &&
        s[3] == 0xED && (s[4] & 0xF0) == 0xB0 && (s[5] & 0xC0) == 0x80) {
        unsigned hi = 0xD000u | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
        unsigned lo = 0xD000u | ((s[4] & 0x3Fu) << 6) | (s[5] & 0x3Fu);
        *cp = 0x10000u + ((hi - 0xD800u) << 10) + (lo - 0xDC00u);
        return 6;
    }
    return 0;
}

static void rj_strbody(rj *j, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    rj_c(j, '"');
    while (i < len && !j->failed) {
        unsigned c = u[i];
        if (c == '"' || c == '\\') {
            char b[2] = {'\\', (char)c};
            rj_put(j, b, 2);
            i++;
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7F) {
            rj_u4hex(j, c);
            i++;
        } else if (c < 0x80) {
            size_t k = i;
            while (k < len && u[k] >= 0x20 && u[k] < 0x7F && u[k] != '"' && u[k] != '\\' &&
                   u[k] != '<' && u[k] != '>' && u[k] != '&')
                k++;
            rj_put(j, s + i, k - i);
            i = k;
        } else {
            size_t k = rj_utf8_len(u + i, len - i);
            unsigned cp;
            if (k) {
                rj_put(j, s + i, k);
                i += k;
            } else if ((k = rj_mutf8_len(u + i, len - i, &cp)) != 0) {
                if (cp == 0) {
                    rj_u4hex(j, 0);
                } else {
                    char b[4] = {(char)(0xF0 | (cp >> 18)), (char)(0x80 | ((cp >> 12) & 0x3F)),
                                 (char)(0x80 | ((cp >> 6) & 0x3F)), (char)(0x80 | (cp & 0x3F))};
                    rj_put(j, b, 4);
                }
                i += k;
            } else {
                rj_u4hex(j, 0xFFFD);
                i++;
            }
        }
    }
    rj_c(j, '"');
}

void rj_key(rj *j, const char *key)
{
    rj_sep(j);
    rj_strbody(j, key, strlen(key));
    rj_c(j, ':');
    j->after_key = 1;
}

void rj_str(rj *j, const char *s, size_t len)
{
    rj_sep(j);
    rj_strbody(j, s, len);
}

void rj_cstr(rj *j, const char *s)
{
    if (!s)
        rj_null(j);
    else
        rj_str(j, s, strlen(s));
}

static void rj_digits(rj *j, uint64_t v, int neg)
{
    char b[24];
    int n = 0;
    do {
        b[sizeof b - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (neg)
        b[sizeof b - 1 - n++] = '-';
    rj_put(j, b + sizeof b - n, (size_t)n);
}

void rj_u64(rj *j, uint64_t v)
{
    rj_sep(j);
    if (v > RJ_MAX_SAFE) {
        v = RJ_MAX_SAFE;
        j->clamped++;
    }
    rj_digits(j, v, 0);
}

void rj_i64(rj *j, int64_t v)
{
    rj_sep(j);
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (m > RJ_MAX_SAFE) {
        m = RJ_MAX_SAFE;
        j->clamped++;
    }
    rj_digits(j, m, v < 0);
}

void rj_fixed(rj *j, int64_t v, unsigned places)
{
    rj_sep(j);
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    uint64_t scale = 1;
    for (unsigned i = 0; i < places && i < 18; i++)
        scale *= 10;
    if (m / scale > RJ_MAX_SAFE) {
        m = RJ_MAX_SAFE * scale;
        j->clamped++;
    }
    rj_digits(j, m / scale, v < 0);
    if (places) {
        char b[20];
        uint64_t f = m % scale;
        for (unsigned i = places; i > 0; i--) {
            b[i] = (char)('0' + f % 10);
            f /= 10;
        }
        b[0] = '.';
        rj_put(j, b, places + 1);
    }
}

void rj_pct(rj *j, uint64_t part, uint64_t whole)
{
    /* in long double: exact enough for 2 decimals of any u64 ratio */
    long double r = whole ? (long double)part * 10000.0L / (long double)whole : 0.0L;
    rj_fixed(j, (int64_t)(r + 0.5L), 2);
}

void rj_null(rj *j)
{
    rj_sep(j);
    rj_put(j, "null", 4);
}

void rj_bool(rj *j, int b)
{
    rj_sep(j);
    if (b)
        rj_put(j, "true", 4);
    else
        rj_put(j, "false", 5);
}

int rj_failed(const rj *j)
{
    return j->failed;
}

uint64_t rj_clamped(const rj *j)
{
    return j->clamped;
}

const char *rj_text(const rj *j, size_t *len)
{
    *len = j->len;
    return j->buf ? j->buf : "";
}

/* ---------------------------------------------------- the report's TABLE */

/* Columns from "key|label|type" strings. */
static void rj_columns(rj *j, const char *const *spec, size_t n)
{
    rj_key(j, "columns");
    rj_arr(j);
    for (size_t i = 0; i < n; i++) {
        const char *a = strchr(spec[i], '|'), *b = a ? strchr(a + 1, '|') : NULL;
        if (!b)
            continue;
        rj_obj(j);
        rj_key(j, "key");
        rj_str(j, spec[i], (size_t)(a - spec[i]));
        rj_key(j, "label");
        rj_str(j, a + 1, (size_t)(b - a - 1));
        rj_key(j, "type");
        rj_cstr(j, b + 1);
        rj_obj_end(j);
    }
    rj_arr_end(j);
}

void rj_table_head(rj *j, const char *id, const char *title, const char *note,
                   const char *const *cols, size_t ncols)
{
    rj_obj(j);
    rj_key(j, "id");
    rj_cstr(j, id);
    rj_key(j, "title");
    rj_cstr(j, title);
    rj_key(j, "note");
    rj_cstr(j, note);
    rj_columns(j, cols, ncols);
    rj_key(j, "rows");
    rj_arr(j);
}
