/*
 * out.c: the agent's output stream (see out.h): the binary writer or the
 * text buffer, the "already written" marks of names, classes, frames and
 * traces, and the layout of every section in both formats.
 *
 * Contract: called with no agent lock held except dump_lock; takes out_lock
 * (and data_lock only before it, briefly, to intern names). Both formats go
 * through a libhprofwriter writer with an I/O thread (text: a raw writer),
 * so a callback that appends a line or a record never waits for the disk
 * unless both of the writer's buffers are full. Only dumps and close wait.
 */
#include "out.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "hprof/hprof_format.h"
#include "hprof/hw_writer.h"
#include "jx.h"
#include "listener.h"
#include "monitors.h"
#include "names.h"
#include "sampler.h"
#include "timing.h"
#include "traces.h"

#define OUT_TXT_FLUSH (64u * 1024u)
/* UTF8 ids of in-band messages (out_message), by id size */
#define OUT_MSG_ID8 (1ULL << 59)
#define OUT_MSG_ID4 0xF0000000ULL

struct hp_out {
    hw_writer *w;     /* binary */
    hw_writer *tw;    /* text (raw writer) */
    char *buf;        /* text: lines formatted since the last hand-over */
    size_t len, cap;
    int err;          /* text: latched errno */
    int reported;     /* the latched error was printed */
    int closed;       /* out_close ran: everything after is dropped */
    int dumping;       /* a heap dump holds the output (out_dump_begin..end) */
    int hotspot_records; /* binary, heap dumps alone: no CONTROL SETTINGS, no
                            THREAD START/END (out_hotspot_records) */
    uint32_t messages; /* in-band messages written (out_message) */
    int gz_file;       /* gzip=y into a regular file: a file, though its
                          writer cannot patch (out_dump_streamed) */
};

/* Whether the binary output holds heap dumps and nothing else, written
 * with HotSpot's records only (shape=hotspot, a file): its dumper writes no
 * CONTROL SETTINGS and no THREAD START/END, and some readers stop at them.
 * net= keeps them: a front end may ask for more than dumps. */
static int out_hotspot_records(void)
{
    return g_hp.o.binary && !g_hp.o.shape_original && g_hp.net_fd < 0 && g_hp.o.heap_dump &&
           !g_hp.o.heap_sites && g_hp.o.cpu == OPTS_CPU_OFF && !g_hp.o.monitor;
}

/* Whether to report the writer's first error `e` now (once): not when the
 * net= sink failed with it, which said so already, naming the front end. */
static int out_to_report(hp_out *o, int e)
{
    if (o->reported)
        return 0;
    o->reported = 1;
    return !(e && e == lsn_failed());
}

/* ------------------------------------------------------------ text buffer */

/* Appends text to the text writer (a copy into its buffer), latching and
 * reporting its first error. Returns 0 or that error. */
static int out_txt_write(hp_out *o, const void *p, size_t n)
{
    if (o->err || n == 0)
        return o->err;
    int e = hw_raw_bytes(o->tw, p, n);
    if (e) {
        o->err = e;
        if (out_to_report(o, e))
            hp_error("writing %s failed: %s; the profile stops here", g_hp.outname,
                     hw_writer_error_text(o->tw));
    }
    return e;
}

/* Hands the formatted lines to the text writer. */
static void out_txt_flush(hp_out *o)
{
    out_txt_write(o, o->buf, o->len);
    o->len = 0;
}

static void out_printf(hp_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out_printf(hp_out *o, const char *fmt, ...)
{
    if (o->err || !o->buf)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < o->cap - o->len) {
            o->len += (size_t)n;
            break;
        }
        /* no line is ever cut: grow the buffer to hold it */
        size_t ncap = o->cap * 2;
        while (ncap - o->len <= (size_t)n)
            ncap *= 2;
        char *nb = realloc(o->buf, ncap);
        if (!nb) {
            o->err = ENOMEM;
            hp_error("out of memory formatting output to %s", g_hp.outname);
            o->reported = 1;
            return;
        }
        o->buf = nb;
        o->cap = ncap;
    }
    if (o->len >= OUT_TXT_FLUSH)
        out_txt_flush(o);
}

static void out_ctime(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tmv;
    if (localtime_r(&t, &tmv))
        strftime(buf, n, "%a %b %e %H:%M:%S %Y", &tmv);
    else
        snprintf(buf, n, "?");
}

/* Our own legend of the text layout (the original shipped one as a file). */
static const char out_legend[] =
    "This file was written by hprof, the HPROF profiling agent for JDK 17+.\n"
    "It is made of the sections listed below (this legend is indented, so no\n"
    "line of it starts like a section does); numbers in one section refer to\n"
    "the others.\n"
    "\n"
    "  Lines THREAD START and THREAD END:\n"
    "      a thread was seen starting or ending. `id` is the thread's serial\n"
    "      number (from 200001; 200000 stands for an unknown thread), `obj`\n"
    "      the id of its java.lang.Thread object (0 when not tracked).\n"
    "\n"
    "  Blocks TRACE <serial>:\n"
    "      a stack trace, innermost frame first, at most `depth` frames, each\n"
    "      as class.method(source file:line). Serials start at 300001; trace\n"
    "      300000 is the empty trace, used where no stack exists. Each trace\n"
    "      is printed once, before the first section that refers to it.\n"
    "\n"
    "  Section SITES (BEGIN ... END):\n"
    "      allocation sites: where objects were allocated, by class and\n"
    "      trace, ordered by live bytes. `live` counts the objects still\n"
    "      reachable at a GC forced just before (the BEGIN line says when\n"
    "      no GC could be, and what `live` then means), `alloc'ed`\n"
    "      everything allocated there since profiling began. `self` is the\n"
    "      site's share of all live bytes, `accum` the running total; rows\n"
    "      below the cutoff are left out. Bytes are the JVM's own object\n"
    "      sizes (as jmap -histo). Counts are exact unless the section says\n"
    "      they are estimated (sample=BYTES); each row then ends with the\n"
    "      samples it was scaled from, [N samples, L live].\n"
    "\n"
    "  Section CPU SAMPLES (cpu=samples):\n"
    "      where the threads that really ran (their CPU clock advanced) were\n"
    "      seen, sampled every `interval` ms: the hits of each trace, its\n"
    "      share and the running total, and the trace's top method.\n"
    "\n"
    "  Section CPU TIME (cpu=times):\n"
    "      every completed call of a method, counted exactly, by trace:\n"
    "      `count` is the number of calls, `self` the trace's share of all\n"
    "      self time (time in the method minus time in its callees); the\n"
    "      two figures in brackets are the self and total ms. Times are\n"
    "      elapsed time (a monotonic clock) at work: the time a native method\n"
    "      spent off the CPU (sleeping, parked, in Object.wait, blocked in a\n"
    "      native call) is waiting, left out of self, total and the ranking,\n"
    "      and shown as `waited <ms>` after the brackets of its row.\n"
    "\n"
    "  Sections MONITOR DUMP and MONITOR TIME, lines WAIT: and WAITED:\n"
    "  (monitor=y):\n"
    "      MONITOR DUMP lists every thread's state (R runnable, CW waiting,\n"
    "      MW blocked entering a monitor, SL sleeping; prefixes S| suspended,\n"
    "      intr| interrupted, native| in native code) and every monitor that\n"
    "      is owned or waited for. MONITOR TIME ranks contention (a thread\n"
    "      blocked entering a monitor someone else held) by trace and monitor\n"
    "      class: the count of such waits and their share of all the time\n"
    "      spent blocked. WAIT: and WAITED: lines follow Object.wait calls\n"
    "      (timeout and time waited in ms).\n"
    "\n"
    "  Section HEAP DUMP (BEGIN ... END; heap=dump or heap=all):\n"
    "      every object reachable from the GC roots when the dump was taken\n"
    "      (after a forced GC), one line each; ids are hex, and an object\n"
    "      keeps its id in every dump of the run. BEGIN counts the objects\n"
    "      and their bytes. The lines:\n"
    "        ROOT id (kind=<...>, ...): a GC root: a thread's object (its\n"
    "          thread serial, and the trace of its stack at the dump), a\n"
    "          local of a Java frame or a JNI local (thread, frame depth), a\n"
    "          JNI global reference (numbered from 1 in each dump), a\n"
    "          system class, a busy monitor;\n"
    "        CLS id (name=..., trace=...): a class, then its super, loader,\n"
    "          signers and protection domain, and its non-null static\n"
    "          references as `static <field> <id>`;\n"
    "        OBJ id (sz=..., trace=..., class=<name>@<class id>): an\n"
    "          instance, then its non-null reference fields as `<field> <id>`\n"
    "          (its own fields first, then its superclass's);\n"
    "        ARR id (sz=..., trace=..., nelems=..., elem type=...): an array;\n"
    "          an object array names its class and lists its non-null\n"
    "          elements as `[<index>] <id>`, a primitive array only its type.\n"
    "      `trace` is where the object was allocated (heap=all; 300000 when\n"
    "      not known). `sz` counts bytes as `hprof histo` does (a header of\n"
    "      two 8-byte ids, 4 more for an array's length, the data, rounded\n"
    "      up to 8), not the JVM's layout. Primitive values are not shown:\n"
    "      format=b has them. A dump the agent could not finish (a full\n"
    "      disk) says so in a line HEAP DUMP INCOMPLETE: <why> before its END.\n"
    "\n"
    "  CPU SAMPLES, CPU TIME and MONITOR TIME cover the time since the\n"
    "  previous dump; SITES are cumulative; each HEAP DUMP shows the heap\n"
    "  at its own moment.\n";

/* Every public entry: takes out_lock and returns the output, or NULL (lock
 * not held) when there is none or it was closed (a late callback or dump
 * after VM death). Pair with out_end. */
static hp_out *out_begin(void)
{
    hp_out *o = g_hp.out;
    if (!o)
        return NULL;
    jx_lock(g_hp.jvmti, g_hp.out_lock);
    if (o->closed) {
        jx_unlock(g_hp.jvmti, g_hp.out_lock);
        return NULL;
    }
    return o;
}

static void out_end(void)
{
    jx_unlock(g_hp.jvmti, g_hp.out_lock);
}

/* ----------------------------------------------------------------- open */

static void out_report_writer(hp_out *o)
{
    if (o->w && hw_writer_error(o->w) && out_to_report(o, hw_writer_error(o->w)))
        hp_error("writing %s failed: %s; the profile stops here", g_hp.outname,
                 hw_writer_error_text(o->w));
}

/* force=n's existence test: a dangling symbolic link exists too (stat(2)
 * would say it does not, and creating the file would create its target). */
static int out_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 || errno != ENOENT;
}

/* The output file (g_hp.outname), opened by hw_file_create's rules
 * (hw_writer.h): mode 0600, never through a symbolic link, never another
 * user's file or a hard-linked one truncated. force=y (the default)
 * overwrites a regular file of ours, as the original did. force=n only ever
 * creates a new file (O_EXCL): when the name chosen at start-up is taken
 * meanwhile, or is a dangling link, the next free name is used. NULL after
 * an HPROF ERROR. */
static hw_sink *out_open_file(void)
{
    char why[256];
    int err = 0;
    if (g_hp.o.force) {
        hw_sink *s = hw_sink_file_ex(g_hp.outname, 0, &err, why, sizeof why);
        if (!s)
            hp_error("cannot create the profile file %s: %s", g_hp.outname, why);
        return s;
    }
    for (int tries = 0;; tries++) {
        hw_sink *s = hw_sink_file_ex(g_hp.outname, HW_FILE_NEW, &err, why, sizeof why);
        if (s)
            return s;
        if (err != EEXIST || tries == 16)
            break;
        char taken[sizeof g_hp.outname];
        memcpy(taken, g_hp.outname, sizeof taken);
        if (opts_output_name(&g_hp.o, (long)getpid(), out_exists, g_hp.outname,
                             sizeof g_hp.outname) != 0) {
            hp_error("force=n: %s exists (%s) and no free name was found beside it", taken, why);
            return NULL;
        }
        hp_info("HPROF: force=n: %s exists (%s); writing %s\n", taken, why, g_hp.outname);
    }
    hp_error("cannot create the profile file %s: %s", g_hp.outname, why);
    return NULL;
}

hw_sink *out_gzip_sink(hw_sink *file)
{
    int err = 0;
    hw_sink *gz = hw_sink_gzip(file, HPROF_GZIP_LEVEL, &err);
    if (!gz)
        hw_sink_free(file);
    return gz;
}

static void out_note_locked(hp_out *o, const char *text, size_t len);

/* The HPROF_RUN_NOTE text (hprof_format.h): the settings in effect, the
 * defaults included, the JVM, and the option string as given (last: it may
 * hold "; "). Called once at start-up, before any thread of the agent's. */
static char *out_run_note(size_t *len)
{
    static const char *const cpu[] = {[OPTS_CPU_OFF] = "off", [OPTS_CPU_SAMPLES] = "samples",
                                      [OPTS_CPU_TIMES] = "times", [OPTS_CPU_OLD] = "old"};
    const opts *op = &g_hp.o;
    char *vm = jx_system_property(g_hp.jvmti, "java.vm.name");
    char *ver = jx_system_property(g_hp.jvmti, "java.vm.version");
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (f) {
        fprintf(f, "%sheap=%s; cpu=%s; monitor=%s; format=%s; depth=%u; interval=%u; "
                   "cutoff=%g; sample=%llu; lineno=%s; thread=%s; doe=%s; jvm=%s%s%s; options=%s",
                HPROF_RUN_NOTE,
                op->heap_dump && op->heap_sites ? "all"
                : op->heap_dump                 ? "dump"
                : op->heap_sites                ? "sites"
                                                : "off",
                cpu[op->cpu], op->monitor ? "y" : "n", op->binary ? "b" : "a", op->depth,
                op->interval_ms, op->cutoff, (unsigned long long)op->sample_bytes,
                op->lineno ? "y" : "n", op->thread ? "y" : "n", op->doe ? "y" : "n",
                vm ? vm : "unknown", ver ? " " : "", ver ? ver : "", op->options);
        if (fclose(f) != 0) {
            free(text);
            text = NULL;
        }
    }
    jx_free(g_hp.jvmti, vm);
    jx_free(g_hp.jvmti, ver);
    *len = text ? strlen(text) : 0;
    return text;
}

int out_open(void)
{
    hp_out *o = calloc(1, sizeof *o);
    if (!o) {
        hp_error("out of memory opening %s", g_hp.outname);
        return -1;
    }
    g_hp.out = o;
    int err = 0;
    /* net=: the listener's sink, within its send bound; the socket stays
     * the listener's (it closes it after the final output, see listener.h);
     * a dead or dropped peer latches its errno in the writer */
    hw_sink *sink = g_hp.net_fd >= 0 ? lsn_sink() : out_open_file();
    if (!sink) {
        if (g_hp.net_fd >= 0)
            hp_error("out of memory opening %s", g_hp.outname);
        return -1;
    }
    if (g_hp.net_fd < 0 && g_hp.o.gzip) {
        struct stat sb;
        o->gz_file = stat(g_hp.outname, &sb) == 0 && S_ISREG(sb.st_mode);
        if (!(sink = out_gzip_sink(sink))) {
            hp_error("out of memory opening %s", g_hp.outname);
            return -1;
        }
    }
    if (g_hp.o.binary) {
        hw_options wo;
        hw_options_init(&wo);
        wo.id_size = g_hp.o.id_size;
        wo.io_thread = 1; /* callbacks that append never wait for the disk */
        o->w = hw_writer_open(sink, &wo, &err);
        if (!o->w) {
            hp_error("cannot start the binary output %s: %s", g_hp.outname, strerror(err));
            return -1;
        }
        /* a file of heap dumps alone holds HotSpot's records only (readers
         * such as google/hprof-parser stop at any other) */
        o->hotspot_records = out_hotspot_records();
        if (!o->hotspot_records) {
            uint32_t flags = 0;
            if (g_hp.o.heap_sites || g_hp.o.heap_dump)
                flags |= HPROF_CTRL_ALLOC_TRACES;
            if (g_hp.o.cpu == OPTS_CPU_SAMPLES)
                flags |= HPROF_CTRL_CPU_SAMPLING;
            hw_control_settings(o->w, flags, (uint16_t)(g_hp.o.depth > 0xFFFF ? 0xFFFF : g_hp.o.depth));
            size_t rn;
            char *run = out_run_note(&rn);
            if (run)
                out_note_locked(o, run, rn);
            free(run);
        }
        /* the empty system trace, used by everything that has no stack:
         * defined before any record refers to it */
        hp_trace *sys = trace_at(1);
        sys->written = 1;
        hw_trace(o->w, sys->serial, 0, 0, NULL);
        if (g_hp.net_fd >= 0) /* the front end sees the header at once */
            hw_writer_flush(o->w);
        out_report_writer(o);
        return 0;
    }
    o->cap = 2 * OUT_TXT_FLUSH;
    o->buf = malloc(o->cap); /* before the writer, so a failure leaks no thread */
    if (!o->buf) {
        hw_sink_free(sink);
        hp_error("out of memory opening %s", g_hp.outname);
        return -1;
    }
    hw_options to;
    hw_options_init(&to);
    to.raw = 1;
    to.io_thread = 1;
    to.buffer_size = 256 * 1024;
    to.segment_size = 64 * 1024;
    o->tw = hw_writer_open(sink, &to, &err);
    if (!o->tw) {
        hp_error("cannot start the text output %s: %s", g_hp.outname, strerror(err));
        return -1;
    }
    if (g_hp.o.cpu == OPTS_CPU_OLD)
        return 0; /* the old prof layout has no header, as in the original */
    char when[64];
    out_ctime(when, sizeof when);
    out_printf(o, "JAVA PROFILE 1.0.1, created %s\n\n", when);
    out_printf(o, "%s", out_legend);
    if (g_hp.attached)
        out_printf(o, "\nThe agent was attached to a running JVM: allocations are counted from each\n"
                      "thread's first sampled allocation after the attach (JVMTI applies the new\n"
                      "sampling interval to a thread at its next sample point).\n");
    size_t rn;
    char *run = out_run_note(&rn);
    if (run) /* in the prelude: readers of the original's layout skip it */
        out_printf(o, "\n%s\n", run);
    free(run);
    out_printf(o, "\n--------\n\n");
    out_txt_flush(o);
    if (g_hp.net_fd >= 0) /* the front end sees the header at once */
        hw_writer_flush(o->tw);
    return 0;
}

int out_flush(void)
{
    hp_out *o = out_begin();
    if (!o)
        return 0;
    int e;
    lsn_bound_begin(); /* net=: the whole flush waits at most the send bound */
    if (o->w) {
        hw_writer_flush(o->w);
        out_report_writer(o);
        e = hw_writer_error(o->w);
    } else {
        out_txt_flush(o);
        if (!o->err && hw_writer_flush(o->tw)) {
            o->err = hw_writer_error(o->tw);
            if (out_to_report(o, o->err))
                hp_error("writing %s failed: %s", g_hp.outname, hw_writer_error_text(o->tw));
        }
        e = o->err;
    }
    lsn_bound_end();
    out_end();
    return e;
}

void out_close(void)
{
    hp_out *o = out_begin();
    if (!o)
        return;
    lsn_bound_begin(); /* net=: the final drain waits at most the send bound */
    if (o->w) {
        char msg[256];
        int e = hw_writer_close(o->w, msg, sizeof msg);
        if (e && out_to_report(o, e))
            hp_error("writing %s failed: %s", g_hp.outname, msg);
        o->w = NULL;
    } else if (o->tw) {
        out_txt_flush(o);
        char msg[256];
        int e = hw_writer_close(o->tw, msg, sizeof msg);
        if (e && out_to_report(o, e))
            hp_error("writing %s failed: %s", g_hp.outname, msg);
        o->tw = NULL;
        free(o->buf);
        o->buf = NULL;
    }
    lsn_bound_end();
    o->closed = 1;
    /* g_hp.out stays allocated: a late callback may still look at it */
    out_end();
}

/* -------------------------------------------------------------- records */

/* Binary: the UTF8 record of name `id`, once. Caller holds out_lock. */
static void out_utf8(hp_out *o, uint32_t id)
{
    if (!id)
        return;
    hp_str *s = str_get(id);
    if (s->written)
        return;
    s->written = 1;
    hw_utf8(o->w, id, s->s, s->len);
}

/* Interns a name (data_lock), returning its id; 0 when absent or on OOM. */
static uint32_t out_name(const char *s)
{
    if (!s)
        return 0;
    jx_lock(g_hp.jvmti, g_hp.data_lock);
    uint32_t id = str_intern(s, strlen(s));
    jx_unlock(g_hp.jvmti, g_hp.data_lock);
    return id;
}

/* redact=y: a name as '*' of its length (NULL if s is NULL or no memory) */
static char *out_redacted(const char *s)
{
    char *r = s ? strdup(s) : NULL;
    if (r)
        memset(r, '*', strlen(r));
    return r;
}

static void out_thread_start_names(uint32_t serial, uint64_t obj, const char *name,
                                   const char *group, const char *parent);

void out_thread_start(uint32_t serial, uint64_t obj, const char *name, const char *group,
                      const char *parent)
{
    if (!g_hp.o.redact) {
        out_thread_start_names(serial, obj, name, group, parent);
        return;
    }
    char *n = out_redacted(name), *g = out_redacted(group), *p = out_redacted(parent);
    out_thread_start_names(serial, obj, n ? n : (name ? "" : NULL), g ? g : (group ? "" : NULL),
                           p ? p : (parent ? "" : NULL));
    free(n);
    free(g);
    free(p);
}

static void out_thread_start_names(uint32_t serial, uint64_t obj, const char *name,
                                   const char *group, const char *parent)
{
    hp_out *o = g_hp.out;
    if (!o)
        return;
    uint32_t n = 0, gname = 0, pname = 0;
    if (o->w && !o->hotspot_records) {
        n = out_name(name);
        gname = out_name(group);
        pname = out_name(parent);
    }
    if (!out_begin()) /* the same output, now locked */
        return;
    if (o->w && o->hotspot_records) {
        /* none: the heap dump's THREAD OBJECT roots name its threads */
    } else if (o->w) {
        out_utf8(o, n);
        out_utf8(o, gname);
        out_utf8(o, pname);
        /* a tag that does not fit 4-byte ids is written as 0 (unknown) */
        if (g_hp.o.id_size == 4 && obj > HPROF_U4_MAX)
            obj = 0;
        hw_start_thread(o->w, serial, obj, HP_TRACE_SERIAL0, n, gname, pname);
        out_report_writer(o);
    } else if (o->buf && g_hp.o.cpu != OPTS_CPU_OLD) {
        out_printf(o, "THREAD START (obj=%llx, id = %u, name=\"%s\", group=\"%s\")\n",
                   (unsigned long long)obj, serial, name ? name : "", group ? group : "");
    }
    out_end();
}

void out_thread_end(uint32_t serial)
{
    hp_out *o = out_begin();
    if (!o)
        return;
    if (o->w && o->hotspot_records) {
        /* none, as for THREAD START */
    } else if (o->w) {
        hw_end_thread(o->w, serial);
        out_report_writer(o);
    } else if (o->buf && g_hp.o.cpu != OPTS_CPU_OLD) {
        out_printf(o, "THREAD END (id = %u)\n", serial);
    }
    out_end();
}

/* Caller holds out_lock. */
static void out_load_class_locked(hp_out *o, hp_class *c)
{
    /* inside a heap dump (the dumping thread registering a class): VisualVM
     * reads everything between the first segment and HEAP DUMP END as
     * sub-records, so the record waits for out_dump_end */
    if (!o->w || c->load_written || !c->serial || o->dumping)
        return;
    c->load_written = 1;
    out_utf8(o, c->name_vm);
    hw_load_class(o->w, c->serial, cls_object_id(c), HP_TRACE_SERIAL0, c->name_vm);
}

void out_load_class(hp_class *c)
{
    hp_out *o = g_hp.out;
    if (!o)
        return;
    if (!o->w)
        return;
    if (!out_begin()) /* the same output, now locked */
        return;
    out_load_class_locked(o, c);
    out_report_writer(o);
    out_end();
}

void out_unload_class(hp_class *c)
{
    hp_out *o = g_hp.out;
    if (!o)
        return;
    if (!o->w)
        return;
    if (!out_begin()) /* the same output, now locked */
        return;
    if (c->load_written && !c->unload_written) {
        c->unload_written = 1;
        hw_unload_class(o->w, c->serial);
    }
    out_report_writer(o);
    out_end();
}

/* A trace and everything it needs, once. Caller holds out_lock. */
static void out_trace_locked(hp_out *o, hp_trace *t)
{
    if (t->written)
        return;
    if (o->w) {
        hprof_id ids[64];
        hprof_id *fid = t->nframes <= 64 ? ids : malloc(sizeof *fid * t->nframes);
        if (!fid)
            return; /* not marked written: a later dump tries again */
        t->written = 1;
        for (uint32_t i = 0; i < t->nframes; i++) {
            hp_frame *f = frame_at(t->frame[i]);
            fid[i] = t->frame[i];
            if (f->written)
                continue;
            f->written = 1;
            out_utf8(o, f->method_name);
            out_utf8(o, f->method_sig);
            out_utf8(o, f->source);
            hw_frame(o->w, t->frame[i], f->method_name, f->method_sig, f->source, f->class_serial,
                     f->line);
        }
        hw_trace(o->w, t->serial, t->thread_serial, t->nframes, fid);
        if (fid != ids)
            free(fid);
        return;
    }
    t->written = 1;
    if (t->thread_serial)
        out_printf(o, "TRACE %u: (thread=%u)\n", t->serial, t->thread_serial);
    else
        out_printf(o, "TRACE %u:\n", t->serial);
    if (t->nframes == 0)
        out_printf(o, "\t<empty>\n");
    for (uint32_t i = 0; i < t->nframes; i++)
        out_printf(o, "\t%s\n", frame_at(t->frame[i])->text);
}

static int out_row_cmp_live(const void *a, const void *b)
{
    const hp_site_row *x = a, *y = b;
    if (x->live_bytes != y->live_bytes)
        return x->live_bytes < y->live_bytes ? 1 : -1;
    if (x->alloc_bytes != y->alloc_bytes)
        return x->alloc_bytes < y->alloc_bytes ? 1 : -1;
    return x->trace->serial < y->trace->serial ? -1 : x->trace->serial > y->trace->serial;
}

static int out_row_cmp_alloc(const void *a, const void *b)
{
    const hp_site_row *x = a, *y = b;
    if (x->alloc_bytes != y->alloc_bytes)
        return x->alloc_bytes < y->alloc_bytes ? 1 : -1;
    return out_row_cmp_live(a, b);
}

static uint32_t out_u4(uint64_t v)
{
    return v > HPROF_U4_MAX ? HPROF_U4_MAX : (uint32_t)v;
}

/* An in-band UTF8 record (out_message's ids); caller holds out_lock. */
static void out_note_locked(hp_out *o, const char *text, size_t len)
{
    uint64_t id = (g_hp.o.id_size == 4 ? OUT_MSG_ID4 : OUT_MSG_ID8) | ++o->messages;
    hw_utf8(o->w, id, text, len);
}

/* A note being written: text in memory (open_memstream), then one UTF8
 * record. Caller holds out_lock. */
typedef struct out_note {
    FILE *f;
    char *text;
    size_t len;
} out_note;

static FILE *out_note_open(out_note *n)
{
    n->text = NULL;
    n->len = 0;
    n->f = open_memstream(&n->text, &n->len);
    return n->f;
}

static void out_note_close(hp_out *o, out_note *n)
{
    if (fclose(n->f) == 0)
        out_note_locked(o, n->text, n->len);
    free(n->text);
}

static int out_row_saturated(const hp_site_row *r)
{
    return r->live_bytes > HPROF_U4_MAX || r->live_n > HPROF_U4_MAX ||
           r->alloc_bytes > HPROF_U4_MAX || r->alloc_n > HPROF_U4_MAX;
}

/* The HPROF_SITES_* records that go before a binary ALLOC SITES of these
 * rows (hprof_format.h), in the record's row order. Caller holds out_lock. */
static void out_sites_notes(hp_out *o, const hp_site_row *rows, uint32_t keep,
                            const uint64_t tot[4], const out_sites_opts *so)
{
    out_note n;
    if (so->live_note && out_note_open(&n)) {
        fprintf(n.f, "%s%s", HPROF_SITES_NOTE, so->live_note);
        out_note_close(o, &n);
    }
    if (so->sample_bytes && out_note_open(&n)) {
        fprintf(n.f, "%s%llu", HPROF_SITES_SAMPLES, (unsigned long long)so->sample_bytes);
        for (uint32_t i = 0; i < keep; i++)
            fprintf(n.f, " %llu/%llu", (unsigned long long)rows[i].alloc_samples,
                    (unsigned long long)rows[i].live_samples);
        out_note_close(o, &n);
    }
    int saturated = tot[0] > HPROF_U4_MAX || tot[1] > HPROF_U4_MAX;
    for (uint32_t i = 0; i < keep && !saturated; i++)
        saturated = out_row_saturated(&rows[i]);
    if (saturated && out_note_open(&n)) {
        fprintf(n.f, "%s%llu %llu", HPROF_SITES_U8, (unsigned long long)tot[0],
                (unsigned long long)tot[1]);
        for (uint32_t i = 0; i < keep; i++)
            if (out_row_saturated(&rows[i]))
                fprintf(n.f, " %u:%llu,%llu,%llu,%llu", i, (unsigned long long)rows[i].live_bytes,
                        (unsigned long long)rows[i].live_n, (unsigned long long)rows[i].alloc_bytes,
                        (unsigned long long)rows[i].alloc_n);
        out_note_close(o, &n);
    }
}

void out_sites(hp_site_row *rows, uint32_t n, const uint64_t tot[4], const out_sites_opts *so)
{
    hp_out *o = g_hp.out;
    if (!o)
        return;
    int by_alloc = (so->flags & HPROF_SITES_SORT_BY_ALLOC) != 0;
    qsort(rows, n, sizeof *rows, by_alloc ? out_row_cmp_alloc : out_row_cmp_live);
    /* the cutoff applies to the live-bytes share, as in the original */
    uint32_t keep = 0;
    for (; keep < n; keep++) {
        double ratio = tot[0] ? (double)rows[keep].live_bytes / (double)tot[0] : 0.0;
        if (ratio < so->cutoff)
            break;
    }
    if (!out_begin()) /* the same output, now locked */
        return;
    for (uint32_t i = 0; i < keep; i++) {
        out_load_class_locked(o, rows[i].cls);
        out_trace_locked(o, rows[i].trace);
    }
    if (o->w) {
        hw_alloc_site *s = calloc(keep ? keep : 1, sizeof *s);
        if (s) {
            for (uint32_t i = 0; i < keep; i++) {
                s[i].array_type = rows[i].cls->array_type;
                s[i].class_serial = rows[i].cls->serial;
                s[i].trace_serial = rows[i].trace->serial;
                s[i].live_bytes = out_u4(rows[i].live_bytes);
                s[i].live_instances = out_u4(rows[i].live_n);
                s[i].alloc_bytes = out_u4(rows[i].alloc_bytes);
                s[i].alloc_instances = out_u4(rows[i].alloc_n);
            }
            out_sites_notes(o, rows, keep, tot, so);
            hw_alloc_sites_head h = {
                .flags = so->flags,
                .cutoff = (float)so->cutoff,
                .total_live_bytes = out_u4(tot[0]),
                .total_live_instances = out_u4(tot[1]),
                .total_alloc_bytes = tot[2],
                .total_alloc_instances = tot[3],
            };
            hw_alloc_sites(o->w, &h, s, keep);
            free(s);
        }
        out_report_writer(o);
    } else if (o->buf) {
        char when[64];
        out_ctime(when, sizeof when);
        char est[96] = "";
        if (so->sample_bytes)
            snprintf(est, sizeof est, ", estimated from samples every %llu bytes",
                     (unsigned long long)so->sample_bytes);
        out_printf(o, "SITES BEGIN (ordered by %s bytes%s%s%s) %s\n", by_alloc ? "allocated" : "live",
                   est, so->live_note ? "; " : "", so->live_note ? so->live_note : "", when);
        out_printf(o, "          percent          live          alloc'ed  stack class\n");
        out_printf(o, " rank   self  accum     bytes objs     bytes  objs trace name\n");
        double accum = 0;
        for (uint32_t i = 0; i < keep; i++) {
            double self = tot[0] ? 100.0 * (double)rows[i].live_bytes / (double)tot[0] : 0.0;
            accum += self;
            /* sample=BYTES: the samples behind the scaled row, after the
             * class name (a whitespace-split reader of the original's nine
             * columns reads the row as before) */
            char samp[64] = "";
            if (so->sample_bytes)
                snprintf(samp, sizeof samp, "  [%llu sample%s, %llu live]",
                         (unsigned long long)rows[i].alloc_samples,
                         rows[i].alloc_samples == 1 ? "" : "s",
                         (unsigned long long)rows[i].live_samples);
            out_printf(o, "%5u %5.2f%% %5.2f%% %9llu %4llu %9llu %5llu %5u %s%s\n", i + 1, self, accum,
                       (unsigned long long)rows[i].live_bytes, (unsigned long long)rows[i].live_n,
                       (unsigned long long)rows[i].alloc_bytes, (unsigned long long)rows[i].alloc_n,
                       rows[i].trace->serial, rows[i].cls->name_java, samp);
        }
        out_printf(o, "SITES END\n");
    }
    out_end();
}

/* The top frame of a trace as class.method (its text up to the '('). */
static void out_top_method(const hp_trace *t, const char **s, int *len)
{
    *s = t->nframes ? frame_at(t->frame[0])->text : "<empty trace>";
    *len = (int)strcspn(*s, "(");
}

void out_cpu_samples(const hp_cpu_row *rows, uint32_t n, uint64_t total, double cutoff)
{
    uint32_t keep = 0;
    for (; keep < n; keep++)
        if (!total || (double)rows[keep].count / (double)total < cutoff)
            break;
    hp_out *o = out_begin();
    if (!o)
        return;
    for (uint32_t i = 0; i < keep; i++)
        out_trace_locked(o, rows[i].trace);
    if (o->w) {
        hw_cpu_sample *s = calloc(keep ? keep : 1, sizeof *s);
        if (s) {
            for (uint32_t i = 0; i < keep; i++) {
                s[i].count = out_u4(rows[i].count);
                s[i].trace_serial = rows[i].trace->serial;
            }
            hw_cpu_samples(o->w, out_u4(total), s, keep);
            free(s);
        }
        out_report_writer(o);
    } else {
        char when[64];
        out_ctime(when, sizeof when);
        out_printf(o, "CPU SAMPLES BEGIN (total = %llu) %s\n", (unsigned long long)total, when);
        if (keep)
            out_printf(o, "rank   self  accum   count trace method\n");
        double accum = 0;
        for (uint32_t i = 0; i < keep; i++) {
            const hp_trace *t = rows[i].trace;
            double self = 100.0 * (double)rows[i].count / (double)total;
            accum += self;
            const char *top;
            int mlen;
            out_top_method(t, &top, &mlen);
            out_printf(o, "%4u %5.2f%% %5.2f%% %7llu %5u %.*s\n", i + 1, self, accum,
                       (unsigned long long)rows[i].count, t->serial, mlen, top);
        }
        out_printf(o, "CPU SAMPLES END\n");
    }
    out_end();
}

void out_all_traces(void)
{
    /* the traces first, under data_lock: a slot being created is visible
     * (zeroed) before it is filled; out_lock comes after (lock order) */
    jx_lock(g_hp.jvmti, g_hp.data_lock);
    uint32_t n = trace_count(), k = 0;
    hp_trace **ts = malloc(sizeof *ts * (n ? n : 1));
    for (uint32_t i = 1; ts && i < n; i++) {
        hp_trace *t = trace_at(i);
        if (t && t->serial)
            ts[k++] = t;
    }
    jx_unlock(g_hp.jvmti, g_hp.data_lock);
    if (!ts) {
        hp_error("out of memory writing the traces");
        return;
    }
    hp_out *o = out_begin();
    if (o) {
        for (uint32_t i = 0; i < k; i++)
            out_trace_locked(o, ts[i]);
        out_report_writer(o);
        out_end();
    }
    free(ts);
}

void out_message(const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    hp_out *o = out_begin();
    if (!o)
        return;
    if (o->w) {
        /* a UTF8 record of its own: every reader accepts it and nothing
         * refers to it. Its id is far above the name table's (dense from
         * 1), so it never collides with a name. */
        uint64_t id = (g_hp.o.id_size == 4 ? OUT_MSG_ID4 : OUT_MSG_ID8) | ++o->messages;
        hw_utf8(o->w, id, text, strlen(text));
        out_report_writer(o);
    } else if (o->buf) {
        out_printf(o, "%s\n", text);
    }
    out_end();
}

void out_heap_summary(const uint64_t tot[4])
{
    hp_out *o = out_begin();
    if (!o)
        return;
    if (o->w) {
        hw_heap_summary(o->w, out_u4(tot[0]), out_u4(tot[1]), tot[2], tot[3]);
        out_report_writer(o);
    } else if (o->buf) {
        out_printf(o, "HEAP SUMMARY: live %llu bytes in %llu objects; allocated %llu bytes in %llu objects\n",
                   (unsigned long long)tot[0], (unsigned long long)tot[1],
                   (unsigned long long)tot[2], (unsigned long long)tot[3]);
    }
    out_end();
}

void out_cpu_times(const hp_time_row *rows, uint32_t n, uint64_t total_ns, double cutoff)
{
    uint32_t keep = 0;
    for (; keep < n; keep++)
        if (!total_ns || (double)rows[keep].self_ns / (double)total_ns < cutoff)
            break;
    hp_out *o = out_begin();
    if (!o)
        return;
    if (o->buf) {
        for (uint32_t i = 0; i < keep; i++)
            out_trace_locked(o, rows[i].trace);
        char when[64];
        out_ctime(when, sizeof when);
        out_printf(o, "CPU TIME (ms) BEGIN (total = %llu) %s\n",
                   (unsigned long long)(total_ns / 1000000), when);
        if (keep)
            out_printf(o, "rank   self  accum   count trace method [self ms / total ms]\n");
        double accum = 0;
        for (uint32_t i = 0; i < keep; i++) {
            const hp_trace *t = rows[i].trace;
            double self = 100.0 * (double)rows[i].self_ns / (double)total_ns;
            accum += self;
            const char *top;
            int mlen;
            out_top_method(t, &top, &mlen);
            out_printf(o, "%4u %5.2f%% %5.2f%% %7llu %5u %.*s [%.3f / %.3f]", i + 1, self, accum,
                       (unsigned long long)rows[i].calls, t->serial, mlen, top,
                       (double)rows[i].self_ns / 1e6, (double)rows[i].total_ns / 1e6);
            if (rows[i].wait_ns) /* timing.h: waiting is not work, and is shown apart */
                out_printf(o, " waited %.3f", (double)rows[i].wait_ns / 1e6);
            out_printf(o, "\n");
        }
        out_printf(o, "CPU TIME (ms) END\n");
    }
    out_end();
}

static int out_old_cmp(const void *a, const void *b)
{
    const hp_time_row *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls < y->calls ? 1 : -1;
    return x->trace->serial < y->trace->serial ? -1 : x->trace->serial > y->trace->serial;
}

/* "class.method+signature" of frame i of t, or `none`. */
static void out_old_frame(const hp_trace *t, uint32_t i, const char *none, char *buf, size_t n)
{
    if (i >= t->nframes) {
        snprintf(buf, n, "%s", none);
        return;
    }
    const hp_frame *f = frame_at(t->frame[i]);
    int mlen = (int)strcspn(f->text, "(");
    snprintf(buf, n, "%.*s%s", mlen, f->text, str_get(f->method_sig)->s);
}

void out_cpu_old(hp_time_row *rows, uint32_t n)
{
    qsort(rows, n, sizeof *rows, out_old_cmp);
    hp_out *o = out_begin();
    if (!o)
        return;
    if (o->buf) {
        out_printf(o, "count callee caller time\n");
        for (uint32_t i = 0; i < n; i++) {
            char callee[1024], caller[1024];
            out_old_frame(rows[i].trace, 0, "<unknown callee>", callee, sizeof callee);
            out_old_frame(rows[i].trace, 1, "<unknown caller>", caller, sizeof caller);
            out_printf(o, "%llu %s %s %llu\n", (unsigned long long)rows[i].calls, callee, caller,
                       (unsigned long long)(rows[i].total_ns / 1000000));
        }
    }
    out_end();
}

void out_monitor_dump(const hp_mon_dump *d)
{
    hp_out *o = out_begin();
    if (!o)
        return;
    if (o->buf) {
        for (uint32_t i = 0; i < d->nthreads; i++)
            out_trace_locked(o, d->threads[i].trace);
        out_printf(o, "MONITOR DUMP BEGIN\n");
        for (uint32_t i = 0; i < d->nthreads; i++)
            out_printf(o, "    THREAD %u, trace %u, status: %s\n", d->threads[i].serial,
                       d->threads[i].trace->serial, d->threads[i].status);
        for (uint32_t i = 0; i < d->nmons; i++) {
            const hp_mon_info *m = &d->mons[i];
            if (!m->owner) {
                out_printf(o, "    MONITOR %s unowned\n", m->sig);
            } else {
                out_printf(o, "    MONITOR %s\n", m->sig);
                out_printf(o, "\towner: thread %u, entry count: %d\n", m->owner, (int)m->entry_count);
            }
            /* both lines always, even empty, as in the original */
            out_printf(o, "\twaiting to enter:");
            for (uint32_t k = 0; k < m->nwait; k++)
                out_printf(o, "%s thread %u", k ? "," : "", m->wait[k]);
            out_printf(o, "\n");
            out_printf(o, "\twaiting to be notified:");
            for (uint32_t k = 0; k < m->nnotify; k++)
                out_printf(o, "%s thread %u", k ? "," : "", m->notify[k]);
            out_printf(o, "\n");
        }
        out_printf(o, "MONITOR DUMP END\n");
    }
    out_end();
}

void out_monitor_time(const hp_mon_row *rows, uint32_t n, uint64_t total_ns, double cutoff)
{
    if (n == 0)
        return; /* no contention since the last dump: nothing to rank */
    uint32_t keep = 0;
    for (; keep < n; keep++)
        if (total_ns && (double)rows[keep].time_ns / (double)total_ns < cutoff)
            break;
    hp_out *o = out_begin();
    if (!o)
        return;
    if (o->buf) {
        for (uint32_t i = 0; i < keep; i++)
            out_trace_locked(o, rows[i].trace);
        char when[64];
        out_ctime(when, sizeof when);
        out_printf(o, "MONITOR TIME BEGIN (total = %llu ms) %s\n",
                   (unsigned long long)(total_ns / 1000000), when);
        if (keep)
            out_printf(o, "rank   self  accum   count trace monitor\n");
        double accum = 0;
        for (uint32_t i = 0; i < keep; i++) {
            double self = total_ns ? 100.0 * (double)rows[i].time_ns / (double)total_ns : 0.0;
            accum += self;
            out_printf(o, "%4u %5.2f%% %5.2f%% %7llu %5u %s (Java)\n", i + 1, self, accum,
                       (unsigned long long)rows[i].count, rows[i].trace->serial,
                       rows[i].cls ? rows[i].cls->name_java : "<unknown class>");
        }
        out_printf(o, "MONITOR TIME END\n");
    }
    out_end();
}

void out_monitor_wait(const char *sig, int64_t timeout_ms, uint32_t thread_serial)
{
    hp_out *o = out_begin();
    if (!o)
        return;
    if (o->buf)
        out_printf(o, "WAIT: MONITOR %s, timeout=%lld, thread %u\n", sig, (long long)timeout_ms,
                   thread_serial);
    out_end();
}

void out_monitor_waited(const char *sig, int64_t waited_ms, uint32_t thread_serial)
{
    hp_out *o = out_begin();
    if (!o)
        return;
    if (o->buf)
        out_printf(o, "WAITED: MONITOR %s, time_waited=%lld, thread %u\n", sig, (long long)waited_ms,
                   thread_serial);
    out_end();
}

/* ------------------------------------------------------------ heap dumps */

hp_out *out_dump_begin(void)
{
    hp_out *o = out_begin();
    if (o)
        o->dumping = 1;
    return o;
}

int out_dump_claim_utf8(hp_out *o, uint32_t id)
{
    if (!o->w || !id || str_get(id)->written)
        return 0;
    str_get(id)->written = 1;
    return 1;
}

int out_dump_claim_load(hp_out *o, hp_class *c)
{
    if (!o->w || c->load_written || !c->serial)
        return 0;
    c->load_written = 1;
    return 1;
}

hw_writer *out_dump_writer(hp_out *o)
{
    return o->w;
}

int out_dump_streamed(void)
{
    hp_out *o = out_begin();
    if (!o)
        return 0;
    int r = o->w && !hw_writer_can_patch(o->w) && !o->gz_file;
    out_end();
    return r;
}

int out_dumps_only(void)
{
    hp_out *o = out_begin();
    if (!o)
        return 0;
    int r = o->w && o->hotspot_records && (hw_writer_can_patch(o->w) || o->gz_file);
    out_end();
    return r;
}

int out_yield(void)
{
    hp_out *o = out_begin();
    if (!o)
        return -1;
    int e = 0;
    if (o->w) {
        char msg[256];
        e = hw_writer_close(o->w, msg, sizeof msg);
        if (e && out_to_report(o, e))
            hp_error("writing %s failed: %s", g_hp.outname, msg);
        o->w = NULL;
    }
    o->closed = 1;
    out_end();
    return e ? -1 : 0;
}

void out_dump_utf8(hp_out *o, uint32_t id)
{
    if (o->w)
        out_utf8(o, id);
}

void out_dump_load_class(hp_out *o, hp_class *c)
{
    int d = o->dumping;
    o->dumping = 0; /* asked for: before the heap dump's first segment */
    out_load_class_locked(o, c);
    o->dumping = d;
}

void out_dump_trace(hp_out *o, hp_trace *t)
{
    out_trace_locked(o, t);
}

/* fopencookie write: the text goes straight to the text writer, after any
 * line formatted before it. Returns the bytes taken, 0 on error (the
 * FILE's error flag is set; the error is latched and reported here). */
static ssize_t out_dump_text_write(void *cookie, const char *p, size_t n)
{
    hp_out *o = cookie;
    out_txt_flush(o);
    return out_txt_write(o, p, n) ? 0 : (ssize_t)n;
}

FILE *out_dump_text(hp_out *o)
{
    if (!o->tw || o->err)
        return NULL;
    /* fully buffered (stdio's default for a cookie stream): the writer
     * gets the text in blocks, not line by line */
    cookie_io_functions_t io = {.write = out_dump_text_write};
    FILE *f = fopencookie(o, "w", io);
    if (!f && !o->reported) {
        hp_error("out of memory writing a heap dump into %s", g_hp.outname);
        o->err = ENOMEM;
        o->reported = 1;
    }
    return f;
}

int out_dump_text_close(hp_out *o, FILE *f)
{
    fclose(f);
    return o->err;
}

void out_dump_end(hp_out *o)
{
    o->dumping = 0;
    if (o->w) {
        /* the LOAD CLASS records of classes registered during the dump */
        uint32_t n = cls_count();
        for (uint32_t i = 1; i < n; i++)
            out_load_class_locked(o, cls_at(i));
    }
    if (o->w)
        out_report_writer(o);
    else
        out_txt_flush(o);
    out_end();
}
