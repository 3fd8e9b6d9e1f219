/*
 * hdlayout.h: the field layouts of classes for heap dumps (heap=dump|all):
 * what a class's CLASS DUMP lists, and where each field that the JVMTI heap
 * walk reports (by JVMTI field index) lands in an INSTANCE DUMP's data.
 * Built once per class (hp_class.layout) under dump_lock, with JNI and
 * JVMTI calls, never at a safepoint; never freed.
 */
#ifndef HPROF_HDLAYOUT_H
#define HPROF_HDLAYOUT_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

#include "classes.h"

/* layout kinds (heapdump.c's visit kinds continue after them) */
enum { HD_INSTANCE = 1, HD_OBJARRAY, HD_PRIMARRAY };

/* The layout of a class: its own fields (for its CLASS DUMP) and, for its
 * instances, where each JVMTI field index lands in the INSTANCE DUMP data
 * (this class's instance fields, then the super's, ...). */
struct hd_layout {
    uint8_t kind;         /* HD_INSTANCE, HD_OBJARRAY or HD_PRIMARRAY */
    uint32_t super;       /* class index of the superclass, 0 if none */
    uint16_t nown;        /* own fields, in GetClassFields order */
    uint32_t *own_name;   /* their UTF8 ids */
    uint8_t *own_type;    /* their HPROF types */
    uint16_t *own_slot;   /* static: slot among own statics; else instance position */
    uint8_t *own_static;
    uint16_t nstatic, ninst;
    uint32_t own_bytes;   /* own instance data bytes */
    uint32_t inst_bytes;  /* own + every super's */
    uint32_t first_idx;   /* JVMTI index of own field 0 */
    uint32_t nidx;        /* first_idx + nown */
    int32_t *idx_off;     /* per JVMTI index: byte offset in instance data, or -1 */
    uint8_t provisional;  /* the class was not linked: no own fields; made anew
                             once it is (no linked class has it as a super) */
    uint8_t *idx_type;
};
typedef struct hd_layout hd_layout;

/* The layout of class c (mirror k), computed once and kept in c->layout
 * with its superclasses'; `idsz` is the dump's id size. A class not linked
 * yet gets a provisional layout without fields of its own, made anew by the
 * first call after it is linked (under dump_lock, between walks: no walk
 * uses it then). NULL when its fields cannot be read or out of memory. */
hd_layout *hd_layout_of(jvmtiEnv *j, JNIEnv *env, hp_class *c, jclass k, unsigned idsz);
/* While on, no provisional layout is made anew: the dump under way has
 * written (or will overwrite) CLASS DUMPs of the ones it uses. */
void hd_layout_freeze(int on);

#endif
