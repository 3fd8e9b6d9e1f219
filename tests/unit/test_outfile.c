/*
 * test_outfile.c: hw_outfile_* (hw_writer.h), the whole output file of a
 * command:
 *  - a regular OUT is written as OUT.tmp.PID (rewindable, 0600) and appears
 *    at OUT only at commit; abort leaves the previous OUT as it was and no
 *    temporary file; a failed rename at commit removes the temporary file;
 *  - "-" is fd 1, never closed; /dev/null and a FIFO are written in place
 *    (not rewindable) and stay what they are;
 *  - a symbolic link OUT, a link planted at OUT.tmp.PID, a directory, the
 *    input itself (also named through a link): refused with exact errno and
 *    message, and nothing they point to is changed.
 * Each case asserts what is on disk afterwards, not only the return value.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_dir[64];

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
}

/* The file's content (up to 255 bytes), "" if it cannot be read. */
static const char *content(const char *path)
{
    static char buf[256];
    buf[0] = '\0';
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return buf;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
    return buf;
}

static void tmp_of(char *buf, size_t n, const char *out)
{
    snprintf(buf, n, "%s.tmp.%ld", out, (long)getpid());
}

static void test_regular_commit_and_abort(void)
{
    char out[128], tmp[160], msg[256];
    path_in(out, sizeof out, "out.hprof");
    tmp_of(tmp, sizeof tmp, out);
    int err = 0;
    hw_outfile *o = hw_outfile_open(out, NULL, &err, msg, sizeof msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_STRING_EQUAL(hw_outfile_name(o), tmp);
    CU_ASSERT_EQUAL(hw_outfile_rewindable(o), 1);
    CU_ASSERT_EQUAL(write(hw_outfile_fd(o), "first", 5), 5);
    CU_ASSERT_EQUAL(access(out, F_OK), -1); /* nothing at OUT before commit */
    CU_ASSERT_EQUAL(hw_outfile_commit(o, msg, sizeof msg), 0);
    CU_ASSERT_STRING_EQUAL(content(out), "first");
    CU_ASSERT_EQUAL(access(tmp, F_OK), -1);
    struct stat st;
    CU_ASSERT(lstat(out, &st) == 0 && (st.st_mode & 07777) == 0600);

    /* a failed run: abort; the previous OUT is kept */
    o = hw_outfile_open(out, NULL, &err, msg, sizeof msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(write(hw_outfile_fd(o), "half", 4), 4);
    CU_ASSERT_STRING_EQUAL(content(out), "first");
    hw_outfile_abort(o);
    CU_ASSERT_STRING_EQUAL(content(out), "first");
    CU_ASSERT_EQUAL(access(tmp, F_OK), -1);

    /* through the stream: replaced whole (a new inode) */
    ino_t before = st.st_ino;
    o = hw_outfile_open(out, NULL, &err, msg, sizeof msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    FILE *f = hw_outfile_stream(o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fputs("second", f) >= 0, 1);
    CU_ASSERT_EQUAL(hw_outfile_commit(o, msg, sizeof msg), 0);
    CU_ASSERT_STRING_EQUAL(content(out), "second");
    CU_ASSERT(lstat(out, &st) == 0 && st.st_ino != before);
    unlink(out);
}

static void test_rename_failure(void)
{
    char out[128], tmp[160], inner[160], msg[256], want[400];
    path_in(out, sizeof out, "becomes-a-dir");
    tmp_of(tmp, sizeof tmp, out);
    int err = 0;
    hw_outfile *o = hw_outfile_open(out, NULL, &err, msg, sizeof msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    /* OUT turns into a non-empty directory meanwhile: rename(2) fails */
    CU_ASSERT_EQUAL_FATAL(mkdir(out, 0700), 0);
    snprintf(inner, sizeof inner, "%s/x", out);
    put(inner, "x");
    CU_ASSERT_EQUAL(hw_outfile_commit(o, msg, sizeof msg), EISDIR);
    snprintf(want, sizeof want, "%s: cannot rename %s over it: %s", out, tmp, strerror(EISDIR));
    CU_ASSERT_STRING_EQUAL(msg, want);
    CU_ASSERT_EQUAL(access(tmp, F_OK), -1);
    CU_ASSERT_STRING_EQUAL(content(inner), "x");
    unlink(inner);
    rmdir(out);
}

static void test_stdout_and_devices(void)
{
    char msg[256];
    int err = 0;
    hw_outfile *o = hw_outfile_open("-", NULL, &err, msg, sizeof msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(hw_outfile_fd(o), 1);
    CU_ASSERT_EQUAL(hw_outfile_rewindable(o), 0);
    CU_ASSERT_STRING_EQUAL(hw_outfile_name(o), "(stdout)");
    CU_ASSERT_PTR_EQUAL(hw_outfile_stream(o), stdout);
    CU_ASSERT_EQUAL(hw_outfile_commit(o, msg, sizeof msg), 0);
    CU_ASSERT(fcntl(1, F_GETFD) >= 0); /* still open */

    o = hw_outfile_open("/dev/null", NULL, &err, msg, sizeof msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(hw_outfile_rewindable(o), 0);
    CU_ASSERT_STRING_EQUAL(hw_outfile_name(o), "/dev/null");
    CU_ASSERT_EQUAL(write(hw_outfile_fd(o), "x", 1), 1);
    hw_outfile_abort(o);
    struct stat st;
    CU_ASSERT(lstat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));

    /* a FIFO with a reader: in place, the reader gets the bytes */
    char fifo[128];
    path_in(fifo, sizeof fifo, "fifo");
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);
    CU_ASSERT_FATAL(rd >= 0);
    o = hw_outfile_open(fifo, NULL, &err, msg, sizeof msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(hw_outfile_rewindable(o), 0);
    CU_ASSERT_EQUAL(write(hw_outfile_fd(o), "bytes", 5), 5);
    CU_ASSERT_EQUAL(hw_outfile_commit(o, msg, sizeof msg), 0);
    char buf[16] = {0};
    CU_ASSERT_EQUAL(read(rd, buf, sizeof buf), 5);
    CU_ASSERT_STRING_EQUAL(buf, "bytes");
    close(rd);
    CU_ASSERT(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    unlink(fifo);
}

static void test_refusals(void)
{
    char target[128], link[128], tmp[160], msg[256], want[400];
    path_in(target, sizeof target, "target");
    path_in(link, sizeof link, "link.hprof");
    put(target, "keep");
    CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
    int err = 0;
    CU_ASSERT_PTR_NULL(hw_outfile_open(link, NULL, &err, msg, sizeof msg));
    CU_ASSERT_EQUAL(err, ELOOP);
    snprintf(want, sizeof want, "%s: it is a symbolic link; refusing to write through it", link);
    CU_ASSERT_STRING_EQUAL(msg, want);
    CU_ASSERT_STRING_EQUAL(content(target), "keep");

    /* a link planted at the temporary name */
    char out[128];
    path_in(out, sizeof out, "planted.hprof");
    tmp_of(tmp, sizeof tmp, out);
    CU_ASSERT_EQUAL_FATAL(symlink(target, tmp), 0);
    err = 0;
    CU_ASSERT_PTR_NULL(hw_outfile_open(out, NULL, &err, msg, sizeof msg));
    CU_ASSERT_EQUAL(err, EEXIST);
    snprintf(want, sizeof want, "%s: it is a symbolic link; refusing to write through it", tmp);
    CU_ASSERT_STRING_EQUAL(msg, want);
    CU_ASSERT_STRING_EQUAL(content(target), "keep");
    struct stat st;
    CU_ASSERT(lstat(tmp, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT_EQUAL(access(out, F_OK), -1);
    unlink(tmp);

    /* the input itself, by its name and through a link to it */
    err = 0;
    CU_ASSERT_PTR_NULL(hw_outfile_open(target, target, &err, msg, sizeof msg));
    CU_ASSERT_EQUAL(err, EINVAL);
    snprintf(want, sizeof want, "%s: it is the input file; refusing to overwrite it", target);
    CU_ASSERT_STRING_EQUAL(msg, want);
    err = 0;
    CU_ASSERT_PTR_NULL(hw_outfile_open(target, link, &err, msg, sizeof msg));
    CU_ASSERT_EQUAL(err, EINVAL);
    CU_ASSERT_STRING_EQUAL(content(target), "keep");
    unlink(link);
    /* another input: fine */
    hw_outfile *o = hw_outfile_open(target, "/dev/null", &err, msg, sizeof msg);
    CU_ASSERT_PTR_NOT_NULL(o);
    hw_outfile_abort(o);
    CU_ASSERT_STRING_EQUAL(content(target), "keep");

    /* a directory; a missing directory */
    err = 0;
    CU_ASSERT_PTR_NULL(hw_outfile_open(g_dir, NULL, &err, msg, sizeof msg));
    CU_ASSERT_EQUAL(err, EINVAL);
    char deep[160];
    snprintf(deep, sizeof deep, "%s/no/such.hprof", g_dir);
    err = 0;
    CU_ASSERT_PTR_NULL(hw_outfile_open(deep, NULL, &err, msg, sizeof msg));
    CU_ASSERT_EQUAL(err, ENOENT);
    err = 0;
    CU_ASSERT_PTR_NULL(hw_outfile_open("", NULL, &err, msg, sizeof msg));
    CU_ASSERT_EQUAL(err, EINVAL);
    unlink(target);
}

static int suite_init(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/hprof-outfile-XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int suite_clean(void)
{
    return rmdir(g_dir);
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("whole output files", suite_init, suite_clean);
    if (!s)
        return -1;
    if (!CU_add_test(s, "regular OUT: temporary, commit, abort", test_regular_commit_and_abort) ||
        !CU_add_test(s, "a failed rename removes the temporary file", test_rename_failure) ||
        !CU_add_test(s, "stdout, /dev/null, a FIFO: in place", test_stdout_and_devices) ||
        !CU_add_test(s, "links, planted links, the input, directories: refused", test_refusals))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
