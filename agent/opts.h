/*
 * opts.h: the agent's option string, from text to a checked `opts` value.
 *
 * Owns the syntax and semantics of `-agentlib:hprof=...` (and -Xrunhprof,
 * Agent_OnAttach), the _JAVA_HPROF_OPTIONS environment variable, the `help`
 * table and the output file naming of force=n. It knows nothing of the JVM,
 * so the unit tests and the fuzzer drive it directly; the agent turns a
 * failure into `HPROF ERROR: <message>` and refuses to start.
 *
 * Compatibility with the original agent (JDK 5-8 hprof_init.c):
 *  - same option names, values, defaults and cross-checks; gc_okay is
 *    accepted and ignored; exitpause and precrash are refused with a pointer
 *    to -XX:OnError; option names are at most 15 characters;
 *  - a repeated option: the last value wins, except heap=, whose values add
 *    up (heap=dump,heap=sites is heap=all, as in the original) and file/net,
 *    which may appear once in total. cpu= is one choice here: the original
 *    could run cpu=samples and cpu=times together when both were given,
 *    which nobody relied on and which made a dump print two CPU sections;
 *  - cpu=old forces depth=2 after parsing, as the original did;
 *  - force=n on a text file not ending in .txt gives name.PID; the original
 *    gave name.PID.txt (it appended .txt to any text name);
 *  - stricter: depth/interval are plain decimal digits, cutoff is a decimal
 *    number in [0, 1], net needs a host and a numeric port 1..65535 (the
 *    original parsed the port with strtol and never checked it), numbers of
 *    the debug options must parse, and every message names the option and
 *    what it accepts.
 *
 * Debug options (parsed in every build, listed by `help` in one line):
 *  primfields, primarrays  y|n, default y: put primitive field values /
 *                          primitive array contents into heap dumps.
 *  logflags                number: 1 log, 2 dump tables, 4 verify the
 *                          binary output; debug=y with format=b adds 4.
 *  errorexit               y|n: any agent error becomes fatal.
 *  pause                   y|n: print the pid and wait for a debugger.
 *  debugflags, X, coredump, debug
 *                          recorded only; they had meaning inside the
 *                          original's own debugging code and have none here
 *                          (debug=y only sets logflags bit 4 with format=b).
 *  The agent decides which of primfields..pause it honours; opts records
 *  them faithfully.
 *  msa (Solaris micro-state accounting) is public but a no-op on Linux.
 *
 * Test option (parsed in every build, not listed by `help`):
 *  nettimeout              seconds, 1..3600, default 30 (OPTS_NET_TIMEOUT_S):
 *                          with net=, how long the agent waits for a front
 *                          end that does not read before dropping it (see
 *                          listener.h). For tests, which set a few seconds
 *                          to stay fast; users have no reason to change it.
 */
#ifndef HPROF_AGENT_OPTS_H
#define HPROF_AGENT_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Limits beyond which a value is refused rather than silently clamped. */
#define OPTS_NAME_MAX 15            /* longest option name, as in the original */
#define OPTS_FILE_MAX 4096          /* longest file= value, in bytes */
#define OPTS_DEPTH_MAX 1000000u     /* stack frames per trace */
#define OPTS_INTERVAL_MAX 2147483647u /* ms; a jint for RawMonitorWait */
#define OPTS_SAMPLE_MAX 2147483647u /* bytes; SetHeapSamplingInterval takes a jint */
#define OPTS_NET_TIMEOUT_S 30u      /* nettimeout= default, seconds */
#define OPTS_NET_TIMEOUT_MAX 3600u

/* The default output names, without and with the text suffix. */
#define OPTS_DEFAULT_FILE "java.hprof"
#define OPTS_DEFAULT_TEXT_FILE "java.hprof.txt"

typedef enum { OPTS_CPU_OFF, OPTS_CPU_SAMPLES, OPTS_CPU_TIMES, OPTS_CPU_OLD } opts_cpu;

typedef struct opts {
    /* heap=dump|sites|all; both default on only when no cpu, monitor=y or
     * heap was asked for. */
    int heap_dump, heap_sites;
    opts_cpu cpu;                   /* cpu=samples|y|times|old, default off */
    int monitor;                    /* monitor=y|n, default n */
    int binary;                     /* format=a|b, default a (0) */
    char *file;                     /* file= as given, or NULL for the default */
    /* net=host:port; net_host is without the brackets of an IPv6 literal. */
    char *net_host;
    unsigned short net_port;
    int net;
    unsigned depth;                 /* depth=, default 4 */
    unsigned interval_ms;           /* interval=, default 10 */
    double cutoff;                  /* cutoff=, default 0.0001 */
    int lineno;                     /* default y */
    int thread;                     /* default n */
    int doe;                        /* dump on exit, default y */
    int msa;                        /* default n; no-op on Linux */
    int force;                      /* default y; n: never overwrite (opts_output_name) */
    int verbose;                    /* default y */
    int redact;                     /* redact=y: heap dumps hold no primitive
                                       value (zeros; String.coder kept) and
                                       THREAD START names are '*' of their
                                       length, as `hprof redact` does; default n */
    int gc_okay;                    /* obsolete, ignored; default y */
    /* Debug options (see the top of this file). */
    int primfields, primarrays;     /* default y */
    uint64_t logflags, debugflags, experiment; /* logflags=, debugflags=, X= */
    int coredump, errorexit, pause, debug;     /* default n */
    /* New options. */
    uint64_t sample_bytes;          /* sample=N[k|m]: 0 counts every allocation
                                       exactly (default); N samples every N bytes
                                       on average and the figures are estimates */
    unsigned id_size;               /* idsize=4|8, default 8; binary output only */
    int shape_original;             /* shape=hotspot|original, default hotspot:
                                       heap dumps hold only the root kinds
                                       HotSpot's dumper writes, and a binary
                                       file that holds only heap dumps only
                                       HotSpot's records; original: every root
                                       kind JVMTI reports, CONTROL SETTINGS and
                                       THREAD START/END, as the original did */
    int gzip;                       /* gzip=y|n: the output file (and each heap
                                       dump's file of its own) in HotSpot's -gz
                                       layout, zlib level 1; -1 until parsed,
                                       then y when file= ends in .gz, else n.
                                       Refused with net= */
    unsigned net_timeout_s;         /* nettimeout= (test option, see above) */
    int help;                       /* the option string was exactly "help" */
    char *options;                  /* the full option string (after the env
                                       var was appended), for messages; never
                                       NULL after a successful opts_parse */
} opts;

/* Sets every default; holds no memory. */
void opts_init(opts *o);

/*
 * Parses `optstr` (may be NULL or empty) with `env` (the value of
 * _JAVA_HPROF_OPTIONS, may be NULL) appended after a comma. `o` must have
 * been through opts_init; whatever it held is released and parsing starts
 * from the defaults. An optstr of exactly "help" sets o->help and nothing
 * else (env is not looked at, as in the original); so does an empty optstr
 * with an env of exactly "help". "help" among other options is refused.
 *
 * Returns 0, or -1 with `o` back at its defaults (holding no memory) and a
 * one-line message in err (if errlen > 0):
 *   "hprof option error: <what is wrong and what is accepted> (<full option string>)"
 * Control characters of the input are shown as '?'.
 */
int opts_parse(opts *o, const char *optstr, const char *env, char *err, size_t errlen);

/* Writes the `help` text (banner, usage, the option table, examples, notes). */
void opts_usage(FILE *out);

/*
 * The output file name: file= or java.hprof (format=b) / java.hprof.txt,
 * with .gz added under gzip=y.
 * With force=n and an existing file, a name that includes the pid:
 * name.PID, or for text output with a trailing .txt (any case),
 * stem.PID.txt (e.g. foo.1234.txt); if that exists as well, name.PID.2,
 * name.PID.3 ... (stem.PID.2.txt). A trailing .gz stays last
 * (foo.1234.gz, foo.1234.txt.gz). `exists` is the existence test (NULL:
 * access(F_OK)); the tests inject their own.
 * Returns 0, or -1 if the name does not fit in buflen or no free name was
 * found among the first 1000 candidates. With net= there is no file; the
 * answer is then the default name, which the caller has no use for.
 */
int opts_output_name(const opts *o, long pid, int (*exists)(const char *path), char *buf,
                     size_t buflen);

/* Whether `name` ends in ".gz" (file=NAME.gz implies gzip=y). */
int opts_gz_name(const char *name);

/* Releases what opts_parse allocated and resets `o` to its defaults. */
void opts_cleanup(opts *o);

#endif
