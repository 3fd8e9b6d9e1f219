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
 *   --mirror-name NAME     an instance of java.lang.Class (a primitive type's
 *                          mirror, which is no class) has the field name = NAME
 *   --check-refs           every non-null reference in an instance field or a
 *                          static field resolves to an object or a class
 *   --heapdemo N:M         the heap of demo-java/HeapDemo.java run with N items
 *                          and M sub-items: every field value of every Item and
 *                          SubItem, the statics, the arrays of every type, the
 *                          trailing nulls of ITEMS, and the 3 Markers held by
 *                          JAVA FRAME roots of the thread "parked-holder"
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
import org.graalvm.visualvm.lib.jfluid.heap.JavaFrameGCRoot;
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
                + " [--summary-instances N] [--total-instances N] [--mirror-name NAME] [--check-refs]");
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

    private static boolean eq(Object got, Object want) {
        if (got instanceof Number && want instanceof Number) {
            if (got instanceof Float || got instanceof Double || want instanceof Float || want instanceof Double) {
                return ((Number) got).doubleValue() == ((Number) want).doubleValue();
            }
            return ((Number) got).longValue() == ((Number) want).longValue();
        }
        return String.valueOf(got).equals(String.valueOf(want));
    }

    /* Checks one field; returns 1 on a mismatch (and remembers the first). */
    private static String firstBad;

    private static int field(Instance in, String f, Object want, String who) {
        Object got = in.getValueOfField(f);
        if (got instanceof Instance && want instanceof String) {
            got = stringValue((Instance) got);
        }
        if (eq(got, want)) {
            return 0;
        }
        if (firstBad == null) {
            firstBad = who + "." + f + " = " + got + ", expected " + want;
        }
        return 1;
    }

    /* What HeapDemo.item(it, i) set. */
    private static int itemFields(Instance in, int i, String who) {
        int bad = 0;
        bad += field(in, "z", i % 2 == 0, who);
        bad += field(in, "b", (byte) i, who);
        bad += field(in, "c", (char) ('A' + i % 26), who);
        bad += field(in, "s", (short) -i, who);
        bad += field(in, "i", i * 1000, who);
        bad += field(in, "j", i * 1_000_000_007L, who);
        bad += field(in, "f", i + 0.5f, who);
        bad += field(in, "d", i * 0.25, who);
        bad += field(in, "name", "item-" + i, who);
        return bad;
    }

    private static void heapDemo(Heap heap, Collection<GCRoot> roots, int n, int m) {
        JavaClass ic = heap.getJavaClassByName("HeapDemo$Item");
        JavaClass sc = heap.getJavaClassByName("HeapDemo$SubItem");
        JavaClass hc = heap.getJavaClassByName("HeapDemo");
        if (ic == null || sc == null || hc == null) {
            check(false, "HeapDemo classes present");
            return;
        }
        check(ic.getInstancesCount() == n && sc.getInstancesCount() == m,
                "HeapDemo$Item: " + ic.getInstancesCount() + " instances, SubItem: " + sc.getInstancesCount()
                        + "; expected " + n + ", " + m);
        firstBad = null;
        int bad = 0;
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (Instance in : ic.getInstances()) {
            Object iv = in.getValueOfField("i");
            int i = iv instanceof Number ? ((Number) iv).intValue() / 1000 : -1;
            String who = "Item#" + i;
            if (i < 0 || i >= n || !seen.add(i)) {
                bad++;
                if (firstBad == null) {
                    firstBad = who + ": field i = " + iv + " is not a distinct item index";
                }
                continue;
            }
            bad += itemFields(in, i, who);
            Object next = in.getValueOfField("next");
            Object want = i + 1 < n ? (Object) ((i + 1) * 1000) : null;
            Object got = next instanceof Instance ? ((Instance) next).getValueOfField("i") : next;
            if (!(want == null ? got == null : eq(got, want))) {
                bad++;
                if (firstBad == null) {
                    firstBad = who + ".next.i = " + got + ", expected " + want;
                }
            }
        }
        seen.clear();
        for (Instance in : sc.getInstances()) {
            Object ev = in.getValueOfField("extra");
            int i = ev instanceof Number ? -((Number) ev).intValue() : -1;
            String who = "SubItem#" + i;
            if (i < 0 || i >= m || !seen.add(i)) {
                bad++;
                if (firstBad == null) {
                    firstBad = who + ": field extra = " + ev + " is not a distinct index";
                }
                continue;
            }
            bad += itemFields(in, i, who);
            Object peer = in.getValueOfField("peer");
            Object pi = peer instanceof Instance ? ((Instance) peer).getValueOfField("i") : null;
            if (!eq(pi, i * 1000)) {
                bad++;
                if (firstBad == null) {
                    firstBad = who + ".peer.i = " + pi + ", expected " + i * 1000;
                }
            }
        }
        check(bad == 0, "every field of " + n + " Items and " + m + " SubItems"
                + (bad > 0 ? ": " + bad + " wrong, first " + firstBad : ""));
        firstBad = null;
        bad = 0;
        Object[][] statics = {{"sInt", 424242}, {"sLong", -7L}, {"sChar", 'Q'}, {"sDouble", 2.5}, {"sBool", true}};
        for (Object[] st : statics) {
            Object got = hc.getValueOfStaticField((String) st[0]);
            if (!eq(got, st[1])) {
                bad++;
                if (firstBad == null) {
                    firstBad = "HeapDemo." + st[0] + " = " + got + ", expected " + st[1];
                }
            }
        }
        Object ss = hc.getValueOfStaticField("sStr");
        String sv = ss instanceof Instance ? stringValue((Instance) ss) : null;
        if (!"static-string".equals(sv)) {
            bad++;
            if (firstBad == null) {
                firstBad = "HeapDemo.sStr = " + sv;
            }
        }
        check(bad == 0, "the static fields of HeapDemo" + (bad > 0 ? ": first wrong " + firstBad : ""));
        Object items = hc.getValueOfStaticField("ITEMS");
        if (items instanceof ObjectArrayInstance) {
            ObjectArrayInstance arr = (ObjectArrayInstance) items;
            List<Instance> vals = arr.getValues();
            int nn = 0, trailing = 0;
            for (int k = 0; k < vals.size(); k++) {
                if (vals.get(k) != null) {
                    nn++;
                } else if (k >= n) {
                    trailing++;
                }
            }
            check(arr.getLength() == n + 5 && nn == n && trailing == 5, "ITEMS: length " + arr.getLength() + ", "
                    + nn + " non-null, " + trailing + " trailing nulls; expected " + (n + 5) + ", " + n + ", 5");
        } else {
            check(false, "HeapDemo.ITEMS is an object array (" + items + ")");
        }
        String[] arrays = {"ZS", "BS", "CS", "SS", "IS", "JS", "FS", "DS"};
        firstBad = null;
        bad = 0;
        for (int a = 0; a < arrays.length; a++) {
            Object o = hc.getValueOfStaticField(arrays[a]);
            if (!(o instanceof PrimitiveArrayInstance) || ((PrimitiveArrayInstance) o).getLength() != 11 + a) {
                bad++;
                if (firstBad == null) {
                    firstBad = "HeapDemo." + arrays[a] + " is not a primitive array of length " + (11 + a);
                }
                continue;
            }
            List<String> vals = ((PrimitiveArrayInstance) o).getValues();
            for (int k = 0; k < vals.size(); k++) {
                int v = k * 3 + 1;
                String want;
                switch (arrays[a]) {
                case "ZS": want = String.valueOf(k % 3 == 0); break;
                case "BS": want = String.valueOf((byte) v); break;
                case "CS": want = String.valueOf((char) v); break;
                case "SS": want = String.valueOf((short) v); break;
                case "IS": want = String.valueOf(v); break;
                case "JS": want = String.valueOf((long) v); break;
                case "FS": want = String.valueOf((float) v); break;
                default: want = String.valueOf((double) v); break;
                }
                if (!want.equals(vals.get(k))) {
                    bad++;
                    if (firstBad == null) {
                        firstBad = "HeapDemo." + arrays[a] + "[" + k + "] = " + vals.get(k) + ", expected " + want;
                    }
                }
            }
        }
        Object grid = hc.getValueOfStaticField("GRID");
        if (grid instanceof ObjectArrayInstance && ((ObjectArrayInstance) grid).getLength() == 3) {
            List<Instance> rows = ((ObjectArrayInstance) grid).getValues();
            for (int r = 0; r < 3; r++) {
                Instance row = rows.get(r);
                List<String> vals = row instanceof PrimitiveArrayInstance ? ((PrimitiveArrayInstance) row).getValues() : List.of();
                for (int c = 0; c < 7; c++) {
                    if (vals.size() != 7 || !String.valueOf(r * 10 + c).equals(vals.get(c))) {
                        bad++;
                        if (firstBad == null) {
                            firstBad = "GRID[" + r + "][" + c + "] = " + (c < vals.size() ? vals.get(c) : "missing");
                        }
                    }
                }
            }
        } else {
            bad++;
            if (firstBad == null) {
                firstBad = "HeapDemo.GRID is not an int[3][]";
            }
        }
        check(bad == 0, "the arrays of every primitive type and GRID" + (bad > 0 ? ": first wrong " + firstBad : ""));
        JavaClass mc = heap.getJavaClassByName("HeapDemo$Marker");
        int held = 0, markers = mc == null ? 0 : mc.getInstancesCount();
        for (GCRoot r : roots) {
            if (r instanceof JavaFrameGCRoot && r.getInstance() != null && mc != null
                    && r.getInstance().getJavaClass().equals(mc)) {
                ThreadObjectGCRoot t = ((JavaFrameGCRoot) r).getThreadGCRoot();
                Object tn = t == null || t.getInstance() == null ? null : t.getInstance().getValueOfField("name");
                if (tn instanceof Instance && "parked-holder".equals(stringValue((Instance) tn))) {
                    held++;
                }
            }
        }
        check(markers == 3 && held >= 3, "HeapDemo$Marker: " + markers + " instances, " + held
                + " JAVA FRAME roots of thread parked-holder on them; expected 3, >= 3");
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
                if (a.equals("--heapdemo") && i + 1 < args.length) {
                    String[] nm = args[++i].split(":");
                    heapDemo(heap, roots, (int) parseLong(a, nm[0]), (int) parseLong(a, nm[1]));
                    continue;
                }
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
            case "--mirror-name": {
                JavaClass cc = heap.getJavaClassByName("java.lang.Class");
                List<String> seen = new ArrayList<>();
                boolean found = false;
                if (cc != null) {
                    for (Instance m : cc.getInstances()) {
                        Object n = m.getValueOfField("name");
                        String got = n instanceof Instance ? stringValue((Instance) n) : null;
                        if (got != null) {
                            seen.add(got);
                        }
                        found |= v.equals(got);
                    }
                }
                check(found, "a java.lang.Class instance named " + show(v) + " (names of its instances: " + seen + ")");
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
