/*
 * hg_path.h: shortest paths from the GC roots to objects of a heap graph
 * (hg_graph.h), and the names of the fields along them.
 *
 * The paths come from one breadth-first search from the virtual root over
 * the graph as loaded: load it with strong_only to follow no
 * java.lang.ref.Reference.referent (MAT's "exclude weak/soft references"),
 * without to follow them too. Among paths of equal length the one found
 * first wins (roots in file order, references in field order).
 *
 * The graph holds no field names per edge (that would cost memory per
 * reference), so the names are found afterwards by one more pass over the
 * dump that looks only at the objects on the paths: the field, array index
 * or class slot of `from` whose value is `to`.
 */
#ifndef HPROF_HG_PATH_H
#define HPROF_HG_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "hg_graph.h"

typedef struct hg_paths hg_paths;

/* BFS over g (8 bytes per object). 0, or -1 when out of memory. */
int hg_paths_compute(const hg_graph *g, hg_paths **out);
void hg_paths_free(hg_paths *p);

/* 1 when a root reaches object i (in constant time). */
int hg_paths_reached(const hg_paths *p, uint32_t i);

/* Objects on the path from a root object to `target`, root first, target
 * last: returns the path's length (0 when no root reaches it) and writes
 * at most cap of them to buf. */
uint32_t hg_paths_chain(const hg_paths *p, uint32_t target, uint32_t *buf, uint32_t cap);

#define HG_NAME_MAX 160

/* A step to name: the reference from object `from` to object `to`. */
typedef struct hg_link {
    uint32_t from, to;
    char field[HG_NAME_MAX]; /* "name", "[12]", "<class>", "<classes>",
                              * "<super>", "<classloader>", ... ; "?" if not found */
} hg_link;

/* A thread root to describe: its thread serial, and for a stack root
 * (has_depth) the frame's depth in that thread's stack trace. */
typedef struct hg_frame_req {
    uint32_t thread, depth;
    int has_depth;
    char text[HG_NAME_MAX];        /* "pkg.Class.method(File.java:12)", or "" */
    char thread_name[HG_NAME_MAX]; /* the Thread's name (UTF-8), or "" */
} hg_frame_req;

/* One pass over src (rewound first): fills every link's field and every
 * frame's text; then, when a thread is asked for, one more for the names of
 * the threads (their ROOT THREAD OBJECT's `name` String). 0, or -1 when the
 * source cannot be read again or memory runs out (err says which). */
int hg_paths_name(hr_source *src, const hg_graph *g, hg_link *links, size_t nlinks,
                  hg_frame_req *frames, size_t nframes, char *err, size_t errlen);

/* "Java frame", "thread object", "sticky class"... for HPROF_GC_ROOT_*. */
const char *hg_root_kind_name(uint8_t kind);

#endif /* HPROF_HG_PATH_H */
