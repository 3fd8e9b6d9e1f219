/*
 * cv_in.c: libhprofconvert's input window (cv_in.h): zlib's gzFile for
 * files and standard input (it reads plain and gzip alike, and every
 * member of a multi-member gzip), zlib's inflate for gzip in memory.
 */
#include "cv_in.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static int cv_in_init_common(cv_in *in)
{
    in->buf = malloc(CV_WINDOW);
    return in->buf ? 0 : -1;
}

int cv_in_open_mem(cv_in *in, const void *p, size_t n)
{
    memset(in, 0, sizeof *in);
    in->mem = p;
    in->mem_len = n;
    in->mem_gz = n >= 2 && in->mem[0] == 0x1f && in->mem[1] == 0x8b;
    return cv_in_init_common(in);
}

/* path "-" is standard input (not closed). */
int cv_in_open_file(cv_in *in, const char *path)
{
    memset(in, 0, sizeof *in);
    if (strcmp(path, "-") == 0) {
        int fd = dup(0);
        in->gz = fd < 0 ? NULL : gzdopen(fd, "rb");
        if (!in->gz && fd >= 0)
            close(fd);
    } else {
        in->gz = gzopen(path, "rb");
    }
    if (!in->gz)
        return -1;
    gzbuffer(in->gz, 256u << 10);
    return cv_in_init_common(in);
}

void cv_in_close(cv_in *in)
{
    if (in->gz)
        gzclose(in->gz);
    if (in->z_live)
        inflateEnd(&in->z);
    free(in->buf);
    memset(in, 0, sizeof *in);
}

/* Reads up to n bytes from the source: count, 0 at its end, -1 on error. */
static long cv_src_read(cv_in *in, uint8_t *dst, size_t n)
{
    if (in->gz) {
        int r = gzread(in->gz, dst, (unsigned)n);
        if (r < 0) {
            int zerr;
            const char *m = gzerror(in->gz, &zerr);
            snprintf(in->errmsg, sizeof in->errmsg, "reading failed: %s",
                     zerr == Z_ERRNO ? strerror(errno) : m);
            return -1;
        }
        if (r == 0) {
            int zerr;
            const char *m = gzerror(in->gz, &zerr);
            if (zerr != Z_OK) { /* a gzip stream cut short */
                snprintf(in->errmsg, sizeof in->errmsg, "gzip input: %s", m);
                return -1;
            }
        }
        return r;
    }
    if (!in->mem_gz) {
        size_t k = in->mem_len - in->mem_pos;
        if (k > n)
            k = n;
        memcpy(dst, in->mem + in->mem_pos, k);
        in->mem_pos += k;
        return (long)k;
    }
    if (!in->z_live) {
        memset(&in->z, 0, sizeof in->z);
        if (inflateInit2(&in->z, 15 + 16) != Z_OK) {
            snprintf(in->errmsg, sizeof in->errmsg, "out of memory");
            return -1;
        }
        in->z_live = 1;
        in->z.next_in = (Bytef *)(uintptr_t)in->mem;
        in->z.avail_in = (uInt)(in->mem_len > UINT32_MAX ? UINT32_MAX : in->mem_len);
    }
    in->z.next_out = dst;
    in->z.avail_out = (uInt)n;
    while (in->z.avail_out > 0) {
        if (in->z.avail_in == 0 && in->z.total_in == 0 && in->mem_len == 0)
            break;
        int r = inflate(&in->z, Z_NO_FLUSH);
        if (r == Z_STREAM_END) {
            /* multi-member gzip: go on with the next member, if any */
            if (in->z.avail_in >= 2 && in->z.next_in[0] == 0x1f && in->z.next_in[1] == 0x8b) {
                inflateReset(&in->z);
                continue;
            }
            in->z.avail_in = 0;
            break;
        }
        if (r == Z_BUF_ERROR && in->z.avail_in == 0) {
            if (n - in->z.avail_out > 0)
                break;
            snprintf(in->errmsg, sizeof in->errmsg, "gzip input: unexpected end of file");
            return -1;
        }
        if (r != Z_OK) {
            snprintf(in->errmsg, sizeof in->errmsg, "gzip input: %s",
                     in->z.msg ? in->z.msg : "corrupt data");
            return -1;
        }
        if (in->z.avail_in == 0 && in->z.avail_out > 0) {
            /* everything handed in, member not ended: the stream is cut */
            if (n - in->z.avail_out > 0)
                break;
            snprintf(in->errmsg, sizeof in->errmsg, "gzip input: unexpected end of file");
            return -1;
        }
    }
    return (long)(n - in->z.avail_out);
}

/* Makes n (<= CV_WINDOW) bytes available at buf+pos: 0, or -1 when the
 * input ends first (eof) or fails (err). */
int cv_in_fill(cv_in *in, size_t n)
{
    if (in->len - in->pos >= n)
        return 0;
    if (in->pos > 0) {
        memmove(in->buf, in->buf + in->pos, in->len - in->pos);
        in->base += in->pos;
        in->len -= in->pos;
        in->pos = 0;
    }
    while (in->len < n && !in->eof && !in->err) {
        long r = cv_src_read(in, in->buf + in->len, CV_WINDOW - in->len);
        if (r < 0)
            in->err = 1;
        else if (r == 0)
            in->eof = 1;
        else
            in->len += (size_t)r;
    }
    return in->len - in->pos >= n ? 0 : -1;
}

uint64_t cv_in_off(const cv_in *in)
{
    return in->base + in->pos;
}

/* Goes back (or forward) to input offset `off`. 0, or -1 when the source
 * cannot seek (a pipe). */
int cv_in_seek(cv_in *in, uint64_t off)
{
    if (off >= in->base && off <= in->base + in->len) {
        in->pos = (size_t)(off - in->base);
        return 0;
    }
    in->pos = in->len = 0;
    in->eof = 0;
    if (in->gz) {
        if (gzseek(in->gz, (z_off_t)off, SEEK_SET) < 0)
            return -1;
        in->base = off;
        return 0;
    }
    if (!in->mem_gz) {
        if (off > in->mem_len)
            return -1;
        in->mem_pos = (size_t)off;
        in->base = off;
        return 0;
    }
    if (in->z_live)
        inflateEnd(&in->z);
    in->z_live = 0;
    in->base = 0;
    while (in->base < off) {
        size_t k = off - in->base > CV_WINDOW ? CV_WINDOW : (size_t)(off - in->base);
        long r = cv_src_read(in, in->buf, k);
        if (r <= 0)
            return -1;
        in->base += (uint64_t)r;
    }
    return 0;
}

