/*
 * HeapBench: a live heap of known size for heap dump benchmarks (about
 * 1 GB and 16 M objects with the defaults, like the reference
 * heap): NODES small objects (a long, an int, a double and two references
 * each) chained in chunks held by Object[] arrays of 1024, plus ARRAYS int[]
 * of INTS elements each. Prints "ready <pid>" and waits for stdin to
 * close, so dumps can be taken meanwhile.
 *
 * usage: java -Xmx3g HeapBench [NODES [ARRAYS [INTS]]]   (defaults 15000000, 1000000, 100)
 */
public class HeapBench {
    static final class Node {
        long a;
        int b;
        double c;
        Node next;
        Object payload;
    }

    static Object[][] chunks;
    static int[][] arrays;

    public static void main(String[] args) throws Exception {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 15_000_000;
        int narr = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        int ints = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        chunks = new Object[(nodes + 1023) / 1024][];
        for (int c = 0, k = 0; c < chunks.length; c++) {
            Object[] chunk = new Object[1024];
            Node prev = null;
            for (int i = 0; i < 1024 && k < nodes; i++, k++) {
                Node n = new Node();
                n.a = k;
                n.b = ~k;
                n.c = k * 0.5;
                n.next = prev;
                prev = n;
                chunk[i] = n;
            }
            chunks[c] = chunk;
        }
        arrays = new int[narr][];
        for (int i = 0; i < narr; i++) {
            arrays[i] = new int[ints];
            arrays[i][0] = i;
        }
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for EOF
        }
    }
}
