/*
 * test_opts.c: the agent's option parser (agent/opts.c), without a JVM.
 *
 *  - every default, and the heap default that only applies when no cpu,
 *    monitor=y or heap was asked for;
 *  - every option with every value it accepts, repeated options, the
 *    derived settings (cpu=old keeps 2 frames, debug=y with format=b adds
 *    logflags 4);
 *  - every refusal: the message starts with "hprof option error: ", names
 *    the option and what it accepts, ends with the full option string in
 *    parentheses, is one line, and the opts are left at their defaults;
 *  - the cross-checks of format=b with cpu=times|old and monitor=y;
 *  - _JAVA_HPROF_OPTIONS appended after a comma; help alone or combined;
 *  - gzip=y|n: implied by file=*.gz, refused with net=;
 *  - the output name with force=y|n, text and binary, .txt in any case,
 *    .gz kept last;
 *  - the help text lists every public option.
 */
#include "testutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

#define ERRLEN 8192

/* Parses and expects success; the opts are left for the caller to check. */
static int ok(opts *o, const char *s, const char *env)
{
    char err[ERRLEN];
    int rc = opts_parse(o, s, env, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "\n  unexpected refusal of \"%s\": %s\n", s ? s : "(null)", err);
    return rc;
}

/* Parses and expects a refusal whose message holds every one of the
 * NULL-terminated `needles`. */
static void bad(const char *s, const char *env, ...)
{
    opts o;
    opts_init(&o);
    char err[ERRLEN];
    memset(err, 'x', sizeof err);
    int rc = opts_parse(&o, s, env, err, sizeof err);
    CU_ASSERT_EQUAL(rc, -1);
    if (rc != -1) {
        fprintf(stderr, "\n  \"%s\" was accepted\n", s);
        opts_cleanup(&o);
        return;
    }
    CU_ASSERT(strncmp(err, "hprof option error: ", 20) == 0);
    CU_ASSERT(strchr(err, '\n') == NULL);
    /* The full option string closes the message. */
    char tail[ERRLEN];
    const char *sv = s ? s : "";
    const char *ev = env ? env : "";
    snprintf(tail, sizeof tail, "(%s%s%s)", sv, (*sv && *ev) ? "," : "", ev);
    for (char *p = tail; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    size_t el = strlen(err), tl = strlen(tail);
    int tail_ok = el >= tl && strcmp(err + el - tl, tail) == 0;
    if (!tail_ok)
        fprintf(stderr, "\n  message \"%s\" does not end with \"%s\"\n", err, tail);
    CU_ASSERT(tail_ok);
    va_list ap;
    va_start(ap, env);
    for (const char *n; (n = va_arg(ap, const char *)) != NULL;) {
        if (!strstr(err, n))
            fprintf(stderr, "\n  message \"%s\" lacks \"%s\"\n", err, n);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, n));
    }
    va_end(ap);
    /* Back at the defaults, holding nothing. */
    opts d;
    opts_init(&d);
    CU_ASSERT(memcmp(&o, &d, sizeof o) == 0);
    opts_cleanup(&o);
}

/* ------------------------------------------------------------ defaults */

static void check_defaults(const opts *o)
{
    CU_ASSERT_EQUAL(o->cpu, OPTS_CPU_OFF);
    CU_ASSERT_EQUAL(o->monitor, 0);
    CU_ASSERT_EQUAL(o->binary, 0);
    CU_ASSERT_PTR_NULL(o->file);
    CU_ASSERT_PTR_NULL(o->net_host);
    CU_ASSERT_EQUAL(o->net, 0);
    CU_ASSERT_EQUAL(o->net_port, 0);
    CU_ASSERT_EQUAL(o->depth, 4);
    CU_ASSERT_EQUAL(o->interval_ms, 10);
    CU_ASSERT_DOUBLE_EQUAL(o->cutoff, 0.0001, 0.0);
    CU_ASSERT_EQUAL(o->lineno, 1);
    CU_ASSERT_EQUAL(o->thread, 0);
    CU_ASSERT_EQUAL(o->doe, 1);
    CU_ASSERT_EQUAL(o->msa, 0);
    CU_ASSERT_EQUAL(o->force, 1);
    CU_ASSERT_EQUAL(o->verbose, 1);
    CU_ASSERT_EQUAL(o->gc_okay, 1);
    CU_ASSERT_EQUAL(o->primfields, 1);
    CU_ASSERT_EQUAL(o->primarrays, 1);
    CU_ASSERT_EQUAL(o->logflags, 0);
    CU_ASSERT_EQUAL(o->debugflags, 0);
    CU_ASSERT_EQUAL(o->experiment, 0);
    CU_ASSERT_EQUAL(o->coredump, 0);
    CU_ASSERT_EQUAL(o->errorexit, 0);
    CU_ASSERT_EQUAL(o->pause, 0);
    CU_ASSERT_EQUAL(o->debug, 0);
    CU_ASSERT_EQUAL(o->sample_bytes, 0);
    CU_ASSERT_EQUAL(o->id_size, 8);
    CU_ASSERT_EQUAL(o->net_timeout_s, 30);
    CU_ASSERT_EQUAL(o->help, 0);
}

static void test_defaults(void)
{
    opts o;
    opts_init(&o);
    check_defaults(&o);
    CU_ASSERT_EQUAL(o.heap_dump, 0); /* decided by opts_parse */
    CU_ASSERT_PTR_NULL(o.options);

    const char *empties[] = { NULL, "" };
    for (size_t i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(ok(&o, empties[i], NULL), 0);
        check_defaults(&o);
        CU_ASSERT_EQUAL(o.heap_dump, 1);
        CU_ASSERT_EQUAL(o.heap_sites, 1);
        CU_ASSERT_PTR_NOT_NULL(o.options);
    }
    CU_ASSERT_EQUAL(ok(&o, "", ""), 0);
    CU_ASSERT_STRING_EQUAL(o.options, "");
    opts_cleanup(&o);
    CU_ASSERT_PTR_NULL(o.options);
}

static void test_heap_default(void)
{
    opts o;
    opts_init(&o);
    struct {
        const char *s;
        int dump, sites;
    } t[] = {
        { "heap=dump", 1, 0 },
        { "heap=sites", 0, 1 },
        { "heap=all", 1, 1 },
        { "heap=dump,heap=sites", 1, 1 }, /* values add up */
        { "heap=sites,heap=sites", 0, 1 },
        { "cpu=samples", 0, 0 },
        { "cpu=y", 0, 0 },
        { "cpu=times", 0, 0 },
        { "cpu=old", 0, 0 },
        { "monitor=y", 0, 0 },
        { "monitor=n", 1, 1 }, /* off is not "asked for" */
        { "cpu=samples,heap=sites", 0, 1 },
        { "monitor=y,heap=dump", 1, 0 },
        { "depth=2,format=b", 1, 1 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(ok(&o, t[i].s, NULL), 0);
        if (o.heap_dump != t[i].dump || o.heap_sites != t[i].sites)
            fprintf(stderr, "\n  %s: dump %d sites %d\n", t[i].s, o.heap_dump, o.heap_sites);
        CU_ASSERT_EQUAL(o.heap_dump, t[i].dump);
        CU_ASSERT_EQUAL(o.heap_sites, t[i].sites);
    }
    opts_cleanup(&o);
}

/* ------------------------------------------------------------ values */

static void test_cpu_monitor_format(void)
{
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL(ok(&o, "cpu=samples", NULL), 0);
    CU_ASSERT_EQUAL(o.cpu, OPTS_CPU_SAMPLES);
    CU_ASSERT_EQUAL(o.depth, 4);
    CU_ASSERT_EQUAL(ok(&o, "cpu=y", NULL), 0);
    CU_ASSERT_EQUAL(o.cpu, OPTS_CPU_SAMPLES);
    CU_ASSERT_EQUAL(ok(&o, "cpu=times,depth=9", NULL), 0);
    CU_ASSERT_EQUAL(o.cpu, OPTS_CPU_TIMES);
    CU_ASSERT_EQUAL(o.depth, 9);
    /* cpu=old keeps two frames whatever depth says, as in the original. */
    CU_ASSERT_EQUAL(ok(&o, "depth=9,cpu=old", NULL), 0);
    CU_ASSERT_EQUAL(o.cpu, OPTS_CPU_OLD);
    CU_ASSERT_EQUAL(o.depth, 2);
    CU_ASSERT_EQUAL(ok(&o, "cpu=old,depth=0", NULL), 0);
    CU_ASSERT_EQUAL(o.depth, 2);
    /* Last one wins. */
    CU_ASSERT_EQUAL(ok(&o, "cpu=times,cpu=samples", NULL), 0);
    CU_ASSERT_EQUAL(o.cpu, OPTS_CPU_SAMPLES);

    CU_ASSERT_EQUAL(ok(&o, "monitor=y", NULL), 0);
    CU_ASSERT_EQUAL(o.monitor, 1);
    CU_ASSERT_EQUAL(ok(&o, "monitor=y,monitor=n", NULL), 0);
    CU_ASSERT_EQUAL(o.monitor, 0);

    CU_ASSERT_EQUAL(ok(&o, "format=b", NULL), 0);
    CU_ASSERT_EQUAL(o.binary, 1);
    CU_ASSERT_EQUAL(ok(&o, "format=a", NULL), 0);
    CU_ASSERT_EQUAL(o.binary, 0);
    CU_ASSERT_EQUAL(ok(&o, "format=b,format=a", NULL), 0);
    CU_ASSERT_EQUAL(o.binary, 0);
    /* What format=b does allow. */
    CU_ASSERT_EQUAL(ok(&o, "format=b,cpu=samples,heap=all,monitor=n", NULL), 0);
    CU_ASSERT_EQUAL(o.cpu, OPTS_CPU_SAMPLES);
    /* A refused combination can be cured later in the string. */
    CU_ASSERT_EQUAL(ok(&o, "format=b,cpu=times,cpu=samples", NULL), 0);
    CU_ASSERT_EQUAL(ok(&o, "monitor=y,format=b,monitor=n", NULL), 0);
    opts_cleanup(&o);
}

static void test_yes_no(void)
{
    static const struct {
        const char *name;
        size_t off;
    } t[] = {
        { "monitor", offsetof(opts, monitor) },     { "lineno", offsetof(opts, lineno) },
        { "thread", offsetof(opts, thread) },       { "doe", offsetof(opts, doe) },
        { "msa", offsetof(opts, msa) },             { "force", offsetof(opts, force) },
        { "verbose", offsetof(opts, verbose) },     { "gc_okay", offsetof(opts, gc_okay) },
        { "primfields", offsetof(opts, primfields) },
        { "primarrays", offsetof(opts, primarrays) },
        { "coredump", offsetof(opts, coredump) },   { "errorexit", offsetof(opts, errorexit) },
        { "pause", offsetof(opts, pause) },         { "debug", offsetof(opts, debug) },
        { "gzip", offsetof(opts, gzip) },
    };
    opts o;
    opts_init(&o);
    char s[64], item[64];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        for (int v = 0; v < 2; v++) {
            snprintf(s, sizeof s, "%s=%c", t[i].name, v ? 'y' : 'n');
            CU_ASSERT_EQUAL_FATAL(ok(&o, s, NULL), 0);
            CU_ASSERT_EQUAL(*(int *)((char *)&o + t[i].off), v);
        }
        const char *badv[] = { "Y", "N", "yes", "no", "1", "0", "true", "y ", " n", "yy" };
        for (size_t j = 0; j < sizeof badv / sizeof badv[0]; j++) {
            snprintf(s, sizeof s, "%s=%s", t[i].name, badv[j]);
            snprintf(item, sizeof item, "%s must be y or n", t[i].name);
            bad(s, NULL, s, item, (char *)NULL);
        }
        snprintf(s, sizeof s, "%s=", t[i].name);
        snprintf(item, sizeof item, "%s needs a value", t[i].name);
        bad(s, NULL, item, "y or n", (char *)NULL);
        snprintf(s, sizeof s, "%s", t[i].name);
        bad(s, NULL, item, "y or n", (char *)NULL);
    }
    opts_cleanup(&o);
}

static void test_file(void)
{
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL(ok(&o, "file=out.txt", NULL), 0);
    CU_ASSERT_STRING_EQUAL(o.file, "out.txt");
    CU_ASSERT_EQUAL(o.net, 0);
    CU_ASSERT_EQUAL(ok(&o, "file=/tmp/a b/x=y:z.hprof,format=b", NULL), 0);
    CU_ASSERT_STRING_EQUAL(o.file, "/tmp/a b/x=y:z.hprof");
    CU_ASSERT_EQUAL(ok(&o, "file=\xc3\xa9t\xc3\xa9.txt", NULL), 0); /* UTF-8 as given */
    CU_ASSERT_STRING_EQUAL(o.file, "\xc3\xa9t\xc3\xa9.txt");

    char longname[OPTS_FILE_MAX + 16];
    strcpy(longname, "file=");
    memset(longname + 5, 'f', OPTS_FILE_MAX);
    longname[5 + OPTS_FILE_MAX] = '\0';
    CU_ASSERT_EQUAL(ok(&o, longname, NULL), 0);
    CU_ASSERT_EQUAL(strlen(o.file), OPTS_FILE_MAX);
    strcat(longname, "f");
    bad(longname, NULL, "file must be a file name of at most 4096 bytes", "...", (char *)NULL);

    bad("file=", NULL, "file=: file needs a value", (char *)NULL);
    bad("file", NULL, "file: file needs a value", (char *)NULL);
    bad("file=a,file=b", NULL, "file=b: file and net may be given only once", (char *)NULL);
    bad("file=a,net=h:1", NULL, "net=h:1: file and net may be given only once", (char *)NULL);
    bad("net=h:1,file=a", NULL, "file=a: file and net may be given only once", (char *)NULL);
    bad("net=h:1,net=h:2", NULL, "net=h:2: file and net", (char *)NULL);
    opts_cleanup(&o);
}

static void test_net(void)
{
    opts o;
    opts_init(&o);
    struct {
        const char *s, *host;
        unsigned port;
    } good[] = {
        { "net=localhost:9000", "localhost", 9000 },
        { "net=127.0.0.1:1", "127.0.0.1", 1 },
        { "net=example.org:65535", "example.org", 65535 },
        { "net=[::1]:9000", "::1", 9000 },
        { "net=[fe80::1%eth0]:80", "fe80::1%eth0", 80 },
        { "net=h:00080", "h", 80 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(ok(&o, good[i].s, NULL), 0);
        CU_ASSERT_EQUAL(o.net, 1);
        CU_ASSERT_STRING_EQUAL(o.net_host, good[i].host);
        CU_ASSERT_EQUAL(o.net_port, good[i].port);
        CU_ASSERT_PTR_NULL(o.file);
    }
    const char *acc = "net must be host:port with a port from 1 to 65535";
    bad("net=", NULL, "net=: net needs a value", "host:port", (char *)NULL);
    bad("net", NULL, "net: net needs a value", (char *)NULL);
    bad("net=localhost", NULL, "net=localhost: missing ':port'", acc, (char *)NULL);
    bad("net=localhost:", NULL, "missing port", acc, (char *)NULL);
    bad("net=:9000", NULL, "missing host", acc, (char *)NULL);
    bad("net=h:0", NULL, "net=h:0: the port is not a number from 1 to 65535", (char *)NULL);
    bad("net=h:65536", NULL, "not a number from 1 to 65535", (char *)NULL);
    bad("net=h:99999999999999999999999", NULL, "not a number", (char *)NULL);
    bad("net=h:http", NULL, "not a number", acc, (char *)NULL);
    bad("net=h:-1", NULL, "not a number", (char *)NULL);
    bad("net=h:+80", NULL, "not a number", (char *)NULL);
    bad("net=h:80x", NULL, "not a number", (char *)NULL);
    bad("net=::1:9000", NULL, "an IPv6 address must be written in brackets", (char *)NULL);
    bad("net=[::1:9000", NULL, "missing ']'", (char *)NULL);
    bad("net=[::1]9000", NULL, "missing ':port'", (char *)NULL);
    bad("net=[::1]:", NULL, "missing port", (char *)NULL);
    bad("net=[]:9000", NULL, "missing host", (char *)NULL);
    bad("net=my host:9000", NULL, "bad character in the host name", (char *)NULL);
    bad("net=[::1 ]:9000", NULL, "bad character in the address", (char *)NULL);
    opts_cleanup(&o);
}

static void test_numbers(void)
{
    opts o;
    opts_init(&o);
    /* depth */
    const struct {
        const char *s;
        unsigned v;
    } depths[] = { { "depth=0", 0 }, { "depth=1", 1 }, { "depth=007", 7 },
                   { "depth=1000000", 1000000 } };
    for (size_t i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL_FATAL(ok(&o, depths[i].s, NULL), 0);
        CU_ASSERT_EQUAL(o.depth, depths[i].v);
    }
    const char *dacc = "depth must be a decimal number from 0 to 1000000";
    const char *dbad[] = { "depth=-1",      "depth=1000001", "depth=4x",  "depth=0x10",
                           "depth= 4",      "depth=+4",      "depth=4.0", "depth=1e3",
                           "depth=99999999999999999999999" };
    for (size_t i = 0; i < sizeof dbad / sizeof dbad[0]; i++)
        bad(dbad[i], NULL, dbad[i], dacc, (char *)NULL);
    bad("depth=", NULL, "depth needs a value", "decimal", (char *)NULL);

    /* interval */
    CU_ASSERT_EQUAL(ok(&o, "interval=1", NULL), 0);
    CU_ASSERT_EQUAL(o.interval_ms, 1);
    CU_ASSERT_EQUAL(ok(&o, "interval=2147483647", NULL), 0);
    CU_ASSERT_EQUAL(o.interval_ms, 2147483647u);
    CU_ASSERT_EQUAL(ok(&o, "interval=20,depth=3,cpu=samples", NULL), 0);
    CU_ASSERT_EQUAL(o.interval_ms, 20);
    CU_ASSERT_EQUAL(o.depth, 3);
    const char *iacc = "interval must be a decimal number of milliseconds from 1 to 2147483647";
    const char *ibad[] = { "interval=0", "interval=-5", "interval=2147483648", "interval=1.5",
                           "interval=10ms", "interval=000" };
    for (size_t i = 0; i < sizeof ibad / sizeof ibad[0]; i++)
        bad(ibad[i], NULL, ibad[i], iacc, (char *)NULL);
    bad("interval", NULL, "interval needs a value", (char *)NULL);

    /* cutoff */
    const struct {
        const char *s;
        double v;
    } cuts[] = { { "cutoff=0", 0.0 },      { "cutoff=1", 1.0 },        { "cutoff=0.5", 0.5 },
                 { "cutoff=.25", 0.25 },   { "cutoff=1.", 1.0 },
                 { "cutoff=1e-4", 1e-4 },  { "cutoff=1E-2", 0.01 },    { "cutoff=+0.125", 0.125 },
                 { "cutoff=-0", 0.0 },     { "cutoff=0.001", 0.001 },  { "cutoff=1e-400", 0.0 },
                 { "cutoff=0.1e+1", 1.0 } };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(ok(&o, cuts[i].s, NULL), 0);
        CU_ASSERT_DOUBLE_EQUAL(o.cutoff, cuts[i].v, 0.0);
    }
    CU_ASSERT_EQUAL(ok(&o, "cutoff=-0.0", NULL), 0);
    CU_ASSERT(!signbit(o.cutoff));
    const char *cacc = "cutoff must be a decimal number from 0 to 1";
    const char *cbad[] = { "cutoff=5.",   "cutoff=1.0001", "cutoff=-0.1", "cutoff=nan",
                           "cutoff=inf",  "cutoff=0x0.1",  "cutoff=0.1x", "cutoff=0,1",
                           "cutoff= 0.1", "cutoff=.",      "cutoff=e5",   "cutoff=1e",
                           "cutoff=1e+",  "cutoff=1e999",  "cutoff=--1",  "cutoff=0.1.2" };
    for (size_t i = 0; i < sizeof cbad / sizeof cbad[0]; i++) {
        /* "cutoff=0,1" is cutoff=0 then the unknown option "1". */
        if (strcmp(cbad[i], "cutoff=0,1") == 0)
            bad(cbad[i], NULL, "unknown option 1", (char *)NULL);
        else
            bad(cbad[i], NULL, cbad[i], cacc, (char *)NULL);
    }
    bad("cutoff=", NULL, "cutoff needs a value", (char *)NULL);
    opts_cleanup(&o);
}

static void test_sample_idsize(void)
{
    opts o;
    opts_init(&o);
    const struct {
        const char *s;
        uint64_t v;
    } t[] = { { "sample=0", 0 },
              { "sample=1", 1 },
              { "sample=524288", 524288 },
              { "sample=512k", 524288 },
              { "sample=512K", 524288 },
              { "sample=1m", 1048576 },
              { "sample=2M", 2097152 },
              { "sample=0k", 0 },
              { "sample=2097151k", 2097151ull * 1024 },
              { "sample=2047m", 2047ull << 20 },
              { "sample=2147483647", 2147483647 } };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        CU_ASSERT_EQUAL_FATAL(ok(&o, t[i].s, NULL), 0);
        CU_ASSERT_EQUAL(o.sample_bytes, t[i].v);
    }
    const char *sacc = "sample must be a number of bytes from 0 to 2147483647";
    const char *sbad[] = { "sample=2147483648", "sample=2048m", "sample=2097152k", "sample=k",
                           "sample=1g",         "sample=1kb",   "sample=-1",       "sample=1.5m",
                           "sample=0x100",      "sample=1 k",   "sample=1kk",
                           "sample=99999999999999999999999999k" };
    for (size_t i = 0; i < sizeof sbad / sizeof sbad[0]; i++)
        bad(sbad[i], NULL, sbad[i], sacc, "suffix k or m", (char *)NULL);
    bad("sample=", NULL, "sample needs a value", (char *)NULL);

    CU_ASSERT_EQUAL(ok(&o, "idsize=4,format=b,heap=dump", NULL), 0);
    CU_ASSERT_EQUAL(o.id_size, 4);
    CU_ASSERT_EQUAL(ok(&o, "idsize=4,format=b,heap=sites", NULL), 0);
    CU_ASSERT_EQUAL(o.id_size, 4);
    /* heap=all (explicit, or the default): site tags are 64-bit ids */
    bad("idsize=4,format=b", NULL, "idsize=4", "heap=all", "idsize=8", (char *)NULL);
    bad("idsize=4,heap=all,format=b", NULL, "idsize=4", "heap=all", (char *)NULL);
    CU_ASSERT_EQUAL(ok(&o, "idsize=8", NULL), 0);
    CU_ASSERT_EQUAL(o.id_size, 8);
    const char *ibad[] = { "idsize=2", "idsize=16", "idsize=04", "idsize=four", "idsize=8 " };
    for (size_t i = 0; i < sizeof ibad / sizeof ibad[0]; i++)
        bad(ibad[i], NULL, ibad[i], "idsize must be 4 or 8", (char *)NULL);
    bad("idsize", NULL, "idsize needs a value", (char *)NULL);
    opts_cleanup(&o);
}

static void test_redact(void)
{
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL(o.redact, 0);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "heap=dump,redact=y", NULL), 0);
    CU_ASSERT_EQUAL(o.redact, 1);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "heap=all,format=b,redact=n", NULL), 0);
    CU_ASSERT_EQUAL(o.redact, 0);
    bad("redact=yes", NULL, "redact must be y or n", (char *)NULL);
    opts_cleanup(&o);
}

/* gzip=y|n, implied by file=*.gz, refused with net=; the names it gives */
static void test_gzip(void)
{
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "heap=all,format=b", NULL), 0);
    CU_ASSERT_EQUAL(o.gzip, 0);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "heap=all,format=b,file=x.hprof.gz", NULL), 0);
    CU_ASSERT_EQUAL(o.gzip, 1);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "file=x.hprof.GZ", NULL), 0); /* as gzip -S: exactly .gz */
    CU_ASSERT_EQUAL(o.gzip, 0);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "file=x.hprof.gz,gzip=n", NULL), 0); /* said: as said */
    CU_ASSERT_EQUAL(o.gzip, 0);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "gzip=n,file=.gz", NULL), 0);
    CU_ASSERT_EQUAL(o.gzip, 0);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "file=x.hprof,gzip=y,format=b", NULL), 0);
    CU_ASSERT_EQUAL(o.gzip, 1);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "format=a,gzip=y", NULL), 0); /* the text, compressed */
    CU_ASSERT_EQUAL(o.gzip, 1);
    bad("net=h:1,gzip=y", NULL, "gzip=y cannot be combined with net=", "use file=", (char *)NULL);
    bad("gzip=y,net=localhost:9", NULL, "gzip=y cannot be combined with net=", (char *)NULL);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "net=h:1,gzip=n", NULL), 0);
    CU_ASSERT_EQUAL(o.gzip, 0);
    bad("gzip=1", NULL, "gzip must be y or n", (char *)NULL);
    opts_cleanup(&o);
}

static void test_shape(void)
{
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL(o.shape_original, 0); /* HotSpot's root kinds by default */
    CU_ASSERT_EQUAL_FATAL(ok(&o, "heap=dump,shape=original", NULL), 0);
    CU_ASSERT_EQUAL(o.shape_original, 1);
    CU_ASSERT_EQUAL_FATAL(ok(&o, "heap=dump,shape=hotspot", NULL), 0);
    CU_ASSERT_EQUAL(o.shape_original, 0);
    const char *rbad[] = { "shape=ORIGINAL", "shape=jvmti", "shape=", "shape=hotspot " };
    for (size_t i = 0; i < sizeof rbad / sizeof rbad[0]; i++)
        bad(rbad[i], NULL, "shape", (char *)NULL);
    bad("shape=all", NULL, "shape=all", "shape must be hotspot or original", (char *)NULL);
    bad("roots=jvmti", NULL, "roots", (char *)NULL); /* no such option */
    opts_cleanup(&o);
}

static void test_debug_options(void)
{
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL(ok(&o, "logflags=5,debugflags=0x10,X=010", NULL), 0);
    CU_ASSERT_EQUAL(o.logflags, 5);
    CU_ASSERT_EQUAL(o.debugflags, 16);
    CU_ASSERT_EQUAL(o.experiment, 8);
    CU_ASSERT_EQUAL(ok(&o, "logflags=0,X=0XfF", NULL), 0);
    CU_ASSERT_EQUAL(o.logflags, 0);
    CU_ASSERT_EQUAL(o.experiment, 255);
    CU_ASSERT_EQUAL(ok(&o, "logflags=18446744073709551615", NULL), 0);
    CU_ASSERT_EQUAL(o.logflags, UINT64_MAX);
    /* debug=y with binary output turns on the verification flag. */
    CU_ASSERT_EQUAL(ok(&o, "debug=y,format=b,logflags=1", NULL), 0);
    CU_ASSERT_EQUAL(o.logflags, 5);
    CU_ASSERT_EQUAL(ok(&o, "debug=y,logflags=1", NULL), 0);
    CU_ASSERT_EQUAL(o.logflags, 1);
    CU_ASSERT_EQUAL(ok(&o, "primfields=n,primarrays=n", NULL), 0);
    CU_ASSERT_EQUAL(o.primfields, 0);
    CU_ASSERT_EQUAL(o.primarrays, 0);
    /* gc_okay: obsolete, accepted. */
    CU_ASSERT_EQUAL(ok(&o, "gc_okay=n", NULL), 0);

    const char *names[] = { "logflags", "debugflags", "X" };
    const char *vals[] = { "x", "1x", "-1", "0x", "09", "18446744073709551616", " 1", "0xg" };
    char s[64], acc[80];
    for (size_t i = 0; i < 3; i++) {
        snprintf(acc, sizeof acc, "%s must be a number (decimal, 0x hex or 0 octal)", names[i]);
        for (size_t j = 0; j < sizeof vals / sizeof vals[0]; j++) {
            snprintf(s, sizeof s, "%s=%s", names[i], vals[j]);
            bad(s, NULL, s, acc, (char *)NULL);
        }
        snprintf(s, sizeof s, "%s=", names[i]);
        bad(s, NULL, "needs a value", (char *)NULL);
    }
    /* nettimeout, the test option: seconds 1..3600, default 30 */
    CU_ASSERT_EQUAL(ok(&o, "heap=sites", NULL), 0);
    CU_ASSERT_EQUAL(o.net_timeout_s, 30);
    CU_ASSERT_EQUAL(ok(&o, "nettimeout=3", NULL), 0);
    CU_ASSERT_EQUAL(o.net_timeout_s, 3);
    CU_ASSERT_EQUAL(ok(&o, "nettimeout=3600", NULL), 0);
    CU_ASSERT_EQUAL(o.net_timeout_s, 3600);
    const char *tbad[] = { "nettimeout=0", "nettimeout=3601", "nettimeout=-1", "nettimeout=1.5",
                           "nettimeout=0x10", "nettimeout=99999999999999999999" };
    for (size_t i = 0; i < sizeof tbad / sizeof tbad[0]; i++)
        bad(tbad[i], NULL, tbad[i], "nettimeout must be a decimal number of seconds from 1 to 3600",
            (char *)NULL);
    opts_cleanup(&o);
}

/* ------------------------------------------------------------ errors */

static void test_enum_errors(void)
{
    bad("heap=foo,cpu=samples", NULL,
        "hprof option error: heap=foo: heap must be dump, sites or all (heap=foo,cpu=samples)",
        (char *)NULL);
    bad("heap=", NULL, "heap=: heap needs a value; it must be dump, sites or all", (char *)NULL);
    bad("heap", NULL, "heap: heap needs a value", "dump, sites or all", (char *)NULL);
    bad("heap=Dump", NULL, "heap must be dump, sites or all", (char *)NULL);
    bad("heap=sites,heap=none", NULL, "heap=none: heap must be", (char *)NULL);
    bad("cpu=n", NULL, "cpu=n: cpu must be samples, y, times or old", (char *)NULL);
    bad("cpu=sample", NULL, "cpu must be samples, y, times or old", (char *)NULL);
    bad("cpu=", NULL, "cpu needs a value", "samples, y, times or old", (char *)NULL);
    bad("format=c", NULL, "format=c: format must be a (text) or b (binary)", (char *)NULL);
    bad("format=binary", NULL, "format must be a", (char *)NULL);
    bad("format", NULL, "format needs a value", (char *)NULL);
}

static void test_syntax_errors(void)
{
    bad("heap=sites,,cpu=samples", NULL, "empty option", (char *)NULL);
    bad(",heap=sites", NULL, "empty option", (char *)NULL);
    bad(",", NULL, "empty option", (char *)NULL);
    bad("heap=sites,,", NULL, "empty option", (char *)NULL);
    /* One trailing comma was accepted by the original, and still is. */
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL(ok(&o, "heap=sites,", NULL), 0);
    CU_ASSERT_EQUAL(o.heap_sites, 1);
    opts_cleanup(&o);
    bad("foo=1", NULL, "foo=1: unknown option foo",
        "heap, cpu, monitor, format, file, net, depth, interval, cutoff, lineno, thread, "
        "doe, msa, force, verbose, redact, sample, idsize, shape",
        (char *)NULL);
    bad("heap=sites,Heap=dump", NULL, "unknown option Heap", (char *)NULL);
    bad("=sites", NULL, "unknown option ''", (char *)NULL);
    bad("heap=sites,=", NULL, "unknown option ''", (char *)NULL);
    /* 15 characters is the longest name. */
    bad("abcdefghijklmno=1", NULL, "unknown option abcdefghijklmno", (char *)NULL);
    bad("abcdefghijklmnop=1", NULL, "abcdefghijklmnop=1: option names have at most 15",
        (char *)NULL);
    bad("primarraysprimarrays=y", NULL, "at most 15 characters", (char *)NULL);
    bad("exitpause=y", NULL, "exitpause=y: the exitpause option was removed",
        "-XX:OnError='cmd %p'", (char *)NULL);
    bad("exitpause", NULL, "exitpause option was removed", (char *)NULL);
    bad("precrash=y", NULL, "precrash=y: the precrash option was removed",
        "-XX:OnError='precrash -p %p'", (char *)NULL);
    /* Control characters do not break the line. */
    bad("heap=a\nb", NULL, "heap=a?b: heap must be", (char *)NULL);
    /* A long value is shortened in the item but the full string follows. */
    char lng[300];
    memset(lng, 0, sizeof lng);
    strcpy(lng, "heap=");
    memset(lng + 5, 'z', 200);
    bad(lng, NULL, "zzz...: heap must be", (char *)NULL);
}

static void test_cross_checks(void)
{
    bad("format=b,cpu=times", NULL, "format=b cannot be combined with cpu=times",
        "use format=a", (char *)NULL);
    bad("cpu=old,format=b", NULL, "format=b cannot be combined with cpu=old", (char *)NULL);
    bad("format=b,monitor=y", NULL, "format=b cannot be combined with monitor=y",
        "use format=a", (char *)NULL);
    bad("monitor=y", "format=b", "format=b cannot be combined with monitor=y", (char *)NULL);
    /* The first bad item is reported before the cross-checks. */
    bad("format=b,cpu=times,depth=x", NULL, "depth=x: depth must be", (char *)NULL);
}

static void test_error_buffer(void)
{
    opts o;
    opts_init(&o);
    /* A NULL or tiny buffer: still -1, never an overrun. */
    CU_ASSERT_EQUAL(opts_parse(&o, "heap=foo", NULL, NULL, 0), -1);
    char small[8];
    memset(small, 'x', sizeof small);
    CU_ASSERT_EQUAL(opts_parse(&o, "heap=foo", NULL, small, 1), -1);
    CU_ASSERT_EQUAL(small[0], '\0');
    CU_ASSERT_EQUAL(small[1], 'x');
    CU_ASSERT_EQUAL(opts_parse(&o, "heap=foo", NULL, small, sizeof small), -1);
    CU_ASSERT_STRING_EQUAL(small, "hprof o");
    /* Success clears the message. */
    char err[64] = "stale";
    CU_ASSERT_EQUAL(opts_parse(&o, "heap=sites", NULL, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(err, "");
    /* Reparsing starts from the defaults and frees the old strings. */
    CU_ASSERT_EQUAL(ok(&o, "file=a,depth=7", NULL), 0);
    CU_ASSERT_EQUAL(ok(&o, "net=h:1", NULL), 0);
    CU_ASSERT_PTR_NULL(o.file);
    CU_ASSERT_EQUAL(o.depth, 4);
    CU_ASSERT_EQUAL(opts_parse(&o, "heap=foo", NULL, err, sizeof err), -1);
    CU_ASSERT_PTR_NULL(o.net_host);
    CU_ASSERT_PTR_NULL(o.options);
    opts_cleanup(&o);
    opts_cleanup(&o); /* twice is fine */
}

/* ------------------------------------------------------------ env, help */

static void test_env(void)
{
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL(ok(&o, "heap=sites", "depth=8"), 0);
    CU_ASSERT_STRING_EQUAL(o.options, "heap=sites,depth=8");
    CU_ASSERT_EQUAL(o.depth, 8);
    CU_ASSERT_EQUAL(o.heap_sites, 1);
    CU_ASSERT_EQUAL(o.heap_dump, 0);
    /* The environment comes last, so it wins. */
    CU_ASSERT_EQUAL(ok(&o, "depth=3", "depth=8"), 0);
    CU_ASSERT_EQUAL(o.depth, 8);
    CU_ASSERT_EQUAL(ok(&o, NULL, "cpu=samples"), 0);
    CU_ASSERT_STRING_EQUAL(o.options, "cpu=samples");
    CU_ASSERT_EQUAL(o.cpu, OPTS_CPU_SAMPLES);
    CU_ASSERT_EQUAL(ok(&o, "", "cpu=samples"), 0);
    CU_ASSERT_STRING_EQUAL(o.options, "cpu=samples");
    CU_ASSERT_EQUAL(ok(&o, "cpu=samples", ""), 0);
    CU_ASSERT_STRING_EQUAL(o.options, "cpu=samples");
    /* The env's items count against file/net once. */
    bad("file=a", "file=b", "file=b: file and net may be given only once", (char *)NULL);
    bad("heap=sites", "heap=bogus", "heap=bogus: heap must be", (char *)NULL);
    bad("", "depth=-1", "depth=-1: depth must be", (char *)NULL);
    opts_cleanup(&o);
}

static void test_help(void)
{
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL(ok(&o, "help", NULL), 0);
    CU_ASSERT_EQUAL(o.help, 1);
    /* As in the original, help looks only at the command line. */
    CU_ASSERT_EQUAL(ok(&o, "help", "heap=bogus"), 0);
    CU_ASSERT_EQUAL(o.help, 1);
    CU_ASSERT_EQUAL(ok(&o, NULL, "help"), 0);
    CU_ASSERT_EQUAL(o.help, 1);
    CU_ASSERT_EQUAL(ok(&o, "heap=sites", NULL), 0);
    CU_ASSERT_EQUAL(o.help, 0);
    opts_cleanup(&o);
    bad("help,heap=sites", NULL, "help: help must be given alone", (char *)NULL);
    bad("heap=sites,help", NULL, "help must be given alone", (char *)NULL);
    bad("help=y", NULL, "help=y: help must be given alone", (char *)NULL);
    bad("help,", NULL, "help must be given alone", (char *)NULL);
    bad("HELP", NULL, "unknown option HELP", (char *)NULL);
    bad("heap=sites", "help", "help must be given alone", (char *)NULL);
}

static void test_usage(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    opts_usage(f);
    fclose(f);
    CU_ASSERT(len > 1000);
    const char *must[] = { "heap=dump|sites|all", "cpu=samples|times|old", "monitor=y|n",
                           "format=a|b", "file=", "net=", "depth=", "interval=", "cutoff=",
                           "lineno=y|n", "thread=y|n", "doe=y|n", "msa=y|n", "force=y|n",
                           "verbose=y|n", "sample=", "idsize=4|8", "gzip=y|n", "java.hprof[.txt]",
                           "0.0001", "gc_okay", "_JAVA_HPROF_OPTIONS", "Examples",
                           "cpu=samples,interval=20,depth=3", "heap=sites", "Xrunhprof" };
    for (size_t i = 0; i < sizeof must / sizeof must[0]; i++) {
        if (!strstr(text, must[i]))
            fprintf(stderr, "\n  help lacks \"%s\"\n", must[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, must[i]));
    }
    /* Every example in it parses. */
    for (const char *p = text; (p = strstr(p, "-agentlib:hprof=")) != NULL;) {
        p += strlen("-agentlib:hprof=");
        char ex[128];
        size_t n = strcspn(p, " \n");
        if (n >= sizeof ex)
            n = sizeof ex - 1;
        memcpy(ex, p, n);
        ex[n] = '\0';
        if (strchr(ex, '<') || strchr(ex, '['))
            continue; /* the usage line itself */
        opts o;
        opts_init(&o);
        CU_ASSERT_EQUAL(ok(&o, ex, NULL), 0);
        opts_cleanup(&o);
    }
    /* Lines stay narrow enough for a terminal. */
    for (const char *l = text; *l;) {
        size_t n = strcspn(l, "\n");
        if (n > 100)
            fprintf(stderr, "\n  help line of %zu chars: %.*s\n", n, (int)n, l);
        CU_ASSERT(n <= 100);
        l += n + (l[n] == '\n');
    }
    free(text);
}

/* ------------------------------------------------------------ naming */

/* Injected existence tests, one per scenario: each knows a fixed set. */
static int in_set(const char *const *set, const char *path)
{
    for (; *set; set++)
        if (strcmp(*set, path) == 0)
            return 1;
    return 0;
}

static int exists_none(const char *path)
{
    return 0;
}

static int exists_defaults(const char *path)
{
    static const char *const set[] = { "java.hprof", "java.hprof.txt", NULL };
    return in_set(set, path);
}

static int exists_mine(const char *path)
{
    static const char *const set[] = { "out.txt", "out.TXT", "out.Txt", "out.hprof",
                                       "out",     "a.b.c",   "dir/x.txt", ".txt",
                                       "out.txtx", NULL };
    return in_set(set, path);
}

/* A stale file with our pid in its name is not overwritten either. */
static int exists_stale(const char *path)
{
    static const char *const set[] = { "java.hprof.txt", "java.hprof.42.txt",
                                       "java.hprof.42.2.txt", "java.hprof",
                                       "java.hprof.42", NULL };
    return in_set(set, path);
}

static int exists_gz(const char *path)
{
    static const char *set[] = { "java.hprof.gz", "java.hprof.txt.gz", "d.hprof.gz",
                                 "d.txt.gz", NULL };
    return in_set(set, path);
}

static int exists_all(const char *path)
{
    return 1;
}

static void name_is(const char *optstr, int (*exists)(const char *), long pid,
                    const char *want)
{
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL_FATAL(ok(&o, optstr, NULL), 0);
    char buf[256];
    int rc = opts_output_name(&o, pid, exists, buf, sizeof buf);
    if (rc != 0 || strcmp(buf, want) != 0)
        fprintf(stderr, "\n  %s: got rc %d \"%s\", want \"%s\"\n", optstr, rc, rc ? "" : buf,
                want);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_STRING_EQUAL(buf, want);
    opts_cleanup(&o);
}

static void test_output_name(void)
{
    name_is("", exists_none, 1234, "java.hprof.txt");
    name_is("format=b", exists_none, 1234, "java.hprof");
    name_is("", exists_defaults, 1234, "java.hprof.txt"); /* force=y overwrites */
    name_is("format=b", exists_defaults, 1234, "java.hprof");
    name_is("force=n", exists_none, 1234, "java.hprof.txt");
    name_is("force=n,format=b", exists_none, 1234, "java.hprof");
    name_is("force=n", exists_defaults, 1234, "java.hprof.1234.txt");
    name_is("force=n,format=b", exists_defaults, 1234, "java.hprof.1234");

    name_is("file=out.txt", exists_mine, 1, "out.txt");
    name_is("file=out.txt,force=n", exists_mine, 77, "out.77.txt");
    name_is("file=out.TXT,force=n", exists_mine, 77, "out.77.TXT");
    name_is("file=out.Txt,force=n", exists_mine, 77, "out.77.Txt");
    name_is("file=dir/x.txt,force=n", exists_mine, 5, "dir/x.5.txt");
    name_is("file=.txt,force=n", exists_mine, 5, ".5.txt");
    name_is("file=out,force=n", exists_mine, 5, "out.5");
    name_is("file=out.txtx,force=n", exists_mine, 5, "out.txtx.5");
    name_is("file=a.b.c,force=n", exists_mine, 5, "a.b.c.5");
    name_is("file=out.hprof,force=n", exists_mine, 5, "out.hprof.5");
    /* In binary output .txt is just part of the name. */
    name_is("file=out.txt,force=n,format=b", exists_mine, 5, "out.txt.5");
    name_is("file=new.txt,force=n", exists_mine, 5, "new.txt");

    /* gzip: .gz added to the default names, and kept last with force=n */
    name_is("gzip=y", exists_none, 9, "java.hprof.txt.gz");
    name_is("gzip=y,format=b", exists_none, 9, "java.hprof.gz");
    name_is("gzip=y,format=b,force=n", exists_gz, 9, "java.hprof.9.gz");
    name_is("gzip=y,force=n", exists_gz, 9, "java.hprof.9.txt.gz");
    name_is("file=d.hprof.gz,force=n,format=b", exists_gz, 9, "d.hprof.9.gz");
    name_is("file=d.txt.gz,force=n", exists_gz, 9, "d.9.txt.gz");
    name_is("file=d.txt.gz,force=n,format=b", exists_gz, 9, "d.txt.9.gz");
    name_is("file=d.hprof.gz,force=y,format=b", exists_gz, 9, "d.hprof.gz");
    name_is("force=n", exists_stale, 42, "java.hprof.42.3.txt");
    name_is("force=n,format=b", exists_stale, 42, "java.hprof.42.2");

    /* Too small a buffer. */
    opts o;
    opts_init(&o);
    CU_ASSERT_EQUAL(ok(&o, "force=n", NULL), 0);
    char buf[32];
    CU_ASSERT_EQUAL(opts_output_name(&o, 1234, exists_defaults, buf, 20), 0);
    CU_ASSERT_STRING_EQUAL(buf, "java.hprof.1234.txt");
    CU_ASSERT_EQUAL(opts_output_name(&o, 1234, exists_defaults, buf, 19), -1);
    CU_ASSERT_EQUAL(opts_output_name(&o, 1234, exists_defaults, buf, 0), -1);
    CU_ASSERT_EQUAL(ok(&o, "", NULL), 0);
    CU_ASSERT_EQUAL(opts_output_name(&o, 1234, exists_defaults, buf, 15), 0);
    CU_ASSERT_STRING_EQUAL(buf, "java.hprof.txt");
    CU_ASSERT_EQUAL(opts_output_name(&o, 1234, exists_defaults, buf, 14), -1);
    /* The default existence test: the real file system. */
    CU_ASSERT_EQUAL(ok(&o, "file=/,force=n", NULL), 0);
    CU_ASSERT_EQUAL(opts_output_name(&o, 9, NULL, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "/.9");
    CU_ASSERT_EQUAL(ok(&o, "file=/nonexistent/dir/f.txt,force=n", NULL), 0);
    CU_ASSERT_EQUAL(opts_output_name(&o, 9, NULL, buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "/nonexistent/dir/f.txt");
    /* Every candidate taken. */
    CU_ASSERT_EQUAL(ok(&o, "force=n", NULL), 0);
    CU_ASSERT_EQUAL(opts_output_name(&o, 9, exists_all, buf, sizeof buf), -1);
    opts_cleanup(&o);
}

static int add_suites(void)
{
    CU_pSuite s = CU_add_suite("opts", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "defaults", test_defaults) ||
        !CU_add_test(s, "heap default", test_heap_default) ||
        !CU_add_test(s, "cpu, monitor, format", test_cpu_monitor_format) ||
        !CU_add_test(s, "y|n options", test_yes_no) ||
        !CU_add_test(s, "file", test_file) ||
        !CU_add_test(s, "net", test_net) ||
        !CU_add_test(s, "depth, interval, cutoff", test_numbers) ||
        !CU_add_test(s, "sample, idsize", test_sample_idsize) ||
        !CU_add_test(s, "debug options", test_debug_options) ||
        !CU_add_test(s, "enum errors", test_enum_errors) ||
        !CU_add_test(s, "syntax errors", test_syntax_errors) ||
        !CU_add_test(s, "cross-checks", test_cross_checks) ||
        !CU_add_test(s, "error buffer", test_error_buffer) ||
        !CU_add_test(s, "environment", test_env) ||
        !CU_add_test(s, "shape", test_shape) || !CU_add_test(s, "redact", test_redact) ||
        !CU_add_test(s, "gzip", test_gzip) ||
        !CU_add_test(s, "help", test_help) ||
        !CU_add_test(s, "usage text", test_usage) ||
        !CU_add_test(s, "output name", test_output_name))
        return -1;
    return 0;
}

int main(void)
{
    return tu_main(add_suites);
}
