/*
 * hasm_lex.c: the tokenizer of the HPROF text form (see hasm_lex.h).
 */
#include "hasm_lex.h"

#include <stdlib.h>
#include <string.h>

struct hasm_lex {
    hasm_tok *toks;
    size_t cap;
};

hasm_lex *hasm_lex_init(void)
{
    return calloc(1, sizeof(hasm_lex));
}

void hasm_lex_cleanup(hasm_lex *lx)
{
    if (lx)
        free(lx->toks);
    free(lx);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes the string starting after its opening quote at *pp, in place;
 * leaves *pp after the closing quote. */
static int lex_string(char **pp, hasm_tok *t, const char **why)
{
    char *r = *pp, *w = *pp;
    t->val = w;
    for (;;) {
        char c = *r++;
        if (c == '\0' || c == '\n') {
            *why = "string without its closing quote";
            return -1;
        }
        if (c == '"')
            break;
        if (c != '\\') {
            *w++ = c;
            continue;
        }
        c = *r++;
        switch (c) {
        case '"': case '\\': *w++ = c; break;
        case 'n': *w++ = '\n'; break;
        case 't': *w++ = '\t'; break;
        case 'r': *w++ = '\r'; break;
        case '0': *w++ = '\0'; break;
        case 'x': {
            int h = hexval(r[0]), l = h < 0 ? -1 : hexval(r[1]);
            if (l < 0) {
                *why = "\\x needs two hex digits";
                return -1;
            }
            *w++ = (char)(h * 16 + l);
            r += 2;
            break;
        }
        default:
            *why = "unknown escape in a string (known: \\\" \\\\ \\n \\t \\r \\0 \\xHH)";
            return -1;
        }
    }
    t->len = (size_t)(w - t->val);
    *w = '\0'; /* w < r: the closing quote's place at the latest */
    t->quoted = 1;
    *pp = r;
    return 0;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

long hasm_lex_line(hasm_lex *lx, char *line, hasm_tok **toks, const char **why)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (*p == '\0' || *p == '#')
            break;
        if (n == lx->cap) {
            size_t cap = lx->cap ? lx->cap * 2 : 64;
            hasm_tok *t = realloc(lx->toks, cap * sizeof *t);
            if (!t) {
                *why = "out of memory";
                return -1;
            }
            lx->toks = t;
            lx->cap = cap;
        }
        hasm_tok *t = &lx->toks[n++];
        memset(t, 0, sizeof *t);
        if (*p == '"') {
            p++;
            if (lex_string(&p, t, why) < 0)
                return -1;
            if (*p != '\0' && !is_blank(*p)) {
                *why = "a string must be followed by a blank";
                return -1;
            }
        } else {
            char *start = p;
            while (*p && !is_blank(*p) && *p != '=' && *p != '"')
                p++;
            if (*p == '=' && p > start) {
                *p++ = '\0';
                t->key = start;
                if (*p == '"') {
                    p++;
                    if (lex_string(&p, t, why) < 0)
                        return -1;
                    if (*p != '\0' && !is_blank(*p)) {
                        *why = "a string must be followed by a blank";
                        return -1;
                    }
                    if (*p)
                        *p++ = '\0';
                    continue;
                }
                start = p;
            }
            while (*p && !is_blank(*p))
                p++;
            t->val = start;
            t->len = (size_t)(p - start);
            if (*p)
                *p++ = '\0';
            if (!t->key && strchr(t->val, '"')) {
                *why = "a quote inside a word";
                return -1;
            }
            continue;
        }
        if (*p)
            *p++ = '\0';
    }
    *toks = lx->toks;
    return (long)n;
}
