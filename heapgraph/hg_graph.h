/*
 * hg_graph.h: libhprofheap's object graph of one heap dump.
 *
 * Any heap dump the writer's reader parses (hr_reader.h: 1.0.1/1.0.2, ids of
 * 4 or 8 bytes, plain or gzip, one HEAP DUMP or many segments) is loaded in
 * two passes over the source into a compact graph:
 *   - every object (instance, object array, primitive array, class) gets an
 *     index 0..N-1, in the order of its id (ids sorted, looked up through a
 *     directory of buckets, so that no hash table of 16 M entries is needed);
 *   - per object: its class (an index into the graph's class table) and its
 *     shallow size, HotSpot's own (tools/objsize.h, the convention of
 *     `hprof histo`); a class object's shallow size is 0, as histo counts
 *     no java.lang.Class instances;
 *   - outgoing references in CSR form (start + count per object), Eclipse
 *     MAT's by default: the reference fields of an instance (supers'
 *     included), the elements of an object array, and of a class its super,
 *     loader and static references; an instance or array also refers to
 *     its class (MAT's "<class>"). Like MAT (whose "additional class
 *     references" preference is off by default) a class's signers,
 *     protection domain and constant pool are not references. One edge MAT
 *     does not have: a class loader refers to every class it defined
 *     ("<classes>"), so that a class is held by its loader as in the JVM
 *     (its class loader data), not by the holder of its instances: a
 *     retained set counts the objects a program made, not their classes.
 *     The edge to a class that is itself a GC root (a system class) is left
 *     out: it cannot change any dominator, and saves one edge per instance
 *     of a JDK class;
 *   - the GC roots, edges of one virtual root.
 * Null references are not edges; references to ids that no record of the
 * dump defines (HotSpot's own dumps hold hundreds) are counted, skipped and
 * reported, as are duplicate object ids (the first record wins).
 *
 * Memory, per object: id 8 + class 4 + size 4 + edge start 4 + edge count
 * 4 + the id directory ~1 = 25 bytes, plus 4 per reference, plus the small
 * class table and the names. hg_graph_load() estimates what the whole analysis will need (the
 * dominator pass of hg_dom.h included, when asked) once the first pass has
 * counted the objects and references, and refuses to go on, saying how much
 * it would need, when that is more than the memory available.
 */
#ifndef HPROF_HG_GRAPH_H
#define HPROF_HG_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "hprof/hr_reader.h"

#define HG_NONE UINT32_MAX /* no object / no class */

typedef struct hg_graph hg_graph;

typedef struct hg_load_opts {
    /* 1: leave out the `referent` field of java.lang.ref.Reference and its
     * subclasses (weak, soft, phantom, final references): paths to roots.
     * 0: every reference is an edge (the dominator tree, as MAT builds it) */
    int strong_only;
    /* 1: the estimate covers the dominator pass (hg_dom.h) too */
    int for_dominators;
    /* the most bytes the analysis may use; 0 = MemAvailable (/proc/meminfo) */
    uint64_t max_memory;
} hg_load_opts;

/* What the load met, for the user's notes. */
typedef struct hg_load_stats {
    uint64_t objects, instances, obj_arrays, prim_arrays, classes;
    uint64_t edges, roots;
    uint64_t dangling_refs;  /* references to ids no record defines: skipped */
    uint64_t dangling_roots; /* roots naming such ids: skipped */
    uint64_t duplicates;     /* object records whose id was already seen */
    uint64_t weak_skipped;   /* referent fields left out (strong_only) */
    uint64_t need_bytes;     /* the estimate checked against the limit */
    uint64_t limit_bytes;
    int malformed;           /* the parse ended early: the graph holds what was read */
    char problem[256];       /* the reader's first error, when malformed */
} hg_load_stats;

typedef enum hg_status {
    HG_OK = 0,
    HG_INPUT = 1,  /* not a heap dump, or unreadable: see err */
    HG_MEMORY = 2, /* would need more memory than allowed: see err */
    HG_NOMEM = 3   /* an allocation failed */
} hg_status;

/* Loads the graph from `src` (which must rewind: a file or memory; the
 * source stays the caller's). On failure *out is NULL and `err` says why
 * in one sentence. A dump cut short loads what it holds (stats.malformed). */
hg_status hg_graph_load(hr_source *src, const hg_load_opts *o, hg_graph **out,
                        hg_load_stats *stats, char *err, size_t errlen);
void hg_graph_free(hg_graph *g);

unsigned hg_id_size(const hg_graph *g);
uint32_t hg_count(const hg_graph *g);
hprof_id hg_id(const hg_graph *g, uint32_t i);
/* Index of object `id`, or HG_NONE. */
uint32_t hg_find(const hg_graph *g, hprof_id id);
uint32_t hg_class_of(const hg_graph *g, uint32_t i); /* class table index or HG_NONE */
uint64_t hg_shallow(const hg_graph *g, uint32_t i);
/* 1 when object i is a class (a CLASS DUMP). */
int hg_is_class(const hg_graph *g, uint32_t i);
/* Outgoing edges of object i (NULL with *n 0 once hg_graph_drop_edges). */
const uint32_t *hg_out(const hg_graph *g, uint32_t i, uint32_t *n);
/* Frees the edges (the dominator pass no longer needs them). */
void hg_graph_drop_edges(hg_graph *g);

/* The GC roots, in file order (an object may be rooted many times). */
uint32_t hg_nroots(const hg_graph *g);
typedef struct hg_root {
    uint32_t obj;   /* object index */
    uint8_t kind;   /* HPROF_GC_ROOT_* */
    uint32_t thread; /* thread serial (stack and thread roots), else 0 */
    uint32_t frame;  /* frame depth (JAVA FRAME, JNI LOCAL), trace serial
                      * (THREAD OBJECT), else 0 */
} hg_root;
const hg_root *hg_roots(const hg_graph *g);
/* The root entry of object i (the first), or NULL when it is no root. */
const hg_root *hg_root_of(const hg_graph *g, uint32_t i);

/* The class table: every CLASS DUMP, plus the primitive array classes a
 * dump names only in LOAD CLASS. Names in Java spelling ("int[]",
 * "java.lang.String", "a.B$C"); a class without a name is
 * "<unnamed class>", an unknown one "<unknown class>". */
uint32_t hg_nclasses(const hg_graph *g);
/* What to call object i's class in a list of objects: its class's name, or
 * for a class object "class <its name>" (as MAT shows it). */
const char *hg_object_class(const hg_graph *g, uint32_t i);
const char *hg_class_name(const hg_graph *g, uint32_t c);
hprof_id hg_class_id(const hg_graph *g, uint32_t c);
/* The object index of class c's CLASS DUMP, or HG_NONE. */
uint32_t hg_class_obj(const hg_graph *g, uint32_t c);
/* Names of UTF8 ids (NULL when unknown), for the path module. */
const char *hg_utf8(const hg_graph *g, hprof_id name_id);
/* The instance fields of class c in dump order (its own, then its
 * super's...), with their byte offset in the instance's values. */
typedef struct hg_field {
    hprof_id name_id;
    uint8_t type;
    uint32_t offset;
} hg_field;
const hg_field *hg_class_fields(const hg_graph *g, uint32_t c, uint32_t *n);
/* A class's loader id (0 for the boot loader) and super class id. */
hprof_id hg_class_loader(const hg_graph *g, uint32_t c);
hprof_id hg_class_super(const hg_graph *g, uint32_t c);

/* Java spelling of a class name given in either spelling ("java/lang/String",
 * "[I", "La/B$C;" or "java.lang.String", "int[]"): written to out (cap
 * bytes, NUL-terminated); returns the full length. */
size_t hg_java_name(const char *name, size_t len, char *out, size_t cap);

/* The bytes of memory available to an analysis: MemAvailable of
 * /proc/meminfo, or 0 when unknown. */
uint64_t hg_mem_available(void);

#endif /* HPROF_HG_GRAPH_H */
