/*
 * VvmRetained: retained sizes of a heap dump by hprof's definition (Eclipse
 * MAT's), computed in Java from Debian's VisualVM heap library's reading of
 * the file and reconciled exactly with VisualVM's own retained sizes, in
 * `hprof retained --json`'s format, so that a test can compare hprof with
 * an independent computation (tests/integration/test_retained_vvm.sh); and
 * VisualVM's own numbers alone (--no-counts), which a benchmark times
 * (bench/retained_bench.sh).
 *
 * usage: java -cp heap.jar:. VvmRetained FILE [--top N] [--class NAME]... [--no-counts]
 *        java -cp heap.jar:. VvmRetained FILE --paths NAME
 *   --top N        the N biggest objects by retained size (default 10) and the
 *                  N classes of biggest retained size
 *   --class NAME   also that class's row, and every one of its instances in
 *                  "objects" (VisualVM's names: dots, int[]); repeatable
 *   --no-counts    VisualVM's numbers only (Instance.getRetainedSize(),
 *                  JavaClass.getRetainedSizeByClass(), getInstancesCount(),
 *                  getAllInstancesSize(); every object the file holds, the
 *                  unreachable too), retained_objects -1: what the
 *                  benchmark times, and what the shallow-size check reads
 *   --paths NAME   instead: VisualVM's path from a GC root to every instance
 *                  of NAME (Instance.getNearestGCRootPointer(), followed up to
 *                  a root), in `hprof path --json`'s format:
 *                  {"paths": [{"target": {"id", "class"}, "root": {"kind"},
 *                  "steps": [{"id", "class", "field"}]}]}, steps from the root
 *                  to the target, `field` the field (or "[i]") of that step's
 *                  object that holds the next one (null on the target); a
 *                  static field's step is the class's java.lang.Class object
 * Output, on stdout (ids are numbers, the dump's object ids):
 *   {"objects": [{"id", "class", "shallow_bytes", "retained_bytes", "retained_objects",
 *                 "visualvm_retained_bytes", "visualvm_left_out"}],
 *    "classes": [{"class", "instances", "shallow_bytes", "retained_bytes",
 *                 "visualvm_retained_bytes", "visualvm_by_its_rule",
 *                 "visualvm_instances", "visualvm_shallow_bytes"}]}
 * On stderr: the times, and the reconciliation's outcome. Exit status 1 when
 * a named class is missing or the reconciliation fails.
 *
 * The definition (Model below; docs/heap-analysis.md states it for users):
 * MAT's references by default (fields, referents included, array elements,
 * an object's class, a class's super, loader and statics) plus hprof's
 * "<classes>" (a loader holds its classes); all GC roots under one virtual
 * root; what no root reaches left out (MAT's default); a class object has a
 * shallow size of 0, is labelled "class X" and counts as an instance of
 * java.lang.Class; retained_objects counts class objects too. Shallow sizes
 * are VisualVM's Instance.getSize() (its ObjectSizeSettings: HotSpot's
 * layout, compressed references and class pointers when the dump's heap
 * allows them, 8-byte alignment), which equal `hprof histo`'s for every
 * class of HotSpot dumps of JDK 17 and 25 (test_retained_vvm.sh asserts it).
 *
 * VisualVM defines retained sizes differently, and the reconciliation
 * (leftOut()) accounts for it exactly: its paths to GC roots skip the
 * referents of weak, soft, final and phantom references; what they do not
 * reach gets a retained size of 0, and it and whatever such objects refer
 * to hang directly under VisualVM's root, out of every retained size above
 * them. For every instance and array of the heap (not only those listed),
 * VisualVM's getRetainedSize() == retained_bytes - visualvm_left_out, or
 * the run fails. Class objects are not reconciled: VisualVM sizes them as
 * java.lang.Class instances and sums their retained sizes apart from its
 * dominator tree. Every class of the heap is: VisualVM's
 * getRetainedSizeByClass() must be what its rule (visualvmByClass()) makes
 * of those reconciled numbers ("visualvm_by_its_rule"), or the run fails.
 *
 * VisualVM indexes the file into FILE.hwcache/ and reuses it: the cache is
 * deleted first (and after), so every run really computes.
 */
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.graalvm.visualvm.lib.jfluid.heap.ArrayItemValue;
import org.graalvm.visualvm.lib.jfluid.heap.FieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.GCRoot;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectFieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.PrimitiveArrayInstance;
import org.graalvm.visualvm.lib.jfluid.heap.Value;

public class VvmRetained {
    static void deleteCache(File file) throws IOException {
        Path cache = Path.of(file.getPath() + ".hwcache");
        if (Files.exists(cache)) {
            try (Stream<Path> walk = Files.walk(cache)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    static int usage(String why) {
        System.err.println("VvmRetained: " + why);
        System.err.println("usage: java VvmRetained FILE [--top N] [--class NAME]... [--no-counts]");
        System.err.println("       java VvmRetained FILE --paths NAME");
        return 2;
    }

    /* The heap as hprof (and Eclipse MAT) define it, built from VisualVM's
     * parse of the file and computed here, independently of both tools'
     * dominator code (Cooper, Harvey, Kennedy: "A Simple, Fast Dominance
     * Algorithm", iterated to its fixed point over a reverse postorder):
     *  - nodes: every instance and array, and every class object (shallow
     *    size 0, counted as an instance of java.lang.Class, labelled
     *    "class X");
     *  - references, MAT's defaults: instance fields (Reference.referent
     *    included), array elements, an object's class, a class's super,
     *    loader and statics; plus hprof's one addition, a loader's classes;
     *  - one virtual root over VisualVM's GC roots; objects it does not
     *    reach are left out (MAT's default).
     * VisualVM's own getRetainedSize() differs by definition (its graph has
     * no class references, and it puts what its paths to GC roots do not
     * reach, as they skip referents, and whatever such objects refer to,
     * directly under its root with a retained size of 0); `reconcile`
     * accounts for that exactly (below). */
    static final class Model {
        final Heap heap;
        int n = 1; /* node 0: the virtual root */
        long[] ids = new long[1024];
        long[] size = new long[1024];
        JavaClass[] cls = new JavaClass[1024]; /* null: a class object */
        final Map<Long, Integer> index = new HashMap<>();
        int[] estart, edges;
        int[] idom, rpoNum, order; /* order: reachable nodes in reverse postorder */
        long[] retained, count;
        final JavaClass jlClass;

        Model(Heap heap) {
            this.heap = heap;
            jlClass = heap.getJavaClassByName("java.lang.Class");
            for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext();) {
                Instance i = it.next();
                add(i.getInstanceId(), i.getSize(), i.getJavaClass());
            }
            for (JavaClass c : heap.getAllClasses()) {
                add(c.getJavaClassId(), 0, null);
            }
            build();
            dominators();
        }

        void add(long id, long sz, JavaClass c) {
            if (index.containsKey(id)) {
                return;
            }
            if (n == ids.length) {
                ids = java.util.Arrays.copyOf(ids, n * 2);
                size = java.util.Arrays.copyOf(size, n * 2);
                cls = java.util.Arrays.copyOf(cls, n * 2);
            }
            ids[n] = id;
            size[n] = sz;
            cls[n] = c;
            index.put(id, n++);
        }

        int node(Instance i) {
            if (i == null) {
                return -1;
            }
            Integer k = index.get(i.getInstanceId());
            return k == null ? -1 : k;
        }

        int node(long id) {
            Integer k = index.get(id);
            return k == null ? -1 : k;
        }

        void build() {
            List<int[]> out = new ArrayList<>(n);
            for (int k = 0; k < n; k++) {
                out.add(null);
            }
            Map<Integer, List<Integer>> lists = new HashMap<>();
            java.util.function.BiConsumer<Integer, Integer> edge = (a, b) -> {
                if (a >= 0 && b > 0) {
                    lists.computeIfAbsent(a, x -> new ArrayList<>()).add(b);
                }
            };
            for (GCRoot r : heap.getGCRoots()) {
                edge.accept(0, node(r.getInstance()));
            }
            for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext();) {
                Instance i = it.next();
                int a = node(i);
                edge.accept(a, node(i.getJavaClass().getJavaClassId()));
                if (i instanceof ObjectArrayInstance) {
                    for (Instance e : ((ObjectArrayInstance) i).getValues()) {
                        edge.accept(a, node(e));
                    }
                } else if (!(i instanceof PrimitiveArrayInstance)) {
                    for (FieldValue v : i.getFieldValues()) {
                        if (v instanceof ObjectFieldValue) {
                            edge.accept(a, node(((ObjectFieldValue) v).getInstance()));
                        }
                    }
                }
            }
            for (JavaClass c : heap.getAllClasses()) {
                int a = node(c.getJavaClassId());
                if (c.getSuperClass() != null) {
                    edge.accept(a, node(c.getSuperClass().getJavaClassId()));
                }
                Instance loader = c.getClassLoader();
                edge.accept(a, node(loader));
                edge.accept(node(loader), a); /* hprof's "<classes>" */
                for (FieldValue v : c.getStaticFieldValues()) {
                    if (v instanceof ObjectFieldValue) {
                        edge.accept(a, node(((ObjectFieldValue) v).getInstance()));
                    }
                }
            }
            estart = new int[n + 1];
            int total = 0;
            for (int k = 0; k < n; k++) {
                estart[k] = total;
                List<Integer> l = lists.get(k);
                total += l == null ? 0 : l.size();
            }
            estart[n] = total;
            edges = new int[total];
            for (int k = 0; k < n; k++) {
                List<Integer> l = lists.get(k);
                for (int j = 0; l != null && j < l.size(); j++) {
                    edges[estart[k] + j] = l.get(j);
                }
            }
        }

        void dominators() {
            /* reverse postorder by an iterative depth-first search */
            rpoNum = new int[n];
            java.util.Arrays.fill(rpoNum, -1);
            int[] post = new int[n];
            int np = 0;
            int[] stack = new int[n + 1], next = new int[n + 1];
            boolean[] seen = new boolean[n];
            int sp = 0;
            stack[sp] = 0;
            next[sp++] = estart[0];
            seen[0] = true;
            while (sp > 0) {
                int v = stack[sp - 1];
                if (next[sp - 1] < estart[v + 1]) {
                    int w = edges[next[sp - 1]++];
                    if (!seen[w]) {
                        seen[w] = true;
                        stack[sp] = w;
                        next[sp++] = estart[w];
                    }
                } else {
                    post[np++] = v;
                    sp--;
                }
            }
            order = new int[np];
            for (int k = 0; k < np; k++) {
                order[k] = post[np - 1 - k];
                rpoNum[order[k]] = k;
            }
            /* predecessors among the reached */
            int[] pcount = new int[n + 1];
            for (int v = 0; v < n; v++) {
                if (rpoNum[v] >= 0) {
                    for (int e = estart[v]; e < estart[v + 1]; e++) {
                        pcount[edges[e]]++;
                    }
                }
            }
            int[] pstart = new int[n + 1];
            for (int v = 0; v < n; v++) {
                pstart[v + 1] = pstart[v] + pcount[v];
            }
            int[] preds = new int[pstart[n]], fill = pstart.clone();
            for (int v = 0; v < n; v++) {
                if (rpoNum[v] >= 0) {
                    for (int e = estart[v]; e < estart[v + 1]; e++) {
                        preds[fill[edges[e]]++] = v;
                    }
                }
            }
            idom = new int[n];
            java.util.Arrays.fill(idom, -1);
            idom[0] = 0;
            for (boolean changed = true; changed;) {
                changed = false;
                for (int k = 1; k < order.length; k++) {
                    int b = order[k], d = -1;
                    for (int p = pstart[b]; p < pstart[b + 1]; p++) {
                        int q = preds[p];
                        if (idom[q] < 0) {
                            continue;
                        }
                        if (d < 0) {
                            d = q;
                        } else {
                            int x = q, y = d;
                            while (x != y) {
                                while (rpoNum[x] > rpoNum[y]) {
                                    x = idom[x];
                                }
                                while (rpoNum[y] > rpoNum[x]) {
                                    y = idom[y];
                                }
                            }
                            d = x;
                        }
                    }
                    if (d != idom[b]) {
                        idom[b] = d;
                        changed = true;
                    }
                }
            }
            retained = new long[n];
            count = new long[n];
            for (int k = order.length - 1; k >= 1; k--) {
                int v = order[k];
                retained[v] += size[v];
                count[v] += 1;
                retained[idom[v]] += retained[v];
                count[idom[v]] += count[v];
            }
        }

        boolean reached(int v) {
            return v > 0 && rpoNum[v] >= 0;
        }

        String label(int v) {
            if (cls[v] != null) {
                return cls[v].getName();
            }
            return "class " + heap.getJavaClassByID(ids[v]).getName();
        }

        JavaClass classOf(int v) {
            return cls[v] != null ? cls[v] : jlClass;
        }

        /* per class: reached instances, shallow bytes, and the retained
         * bytes of the instances no other instance of the class dominates
         * (a walk of the dominator tree counting the class's open
         * ancestors) */
        Map<JavaClass, long[]> classRows() {
            int[] cstart = new int[n + 1];
            for (int k = 1; k < order.length; k++) {
                cstart[idom[order[k]] + 1]++;
            }
            for (int v = 0; v < n; v++) {
                cstart[v + 1] += cstart[v];
            }
            int[] kids = new int[Math.max(cstart[n], 1)], fill = cstart.clone();
            for (int k = 1; k < order.length; k++) {
                kids[fill[idom[order[k]]]++] = order[k];
            }
            Map<JavaClass, long[]> rows = new HashMap<>();
            Map<JavaClass, Integer> open = new HashMap<>();
            int[] stack = new int[n + 1], next = new int[n + 1];
            int sp = 0;
            stack[sp] = 0;
            next[sp++] = cstart[0];
            while (sp > 0) {
                int v = stack[sp - 1];
                if (next[sp - 1] < cstart[v + 1]) {
                    int w = kids[next[sp - 1]++];
                    JavaClass c = classOf(w);
                    long[] r = rows.computeIfAbsent(c, x -> new long[3]);
                    r[0]++;
                    r[1] += size[w];
                    int o = open.getOrDefault(c, 0);
                    if (o == 0) {
                        r[2] += retained[w];
                    }
                    open.put(c, o + 1);
                    stack[sp] = w;
                    next[sp++] = cstart[w];
                } else {
                    if (v != 0) {
                        JavaClass c = classOf(v);
                        open.put(c, open.get(c) - 1);
                    }
                    sp--;
                }
            }
            return rows;
        }
    }

    /* The default output: hprof's definition computed by Model, every row
     * with VisualVM's own numbers beside it ("visualvm_...": its retained
     * size, its instance count and sizes, which count unreachable objects)
     * and, per object, the bytes of the object's retained set that
     * VisualVM's definition leaves out ("visualvm_left_out", see
     * leftOut()): retained_bytes - visualvm_left_out must be VisualVM's
     * retained size, exactly. */
    static boolean emitModel(Heap heap, int top, Iterable<Instance> vvmObjects, List<JavaClass> named) {
        long t0 = System.nanoTime();
        Model m = new Model(heap);
        Reconciled rec = leftOut(m, heap);
        long[] left = rec.left;
        /* the identity on every instance and array of the heap, not only
         * those listed (class objects aside: VisualVM sizes a class object
         * as a java.lang.Class instance and sums class objects' retained
         * sizes apart from its dominator tree, a convention of its own) */
        long off = 0, checked = 0, nonzero = 0;
        for (int v = 1; v < m.n; v++) {
            if (m.reached(v) && m.cls[v] != null) {
                checked++;
                nonzero += left[v] != 0 ? 1 : 0;
            }
            Instance vi = m.reached(v) && m.cls[v] != null ? heap.getInstanceByID(m.ids[v]) : null;
            if (vi != null && vi.getRetainedSize() != m.retained[v] - left[v]) {
                if (off++ < 10 || System.getenv("VVM_DEBUG") != null) {
                    System.err.printf("VvmRetained: %s 0x%x: VisualVM's retained size %d, ours %d - %d left out%n",
                            m.label(v), m.ids[v], vi.getRetainedSize(), m.retained[v], left[v]);
                }
            }
        }
        System.err.printf("VvmRetained: %d instances and arrays reconciled (%d of them with bytes VisualVM "
                + "leaves out): %d whose VisualVM retained size is not ours minus what it leaves out%n",
                checked, nonzero, off);
        boolean identical = off == 0;
        List<Integer> nodes = new ArrayList<>();
        for (int v = 1; v < m.n; v++) {
            if (m.reached(v)) {
                nodes.add(v);
            }
        }
        nodes.sort((a, b) -> m.retained[a] != m.retained[b] ? Long.compare(m.retained[b], m.retained[a])
                : Long.compareUnsigned(m.ids[a], m.ids[b]));
        Map<Integer, Boolean> listed = new LinkedHashMap<>();
        for (int k = 0; k < top && k < nodes.size(); k++) {
            listed.put(nodes.get(k), true);
        }
        for (Instance i : vvmObjects) { /* VisualVM's biggest, and the named classes' */
            int v = m.node(i);
            if (v > 0 && m.reached(v)) {
                listed.putIfAbsent(v, true);
            }
        }
        StringBuilder out = new StringBuilder("{\"objects\": [");
        String sep = "\n";
        for (int v : listed.keySet()) {
            Instance vi = heap.getInstanceByID(m.ids[v]);
            out.append(sep).append("  {\"id\": ").append(m.ids[v])
                    .append(", \"class\": ").append(json(m.label(v)))
                    .append(", \"shallow_bytes\": ").append(m.size[v])
                    .append(", \"retained_bytes\": ").append(m.retained[v])
                    .append(", \"retained_objects\": ").append(m.count[v])
                    .append(", \"visualvm_retained_bytes\": ").append(vi == null ? -1 : vi.getRetainedSize())
                    .append(", \"visualvm_left_out\": ").append(left[v])
                    .append('}');
            sep = ",\n";
        }
        Map<JavaClass, long[]> rows = m.classRows();
        Map<JavaClass, Long> vclass = visualvmByClass(m, rec);
        long coff = 0;
        for (JavaClass c : heap.getAllClasses()) {
            long want = c.getRetainedSizeByClass(), got = vclass.getOrDefault(c, 0L);
            if (want != got && (coff++ < 10 || System.getenv("VVM_DEBUG") != null)) {
                System.err.printf("VvmRetained: class %s: VisualVM's retained size %d, ours by its rule %d%n",
                        c.getName(), want, got);
            }
        }
        System.err.printf("VvmRetained: %d classes reconciled: %d whose VisualVM retained size is not "
                + "ours by its rule%n", heap.getAllClasses().size(), coff);
        identical &= coff == 0;
        List<JavaClass> all = new ArrayList<>(rows.keySet());
        all.sort((a, b) -> rows.get(a)[2] != rows.get(b)[2] ? Long.compare(rows.get(b)[2], rows.get(a)[2])
                : a.getName().compareTo(b.getName()));
        Map<JavaClass, Boolean> classes = new LinkedHashMap<>();
        for (int k = 0; k < top && k < all.size(); k++) {
            classes.put(all.get(k), true);
        }
        for (JavaClass c : named) {
            classes.putIfAbsent(c, true);
        }
        out.append("],\n\"classes\": [");
        sep = "\n";
        for (JavaClass c : classes.keySet()) {
            long[] r = rows.getOrDefault(c, new long[3]);
            out.append(sep).append("  {\"class\": ").append(json(c.getName()))
                    .append(", \"instances\": ").append(r[0])
                    .append(", \"shallow_bytes\": ").append(r[1])
                    .append(", \"retained_bytes\": ").append(r[2])
                    .append(", \"visualvm_retained_bytes\": ").append(c.getRetainedSizeByClass())
                    .append(", \"visualvm_by_its_rule\": ").append(vclass.getOrDefault(c, 0L))
                    .append(", \"visualvm_instances\": ").append(c.getInstancesCount())
                    .append(", \"visualvm_shallow_bytes\": ").append(c.getAllInstancesSize())
                    .append('}');
            sep = ",\n";
        }
        out.append("]}");
        System.out.println(out);
        System.err.printf("VvmRetained: hprof's definition computed in %.2f s%n", (System.nanoTime() - t0) / 1e9);
        return identical;
    }

    /* Per node of the model: the bytes of its retained set (by the model)
     * that VisualVM's definition leaves out. VisualVM's paths to GC roots
     * (Instance.getNearestGCRootPointer()) do not follow the referent of a
     * weak, soft, final or phantom reference; what they do not reach, and
     * what such an object refers to (VisualVM's references: fields, array
     * elements, statics), it hangs directly under its root with a retained
     * size of 0: the set D. The model (hprof, MAT) follows referents and
     * leaves the unreached out, so an object of D sits in the model's tree
     * with its subtree, and VisualVM leaves exactly that subtree out of
     * every retained size above it: left[v] is the bytes of the subtrees
     * of D members below v in the model's tree, or all of v's retained
     * bytes when VisualVM's paths do not reach v (it reports 0 for those;
     * an object they reach keeps its own retained size, D or not). The
     * caller also checks the identity on every object of the heap. */
    static final class Reconciled {
        long[] left;      /* per node: bytes VisualVM leaves out of its retained size */
        boolean[] under;  /* per node: VisualVM hangs it directly under its root */
    }

    static Reconciled leftOut(Model m, Heap heap) {
        boolean[] strong = new boolean[m.n];
        for (int v = 1; v < m.n; v++) {
            Instance i = heap.getInstanceByID(m.ids[v]);
            strong[v] = i != null && (i.isGCRoot() || i.getNearestGCRootPointer() != null);
        }
        boolean[] inD = new boolean[m.n];
        for (int v = 1; v < m.n; v++) {
            inD[v] = m.reached(v) && !strong[v];
        }
        for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext();) {
            Instance i = it.next();
            int a = m.node(i);
            if (a <= 0 || strong[a]) {
                continue;
            }
            /* a referrer VisualVM's paths do not reach */
            if (i instanceof ObjectArrayInstance) {
                for (Instance e : ((ObjectArrayInstance) i).getValues()) {
                    markD(m, inD, m.node(e));
                }
            } else if (!(i instanceof PrimitiveArrayInstance)) {
                for (FieldValue fv : i.getFieldValues()) {
                    if (fv instanceof ObjectFieldValue) {
                        markD(m, inD, m.node(((ObjectFieldValue) fv).getInstance()));
                    }
                }
            }
        }
        long[] left = new long[m.n];
        for (int k = m.order.length - 1; k >= 1; k--) {
            int v = m.order[k];
            if (!strong[v]) {
                left[v] = m.retained[v]; /* VisualVM: a retained size of 0 */
            }
            left[m.idom[v]] += inD[v] ? m.retained[v] : left[v];
        }
        Reconciled r = new Reconciled();
        r.left = left;
        r.under = inD;
        return r;
    }

    static void markD(Model m, boolean[] inD, int v) {
        if (v > 0 && m.reached(v) && !m.heap.getInstanceByID(m.ids[v]).isGCRoot()) {
            inD[v] = true;
        }
    }

    /* VisualVM's retained size of each class (JavaClass.getRetainedSizeByClass())
     * from our numbers, by its rule (HprofHeap.computeRetainedSizeByClass()):
     * the sum of its own retained sizes (ours minus what it leaves out; 0
     * for what the model does not reach, which VisualVM's paths do not reach
     * either) of the instances and arrays of the class that have no instance
     * of the class above them in its tree (ours, with the objects it hangs
     * under its root cut off); a primitive array is never checked, nor an
     * instance of a class that "cannot contain itself" (fewer than 2
     * instances, no reference field, or String, StringBuffer, StringBuilder,
     * File). Class objects are not instances here. */
    static Map<JavaClass, Long> visualvmByClass(Model m, Reconciled rec) {
        Map<JavaClass, Boolean> canContain = new HashMap<>();
        Map<JavaClass, Long> sum = new HashMap<>();
        java.util.Set<String> cannot = java.util.Set.of("java.lang.String", "java.lang.StringBuffer",
                "java.lang.StringBuilder", "java.io.File");
        for (int v = 1; v < m.n; v++) {
            JavaClass c = m.cls[v];
            if (c == null || !m.reached(v)) {
                continue;
            }
            Instance i = m.heap.getInstanceByID(m.ids[v]);
            boolean check;
            if (i instanceof PrimitiveArrayInstance) {
                check = false;
            } else if (i instanceof ObjectArrayInstance) {
                check = true;
            } else {
                check = canContain.computeIfAbsent(c, k -> {
                    if (k.getInstancesCount() < 2 || cannot.contains(k.getName())) {
                        return false;
                    }
                    for (JavaClass x = k; x != null; x = x.getSuperClass()) {
                        for (org.graalvm.visualvm.lib.jfluid.heap.Field f : x.getFields()) {
                            if (!f.isStatic() && f.getType().getName().equals("object")) {
                                return true;
                            }
                        }
                    }
                    return false;
                });
            }
            boolean above = false;
            for (int a = v; check && !rec.under[a] && m.idom[a] != 0;) {
                a = m.idom[a];
                if (m.cls[a] == c) {
                    above = true;
                    break;
                }
            }
            if (!above) {
                sum.merge(c, m.retained[v] - rec.left[v], Long::sum);
            }
        }
        return sum;
    }

    /* How `parent` refers to `child`: a field's name, "[i]", or null. */
    static String via(Instance parent, Instance child) {
        for (Value v : child.getReferences()) {
            Instance d = v.getDefiningInstance();
            if (d == null || d.getInstanceId() != parent.getInstanceId()) {
                continue;
            }
            if (v instanceof ArrayItemValue) {
                return "[" + ((ArrayItemValue) v).getIndex() + "]";
            }
            if (v instanceof FieldValue) {
                return ((FieldValue) v).getField().getName();
            }
        }
        return null;
    }

    static int paths(Heap heap, String path, String name) {
        JavaClass c = heap.getJavaClassByName(name);
        if (c == null) {
            System.err.println("VvmRetained: no class " + name + " in " + path);
            return 1;
        }
        StringBuilder out = new StringBuilder("{\"paths\": [");
        String sep = "\n";
        for (Instance target : c.getInstances()) {
            List<Instance> chain = new ArrayList<>();
            for (Instance i = target; i != null && chain.size() < 100000; i = i.getNearestGCRootPointer()) {
                chain.add(0, i);
                if (i.isGCRoot()) {
                    break;
                }
            }
            Instance root = chain.get(0);
            GCRoot r = root.isGCRoot() ? heap.getGCRoots(root).iterator().next() : null;
            out.append(sep).append("  {\"target\": {\"id\": ").append(target.getInstanceId())
                    .append(", \"class\": ").append(json(target.getJavaClass().getName()))
                    .append("}, \"root\": {\"kind\": ").append(r == null ? "null" : json(r.getKind()))
                    .append("}, \"steps\": [");
            for (int k = 0; k < chain.size(); k++) {
                Instance i = chain.get(k);
                String f = k + 1 < chain.size() ? via(i, chain.get(k + 1)) : null;
                out.append(k == 0 ? "" : ", ").append("{\"id\": ").append(i.getInstanceId())
                        .append(", \"class\": ").append(json(i.getJavaClass().getName()))
                        .append(", \"field\": ").append(f == null ? "null" : json(f)).append('}');
            }
            out.append("]}");
            sep = ",\n";
        }
        System.out.println(out.append("]}"));
        return 0;
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    static int run(String[] args) throws Exception {
        String path = null;
        int top = 10;
        boolean counts = true;
        String pathsOf = null;
        List<String> named = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--top") && i + 1 < args.length) {
                try {
                    top = Integer.parseInt(args[++i]);
                } catch (NumberFormatException e) {
                    return usage("--top needs a number, not " + args[i]);
                }
            } else if (args[i].equals("--class") && i + 1 < args.length) {
                named.add(args[++i]);
            } else if (args[i].equals("--paths") && i + 1 < args.length) {
                pathsOf = args[++i];
            } else if (args[i].equals("--no-counts")) {
                counts = false;
            } else if (args[i].startsWith("-") || path != null) {
                return usage("unexpected argument " + args[i]);
            } else {
                path = args[i];
            }
        }
        if (path == null) {
            return usage("no FILE");
        }
        File file = new File(path);
        deleteCache(file);
        long t0 = System.nanoTime();
        Heap heap = HeapFactory.createHeap(file);
        if (pathsOf != null) {
            int rc = paths(heap, path, pathsOf);
            deleteCache(file);
            return rc;
        }
        long t1 = System.nanoTime();
        List<Instance> biggest = heap.getBiggestObjectsByRetainedSize(top);
        long t2 = System.nanoTime();
        Map<Long, Instance> objects = new LinkedHashMap<>();
        for (Instance i : biggest) {
            if (i != null) { /* (the list is padded with nulls past the heap's objects) */
                objects.put(i.getInstanceId(), i);
            }
        }
        int status = 0;
        List<JavaClass> namedClasses = new ArrayList<>();
        for (String n : named) {
            JavaClass c = heap.getJavaClassByName(n);
            if (c == null) {
                System.err.println("VvmRetained: no class " + n + " in " + path);
                status = 1;
                continue;
            }
            namedClasses.add(c);
            for (Instance i : c.getInstances()) {
                objects.putIfAbsent(i.getInstanceId(), i);
            }
        }
        if (counts) {
            if (!emitModel(heap, top, objects.values(), namedClasses)) {
                status = 1;
            }
            deleteCache(file);
            return status;
        }
        /* --no-counts: VisualVM's own numbers, no retained object counts */
        long t3 = System.nanoTime();
        List<JavaClass> all = new ArrayList<>(heap.getAllClasses());
        for (JavaClass c : all) {
            c.getRetainedSizeByClass();
        }
        long t4 = System.nanoTime();
        System.err.printf("VvmRetained: index %.2f s, retained sizes (dominator tree) %.2f s, "
                + "by class %.2f s%n", (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t4 - t3) / 1e9);
        Map<String, JavaClass> classes = new LinkedHashMap<>();
        all.sort(Comparator.comparingLong(JavaClass::getRetainedSizeByClass).reversed()
                .thenComparing(JavaClass::getName));
        for (int i = 0; i < top && i < all.size(); i++) {
            classes.put(all.get(i).getName(), all.get(i));
        }
        for (JavaClass c : namedClasses) {
            classes.putIfAbsent(c.getName(), c);
        }

        StringBuilder out = new StringBuilder("{\"objects\": [");
        String sep = "\n";
        for (Instance i : objects.values()) {
            out.append(sep).append("  {\"id\": ").append(i.getInstanceId())
                    .append(", \"class\": ").append(json(i.getJavaClass().getName()))
                    .append(", \"shallow_bytes\": ").append(i.getSize())
                    .append(", \"retained_bytes\": ").append(i.getRetainedSize())
                    .append(", \"retained_objects\": -1")
                    .append('}');
            sep = ",\n";
        }
        out.append("],\n\"classes\": [");
        sep = "\n";
        for (JavaClass c : classes.values()) {
            out.append(sep).append("  {\"class\": ").append(json(c.getName()))
                    .append(", \"instances\": ").append(c.getInstancesCount())
                    .append(", \"shallow_bytes\": ").append(c.getAllInstancesSize())
                    .append(", \"retained_bytes\": ").append(c.getRetainedSizeByClass())
                    .append('}');
            sep = ",\n";
        }
        out.append("]}");
        System.out.println(out);
        deleteCache(file);
        return status;
    }
}
