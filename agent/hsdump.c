/*
 * hsdump.c: heap=dump through HotSpot's own dumper (see hsdump.h): the JNI
 * call of HotSpotDiagnosticMXBean's dumpHeap0, the private directory, and
 * the delivery of HotSpot's file into the agent's output (file, text,
 * socket).
 */
#include "hsdump.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "convert/convert.h"
#include "hprof/hprof_format.h"
#include "hprof/hr_reader.h"
#include "hprof/hw_writer.h"
#include "hsattach.h"
#include "jx.h"
#include "out.h"
#include "print.h"
#include "traces.h"
#include "redact/redact.h"

#define HS_RECORD_MAX (1u << 30) /* largest record body streamed (HotSpot cuts
                                    its segments far smaller) */
#define HS_PARALLEL_JDK 21      /* GC.heap_dump -parallel=N: JDK 21 on */
#define HS_ATTACH_START_MS 5000 /* the listener's socket after our SIGQUIT */
#define HS_ATTACH_PICK_MS 10000 /* the listener taking up our request */
/* a DataDumpRequest that may be our SIGQUIT, after the listener answered
 * (hsattach.h): HotSpot ignores a SIGQUIT while its listener initialises,
 * so ours is a dump only if the dispatcher reaches it after a listener
 * started by someone else came up, which it does within milliseconds */
#define HS_QUIT_WINDOW_NS 200000000LL
#define HS_LISTENER_NAME "Attach Listener"    /* HotSpot's thread names */
#define HS_DISPATCHER_NAME "Signal Dispatcher"

int hs_wanted(void)
{
    return g_hp.o.heap_dump && !g_hp.o.heap_sites;
}

void hs_wait_idle(jvmtiEnv *j)
{
    while (g_hp.hs_busy)
        (*j)->RawMonitorWait(j, g_hp.dump_lock, 0); /* an interrupt: look again */
}

/* The pending exception's message (cleared) into msg, without allocating:
 * at VM death a collector may be stopped (ZGC), and an allocation that
 * waits for it waits forever. Throwable.getMessage returns a field. */
static void hs_exception(JNIEnv *env, char *msg, size_t cap)
{
    jthrowable ex = (*env)->ExceptionOccurred(env);
    (*env)->ExceptionClear(env);
    const hs_state *h = &g_hp.hs;
    const char *kind = !ex ? "an error"
                       : h->oom && (*env)->IsInstanceOf(env, ex, h->oom) ? "java.lang.OutOfMemoryError"
                       : h->ioe && (*env)->IsInstanceOf(env, ex, h->ioe) ? "java.io.IOException"
                                                                        : "a Java exception";
    jstring m = ex && h->get_message ? (*env)->CallObjectMethod(env, ex, h->get_message) : NULL;
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        m = NULL;
    }
    const char *c = m ? (*env)->GetStringUTFChars(env, m, NULL) : NULL;
    snprintf(msg, cap, "%s%s%s", kind, c ? ": " : "", c ? c : "");
    if (c)
        (*env)->ReleaseStringUTFChars(env, m, c);
    if (ex)
        (*env)->DeleteLocalRef(env, ex);
}

static jobject hs_global_class(JNIEnv *env, const char *name)
{
    jclass k = (*env)->FindClass(env, name);
    jobject g = k ? (*env)->NewGlobalRef(env, k) : NULL;
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    return g;
}

/* The directory of every dump's private directory: the output's, so that
 * a link puts a dump in place without a copy, or $TMPDIR when the dump is
 * only read (text, a socket or a FIFO). */
static const char *hs_tmproot(void);

/* A VM flag's value is "true" (HotSpotDiagnosticMXBean.getVMOption). */
static int hs_vm_flag(JNIEnv *env, jclass hc, jobject bean, const char *name)
{
    jmethodID get = (*env)->GetMethodID(env, hc, "getVMOption", "(Ljava/lang/String;)Lcom/sun/management/VMOption;");
    jclass oc = get ? (*env)->FindClass(env, "com/sun/management/VMOption") : NULL;
    jmethodID val = oc ? (*env)->GetMethodID(env, oc, "getValue", "()Ljava/lang/String;") : NULL;
    jstring jn = val ? (*env)->NewStringUTF(env, name) : NULL;
    jobject opt = jn ? (*env)->CallObjectMethod(env, bean, get, jn) : NULL;
    jstring v = opt && !(*env)->ExceptionCheck(env) ? (*env)->CallObjectMethod(env, opt, val) : NULL;
    const char *c = v && !(*env)->ExceptionCheck(env) ? (*env)->GetStringUTFChars(env, v, NULL) : NULL;
    int on = c && strcmp(c, "true") == 0;
    if (c)
        (*env)->ReleaseStringUTFChars(env, v, c);
    if ((*env)->ExceptionCheck(env))
        (*env)->ExceptionClear(env);
    return on;
}

/* What GC.heap_dump through the attach listener needs (hsattach.h): the
 * JVM's version (-parallel from JDK 21), and neither -XX:+DisableAttach-
 * Mechanism (a SIGQUIT would be a thread dump and a DataDumpRequest) nor
 * -Xrs (a SIGQUIT would end the JVM). Else h->attach_off, for good. */
static void hs_attach_flags(JNIEnv *env, jclass hc, jobject bean)
{
    hs_state *h = &g_hp.hs;
    char *v = jx_system_property(g_hp.jvmti, "java.vm.specification.version");
    h->jdk = v ? atoi(v) : 0;
    if (v)
        jx_free(g_hp.jvmti, v);
    /* -parallel=N: the JVM's own count of its CPUs, which follows
     * -XX:ActiveProcessorCount and cgroup v1 and v2 quotas alike */
    jclass rc = (*env)->FindClass(env, "java/lang/Runtime");
    jmethodID gr = rc ? (*env)->GetStaticMethodID(env, rc, "getRuntime", "()Ljava/lang/Runtime;") : NULL;
    jmethodID ap = gr ? (*env)->GetMethodID(env, rc, "availableProcessors", "()I") : NULL;
    jobject rt = ap ? (*env)->CallStaticObjectMethod(env, rc, gr) : NULL;
    jint n = rt && !(*env)->ExceptionCheck(env) ? (*env)->CallIntMethod(env, rt, ap) : 0;
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        n = 0;
    }
    h->cpus = n > 0 ? n : 0;
    if (hs_vm_flag(env, hc, bean, "DisableAttachMechanism"))
        snprintf(h->attach_why, sizeof h->attach_why, "-XX:+DisableAttachMechanism");
    else if (hs_vm_flag(env, hc, bean, "ReduceSignalUsage"))
        snprintf(h->attach_why, sizeof h->attach_why, "-Xrs (ReduceSignalUsage)");
    h->attach_off = h->attach_why[0] != 0;
}

static int hs_attach_wanted(int hs_gz);
static int hs_gz_ok(void);

/* ZGC, Shenandoah: the listener is started now, at start-up (hs_init
 * runs at VMInit for them), if the dumps are to use it: at VM death their
 * collector is stopped, and HotSpot's start of its listener (a Java
 * Thread allocated) can wait for it forever, so no dump at VM death
 * starts it (hs_dump). */
static void hs_prime(void)
{
    hs_state *h = &g_hp.hs;
    if (!g_hp.gc_no_force || __atomic_load_n(&g_hp.exiting, __ATOMIC_ACQUIRE) || !hs_attach_wanted(hs_gz_ok()))
        return;
    hsa_call c = {.sock_dir = "/tmp", .pid = getpid(), .may_start = 1, .start_ms = HS_ATTACH_START_MS,
                  .quit_ns = &h->quit_ns};
    char why[512];
    if (hsa_listen(&c, why, sizeof why) != 0) {
        snprintf(h->attach_why, sizeof h->attach_why, "%.250s", why);
        h->attach_off = 1;
    }
}

int hs_init(JNIEnv *env)
{
    hs_state *h = &g_hp.hs;
    if (!env || h->ready)
        return h->ready ? 0 : -1;
    char msg[512] = "";
    if ((*env)->PushLocalFrame(env, 32) != 0) {
        (*env)->ExceptionClear(env);
        hp_error("heap dump: out of memory preparing HotSpot's dumper");
        return -1;
    }
    int binfile = g_hp.o.binary && g_hp.net_fd < 0 && !out_dump_streamed();
    h->in_tmp = !binfile;
    char root[sizeof h->dir];
    const char *slash = strrchr(g_hp.outname, '/');
    if (!binfile)
        snprintf(root, sizeof root, "%s", hs_tmproot());
    else if (slash)
        snprintf(root, sizeof root, "%.*s", (int)(slash - g_hp.outname), g_hp.outname);
    else
        snprintf(root, sizeof root, ".");
    /* a name nobody can guess, made once: the Java String of the dump's
     * path is made now, so that a dump allocates nothing in the heap */
    unsigned long rnd = 0;
    FILE *ur = fopen("/dev/urandom", "re");
    if (!ur || fread(&rnd, sizeof rnd, 1, ur) != 1)
        rnd = (unsigned long)hp_now_ns() * 0x9e3779b97f4a7c15ULL;
    if (ur)
        fclose(ur);
    int n = snprintf(h->dir, sizeof h->dir, "%s/%shprof-dump.%ld.%016lx", root, binfile ? "." : "",
                     (long)getpid(), rnd);
    n = n < 0 || (size_t)n >= sizeof h->dir ? -1
        : snprintf(h->path, sizeof h->path, "%s/heap.hprof", h->dir);

    if (n < 0 || (size_t)n >= sizeof h->path) {
        hp_error("heap dump: the name of its temporary directory in %s is too long", root);
        goto out;
    }
    h->oom = hs_global_class(env, "java/lang/OutOfMemoryError");
    h->ioe = hs_global_class(env, "java/io/IOException");
    jclass tc = (*env)->FindClass(env, "java/lang/Throwable");
    h->get_message = tc ? (*env)->GetMethodID(env, tc, "getMessage", "()Ljava/lang/String;") : NULL;
    /* the HotSpotDiagnosticMXBean (java.lang.management's platform bean) */
    jclass mf = tc ? (*env)->FindClass(env, "java/lang/management/ManagementFactory") : NULL;
    jclass hc = mf ? (*env)->FindClass(env, "com/sun/management/HotSpotDiagnosticMXBean") : NULL;
    jmethodID get = hc ? (*env)->GetStaticMethodID(env, mf, "getPlatformMXBean",
                                                   "(Ljava/lang/Class;)Ljava/lang/management/PlatformManagedObject;")
                       : NULL;
    jobject b = get ? (*env)->CallStaticObjectMethod(env, mf, get, hc) : NULL;
    /* its native dumpHeap0(String, boolean): the public dumpHeap adds only
     * a check of the name's suffix, in Java code that allocates */
    jclass bc = b && !(*env)->ExceptionCheck(env) ? (*env)->GetObjectClass(env, b) : NULL;
    h->dump0 = bc ? (*env)->GetMethodID(env, bc, "dumpHeap0", "(Ljava/lang/String;Z)V") : NULL;
    /* HotSpot links a native method at its first call, and the lookup
     * allocates (a String): a first call at VM death under ZGC would wait
     * forever. A call with no file links it now and fails at once
     * (NullPointerException, checked first by the JVM's DumpHeap0). */
    if (h->dump0) {
        (*env)->CallVoidMethod(env, b, h->dump0, NULL, JNI_FALSE);
        if ((*env)->ExceptionCheck(env))
            (*env)->ExceptionClear(env);
    }
    jstring p = h->dump0 ? (*env)->NewStringUTF(env, h->path) : NULL;
    if (p && !(*env)->ExceptionCheck(env))
        hs_attach_flags(env, hc, b);
    if ((*env)->ExceptionCheck(env)) {
        hs_exception(env, msg, sizeof msg);
    } else if (!p) {
        snprintf(msg, sizeof msg, "this JVM has no HotSpotDiagnosticMXBean.dumpHeap0 (module jdk.management)");
    } else {
        h->bean = (*env)->NewGlobalRef(env, b);
        h->jpath = (*env)->NewGlobalRef(env, p);
        h->ready = h->bean && h->jpath;
        if (!h->ready)
            snprintf(msg, sizeof msg, "out of memory");
    }
    if (!h->ready)
        hp_error("heap dump: HotSpot's dumper cannot be called: %s; heap=dump makes no dump", msg);
    else
        hs_prime();
out:
    (*env)->PopLocalFrame(env, NULL);
    return h->ready ? 0 : -1;
}

/* HotSpot's dump into h->path. Returns 0, or -1 with the reason in msg.
 * Called without any agent lock; allocates nothing in the Java heap (but
 * the exception of a failure). */
static int hs_call(JNIEnv *env, int live, char *msg, size_t cap)
{
    const hs_state *h = &g_hp.hs;
    msg[0] = 0;
    (*env)->CallVoidMethod(env, h->bean, h->dump0, h->jpath, live ? JNI_TRUE : JNI_FALSE);
    if ((*env)->ExceptionCheck(env)) {
        hs_exception(env, msg, cap);
        return -1;
    }
    return 0;
}

static const char *hs_tmproot(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

/* The dump's private directory (mode 0700), made for each dump and removed
 * after it: HotSpot gets a name there that does not exist yet (JDK 17
 * refuses an existing file; -overwrite would follow a link someone put
 * there). */
static int hs_mkdir(const char *dir)
{
    if (mkdir(dir, 0700) == 0)
        return 0;
    hp_error("heap dump: cannot create a temporary directory %s: %s%s", dir, strerror(errno),
             !g_hp.hs.in_tmp ? ""
                 : " (set TMPDIR to a writable directory with room for the dump)");
    return -1;
}

/* format=a: the text of every dump of a run is one file, where each TRACE
 * number means one stack; HotSpot numbers its traces 1, 2 ... in each dump.
 * So its thread traces become base + n (unique in the run), and its empty
 * trace, which every object names, the agent's own (HP_TRACE_SERIAL0):
 * patched in place in the private copy, at the offsets the reader gives. */
#define HS_TRACE_BASE 1000000000u

typedef struct hs_renum {
    int fd;
    unsigned idsz;
    uint32_t base, max;
    int err;
} hs_renum;

/* `serial` at `at` becomes its number in the run; with `ref`, a reference
 * to HotSpot's empty trace becomes one to the agent's */
static void hs_patch(hs_renum *r, uint64_t at, uint32_t serial, int ref)
{
    uint32_t v = ref && serial == 1 ? HP_TRACE_SERIAL0 : r->base + serial;
    if (serial > r->max)
        r->max = serial;
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    if (!r->err && pwrite(r->fd, b, 4, (off_t)at) != 4)
        r->err = errno ? errno : EIO;
}

static int hs_renum_header(void *ctx, const hr_header *h)
{
    ((hs_renum *)ctx)->idsz = h->id_size;
    return 0;
}

static int hs_renum_record(void *ctx, const hr_record *rec)
{
    hs_renum *r = ctx;
    /* a TRACE's own number: HotSpot's empty one stays a block of its own
     * (no object names it now), printed once like every other */
    if (rec->tag == HPROF_TAG_TRACE && !rec->malformed)
        hs_patch(r, rec->offset + HPROF_RECORD_HEADER_SIZE, rec->u.trace.trace_serial, 0);
    return r->err;
}

static int hs_renum_sub(void *ctx, const hr_sub *s)
{
    hs_renum *r = ctx;
    uint64_t at = s->offset + 1 + r->idsz; /* every dump's trace follows its id */
    if (s->part)
        return 0; /* a later part of an OBJECT ARRAY DUMP: patched with its first */
    switch (s->tag) {
    case HPROF_GC_ROOT_THREAD_OBJ:
        hs_patch(r, at + 4, s->u.root.frame, 1); /* after the thread serial */
        break;
    case HPROF_GC_CLASS_DUMP:
        hs_patch(r, at, s->u.cls.trace_serial, 1);
        break;
    case HPROF_GC_INSTANCE_DUMP:
        hs_patch(r, at, s->u.inst.trace_serial, 1);
        break;
    case HPROF_GC_OBJ_ARRAY_DUMP:
        hs_patch(r, at, s->u.oarr.trace_serial, 1);
        break;
    case HPROF_GC_PRIM_ARRAY_DUMP:
        hs_patch(r, at, s->u.parr.trace_serial, 1);
        break;
    default:
        break;
    }
    return r->err;
}

static int hs_renumber(const char *path)
{
    hs_renum r = {.fd = open(path, O_RDWR | O_CLOEXEC), .idsz = 8};
    r.base = g_hp.hs_trace_base ? g_hp.hs_trace_base : HS_TRACE_BASE;
    int err = 0;
    hr_source *src = r.fd >= 0 ? hr_source_fd(r.fd, &err) : NULL;
    if (!src) {
        hp_error("heap dump: cannot read %s: %s", path, strerror(err ? err : errno));
        if (r.fd >= 0)
            close(r.fd);
        return -1;
    }
    hr_callbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.on_header = hs_renum_header;
    cb.on_record = hs_renum_record;
    cb.on_sub = hs_renum_sub;
    hr_stats stats;
    hr_parse(src, &cb, &r, &stats);
    hr_source_close(src);
    close(r.fd);
    g_hp.hs_trace_base = r.base + r.max + 1;
    if (r.err)
        hp_error("heap dump: numbering its traces in %s failed: %s", path, strerror(r.err));
    return r.err ? -1 : 0;
}

/* The dump at `path` into the text output (format=a): HEAP DUMP BEGIN ...
 * END and the TRACE blocks of its thread roots. */
static int hs_render_text(const char *path)
{
    hp_out *o = out_dump_begin();
    if (!o)
        return 0; /* the output is closed: nothing to do */
    int rc = -1, err = 0;
    hr_source *src = hr_source_file(path, &err);
    FILE *f = src ? out_dump_text(o) : NULL;
    if (!src)
        hp_error("heap dump: cannot read %s: %s", path, strerror(err));
    if (f)
        out_dump_trace(o, trace_at(1)); /* the empty trace of every object */
    if (f) {
        char msg[256];
        int pe = print_heap_dumps(src, f, PRINT_HEAP_TRACES, msg, sizeof msg);
        int oe = out_dump_text_close(o, f);
        if (pe && !oe)
            hp_error("heap dump: the text of the dump is incomplete: %s", msg);
        rc = pe || oe ? -1 : 0;
    }
    if (src)
        hr_source_close(src);
    out_dump_end(o);
    return rc;
}

static int hs_read_all(int fd, uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? errno : EPROTO;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* The records of the dump at `path` (ids of the output's size), after its
 * header, down the output's stream (net=, a FIFO). */
static int hs_stream(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        hp_error("heap dump: cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    hp_out *o = out_dump_begin();
    if (!o) {
        close(fd);
        return 0;
    }
    hw_writer *w = out_dump_writer(o);
    uint8_t h[HPROF_HEADER_SIZE];
    uint8_t *body = NULL;
    size_t cap = 0;
    int e = hs_read_all(fd, h, sizeof h), open_dump = 0;
    if (!e && (memcmp(h, HPROF_MAGIC_1_0_2, HPROF_MAGIC_LEN + 1) != 0 ||
               hr_get_u4(h + HPROF_MAGIC_LEN + 1) != hw_writer_id_size(w)))
        e = EPROTO;
    while (!e) {
        uint8_t rh[HPROF_RECORD_HEADER_SIZE];
        ssize_t r = read(fd, rh, 1);
        if (r == 0)
            break; /* the end of the file */
        if (r < 0) {
            e = errno == EINTR ? 0 : errno;
            continue;
        }
        if ((e = hs_read_all(fd, rh + 1, sizeof rh - 1)) != 0)
            break;
        uint32_t len = hr_get_u4(rh + 5);
        if (len > HS_RECORD_MAX) {
            e = EFBIG;
            break;
        }
        if (len > cap) {
            uint8_t *nb = realloc(body, len);
            if (!nb) {
                e = ENOMEM;
                break;
            }
            body = nb;
            cap = len;
        }
        if ((e = hs_read_all(fd, body, len)) != 0)
            break;
        if (rh[0] == HPROF_TAG_HEAP_DUMP_SEGMENT || rh[0] == HPROF_TAG_HEAP_DUMP) {
            if (!open_dump)
                hw_heap_begin(w);
            open_dump = 1;
            hw_heap_segment_raw(w, body, len);
        } else if (rh[0] == HPROF_TAG_HEAP_DUMP_END) {
            if (!open_dump)
                hw_heap_begin(w);
            hw_heap_end(w);
            open_dump = 0;
        } else {
            hw_raw_record(w, rh[0], body, len);
        }
        if (hw_writer_error(w))
            break; /* reported by out_dump_end, naming the output */
    }
    if (open_dump)
        hw_heap_end(w); /* a well-formed prefix */
    free(body);
    close(fd);
    out_dump_end(o);
    if (e)
        hp_error("heap dump: reading HotSpot's dump %s failed: %s", path,
                 e == EPROTO ? "not an HPROF 1.0.2 file with the output's id size" : strerror(e));
    return e || hw_writer_error(w) ? -1 : 0;
}

/* Puts `tmp` at `dest`, which does not exist now, by a hard link: never
 * by a rename over a file, which on ext4 (auto_da_alloc) starts the
 * writeback of the whole dump and holds the dump's end for it (0.5 s for
 * 1.4 GB), and never over a name someone took meanwhile (EEXIST). */
static int hs_link(const char *tmp, const char *dest)
{
    if (link(tmp, dest) == 0)
        return 0;
    hp_error("heap dump: cannot create %s: %s", dest, strerror(errno));
    return -1;
}

/* HotSpot's file `tmp` becomes `dest`, by the output's rules (hw_writer.h:
 * no symbolic link, no other user's file, no hard link; force=n creates
 * only): `dest` is first opened by them, then, a regular file, replaced
 * (hs_link), or, a FIFO or a device, written into. `own`: dest is the
 * agent's output, which passed them at start-up. */
static int hs_place(const char *tmp, const char *dest, int own)
{
    if (own) {
        unlink(dest);
        return hs_link(tmp, dest);
    }
    int err = 0;
    char why[256];
    int fd = hw_file_create(dest, g_hp.o.force ? 0 : HW_FILE_NEW, &err, why, sizeof why);
    if (fd < 0) {
        hp_error("heap dump: cannot create %s: %s", dest, why);
        return -1;
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        unlink(dest); /* checked, and empty */
        rc = hs_link(tmp, dest);
    } else { /* a FIFO, /dev/null: the bytes go into it */        int in = open(tmp, O_RDONLY | O_CLOEXEC);
        static char buf[1 << 16];
        ssize_t n = in < 0 ? -1 : 0;
        while (in >= 0 && (n = read(in, buf, sizeof buf)) > 0) {
            for (ssize_t off = 0; off < n;) {
                ssize_t w = write(fd, buf + off, (size_t)(n - off));
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0) {
                    n = -1;
                    break;
                }
                off += w;
            }
            if (n < 0)
                break;
        }
        if (n < 0) {
            hp_error("heap dump: writing %s failed: %s", dest, strerror(errno));
            rc = -1;
        }
        if (in >= 0)
            close(in);
    }
    close(fd);
    return rc;
}

/* redact=y: `in` with every primitive value zeroed and every String's
 * bytes '*' (the library `hprof redact` uses) into `out`. */
static int hs_redact(const char *in, const char *out)
{
    redact_opts ro;
    memset(&ro, 0, sizeof ro);
    redact *r = redact_init(&ro);
    int rc = r ? redact_file(r, in, out) : -1;
    if (rc != 0)
        hp_error("heap dump: redacting it failed: %s", r ? redact_error(r) : "out of memory");
    redact_cleanup(r);
    return rc;
}

/* `tmp` converted into `dest` (convert/): idsize=4 (names renumbered:
 * HotSpot's are addresses), and/or gzip in HotSpot's -gz layout (level 1,
 * as jcmd's recommended -gz=1) for an output named *.gz. */
static int hs_convert(const char *tmp, const char *dest, int id4, int gz)
{
    convert_options co;
    convert_options_init(&co);
    if (id4) {
        co.id_size = 4;
        co.renumber = 1;
    }
    co.gzip = gz;
    co.gzip_level = HPROF_GZIP_LEVEL;
    convert_stats cs;
    char msg[512];
    if (convert_file(tmp, dest, &co, &cs, msg, sizeof msg) != 0) {
        hp_error("heap dump: converting it (%s%s%s) failed: %s", id4 ? "4-byte ids" : "",
                 id4 && gz ? ", " : "", gz ? "gzip" : "", msg);
        return -1;
    }
    return 0;
}

/* Empties and removes dump n's directory of GC.heap_dump: HotSpot's
 * parallel dumper writes segment files beside its file (FILE.p0 ...), and
 * may leave them when it fails. */
static void hs_rm_pdir(const char *pdir)
{
    DIR *d = opendir(pdir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    if (d)
        closedir(d);
    rmdir(pdir);
}

int hs_want_gz(void)
{
    /* gzip=y (file=NAME.gz implies it); text, net= and FIFO outputs stay plain */
    return g_hp.o.binary && g_hp.net_fd < 0 && !out_dump_streamed() && g_hp.o.gzip;
}

/* The current thread is `name` (HotSpot's threads are named at creation
 * and keep their names). */
static int hs_thread_is(jvmtiEnv *j, const char *name)
{
    jvmtiThreadInfo ti;
    memset(&ti, 0, sizeof ti);
    if ((*j)->GetThreadInfo(j, NULL, &ti) != JVMTI_ERROR_NONE)
        return 0;
    int is = ti.name && strcmp(ti.name, name) == 0;
    jx_free(j, ti.name);
    JNIEnv *env = NULL;
    if ((*g_hp.vm)->GetEnv(g_hp.vm, (void **)&env, JNI_VERSION_1_8) == JNI_OK && env) {
        if (ti.thread_group)
            (*env)->DeleteLocalRef(env, ti.thread_group);
        if (ti.context_class_loader)
            (*env)->DeleteLocalRef(env, ti.context_class_loader);
    }
    return is;
}

int hs_on_listener(jvmtiEnv *j)
{
    return hs_thread_is(j, HS_LISTENER_NAME);
}

int hs_own_quit(jvmtiEnv *j)
{
    long long t = __atomic_load_n(&g_hp.hs.quit_ns, __ATOMIC_ACQUIRE);
    if (!t)
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    if ((t != HSA_QUIT_PENDING && now - t > HS_QUIT_WINDOW_NS) || !hs_thread_is(j, HS_DISPATCHER_NAME))
        return 0;
    return __atomic_compare_exchange_n(&g_hp.hs.quit_ns, &t, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* A gzip output whose plain file needs no work first: HotSpot's -gz=1 */
static int hs_gz_ok(void)
{
    return hs_want_gz() && g_hp.o.id_size != 4 && !g_hp.o.redact;
}

/* Whether this dump is to be GC.heap_dump's: for -parallel (JDK 21 on),
 * or for HotSpot's own -gz (`hs_gz`: a gzip output whose plain file needs
 * no work first), which compresses in its worker threads: on the 16 M
 * object bench heap, JDK 17, under load, 16-24 s against 31 s for the
 * plain dump converted afterwards, the same size (bench/BENCHMARKS.md).
 * Plain on JDK 17 the command is dumpHeap0's code with a round trip more. */
static int hs_attach_wanted(int hs_gz)
{
    const hs_state *h = &g_hp.hs;
    return !h->attach_off && (h->jdk >= HS_PARALLEL_JDK || hs_gz);
}

/* The dcmd's text as one line, without its "Dumping heap to ..." */
static void hs_dcmd_text(const char *text, char *msg, size_t cap)
{
    size_t n = 0;
    msg[0] = 0;
    for (const char *l = text; *l && n + 1 < cap;) {
        size_t len = strcspn(l, "\n");
        if (len && strncmp(l, "Dumping heap to ", 16) != 0) {
            int w = snprintf(msg + n, cap - n, "%s%.*s", n ? "; " : "", (int)len, l);
            n = w < 0 || (size_t)w >= cap - n ? cap - 1 : n + (size_t)w;
        }
        l += len;
        if (*l)
            l++;
    }
    if (!msg[0])
        snprintf(msg, cap, "it said nothing");
}

/* GC.heap_dump [-all] [-parallel=N] [-gz=1] into h->ppath, sent to the
 * JVM's attach listener (hsattach.h). Returns 0: the dump made (what into
 * what); -1: HotSpot's dumper failed (its text in msg); 1: no listener to
 * be had (why in msg): dumpHeap0 makes the dump instead. No agent lock
 * held. */
static int hs_dcmd(uint32_t nth, int live, int gz, int may_start, char *what, size_t wcap, char *msg,
                   size_t cap)
{
    hs_state *h = &g_hp.hs;
    /* a directory of this attempt's own: a request given up and run
     * late by the listener finds none, and touches no later dump */
    snprintf(h->pdir, sizeof h->pdir, "%.4190s/p%u", h->dir, nth);
    snprintf(h->ppath, sizeof h->ppath, "%s/heap.hprof", h->pdir);
    char qp[HSA_ARG_MAX], cmd[HSA_ARG_MAX + 64], par[32] = "";
    if (hsa_quote(qp, sizeof qp, h->ppath) != 0) {
        snprintf(msg, cap, "its path cannot be said in a command line");
        return 1;
    }
    if (h->jdk >= HS_PARALLEL_JDK)
        snprintf(par, sizeof par, " -parallel=%d", h->cpus > 0 ? h->cpus : hsa_cpus());
    snprintf(what, wcap, "GC.heap_dump%s%s%s", live ? "" : " -all", par, gz ? " -gz=1" : "");
    snprintf(cmd, sizeof cmd, "%s %s", what, qp);
    if (mkdir(h->pdir, 0700) != 0) {
        snprintf(msg, cap, "cannot create %.700s: %s", h->pdir, strerror(errno));
        return 1;
    }
    hsa_call c = {
        .sock_dir = "/tmp", /* HotSpot's os::get_temp_directory() on Linux, not $TMPDIR */
        .pid = getpid(),
        .may_start = may_start,
        .start_ms = HS_ATTACH_START_MS,
        .pick_ms = HS_ATTACH_PICK_MS,
        .command = cmd,
        .proof = h->ppath,
        .abandon = &h->listener_waits,
        .quit_ns = &h->quit_ns,
    };
    char out[2048];
    int r = hsa_jcmd(&c, out, sizeof out);
    if (r == HSA_OK) {
        const char *done = strstr(out, "Heap dump file created");
        if (done) { /* "... [N bytes in S secs]": HotSpot's own time, for the verbose note */
            const char *b = strchr(done, '[');
            size_t wl = strlen(what);
            if (b && wl + 3 < wcap)
                snprintf(what + wl, wcap - wl, " %.*s", (int)strcspn(b, "\n"), b);
            return 0;
        }
        hs_dcmd_text(out, msg, cap);
        return -1;
    }
    if (r == HSA_REFUSED)
        snprintf(msg, cap, "the attach listener refused %.100s: %.800s", what, out);
    else
        snprintf(msg, cap, "%.900s", out);
    /* a listener that cannot be had (or stalls) is not tried again; one
     * that only is not up yet (a SIGQUIT's dump cannot start it), or
     * busy with a jcmd JVMTI.data_dump that waits for us, is */
    if (r != HSA_NOT_STARTED && !(r == HSA_ABANDONED && h->listener_waits) && !h->attach_off) {
        snprintf(h->attach_why, sizeof h->attach_why, "%s", msg);
        h->attach_off = 1;
    }
    rmdir(h->pdir); /* empty: an abandoned request, run late, finds no directory */
    return 1;
}

int hs_dump(jvmtiEnv *j, JNIEnv *env)
{
    if (!env)
        return -1;
    hs_wait_idle(j);
    uint32_t nth = ++g_hp.heap_dumps;
    int text = !g_hp.o.binary, stream = !text && (g_hp.net_fd >= 0 || out_dump_streamed());
    int own = !text && !stream && nth == 1 && out_dumps_only(); /* the output itself */
    int id4 = !text && g_hp.o.id_size == 4;
    /* gzip in HotSpot's -gz layout: made by GC.heap_dump -gz=1 (in its
     * parallel workers) when it makes the dump and nothing is to be done
     * to the plain file first, else by convert/ afterwards */
    int gz = !text && !stream && hs_want_gz();
    int on_listener = hs_on_listener(j);
    int on_dispatcher = !on_listener && hs_thread_is(j, HS_DISPATCHER_NAME);
    char dest[sizeof g_hp.outname + 16] = "";
    if (!text && !stream) {
        if (own)
            snprintf(dest, sizeof dest, "%s", g_hp.outname);
        else
            snprintf(dest, sizeof dest, "%s.%u", g_hp.outname, nth);
    }
    const char *dir = g_hp.hs.dir, *path = g_hp.hs.path;
    int by_dcmd = 0, hs_gz = 0, conv = 0;
    char what[192] = "", note[600] = "";
    char conv_path[sizeof g_hp.hs.path + 16] = "", red_path[sizeof conv_path] = "";

    /* at VM death no GC may be asked for (agent.c): every object is
     * dumped, as of the GC forced when the exit began */
    int live = !(__atomic_load_n(&g_hp.exiting, __ATOMIC_ACQUIRE) || g_hp.dying);
    char msg[1024];
    g_hp.hs_busy = 1;
    jx_unlock(j, g_hp.dump_lock); /* no agent lock across Java code and the dump */
    int rc = -1;
    msg[0] = 0;
    if (hs_init(env) != 0) { /* the first dump prepares (hsdump.h) */
        snprintf(msg, sizeof msg, "it could not be prepared (see the error above)");
    } else if (hs_mkdir(dir) != 0) {
        snprintf(msg, sizeof msg, "no temporary directory (see the error above)");
    } else {
        hs_gz = gz && hs_gz_ok();
        if (!hs_attach_wanted(hs_gz)) {
            if (g_hp.hs.attach_off && (g_hp.hs.jdk >= HS_PARALLEL_JDK || hs_gz))
                snprintf(note, sizeof note, "%s", g_hp.hs.attach_why);
        } else if (on_listener) { /* the listener cannot wait for itself */
            snprintf(note, sizeof note, "the request came through the attach listener itself");
        } else {
            /* a SIGQUIT's dump runs on the signal dispatcher: a SIGQUIT
             * of ours would wait for it, so it needs a listener up */
            int may_start = !on_dispatcher && !(g_hp.gc_no_force && !live); /* hs_prime */
            int r = hs_dcmd(nth, live, hs_gz, may_start, what, sizeof what, msg, sizeof msg);
            by_dcmd = r <= 0;
            if (by_dcmd) {
                rc = r;
                path = g_hp.hs.ppath;
            } else {
                snprintf(note, sizeof note, "%.590s", msg); /* a Debug build (-O0) checks the width */
                msg[0] = 0;
            }
        }
        if (!by_dcmd)
            hs_gz = 0; /* convert/ compresses dumpHeap0's plain file */
        if (!by_dcmd)
            rc = hs_call(env, live, msg, sizeof msg);
    }
    jx_lock(j, g_hp.dump_lock);
    g_hp.hs_busy = 0;
    (*j)->RawMonitorNotifyAll(j, g_hp.dump_lock);

    if (by_dcmd)
        hp_info(" (heap dump %u: %s, through the JVM's attach listener)", nth, what);
    else if (note[0])
        hp_info(" (heap dump %u: HotSpotDiagnosticMXBean.dumpHeap, one thread: %s)", nth, note);
    conv = id4 || (gz && !hs_gz);
    struct stat st;
    if (rc != 0 || stat(path, &st) != 0 || st.st_size < (off_t)HPROF_HEADER_SIZE) {
        const char *why = msg[0] ? msg : "no reason given";
        hp_error("heap dump: HotSpot's dumper (%s) made no dump: %s",
                 by_dcmd ? "GC.heap_dump" : "HotSpotDiagnosticMXBean.dumpHeap", why);
        /* and the output says so: no reader takes its absence for a dump */
        out_message("HPROF ERROR: heap dump %u: HotSpot's dumper made no dump: %s", nth, why);
        rc = -1;
        goto done;
    }
    /* each step from one file of the private directory to the next */
    const char *src = path;
    if (g_hp.o.redact) {
        snprintf(red_path, sizeof red_path, "%s/heap-redacted.hprof", dir);
        rc = hs_redact(src, red_path);
        unlink(path); /* the values are gone from the disk at once */
        if (rc != 0)
            goto done;
        src = red_path;
    }
    if (conv) {
        snprintf(conv_path, sizeof conv_path, "%s/heap-converted.hprof", dir);
        if ((rc = hs_convert(src, conv_path, id4, gz)) != 0)
            goto done;
        src = conv_path;
    }
    if (text) {
        rc = hs_renumber(src) == 0 ? hs_render_text(src) : -1;
    } else if (stream) {
        rc = hs_stream(src);
    } else {
        if (own && out_yield() != 0) {
            rc = -1;
            goto done;
        }
        rc = hs_place(src, dest, own);
        if (rc == 0 && !own)
            hp_info(" (heap dump %u: %s)", nth, dest);
    }
done:
    unlink(path);
    if (by_dcmd)
        hs_rm_pdir(g_hp.hs.pdir);
    if (conv_path[0])
        unlink(conv_path);
    if (red_path[0])
        unlink(red_path);
    rmdir(dir);
    return rc;
}

void hs_cleanup(JNIEnv *env)
{
    hs_state *h = &g_hp.hs;
    jobject *refs[] = {&h->bean, &h->jpath, &h->oom, &h->ioe};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        if (env && *refs[i])
            (*env)->DeleteGlobalRef(env, *refs[i]);
        *refs[i] = NULL;
    }
    h->ready = 0;
}
