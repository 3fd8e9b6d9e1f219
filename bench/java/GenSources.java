/*
 * GenSources: a deterministic Java source tree for timing javac under the
 * agent (issue 3, "javac compiling a few thousand lines", the original
 * manual's own example).
 *
 *   java GenSources.java DIR [CLASSES]   writes DIR/gen/C0.java .. C<CLASSES-1>.java
 *
 * Each class (about 100 lines) has generic fields and methods, a nested
 * record-like class, an interface implementation, lambdas, streams, a
 * switch, string building and calls into the previous class, so javac's
 * attribution, generics inference and lowering all get work. 40 classes
 * give about 4 000 lines.
 */
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

public class GenSources {
    public static void main(String[] args) throws IOException {
        Path dir = Paths.get(args[0]).resolve("gen");
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        Files.createDirectories(dir);
        long lines = 0;
        for (int i = 0; i < n; i++) {
            StringBuilder sb = new StringBuilder();
            cls(sb, i, n);
            Files.writeString(dir.resolve("C" + i + ".java"), sb);
            lines += sb.chars().filter(ch -> ch == '\n').count();
        }
        System.out.println("classes=" + n + " lines=" + lines);
    }

    static void cls(StringBuilder w, int i, int n) {
        int prev = (i + n - 1) % n;
        w.append("package gen;\n\n");
        w.append("import java.util.*;\nimport java.util.function.*;\nimport java.util.stream.*;\n\n");
        w.append("/** Generated class ").append(i).append(". */\n");
        w.append("public class C").append(i).append("<T extends Comparable<T>> implements Iterable<T>, Comparable<C")
                .append(i).append("<T>> {\n");
        w.append("    private final List<T> items = new ArrayList<>();\n");
        w.append("    private final Map<String, List<T>> byKey = new HashMap<>();\n");
        w.append("    private final Deque<Map.Entry<Integer, T>> recent = new ArrayDeque<>();\n");
        w.append("    private int counter").append(i).append(";\n");
        w.append("    private long total;\n");
        w.append("    protected String label = \"C").append(i).append("\";\n\n");
        w.append("    public static final class Pair<A, B> {\n");
        w.append("        final A first; final B second;\n");
        w.append("        Pair(A first, B second) { this.first = first; this.second = second; }\n");
        w.append("        <C> Pair<A, C> withSecond(C c) { return new Pair<>(first, c); }\n");
        w.append("        @Override public String toString() { return \"(\" + first + \", \" + second + \")\"; }\n");
        w.append("    }\n\n");
        w.append("    public enum Mode { FIRST, SECOND, THIRD, FOURTH }\n\n");
        w.append("    public void add(T t) {\n");
        w.append("        items.add(t);\n");
        w.append("        byKey.computeIfAbsent(String.valueOf(t).substring(0, Math.min(3, String.valueOf(t).length())),\n");
        w.append("                k -> new ArrayList<>()).add(t);\n");
        w.append("        recent.addFirst(new AbstractMap.SimpleEntry<>(counter").append(i).append("++, t));\n");
        w.append("        if (recent.size() > ").append(8 + i % 5).append(") recent.removeLast();\n");
        w.append("    }\n\n");
        w.append("    @Override public Iterator<T> iterator() { return items.iterator(); }\n\n");
        w.append("    @Override public int compareTo(C").append(i).append("<T> o) { return Integer.compare(items.size(), o.items.size()); }\n\n");
        w.append("    public Optional<T> max() { return items.stream().max(Comparator.naturalOrder()); }\n\n");
        w.append("    public <R> List<R> mapAll(Function<? super T, ? extends R> f) {\n");
        w.append("        return items.stream().map(f).collect(Collectors.toList());\n");
        w.append("    }\n\n");
        w.append("    public Map<Boolean, List<T>> split(Predicate<? super T> p) {\n");
        w.append("        return items.stream().collect(Collectors.partitioningBy(p));\n");
        w.append("    }\n\n");
        w.append("    public <K extends Comparable<K>> SortedMap<K, Long> histogram(Function<T, K> key) {\n");
        w.append("        return items.stream().collect(Collectors.groupingBy(key, TreeMap::new, Collectors.counting()));\n");
        w.append("    }\n\n");
        for (int m = 0; m < 4; m++) {
            w.append("    public long compute").append(m).append("(int x, Mode mode) {\n");
            w.append("        long acc = ").append(i * 31 + m).append("L;\n");
            w.append("        for (int k = 0; k < x; k++) {\n");
            w.append("            switch (mode) {\n");
            w.append("                case FIRST: acc += k * ").append(m + 1).append("; break;\n");
            w.append("                case SECOND: acc ^= (acc << ").append(m + 1).append(") + k; break;\n");
            w.append("                case THIRD: acc = acc * 31 + label.hashCode(); break;\n");
            w.append("                default: acc -= Long.rotateLeft(acc, k & 63);\n");
            w.append("            }\n");
            w.append("        }\n");
            w.append("        total += acc;\n");
            w.append("        return acc;\n");
            w.append("    }\n\n");
        }
        w.append("    public String describe() {\n");
        w.append("        StringBuilder sb = new StringBuilder(label).append('[');\n");
        w.append("        for (Map.Entry<String, List<T>> e : new TreeMap<>(byKey).entrySet())\n");
        w.append("            sb.append(e.getKey()).append('=').append(e.getValue().size()).append(';');\n");
        w.append("        return sb.append(']').toString();\n");
        w.append("    }\n\n");
        w.append("    public static <E extends Comparable<E>> C").append(i).append("<E> of(Collection<? extends E> es) {\n");
        w.append("        C").append(i).append("<E> c = new C").append(i).append("<>();\n");
        w.append("        es.forEach(c::add);\n");
        w.append("        return c;\n");
        w.append("    }\n\n");
        w.append("    public Pair<String, Integer> summary() {\n");
        w.append("        Pair<String, Long> p = new Pair<>(label, total);\n");
        w.append("        return p.withSecond(items.size());\n");
        w.append("    }\n\n");
        w.append("    public List<String> chain(List<String> in) {\n");
        w.append("        C").append(prev).append("<String> other = C").append(prev).append(".of(in);\n");
        w.append("        return other.mapAll(s -> s + \"-").append(i).append("\").stream()\n");
        w.append("                .filter(s -> s.length() > ").append(i % 4).append(")\n");
        w.append("                .sorted(Comparator.comparing(String::length).thenComparing(Function.identity()))\n");
        w.append("                .collect(Collectors.toList());\n");
        w.append("    }\n\n");
        w.append("    public static int main").append(i).append("(String[] args) {\n");
        w.append("        C").append(i).append("<String> c = of(Arrays.asList(args));\n");
        w.append("        Supplier<Integer> s = () -> c.items.size() + ").append(i).append(";\n");
        w.append("        BiFunction<Integer, Integer, Integer> f = (a, b) -> a * b + s.get();\n");
        w.append("        int r = f.apply(").append(i).append(", c.chain(Arrays.asList(args)).size());\n");
        w.append("        for (Mode m : Mode.values()) r += (int) c.compute").append(i % 4).append("(r & 15, m);\n");
        w.append("        return r + c.describe().length() + c.summary().toString().length();\n");
        w.append("    }\n");
        w.append("}\n");
    }
}
