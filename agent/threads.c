/*
 * threads.c: thread registration and THREAD START/END output (threads.h).
 */
#include "threads.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "jx.h"
#include "out.h"
#include "timing.h"

hp_thread *thr_get(jvmtiEnv *j, JNIEnv *env, jthread t)
{
    void *p = NULL;
    if ((*j)->GetThreadLocalStorage(j, t, &p) == JVMTI_ERROR_NONE && p)
        return p;
    hp_thread *th = calloc(1, sizeof *th);
    if (!th)
        return NULL;
    /* two threads may register the same thread (its own event and an
     * enumeration): the check and the store happen under data_lock; the
     * thread-local storage calls are quick and never call back */
    jx_lock(j, g_hp.data_lock);
    if ((*j)->GetThreadLocalStorage(j, t, &p) == JVMTI_ERROR_NONE && p) {
        jx_unlock(j, g_hp.data_lock);
        free(th);
        return p;
    }
    th->serial = ++g_hp.next_thread_serial;
    jvmtiError e = (*j)->SetThreadLocalStorage(j, t, th);
    jx_unlock(j, g_hp.data_lock);
    if (e != JVMTI_ERROR_NONE) {
        free(th); /* a thread that is not alive (yet or any more) */
        return NULL;
    }
    char *name = NULL, *group = NULL, *parent = NULL;
    jx_thread_names(j, t, &name, &group, &parent);
    jlong tag = 0;
    (*j)->GetTag(j, t, &tag);
    th->obj_id = (uint64_t)tag;
    out_thread_start(th->serial, (uint64_t)tag, name, group, parent);
    jx_free(j, name);
    jx_free(j, group);
    jx_free(j, parent);
    (void)env;
    return th;
}

void thr_end(jvmtiEnv *j, JNIEnv *env, jthread t)
{
    hp_thread *th = thr_get(j, env, t);
    if (!th || th->ended)
        return;
    th->ended = 1;
    /* ThreadEnd runs on the thread after its last Java code: no method
     * event of it can come after this */
    tm_stack_free(th->tm);
    th->tm = NULL;
    out_thread_end(th->serial);
    /* the storage stays: a late event of this thread still finds its serial */
}

void thr_register_all(jvmtiEnv *j, JNIEnv *env)
{
    jint n = 0;
    jthread *ts = NULL;
    int framed = env && (*env)->PushLocalFrame(env, 64) == 0;
    if (jx_report(j, (*j)->GetAllThreads(j, &n, &ts), "GetAllThreads") == JVMTI_ERROR_NONE) {
        if (env && n > 0)
            (*env)->EnsureLocalCapacity(env, n + 64);
        for (jint i = 0; i < n; i++) {
            /* each registration makes a few local refs (thread group...) */
            int inner = env && (*env)->PushLocalFrame(env, 16) == 0;
            thr_get(j, env, ts[i]);
            if (inner)
                (*env)->PopLocalFrame(env, NULL);
        }
        jx_free(j, ts);
    }
    if (framed)
        (*env)->PopLocalFrame(env, NULL);
}

void thr_mark_agent(jvmtiEnv *j, JNIEnv *env)
{
    jthread self = NULL;
    if ((*j)->GetCurrentThread(j, &self) != JVMTI_ERROR_NONE)
        return;
    hp_thread *th = thr_get(j, env, self);
    if (th)
        th->agent = 1;
    (*env)->DeleteLocalRef(env, self);
}
