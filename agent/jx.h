/*
 * jx.h: the JVMTI calls the agent makes, each wrapped once: on failure the
 * wrapper reports "HPROF ERROR: <Call> failed: <GetErrorName text>" (unless
 * the error is an expected one, listed per function) and returns the error.
 * Memory that JVMTI allocates is released with jx_free.
 */
#ifndef HPROF_JX_H
#define HPROF_JX_H

#include <jvmti.h>

/* Reports `err` from `call` (a JVMTI function name) and returns it. */
jvmtiError jx_report(jvmtiEnv *j, jvmtiError err, const char *call);
void jx_free(jvmtiEnv *j, void *p);

jvmtiError jx_raw_monitor(jvmtiEnv *j, const char *name, jrawMonitorID *m);
void jx_lock(jvmtiEnv *j, jrawMonitorID m);
void jx_unlock(jvmtiEnv *j, jrawMonitorID m);

/* Class signature ("Ljava/lang/String;"); *sig to jx_free. WRONG_PHASE and
 * INVALID_CLASS are expected (class unloading) and not reported. */
jvmtiError jx_class_signature(jvmtiEnv *j, jclass k, char **sig);
/* Source file name (NULL when absent, not an error); to jx_free. */
void jx_source_file(jvmtiEnv *j, jclass k, char **file);
/* A system property (OnLoad or live phase), to free with jx_free; NULL when
 * the VM does not have it. */
char *jx_system_property(jvmtiEnv *j, const char *name);
/* Line of `loc` in `m` from its line table; -1 when unknown. */
jint jx_line_of(jvmtiEnv *j, jmethodID m, jlocation loc);
/* Starts an agent thread (a java.lang.Thread named `name`) running `fn`.
 * *running is set to 1 first (the thread clears it when it leaves) and
 * back to 0 if the start fails. Returns 0, or -1 (reported, naming
 * `what` as the feature that is then off). */
int jx_agent_thread(jvmtiEnv *j, JNIEnv *env, const char *name, jvmtiStartFunction fn,
                    jint priority, volatile int *running, const char *what);
/* Thread name, group name and parent group name (each may be NULL); to jx_free. */
void jx_thread_names(jvmtiEnv *j, jthread t, char **name, char **group, char **parent);

#endif
