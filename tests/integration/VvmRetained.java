/*
 * VvmRetained: retained sizes of a heap dump as Debian's VisualVM heap
 * library computes them, printed in `hprof retained --json`'s format, so a
 * test can compare the two (tests/integration/test_retained_vvm.sh) and a
 * benchmark can time VisualVM on the same file (bench/retained_bench.sh).
 *
 * usage: java -cp heap.jar:. VvmRetained FILE [--top N] [--class NAME]... [--no-counts]
 *        java -cp heap.jar:. VvmRetained FILE --paths NAME
 *   --top N        the N biggest objects by retained size (default 10) and the
 *                  N classes of biggest retained size
 *   --class NAME   also that class's row, and every one of its instances in
 *                  "objects" (VisualVM's names: dots, int[]); repeatable
 *   --no-counts    retained_objects left out (-1): counting walks every
 *                  object's dominator chain, which the benchmark does not time
 *   --paths NAME   instead: VisualVM's path from a GC root to every instance
 *                  of NAME (Instance.getNearestGCRootPointer(), followed up to
 *                  a root), in `hprof path --json`'s format:
 *                  {"paths": [{"target": {"id", "class"}, "root": {"kind"},
 *                  "steps": [{"id", "class", "field"}]}]}, steps from the root
 *                  to the target, `field` the field (or "[i]") of that step's
 *                  object that holds the next one (null on the target); a
 *                  static field's step is the class's java.lang.Class object
 * Output, on stdout:
 *   {"objects": [{"id", "class", "shallow_bytes", "retained_bytes", "retained_objects"}],
 *    "classes": [{"class", "instances", "shallow_bytes", "retained_bytes"}]}
 * ids are numbers (the dump's object ids). On stderr: the time the index and
 * the dominator tree took.
 *
 * What is VisualVM's and what is ours:
 *  - retained_bytes: Instance.getRetainedSize() and
 *    JavaClass.getRetainedSizeByClass() (the class's instances that no other
 *    instance of the class dominates), shallow_bytes Instance.getSize() and
 *    JavaClass.getAllInstancesSize(), instances getInstancesCount().
 *    VisualVM's shallow sizes (its ObjectSizeSettings: HotSpot's layout, with
 *    compressed references and class pointers when the dump's heap allows
 *    them, 8-byte alignment) equal `hprof histo`'s for every class of a
 *    HotSpot dump of JDK 17 and 25 (test_retained_vvm.sh asserts it), so
 *    retained bytes compare directly. One difference of model: VisualVM
 *    lists a class's java.lang.Class object among the biggest objects (it
 *    holds the statics, and retains what only they hold), with a size of its
 *    own; it counts no java.lang.Class instances in the class histogram.
 *  - retained_objects: VisualVM has no such getter; it is counted here from
 *    VisualVM's own dominator tree (HprofHeap.domTree, the immediate
 *    dominator of every object, read by reflection: a package-private API):
 *    1 + the objects whose dominator chain passes through the object.
 * VisualVM indexes the file into FILE.hwcache/ and reuses it: the cache is
 * deleted first (and after), so every run really computes.
 */
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
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

    /* VisualVM's immediate dominator of an object id (0 for none): its
     * DominatorTree.getIdomId(id, null), package-private. */
    static final class Idom {
        final Object tree;
        final Method get;

        Idom(Heap heap) throws ReflectiveOperationException {
            Field f = heap.getClass().getDeclaredField("domTree");
            f.setAccessible(true);
            tree = f.get(heap);
            if (tree == null) {
                throw new IllegalStateException("VisualVM computed no dominator tree");
            }
            Class<?> entry = Class.forName("org.graalvm.visualvm.lib.jfluid.heap.LongMap$Entry");
            get = tree.getClass().getDeclaredMethod("getIdomId", long.class, entry);
            get.setAccessible(true);
        }

        long of(long id) throws ReflectiveOperationException {
            return (Long) get.invoke(tree, id, null);
        }
    }

    /* retained objects of each target: 1 + every object whose dominator
     * chain meets it (a chain ends at 0, at an object that is its own
     * dominator, or after as many steps as there are objects: a loop). */
    static Map<Long, Long> countRetained(Heap heap, Iterable<Long> targets)
            throws ReflectiveOperationException {
        Map<Long, Long> count = new HashMap<>();
        for (Long t : targets) {
            count.put(t, 1L);
        }
        Idom idom = new Idom(heap);
        long objects = 0;
        for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext(); it.next()) {
            objects++;
        }
        for (Iterator<Instance> it = heap.getAllInstancesIterator(); it.hasNext();) {
            long id = it.next().getInstanceId();
            long cur = id;
            for (long steps = 0; steps <= objects; steps++) {
                long up = idom.of(cur);
                if (up == 0 || up == cur) {
                    break;
                }
                Long c = count.get(up);
                if (c != null) {
                    count.put(up, c + 1);
                }
                cur = up;
            }
        }
        return count;
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
        /* before the sizes by class: computing them drops the dominator tree */
        Map<Long, Long> count = counts ? countRetained(heap, objects.keySet()) : new HashMap<>();
        long t3 = System.nanoTime();
        if (counts) {
            System.err.printf("VvmRetained: retained objects counted in %.2f s%n", (t3 - t2) / 1e9);
        }
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
                    .append(", \"retained_objects\": ").append(count.getOrDefault(i.getInstanceId(), -1L))
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
