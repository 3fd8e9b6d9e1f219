/*
 * web_embed.c: build-time generator of web_assets.c (see web_assets.h).
 *
 * Usage: web_embed report.html report.css report.js OUT.c
 * The HTML template holds the placeholders {{CSS}} and {{JS}} (replaced by
 * the files, inlined) and {{TITLE}} and {{DATA}} (where web_page_write puts
 * the title and the data: the template is cut there). The build fails
 * (status 1, a message) on a missing placeholder, on an asset that could end
 * its element early ("</" in the script, "</style" in the stylesheet) and on
 * any network reference: the page must work offline, from disk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    char *p;
    size_t n;
} web_embed_buf;

static int web_embed_read(const char *path, web_embed_buf *b)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "web_embed: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 65536;
    b->p = malloc(cap + 1);
    b->n = 0;
    size_t got;
    while (b->p != NULL && (got = fread(b->p + b->n, 1, cap - b->n, f)) > 0) {
        b->n += got;
        if (b->n == cap) {
            cap *= 2;
            char *q = realloc(b->p, cap + 1);
            if (q == NULL)
                free(b->p);
            b->p = q;
        }
    }
    int bad = b->p == NULL || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "web_embed: %s: read failed\n", path);
        return -1;
    }
    b->p[b->n] = '\0';
    if (strlen(b->p) != b->n) {
        fprintf(stderr, "web_embed: %s: holds a NUL byte\n", path);
        return -1;
    }
    return 0;
}

static const char *web_embed_find_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay != '\0'; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return hay;
    return NULL;
}

static int web_embed_check(const char *path, const char *text, const char *forbidden)
{
    static const char *const net[] = {"http:", "https:", "//cdn", "ws://", "wss://", "ftp:"};
    for (size_t i = 0; i < sizeof net / sizeof net[0]; i++)
        if (web_embed_find_ci(text, net[i]) != NULL) {
            fprintf(stderr, "web_embed: %s: holds a network reference (\"%s\")\n", path, net[i]);
            return -1;
        }
    if (forbidden != NULL && web_embed_find_ci(text, forbidden) != NULL) {
        fprintf(stderr, "web_embed: %s: holds \"%s\", which would end its element\n", path,
                forbidden);
        return -1;
    }
    return 0;
}

/* Appends s[0..n) to out. */
static int web_embed_cat(web_embed_buf *out, const char *s, size_t n)
{
    char *q = realloc(out->p, out->n + n + 1);
    if (q == NULL)
        return -1;
    memcpy(q + out->n, s, n);
    out->p = q;
    out->n += n;
    out->p[out->n] = '\0';
    return 0;
}

/* The template with {{CSS}} and {{JS}} inlined. */
static int web_embed_inline(const web_embed_buf *html, const web_embed_buf *css,
                            const web_embed_buf *js, web_embed_buf *out)
{
    out->p = NULL;
    out->n = 0;
    const char *s = html->p;
    for (;;) {
        const char *c = strstr(s, "{{CSS}}");
        const char *j = strstr(s, "{{JS}}");
        const char *next = c != NULL && (j == NULL || c < j) ? c : j;
        if (next == NULL)
            return web_embed_cat(out, s, strlen(s));
        if (web_embed_cat(out, s, (size_t)(next - s)) != 0)
            return -1;
        if (next == c) {
            if (web_embed_cat(out, css->p, css->n) != 0)
                return -1;
            s = next + 7;
        } else {
            if (web_embed_cat(out, js->p, js->n) != 0)
                return -1;
            s = next + 6;
        }
    }
}

static void web_embed_emit(FILE *f, const char *name, const char *p, size_t n)
{
    fprintf(f, "const unsigned char %s[] = {", name);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s0x%02x,", i % 16 == 0 ? "\n    " : "", (unsigned char)p[i]);
    fprintf(f, "\n    0x00\n};\nconst size_t %s_len = %zu;\n\n", name, n);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: web_embed report.html report.css report.js OUT.c\n");
        return 2;
    }
    web_embed_buf html, css, js, page;
    if (web_embed_read(argv[1], &html) != 0 || web_embed_read(argv[2], &css) != 0 ||
        web_embed_read(argv[3], &js) != 0)
        return 1;
    if (web_embed_check(argv[1], html.p, NULL) != 0 ||
        web_embed_check(argv[2], css.p, "</style") != 0 ||
        web_embed_check(argv[3], js.p, "</") != 0)
        return 1;
    if (web_embed_inline(&html, &css, &js, &page) != 0) {
        fprintf(stderr, "web_embed: out of memory\n");
        return 1;
    }
    char *t = strstr(page.p, "{{TITLE}}");
    char *d = t != NULL ? strstr(t, "{{DATA}}") : NULL;
    if (t == NULL || d == NULL || strstr(d + 8, "{{") != NULL) {
        fprintf(stderr, "web_embed: %s: needs {{TITLE}} then {{DATA}}, once each\n", argv[1]);
        return 1;
    }
    FILE *f = fopen(argv[4], "w");
    if (f == NULL) {
        fprintf(stderr, "web_embed: %s: %s\n", argv[4], strerror(errno));
        return 1;
    }
    fprintf(f, "/* Generated by web_embed from web/assets: do not edit. */\n"
               "#include \"web_assets.h\"\n\n");
    web_embed_emit(f, "web_assets_head", page.p, (size_t)(t - page.p));
    web_embed_emit(f, "web_assets_mid", t + 9, (size_t)(d - (t + 9)));
    web_embed_emit(f, "web_assets_tail", d + 8, strlen(d + 8));
    if (fclose(f) != 0) {
        fprintf(stderr, "web_embed: %s: %s\n", argv[4], strerror(errno));
        return 1;
    }
    free(html.p);
    free(css.p);
    free(js.p);
    free(page.p);
    return 0;
}
