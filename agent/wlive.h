/*
 * wlive.h: exact live counts for heap=sites without the JVMTI tag map.
 *
 * heap=sites alone needs of each object only its site, to count it live
 * while it is. Tagging every object (SetTag) puts it in HotSpot's tag map,
 * whose one lock every allocating thread takes and whose table is swept of
 * dead entries after every GC under that lock: on JDK 25 that doubled the
 * cost of an allocation. Here each tracked object gets a JNI weak global
 * reference instead (NewWeakGlobalRef: the JVM's OopStorage allocation
 * lock, a leaf held for a few instructions), kept with its site's index in
 * a list of the allocating thread's own, appended to without a lock of
 * ours; a GC clears the references of the dead. heap=all still tags (its
 * heap dump's ids are the tags).
 *
 * Who touches a list:
 *  - its owner thread appends (wlive_track) and now and then compacts it
 *    (dropping the cleared references), the latter only under the list's
 *    mutex, taken with trylock: an allocation never waits for it;
 *  - a SITES output counts every list (wlive_count) and a net= clear empties
 *    them (wlive_clear), each list under its mutex, one list at a time;
 *  - at ThreadEnd the list is orphaned (no lock); a thread making its first
 *    list adopts an orphan if one is free, and wlive_count compacts orphans.
 * Lock order: the registry mutex, then a list's; neither is held across a
 * JVMTI call, and a list's only across JNI weak-reference calls that the
 * owner never waits for (it trylocks).
 */
#ifndef HPROF_WLIVE_H
#define HPROF_WLIVE_H

#include <jni.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct site_live;
typedef struct wlive_list wlive_list;

/* The registry of lists (g_hp.wlive) */
typedef struct wlive_state {
    pthread_mutex_t mu; /* guards head and each list's `next` */
    wlive_list *head;
    int ready;
} wlive_state;

/* Whether live counts come from here: heap=sites without heap=all. */
int wlive_on(void);

int wlive_init(void);

/* The allocation callback's part: `obj` of site `site` is tracked. No lock
 * taken; an object that cannot be tracked (no memory) counts as not live. */
void wlive_track(JNIEnv *env, jobject obj, uint32_t site);

/* ThreadEnd, on the ending thread: its list is left for adoption. */
void wlive_thread_end(void);

/* Counts the live tracked objects by site into `l` (site_live), dropping
 * the references the GC cleared. 0, or -1 (out of memory: l->oom). */
int wlive_count(JNIEnv *env, struct site_live *l);

/* Stops tracking every object tracked so far (net= clear sites); returns
 * how many were. */
uint64_t wlive_clear(JNIEnv *env);

/* The lists there are (owned and orphaned): for tests and notes. */
size_t wlive_lists(void);

#endif
