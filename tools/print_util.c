/*
 * print_util.c: the parts of the text views (print.c) that need none of its
 * model: the VM-to-Java class name conversion, the TRACE line field, and
 * the copy of standard input that lets the two passes re-read it. Apart so
 * that print.c stays under the house limit of ~1500 lines.
 */
#include "print.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hprof/hprof_format.h"

static void print_put(char *out, size_t cap, size_t *n, const char *s, size_t k, int dots)
{
    for (size_t i = 0; i < k; i++, (*n)++)
        if (*n + 1 < cap)
            out[*n] = (dots && s[i] == '/') ? '.' : s[i];
}

static const char *print_prim_name(char c)
{
    switch (c) {
    case 'Z': return "boolean";
    case 'B': return "byte";
    case 'C': return "char";
    case 'S': return "short";
    case 'I': return "int";
    case 'J': return "long";
    case 'F': return "float";
    case 'D': return "double";
    default: return NULL;
    }
}

size_t print_java_name(const char *vm, size_t len, char *out, size_t cap)
{
    size_t n = 0, dims = 0;
    while (dims < len && vm[dims] == '[')
        dims++;
    const char *rest = vm + dims;
    size_t rlen = len - dims;
    int sig = rlen >= 2 && rest[0] == 'L' && rest[rlen - 1] == ';';
    const char *prim = rlen == 1 ? print_prim_name(rest[0]) : NULL;
    if (dims && prim) {
        print_put(out, cap, &n, prim, strlen(prim), 0);
    } else if (sig) {
        /* a class name cannot end in ';', so "Lx;" is always a signature */
        print_put(out, cap, &n, rest + 1, rlen - 2, 1);
    } else {
        /* not a descriptor ("java.lang.String", "int[]", or garbage such as
         * "[Q"): keep it as written, with slashes as dots */
        dims = 0;
        print_put(out, cap, &n, vm, len, 1);
    }
    for (size_t d = 0; d < dims; d++)
        print_put(out, cap, &n, "[]", 2, 0);
    if (cap)
        out[n < cap ? n : cap - 1] = 0;
    return n;
}

const char *print_line_text(int32_t line, char *buf, size_t cap)
{
    switch (line) {
    case HPROF_LINE_UNKNOWN: return "Unknown line";
    case HPROF_LINE_COMPILED: return "Compiled method";
    case HPROF_LINE_NATIVE: return "Native method";
    default:
        snprintf(buf, cap, "%" PRId32, line);
        return buf;
    }
}

/* ------------------------------------------------------ standard input */

/* Copies standard input to a temporary file, as pass 2 must re-read it.
 * Returns the malloc'ed path, or NULL with a message. */
char *print_spool_stdin(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + 32;
    char *path = malloc(n);
    if (!path) {
        fprintf(stderr, "hprof: out of memory\n");
        return NULL;
    }
    snprintf(path, n, "%s/hprof-print-XXXXXX", dir);
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "hprof: cannot create a temporary copy of standard input in %s: %s\n", dir,
                strerror(errno));
        free(path);
        return NULL;
    }
    char buf[65536];
    int err = 0;
    for (;;) {
        ssize_t r = read(0, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            err = r < 0 ? errno : 0;
            break;
        }
        for (ssize_t w = 0; w < r;) {
            ssize_t k = write(fd, buf + w, (size_t)(r - w));
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0) {
                err = errno;
                break;
            }
            w += k;
        }
        if (err)
            break;
    }
    if (close(fd) != 0 && !err)
        err = errno;
    if (err) {
        fprintf(stderr, "hprof: cannot copy standard input to %s: %s\n", path, strerror(err));
        unlink(path);
        free(path);
        return NULL;
    }
    return path;
}
