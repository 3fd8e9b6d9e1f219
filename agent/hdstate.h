/*
 * hdstate.h: the state of one heap dump, shared by the walk (heapdump.c)
 * and the writing of what it met of classes loaded meanwhile (hdresolve.c).
 * Internal to those two files; the rest of the agent sees heapdump.h.
 */
#ifndef HPROF_HDSTATE_H
#define HPROF_HDSTATE_H

#include <errno.h>
#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

#include "agent.h"
#include "classes.h"
#include "hdlate.h"
#include "hdlayout.h"
#include "hdmirror.h"
#include "hprof/hprof_format.h"
#include "hprof/hw_writer.h"
#include "hu_map.h"
#include "out.h"
#include "sites.h"
#include "traces.h"

/* the kind of the object being visited (HD_INSTANCE, HD_OBJARRAY and
 * HD_PRIMARRAY are also the layout kinds, hdlayout.h) */
enum { HD_NONE, HD_CLASS = HD_PRIMARRAY + 1, HD_LATE, HD_DONE };

/* Thread serials a dump gives threads that started after it took its list
 * of threads (their THREAD OBJECT roots name the empty trace): far above
 * the serials of THREAD START records, used only inside the dump. */
#define HD_LATE_THREAD_SERIAL0 0x40000000u
/* Class serials of classes a dump knows by a mirror it tagged as a plain
 * object (hdr_alias), used only inside the dump. */
#define HD_LATE_CLASS_SERIAL0 0x40000000u
/* threads map values: serial | trace serial << 32 | written */
#define HD_THR_WRITTEN (1ULL << 63)

/* Keys of `seen` for classes whose LOAD CLASS a file of its own holds
 * (apart from UTF8 ids, < 2^32, and traces, serial << 32) */
#define HD_SEEN_CLASS (1ULL << 62)

#define HD_MAX_FRAMES 1024   /* frames of a thread's stack in a dump */

/* A thread of the dump: its object's tag, its serial, its stack's TRACE */
typedef struct hd_thread {
    jlong tag;
    uint32_t serial;
    hp_trace *trace;
} hd_thread;

/* What the walk reports of a class (its mirror): the CLASS DUMP's values. */
typedef struct hd_cstat {
    hprof_id loader, signers, pd;
    hw_value statics[]; /* by slot, layout->nstatic of them */
} hd_cstat;

typedef struct hd_state {
    jvmtiEnv *j;
    hp_out *o;
    hw_writer *mw;        /* the output, or the binary temporary file of a text dump */
    hw_writer *tw;        /* the objects: mw itself, or (mw cannot be patched:
                             a socket) a temporary file copied in after the walk */
    hw_writer *rw;        /* the roots: with the objects (mw overwritten in place;
                             net=), or ahead of them in mw (text) */
    unsigned idsz;
    uint32_t class_class; /* index of java.lang.Class */
    uint32_t ncls;        /* classes registered before the walk (incl's size) */
    /* sites whose TRACE the output holds before the objects (binary: the
     * prelude); an object of a newer site names the empty trace, never a
     * trace the file lacks. UINT32_MAX: traces are written after the walk */
    uint32_t site_limit;
    struct hd_cstat **cstat; /* per class index: what the walk found, or NULL */
    uint8_t *incl;        /* per class index: has a CLASS DUMP (loaded, and laid
                             out, when the dump began), fixed so that the CLASS
                             DUMPs written before the walk and after it are the
                             same set; other classes the walk meets are late */
    hl_log late;          /* what the walk met of late classes (hdlate.h) */
    uint32_t late_threads; /* threads met by the walk only */
    uint32_t late_lost;   /* late objects whose class could not be read */
    hu_map threads;       /* thread object tag -> HD_THR_* value */
    hu_map seen, frames;  /* a file of its own: UTF8 ids, traces, frames written */
    hu_map alias;         /* class index -> the dump tag its mirror got in the walk
                             (the class's id in this dump, hdr_alias) */
    hu_map aliased;       /* those dump tags: class objects, not plain instances */
    uint32_t naliased;
    uint32_t *late_list;  /* the late classes (hdr_resolve), their count */
    uint32_t nlate;
    hp_class *objcls;     /* java.lang.Object (hdr_resolve) */
    int reserve_short;    /* their records did not fit the reserved region */
    hu_map arrlen;        /* object array tag -> length, until visited */
    uint64_t jni_globals;
    int err;              /* latched: EFBIG (ids), ENOMEM, EPROTO (walk order) */
    /* the object being visited */
    jlong cur;
    jlong cut;            /* an object a root interrupted (see hd_root) */
    int kind;
    hp_class *cls;
    hd_layout *L;
    uint8_t *buf;         /* instance data */
    uint32_t bufcap;
    uint32_t n, next;     /* object array: length, next index to write */
    hw_value *statics;    /* class: static values by slot */
    uint32_t stcap;
    hprof_id loader, signers, pd;
    hu_map mirror_set;    /* Class objects of no registered class (tags) */
    hdm_state mirrors;    /* what mirrors hold in their own fields (hdmirror.h) */
    jlong self_tag;       /* the dumping thread's object: its JNI locals are ours */
    int jvmti_roots;      /* shape=original: every root kind as JVMTI reports it */
    uint32_t object_class; /* index of java.lang.Object: every interface's super */
    uint32_t string_class; /* index of java.lang.String (redact: its coder is kept) */
    int redact;           /* redact=y: primitive values written as zeros */
    const uint8_t *zeros; /* redact: a read-only zero mapping of nzeros bytes */
    size_t nzeros;
    uint32_t vthread_class; /* index of java.lang.VirtualThread, 0 if none (hdvthread.h) */
    jlong vt_cur;         /* the mounted virtual thread whose frames the walk reports */
    void *cdbuf;          /* CLASS DUMP field arrays */
    size_t cdcap;
    /* heap=all: the live objects of each site, counted as the walk visits
     * them (hd_start), so that no scan of the heap follows the dump */
    site_live live;
    jlong live_last;      /* the object counted last (its callbacks come together) */
    /* the thread that runs the walk (HotSpot's VM thread), read by its first
     * callback, and its scheduler counters then (hd_sched_read) */
    long walk_tid;
    uint64_t walk_sched[3];
} hd_state;

/* The id of the object tagged `tag`. A class outside the dump's set (late)
 * is noted, so that it gets its CLASS DUMP after the walk. */
static inline hprof_id hd_id(hd_state *st, jlong tag)
{
    uint64_t t = (uint64_t)tag;
    if (t == 0)
        return 0;
    if (HP_TAG_IS_CLASS(t)) {
        uint32_t i = (uint32_t)(t & 0xFFFFFFFFu);
        if (i && i < st->ncls && st->incl[i])
            return cls_object_id(cls_at(i));
        if (!i || i >= cls_count())
            return 0;
        if (hl_need(&st->late, i) && !st->err)
            st->err = ENOMEM;
        return cls_object_id(cls_at(i));
    }
    if (st->idsz == 4) /* dump tags only (heap=all needs 8-byte ids): odd, never a class id */
        return ((t & 0x7FFFFFFFu) << 1) | 1u;
    return t;
}

static inline uint32_t hd_trace_serial(const hd_state *st, jlong tag)
{
    uint64_t t = (uint64_t)tag;
    if (t == 0 || HP_TAG_IS_CLASS(t) || HP_TAG_IS_DUMP(t))
        return HP_TRACE_SERIAL0;
    uint32_t s = HP_TAG_SITE(t);
    if (s == 0 || s >= site_count() || s >= st->site_limit)
        return HP_TRACE_SERIAL0;
    return site_at(s)->trace->serial;
}

/* A new tag for an object the dump meets untagged. */
static inline jlong hd_new_tag(hd_state *st)
{
    uint64_t seq = ++g_hp.dump_seq;
    if (st->idsz == 4 && seq >= (1u << 31) && !st->err)
        st->err = EFBIG;
    return (jlong)(HP_TAG_DUMP | (seq & (HP_TAG_DUMP - 1)));
}

/* Big-endian `size`-byte value v at p. */
static inline void hd_put_be(uint8_t *p, unsigned size, uint64_t v)
{
    for (unsigned i = 0; i < size; i++)
        p[i] = (uint8_t)(v >> (8 * (size - 1 - i)));
}

/* The id of class c in this dump: its own, or the tag its mirror got as a
 * plain object during the walk (hdr_alias), which references hold. */
static inline hprof_id hd_class_id(hd_state *st, const hp_class *c)
{
    uint64_t *d = st->alias.count ? hu_map_get(&st->alias, c->index) : NULL;
    return d ? hd_id(st, (jlong)*d) : cls_object_id(c);
}

/* heapdump.c: the CLASS DUMP of c into w (cs: what the walk found, or
 * NULL), and a UTF8 record once per file of its own */
void hd_class_dump(hd_state *st, hw_writer *w, hp_class *c, const hd_cstat *cs);
void hd_utf8_once(hw_writer *w, hu_map *seen, uint32_t id);

#endif
