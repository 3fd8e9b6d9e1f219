/*
 * jx.c: the JVMTI wrappers (see jx.h): one place per call that knows which
 * errors are expected and how to word the others.
 */
#include "jx.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"

jvmtiError jx_report(jvmtiEnv *j, jvmtiError err, const char *call)
{
    char *name = NULL;
    if (err == JVMTI_ERROR_NONE)
        return err;
    if ((*j)->GetErrorName(j, err, &name) == JVMTI_ERROR_NONE && name) {
        hp_error("%s failed: %s (%d)", call, name, (int)err);
        jx_free(j, name);
    } else {
        hp_error("%s failed: JVMTI error %d", call, (int)err);
    }
    return err;
}

void jx_free(jvmtiEnv *j, void *p)
{
    if (p)
        (*j)->Deallocate(j, (unsigned char *)p);
}

jvmtiError jx_raw_monitor(jvmtiEnv *j, const char *name, jrawMonitorID *m)
{
    return jx_report(j, (*j)->CreateRawMonitor(j, name, m), "CreateRawMonitor");
}

void jx_lock(jvmtiEnv *j, jrawMonitorID m)
{
    jvmtiError e = (*j)->RawMonitorEnter(j, m);
    if (e != JVMTI_ERROR_NONE)
        jx_report(j, e, "RawMonitorEnter");
}

void jx_unlock(jvmtiEnv *j, jrawMonitorID m)
{
    jvmtiError e = (*j)->RawMonitorExit(j, m);
    if (e != JVMTI_ERROR_NONE)
        jx_report(j, e, "RawMonitorExit");
}

jvmtiError jx_class_signature(jvmtiEnv *j, jclass k, char **sig)
{
    *sig = NULL;
    jvmtiError e = (*j)->GetClassSignature(j, k, sig, NULL);
    if (e != JVMTI_ERROR_NONE && e != JVMTI_ERROR_WRONG_PHASE && e != JVMTI_ERROR_INVALID_CLASS)
        jx_report(j, e, "GetClassSignature");
    return e;
}

char *jx_system_property(jvmtiEnv *j, const char *name)
{
    char *v = NULL;
    /* NOT_AVAILABLE: the VM does not define it; nothing to report */
    jvmtiError e = (*j)->GetSystemProperty(j, name, &v);
    if (e != JVMTI_ERROR_NONE && e != JVMTI_ERROR_NOT_AVAILABLE)
        jx_report(j, e, "GetSystemProperty");
    return e == JVMTI_ERROR_NONE ? v : NULL;
}

void jx_source_file(jvmtiEnv *j, jclass k, char **file)
{
    *file = NULL;
    /* ABSENT_INFORMATION (compiled without -g:source), MUST_POSSESS_CAPABILITY
     * and an unloaded class all just mean "no source file" */
    if ((*j)->GetSourceFileName(j, k, file) != JVMTI_ERROR_NONE)
        *file = NULL;
}

jint jx_line_of(jvmtiEnv *j, jmethodID m, jlocation loc)
{
    jint n = 0;
    jvmtiLineNumberEntry *tab = NULL;
    if (loc < 0 || (*j)->GetLineNumberTable(j, m, &n, &tab) != JVMTI_ERROR_NONE)
        return -1;
    /* the entry with the greatest start_location <= loc; entries need not be sorted */
    jint line = -1;
    jlocation best = -1;
    for (jint i = 0; i < n; i++) {
        if (tab[i].start_location <= loc && tab[i].start_location > best) {
            best = tab[i].start_location;
            line = tab[i].line_number;
        }
    }
    jx_free(j, tab);
    return line;
}

void jx_thread_names(jvmtiEnv *j, jthread t, char **name, char **group, char **parent)
{
    jvmtiThreadInfo ti;
    memset(&ti, 0, sizeof ti);
    *name = *group = *parent = NULL;
    if ((*j)->GetThreadInfo(j, t, &ti) != JVMTI_ERROR_NONE)
        return;
    *name = ti.name;
    if (ti.thread_group) {
        jvmtiThreadGroupInfo gi;
        memset(&gi, 0, sizeof gi);
        if ((*j)->GetThreadGroupInfo(j, ti.thread_group, &gi) == JVMTI_ERROR_NONE) {
            *group = gi.name;
            if (gi.parent) {
                jvmtiThreadGroupInfo pi;
                memset(&pi, 0, sizeof pi);
                if ((*j)->GetThreadGroupInfo(j, gi.parent, &pi) == JVMTI_ERROR_NONE)
                    *parent = pi.name;
            }
        }
    }
}

int jx_agent_thread(jvmtiEnv *j, JNIEnv *env, const char *name, jvmtiStartFunction fn,
                    jint priority, volatile int *running, const char *what)
{
    jclass tc = (*env)->FindClass(env, "java/lang/Thread");
    jmethodID ctor = tc ? (*env)->GetMethodID(env, tc, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring jname = ctor ? (*env)->NewStringUTF(env, name) : NULL;
    jobject t = jname ? (*env)->NewObject(env, tc, ctor, jname) : NULL;
    if (!t || (*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        hp_error("cannot create the thread \"%s\": %s", name, what);
        return -1;
    }
    *running = 1;
    jvmtiError e = (*j)->RunAgentThread(j, t, fn, NULL, priority);
    if (e != JVMTI_ERROR_NONE) {
        *running = 0;
        jx_report(j, e, "RunAgentThread");
        hp_error("%s", what);
        return -1;
    }
    return 0;
}
