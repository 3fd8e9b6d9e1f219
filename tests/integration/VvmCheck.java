/*
 * VvmCheck: opens an HPROF file with Debian's VisualVM heap library (an
 * independent reader) and asserts what the file should hold.
 *
 * Owns the Java side of the reader cross-check used by test_visualvm.sh.
 * VisualVM indexes the file into FILE.hwcache/ and reuses it when the header
 * timestamp matches, which fixtures (fixed clock) always do: the cache is
 * deleted first so a rewritten file is really read again.
 *
 * usage: java -cp heap.jar:. VvmCheck FILE [expectation...]
 *   Class.Name=N           instances of the class (VisualVM names: dots, int[])
 *   --classes N            classes VisualVM knows
 *   --roots N              GC roots
 *   --root-kind KIND=N     GC roots of one kind ("JNI global", "thread object", ...)
 *   --string TEXT          some java.lang.String reads back as TEXT (\\uXXXX escapes)
 *   --prop KEY=VALUE       System.getProperties() of the dump has KEY=VALUE
 *   --thread NAME=FRAMES   a THREAD OBJECT root's thread is named NAME and its
 *                          stack trace has FRAMES frames
 *   --array Class=LEN:NONNULL  the (only) array of that class has LEN elements,
 *                          NONNULL of them resolving to objects
 *   --summary-instances N  HEAP SUMMARY (VisualVM's summary) live instances
 *   --total-instances N    sum of the instance counts of all classes
 *   --check-refs           every non-null reference in an instance field or a
 *                          static field resolves to an object or a class
 * Prints each check; exits 1 on the first failing expectation set (all
 * checks still run), 2 on usage errors.
 */
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.graalvm.visualvm.lib.jfluid.heap.FieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.GCRoot;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.HeapSummary;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectFieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.PrimitiveArrayInstance;
import org.graalvm.visualvm.lib.jfluid.heap.ThreadObjectGCRoot;

public class VvmCheck {
    private static int failures = 0;

    private static void check(boolean ok, String what) {
        System.out.println((ok ? "  ok    " : "  FAIL  ") + what);
        if (!ok) {
            failures++;
        }
    }

    private static void usage(String msg) {
        System.err.println("VvmCheck: " + msg);
        System.err.println("usage: VvmCheck FILE [Class=N] [--classes N] [--roots N] [--root-kind KIND=N]"
                + " [--string TEXT] [--prop K=V] [--thread NAME=FRAMES] [--array Class=LEN:NONNULL]"
                + " [--summary-instances N] [--total-instances N] [--check-refs]");
        System.exit(2);
    }

    /* \\uXXXX escapes, so that non-ASCII expectations survive any locale */
    private static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 5 < s.length() && s.charAt(i + 1) == 'u') {
                b.append((char) Integer.parseInt(s.substring(i + 2, i + 6), 16));
                i += 5;
            } else if (c == '\\' && i + 1 < s.length() && s.charAt(i + 1) == 'n') {
                b.append('\n');
                i++;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static String show(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c >= 0x20 && c < 0x7f) {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.append('"').toString();
    }

    /* A JDK 9+ String: byte[] value + coder (0 Latin-1, 1 UTF-16 little-endian,
     * as HotSpot dumps it on x86), or a JDK 8 char[] value. */
    static String stringValue(Instance s) {
        if (s == null) {
            return null;
        }
        Object value = s.getValueOfField("value");
        Object coder = s.getValueOfField("coder");
        if (!(value instanceof PrimitiveArrayInstance)) {
            return null;
        }
        PrimitiveArrayInstance arr = (PrimitiveArrayInstance) value;
        List<String> vals = arr.getValues();
        String cls = arr.getJavaClass().getName();
        StringBuilder b = new StringBuilder();
        if (cls.equals("char[]")) {
            for (String v : vals) {
                b.append(v.charAt(0));
            }
            return b.toString();
        }
        byte[] bytes = new byte[vals.size()];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = Byte.parseByte(vals.get(i));
        }
        int c = coder instanceof Number ? ((Number) coder).intValue() : 0;
        if (c == 0) {
            for (byte x : bytes) {
                b.append((char) (x & 0xff));
            }
        } else {
            for (int i = 0; i + 1 < bytes.length; i += 2) {
                b.append((char) ((bytes[i] & 0xff) | ((bytes[i + 1] & 0xff) << 8)));
            }
        }
        return b.toString();
    }

    private static long parseLong(String what, String v) {
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            usage("bad number '" + v + "' in " + what);
            return 0;
        }
    }

    private static void deleteCache(File file) throws IOException {
        Path cache = Path.of(file.getPath() + ".hwcache");
        if (Files.exists(cache)) {
            try (Stream<Path> walk = Files.walk(cache)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static boolean isNullRef(String v) {
        return v == null || v.equals("0") || v.equals("null");
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            usage("missing FILE");
        }
        File file = new File(args[0]);
        if (!file.isFile()) {
            usage("no such file: " + file);
        }
        deleteCache(file);
        long t0 = System.nanoTime();
        Heap heap = HeapFactory.createHeap(file);
        List<JavaClass> classes = heap.getAllClasses();
        Collection<GCRoot> roots = heap.getGCRoots();
        long total = 0;
        for (JavaClass jc : classes) {
            total += jc.getInstancesCount();
        }
        System.out.printf("VisualVM read %s: %d classes, %d instances, %d GC roots (%.2f s)%n",
                file, classes.size(), total, roots.size(), (System.nanoTime() - t0) / 1e9);
        Map<String, Integer> kinds = new TreeMap<>();
        for (GCRoot r : roots) {
            kinds.merge(r.getKind(), 1, Integer::sum);
        }
        System.out.println("  roots by kind: " + kinds);
        HeapSummary sum = heap.getSummary();
        System.out.printf("  summary: live %d bytes, %d instances; allocated %d bytes, %d instances%n",
                sum.getTotalLiveBytes(), sum.getTotalLiveInstances(), sum.getTotalAllocatedBytes(),
                sum.getTotalAllocatedInstances());

        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            String v = null;
            if (a.startsWith("--") && !a.equals("--check-refs")) {
                if (i + 1 >= args.length) {
                    usage(a + " needs a value");
                }
                v = args[++i];
            }
            switch (a) {
            case "--classes":
                check(classes.size() == parseLong(a, v), "classes: " + classes.size() + ", expected " + v);
                break;
            case "--roots":
                check(roots.size() == parseLong(a, v), "GC roots: " + roots.size() + ", expected " + v);
                break;
            case "--root-kind": {
                int eq = v.lastIndexOf('=');
                if (eq < 0) {
                    usage("--root-kind wants KIND=N");
                }
                int n = kinds.getOrDefault(v.substring(0, eq), 0);
                check(n == parseLong(a, v.substring(eq + 1)),
                        "GC roots of kind '" + v.substring(0, eq) + "': " + n + ", expected " + v.substring(eq + 1));
                break;
            }
            case "--total-instances":
                check(total == parseLong(a, v), "instances of all classes: " + total + ", expected " + v);
                break;
            case "--summary-instances":
                check(sum.getTotalLiveInstances() == parseLong(a, v),
                        "summary live instances: " + sum.getTotalLiveInstances() + ", expected " + v);
                break;
            case "--string": {
                String want = unescape(v);
                JavaClass sc = heap.getJavaClassByName("java.lang.String");
                boolean found = false;
                int unreadable = 0;
                if (sc != null) {
                    for (Instance s : sc.getInstances()) {
                        String got = stringValue(s);
                        if (got == null) {
                            unreadable++;
                        } else if (got.equals(want)) {
                            found = true;
                        }
                    }
                }
                check(found && unreadable == 0, "a String reads back as " + show(want)
                        + (found ? "" : " (not found)") + (unreadable > 0 ? ", " + unreadable + " unreadable Strings" : ""));
                break;
            }
            case "--prop": {
                int eq = v.indexOf('=');
                if (eq < 0) {
                    usage("--prop wants KEY=VALUE");
                }
                Properties p = heap.getSystemProperties();
                String key = v.substring(0, eq), want = unescape(v.substring(eq + 1));
                String got = p == null ? null : p.getProperty(key);
                check(want.equals(got), "System property " + key + " = " + (got == null ? "(missing)" : show(got))
                        + ", expected " + show(want) + " (" + (p == null ? 0 : p.size()) + " properties)");
                break;
            }
            case "--thread": {
                int eq = v.lastIndexOf('=');
                if (eq < 0) {
                    usage("--thread wants NAME=FRAMES");
                }
                String name = v.substring(0, eq);
                long frames = parseLong(a, v.substring(eq + 1));
                String seen = "not found";
                boolean ok = false;
                for (GCRoot r : roots) {
                    if (r instanceof ThreadObjectGCRoot) {
                        Instance t = r.getInstance();
                        Object n = t == null ? null : t.getValueOfField("name");
                        if (n instanceof Instance && name.equals(stringValue((Instance) n))) {
                            StackTraceElement[] st = ((ThreadObjectGCRoot) r).getStackTrace();
                            int got = st == null ? -1 : st.length;
                            seen = got + " frames" + (st != null && st.length > 0 ? ", top " + st[0] : "");
                            ok = got == frames;
                        }
                    }
                }
                check(ok, "thread " + show(name) + ": " + seen + ", expected " + frames + " frames");
                break;
            }
            case "--array": {
                int eq = v.lastIndexOf('='), colon = v.lastIndexOf(':');
                if (eq < 0 || colon < eq) {
                    usage("--array wants Class=LEN:NONNULL");
                }
                String cname = v.substring(0, eq);
                long len = parseLong(a, v.substring(eq + 1, colon)), nonnull = parseLong(a, v.substring(colon + 1));
                JavaClass jc = heap.getJavaClassByName(cname);
                List<Instance> inst = jc == null ? List.of() : jc.getInstances();
                if (inst.size() != 1) {
                    check(false, "array class " + cname + ": " + inst.size() + " instances, expected 1");
                    break;
                }
                ObjectArrayInstance arr = (ObjectArrayInstance) inst.get(0);
                int nn = 0;
                for (Instance e : arr.getValues()) {
                    if (e != null) {
                        nn++;
                    }
                }
                check(arr.getLength() == len && nn == nonnull, cname + ": length " + arr.getLength() + ", " + nn
                        + " non-null; expected " + len + ", " + nonnull);
                break;
            }
            case "--check-refs": {
                long refs = 0, dangling = 0;
                String first = null;
                Iterator<Instance> it = heap.getAllInstancesIterator();
                while (it.hasNext()) {
                    Instance in = it.next();
                    for (FieldValue fv : in.getFieldValues()) {
                        if (fv instanceof ObjectFieldValue && !isNullRef(fv.getValue())) {
                            refs++;
                            if (((ObjectFieldValue) fv).getInstance() == null) {
                                dangling++;
                                if (first == null) {
                                    first = in.getJavaClass().getName() + "#" + in.getInstanceNumber() + "."
                                            + fv.getField().getName() + " = " + fv.getValue();
                                }
                            }
                        }
                    }
                }
                for (JavaClass jc : classes) {
                    for (FieldValue fv : jc.getStaticFieldValues()) {
                        if (fv instanceof ObjectFieldValue && !isNullRef(fv.getValue())) {
                            refs++;
                            if (((ObjectFieldValue) fv).getInstance() == null) {
                                dangling++;
                                if (first == null) {
                                    first = jc.getName() + "." + fv.getField().getName() + " = " + fv.getValue();
                                }
                            }
                        }
                    }
                }
                check(dangling == 0 && refs > 0, refs + " field references, " + dangling + " unresolved"
                        + (first != null ? " (first: " + first + ")" : ""));
                break;
            }
            default: {
                int eq = a.lastIndexOf('=');
                if (a.startsWith("-") || eq <= 0) {
                    usage("unknown expectation '" + a + "'");
                }
                String cname = a.substring(0, eq);
                long want = parseLong(a, a.substring(eq + 1));
                JavaClass jc = heap.getJavaClassByName(cname);
                int got = jc == null ? -1 : jc.getInstancesCount();
                check(got == want, cname + ": " + (jc == null ? "no such class" : got + " instances")
                        + ", expected " + want);
            }
            }
        }
        if (failures > 0) {
            System.out.println("VvmCheck: " + failures + " check(s) FAILED for " + file);
            System.exit(1);
        }
        System.out.println("VvmCheck: all checks passed for " + file);
    }
}
