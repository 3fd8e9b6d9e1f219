/*
 * asm.c: `hprof disasm FILE [-o OUT]` and `hprof asm TEXT [-o OUT]`, thin
 * front ends of libhprofasm (hasm/): arguments, files, messages, exit
 * status. FILE and TEXT may be - (standard input); output goes to standard
 * output unless -o is given. -o OUT is opened by hw_outfile's rules
 * (hw_writer.h): a regular OUT is replaced only by a whole output (a failed
 * run leaves it as it was), a FIFO or device is written in place, a link or
 * the input itself is refused.
 */
#include "asm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hasm_asm.h"
#include "hasm_disasm.h"
#include "hprof/hw_writer.h"

static int asm_usage(const char *cmd, const char *msg, const char *arg)
{
    fprintf(stderr, "hprof: %s: ", cmd);
    fprintf(stderr, msg, arg);
    fprintf(stderr, "\nusage: hprof %s %s [-o OUT]\n", cmd,
            strcmp(cmd, "asm") == 0 ? "TEXT" : "FILE");
    return 2;
}

/* Parses FILE [-o OUT]; returns 0 or the usage exit status. */
static int asm_args(int argc, char **argv, const char **in, const char **out)
{
    *in = NULL;
    *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0) {
            if (i + 1 >= argc)
                return asm_usage(argv[0], "-o needs a file name%s", "");
            *out = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return asm_usage(argv[0], "unknown option '%s'", argv[i]);
        } else if (*in) {
            return asm_usage(argv[0], "one input only (got '%s' too)", argv[i]);
        } else {
            *in = argv[i];
        }
    }
    if (!*in)
        return asm_usage(argv[0], "missing input%s", "");
    return 0;
}

/* Opens OUT (standard output without -o); NULL after a message. */
static hw_outfile *asm_open_out(const char *out, const char *in, FILE **f)
{
    char msg[600];
    int e = 0;
    hw_outfile *o = hw_outfile_open(out ? out : "-", in, &e, msg, sizeof msg);
    if (!o) {
        fprintf(stderr, "hprof: %s\n", msg);
        return NULL;
    }
    *f = hw_outfile_stream(o);
    if (!*f) {
        fprintf(stderr, "hprof: %s: %s\n", hw_outfile_name(o), strerror(errno));
        hw_outfile_abort(o);
        return NULL;
    }
    return o;
}

/* Commits the output, or (if `failed`) abandons it; returns 1 on failure. */
static int asm_close_out(hw_outfile *o, int failed)
{
    if (failed) {
        hw_outfile_abort(o);
        return 1;
    }
    char msg[600];
    if (hw_outfile_commit(o, msg, sizeof msg) != 0) {
        fprintf(stderr, "hprof: %s\n", msg);
        return 1;
    }
    return 0;
}

int asm_disasm_main(int argc, char **argv)
{
    const char *in, *out;
    int rc = asm_args(argc, argv, &in, &out);
    if (rc)
        return rc;
    FILE *f;
    hw_outfile *of = asm_open_out(out, in, &f);
    if (!of)
        return 1;
    char err[512];
    int failed = hasm_disasm_path(in, f, err, sizeof err) < 0;
    if (failed)
        fprintf(stderr, "hprof: %s\n", err);
    return asm_close_out(of, failed);
}

/* The output stream and where this run's bytes start in it. */
typedef struct asm_out {
    FILE *f;
    off_t base;
} asm_out;

static int asm_write(void *ctx, const void *buf, size_t len)
{
    FILE *f = ((asm_out *)ctx)->f;
    return fwrite(buf, 1, len, f) == len ? 0 : -1;
}

static int asm_seek(void *ctx, uint64_t offset)
{
    const asm_out *o = ctx;
    if (offset == UINT64_MAX)
        return fseeko(o->f, 0, SEEK_END);
    return fseeko(o->f, o->base + (off_t)offset, SEEK_SET);
}

/* A regular file can seek back: big records then need no memory. Not one
 * opened O_APPEND (`>> file`): every write lands at the end whatever the
 * offset, so a patched length would be appended. The run's bytes start at
 * the current offset (standard output may have been written before). */
static int asm_seekable(asm_out *o)
{
    struct stat st;
    int fd = fileno(o->f);
    int fl = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fl < 0 || (fl & O_APPEND))
        return 0;
    o->base = ftello(o->f);
    return o->base >= 0;
}

int asm_asm_main(int argc, char **argv)
{
    const char *in, *out;
    int rc = asm_args(argc, argv, &in, &out);
    if (rc)
        return rc;
    FILE *src = strcmp(in, "-") == 0 ? stdin : fopen(in, "r");
    if (!src) {
        fprintf(stderr, "hprof: %s: %s\n", in, strerror(errno));
        return 1;
    }
    asm_out ao = {NULL, 0};
    hw_outfile *of = asm_open_out(out, in, &ao.f);
    if (!of) {
        if (src != stdin)
            fclose(src);
        return 1;
    }
    char err[512];
    int failed = hasm_asm_stream_seek(src, strcmp(in, "-") == 0 ? "(stdin)" : in, asm_write,
                                      asm_seekable(&ao) ? asm_seek : NULL, &ao, err, sizeof err) != 0;
    if (failed)
        fprintf(stderr, "hprof: %s\n", err);
    if (src != stdin)
        fclose(src);
    return asm_close_out(of, failed);
}
