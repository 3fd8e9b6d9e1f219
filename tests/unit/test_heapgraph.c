/*
 * test_heapgraph.c: libhprofheap (heapgraph/) on small dumps written with
 * the writer library, whose dominator trees are known by hand: a diamond,
 * a chain of 1 M objects, a cycle, a root holding a 2.2 M-element array,
 * dangling references, weak references, a class held by its loader, paths
 * with their field names, cut files and the memory limit; and 40 random
 * graphs checked against the definition of domination.
 *
 * Every dump has a class Node (fields f0, f1: references; 24 bytes an
 * instance as HotSpot lays it out), Object[] and int[], each a sticky
 * class root as HotSpot's system classes are, so that an instance's
 * reference to its class changes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "heapgraph/hg_dom.h"
#include "heapgraph/hg_path.h"

#define C_NODE 0x100
#define C_OARR 0x110
#define C_IARR 0x120
#define C_REF 0x130  /* java/lang/ref/Reference: referent */
#define C_WEAK 0x140 /* java/lang/ref/WeakReference extends it */
#define C_K 0x150    /* a class of loader L, no sticky root */

typedef struct tb {
    hw_writer *w;
    hw_sink *sink;
    unsigned idsz;
    uint8_t *data;
    size_t len;
} tb;

static void tb_class(tb *t, hprof_id id, hprof_id super, hprof_id loader, uint16_t nf,
                     const hw_field *f)
{
    hw_class c;
    memset(&c, 0, sizeof c);
    c.class_id = id;
    c.super_id = super;
    c.loader_id = loader;
    c.nfields = nf;
    c.fields = f;
    c.instance_size = nf * t->idsz;
    CU_ASSERT_EQUAL(hw_class_dump(t->w, &c), 0);
}

static void tb_begin(tb *t, unsigned idsz)
{
    memset(t, 0, sizeof *t);
    t->idsz = idsz;
    t->w = tu_mem_writer(idsz, &t->sink);
    CU_ASSERT_PTR_NOT_NULL_FATAL(t->w);
    hw_utf8z(t->w, 1, "Node");
    hw_utf8z(t->w, 2, "f0");
    hw_utf8z(t->w, 3, "f1");
    hw_utf8z(t->w, 4, "[Ljava/lang/Object;");
    hw_utf8z(t->w, 5, "[I");
    hw_utf8z(t->w, 6, "java/lang/ref/Reference");
    hw_utf8z(t->w, 7, "java/lang/ref/WeakReference");
    hw_utf8z(t->w, 8, "referent");
    hw_utf8z(t->w, 9, "a/K");
    hw_load_class(t->w, 1, C_NODE, 0, 1);
    hw_load_class(t->w, 2, C_OARR, 0, 4);
    hw_load_class(t->w, 3, C_IARR, 0, 5);
    hw_load_class(t->w, 4, C_REF, 0, 6);
    hw_load_class(t->w, 5, C_WEAK, 0, 7);
    hw_load_class(t->w, 6, C_K, 0, 9);
    hw_heap_begin(t->w);
    hw_field nf[2] = {{2, HPROF_TYPE_OBJECT}, {3, HPROF_TYPE_OBJECT}};
    hw_field rf[1] = {{8, HPROF_TYPE_OBJECT}};
    tb_class(t, C_NODE, 0, 0, 2, nf);
    tb_class(t, C_OARR, 0, 0, 0, NULL);
    tb_class(t, C_IARR, 0, 0, 0, NULL);
    tb_class(t, C_REF, 0, 0, 1, rf);
    tb_class(t, C_WEAK, C_REF, 0, 0, NULL);
    hprof_id sticky[] = {C_NODE, C_OARR, C_IARR, C_REF, C_WEAK};
    for (size_t i = 0; i < sizeof sticky / sizeof sticky[0]; i++)
        hw_root(t->w, HPROF_GC_ROOT_STICKY_CLASS, sticky[i], 0, 0, 0);
}

static void tb_put_id(uint8_t *p, hprof_id v, unsigned idsz)
{
    for (unsigned i = 0; i < idsz; i++)
        p[i] = (uint8_t)(v >> (8 * (idsz - 1 - i)));
}

/* A Node: f0, f1. */
static void tb_node(tb *t, hprof_id id, hprof_id f0, hprof_id f1)
{
    uint8_t v[16];
    tb_put_id(v, f0, t->idsz);
    tb_put_id(v + t->idsz, f1, t->idsz);
    CU_ASSERT_EQUAL(hw_instance_dump(t->w, id, 0, C_NODE, v, 2 * t->idsz), 0);
}

static void tb_root(tb *t, hprof_id id)
{
    CU_ASSERT_EQUAL(hw_root(t->w, HPROF_GC_ROOT_JNI_GLOBAL, id, 0, 0, 0x99), 0);
}

static void tb_end(tb *t)
{
    hw_heap_end(t->w);
    char msg[256];
    CU_ASSERT_EQUAL(hw_writer_close(t->w, msg, sizeof msg), 0);
    t->data = tu_sink_copy(t->sink, &t->len);
    hw_sink_free(t->sink);
}

static hg_graph *tb_load(tb *t, int strong_only, hg_load_stats *st)
{
    hr_source *src = hr_source_memory(t->data, t->len);
    hg_load_opts o = {.strong_only = strong_only, .for_dominators = 1, .max_memory = 1u << 30};
    hg_graph *g = NULL;
    char err[256];
    CU_ASSERT_EQUAL(hg_graph_load(src, &o, &g, st, err, sizeof err), HG_OK);
    hr_source_close(src);
    return g;
}

static hg_dom *tb_dom(hg_graph *g)
{
    hg_dom *d = NULL;
    CU_ASSERT_EQUAL_FATAL(hg_dom_compute(g, &d), 0);
    return d;
}

#define RET(d, g, id) hg_dom_retained_count(d, hg_find(g, id))
#define RETB(d, g, id) hg_dom_retained(d, hg_find(g, id))

/* R -> A, B; A -> C; B -> C; C -> D: C is shared, so it belongs to
 * neither A nor B; R retains all five. */
static void test_diamond(void)
{
    for (unsigned idsz = 4; idsz <= 8; idsz += 4) {
        tb t;
        tb_begin(&t, idsz);
        tb_node(&t, 0x1000, 0x1010, 0x1020); /* R */
        tb_node(&t, 0x1010, 0x1030, 0);      /* A */
        tb_node(&t, 0x1020, 0, 0x1030);      /* B */
        tb_node(&t, 0x1030, 0x1040, 0);      /* C */
        tb_node(&t, 0x1040, 0, 0);           /* D */
        tb_root(&t, 0x1000);
        tb_end(&t);
        hg_load_stats st;
        hg_graph *g = tb_load(&t, 0, &st);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        CU_ASSERT_EQUAL(hg_count(g), 5 + 5); /* five Nodes, five classes */
        CU_ASSERT_EQUAL(st.dangling_refs, 0);
        CU_ASSERT_EQUAL(hg_shallow(g, hg_find(g, 0x1000)), 24);
        hg_dom *d = tb_dom(g);
        CU_ASSERT_EQUAL(RET(d, g, 0x1000), 5);
        CU_ASSERT_EQUAL(RETB(d, g, 0x1000), 5 * 24);
        CU_ASSERT_EQUAL(RET(d, g, 0x1010), 1);
        CU_ASSERT_EQUAL(RET(d, g, 0x1020), 1);
        CU_ASSERT_EQUAL(RET(d, g, 0x1030), 2);
        CU_ASSERT_EQUAL(hg_dom_idom(d, hg_find(g, 0x1030)), hg_find(g, 0x1000));
        CU_ASSERT_EQUAL(hg_dom_idom(d, hg_find(g, 0x1000)), HG_NONE);
        CU_ASSERT_EQUAL(hg_dom_reachable(d), 10);
        CU_ASSERT_EQUAL(hg_dom_unreachable(d), 0);
        uint32_t top[2];
        CU_ASSERT_EQUAL(hg_dom_top(d, 2, top), 2);
        CU_ASSERT_EQUAL(hg_id(g, top[0]), 0x1000);
        CU_ASSERT_EQUAL(hg_id(g, top[1]), 0x1030);
        const hg_class_row *rows;
        CU_ASSERT_EQUAL_FATAL(hg_dom_classes(d, &rows), 0);
        /* class index 0 is Node (the first CLASS DUMP): the topmost Node, R */
        CU_ASSERT_STRING_EQUAL(hg_class_name(g, 0), "Node");
        CU_ASSERT_EQUAL(rows[0].instances, 5);
        CU_ASSERT_EQUAL(rows[0].shallow, 120);
        CU_ASSERT_EQUAL(rows[0].retained, 120);
        hg_dom_free(d);
        hg_graph_free(g);
        free(t.data);
    }
}

/* root -> n0 -> n1 -> ... -> n(N-1): no recursion, every retained count
 * exact; the class Node retains N objects once, not N (N+1)/2. */
static void test_chain(void)
{
    const uint32_t n = 1000000;
    tb t;
    tb_begin(&t, 8);
    for (uint32_t i = 0; i < n; i++)
        tb_node(&t, 0x100000 + 16 * (hprof_id)i, i + 1 < n ? 0x100000 + 16 * (hprof_id)(i + 1) : 0, 0);
    tb_root(&t, 0x100000);
    tb_end(&t);
    hg_graph *g = tb_load(&t, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    /* the path to the last object: every object of the chain, in order */
    hg_paths *p = NULL;
    CU_ASSERT_EQUAL_FATAL(hg_paths_compute(g, &p), 0);
    uint32_t last = hg_find(g, 0x100000 + 16 * (hprof_id)(n - 1)), *buf = malloc(n * sizeof *buf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
    CU_ASSERT_TRUE(hg_paths_reached(p, last));
    CU_ASSERT_EQUAL(hg_paths_chain(p, last, buf, n), n);
    CU_ASSERT_EQUAL(buf[0], hg_find(g, 0x100000));
    CU_ASSERT_EQUAL(buf[n / 2], hg_find(g, 0x100000 + 16 * (hprof_id)(n / 2)));
    free(buf);
    hg_paths_free(p);
    hg_dom *d = tb_dom(g);
    CU_ASSERT_EQUAL(RET(d, g, 0x100000), n);
    CU_ASSERT_EQUAL(RETB(d, g, 0x100000), (uint64_t)n * 24);
    CU_ASSERT_EQUAL(RET(d, g, 0x100000 + 16 * 500000), n - 500000);
    CU_ASSERT_EQUAL(RET(d, g, 0x100000 + 16 * (hprof_id)(n - 1)), 1);
    const hg_class_row *rows;
    CU_ASSERT_EQUAL_FATAL(hg_dom_classes(d, &rows), 0);
    CU_ASSERT_EQUAL(rows[0].instances, n);
    CU_ASSERT_EQUAL(rows[0].retained, (uint64_t)n * 24);
    hg_dom_free(d);
    hg_graph_free(g);
    free(t.data);
}

/* root -> A -> B -> C -> A: A retains 3, B 2, C 1. */
static void test_cycle(void)
{
    tb t;
    tb_begin(&t, 8);
    tb_node(&t, 0xA0, 0xB0, 0);
    tb_node(&t, 0xB0, 0xC0, 0);
    tb_node(&t, 0xC0, 0xA0, 0);
    tb_node(&t, 0xE0, 0xE0, 0); /* a cycle of one, unreachable: left out */
    tb_root(&t, 0xA0);
    tb_end(&t);
    hg_graph *g = tb_load(&t, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    hg_dom *d = tb_dom(g);
    CU_ASSERT_EQUAL(RET(d, g, 0xA0), 3);
    CU_ASSERT_EQUAL(RET(d, g, 0xB0), 2);
    CU_ASSERT_EQUAL(RET(d, g, 0xC0), 1);
    CU_ASSERT_EQUAL(hg_dom_idom(d, hg_find(g, 0xC0)), hg_find(g, 0xB0));
    CU_ASSERT_EQUAL(hg_dom_unreachable(d), 1);
    CU_ASSERT_EQUAL(hg_dom_unreachable_bytes(d), 24);
    CU_ASSERT_FALSE(hg_dom_is_reachable(d, hg_find(g, 0xE0)));
    CU_ASSERT_EQUAL(RET(d, g, 0xE0), 0);
    hg_dom_free(d);
    hg_graph_free(g);
    free(t.data);
}

/* root -> Object[2.2 M] -> 2.2 M distinct int[2]; the array's 17.6 MB of
 * ids pass HR_BODY_MAX, so the reader delivers it in parts; the path to
 * an element of a later part names its index. */
static void test_big_array(void)
{
    const uint32_t n = 2200000;
    tb t;
    tb_begin(&t, 8);
    hprof_id *el = malloc(n * sizeof *el);
    CU_ASSERT_PTR_NOT_NULL_FATAL(el);
    int32_t two[2] = {1, 2};
    for (uint32_t i = 0; i < n; i++) {
        el[i] = 0x10000000 + 32 * (hprof_id)i;
        hw_prim_array_dump(t.w, el[i], 0, HPROF_TYPE_INT, 2, two);
    }
    hw_obj_array_dump(t.w, 0x8000, 0, C_OARR, n, el);
    tb_root(&t, 0x8000);
    tb_end(&t);
    hg_graph *g = tb_load(&t, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(hg_shallow(g, hg_find(g, 0x8000)), 16 + 4 * (uint64_t)n);
    CU_ASSERT_EQUAL(hg_shallow(g, hg_find(g, el[5])), 24);
    CU_ASSERT_STRING_EQUAL(hg_object_class(g, hg_find(g, el[5])), "int[]");
    CU_ASSERT_STRING_EQUAL(hg_object_class(g, hg_find(g, 0x8000)), "java.lang.Object[]");
    hg_paths *p = NULL;
    CU_ASSERT_EQUAL_FATAL(hg_paths_compute(g, &p), 0);
    uint32_t chain[4];
    CU_ASSERT_EQUAL(hg_paths_chain(p, hg_find(g, el[2177777]), chain, 4), 2);
    hg_link l = {.from = chain[0], .to = chain[1]};
    hr_source *src = hr_source_memory(t.data, t.len);
    char err[128];
    CU_ASSERT_EQUAL(hg_paths_name(src, g, &l, 1, NULL, 0, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(l.field, "[2177777]");
    /* more links than a scan each is worth: matched through a map kept
     * across the array's parts (a part holds 2 M elements) */
    static const uint32_t at[6] = {5, 2177777, 0, 2097152, 2097151, 2199999};
    hg_link ls[6];
    for (int k = 0; k < 6; k++)
        ls[k] = (hg_link){.from = chain[0], .to = hg_find(g, el[at[k]])};
    CU_ASSERT_EQUAL(hg_paths_name(src, g, ls, 6, NULL, 0, err, sizeof err), 0);
    for (int k = 0; k < 6; k++) {
        char want[16];
        snprintf(want, sizeof want, "[%u]", at[k]);
        CU_ASSERT_STRING_EQUAL(ls[k].field, want);
    }
    hr_source_close(src);
    hg_paths_free(p);
    hg_dom *d = tb_dom(g);
    CU_ASSERT_EQUAL(RET(d, g, 0x8000), n + 1);
    CU_ASSERT_EQUAL(RETB(d, g, 0x8000), 16 + 4 * (uint64_t)n + 24 * (uint64_t)n);
    hg_dom_free(d);
    hg_graph_free(g);
    free(el);
    free(t.data);
}

/* references and a root to ids no record defines: counted, skipped */
static void test_dangling(void)
{
    tb t;
    tb_begin(&t, 8);
    tb_node(&t, 0xA0, 0xDEAD0, 0xB0);
    tb_node(&t, 0xB0, 0xDEAD8, 0xDEAD0);
    tb_root(&t, 0xA0);
    tb_root(&t, 0xBAD00);
    tb_end(&t);
    hg_load_stats st;
    hg_graph *g = tb_load(&t, 0, &st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(st.dangling_refs, 3);
    CU_ASSERT_EQUAL(st.dangling_roots, 1);
    uint32_t n;
    hg_out(g, hg_find(g, 0xA0), &n);
    CU_ASSERT_EQUAL(n, 1);
    hg_dom *d = tb_dom(g);
    CU_ASSERT_EQUAL(RET(d, g, 0xA0), 2);
    hg_dom_free(d);
    hg_graph_free(g);
    free(t.data);
}

/* root -> W (a WeakReference) -> referent X; root -> S (Node) -> f1 -> Y.
 * The dominator tree follows the referent (MAT's default); paths do not
 * unless asked. */
static void test_weak(void)
{
    tb t;
    tb_begin(&t, 8);
    uint8_t v[8];
    tb_put_id(v, 0xC0, 8);
    hw_instance_dump(t.w, 0xA0, 0, C_WEAK, v, 8);
    tb_node(&t, 0xC0, 0, 0);
    tb_root(&t, 0xA0);
    tb_end(&t);
    hg_load_stats st;
    hg_graph *g = tb_load(&t, 0, &st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    hg_dom *d = tb_dom(g);
    CU_ASSERT_EQUAL(RET(d, g, 0xA0), 2);
    hg_dom_free(d);
    hg_graph_free(g);
    g = tb_load(&t, 1, &st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(st.weak_skipped, 1);
    hg_paths *p = NULL;
    CU_ASSERT_EQUAL_FATAL(hg_paths_compute(g, &p), 0);
    CU_ASSERT_EQUAL(hg_paths_chain(p, hg_find(g, 0xC0), NULL, 0), 0);
    CU_ASSERT_EQUAL(hg_paths_chain(p, hg_find(g, 0xA0), NULL, 0), 1);
    hg_paths_free(p);
    hg_graph_free(g);
    g = tb_load(&t, 0, &st);
    CU_ASSERT_EQUAL_FATAL(hg_paths_compute(g, &p), 0);
    uint32_t chain[2];
    CU_ASSERT_EQUAL(hg_paths_chain(p, hg_find(g, 0xC0), chain, 2), 2);
    hg_link l = {.from = chain[0], .to = chain[1]};
    hr_source *src = hr_source_memory(t.data, t.len);
    char err[128];
    CU_ASSERT_EQUAL(hg_paths_name(src, g, &l, 1, NULL, 0, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(l.field, "referent");
    hr_source_close(src);
    hg_paths_free(p);
    hg_graph_free(g);
    free(t.data);
}

/* A class is held by its loader: L (a Node, the only root) retains class K
 * (not a sticky root) and K's static; K's instance I, held by L.f0, refers
 * to K as MAT's "<class>". Paths name the fields, the loader's "<classes>",
 * a static, and the root's thread and frame. */
static void test_loader_and_names(void)
{
    tb t;
    tb_begin(&t, 8);
    hw_heap_end(t.w); /* FRAME and TRACE records go between heap dumps */
    hw_utf8z(t.w, 20, "cache");
    hw_utf8z(t.w, 21, "main");
    hw_utf8z(t.w, 22, "()V");
    hw_utf8z(t.w, 23, "K.java");
    hw_utf8z(t.w, 24, "run");
    hw_frame(t.w, 0x501, 24, 22, 23, 6, 10);
    hw_frame(t.w, 0x502, 21, 22, 23, 6, 42);
    hprof_id frames[2] = {0x501, 0x502};
    hw_trace(t.w, 9, 7, 2, frames);
    hw_heap_begin(t.w);
    hw_static_field sf = {20, {HPROF_TYPE_OBJECT, 0xD0}};
    hw_class c;
    memset(&c, 0, sizeof c);
    c.class_id = C_K;
    c.loader_id = 0xA0;
    c.nstatics = 1;
    c.statics = &sf;
    CU_ASSERT_EQUAL(hw_class_dump(t.w, &c), 0);
    tb_node(&t, 0xA0, 0xB0, 0); /* L: f0 = I */
    hw_instance_dump(t.w, 0xB0, 0, C_K, NULL, 0); /* I, an instance of K */
    tb_node(&t, 0xD0, 0, 0);    /* D = K.cache */
    tb_node(&t, 0xF0, 0xD0, 0); /* F, a local of main (thread 7, depth 1): f0 = D */
    tb_root(&t, 0xA0);
    hw_root(t.w, HPROF_GC_ROOT_JAVA_FRAME, 0xF0, 7, 1, 0);
    tb_end(&t);
    hg_graph *g = tb_load(&t, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    uint32_t ki = hg_find(g, C_K);
    CU_ASSERT_TRUE(hg_is_class(g, ki));
    CU_ASSERT_STRING_EQUAL(hg_object_class(g, ki), "class a.K");
    hg_paths *p = NULL;
    CU_ASSERT_EQUAL_FATAL(hg_paths_compute(g, &p), 0);
    /* L -> K via <classes>; L -> I (f0) -> K too, longer */
    uint32_t ch[4];
    CU_ASSERT_EQUAL(hg_paths_chain(p, ki, ch, 4), 2);
    CU_ASSERT_EQUAL(ch[0], hg_find(g, 0xA0));
    hg_link l[3] = {{.from = ch[0], .to = ch[1]},
                    {.from = hg_find(g, 0xB0), .to = ki},
                    {.from = ki, .to = hg_find(g, 0xD0)}};
    /* D's path: F (Java frame root) -> D by f0, shorter than L -> K -> D */
    CU_ASSERT_EQUAL(hg_paths_chain(p, hg_find(g, 0xD0), ch, 4), 2);
    CU_ASSERT_EQUAL(ch[0], hg_find(g, 0xF0));
    const hg_root *r = hg_root_of(g, ch[0]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->kind, HPROF_GC_ROOT_JAVA_FRAME);
    CU_ASSERT_EQUAL(r->thread, 7);
    hg_frame_req fr = {.thread = r->thread, .depth = r->frame, .has_depth = 1};
    hr_source *src = hr_source_memory(t.data, t.len);
    char err[128];
    CU_ASSERT_EQUAL(hg_paths_name(src, g, l, 3, &fr, 1, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(l[0].field, "<classes>");
    CU_ASSERT_STRING_EQUAL(l[1].field, "<class>");
    CU_ASSERT_STRING_EQUAL(l[2].field, "cache");
    CU_ASSERT_STRING_EQUAL(fr.text, "a.K.main(K.java:42)");
    hr_source_close(src);
    hg_paths_free(p);
    hg_dom *d = tb_dom(g);
    /* K is reached from L (<classes>) and from I, which L dominates; D is
     * reached from K and from F: L retains L, I, K; D is nobody's */
    CU_ASSERT_EQUAL(hg_dom_idom(d, ki), hg_find(g, 0xA0));
    CU_ASSERT_EQUAL(RET(d, g, 0xA0), 3);
    CU_ASSERT_EQUAL(hg_dom_idom(d, hg_find(g, 0xD0)), HG_NONE);
    hg_dom_free(d);
    hg_graph_free(g);
    free(t.data);
}

/* A class's references are MAT's defaults (its "additional class
 * references" preference off): super, loader and statics. Its signers,
 * protection domain and constant pool hold nothing: what only they name is
 * unreachable, for K (of loader L, a root, which holds K as "<classes>")
 * and the sticky class Node2, whose static D is reached. */
static void test_class_refs_as_mat(void)
{
    tb t;
    tb_begin(&t, 8);
    hw_utf8z(t.w, 30, "Node2");
    hw_utf8z(t.w, 31, "cache");
    hw_load_class(t.w, 30, 0x160, 0, 30);
    hw_cp_entry cp = {7, {HPROF_TYPE_OBJECT, 0xC0}};
    hw_class c;
    memset(&c, 0, sizeof c);
    c.class_id = C_K;
    c.loader_id = 0xA0;
    c.signers_id = 0xE0;
    c.protection_domain_id = 0xE8;
    c.ncp = 1;
    c.cp = &cp;
    CU_ASSERT_EQUAL(hw_class_dump(t.w, &c), 0);
    /* a sticky class with the same kinds of references and a static */
    hw_static_field sf = {31, {HPROF_TYPE_OBJECT, 0xD0}};
    hw_cp_entry cp2 = {3, {HPROF_TYPE_OBJECT, 0xC8}};
    memset(&c, 0, sizeof c);
    c.class_id = 0x160;
    c.signers_id = 0xF0;
    c.protection_domain_id = 0xF8;
    c.ncp = 1;
    c.cp = &cp2;
    c.nstatics = 1;
    c.statics = &sf;
    CU_ASSERT_EQUAL(hw_class_dump(t.w, &c), 0);
    hw_root(t.w, HPROF_GC_ROOT_STICKY_CLASS, 0x160, 0, 0, 0);
    tb_node(&t, 0xA0, 0, 0); /* L */
    hprof_id only[] = {0xE0, 0xE8, 0xC0, 0xF0, 0xF8, 0xC8};
    for (size_t k = 0; k < sizeof only / sizeof only[0]; k++)
        tb_node(&t, only[k], 0, 0);
    tb_node(&t, 0xD0, 0, 0); /* D = Node2.cache */
    tb_root(&t, 0xA0);
    tb_end(&t);
    hg_graph *g = tb_load(&t, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    uint32_t n;
    hg_out(g, hg_find(g, 0x160), &n);
    CU_ASSERT_EQUAL(n, 1); /* the static only */
    hg_out(g, hg_find(g, 0xA0), &n);
    CU_ASSERT_EQUAL(n, 1); /* L: "<classes>" K */
    hg_dom *d = tb_dom(g);
    CU_ASSERT_EQUAL(hg_dom_idom(d, hg_find(g, C_K)), hg_find(g, 0xA0));
    for (size_t k = 0; k < sizeof only / sizeof only[0]; k++)
        CU_ASSERT_FALSE(hg_dom_is_reachable(d, hg_find(g, only[k])));
    CU_ASSERT_TRUE(hg_dom_is_reachable(d, hg_find(g, 0xD0)));
    CU_ASSERT_EQUAL(hg_dom_idom(d, hg_find(g, 0xD0)), hg_find(g, 0x160));
    CU_ASSERT_EQUAL(RET(d, g, 0xA0), 2);
    CU_ASSERT_EQUAL(hg_dom_unreachable(d), 6);
    CU_ASSERT_EQUAL(RET(d, g, 0x160), 2);
    hg_dom_free(d);
    hg_graph_free(g);
    free(t.data);
}

/* Every prefix of a dump: loaded (what it holds, flagged malformed) or
 * refused as input, never a crash; the memory limit refuses with the need. */
static void test_cut_and_limit(void)
{
    tb t;
    tb_begin(&t, 8);
    tb_node(&t, 0x1000, 0x1010, 0x1020);
    tb_node(&t, 0x1010, 0x1020, 0);
    tb_node(&t, 0x1020, 0x1000, 0);
    uint8_t v[8];
    tb_put_id(v, 0x1000, 8);
    hw_instance_dump(t.w, 0x1030, 0, C_WEAK, v, 8);
    hprof_id el[3] = {0x1000, 0x1010, 0xDEAD};
    hw_obj_array_dump(t.w, 0x1040, 0, C_OARR, 3, el);
    tb_root(&t, 0x1000);
    tb_root(&t, 0x1040);
    tb_end(&t);
    size_t ok = 0, malformed = 0;
    for (size_t cut = 0; cut <= t.len; cut++) {
        hr_source *src = hr_source_memory(t.data, cut);
        hg_load_opts o = {.strong_only = 0, .for_dominators = 1, .max_memory = 1u << 30};
        hg_graph *g = NULL;
        hg_load_stats st;
        char err[256];
        hg_status s = hg_graph_load(src, &o, &g, &st, err, sizeof err);
        if (s == HG_OK) {
            ok++;
            malformed += st.malformed;
            hg_dom *d = NULL;
            CU_ASSERT_EQUAL(hg_dom_compute(g, &d), 0);
            CU_ASSERT_TRUE(hg_dom_reachable(d) <= hg_count(g));
            hg_dom_free(d);
            hg_graph_free(g);
        } else {
            CU_ASSERT_EQUAL(s, HG_INPUT);
            CU_ASSERT_PTR_NULL(g);
            CU_ASSERT_TRUE(err[0] != 0);
        }
        hr_source_close(src);
    }
    CU_ASSERT_TRUE(ok > 0);
    CU_ASSERT_TRUE(malformed > 0);
    /* the whole file is clean; one cut inside the heap dump is not */
    size_t cuts[2] = {t.len, t.len - 12};
    for (int k = 0; k < 2; k++) {
        hr_source *src = hr_source_memory(t.data, cuts[k]);
        hg_load_opts o = {.strong_only = 0, .for_dominators = 1, .max_memory = 1u << 30};
        hg_graph *g = NULL;
        hg_load_stats st;
        char err[256];
        CU_ASSERT_EQUAL(hg_graph_load(src, &o, &g, &st, err, sizeof err), HG_OK);
        CU_ASSERT_EQUAL(st.malformed, k);
        CU_ASSERT_EQUAL(st.problem[0] != 0, k);
        hg_graph_free(g);
        hr_source_close(src);
    }
    hr_source *src = hr_source_memory(t.data, t.len);
    hg_load_opts o = {.strong_only = 0, .for_dominators = 1, .max_memory = 1000};
    hg_graph *g = NULL;
    hg_load_stats st;
    char err[256];
    CU_ASSERT_EQUAL(hg_graph_load(src, &o, &g, &st, err, sizeof err), HG_MEMORY);
    CU_ASSERT_PTR_NULL(g);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "would need"));
    CU_ASSERT_TRUE(st.need_bytes > 1000);
    hr_source_close(src);
    free(t.data);
}

/* A dump whose objects alone pass the limit is refused in the first pass,
 * as soon as they do, not after it (when its 8 bytes an object, more while
 * growing and sorted, may already be more than the machine has): 50 k
 * objects against room for 1000 stop at the 1001st, with what it saw. */
static void test_limit_in_pass1(void)
{
    tb t;
    tb_begin(&t, 8);
    for (hprof_id i = 0; i < 50000; i++)
        tb_node(&t, 0x100000 + 32 * i, 0, 0);
    tb_root(&t, 0x100000);
    tb_end(&t);
    for (int dom = 0; dom < 2; dom++) {
        uint64_t per = dom ? 42 : 34;
        hr_source *src = hr_source_memory(t.data, t.len);
        hg_load_opts o = {.strong_only = 0, .for_dominators = dom, .max_memory = (32u << 20) + per * 1000 + 1};
        hg_graph *g = NULL;
        hg_load_stats st;
        char err[320];
        CU_ASSERT_EQUAL(hg_graph_load(src, &o, &g, &st, err, sizeof err), HG_MEMORY);
        CU_ASSERT_PTR_NULL(g);
        CU_ASSERT_EQUAL(st.need_bytes, (32u << 20) + per * 1001);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "would need more than 32 MB (1000 objects read so far"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "MB are available (--max-memory)"));
        hr_source_close(src);
    }
    /* room for all: loaded */
    hr_source *src = hr_source_memory(t.data, t.len);
    hg_load_opts o = {.strong_only = 0, .for_dominators = 1, .max_memory = 1u << 30};
    hg_graph *g = NULL;
    char err[320];
    CU_ASSERT_EQUAL(hg_graph_load(src, &o, &g, NULL, err, sizeof err), HG_OK);
    CU_ASSERT_EQUAL(hg_count(g), 50005);
    hg_graph_free(g);
    hr_source_close(src);
    free(t.data);
}

/* Random graphs against the definition: v's retained objects are v and
 * every object that no longer has a path from the roots once v is removed
 * (a BFS per object). Nodes of 2 fields and Object[] arrays of 0..5
 * elements, a few roots, some objects unreachable. */
static uint32_t th_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*s >> 33);
}

static void test_random_graphs(void)
{
    uint64_t seed = 12345;
    for (int round = 0; round < 40; round++) {
        uint32_t n = 50 + th_rand(&seed) % 400;
        hprof_id *out = calloc((size_t)n * 6, sizeof *out);
        uint32_t *deg = calloc(n, sizeof *deg);
        CU_ASSERT_PTR_NOT_NULL_FATAL(out);
        CU_ASSERT_PTR_NOT_NULL_FATAL(deg);
        tb t;
        tb_begin(&t, round % 2 ? 4 : 8);
        for (uint32_t i = 0; i < n; i++) {
            int arr = th_rand(&seed) % 4 == 0;
            deg[i] = arr ? th_rand(&seed) % 6 : 2;
            for (uint32_t k = 0; k < deg[i]; k++) {
                /* mostly forward and local, some back edges, some nulls */
                uint32_t r = th_rand(&seed) % 10;
                uint32_t to = r < 6 ? (i + 1 + th_rand(&seed) % 8) % n : th_rand(&seed) % n;
                out[(size_t)i * 6 + k] = r == 9 ? 0 : 0x10000 + 8 * (hprof_id)to;
            }
            hprof_id id = 0x10000 + 8 * (hprof_id)i;
            if (arr)
                hw_obj_array_dump(t.w, id, 0, C_OARR, deg[i], deg[i] ? &out[(size_t)i * 6] : NULL);
            else
                tb_node(&t, id, out[(size_t)i * 6], out[(size_t)i * 6 + 1]);
        }
        uint32_t nroots = 1 + th_rand(&seed) % 3;
        uint32_t roots[3];
        for (uint32_t k = 0; k < nroots; k++) {
            roots[k] = th_rand(&seed) % n;
            tb_root(&t, 0x10000 + 8 * (hprof_id)roots[k]);
        }
        tb_end(&t);
        hg_graph *g = tb_load(&t, 0, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        hg_dom *d = tb_dom(g);
        /* the definition, by BFS with one object removed */
        uint8_t *seen = malloc(n), *base = malloc(n);
        uint32_t *queue = malloc(n * sizeof *queue);
        CU_ASSERT_PTR_NOT_NULL_FATAL(queue);
        for (uint32_t c = 0; c <= n; c++) {
            uint32_t cut = c ? c - 1 : n; /* first n: nothing removed, the base */
            uint32_t *q = queue, head = 0, tail = 0;
            memset(seen, 0, n);
            for (uint32_t k = 0; k < nroots; k++)
                if (roots[k] != cut && !seen[roots[k]]) {
                    seen[roots[k]] = 1;
                    q[tail++] = roots[k];
                }
            while (head < tail) {
                uint32_t v = q[head++];
                for (uint32_t k = 0; k < deg[v]; k++) {
                    hprof_id to = out[(size_t)v * 6 + k];
                    if (!to)
                        continue;
                    uint32_t w = (uint32_t)((to - 0x10000) / 8);
                    if (w != cut && !seen[w]) {
                        seen[w] = 1;
                        q[tail++] = w;
                    }
                }
            }
            if (cut == n) {
                memcpy(base, seen, n);
                for (uint32_t v = 0; v < n; v++)
                    CU_ASSERT_EQUAL(hg_dom_is_reachable(d, hg_find(g, 0x10000 + 8 * (hprof_id)v)), base[v]);
                continue;
            }
            if (!base[cut])
                continue;
            uint64_t lost = 1;
            for (uint32_t v = 0; v < n; v++)
                lost += base[v] && !seen[v] && v != cut;
            CU_ASSERT_EQUAL(RET(d, g, 0x10000 + 8 * (hprof_id)cut), lost);
        }
        free(seen);
        free(base);
        free(queue);
        free(out);
        free(deg);
        hg_dom_free(d);
        hg_graph_free(g);
        free(t.data);
    }
}

/* A stack root's thread is named by its thread object's `name` String:
 * Latin-1 bytes (coder 0), UTF-16 (coder 1, little-endian), the String
 * and its array written in either order; with the graph's edges or
 * without them (after the dominator pass). */
static void test_thread_names(void)
{
    for (int variant = 0; variant < 2; variant++) {
        tb t;
        tb_begin(&t, 8);
        hw_utf8z(t.w, 30, "java/lang/Thread");
        hw_utf8z(t.w, 31, "name");
        hw_utf8z(t.w, 32, "java/lang/String");
        hw_utf8z(t.w, 33, "value");
        hw_utf8z(t.w, 34, "coder");
        hw_utf8z(t.w, 35, "[B");
        hw_load_class(t.w, 20, 0x300, 0, 30);
        hw_load_class(t.w, 21, 0x310, 0, 32);
        hw_load_class(t.w, 22, 0x320, 0, 35);
        hw_field tf[1] = {{31, HPROF_TYPE_OBJECT}};
        hw_field sf[2] = {{33, HPROF_TYPE_OBJECT}, {34, HPROF_TYPE_BYTE}};
        tb_class(&t, 0x300, 0, 0, 1, tf);
        tb_class(&t, 0x310, 0, 0, 2, sf);
        tb_class(&t, 0x320, 0, 0, 0, NULL);
        uint8_t tv[8], sv[9];
        tb_put_id(tv, 0xB00, 8);
        tb_put_id(sv, 0xC00, 8);
        sv[8] = (uint8_t)variant; /* coder */
        static const uint8_t latin1[] = {'w', 'o', 'r', 'k', 'e', 'r', '-', 0xE9};
        static const uint8_t utf16le[] = {'w', 0, 'k', 0, 0xAC, 0x20}; /* "wk€" */
        if (variant)
            hw_prim_array_dump(t.w, 0xC00, 0, HPROF_TYPE_BYTE, sizeof utf16le, utf16le);
        hw_instance_dump(t.w, 0xA00, 0, 0x300, tv, 8);  /* the Thread */
        hw_instance_dump(t.w, 0xB00, 0, 0x310, sv, 9);  /* its name */
        if (!variant)
            hw_prim_array_dump(t.w, 0xC00, 0, HPROF_TYPE_BYTE, sizeof latin1, latin1);
        tb_node(&t, 0xD00, 0, 0);
        hw_root(t.w, HPROF_GC_ROOT_THREAD_OBJ, 0xA00, 7, 9, 0);
        hw_root(t.w, HPROF_GC_ROOT_JAVA_FRAME, 0xD00, 7, 0, 0);
        tb_end(&t);
        hg_graph *g = tb_load(&t, 1, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        hg_frame_req fr[2] = {{.thread = 7, .depth = 0, .has_depth = 1}, {.thread = 8, .has_depth = 0}};
        hr_source *src = hr_source_memory(t.data, t.len);
        char err[128];
        CU_ASSERT_EQUAL(hg_paths_name(src, g, NULL, 0, fr, 2, err, sizeof err), 0);
        CU_ASSERT_STRING_EQUAL(fr[0].thread_name, variant ? "wk\xE2\x82\xAC" : "worker-\xC3\xA9");
        CU_ASSERT_STRING_EQUAL(fr[1].thread_name, "");
        CU_ASSERT_STRING_EQUAL(fr[0].text, ""); /* no STACK TRACE for thread 7 */
        /* the same once the dominator pass has dropped the edges (the
         * String's value array is then found from its field: hprof report) */
        hg_dom *d = tb_dom(g);
        uint32_t deg;
        CU_ASSERT_PTR_NULL(hg_out(g, hg_find(g, 0xB00), &deg));
        hg_frame_req fr2[1] = {{.thread = 7, .depth = 0, .has_depth = 1}};
        CU_ASSERT_EQUAL(hg_paths_name(src, g, NULL, 0, fr2, 1, err, sizeof err), 0);
        CU_ASSERT_STRING_EQUAL(fr2[0].thread_name, variant ? "wk\xE2\x82\xAC" : "worker-\xC3\xA9");
        hg_dom_free(d);
        hr_source_close(src);
        hg_graph_free(g);
        free(t.data);
    }
}

static void test_names(void)
{
    char b[64];
    hg_java_name("[I", 2, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "int[]");
    hg_java_name("La/B$C;", 7, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "a.B$C");
    hg_java_name("[[Ljava/lang/String;", 20, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "java.lang.String[][]");
    hg_java_name("java.lang.String", 16, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "java.lang.String");
    hg_java_name("int[]", 5, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "int[]");
    /* a hidden class: the dump's spelling, Class.getName()'s, one name */
    const char *hid[3] = {"a/B$$Lambda$1+0x0000000800c01000", "a.B$$Lambda$1/0x0000000800c01000",
                          "a/B$$Lambda$1/0x0000000800c01000"};
    for (int k = 0; k < 3; k++) {
        hg_java_name(hid[k], strlen(hid[k]), b, sizeof b);
        CU_ASSERT_STRING_EQUAL(b, "a.B$$Lambda$1+0x0000000800c01000");
    }
    hg_java_name("[La/B$$Lambda+0x1f;", 19, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "a.B$$Lambda+0x1f[]");
    hg_java_name("a/0xy/C", 7, b, sizeof b); /* no hex after 0x: a package */
    CU_ASSERT_STRING_EQUAL(b, "a.0xy.C");
}

/* CPU seconds since `t0`. */
static double th_cpu(clock_t t0)
{
    return (double)(clock() - t0) / CLOCKS_PER_SEC;
}

/* `path --top N` names a link per step of every target's path: links that
 * leave one 100 k-element array, a loader's 40 k classes, 60 k stack roots
 * of 60 k threads. Each once scanned the array, the classes or the roots
 * per link (100 k x 50 k, 40 k x 40 k, 60 k x 60 k: seconds to minutes);
 * now a map per kind, well under a CPU second each. */
static void test_many_links(void)
{
    const uint32_t n = 100000, nk = 40000, nt = 60000;
    const hprof_id L = 0x7000, arr = 0x8000;
    tb t;
    tb_begin(&t, 8);
    hprof_id *el = malloc(n * sizeof *el);
    CU_ASSERT_PTR_NOT_NULL_FATAL(el);
    int32_t two[2] = {1, 2};
    for (uint32_t i = 0; i < n; i++) {
        el[i] = 0x10000000 + 32 * (hprof_id)i;
        if (i < n - 1) /* the last element repeats element 5 */
            hw_prim_array_dump(t.w, el[i], 0, HPROF_TYPE_INT, 2, two);
    }
    el[n - 1] = el[5];
    hw_obj_array_dump(t.w, arr, 0, C_OARR, n, el);
    tb_root(&t, arr);
    tb_node(&t, L, 0, 0);
    tb_root(&t, L);
    for (uint32_t k = 0; k < nk; k++)
        tb_class(&t, 0x40000000 + 16 * (hprof_id)k, 0, L, 0, NULL);
    for (uint32_t k = 0; k < nt; k++) { /* thread k + 1's object */
        tb_node(&t, 0x50000000 + 32 * (hprof_id)k, 0, 0);
        hw_root(t.w, HPROF_GC_ROOT_THREAD_OBJ, 0x50000000 + 32 * (hprof_id)k, k + 1, 0, 0);
    }
    tb_end(&t);
    hg_graph *g = tb_load(&t, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    hg_link *l = calloc(n + 1, sizeof *l);
    hg_frame_req *fr = calloc(nt, sizeof *fr);
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_PTR_NOT_NULL_FATAL(fr);
    uint32_t a = hg_find(g, arr), lo = hg_find(g, L);
    for (uint32_t i = 0; i < n; i++)
        l[i] = (hg_link){.from = a, .to = hg_find(g, el[i])};
    l[n] = (hg_link){.from = a, .to = hg_find(g, el[77])}; /* a second link of one step */
    char err[128];
    hr_source *src = hr_source_memory(t.data, t.len);
    clock_t t0 = clock();
    CU_ASSERT_EQUAL(hg_paths_name(src, g, l, n + 1, NULL, 0, err, sizeof err), 0);
    double s1 = th_cpu(t0);
    CU_ASSERT(s1 < 1.0);
    CU_ASSERT_STRING_EQUAL(l[0].field, "[0]");
    CU_ASSERT_STRING_EQUAL(l[77].field, "[77]");
    CU_ASSERT_STRING_EQUAL(l[n - 2].field, "[99998]");
    CU_ASSERT_STRING_EQUAL(l[n - 1].field, "[5]"); /* the first index of that element */
    CU_ASSERT_STRING_EQUAL(l[n].field, "[77]");
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n - 1; i++) {
        char want[16];
        snprintf(want, sizeof want, "[%u]", i);
        bad += strcmp(l[i].field, want) != 0;
    }
    CU_ASSERT_EQUAL(bad, 0);
    for (uint32_t k = 0; k < nk; k++)
        l[k] = (hg_link){.from = lo, .to = hg_find(g, 0x40000000 + 16 * (hprof_id)k)};
    l[nk] = (hg_link){.from = lo, .to = a}; /* no reference of L's */
    t0 = clock();
    CU_ASSERT_EQUAL(hg_paths_name(src, g, l, nk + 1, NULL, 0, err, sizeof err), 0);
    double s2 = th_cpu(t0);
    CU_ASSERT(s2 < 1.0);
    bad = 0;
    for (uint32_t k = 0; k < nk; k++)
        bad += strcmp(l[k].field, "<classes>") != 0;
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_STRING_EQUAL(l[nk].field, "?");
    for (uint32_t k = 0; k < nt; k++)
        fr[k].thread = nt - k % 7; /* the last threads' roots */
    t0 = clock();
    CU_ASSERT_EQUAL(hg_paths_name(src, g, NULL, 0, fr, nt, err, sizeof err), 0);
    double s3 = th_cpu(t0);
    CU_ASSERT(s3 < 1.0);
    if (s1 >= 1.0 || s2 >= 1.0 || s3 >= 1.0)
        fprintf(stderr, "test_many_links: %.2f %.2f %.2f CPU seconds\n", s1, s2, s3);
    hr_source_close(src);
    free(l);
    free(fr);
    hg_graph_free(g);
    free(el);
    free(t.data);
}

/* Hostile super chains: 300 classes each its own super, then a chain of
 * 400 classes (each extends the one before) of 50 fields each. Every class
 * held its whole layout, walked up to as many classes as the dump has:
 * 300 x 300 x 50 entries for the first, 400 x 400 / 2 x 50 (4 M, 64 MB)
 * for the second, and 2000 such classes (1 MB of file) took 3 GB. A chain
 * ends where it comes back; inherited fields are bounded (64 x the
 * declared ones + 1 M), and either is reported as the dump's problem. */
static void test_super_chains(void)
{
    const uint32_t nself = 300, nchain = 400, nf = 50;
    hw_field f[50];
    for (uint32_t i = 0; i < nf; i++)
        f[i] = (hw_field){2, HPROF_TYPE_INT};
    for (int pass = 0; pass < 2; pass++) {
        tb t;
        tb_begin(&t, 8);
        uint32_t n = pass ? nchain : nself;
        for (uint32_t k = 0; k < n; k++) {
            hprof_id id = 0x40000000 + 16 * (hprof_id)k;
            tb_class(&t, id, pass ? (k ? id - 16 : 0) : id, 0, (uint16_t)nf, f);
        }
        tb_node(&t, 0x9000, 0, 0);
        tb_root(&t, 0x9000);
        tb_end(&t);
        hg_load_stats st;
        hg_graph *g = tb_load(&t, 0, &st);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        CU_ASSERT_EQUAL(st.malformed, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(st.problem, pass ? "too long" : "comes back"));
        uint64_t total = 0, own = 0;
        for (uint32_t c = 0; c < hg_nclasses(g); c++) {
            uint32_t m;
            hg_class_fields(g, c, &m);
            total += m;
            if (hg_class_id(g, c) == 0x40000000 + 16 * (hprof_id)(n - 1))
                own = m;
        }
        if (!pass) {
            CU_ASSERT_EQUAL(own, nf); /* its own fields, once */
            /* Node 2, Reference 1, WeakReference 1 */
            CU_ASSERT_EQUAL(total, 4 + (uint64_t)nself * nf);
        } else { /* the bound, and each class's own fields */
            uint64_t declared = 3 + (uint64_t)nchain * nf;
            CU_ASSERT(total <= 65 * declared + (1u << 20));
            CU_ASSERT(total > 64 * declared);
            CU_ASSERT_EQUAL(own, nf);
        }
        uint32_t m;
        const hg_field *nodef = hg_class_fields(g, hg_class_of(g, hg_find(g, 0x9000)), &m);
        CU_ASSERT_EQUAL(m, 2);
        CU_ASSERT_EQUAL(nodef[1].offset, 8);
        hg_graph_free(g);
        free(t.data);
    }
}

/* retained --top N, N up to 1 M: the 150 001 reachable objects of a root
 * array of 150 k int[] of 1000 sizes, best first (larger retained, then
 * lower id). The heap's order was insertion-sorted: 150 k^2 / 4 steps,
 * tens of CPU seconds; a heapsort takes well under one. */
static void test_top_many(void)
{
    const uint32_t n = 150000;
    tb t;
    tb_begin(&t, 8);
    hprof_id *el = malloc(n * sizeof *el);
    int32_t *v = calloc(1000, sizeof *v);
    CU_ASSERT_PTR_NOT_NULL_FATAL(el);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    for (uint32_t i = 0; i < n; i++) {
        el[i] = 0x10000000 + 8192 * (hprof_id)i;
        hw_prim_array_dump(t.w, el[i], 0, HPROF_TYPE_INT, (i * 7919u) % 1000, v);
    }
    hw_obj_array_dump(t.w, 0x8000, 0, C_OARR, n, el);
    tb_root(&t, 0x8000);
    tb_end(&t);
    hg_graph *g = tb_load(&t, 0, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    hg_dom *d = tb_dom(g);
    uint32_t *top = malloc((n + 10) * sizeof *top);
    CU_ASSERT_PTR_NOT_NULL_FATAL(top);
    clock_t t0 = clock();
    uint32_t m = hg_dom_top(d, n + 10, top);
    double s = th_cpu(t0);
    CU_ASSERT(s < 1.0);
    CU_ASSERT_EQUAL(m, n + 1 + 5); /* the array, its elements, the 5 sticky classes */
    CU_ASSERT_EQUAL(hg_id(g, top[0]), 0x8000);
    uint32_t bad = 0;
    for (uint32_t i = 1; i < m; i++) {
        uint64_t a = hg_dom_retained(d, top[i - 1]), b = hg_dom_retained(d, top[i]);
        bad += a < b || (a == b && hg_id(g, top[i - 1]) >= hg_id(g, top[i]));
    }
    CU_ASSERT_EQUAL(bad, 0);
    /* the biggest int[]: 999 elements, 16 + 4 * 999 rounded to 8 = 4016 bytes, lowest id first */
    CU_ASSERT_EQUAL(hg_dom_retained(d, top[1]), 4016);
    CU_ASSERT_EQUAL(hg_id(g, top[1]), el[321]); /* 7919 * 321 % 1000 = 999 */
    /* a top of 3 is the head of the whole order */
    uint32_t three[3];
    CU_ASSERT_EQUAL(hg_dom_top(d, 3, three), 3);
    CU_ASSERT_EQUAL(memcmp(three, top, sizeof three), 0);
    free(top);
    free(v);
    free(el);
    hg_dom_free(d);
    hg_graph_free(g);
    free(t.data);
}

/* Records that repeat an id (HotSpot may dump a class twice): the first
 * kept, its edges only, and each repeat counted once: Node 0x1000 twice
 * (the second would hold 0x1020), class C_K twice, an array twice. */
static void test_duplicates(void)
{
    tb t;
    tb_begin(&t, 8);
    tb_node(&t, 0x1000, 0x1010, 0);
    tb_node(&t, 0x1010, 0, 0);
    tb_node(&t, 0x1020, 0, 0);
    tb_node(&t, 0x1000, 0x1020, 0x1020);
    tb_class(&t, C_K, 0, 0, 0, NULL);
    hw_field kf[1] = {{2, HPROF_TYPE_OBJECT}};
    tb_class(&t, C_K, 0, 0, 1, kf);
    hprof_id el[2] = {0x1010, 0x1020};
    hw_obj_array_dump(t.w, 0x2000, 0, C_OARR, 1, el);
    hw_obj_array_dump(t.w, 0x2000, 0, C_OARR, 2, el);
    tb_root(&t, 0x1000);
    tb_root(&t, 0x2000);
    tb_end(&t);
    hg_load_stats st;
    hg_graph *g = tb_load(&t, 0, &st);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_EQUAL(st.duplicates, 3);
    CU_ASSERT_EQUAL(hg_count(g), 5 + 1 + 3 + 1); /* 5 classes of tb_begin, C_K, 3 Nodes, the array */
    hg_dom *d = tb_dom(g);
    CU_ASSERT_EQUAL(RET(d, g, 0x1000), 1); /* 0x1010 is also the array's */
    CU_ASSERT_EQUAL(RET(d, g, 0x2000), 1);
    CU_ASSERT_FALSE(hg_dom_is_reachable(d, hg_find(g, 0x1020)));
    uint32_t nf;
    hg_class_fields(g, hg_class_of(g, hg_find(g, 0x1000)), &nf);
    CU_ASSERT_EQUAL(nf, 2);
    hg_dom_free(d);
    hg_graph_free(g);
    free(t.data);
}

static int th_suites(void)
{
    CU_pSuite s = CU_add_suite("heapgraph", NULL, NULL);
    if (!s)
        return -1;
    if (!CU_add_test(s, "diamond: the shared object is nobody's", test_diamond) ||
        !CU_add_test(s, "chain of 1 M objects", test_chain) ||
        !CU_add_test(s, "cycle, and an unreachable object left out", test_cycle) ||
        !CU_add_test(s, "2.2 M-element array (in parts) and its path", test_big_array) ||
        !CU_add_test(s, "dangling references and roots", test_dangling) ||
        !CU_add_test(s, "weak referents: dominators yes, paths on request", test_weak) ||
        !CU_add_test(s, "loader holds its classes; field names, frames", test_loader_and_names) ||
        !CU_add_test(s, "class references as MAT's defaults", test_class_refs_as_mat) ||
        !CU_add_test(s, "every cut of a dump; the memory limit", test_cut_and_limit) ||
        !CU_add_test(s, "random graphs against the definition", test_random_graphs) ||
        !CU_add_test(s, "thread names of stack roots", test_thread_names) ||
        !CU_add_test(s, "class names in both spellings", test_names) ||
        !CU_add_test(s, "path names of 100 k links in linear time", test_many_links) ||
        !CU_add_test(s, "super chains: cycles end, depth bounded", test_super_chains) ||
        !CU_add_test(s, "the memory limit in the first pass", test_limit_in_pass1) ||
        !CU_add_test(s, "top 150 k objects in n log n", test_top_many) ||
        !CU_add_test(s, "repeated ids: the first kept, counted once", test_duplicates))
        return -1;
    return 0;
}

int main(void) { return tu_main(th_suites); }
