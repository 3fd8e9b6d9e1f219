/*
 * hdmirror.h: what java.lang.Class objects hold in their own instance
 * fields, for a heap dump (heapdump.c).
 *
 * JVMTI's FollowReferences reports a class's statics, loader, signers and
 * protection domain, but never the instance fields of its mirror
 * (Class.name, classValueMap, reflectionData, packageName, classData of a
 * hidden class, annotationData, enumConstants...), nor any field of the
 * primitive types' mirrors (int.class...), which it does not visit. The
 * objects held only there would be missing from the dump, where HotSpot's
 * own dumper (which writes every object of the heap) has them.
 *
 * Before the walk, on the dumping thread (JNI and JVMTI allowed, dump_lock
 * held, no other agent lock), hdm_collect reads those fields with JNI and
 * holds each object found in a JNI global reference of the agent's: the
 * walk then reports it as a JNI global root and visits everything it
 * holds. heapdump.c does not write those roots (hdm_own_root): the objects
 * are reachable the way the JVM holds them, from their class:
 *  - a class's CLASS DUMP lists them as extra static fields named after
 *    the mirror's field in angle brackets ("<classValueMap>", "<name>"...),
 *    as HotSpot's dumper lists the VM-held "<resolved_references>";
 *  - a primitive type's mirror is an INSTANCE DUMP of java.lang.Class, as
 *    in HotSpot's dumps, with its fields' real values (name = "int").
 * Each class's mirror is held the same way: JVMTI reaches the classes of
 * the boot loader and those something refers to, not an unused class of
 * another loader, whose statics would be missing. Its JNI global root is
 * not written either: a class is reachable through its loader, as in
 * HotSpot's dumps. The references are released after the walk
 * (hdm_release).
 */
#ifndef HPROF_HDMIRROR_H
#define HPROF_HDMIRROR_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

#include "hprof/hw_writer.h"
#include "hu_map.h"

/* One class's extra statics: the non-null object fields of its mirror */
typedef struct hdm_extra {
    uint16_t n;
    struct {
        uint32_t name_id; /* UTF8 id of "<field>" */
        uint64_t id;      /* the object's id in the dump */
    } f[];
} hdm_extra;

typedef struct hdm_state {
    hu_map extra;      /* class index -> hdm_extra * */
    hu_map prim;       /* tag of a primitive type's mirror -> its instance data (uint8_t *) */
    hu_map own;        /* tag -> JNI global roots of ours the walk has yet to report */
    hu_map loader;     /* class index -> its loader's id (a class the walk does
                          not visit, never linked, still names its loader) */
    jobject *globals;  /* our global references, released after the walk */
    uint32_t nglobals, capglobals;
    uint32_t *names;   /* the "<field>" UTF8 ids, for the records before the dump */
    uint32_t nnames;
} hdm_state;

struct hd_state;

void hdm_init(hdm_state *m);
/* Reads the mirror fields of the classes ks[0..nk) (each registered, laid
 * out) and of the 9 primitive types' mirrors. Returns 0, or -1 out of
 * memory (what was collected stays usable). */
int hdm_collect(struct hd_state *st, JNIEnv *env, const jclass *ks, int nk);
/* Holds object v for the walk (a global reference of ours, released by
 * hdm_release, whose root is not written) and returns its tag, given now
 * if it had none; 0 when out of memory. Also for the dump's threads: one
 * that ends before the walk is still in the dump, with its THREAD OBJECT. */
jlong hdm_keep(struct hd_state *st, JNIEnv *env, jobject v);
/* 1 when a JNI global root of object `tag` is one of ours (counted down):
 * not written. */
int hdm_own_root(hdm_state *m, jlong tag);
/* The extra statics of class `index`, or NULL. */
const hdm_extra *hdm_extra_of(const hdm_state *m, uint32_t index);
/* The id of class `index`'s loader, 0 for the boot loader or unknown. */
uint64_t hdm_loader_of(const hdm_state *m, uint32_t index);
/* The instance data of the primitive mirror tagged `tag`, or NULL. */
const uint8_t *hdm_prim_data(const hdm_state *m, jlong tag);
/* Releases the global references (after the walk). */
void hdm_release(hdm_state *m, JNIEnv *env);
void hdm_cleanup(hdm_state *m, JNIEnv *env);

#endif
