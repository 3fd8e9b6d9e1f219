/*
 * opts.c: parsing and checking the agent's option string, the `help` text
 * and the force=n output naming (see opts.h for the contract and for where
 * we differ from the original agent).
 *
 * The option string is split at commas first, then each item at its first
 * '='. (The original scanned for '=' across commas, so `doe,heap=sites`
 * became the unknown option "doe,heap"; splitting first gives the same
 * refusal with a clearer name.) A file name therefore cannot hold a comma,
 * as before.
 */
#include "opts.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

typedef enum {
    K_YN,       /* y|n into an int field */
    K_HEAP,
    K_CPU,
    K_FORMAT,
    K_FILE,
    K_NET,
    K_DEPTH,
    K_INTERVAL,
    K_CUTOFF,
    K_NUM,      /* debug numbers, C syntax (decimal, 0x hex, 0 octal) */
    K_SAMPLE,
    K_IDSIZE,
    K_SHAPE,
    K_NETTIMEOUT,
    K_REMOVED,  /* exitpause, precrash */
} kind;

typedef struct optdef {
    const char *name;
    kind k;
    size_t off;          /* field for K_YN and K_NUM */
    const char *accepts; /* completes "<name> must be ..." */
} optdef;

#define YN(name, field) { name, K_YN, offsetof(opts, field), "y or n" }
#define NUM(name, field)                                                            \
    { name, K_NUM, offsetof(opts, field), "a number (decimal, 0x hex or 0 octal)" }

static const optdef defs[] = {
    { "heap", K_HEAP, 0, "dump, sites or all" },
    { "cpu", K_CPU, 0, "samples, y, times or old" },
    YN("monitor", monitor),
    { "format", K_FORMAT, 0, "a (text) or b (binary)" },
    { "file", K_FILE, 0, "a file name of at most 4096 bytes" },
    { "net", K_NET, 0,
      "host:port with a port from 1 to 65535 (an IPv6 address in brackets: [::1]:9000)" },
    { "depth", K_DEPTH, 0, "a decimal number from 0 to 1000000" },
    { "interval", K_INTERVAL, 0, "a decimal number of milliseconds from 1 to 2147483647" },
    { "cutoff", K_CUTOFF, 0, "a decimal number from 0 to 1, such as 0.0001" },
    YN("lineno", lineno),
    YN("thread", thread),
    YN("doe", doe),
    YN("msa", msa),
    YN("force", force),
    YN("verbose", verbose),
    YN("redact", redact),
    { "sample", K_SAMPLE, 0,
      "a number of bytes from 0 to 2147483647, optionally with a suffix k or m "
      "(0 counts every allocation)" },
    { "idsize", K_IDSIZE, 0, "4 or 8" },
    { "shape", K_SHAPE, 0, "hotspot or original" },
    YN("gzip", gzip),
    /* Not listed in the unknown-option message from here on. */
    YN("gc_okay", gc_okay),
    YN("primfields", primfields),
    YN("primarrays", primarrays),
    NUM("logflags", logflags),
    NUM("debugflags", debugflags),
    NUM("X", experiment),
    YN("coredump", coredump),
    YN("errorexit", errorexit),
    YN("pause", pause),
    YN("debug", debug),
    /* for tests (opts.h) */
    { "nettimeout", K_NETTIMEOUT, 0, "a decimal number of seconds from 1 to 3600" },
    { "exitpause", K_REMOVED, 0, "removed; use -XX:OnError='cmd %p' instead" },
    { "precrash", K_REMOVED, 0, "removed; use -XX:OnError='precrash -p %p' instead" },
};
#define NDEFS (sizeof defs / sizeof defs[0])
#define NPUBLIC 20 /* defs[0..NPUBLIC) are the public options */

/* How much of a value a message quotes, so the full string still shows. */
#define SHOW_MAX 60

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* ------------------------------------------------------------ errors */

typedef struct perr {
    char *buf;
    size_t len;
    const char *all; /* the full option string */
} perr;

static int fail(const perr *e, const char *fmt, ...) PRINTF_LIKE(2, 3);

static int fail(const perr *e, const char *fmt, ...)
{
    if (!e->buf || e->len == 0)
        return -1;
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(e->buf, e->len, "hprof option error: %s (%s)", what, e->all ? e->all : "");
    /* The message goes to a terminal or a log as one line, whatever the
     * input held. */
    for (char *p = e->buf; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
            *p = '?';
    return -1;
}

/* The item as the user wrote it, shortened: "name" or "name=value". */
static void show_item(char *out, size_t outlen, const char *name, const char *value)
{
    if (!value) {
        snprintf(out, outlen, "%.*s%s", SHOW_MAX, name,
                 strlen(name) > SHOW_MAX ? "..." : "");
        return;
    }
    snprintf(out, outlen, "%.*s%s=%.*s%s", OPTS_NAME_MAX + 5, name,
             strlen(name) > OPTS_NAME_MAX + 5 ? "..." : "", SHOW_MAX, value,
             strlen(value) > SHOW_MAX ? "..." : "");
}

/* ------------------------------------------------------------ values */

/* Plain decimal digits, at most `max`. */
static int parse_decimal(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        unsigned d = (unsigned)(*s - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

/* The strtoul(s, 0) syntax, but the whole value must be a number: the
 * original read "logflags=x" as 0 without a word. */
static int parse_c_number(const char *s, uint64_t *out)
{
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    } else if (s[0] == '0' && s[1]) {
        base = 8;
        s++;
    }
    if (!*s)
        return -1;
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d = (unsigned)digit_value(*s);
        if (d >= base || v > (UINT64_MAX - d) / base)
            return -1;
        v = v * base + d;
    }
    *out = v;
    return 0;
}

/* [+-] digits [. digits] [e [+-] digits], at least one mantissa digit;
 * this shuts out strtod's inf, nan, hex and leading blanks. */
static int decimal_syntax(const char *s)
{
    int mant = 0;
    if (*s == '+' || *s == '-')
        s++;
    for (; *s >= '0' && *s <= '9'; s++)
        mant = 1;
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            mant = 1;
    if (!mant)
        return -1;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (*s < '0' || *s > '9')
            return -1;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s ? -1 : 0;
}

/* The JVM may run with a locale whose decimal point is ',', and the
 * option syntax must not depend on it. */
static double c_strtod(const char *s)
{
    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (c == (locale_t)0)
        return strtod(s, NULL);
    double v = strtod_l(s, NULL, c);
    freelocale(c);
    return v;
}

static int parse_cutoff(const char *s, double *out)
{
    if (decimal_syntax(s) != 0)
        return -1;
    double v = c_strtod(s);
    if (!(v >= 0.0 && v <= 1.0)) /* also refuses a NaN */
        return -1;
    *out = v == 0.0 ? 0.0 : v; /* no -0 */
    return 0;
}

static int parse_bytes(const char *s, uint64_t *out)
{
    size_t n = strlen(s);
    uint64_t mult = 1;
    if (n > 0) {
        switch (s[n - 1]) {
        case 'k': case 'K': mult = 1024; n--; break;
        case 'm': case 'M': mult = 1024 * 1024; n--; break;
        default: break;
        }
    }
    if (n == 0 || n > 20)
        return -1;
    char digits[21];
    memcpy(digits, s, n);
    digits[n] = '\0';
    uint64_t v;
    if (parse_decimal(digits, OPTS_SAMPLE_MAX, &v) != 0 || v > OPTS_SAMPLE_MAX / mult)
        return -1;
    *out = v * mult;
    return 0;
}

static int host_char_ok(unsigned char c)
{
    return c > 0x20 && c != 0x7f && c != '[' && c != ']' && c != '/' && c != '@';
}

/* net=host:port. Returns NULL, or the reason it is refused. */
static const char *parse_net(const char *v, char **host, unsigned short *port)
{
    const char *hs, *he, *ps;
    if (v[0] == '[') {
        hs = v + 1;
        he = strchr(hs, ']');
        if (!he)
            return "missing ']' after the IPv6 address";
        if (he[1] != ':')
            return "missing ':port' after the address";
        ps = he + 2;
        for (const char *p = hs; p < he; p++)
            if (!host_char_ok((unsigned char)*p))
                return "bad character in the address";
    } else {
        hs = v;
        he = strchr(v, ':');
        if (!he)
            return "missing ':port'";
        if (strchr(he + 1, ':'))
            return "an IPv6 address must be written in brackets";
        ps = he + 1;
        for (const char *p = hs; p < he; p++)
            if (!host_char_ok((unsigned char)*p))
                return "bad character in the host name";
    }
    if (he == hs)
        return "missing host";
    if (!*ps)
        return "missing port";
    uint64_t p;
    if (parse_decimal(ps, 65535, &p) != 0 || p == 0)
        return "the port is not a number from 1 to 65535";
    size_t n = (size_t)(he - hs);
    char *h = malloc(n + 1);
    if (!h)
        return "out of memory";
    memcpy(h, hs, n);
    h[n] = '\0';
    *host = h;
    *port = (unsigned short)p;
    return NULL;
}

/* ------------------------------------------------------------ parse */

static const optdef *find_def(const char *name)
{
    for (size_t i = 0; i < NDEFS; i++)
        if (strcmp(defs[i].name, name) == 0)
            return &defs[i];
    return NULL;
}

static void public_names(char *out, size_t outlen)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < NPUBLIC && used < outlen; i++) {
        int n = snprintf(out + used, outlen - used, "%s%s", i ? ", " : "", defs[i].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* Applies one name=value item (value NULL when there was no '='). */
static int apply(opts *o, const char *name, const char *value, int *file_or_net,
                 const perr *e)
{
    char item[SHOW_MAX + OPTS_NAME_MAX + 16];
    show_item(item, sizeof item, name, value);

    if (strlen(name) > OPTS_NAME_MAX)
        return fail(e, "%s: option names have at most %d characters; see -agentlib:hprof=help",
                    item, OPTS_NAME_MAX);
    if (strcmp(name, "help") == 0)
        return fail(e, "%s: help must be given alone, as -agentlib:hprof=help", item);
    const optdef *d = find_def(name);
    if (!d) {
        char names[256];
        public_names(names, sizeof names);
        return fail(e, "%s: unknown option %s; the options are %s, and help alone",
                    item, *name ? name : "''", names);
    }
    if (d->k == K_REMOVED)
        return fail(e, "%s: the %s option was %s", item, d->name, d->accepts);
    if (!value || !*value)
        return fail(e, "%s: %s needs a value; it must be %s", item, d->name, d->accepts);

    uint64_t u;
    switch (d->k) {
    case K_YN: {
        int *f = (int *)((char *)o + d->off);
        if (strcmp(value, "y") == 0)
            *f = 1;
        else if (strcmp(value, "n") == 0)
            *f = 0;
        else
            break;
        return 0;
    }
    case K_NUM:
        if (parse_c_number(value, &u) != 0)
            break;
        *(uint64_t *)((char *)o + d->off) = u;
        return 0;
    case K_HEAP:
        /* Values add up, as in the original. */
        if (strcmp(value, "dump") == 0)
            o->heap_dump = 1;
        else if (strcmp(value, "sites") == 0)
            o->heap_sites = 1;
        else if (strcmp(value, "all") == 0)
            o->heap_dump = o->heap_sites = 1;
        else
            break;
        return 0;
    case K_CPU:
        if (strcmp(value, "samples") == 0 || strcmp(value, "y") == 0)
            o->cpu = OPTS_CPU_SAMPLES;
        else if (strcmp(value, "times") == 0)
            o->cpu = OPTS_CPU_TIMES;
        else if (strcmp(value, "old") == 0)
            o->cpu = OPTS_CPU_OLD;
        else
            break;
        return 0;
    case K_FORMAT:
        if (strcmp(value, "a") == 0)
            o->binary = 0;
        else if (strcmp(value, "b") == 0)
            o->binary = 1;
        else
            break;
        return 0;
    case K_FILE:
    case K_NET:
        if (*file_or_net)
            return fail(e, "%s: file and net may be given only once in total", item);
        *file_or_net = 1;
        if (d->k == K_FILE) {
            if (strlen(value) > OPTS_FILE_MAX)
                break;
            o->file = strdup(value);
            if (!o->file)
                return fail(e, "%s: out of memory", item);
            return 0;
        } else {
            const char *why = parse_net(value, &o->net_host, &o->net_port);
            if (why)
                return fail(e, "%s: %s; net must be %s", item, why, d->accepts);
            o->net = 1;
            return 0;
        }
    case K_DEPTH:
        if (parse_decimal(value, OPTS_DEPTH_MAX, &u) != 0)
            break;
        o->depth = (unsigned)u;
        return 0;
    case K_INTERVAL:
        if (parse_decimal(value, OPTS_INTERVAL_MAX, &u) != 0 || u == 0)
            break;
        o->interval_ms = (unsigned)u;
        return 0;
    case K_CUTOFF:
        if (parse_cutoff(value, &o->cutoff) != 0)
            break;
        return 0;
    case K_SAMPLE:
        if (parse_bytes(value, &u) != 0)
            break;
        o->sample_bytes = u;
        return 0;
    case K_IDSIZE:
        if (strcmp(value, "4") == 0)
            o->id_size = 4;
        else if (strcmp(value, "8") == 0)
            o->id_size = 8;
        else
            break;
        return 0;
    case K_SHAPE:
        if (strcmp(value, "hotspot") == 0)
            o->shape_original = 0;
        else if (strcmp(value, "original") == 0)
            o->shape_original = 1;
        else
            break;
        return 0;
    case K_NETTIMEOUT:
        if (parse_decimal(value, OPTS_NET_TIMEOUT_MAX, &u) != 0 || u == 0)
            break;
        o->net_timeout_s = (unsigned)u;
        return 0;
    case K_REMOVED:
        break;
    }
    return fail(e, "%s: %s must be %s", item, d->name, d->accepts);
}

void opts_init(opts *o)
{
    memset(o, 0, sizeof *o);
    o->cpu = OPTS_CPU_OFF;
    o->depth = 4;
    o->interval_ms = 10;
    o->cutoff = 0.0001;
    o->lineno = 1;
    o->doe = 1;
    o->force = 1;
    o->verbose = 1;
    o->gc_okay = 1;
    o->primfields = 1;
    o->primarrays = 1;
    o->id_size = 8;
    o->net_timeout_s = OPTS_NET_TIMEOUT_S;
    o->gzip = -1; /* not given: decided by the file name (finish) */
}

void opts_cleanup(opts *o)
{
    free(o->file);
    free(o->net_host);
    free(o->options);
    opts_init(o);
}

/* Everything that can only be judged once the whole string is read. */
static int finish(opts *o, const perr *e)
{
    if (o->binary && (o->cpu == OPTS_CPU_TIMES || o->cpu == OPTS_CPU_OLD))
        return fail(e, "format=b cannot be combined with cpu=%s: binary HPROF has no record "
                       "for method times; use format=a, or cpu=samples with format=b",
                    o->cpu == OPTS_CPU_TIMES ? "times" : "old");
    if (o->binary && o->monitor)
        return fail(e, "format=b cannot be combined with monitor=y: binary HPROF has no "
                       "monitor records; use format=a");
    if (o->cpu == OPTS_CPU_OFF && !o->monitor && !o->heap_dump && !o->heap_sites)
        o->heap_dump = o->heap_sites = 1;
    if (o->id_size == 4 && o->heap_dump && o->heap_sites)
        return fail(e, "idsize=4 cannot be combined with heap=all: objects tracked for sites "
                       "carry 64-bit ids; use idsize=8, or heap=dump alone");
    /* gzip: file=NAME.gz asks for it; gzip=y without file= compresses the
     * default file, named with .gz then. net=: the front end writes the
     * file (hprof-ctl can be told to compress), the socket carries plain
     * HPROF that it splits and answers to by record. */
    if (o->gzip < 0)
        o->gzip = o->file && opts_gz_name(o->file);
    if (o->gzip && o->net)
        return fail(e, "gzip=y cannot be combined with net=: the socket carries plain HPROF, "
                       "which the front end writes to its file; use file= to compress");
    /* The old prof format only ever showed caller and callee. */
    if (o->cpu == OPTS_CPU_OLD)
        o->depth = 2;
    if (o->debug && o->binary)
        o->logflags |= 4;
    return 0;
}

int opts_parse(opts *o, const char *optstr, const char *env, char *err, size_t errlen)
{
    opts_cleanup(o);
    if (err && errlen)
        err[0] = '\0';
    if (!optstr)
        optstr = "";
    if (!env)
        env = "";

    size_t n1 = strlen(optstr), n2 = strlen(env);
    /* The original looked at "help" before appending the environment. */
    int help = strcmp(optstr, "help") == 0;
    if (help)
        n2 = 0;
    o->options = malloc(n1 + n2 + 2);
    char *work = malloc(n1 + n2 + 2);
    perr e = { err, errlen, o->options };
    if (!o->options || !work) {
        free(work);
        e.all = optstr;
        fail(&e, "out of memory");
        opts_cleanup(o);
        return -1;
    }
    memcpy(o->options, optstr, n1);
    size_t n = n1;
    if (n1 && n2)
        o->options[n++] = ',';
    memcpy(o->options + n, env, n2);
    n += n2;
    o->options[n] = '\0';
    memcpy(work, o->options, n + 1);

    if (strcmp(o->options, "help") == 0) {
        free(work);
        o->help = 1;
        return 0;
    }

    int file_or_net = 0, rc = 0;
    char *p = work;
    while (*p && rc == 0) {
        char *end = strchr(p, ',');
        if (end)
            *end = '\0';
        if (!*p) {
            rc = fail(&e, "empty option (a comma too many); options are name=value, "
                          "separated by commas");
            break;
        }
        char *eq = strchr(p, '=');
        if (eq)
            *eq = '\0';
        rc = apply(o, p, eq ? eq + 1 : NULL, &file_or_net, &e);
        /* A single trailing comma was accepted by the original. */
        p = end ? end + 1 : p + strlen(p);
    }
    free(work);
    if (rc == 0)
        rc = finish(o, &e);
    if (rc != 0)
        opts_cleanup(o);
    return rc;
}

/* ------------------------------------------------------------ help */

static const struct {
    const char *opt, *desc, *def;
} usage_rows[] = {
    { "heap=dump|sites|all", "heap profile: a heap dump, the allocation", "all, unless" },
    { "", "sites, or both", "cpu, monitor" },
    { "", "", "or heap given" },
    { "cpu=samples|times|old", "CPU profile: sample the running threads'", "off" },
    { "", "stacks (samples, or y), time every method", "" },
    { "", "(times), or times in the old prof layout", "" },
    { "monitor=y|n", "contended monitors: who waited, how long", "n" },
    { "format=a|b", "write text (a) or binary HPROF (b)", "a" },
    { "file=<name>", "write the profile to this file", "java.hprof[.txt]" },
    { "net=<host>:<port>", "send the profile to a socket instead of a", "off" },
    { "", "file; also takes commands ([::1]:9000 for IPv6)", "" },
    { "depth=<frames>", "frames kept per stack trace", "4" },
    { "interval=<ms>", "pause between two CPU samples", "10" },
    { "cutoff=<ratio>", "leave out entries below this share of the", "0.0001" },
    { "", "total (0 to 1)", "" },
    { "lineno=y|n", "show source line numbers in traces", "y" },
    { "thread=y|n", "keep the traces of each thread apart", "n" },
    { "doe=y|n", "write the profile when the JVM exits", "y" },
    { "msa=y|n", "Solaris micro-state accounting (no effect", "n" },
    { "", "on Linux)", "" },
    { "force=y|n", "overwrite the output file; with n an existing", "y" },
    { "", "file is kept and the pid goes into the name", "" },
    { "verbose=y|n", "say on stderr when a dump is written", "y" },
    { "redact=y|n", "heap dumps without secrets: every primitive", "n" },
    { "", "value zeroed (arrays, fields, statics; String", "" },
    { "", "coder kept), THREAD START names as '*'", "" },
    { "sample=<bytes>", "0: count every allocation exactly; N: about", "0" },
    { "", "one sample per N allocated bytes (suffix k or", "" },
    { "", "m allowed), cheaper, figures are estimates", "" },
    { "idsize=4|8", "size of object IDs in binary output, in bytes", "8" },
    { "shape=hotspot|original", "binary heap dumps as HotSpot writes them", "hotspot" },
    { "", "(its root kinds and records only), or as", "" },
    { "", "the original did (every JVMTI root kind,", "" },
    { "", "CONTROL SETTINGS, THREAD START/END)", "" },
    { "gzip=y|n", "compress the output file as HotSpot's -gz does", "y for a" },
    { "", "(gzip, one member per MiB, level 1); heap", "file=*.gz" },
    { "", "dumps in files of their own too", "" },
};

void opts_usage(FILE *out)
{
    fputs("hprof: a JVMTI agent that profiles heap allocation, CPU use and monitor\n"
          "contention, revived from the JDK's HPROF for JDK 17 and later.\n"
          "\n"
          "Usage:  java -agentlib:hprof[=help]|[=<option>=<value>,...] ...\n"
          "        java -agentpath:/path/to/libhprof.so[=<option>=<value>,...] ...\n"
          "        jcmd <pid> JVMTI.agent_load /path/to/libhprof.so '\"<options>\"'\n"
          "\n",
          out);
    fprintf(out, "%-24s %-48s %s\n", "Option", "What it does", "Default");
    fprintf(out, "%-24s %-48s %s\n", "------", "------------", "-------");
    for (size_t i = 0; i < sizeof usage_rows / sizeof usage_rows[0]; i++) {
        if (*usage_rows[i].def)
            fprintf(out, "%-24s %-48s %s\n", usage_rows[i].opt, usage_rows[i].desc,
                    usage_rows[i].def);
        else
            fprintf(out, "%-24s %s\n", usage_rows[i].opt, usage_rows[i].desc);
    }
    fputs("\n"
          "Examples:\n"
          "  Sample the CPU every 20 ms, keeping traces 3 frames deep:\n"
          "    java -agentlib:hprof=cpu=samples,interval=20,depth=3 MyApp\n"
          "  Where the program allocates, every allocation counted:\n"
          "    java -agentlib:hprof=heap=sites MyApp\n"
          "  The same at low cost, estimated from one sample per 512 KiB, in binary:\n"
          "    java -agentlib:hprof=heap=sites,sample=512k,format=b MyApp\n"
          "\n"
          "Notes:\n"
          "  - The contents of _JAVA_HPROF_OPTIONS are added after the options above.\n"
          "  - format=b does not go with cpu=times, cpu=old or monitor=y.\n"
          "  - Only one of file= and net= may be given, once; gzip=y goes with file=\n"
          "    only (without file=, the default name gets .gz).\n"
          "  - cpu=old always keeps 2 frames per trace.\n"
          "  - A running program writes a profile on kill -QUIT <pid> or\n"
          "    jcmd <pid> JVMTI.data_dump; doe=y writes one more at exit.\n"
          "  - -Xrunhprof:<options> is the old spelling of -agentlib:hprof=<options>.\n"
          "  - gc_okay=y|n is obsolete: accepted and ignored.\n"
          "  - For debugging the agent itself: primfields=y|n, primarrays=y|n,\n"
          "    logflags=<n>, debugflags=<n>, X=<n>, coredump=y|n, errorexit=y|n,\n"
          "    pause=y|n, debug=y|n.\n",
          out);
}

/* ------------------------------------------------------------ naming */

int opts_gz_name(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".gz") == 0;
}

static int path_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

int opts_output_name(const opts *o, long pid, int (*exists)(const char *path), char *buf,
                     size_t buflen)
{
    const char *base = o->file                  ? o->file
                       : o->gzip && o->binary ? OPTS_DEFAULT_FILE ".gz"
                       : o->gzip              ? OPTS_DEFAULT_TEXT_FILE ".gz"
                       : o->binary            ? OPTS_DEFAULT_FILE
                                              : OPTS_DEFAULT_TEXT_FILE;
    if (!exists)
        exists = path_exists;
    size_t len = strlen(base);
    if (buflen == 0)
        return -1;
    if (o->force || !exists(base)) {
        if (len >= buflen)
            return -1;
        memcpy(buf, base, len + 1);
        return 0;
    }
    /* Keep a text file recognisable as text, and a gzip file as gzip: the
     * pid goes before .txt, .gz, .txt.gz */
    size_t stem = len;
    if (len > 3 && strcmp(base + len - 3, ".gz") == 0)
        stem -= 3;
    if (!o->binary && stem >= 4 && strncasecmp(base + stem - 4, ".txt", 4) == 0)
        stem -= 4;
    const char *suffix = base + stem;
    for (int i = 1; i <= 1000; i++) {
        int n = i == 1 ? snprintf(buf, buflen, "%.*s.%ld%s", (int)stem, base, pid, suffix)
                       : snprintf(buf, buflen, "%.*s.%ld.%d%s", (int)stem, base, pid, i,
                                  suffix);
        if (n < 0 || (size_t)n >= buflen) {
            buf[0] = '\0';
            return -1;
        }
        if (!exists(buf))
            return 0;
    }
    buf[0] = '\0';
    return -1;
}
