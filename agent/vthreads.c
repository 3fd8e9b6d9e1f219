/*
 * vthreads.c: virtual threads (see vthreads.h).
 *
 * Owns: whether the capability was granted, the GetVirtualThread extension
 * function, the global ref to java.lang.BaseVirtualThread (the superclass
 * of every virtual thread class) and the VirtualThreadEnd wiring. Set once
 * in the live phase, before any thread reads them, and never changed.
 */
#include "vthreads.h"

#include <string.h>

#include "agent.h"
#include "jx.h"
#include "threads.h"

/* jvmtiCapabilities.can_support_virtual_threads (JDK 21+): bit 44, the one
 * after can_generate_sampled_object_alloc_events */
#define VT_CAP_BYTE 5
#define VT_CAP_MASK 0x10u
#define VT_EVENT_START 87 /* JVMTI_EVENT_VIRTUAL_THREAD_START */
#define VT_EVENT_END 88   /* JVMTI_EVENT_VIRTUAL_THREAD_END */
#define VT_EVENT_MIN 50 /* JVMTI_MIN_EVENT_TYPE_VAL */
#define VT_GET_VIRTUAL "com.sun.hotspot.functions.GetVirtualThread"
#define VT_MOUNT "com.sun.hotspot.events.VirtualThreadMount"
#define VT_UNMOUNT "com.sun.hotspot.events.VirtualThreadUnmount"

static struct {
    int cap;                      /* can_support_virtual_threads granted */
    int ends;                     /* VirtualThreadEnd enabled: records may be made */
    int starts;                   /* VirtualThreadStart enabled (thread=y) */
    jvmtiExtensionFunction get_v; /* GetVirtualThread(env, carrier, &vthread) */
    jclass base;                  /* global: java.lang.BaseVirtualThread */
} vt;

/* X= (debug) bit 16: no virtual threads (the capability is not asked
 * for), to measure what it costs the JVM (bench/vthreads_bench.sh) */
#define VT_X_OFF 16u

void vt_capabilities(const jvmtiCapabilities *pot, jvmtiCapabilities *want)
{
    if (g_hp.o.experiment & VT_X_OFF)
        return;
    const unsigned char *p = (const unsigned char *)pot;
    unsigned char *w = (unsigned char *)want;
    if (p[VT_CAP_BYTE] & VT_CAP_MASK)
        w[VT_CAP_BYTE] |= VT_CAP_MASK;
}

/* A virtual thread's record is made by its own events only (another
 * thread could meet it just after its end, when its storage is gone, and
 * would make a record nothing frees): at its start, in the modes that keep
 * records, so that the sampler finds it for thread=y. */
static void JNICALL vt_on_start(jvmtiEnv *j, JNIEnv *env, jthread vthread)
{
    if (hp_enter())
        return;
    thr_get(j, env, vthread);
    hp_leave();
}

static void JNICALL vt_on_end(jvmtiEnv *j, JNIEnv *env, jthread vthread)
{
    if (hp_enter())
        return;
    thr_vt_end(j, env, vthread);
    hp_leave();
}

void vt_callbacks(vt_callback_set *cbs)
{
    cbs->slot[VT_EVENT_START - VT_EVENT_MIN] = (jvmtiEventReserved)vt_on_start;
    cbs->slot[VT_EVENT_END - VT_EVENT_MIN] = (jvmtiEventReserved)vt_on_end;
}

void vt_start(jvmtiEnv *j, JNIEnv *env)
{
    jvmtiCapabilities have;
    memset(&have, 0, sizeof have);
    if ((*j)->GetCapabilities(j, &have) != JVMTI_ERROR_NONE ||
        !(((unsigned char *)&have)[VT_CAP_BYTE] & VT_CAP_MASK) || !env)
        return; /* JDK 17: no virtual threads */
    jclass k = (*env)->FindClass(env, "java/lang/BaseVirtualThread");
    if (!k || (*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return;
    }
    vt.base = (*env)->NewGlobalRef(env, k);
    (*env)->DeleteLocalRef(env, k);
    jint n = 0;
    jvmtiExtensionFunctionInfo *fi = NULL;
    if ((*j)->GetExtensionFunctions(j, &n, &fi) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < n; i++) {
            if (strcmp(fi[i].id, VT_GET_VIRTUAL) == 0)
                vt.get_v = fi[i].func;
            for (jint p = 0; p < fi[i].param_count; p++)
                jx_free(j, fi[i].params[p].name);
            jx_free(j, fi[i].params);
            jx_free(j, fi[i].errors);
            jx_free(j, fi[i].id);
            jx_free(j, fi[i].short_description);
        }
        jx_free(j, fi);
    }
    if (!vt.get_v)
        hp_error("this JVM has virtual threads but no %s: cpu=samples cannot see them", VT_GET_VIRTUAL);
    /* VirtualThreadEnd costs an event per virtual thread: only the modes
     * that make records of virtual threads (thread=y keys traces by them;
     * cpu=times, monitor=y and heap dumps keep per-thread state or
     * serials) need it to free them */
    if (g_hp.o.thread || g_hp.o.cpu == OPTS_CPU_TIMES || g_hp.o.cpu == OPTS_CPU_OLD || g_hp.o.monitor ||
        g_hp.o.heap_dump)
        vt.ends = jx_report(j, (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, (jvmtiEvent)VT_EVENT_END, NULL),
                            "SetEventNotificationMode(VirtualThreadEnd)") == JVMTI_ERROR_NONE;
    if (vt.ends && g_hp.o.thread) /* only thread=y needs a record before any own event */
        vt.starts = jx_report(j, (*j)->SetEventNotificationMode(j, JVMTI_ENABLE, (jvmtiEvent)VT_EVENT_START, NULL),
                              "SetEventNotificationMode(VirtualThreadStart)") == JVMTI_ERROR_NONE;
    vt.cap = 1;
}

void vt_stop(jvmtiEnv *j)
{
    if (vt.starts)
        (*j)->SetEventNotificationMode(j, JVMTI_DISABLE, (jvmtiEvent)VT_EVENT_START, NULL);
    if (vt.ends)
        (*j)->SetEventNotificationMode(j, JVMTI_DISABLE, (jvmtiEvent)VT_EVENT_END, NULL);
}

void vt_track_mounts(jvmtiEnv *j, vt_mount_fn mount, vt_mount_fn unmount)
{
    if (!vt.cap)
        return;
    jint n = 0;
    jvmtiExtensionEventInfo *ei = NULL;
    if (jx_report(j, (*j)->GetExtensionEvents(j, &n, &ei), "GetExtensionEvents") != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < n; i++) {
        vt_mount_fn fn = strcmp(ei[i].id, VT_MOUNT) == 0 ? mount : strcmp(ei[i].id, VT_UNMOUNT) == 0 ? unmount : NULL;
        int ours = strcmp(ei[i].id, VT_MOUNT) == 0 || strcmp(ei[i].id, VT_UNMOUNT) == 0;
        /* an extension event needs its callback and to be enabled, as any */
        if (ours && (fn || (!mount && !unmount))) {
            jint ix = ei[i].extension_event_index;
            if (fn)
                jx_report(j, (*j)->SetExtensionEventCallback(j, ix, (jvmtiExtensionEvent)fn),
                          "SetExtensionEventCallback");
            (*j)->SetEventNotificationMode(j, fn ? JVMTI_ENABLE : JVMTI_DISABLE, (jvmtiEvent)ix, NULL);
        }
        for (jint p = 0; p < ei[i].param_count; p++)
            jx_free(j, ei[i].params[p].name);
        jx_free(j, ei[i].params);
        jx_free(j, ei[i].id);
        jx_free(j, ei[i].short_description);
    }
    jx_free(j, ei);
}

int vt_on(void)
{
    return vt.cap;
}

int vt_records(void)
{
    return vt.ends;
}

jthread vt_mounted(jvmtiEnv *j, jthread carrier)
{
    jthread v = NULL;
    if (!vt.get_v || vt.get_v(j, carrier, &v) != JVMTI_ERROR_NONE)
        return NULL;
    return v;
}

int vt_is_virtual(JNIEnv *env, jthread t)
{
    return vt.base && env && t && (*env)->IsInstanceOf(env, t, vt.base);
}
