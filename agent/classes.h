/*
 * classes.h: the class table. A class is registered once, the first time the
 * agent sees it (VMInit/attach enumeration, ClassPrepare, or an allocation),
 * and its mirror is tagged HP_TAG_CLASS | index so later lookups are one
 * GetTag. Entries are never removed; an unloaded class is only marked.
 */
#ifndef HPROF_CLASSES_H
#define HPROF_CLASSES_H

#include <jvmti.h>
#include <stdint.h>

typedef struct hp_class {
    uint32_t index;
    uint32_t serial;     /* HPROF class serial */
    uint32_t name_vm;    /* UTF8 id: "java/lang/String", "[I" (binary output) */
    char *name_java;     /* "java.lang.String", "int[]" (text output) */
    uint8_t array_type;  /* 0, or HPROF element type of an array class */
    uint8_t load_written;   /* LOAD CLASS written (owned by out_lock) */
    uint8_t unloaded;       /* no longer loaded (cls_scan_loaded, dump_lock) */
    uint8_t unload_written; /* UNLOAD CLASS written (owned by out_lock) */
    struct hd_layout *layout; /* heap dumps: field layout, computed once
                               * (heapdump.c, under dump_lock) */
    /* A weak global ref to the mirror, made the first time the allocation
     * path caches a site of the class (set once, by compare-and-swap): a
     * cached site's class is then checked with IsSameObject, which takes
     * no lock, instead of GetTag, which takes the tag map's lock that
     * every SetTag of every thread takes too. Cleared by the GC when the
     * class is unloaded (IsSameObject then says "not the same"). Never
     * deleted: it lives as long as the class entry. */
    jweak ref;
} hp_class;

int cls_init(void);
void cls_cleanup(void);
/* The class of mirror `k`, registering it if new (and then writing its LOAD
 * CLASS, outside the locks). NULL if it cannot be registered (an unloading
 * class, out of memory). Not for GC time. */
hp_class *cls_get(jvmtiEnv *j, jclass k);
hp_class *cls_at(uint32_t index);
/* Marks every registered class that the JVM no longer has loaded
 * (GetLoadedClasses); registers loaded classes not seen yet. Returns the
 * number of classes newly marked unloaded, or -1 (reported). Caller holds
 * dump_lock and no other agent lock. */
int cls_scan_loaded(jvmtiEnv *j, JNIEnv *env);
uint32_t cls_count(void);
/* The HPROF id of a class object in output (fits 4-byte ids). */
static inline uint64_t cls_object_id(const hp_class *c)
{
    return (uint64_t)c->index * 8u + 8u;
}
/* The HPROF type of a primitive signature character ('I' -> int), 0 for
 * anything else (references). JVMTI's jvmtiPrimitiveType values are these
 * characters too. */
int cls_prim_type(char c);
/* "Ljava/lang/String;" -> "java/lang/String", "[I" stays; "java.lang.String",
 * "int[]". Both malloc'ed into *vm and *java; returns the array element type. */
int cls_names_of_signature(const char *sig, char **vm, char **java);

#endif
