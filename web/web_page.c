/*
 * web_page.c: writes the report's self-contained HTML page (web_page.h).
 *
 * The template comes from web_assets.c (generated at build time). The data
 * is checked before anything is written, so a refused document leaves the
 * stream untouched.
 */
#include "web_page.h"

#include <errno.h>
#include <string.h>

#include "web_assets.h"

/* "</" anywhere (or a NUL) could end the data's script element early or
 * cut the page: refuse it rather than write a page that breaks. */
static int web_page_data_ok(const char *json, size_t len)
{
    if (json == NULL && len > 0)
        return 0;
    if (len > 0 && memchr(json, '\0', len) != NULL)
        return 0;
    for (size_t i = 0; i + 1 < len; i++)
        if (json[i] == '<' && json[i + 1] == '/')
            return 0;
    return 1;
}

static void web_page_put(FILE *out, const void *p, size_t n)
{
    if (n > 0)
        fwrite(p, 1, n, out);
}

static void web_page_put_escaped(FILE *out, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out); break;
        }
    }
}

int web_page_write(FILE *out, const char *json, size_t len, const char *title)
{
    if (out == NULL || !web_page_data_ok(json, len)) {
        errno = EINVAL;
        return -1;
    }
    errno = 0;
    web_page_put(out, web_assets_head, web_assets_head_len);
    web_page_put_escaped(out, title != NULL ? title : "hprof report");
    web_page_put(out, web_assets_mid, web_assets_mid_len);
    web_page_put(out, json, len);
    web_page_put(out, web_assets_tail, web_assets_tail_len);
    if (ferror(out)) {
        if (errno == 0)
            errno = EIO;
        return -1;
    }
    return 0;
}
