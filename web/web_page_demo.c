/*
 * web_page_demo.c: the page's dev driver: a report data document (JSON, as
 * `hprof report --json` writes it) -> the HTML page, so the page can be
 * tried and tested end to end on hand-made or generated data.
 *
 * Usage: web_page_demo IN.json OUT.html [TITLE]
 * Exit status 0, 1 (input or output problem, a message), 2 (usage).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web_page.h"

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: web_page_demo IN.json OUT.html [TITLE]\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (in == NULL) {
        fprintf(stderr, "web_page_demo: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    size_t cap = 1 << 20, n = 0, got;
    char *buf = malloc(cap);
    while (buf != NULL && (got = fread(buf + n, 1, cap - n, in)) > 0) {
        n += got;
        if (n == cap) {
            char *q = realloc(buf, cap *= 2);
            if (q == NULL)
                free(buf);
            buf = q;
        }
    }
    int bad = buf == NULL || ferror(in);
    fclose(in);
    if (bad) {
        fprintf(stderr, "web_page_demo: %s: read failed\n", argv[1]);
        free(buf);
        return 1;
    }
    FILE *out = fopen(argv[2], "w");
    if (out == NULL) {
        fprintf(stderr, "web_page_demo: %s: %s\n", argv[2], strerror(errno));
        free(buf);
        return 1;
    }
    int rc = web_page_write(out, buf, n, argc == 4 ? argv[3] : argv[1]);
    int err = errno;
    free(buf);
    if (fclose(out) != 0 && rc == 0) {
        rc = -1;
        err = errno;
    }
    if (rc != 0) {
        fprintf(stderr, "web_page_demo: %s: %s\n", argv[2],
                err == EINVAL ? "the data holds \"</\" (unescaped): refused" : strerror(err));
        return 1;
    }
    return 0;
}
