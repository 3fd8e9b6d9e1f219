/*
 * hw_sink.c: where the writer's bytes go: a file, an fd (pipe or socket) or
 * a growable memory buffer, a caller's callback, or gzip in HotSpot's -gz
 * layout over another sink.
 *
 * Contract: hw_sink_write delivers everything or returns the errno of the
 * first failure; it never raises SIGPIPE (sockets use MSG_NOSIGNAL, pipes
 * block the signal around the write and discard it). Output files are
 * opened by hw_file_create, whose rules (0600, no symbolic link, nobody
 * else's file truncated) are written down in hw_writer.h.
 */
#include "hw_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

enum hw_sink_kind { HW_SINK_FD, HW_SINK_MEMORY, HW_SINK_CUSTOM, HW_SINK_GZIP };
enum hw_fd_kind { HW_FD_PLAIN, HW_FD_SOCKET, HW_FD_PIPE };

struct hw_sink {
    enum hw_sink_kind kind;
    int closed;
    /* fd */
    int fd;
    int owns;
    enum hw_fd_kind fd_kind;
    off_t fd_base; /* a regular file's position at creation; -1: no patching */
    /* memory */
    uint8_t *mem;
    size_t mem_len, mem_cap;
    /* custom */
    hw_sink_write_fn wr;
    hw_sink_close_fn cl;
    void *ctx;
    /* gzip: `inner` gets one gzip member per HW_GZIP_BLOCK_SIZE bytes of
     * input, collected in gz_in; gz_err is sticky */
    hw_sink *inner;
    uint8_t *gz_in, *gz_out;
    size_t gz_in_len, gz_out_cap;
    int gz_level;
    int gz_err;
    uint64_t gz_members;
    char desc[96];
};

static hw_sink *hw_sink_new(enum hw_sink_kind kind)
{
    hw_sink *s = calloc(1, sizeof *s);
    if (s) {
        s->kind = kind;
        s->fd = -1;
    }
    return s;
}

hw_sink *hw_sink_fd(int fd, int owns)
{
    hw_sink *s = hw_sink_new(HW_SINK_FD);
    if (!s)
        return NULL;
    struct stat st;
    s->fd = fd;
    s->owns = owns;
    s->fd_kind = HW_FD_PLAIN;
    s->fd_base = -1;
    if (fstat(fd, &st) == 0) {
        if (S_ISSOCK(st.st_mode))
            s->fd_kind = HW_FD_SOCKET;
        else if (S_ISFIFO(st.st_mode))
            s->fd_kind = HW_FD_PIPE;
        else if (S_ISREG(st.st_mode) && !(fcntl(fd, F_GETFL) & O_APPEND))
            s->fd_base = lseek(fd, 0, SEEK_CUR); /* pwrite ignores offsets with O_APPEND */
    }
    snprintf(s->desc, sizeof s->desc, "fd %d", fd);
    return s;
}

/* ------------------------------------------------------------ output files */

static void hw_file_why(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void hw_file_why(char *why, size_t n, const char *fmt, ...)
{
    if (!why || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

/* Fails with e and its reason; returns -1. */
static int hw_file_fail(int e, int *err, char *why, size_t whylen)
{
    if (err)
        *err = e;
    hw_file_why(why, whylen, "%s", strerror(e));
    return -1;
}

/* Why what `st` describes may not be written (0: it may): a regular file
 * of ours with one link, a FIFO of ours, a character device may. Returns
 * the errno value, with the reason in why. */
static int hw_file_refuse(const struct stat *st, char *why, size_t whylen)
{
    if (S_ISLNK(st->st_mode)) {
        hw_file_why(why, whylen, "it is a symbolic link; refusing to write through it");
        return ELOOP;
    }
    if (S_ISCHR(st->st_mode))
        return 0;
    if (!S_ISREG(st->st_mode) && !S_ISFIFO(st->st_mode)) {
        hw_file_why(why, whylen, "it is not a regular file, a FIFO or a character device; "
                                 "refusing to write to it");
        return EINVAL;
    }
    if (st->st_uid != geteuid()) {
        if (S_ISFIFO(st->st_mode))
            hw_file_why(why, whylen,
                        "it is a FIFO owned by another user (uid %lu); refusing to write to it",
                        (unsigned long)st->st_uid);
        else
            hw_file_why(why, whylen, "it is owned by another user (uid %lu); refusing to overwrite it",
                        (unsigned long)st->st_uid);
        return EPERM;
    }
    if (S_ISREG(st->st_mode) && st->st_nlink != 1) {
        hw_file_why(why, whylen, "it has %lu hard links; refusing to overwrite it",
                    (unsigned long)st->st_nlink);
        return EMLINK;
    }
    return 0;
}

/* hw_file_refuse of the open fd: the very file that would be written. */
static int hw_file_check(int fd, char *why, size_t whylen)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        hw_file_why(why, whylen, "%s", strerror(e));
        return e;
    }
    return hw_file_refuse(&st, why, whylen);
}

/* The reason an open (O_NOFOLLOW) failed. When what is at the path would be
 * refused anyway (a symbolic link, another user's file or FIFO, a socket),
 * that is the reason, whatever the errno (ELOOP; EEXIST with O_EXCL; EACCES
 * from the kernel's own protections in sticky directories, fs.protected_*;
 * ENXIO for a socket), with hw_file_refuse's errno, or EEXIST when the file
 * had to be new (`isnew`: it exists); otherwise (a directory: EISDIR) the
 * errno text. */
static int hw_file_open_fail(const char *path, int e, int isnew, int *err, char *why,
                             size_t whylen)
{
    struct stat st;
    int r = lstat(path, &st) == 0 && !S_ISDIR(st.st_mode) ? hw_file_refuse(&st, why, whylen) : 0;
    if (r) {
        if (err)
            *err = isnew ? EEXIST : r;
        return -1;
    }
    if (e == EEXIST) {
        if (err)
            *err = e;
        hw_file_why(why, whylen, "it exists already; refusing to overwrite it");
        return -1;
    }
    return hw_file_fail(e, err, why, whylen);
}

/* True when path is a regular file of ours with one link (a previous run's
 * output, fit to be replaced). */
static int hw_file_is_stale_own(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
           st.st_nlink == 1;
}

int hw_file_create(const char *path, unsigned flags, int *err, char *why, size_t whylen)
{
    int acc = (flags & HW_FILE_READ) ? O_RDWR : O_WRONLY;
    int base = acc | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
    if (why && whylen)
        why[0] = '\0';
    if (flags & (HW_FILE_NEW | HW_FILE_FRESH)) {
        int fd = open(path, base | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno == EEXIST && (flags & HW_FILE_FRESH) && hw_file_is_stale_own(path) &&
            unlink(path) == 0)
            fd = open(path, base | O_CREAT | O_EXCL, 0600);
        if (fd < 0)
            return hw_file_open_fail(path, errno, 1, err, why, whylen);
        return fd;
    }
    /* No O_TRUNC: what is there is checked first (on the fd, so it is the
     * very file written), then truncated. O_NONBLOCK: a FIFO must not block
     * the open before its owner is known. */
    int fd = open(path, base | O_CREAT | O_NONBLOCK, 0600);
    if (fd < 0 && errno == ENXIO) {
        /* a FIFO without a reader yet: wait for one only if it is ours */
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISFIFO(st.st_mode) && hw_file_refuse(&st, why, whylen)) {
            if (err)
                *err = EPERM;
            return -1;
        }
        fd = open(path, base);
    }
    if (fd < 0)
        return hw_file_open_fail(path, errno, 0, err, why, whylen);
    int e = hw_file_check(fd, why, whylen);
    int fl = e ? 0 : fcntl(fd, F_GETFL);
    if (!e && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)) {
        e = errno;
        hw_file_why(why, whylen, "%s", strerror(e));
    }
    struct stat st;
    if (!e && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) {
        e = errno;
        hw_file_why(why, whylen, "cannot truncate it: %s", strerror(e));
    }
    if (e) {
        close(fd);
        if (err)
            *err = e;
        return -1;
    }
    return fd;
}

hw_sink *hw_sink_file_ex(const char *path, unsigned flags, int *err, char *why, size_t whylen)
{
    int fd = hw_file_create(path, flags, err, why, whylen);
    if (fd < 0)
        return NULL;
    hw_sink *s = hw_sink_fd(fd, 1);
    if (!s) {
        close(fd);
        hw_file_fail(ENOMEM, err, why, whylen);
        return NULL;
    }
    snprintf(s->desc, sizeof s->desc, "%s", path);
    return s;
}

hw_sink *hw_sink_file(const char *path, int *err)
{
    return hw_sink_file_ex(path, 0, err, NULL, 0);
}

hw_sink *hw_sink_memory(size_t reserve)
{
    hw_sink *s = hw_sink_new(HW_SINK_MEMORY);
    if (!s)
        return NULL;
    if (reserve) {
        s->mem = malloc(reserve);
        if (!s->mem) {
            free(s);
            return NULL;
        }
        s->mem_cap = reserve;
    }
    snprintf(s->desc, sizeof s->desc, "memory");
    return s;
}

const uint8_t *hw_sink_memory_data(const hw_sink *s, size_t *len)
{
    if (!s || s->kind != HW_SINK_MEMORY) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = s->mem_len;
    return s->mem;
}

hw_sink *hw_sink_custom(hw_sink_write_fn wr, hw_sink_close_fn cl, void *ctx)
{
    if (!wr)
        return NULL;
    hw_sink *s = hw_sink_new(HW_SINK_CUSTOM);
    if (!s)
        return NULL;
    s->wr = wr;
    s->cl = cl;
    s->ctx = ctx;
    snprintf(s->desc, sizeof s->desc, "custom sink");
    return s;
}

/* ------------------------------------------------------------------ gzip
 *
 * HotSpot's -gz layout (heapDumperCompression.cpp): the dump is cut into
 * blocks of HW_GZIP_BLOCK_SIZE uncompressed bytes, each compressed alone
 * as a complete gzip member whose header carries the FCOMMENT
 * HW_GZIP_COMMENT. Any gzip reader sees one stream (multi-member gzip is
 * standard); a reader that knows the layout seeks to a block without
 * inflating what comes before. JDK 17 puts the comment on every member,
 * JDK 25 only on the first; we put it on every member, so each one found
 * alone (in a truncated file, or by a reader that seeks) still says the
 * block size, for 24 bytes per MiB. Memory: one block in, its deflate
 * bound out, whatever the file's size. */

hw_sink *hw_sink_gzip(hw_sink *inner, int level, int *err)
{
    if (!inner || level < -1 || level > 9) {
        if (err)
            *err = EINVAL;
        return NULL;
    }
    hw_sink *s = hw_sink_new(HW_SINK_GZIP);
    if (s) {
        s->gz_in = malloc(HW_GZIP_BLOCK_SIZE);
        s->gz_out_cap = compressBound(HW_GZIP_BLOCK_SIZE) + 64u + sizeof HW_GZIP_COMMENT;
        s->gz_out = malloc(s->gz_out_cap);
    }
    if (!s || !s->gz_in || !s->gz_out) {
        if (s) {
            free(s->gz_in);
            free(s->gz_out);
            free(s);
        }
        if (err)
            *err = ENOMEM;
        return NULL;
    }
    s->inner = inner;
    s->gz_level = level;
    snprintf(s->desc, sizeof s->desc, "%s", inner->desc);
    return s;
}

uint64_t hw_sink_gzip_members(const hw_sink *s)
{
    return s && s->kind == HW_SINK_GZIP ? s->gz_members : 0;
}

int hw_sink_gzip_pass(hw_sink *s, const void *members, size_t len, uint64_t plain_len)
{
    if (!s || s->kind != HW_SINK_GZIP || s->gz_in_len != 0 || plain_len % HW_GZIP_BLOCK_SIZE)
        return EINVAL;
    if (s->gz_err)
        return s->gz_err;
    int e = hw_sink_write(s->inner, members, len);
    if (e)
        return s->gz_err = e;
    s->gz_members += plain_len / HW_GZIP_BLOCK_SIZE;
    return 0;
}

/* Compresses gz_in as one member and hands it to the inner sink. */
static int hw_sink_gz_member(hw_sink *s)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 + 16: a 32 KiB window, gzip wrapping (header + CRC32 + ISIZE) */
    if (deflateInit2(&z, s->gz_level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return ENOMEM;
    gz_header h;
    memset(&h, 0, sizeof h);
    h.os = 255; /* unknown, as HotSpot writes */
    h.comment = (Bytef *)HW_GZIP_COMMENT;
    int zr = deflateSetHeader(&z, &h);
    z.next_in = s->gz_in;
    z.avail_in = (uInt)s->gz_in_len;
    z.next_out = s->gz_out;
    z.avail_out = (uInt)s->gz_out_cap;
    if (zr == Z_OK)
        zr = deflate(&z, Z_FINISH);
    size_t n = s->gz_out_cap - z.avail_out;
    deflateEnd(&z);
    if (zr != Z_STREAM_END)
        return EIO; /* cannot happen: the output holds the deflate bound */
    s->gz_in_len = 0;
    s->gz_members++;
    return hw_sink_write(s->inner, s->gz_out, n);
}

static int hw_sink_gz_write(hw_sink *s, const uint8_t *p, size_t n)
{
    if (s->gz_err)
        return s->gz_err;
    while (n > 0) {
        size_t k = HW_GZIP_BLOCK_SIZE - s->gz_in_len;
        if (k > n)
            k = n;
        memcpy(s->gz_in + s->gz_in_len, p, k);
        s->gz_in_len += k;
        p += k;
        n -= k;
        if (s->gz_in_len == HW_GZIP_BLOCK_SIZE) {
            int e = hw_sink_gz_member(s);
            if (e)
                return s->gz_err = e;
        }
    }
    return 0;
}

/* The last (short) member; an empty stream still gets one member, since
 * gzip readers reject a file of zero bytes. */
static int hw_sink_gz_close(hw_sink *s)
{
    int e = s->gz_err;
    if (!e && (s->gz_in_len > 0 || s->gz_members == 0))
        e = s->gz_err = hw_sink_gz_member(s);
    int ce = hw_sink_close(s->inner);
    return e ? e : ce;
}

int hw_sink_is_memory(const hw_sink *s)
{
    return s->kind == HW_SINK_MEMORY;
}

const char *hw_sink_describe(const hw_sink *s)
{
    return s->desc;
}

/* write(2) to a pipe whose reader is gone raises SIGPIPE, which would kill
 * the profiled program; block it for this thread and drop a pending one. */
static int hw_sink_pipe_write(int fd, const void *p, size_t n, ssize_t *out)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t r = write(fd, p, n);
    int e = errno;
    if (r < 0 && e == EPIPE) {
        const struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) > 0) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    *out = r;
    return e;
}

static int hw_sink_fd_write(hw_sink *s, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t r;
        int e;
        size_t chunk = n > (1u << 30) ? (1u << 30) : n;
        if (s->fd_kind == HW_FD_SOCKET) {
            r = send(s->fd, p, chunk, MSG_NOSIGNAL);
            e = errno;
            if (r < 0 && e == ENOTSOCK) {
                s->fd_kind = HW_FD_PLAIN;
                continue;
            }
        } else if (s->fd_kind == HW_FD_PIPE) {
            e = hw_sink_pipe_write(s->fd, p, chunk, &r);
        } else {
            r = write(s->fd, p, chunk);
            e = errno;
        }
        if (r < 0) {
            if (e == EINTR)
                continue;
            return e ? e : EIO;
        }
        if (r == 0)
            return ENOSPC; /* write(2) returning 0 for n > 0: no room */
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int hw_sink_mem_write(hw_sink *s, const void *p, size_t n)
{
    if (n > SIZE_MAX - s->mem_len)
        return ENOMEM;
    if (s->mem_len + n > s->mem_cap) {
        size_t ncap = s->mem_cap ? s->mem_cap : 4096;
        while (ncap < s->mem_len + n)
            ncap = ncap > SIZE_MAX / 2 ? s->mem_len + n : ncap * 2;
        uint8_t *nm = realloc(s->mem, ncap);
        if (!nm)
            return ENOMEM;
        s->mem = nm;
        s->mem_cap = ncap;
    }
    memcpy(s->mem + s->mem_len, p, n);
    s->mem_len += n;
    return 0;
}

int hw_sink_write(hw_sink *s, const void *data, size_t len)
{
    if (s->closed)
        return EBADF;
    if (len == 0)
        return 0;
    switch (s->kind) {
    case HW_SINK_FD: return hw_sink_fd_write(s, data, len);
    case HW_SINK_MEMORY: return hw_sink_mem_write(s, data, len);
    case HW_SINK_CUSTOM: return s->wr(s->ctx, data, len);
    case HW_SINK_GZIP: return hw_sink_gz_write(s, data, len);
    }
    return EINVAL;
}

int hw_sink_can_patch(const hw_sink *s)
{
    return !s->closed && ((s->kind == HW_SINK_FD && s->fd_base >= 0) || s->kind == HW_SINK_MEMORY);
}

int hw_sink_patch(hw_sink *s, uint64_t off, const void *data, size_t len)
{
    if (!hw_sink_can_patch(s))
        return ESPIPE;
    if (s->kind == HW_SINK_MEMORY) {
        if (off > s->mem_len || len > s->mem_len - off)
            return EINVAL;
        memcpy(s->mem + off, data, len);
        return 0;
    }
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t k = pwrite(s->fd, p, len, s->fd_base + (off_t)off);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (k == 0)
            return EIO;
        p += k;
        off += (uint64_t)k;
        len -= (size_t)k;
    }
    return 0;
}

int hw_sink_close(hw_sink *s)
{
    int rc = 0;
    if (s->closed)
        return 0;
    s->closed = 1;
    if (s->kind == HW_SINK_FD && s->owns && s->fd >= 0) {
        if (close(s->fd) != 0 && errno != EINTR)
            rc = errno;
        s->fd = -1;
    } else if (s->kind == HW_SINK_CUSTOM && s->cl) {
        rc = s->cl(s->ctx);
    } else if (s->kind == HW_SINK_GZIP) {
        rc = hw_sink_gz_close(s);
    }
    return rc;
}

void hw_sink_free(hw_sink *s)
{
    if (!s)
        return;
    hw_sink_close(s);
    if (s->kind == HW_SINK_GZIP && !hw_sink_is_memory(s->inner))
        hw_sink_free(s->inner);
    free(s->gz_in);
    free(s->gz_out);
    free(s->mem);
    free(s);
}
