/*
 * heapcmd.c: the shared parts of the heap graph commands (heapcmd.h).
 */
#include "heapcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file is read through the reader's window (read(2)), not mapped: the
 * pages of a mapped 1.3 GB dump would count in the process's resident set
 * for as long as the mapping lives, on top of the graph's own memory. */
static hr_source *heapcmd_open(const char *path, int *fd, int *err)
{
    if (strcmp(path, "-") == 0) {
        /* the graph is read in two passes (and path names its steps in a
         * third): a pipe is refused now, not after a whole first pass */
        *fd = -1;
        if (lseek(0, 0, SEEK_CUR) < 0) {
            *err = ESPIPE;
            return NULL;
        }
        return hr_source_fd(0, err);
    }
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0) {
        *err = errno;
        return NULL;
    }
    struct stat st;
    if (fstat(*fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(*fd);
        *fd = -1;
        *err = EISDIR;
        return NULL;
    }
    hr_source *s = hr_source_fd(*fd, err);
    if (!s) {
        close(*fd);
        *fd = -1;
    }
    return s;
}

void heapcmd_close(hr_source *src, int fd)
{
    if (src)
        hr_source_close(src);
    if (fd >= 0)
        close(fd);
}

hg_graph *heapcmd_load(const char *cmd, const char *path, const hg_load_opts *o,
                       hg_load_stats *st, hr_source **src, int *fd, int *status)
{
    int err = 0;
    *status = 1;
    *src = heapcmd_open(path, fd, &err);
    if (!*src) {
        if (err == ESPIPE)
            fprintf(stderr, "hprof: %s: the standard input is a pipe; the analysis reads the dump "
                            "more than once: give a file (or '- < FILE')\n", cmd);
        else
            fprintf(stderr, "hprof: %s: cannot open %s: %s\n", cmd, path, strerror(err));
        return NULL;
    }
    char msg[512];
    hg_graph *g = NULL;
    hg_status rc = hg_graph_load(*src, o, &g, st, msg, sizeof msg);
    if (rc != HG_OK) {
        fprintf(stderr, "hprof: %s: %s: %s\n", cmd, path, msg);
        if (rc == HG_MEMORY)
            fprintf(stderr, "hprof: %s: give more with --max-memory SIZE if the machine has it\n", cmd);
        heapcmd_close(*src, *fd);
        *src = NULL;
        *fd = -1;
        return NULL;
    }
    *status = 0;
    return g;
}

int heapcmd_notes(const char *cmd, const char *path, const hg_load_stats *st)
{
    if (st->dangling_refs || st->dangling_roots)
        fprintf(stderr,
                "hprof: %s: note: %" PRIu64 " references and %" PRIu64
                " roots name ids that no record of the dump defines; skipped\n",
                cmd, st->dangling_refs, st->dangling_roots);
    if (st->duplicates)
        fprintf(stderr, "hprof: %s: note: %" PRIu64 " object records repeat an id; the first kept\n",
                cmd, st->duplicates);
    if (st->malformed) {
        fprintf(stderr,
                "hprof: %s: %s is cut short or malformed (%s); the analysis covers what could be "
                "read (run 'hprof verify %s')\n",
                cmd, path, st->problem[0] ? st->problem : "see hprof verify", path);
        return 1;
    }
    return 0;
}

void heapcmd_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

uint64_t heapcmd_parse_size(const char *s)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9') /* strtoull would take " -1" as 2^64 - 1 */
        return 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1u << 10;
    else if (*end == 'M' || *end == 'm')
        mul = 1u << 20;
    else if (*end == 'G' || *end == 'g')
        mul = 1u << 30;
    else if (*end)
        return 0;
    if (*end && end[1])
        return 0;
    if (v > UINT64_MAX / mul)
        return 0;
    return (uint64_t)v * mul;
}

uint32_t heapcmd_parse_count(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v <= 0 || v > 1000000)
        return 0;
    return (uint32_t)v;
}
