/*
 * hv_readers.c: the readers table behind hv_readers.h.
 *
 * Owns: what each common reader of HotSpot's dumps accepts (header
 * versions, top-level record types, heap sub-record types, gzip, a file
 * without a heap dump) and which of the
 * verifier's kinds make it stop or misread, with the sentence saying so.
 * Every rule was read in the reader's own source (cited by file at each
 * reader) or seen when the reader was run on such a file; a reader's
 * behaviour that was not confirmed either way is left out rather than
 * guessed, so "reads" means "none of the known ways to fail it".
 *
 * Contract: judges a finished hv_result (its profile and per-kind counts);
 * it reads no file and keeps no state.
 */
#include "hprof/hv_readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HV_READER_MSG_MAX 512
#define HV_VERSION_BIT(v) (1u << (v))
#define HV_ALL_VERSIONS                                                                       \
    (HV_VERSION_BIT(HPROF_VERSION_1_0_1) | HV_VERSION_BIT(HPROF_VERSION_1_0_2) |             \
     HV_VERSION_BIT(HPROF_VERSION_1_0_3))
#define HV_TAG_SLOTS 256
#define HV_READER_LIST_MAX 5 /* record types named in one reason */

/* A verifier kind that makes a reader fail, and how. */
typedef struct hv_kind_rule {
    const char *kind;
    hv_verdict verdict;
    const char *why; /* the reader's side: what it does, its error message */
} hv_kind_rule;

typedef struct hv_reader {
    const char *name;
    const char *about;
    unsigned versions; /* HV_VERSION_BIT of each header it accepts */
    const char *version_why;
    const uint8_t *top_ok; /* 0-terminated; NULL: it skips types it does not read */
    const char *top_why;
    const uint8_t *sub_ok; /* 0-terminated: every sub-record type it can read */
    const char *sub_why;
    const char *no_heap_why;   /* NULL: a file without a heap dump is fine */
    const char *gzip_why;      /* NULL: it reads gzip, or never gets one */
    const hv_kind_rule *kinds; /* terminated by a NULL kind */
} hv_reader;

/* The sub-records HotSpot writes, plus those of the original agent. */
#define HV_SUBS_HOTSPOT                                                                       \
    HPROF_GC_ROOT_JNI_GLOBAL, HPROF_GC_ROOT_JNI_LOCAL, HPROF_GC_ROOT_JAVA_FRAME,              \
        HPROF_GC_ROOT_STICKY_CLASS, HPROF_GC_ROOT_THREAD_OBJ, HPROF_GC_CLASS_DUMP,            \
        HPROF_GC_INSTANCE_DUMP, HPROF_GC_OBJ_ARRAY_DUMP, HPROF_GC_PRIM_ARRAY_DUMP
#define HV_SUBS_ORIGINAL                                                                      \
    HV_SUBS_HOTSPOT, HPROF_GC_ROOT_UNKNOWN, HPROF_GC_ROOT_NATIVE_STACK,                       \
        HPROF_GC_ROOT_THREAD_BLOCK, HPROF_GC_ROOT_MONITOR_USED

/* Failures every reader shares: sub-records carry no length, so a reader
 * cannot step over one it does not understand. */
#define HV_KINDS_COMMON                                                                       \
    {"bad-header", HV_REJECTS, "it cannot read the header"},                                  \
        {"unknown-subtag", HV_REJECTS,                                                        \
         "sub-records carry no length, so it cannot step over an unknown one"},               \
        {"crosses-segment", HV_REJECTS,                                                       \
         "it reads a sub-record that crosses its record's end from the wrong bytes"},         \
        {"bad-type", HV_REJECTS, "it cannot size a value of an unknown basic type"}

/* google/hprof-parser (Go), commit e6e1b3e, parser/parser.go: ParseRecord
 * reads UTF8, LOAD CLASS, FRAME, TRACE and the heap dump records; for any
 * other tag it skips the body but returns "unknown record type", and
 * index.createIndex (its only driver) stops at the first error. Its
 * parseHeapDumpFrame reads the sub-records HotSpot writes and MONITOR USED,
 * and fails on the rest: "unknown heap dump record type". A 0x1C of length 0
 * is taken as "truncated" (length 2^32-1): what follows is read as
 * sub-records. It does not look at the header's version. Run unpatched on
 * the agent's heap=dump output and on jcmd GC.heap_dump dumps. */
static const uint8_t hv_go_top[] = {HPROF_TAG_UTF8, HPROF_TAG_LOAD_CLASS, HPROF_TAG_FRAME,
                                    HPROF_TAG_TRACE, HPROF_TAG_HEAP_DUMP,
                                    HPROF_TAG_HEAP_DUMP_SEGMENT, HPROF_TAG_HEAP_DUMP_END, 0};
static const uint8_t hv_go_sub[] = {HV_SUBS_HOTSPOT, HPROF_GC_ROOT_MONITOR_USED, 0};
static const hv_kind_rule hv_go_kinds[] = {
    HV_KINDS_COMMON,
    {"truncated", HV_REJECTS, "it stops with \"unexpected EOF\""},
    {"zero-length-segment", HV_REJECTS,
     "it takes an empty segment for a truncated one of 4 GiB and reads the next records as "
     "sub-records (\"unknown heap dump record type\")"},
    {NULL, HV_READS, NULL}};

/* The JDK's test library HprofReader (jhat's parser; openjdk/jdk
 * test/lib/jdk/test/lib/hprof/parser/HprofReader.java): readVersionHeader
 * knows "JAVA PROFILE 1.0.1" and "1.0.2" only ("Version string not
 * recognized"); readHeapDump knows the original agent's sub-records and
 * throws "Unrecognized heap dump sub-record type" on any other; unknown
 * top-level records are skipped with a warning. It reads in one pass, so
 * order matters (readers-and-hotspot.md, pitfalls 5-7). */
static const uint8_t hv_jhat_sub[] = {HV_SUBS_ORIGINAL, 0};
static const hv_kind_rule hv_jhat_kinds[] = {
    HV_KINDS_COMMON,
    {"frame-after-trace", HV_REJECTS, "it fails with \"Stack frame ... not found\""},
    {"class-dump-after-instance", HV_REJECTS, "it fails with \"Class Record for 0x... not found\""},
    {"missing-class-dump", HV_REJECTS, "it fails with \"Class Record for 0x... not found\""},
    {"root-before-thread-object", HV_REJECTS,
     "it fails looking the thread up (\"Thread N not found for JNI local ref\")"},
    {"segments-in-1.0.1", HV_MISREADS, "it ignores segments in a 1.0.1 file: an empty heap"},
    {"multiple-heap-dumps", HV_MISREADS, "it reads only the first heap dump"},
    {"sub-after-end", HV_MISREADS, "it stops at the first HEAP DUMP END"},
    {"truncated", HV_MISREADS, "it warns \"Unexpected EOF\" and keeps what came before"},
    {"utf8-after-use", HV_MISREADS, "it warns \"Name not found\""},
    {"unresolved-utf8", HV_MISREADS, "it warns \"Name not found\""},
    {"load-class-after-class-dump", HV_MISREADS, "it warns \"Class name not found\""},
    {"missing-load-class", HV_MISREADS, "it names the class unknown-name@0x..."},
    {"unresolved-trace", HV_MISREADS,
     "it warns \"Stack trace not found for serial #\" once per use"},
    {NULL, HV_READS, NULL}};

/* eaftan/hprof-parser (Java), HprofParser.java: parseRecord throws
 * "Unexpected top-level record type" for any tag but 0x01-0x07, 0x0A-0x0E,
 * 0x1C and 0x2C, parseHeapDump "Unexpected heap dump sub-record type" for
 * any sub-record but the original agent's (so every Android one, 0xFE
 * included); processInstance walks classMap without a null check. */
static const uint8_t hv_eaftan_top[] = {
    HPROF_TAG_UTF8, HPROF_TAG_LOAD_CLASS, HPROF_TAG_UNLOAD_CLASS, HPROF_TAG_FRAME,
    HPROF_TAG_TRACE, HPROF_TAG_ALLOC_SITES, HPROF_TAG_HEAP_SUMMARY, HPROF_TAG_START_THREAD,
    HPROF_TAG_END_THREAD, HPROF_TAG_HEAP_DUMP, HPROF_TAG_CPU_SAMPLES, HPROF_TAG_CONTROL_SETTINGS,
    HPROF_TAG_HEAP_DUMP_SEGMENT, HPROF_TAG_HEAP_DUMP_END, 0};
static const hv_kind_rule hv_eaftan_kinds[] = {
    HV_KINDS_COMMON,
    {"truncated", HV_REJECTS, "it stops with an EOFException"},
    {"missing-class-dump", HV_REJECTS,
     "it fails with a NullPointerException decoding such an instance"},
    {NULL, HV_READS, NULL}};

/* SonyMobile/py-hprof (perflib-style), hprof/_parsing.py and
 * _heap_parsing.py: it accepts 1.0.1-1.0.3 and skips unknown top-level
 * records, but its heap RECORD_PARSERS lack ROOT FINALIZING (0x8A),
 * REFERENCE CLEANUP (0x8C) and UNREACHABLE (0x90): "unrecognized heap record
 * type". It looks names, class serials and frames up in dicts as it reads
 * (a KeyError ends the parse; id 0 is predefined as None, so a FRAME
 * without a source file is fine), and resolve_heap_references raises MissingObject on any id that is
 * not in the dump, which HotSpot's dumps with CDS hold. */
static const uint8_t hv_py_sub[] = {HV_SUBS_ORIGINAL,
                                    HPROF_GC_ROOT_INTERNED_STRING,
                                    HPROF_GC_ROOT_DEBUGGER,
                                    HPROF_GC_ROOT_VM_INTERNAL,
                                    HPROF_GC_ROOT_JNI_MONITOR,
                                    HPROF_GC_HEAP_DUMP_INFO,
                                    0};
static const hv_kind_rule hv_py_kinds[] = {
    HV_KINDS_COMMON,
    {"truncated", HV_REJECTS, "it stops with UnexpectedEof"},
    {"dangling-ref", HV_REJECTS,
     "it raises MissingObject for an id that is not in the dump (HotSpot's own dumps with CDS "
     "hold such ids)"},
    {"no-heap-end", HV_REJECTS, "it fails with \"unfinished segmented heap\""},
    {"utf8-after-use", HV_REJECTS, "it looks each name up as it reads: KeyError"},
    {"unresolved-utf8", HV_REJECTS, "it looks each name up as it reads: KeyError"},
    {"frame-after-trace", HV_REJECTS, "a TRACE looks its frames up as it reads: KeyError"},
    {"unresolved-frame", HV_REJECTS, "a TRACE looks its frames up as it reads: KeyError"},
    {"unresolved-class-serial", HV_REJECTS,
     "a FRAME looks its class serial up as it reads: KeyError"},
    {"load-class-after-class-dump", HV_REJECTS,
     "a CLASS DUMP looks its LOAD CLASS up as it reads: KeyError"},
    {"missing-load-class", HV_REJECTS, "a CLASS DUMP looks its LOAD CLASS up: KeyError"},
    {"unresolved-trace", HV_REJECTS,
     "a LOAD CLASS whose trace is missing fails (\"refers to stacktrace ..., which cannot be "
     "found\")"},
    {"missing-array-class", HV_REJECTS,
     "it needs the class of each primitive array (\"class int[] not found\")"},
    {"super-cycle", HV_REJECTS, "\"some class dumps never found their super class\""},
    {"duplicate-id", HV_MISREADS,
     "it keeps one object per id (and stops at a duplicate CLASS DUMP: \"duplicate object id\")"},
    {NULL, HV_READS, NULL}};

/* VisualVM 2.1.5's heap library (org.graalvm.visualvm.lib.jfluid.heap,
 * Debian's visualvm package; readers-and-hotspot.md section 4): it opens
 * only files with a heap dump, indexes a segmented one only once it sees
 * HEAP DUMP END ("Invalid segment 0"), rejects empty records ("Heap dump
 * is broken") and gzip ("Invalid HPROF version or format"), and reads ROOT
 * JNI MONITOR (0x8E) as an id alone where ART writes id + thread + frame,
 * so the next sub-record is read from the wrong byte ("Invalid dump tag"). */
static const uint8_t hv_vvm_sub[] = {HV_SUBS_ORIGINAL,
                                     HPROF_GC_ROOT_INTERNED_STRING,
                                     HPROF_GC_ROOT_FINALIZING,
                                     HPROF_GC_ROOT_DEBUGGER,
                                     HPROF_GC_ROOT_REFERENCE_CLEANUP,
                                     HPROF_GC_ROOT_VM_INTERNAL,
                                     HPROF_GC_ROOT_UNREACHABLE,
                                     HPROF_GC_HEAP_DUMP_INFO,
                                     0};
static const hv_kind_rule hv_vvm_kinds[] = {
    HV_KINDS_COMMON,
    {"no-heap-end", HV_REJECTS, "it rejects the whole file (\"Invalid segment 0\")"},
    {"truncated", HV_REJECTS, "it rejects the whole file (\"Invalid segment 0\")"},
    {"zero-length-segment", HV_REJECTS, "it fails with \"Heap dump is broken\""},
    {"missing-array-class", HV_REJECTS, "it fails with \"Invalid type N\""},
    {"multiple-heap-dumps", HV_MISREADS, "it opens dump #0 only"},
    {"missing-class-dump", HV_MISREADS, "it silently drops the instances of such a class"},
    {"missing-load-class", HV_MISREADS, "it names the class <unresolved string 0x...>"},
    {"wide-class", HV_REJECTS,
     "it reads the field count as a signed short and stops at the next sub-record (\"Invalid "
     "dump tag\"); seen with a 65 535-field class, 32 767 fields read fine"},
    {NULL, HV_READS, NULL}};

static const hv_reader hv_readers[] = {
    {"go-hprof", "google/hprof-parser (Go, commit e6e1b3e), through its index", HV_ALL_VERSIONS,
     NULL, hv_go_top,
     "it stops at the first (\"unknown record type\"): it reads only UTF8, LOAD CLASS, FRAME, "
     "TRACE and heap dump records",
     hv_go_sub,
     "it stops at the first (\"unknown heap dump record type\"): it reads only the roots "
     "HotSpot writes "
     "(JNI GLOBAL/LOCAL, JAVA FRAME, STICKY CLASS, THREAD OBJECT) and MONITOR USED",
     NULL, NULL, hv_go_kinds},
    {"jhat", "the JDK test library's HprofReader (jhat's parser)",
     HV_VERSION_BIT(HPROF_VERSION_1_0_1) | HV_VERSION_BIT(HPROF_VERSION_1_0_2),
     "it fails with \"Version string not recognized\": it knows 1.0.1 and 1.0.2 only", NULL, NULL,
     hv_jhat_sub, "it fails with \"Unrecognized heap dump sub-record type\"", NULL, NULL,
     hv_jhat_kinds},
    {"eaftan", "eaftan/hprof-parser (Java)", HV_ALL_VERSIONS, NULL, hv_eaftan_top,
     "it fails with \"Unexpected top-level record type\"", hv_jhat_sub,
     "it fails with \"Unexpected heap dump sub-record type\"", NULL, NULL, hv_eaftan_kinds},
    {"py-hprof", "SonyMobile/py-hprof (Python, perflib-style)", HV_ALL_VERSIONS, NULL, NULL, NULL,
     hv_py_sub, "it fails with \"unrecognized heap record type\"", NULL, NULL, hv_py_kinds},
    {"visualvm", "VisualVM 2.1.5's heap library (Debian's visualvm)", HV_ALL_VERSIONS, NULL, NULL,
     NULL, hv_vvm_sub,
     "it misreads it (ROOT JNI MONITOR is read as an id alone) and stops at the next "
     "sub-record (\"Invalid dump tag\")",
     "it opens only files with a heap dump (\"Invalid segment 0\")",
     "it fails with \"Invalid HPROF version or format\"",
     hv_vvm_kinds},
};

#define HV_NREADERS (sizeof hv_readers / sizeof hv_readers[0])

unsigned hv_reader_count(void)
{
    return (unsigned)HV_NREADERS;
}

const char *hv_reader_name(unsigned reader)
{
    return reader < HV_NREADERS ? hv_readers[reader].name : NULL;
}

const char *hv_reader_about(unsigned reader)
{
    return reader < HV_NREADERS ? hv_readers[reader].about : NULL;
}

int hv_reader_find(const char *name)
{
    for (unsigned i = 0; i < HV_NREADERS; i++)
        if (strcmp(hv_readers[i].name, name) == 0)
            return (int)i;
    return -1;
}

const char *hv_verdict_name(hv_verdict v)
{
    switch (v) {
    case HV_READS: return "reads";
    case HV_MISREADS: return "misreads";
    case HV_REJECTS: return "rejects";
    }
    return "?";
}

static int hv_in(const uint8_t *set, unsigned tag)
{
    for (; *set; set++)
        if (*set == tag)
            return 1;
    return 0;
}

/* Collects the verdict while delivering the reasons. */
typedef struct hv_judging {
    const hv_reader *r;
    hv_verdict verdict;
    void (*on_reason)(void *ctx, const hv_reason *r);
    void *ctx;
} hv_judging;

static void hv_give(hv_judging *j, hv_verdict v, const char *kind, uint64_t offset,
                    uint64_t count, const char *msg)
{
    if (v > j->verdict)
        j->verdict = v;
    if (!j->on_reason)
        return;
    hv_reason r = {j->r->name, v, kind, offset, count, msg};
    j->on_reason(j->ctx, &r);
}

static const char *hv_version_text(hprof_version v)
{
    switch (v) {
    case HPROF_VERSION_1_0_1: return "JAVA PROFILE 1.0.1";
    case HPROF_VERSION_1_0_2: return "JAVA PROFILE 1.0.2";
    case HPROF_VERSION_1_0_3: return "JAVA PROFILE 1.0.3";
    }
    return "an unknown header";
}

/* "CONTROL SETTINGS (0x0E, 1 from offset 31)" after `sep`. */
static size_t hv_where(char *buf, size_t n, const char *sep, const char *what, unsigned tag,
                       const hv_seen *s)
{
    int k = snprintf(buf, n, "%s%s (0x%02X, %llu from offset %llu)", sep, what, tag,
                     (unsigned long long)s->count, (unsigned long long)s->first);
    return k < 0 ? 0 : (size_t)k;
}

/* A record type a reader cannot read, and where it first appears. */
typedef struct hv_unread {
    const hv_seen *seen;
    unsigned tag;
    int sub;
} hv_unread;

static int hv_unread_cmp(const void *a, const void *b)
{
    uint64_t x = ((const hv_unread *)a)->seen->first, y = ((const hv_unread *)b)->seen->first;
    return x < y ? -1 : x > y;
}

hv_verdict hv_reader_judge(unsigned reader, const hv_result *res,
                           void (*on_reason)(void *ctx, const hv_reason *r), void *ctx)
{
    if (reader >= HV_NREADERS || !res)
        return HV_READS;
    const hv_reader *r = &hv_readers[reader];
    const hv_profile *pr = &res->profile;
    hv_judging j = {r, HV_READS, on_reason, ctx};
    char msg[HV_READER_MSG_MAX];

    if (pr->gzip && r->gzip_why) {
        snprintf(msg, sizeof msg, "The file is gzip-compressed: %s", r->gzip_why);
        hv_give(&j, HV_REJECTS, "gzip", 0, 1, msg);
    }
    if (pr->version && !(r->versions & HV_VERSION_BIT(pr->version))) {
        snprintf(msg, sizeof msg, "The header says %s: %s", hv_version_text(pr->version),
                 r->version_why);
        hv_give(&j, HV_REJECTS, "header", 0, 1, msg);
    }
    /* Record types it cannot read, in the order it meets them: a reader
     * that stops, stops at the first. */
    hv_unread un[2 * HV_TAG_SLOTS];
    size_t nun = 0;
    for (unsigned t = 0; t < HV_TAG_SLOTS; t++) {
        if (r->top_ok && pr->top[t].count && !hv_in(r->top_ok, t))
            un[nun++] = (hv_unread){&pr->top[t], t, 0};
        if (pr->sub[t].count && !hv_in(r->sub_ok, t))
            un[nun++] = (hv_unread){&pr->sub[t], t, 1};
    }
    qsort(un, nun, sizeof un[0], hv_unread_cmp);
    /* One reason for the top-level records and one for the sub-records,
     * each listing its types in file order, the earlier group first. */
    int first_sub = nun && un[0].sub;
    for (int g = 0; g < 2; g++) {
        int sub = g == 0 ? first_sub : !first_sub;
        size_t len = 0, listed = 0, more = 0;
        const hv_unread *first = NULL;
        uint64_t total = 0;
        for (size_t i = 0; i < nun; i++) {
            if (un[i].sub != sub)
                continue;
            total += un[i].seen->count;
            if (!first)
                first = &un[i];
            if (listed == HV_READER_LIST_MAX) {
                more++;
                continue;
            }
            const char *name = sub ? hprof_sub_name(un[i].tag) : hprof_tag_name(un[i].tag);
            len += hv_where(msg + len, sizeof msg - len, listed ? ", " : "",
                            name ? name : sub ? "sub-record" : "record", un[i].tag, un[i].seen);
            if (len >= sizeof msg)
                len = sizeof msg - 1;
            listed++;
        }
        if (!first)
            continue;
        if (more)
            len += (size_t)snprintf(msg + len, sizeof msg - len, " and %zu more type(s)", more);
        if (len < sizeof msg)
            snprintf(msg + len, sizeof msg - len, ": %s", sub ? r->sub_why : r->top_why);
        hv_give(&j, HV_REJECTS, sub ? "sub-record" : "record", first->seen->first, total, msg);
    }
    if (r->no_heap_why && res->parse_status == HR_OK && !pr->top[HPROF_TAG_HEAP_DUMP].count &&
        !pr->top[HPROF_TAG_HEAP_DUMP_SEGMENT].count) {
        snprintf(msg, sizeof msg, "The file holds no heap dump: %s", r->no_heap_why);
        hv_give(&j, HV_REJECTS, "no-heap-dump", 0, 1, msg);
    }
    for (const hv_kind_rule *k = r->kinds; k->kind; k++) {
        for (unsigned i = 0; i < res->nkinds; i++) {
            const hv_kind_count *kc = &res->kinds[i];
            if (!kc->count || strcmp(kc->kind, k->kind) != 0)
                continue;
            snprintf(msg, sizeof msg, "%s (%llu in the file, the first at offset %llu): %s",
                     kc->kind, (unsigned long long)kc->count, (unsigned long long)kc->offset,
                     k->why);
            hv_give(&j, k->verdict, kc->kind, kc->offset, kc->count, msg);
        }
    }
    return j.verdict;
}
