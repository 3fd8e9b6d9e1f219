/*
 * ClassMixDemo: one call site that allocates objects of two classes of the
 * same size, in turn, for the agent's site cache test
 * (tests/integration/test_agent_sites.sh). The agent caches a thread's
 * recent sites by trace and size and checks the class of a hit; a wrong
 * check would count both classes in one row.
 *
 * usage: java ClassMixDemo A B
 *
 * On the main thread it allocates, at the line marked SITE-MIX (through
 * java.lang.reflect.Array.newInstance, so the trace is the same for both),
 * A String[4] and B Integer[4] (32 bytes each with compressed oops: 16
 * header + 4 references), alternating while both remain (String first),
 * keeps every one of them in a static array until the exit, prints "ready"
 * and returns. Both are made by one call at one line, so their traces are
 * the same at any depth. The order (Class[A + B]) and the keeping array
 * (Object[A + B]) are allocated before them.
 */
import java.lang.reflect.Array;

public class ClassMixDemo {
    static Object[] keep;

    static Object make(Class<?> c) {
        return Array.newInstance(c, 4); // SITE-MIX
    }

    public static void main(String[] args) {
        int a = Integer.parseInt(args[0]);
        int b = Integer.parseInt(args[1]);
        Class<?>[] order = new Class<?>[a + b];
        int n = 0;
        for (int i = 0; i < a || i < b; i++) {
            if (i < a)
                order[n++] = String.class;
            if (i < b)
                order[n++] = Integer.class;
        }
        keep = new Object[n];
        for (int i = 0; i < n; i++)
            keep[i] = make(order[i]); // one call line: one trace for both classes
        System.out.println("ready " + n);
    }
}
