/*
 * test_files.c: how libhprofwriter opens output files (hw_file_create,
 * hw_sink_file, hw_sink_file_ex; the rules are in hw_writer.h).
 *
 *  - a new file is created with mode 0600 (under umask 022, where 0644
 *    used to come out), written, and its content is the writer's;
 *  - a symbolic link at the path, pointing at an existing file or nowhere,
 *    is refused (ELOOP, "symbolic link" in the reason) in every mode: the
 *    file it points to keeps its content and mode, a dangling link's target
 *    is not created (also with HW_FILE_NEW, where it counts as existing);
 *  - an existing regular file of ours is truncated and keeps its mode; one
 *    with a second hard link is refused (EMLINK), so is another user's
 *    (EPERM; needs root to make one), and neither is changed;
 *  - /dev/null (a character device) is accepted, a socket refused (EINVAL);
 *  - a FIFO of another user without a reader is refused at once (no open
 *    that blocks until someone reads);
 *  - HW_FILE_NEW refuses any existing file (EEXIST); HW_FILE_FRESH replaces
 *    a stale regular file of ours by a new one (another inode), and refuses
 *    a link or another user's file.
 * Each case asserts what is on disk afterwards, not only the return value:
 * root ignores file modes, so only the victim's content proves anything.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define NOBODY_UID 65534u
#define NOBODY_GID 65534u

static char g_dir[64];

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
}

static void put(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    fchmod(fd, mode);
    close(fd);
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

static mode_t mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? st.st_mode & 07777 : 0;
}

/* A writer on the sink, one UTF8 record, closed: 0 or the error. */
static int write_something(hw_sink *s)
{
    hw_options o;
    hw_options_init(&o);
    int err = 0;
    hw_writer *w = hw_writer_open(s, &o, &err);
    if (!w)
        return err;
    hw_utf8z(w, 1, "x");
    return hw_writer_close(w, NULL, 0);
}

static void test_new_file_0600(void)
{
    char p[128];
    path_in(p, sizeof p, "new.hprof");
    mode_t old = umask(022);
    int err = 0;
    hw_sink *s = hw_sink_file(p, &err);
    umask(old);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(write_something(s), 0);
    CU_ASSERT_EQUAL(mode_of(p), 0600);
    CU_ASSERT(strncmp(content(p), "JAVA PROFILE 1.0.2", 18) == 0);
    unlink(p);
}

static void test_symlink_refused(void)
{
    char victim[128], link_[128], dangling[128], target[128];
    path_in(victim, sizeof victim, "victim");
    path_in(link_, sizeof link_, "link.hprof");
    path_in(dangling, sizeof dangling, "dangling.hprof");
    path_in(target, sizeof target, "not-there");
    put(victim, "secret", 0600);
    CU_ASSERT_FATAL(symlink(victim, link_) == 0);
    CU_ASSERT_FATAL(symlink(target, dangling) == 0);
    const unsigned modes[] = {0, HW_FILE_NEW, HW_FILE_FRESH, HW_FILE_READ};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        int err = 0;
        char why[256] = "";
        hw_sink *s = hw_sink_file_ex(link_, modes[i], &err, why, sizeof why);
        CU_ASSERT_PTR_NULL(s);
        if (s)
            hw_sink_free(s);
        CU_ASSERT(err == ELOOP || err == EEXIST);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "symbolic link"));
        CU_ASSERT_STRING_EQUAL(content(victim), "secret");
        CU_ASSERT_EQUAL(mode_of(victim), 0600);
        s = hw_sink_file_ex(dangling, modes[i], &err, why, sizeof why);
        CU_ASSERT_PTR_NULL(s);
        if (s)
            hw_sink_free(s);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "symbolic link"));
        CU_ASSERT(access(target, F_OK) != 0); /* the link's target was not created */
    }
    unlink(link_);
    unlink(dangling);
    unlink(victim);
}

static void test_overwrite_rules(void)
{
    char own[128], hard[128], other[128];
    path_in(own, sizeof own, "own.hprof");
    path_in(hard, sizeof hard, "hard.hprof");
    path_in(other, sizeof other, "other.hprof");
    /* our own file: truncated, keeps its mode */
    put(own, "an old profile, longer than the new one will be", 0640);
    int err = 0;
    char why[256];
    hw_sink *s = hw_sink_file_ex(own, 0, &err, why, sizeof why);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(write_something(s), 0);
    CU_ASSERT(strncmp(content(own), "JAVA PROFILE 1.0.2", 18) == 0);
    CU_ASSERT(strstr(content(own), "old profile") == NULL);
    CU_ASSERT_EQUAL(mode_of(own), 0640);
    /* a second hard link (to someone's file): refused, untouched */
    put(own, "secret", 0600);
    CU_ASSERT_FATAL(link(own, hard) == 0);
    s = hw_sink_file_ex(hard, 0, &err, why, sizeof why);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_EQUAL(err, EMLINK);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "hard links"));
    CU_ASSERT_STRING_EQUAL(content(own), "secret");
    s = hw_sink_file_ex(hard, HW_FILE_FRESH, &err, why, sizeof why);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_EQUAL(err, EEXIST);
    CU_ASSERT_STRING_EQUAL(content(hard), "secret");
    unlink(hard);
    /* HW_FILE_NEW: never an existing file */
    s = hw_sink_file_ex(own, HW_FILE_NEW, &err, why, sizeof why);
    CU_ASSERT_PTR_NULL(s);
    CU_ASSERT_EQUAL(err, EEXIST);
    CU_ASSERT_STRING_EQUAL(content(own), "secret");
    /* HW_FILE_FRESH: a stale file of ours becomes a new one */
    /* (0644 before: a file truncated in place would keep that mode) */
    CU_ASSERT_FATAL(chmod(own, 0644) == 0);
    struct stat after;
    int fd = hw_file_create(own, HW_FILE_FRESH, &err, why, sizeof why);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(fstat(fd, &after) == 0);
    CU_ASSERT_EQUAL(after.st_size, 0);
    CU_ASSERT_EQUAL(after.st_mode & 07777, 0600);
    close(fd);
    unlink(own);
    /* another user's file: needs root to make one */
    if (geteuid() != 0) {
        printf("\n  (not root: another user's file not tested)\n");
        return;
    }
    put(other, "theirs", 0666);
    CU_ASSERT_FATAL(chown(other, NOBODY_UID, NOBODY_GID) == 0);
    const unsigned modes[] = {0, HW_FILE_FRESH};
    for (size_t i = 0; i < 2; i++) {
        s = hw_sink_file_ex(other, modes[i], &err, why, sizeof why);
        CU_ASSERT_PTR_NULL(s);
        CU_ASSERT_EQUAL(err, modes[i] ? EEXIST : EPERM);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "owned by another user (uid 65534)"));
        CU_ASSERT_STRING_EQUAL(content(other), "theirs");
    }
    unlink(other);
}

static void test_devices_and_fifos(void)
{
    int err = 0;
    char why[256];
    int fd = hw_file_create("/dev/null", 0, &err, why, sizeof why);
    CU_ASSERT(fd >= 0);
    if (fd >= 0) {
        CU_ASSERT_EQUAL(write(fd, "x", 1), 1);
        close(fd);
    }
    /* a socket: no file at all */
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    char *sock = sa.sun_path; /* g_dir is short: the path fits */
    path_in(sock, sizeof sa.sun_path, "sock.hprof");
    int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
    CU_ASSERT_FATAL(sfd >= 0 && bind(sfd, (struct sockaddr *)&sa, sizeof sa) == 0);
    fd = hw_file_create(sock, 0, &err, why, sizeof why);
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT_EQUAL(err, EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "not a regular file"));
    unlink(sock);
    close(sfd);
    if (geteuid() != 0) {
        printf("\n  (not root: another user's FIFO not tested)\n");
        return;
    }
    char fifo[128];
    path_in(fifo, sizeof fifo, "fifo.hprof");
    CU_ASSERT_FATAL(mkfifo(fifo, 0666) == 0);
    CU_ASSERT_FATAL(chown(fifo, NOBODY_UID, NOBODY_GID) == 0);
    alarm(10); /* a blocking open would hang the test: fail it instead */
    fd = hw_file_create(fifo, 0, &err, why, sizeof why);
    alarm(0);
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT_EQUAL(err, EPERM);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "FIFO owned by another user"));
    if (fd >= 0)
        close(fd);
    unlink(fifo);
}

static int suite_init(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/hprof-files-XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int suite_clean(void)
{
    return rmdir(g_dir);
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("output files", suite_init, suite_clean);
    if (!s)
        return -1;
    if (!CU_add_test(s, "a new file is 0600", test_new_file_0600) ||
        !CU_add_test(s, "a symbolic link is refused, its target untouched", test_symlink_refused) ||
        !CU_add_test(s, "overwrite: ours yes; hard-linked, other user's, existing (NEW) no",
                     test_overwrite_rules) ||
        !CU_add_test(s, "/dev/null yes; a socket, another user's FIFO (without blocking) no",
                     test_devices_and_fifos))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
