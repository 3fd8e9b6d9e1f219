/*
 * hw_outfile.c: hw_outfile_* (hw_writer.h): the whole output file of a
 * command (-o OUT), written so that a failed run leaves OUT as it was and
 * nothing planted at the path receives the bytes.
 *
 * Why a temporary file and a rename for a regular OUT: writing OUT in place
 * truncates it first, so a failed run (bad input, ENOSPC) would destroy the
 * previous good output, and OUT being the input would be read after its
 * truncation. Why in place for devices and FIFOs: replacing them by a
 * regular file (or removing them on failure) breaks /dev/null and the
 * reader at the other end of a FIFO. The opening rules themselves (no link
 * followed, 0600, ownership) are hw_file_create's (hw_sink.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hprof/hw_writer.h"

struct hw_outfile {
    int fd;
    int to_stdout; /* fd 1: never closed here */
    FILE *fp;      /* hw_outfile_stream's, owns fd unless to_stdout */
    char *path;    /* OUT */
    char *tmp;     /* OUT.tmp.PID, or NULL when written in place */
};

static void hw_outfile_msg(char *msg, size_t msglen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void hw_outfile_msg(char *msg, size_t msglen, const char *fmt, ...)
{
    if (!msg || !msglen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
}

static hw_outfile *hw_outfile_refuse(int e, int *err, char *msg, size_t msglen, const char *path,
                                     const char *why)
{
    if (err)
        *err = e;
    hw_outfile_msg(msg, msglen, "%s: %s", path, why);
    return NULL;
}

/* Same file as the input: a regular file would be destroyed (read after
 * being written), a FIFO would deadlock. A character device (/dev/null, a
 * tty) or a socket (stdin and stdout of an inetd-style service) is shared
 * harmlessly. */
static int hw_outfile_same(const struct stat *a, const struct stat *in)
{
    return (S_ISREG(a->st_mode) || S_ISFIFO(a->st_mode)) && a->st_dev == in->st_dev &&
           a->st_ino == in->st_ino;
}

static hw_outfile *hw_outfile_new(int fd, int to_stdout, const char *path, char *tmp, int *err,
                                  char *msg, size_t msglen)
{
    hw_outfile *o = calloc(1, sizeof *o);
    char *p = o ? strdup(path) : NULL;
    if (!p) {
        free(o);
        if (fd >= 0 && !to_stdout)
            close(fd);
        if (tmp)
            unlink(tmp);
        free(tmp);
        return hw_outfile_refuse(ENOMEM, err, msg, msglen, path, strerror(ENOMEM));
    }
    o->fd = fd;
    o->to_stdout = to_stdout;
    o->path = p;
    o->tmp = tmp;
    return o;
}

hw_outfile *hw_outfile_open(const char *path, const char *in, int *err, char *msg, size_t msglen)
{
    if (msg && msglen)
        msg[0] = '\0';
    if (!path || !*path)
        return hw_outfile_refuse(EINVAL, err, msg, msglen, "(output)", "an empty file name");
    struct stat ist, sb;
    int have_in = in && (strcmp(in, "-") == 0 ? fstat(0, &ist) == 0 : stat(in, &ist) == 0);
    char why[256];
    if (strcmp(path, "-") == 0) {
        if (have_in && fstat(1, &sb) == 0 && hw_outfile_same(&sb, &ist))
            return hw_outfile_refuse(EINVAL, err, msg, msglen, "(stdout)",
                                     "standard output is the input file; refusing to write to it");
        return hw_outfile_new(1, 1, "(stdout)", NULL, err, msg, msglen);
    }
    if (lstat(path, &sb) == 0) {
        if (S_ISLNK(sb.st_mode))
            return hw_outfile_refuse(ELOOP, err, msg, msglen, path,
                                     "it is a symbolic link; refusing to write through it");
        if (have_in && hw_outfile_same(&sb, &ist))
            return hw_outfile_refuse(EINVAL, err, msg, msglen, path,
                                     "it is the input file; refusing to overwrite it");
        if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode)) {
            int e = 0;
            int fd = hw_file_create(path, 0, &e, why, sizeof why);
            if (fd < 0)
                return hw_outfile_refuse(e, err, msg, msglen, path, why);
            return hw_outfile_new(fd, 0, path, NULL, err, msg, msglen);
        }
        if (!S_ISREG(sb.st_mode))
            return hw_outfile_refuse(
                EINVAL, err, msg, msglen, path,
                "it is not a regular file, a FIFO or a character device; refusing to write to it");
        if (sb.st_uid != geteuid()) {
            snprintf(why, sizeof why, "it is owned by another user (uid %lu); refusing to overwrite it",
                     (unsigned long)sb.st_uid);
            return hw_outfile_refuse(EPERM, err, msg, msglen, path, why);
        }
        if (sb.st_nlink != 1) {
            snprintf(why, sizeof why, "it has %lu hard links; refusing to overwrite it",
                     (unsigned long)sb.st_nlink);
            return hw_outfile_refuse(EMLINK, err, msg, msglen, path, why);
        }
    } else if (errno != ENOENT) {
        return hw_outfile_refuse(errno, err, msg, msglen, path, strerror(errno));
    }
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp)
        return hw_outfile_refuse(ENOMEM, err, msg, msglen, path, strerror(ENOMEM));
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int e = 0;
    int fd = hw_file_create(tmp, HW_FILE_FRESH, &e, why, sizeof why);
    if (fd < 0) {
        hw_outfile_refuse(e, err, msg, msglen, tmp, why);
        free(tmp);
        return NULL;
    }
    return hw_outfile_new(fd, 0, path, tmp, err, msg, msglen);
}

int hw_outfile_fd(const hw_outfile *o)
{
    return o->fd;
}

FILE *hw_outfile_stream(hw_outfile *o)
{
    if (!o->fp)
        o->fp = o->to_stdout ? stdout : fdopen(o->fd, "wb");
    return o->fp;
}

int hw_outfile_rewindable(const hw_outfile *o)
{
    return o->tmp != NULL;
}

const char *hw_outfile_name(const hw_outfile *o)
{
    return o->tmp ? o->tmp : o->path;
}

/* Releases the descriptor; returns 0 or the first errno of flush/close. */
static int hw_outfile_close(hw_outfile *o)
{
    int e = 0;
    if (o->fp) {
        if (fflush(o->fp) != 0 || ferror(o->fp))
            e = errno ? errno : EIO;
        if (!o->to_stdout && fclose(o->fp) != 0 && !e)
            e = errno;
    } else if (!o->to_stdout && close(o->fd) != 0) {
        e = errno;
    }
    o->fp = NULL;
    o->fd = -1;
    return e;
}

static void hw_outfile_free(hw_outfile *o)
{
    free(o->path);
    free(o->tmp);
    free(o);
}

int hw_outfile_commit(hw_outfile *o, char *msg, size_t msglen)
{
    errno = 0;
    int e = hw_outfile_close(o);
    if (e)
        hw_outfile_msg(msg, msglen, "%s: %s", hw_outfile_name(o), strerror(e));
    if (!e && o->tmp && rename(o->tmp, o->path) != 0) {
        e = errno;
        hw_outfile_msg(msg, msglen, "%s: cannot rename %s over it: %s", o->path, o->tmp,
                       strerror(e));
    }
    if (e && o->tmp)
        unlink(o->tmp);
    hw_outfile_free(o);
    return e;
}

void hw_outfile_abort(hw_outfile *o)
{
    if (!o)
        return;
    hw_outfile_close(o);
    if (o->tmp)
        unlink(o->tmp);
    hw_outfile_free(o);
}
