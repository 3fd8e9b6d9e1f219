/*
 * walk_floor.c: libwalk_floor.so, a bench-only JVMTI agent that measures
 * what the JVM's heap walks cost by themselves: the floor under any heap
 * dump made through JVMTI, ours included (bench/walk_floor.sh).
 *
 * On DataDumpRequest (jcmd PID JVMTI.data_dump) it runs, with callbacks that
 * do nothing but count and hand out tags:
 *   1. FollowReferences, reference callback only, tagging each object it
 *      meets (what naming every object costs: a dump must);
 *   2. the same walk again, every object already tagged;
 *   3. FollowReferences with the primitive field and array callbacks too
 *      (what a complete dump asks of the JVM), after an untagging pass;
 *   4. IterateThroughHeap tagging every object (no references: not enough
 *      for a dump, shown for scale);
 * and prints one "WALK name seconds refs prims tags cpu wait" line per step
 * on stderr (cpu, wait: the walking thread's seconds on a CPU and runnable
 * but waiting for one, from the step's first callback on), then
 * "WALK done". Each step untags what it tagged before the next.
 *
 * The agent's options, if any, name the steps instead, in order, separated
 * by '+' (bench/walk_vs_all.sh): the steps above, "untag" (untimed), "gc"
 * (ForceGarbageCollection, timed) and "follow-prims-tagged" (the walk of
 * step 3 on a heap whose objects are tagged already: what heap=all asks of
 * the JVM, its objects tagged as they were allocated, after the GC the dump
 * forces; "iterate-tagging+gc+follow-prims-tagged" is that sequence).
 * Not part of the product: no error paths beyond a message.
 */
#include <jvmti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static jvmtiEnv *wf_jvmti;
static jlong wf_seq;
static long wf_refs, wf_prims;
static char *wf_steps; /* the agent's options: steps separated by '+', or NULL */
/* the walking thread (HotSpot's VM thread), met by a step's first callback,
 * and its scheduler counters then: ns on a CPU, ns waiting for one */
static long wf_tid;
static unsigned long long wf_sched[2];

static void wf_sched_read(long tid, unsigned long long v[2])
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", tid);
    FILE *f = fopen(path, "r");
    if (!f || fscanf(f, "%llu %llu", &v[0], &v[1]) != 2)
        v[0] = v[1] = 0;
    if (f)
        fclose(f);
}

static void wf_first(void)
{
    if (!wf_tid) {
        wf_tid = (long)syscall(SYS_gettid);
        wf_sched_read(wf_tid, wf_sched);
    }
}

static double wf_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static jint JNICALL wf_ref(jvmtiHeapReferenceKind k, const jvmtiHeapReferenceInfo *i, jlong ct,
                           jlong rct, jlong sz, jlong *tp, jlong *rtp, jint len, void *ud)
{
    (void)k, (void)i, (void)ct, (void)rct, (void)sz, (void)rtp, (void)len, (void)ud;
    wf_first();
    wf_refs++;
    if (*tp == 0)
        *tp = ++wf_seq;
    return JVMTI_VISIT_OBJECTS;
}

static jint JNICALL wf_prim(jvmtiHeapReferenceKind k, const jvmtiHeapReferenceInfo *i, jlong ct,
                            jlong *tp, jvalue v, jvmtiPrimitiveType t, void *ud)
{
    (void)k, (void)i, (void)ct, (void)tp, (void)v, (void)t, (void)ud;
    wf_prims++;
    return 0;
}

static jint JNICALL wf_array(jlong ct, jlong sz, jlong *tp, jint n, jvmtiPrimitiveType t,
                             const void *e, void *ud)
{
    (void)ct, (void)sz, (void)n, (void)t, (void)e, (void)ud;
    wf_prims++;
    if (*tp == 0)
        *tp = ++wf_seq;
    return 0;
}

static jint JNICALL wf_iter(jlong ct, jlong sz, jlong *tp, jint len, void *ud)
{
    (void)ct, (void)sz, (void)len;
    wf_first();
    wf_refs++;
    *tp = ud ? 0 : ++wf_seq; /* ud: the untagging pass */
    return JVMTI_VISIT_OBJECTS;
}

static void wf_step(const char *name, int follow, int prims, int untag)
{
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    wf_refs = wf_prims = 0;
    double t0 = wf_now();
    jvmtiError e;
    if (follow) {
        cb.heap_reference_callback = wf_ref;
        if (prims) {
            cb.primitive_field_callback = wf_prim;
            cb.array_primitive_value_callback = wf_array;
        }
        e = (*wf_jvmti)->FollowReferences(wf_jvmti, 0, NULL, NULL, &cb, NULL);
    } else {
        cb.heap_iteration_callback = wf_iter;
        e = (*wf_jvmti)->IterateThroughHeap(wf_jvmti, 0, NULL, &cb, untag ? &cb : NULL);
    }
    double t1 = wf_now();
    unsigned long long v[2] = {0, 0};
    if (wf_tid)
        wf_sched_read(wf_tid, v);
    /* the walking thread's seconds on a CPU and waiting for one (the load) */
    double cpu = (double)(v[0] - wf_sched[0]) / 1e9, wait = (double)(v[1] - wf_sched[1]) / 1e9;
    wf_tid = 0;
    if (untag)
        wf_seq = 0;
    else
        fprintf(stderr, "WALK %s %.3f %ld %ld %lld %.3f %.3f%s\n", name, t1 - t0, wf_refs, wf_prims,
                (long long)wf_seq, cpu, wait, e == JVMTI_ERROR_NONE ? "" : " (error)");
}

static void wf_gc(void)
{
    double t0 = wf_now();
    jvmtiError e = (*wf_jvmti)->ForceGarbageCollection(wf_jvmti);
    fprintf(stderr, "WALK gc %.3f 0 0 0 0 0%s\n", wf_now() - t0, e == JVMTI_ERROR_NONE ? "" : " (error)");
}

static void JNICALL wf_dump(jvmtiEnv *j)
{
    (void)j;
    const char *steps = wf_steps ? wf_steps
                                 : "follow-tagging+follow-tagged+untag+follow-prims-tagging+untag+"
                                   "iterate-tagging+untag";
    for (const char *p = steps; *p;) {
        size_t n = strcspn(p, "+");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
        if (!strcmp(name, "follow-tagging") || !strcmp(name, "follow-tagged"))
            wf_step(name, 1, 0, 0);
        else if (!strcmp(name, "follow-prims-tagging") || !strcmp(name, "follow-prims-tagged"))
            wf_step(name, 1, 1, 0);
        else if (!strcmp(name, "iterate-tagging"))
            wf_step(name, 0, 0, 0);
        else if (!strcmp(name, "untag"))
            wf_step(name, 0, 0, 1);
        else if (!strcmp(name, "gc"))
            wf_gc();
        else
            fprintf(stderr, "walk_floor: no step %s\n", name);
        p += n;
        if (*p)
            p++;
    }
    /* the heap untagged again for the next request */
    if (wf_steps)
        wf_step("untag", 0, 0, 1);
    fprintf(stderr, "WALK done\n");
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *opts, void *reserved)
{
    (void)reserved;
    if (opts && *opts)
        wf_steps = strdup(opts);
    if ((*vm)->GetEnv(vm, (void **)&wf_jvmti, JVMTI_VERSION_1_2) != JNI_OK)
        return JNI_ERR;
    jvmtiCapabilities c;
    memset(&c, 0, sizeof c);
    c.can_tag_objects = 1;
    jvmtiEventCallbacks ec;
    memset(&ec, 0, sizeof ec);
    ec.DataDumpRequest = wf_dump;
    if ((*wf_jvmti)->AddCapabilities(wf_jvmti, &c) != JVMTI_ERROR_NONE ||
        (*wf_jvmti)->SetEventCallbacks(wf_jvmti, &ec, sizeof ec) != JVMTI_ERROR_NONE ||
        (*wf_jvmti)->SetEventNotificationMode(wf_jvmti, JVMTI_ENABLE, JVMTI_EVENT_DATA_DUMP_REQUEST,
                                              NULL) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "walk_floor: cannot set up JVMTI\n");
        return JNI_ERR;
    }
    return JNI_OK;
}
