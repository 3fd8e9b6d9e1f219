/*
 * asm.c: `hprof disasm FILE [-o OUT]` and `hprof asm TEXT [-o OUT]`, thin
 * front ends of libhprofasm (hasm/): arguments, files, messages, exit
 * status. FILE and TEXT may be - (standard input); output goes to standard
 * output unless -o is given. A failed -o output is removed.
 */
#include "asm.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hasm_asm.h"
#include "hasm_disasm.h"

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

static FILE *asm_open_out(const char *out)
{
    if (!out || strcmp(out, "-") == 0)
        return stdout;
    FILE *f = fopen(out, "wb");
    if (!f)
        fprintf(stderr, "hprof: %s: %s\n", out, strerror(errno));
    return f;
}

/* Closes the output; on failure (or if `failed`) removes it. */
static int asm_close_out(FILE *f, const char *out, int failed)
{
    int bad = fflush(f) != 0 || ferror(f);
    if (bad && !failed)
        fprintf(stderr, "hprof: %s: %s\n", out ? out : "(stdout)", strerror(errno));
    if (f != stdout) {
        if (fclose(f) != 0 && !bad && !failed) {
            fprintf(stderr, "hprof: %s: %s\n", out, strerror(errno));
            bad = 1;
        }
        if (bad || failed)
            unlink(out);
    }
    return bad || failed;
}

int asm_disasm_main(int argc, char **argv)
{
    const char *in, *out;
    int rc = asm_args(argc, argv, &in, &out);
    if (rc)
        return rc;
    FILE *f = asm_open_out(out);
    if (!f)
        return 1;
    char err[512];
    int failed = hasm_disasm_path(in, f, err, sizeof err) < 0;
    if (failed)
        fprintf(stderr, "hprof: %s\n", err);
    return asm_close_out(f, out, failed) ? 1 : 0;
}

static int asm_write(void *ctx, const void *buf, size_t len)
{
    return fwrite(buf, 1, len, (FILE *)ctx) == len ? 0 : -1;
}

static int asm_seek(void *ctx, uint64_t offset)
{
    if (offset == UINT64_MAX)
        return fseeko((FILE *)ctx, 0, SEEK_END);
    return fseeko((FILE *)ctx, (off_t)offset, SEEK_SET);
}

/* A regular file can seek back: big records then need no memory. */
static int asm_seekable(FILE *f)
{
    struct stat st;
    return fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && ftello(f) == 0;
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
    FILE *f = asm_open_out(out);
    if (!f) {
        if (src != stdin)
            fclose(src);
        return 1;
    }
    char err[512];
    int failed = hasm_asm_stream_seek(src, strcmp(in, "-") == 0 ? "(stdin)" : in, asm_write,
                                      asm_seekable(f) ? asm_seek : NULL, f, err, sizeof err) != 0;
    if (failed)
        fprintf(stderr, "hprof: %s\n", err);
    if (src != stdin)
        fclose(src);
    return asm_close_out(f, out, failed) ? 1 : 0;
}
