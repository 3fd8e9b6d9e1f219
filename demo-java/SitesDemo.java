/*
 * SitesDemo: allocations whose sites, counts, sizes and liveness are known
 * exactly, for the agent's heap=sites tests (tests/integration/test_agent_*.sh).
 *
 * usage: java SitesDemo THREADS ITEMS ARRAYS ARRAYLEN [wait]
 *
 * With THREADS = T, ITEMS = N, ARRAYS = M and ARRAYLEN = K it does exactly this
 * (the SITE-* markers are comments on the allocating lines; the tests find
 * the line numbers by grepping for them, so lines may move):
 *  - main allocates T objects of SitesDemo$Worker (a Thread subclass) in
 *    SitesDemo.main, line SITE-WORKER, kept in SitesDemo.WORKERS: T allocated,
 *    T live. The threads are named "sites-0" .. "sites-(T-1)"; main starts
 *    them all, then joins them all, so each gets a THREAD START and a THREAD END.
 *  - each worker runs SitesDemo$Worker.run (line SITE-RUN) -> SitesDemo.work
 *    (line SITE-WORK-ITEMS or SITE-WORK-GARBAGE) -> the allocating method:
 *      SitesDemo.makeItems: one SitesDemo$Item[N] (line SITE-KEEP) and N
 *        SitesDemo$Item (line SITE-ITEM), all kept in SitesDemo.KEEP:
 *        T Item[] and T*N Item allocated, all live until the program ends;
 *      SitesDemo.makeGarbage: N SitesDemo$Garbage (line SITE-GARBAGE) and
 *        M int[K] (line SITE-INTS), each stored in a volatile static (so the
 *        JIT cannot remove it) and dropped at once:
 *        T*N Garbage and T*M int[K] allocated, 0 live after the GC below.
 *    Stack at SITE-ITEM, innermost first (depth 3, so depth=4 shows it all):
 *      SitesDemo.makeItems(SitesDemo.java:SITE-ITEM)
 *      SitesDemo.work(SitesDemo.java:SITE-WORK-ITEMS)
 *      SitesDemo$Worker.run(SitesDemo.java:SITE-RUN)
 *  - sizes on 64-bit HotSpot with compressed oops and class pointers (the
 *    default for heaps under 32 GB, no compact headers): Item 24 bytes
 *    (12 header + int + long), Garbage 16 (12 header + int), int[K] 16 + 4K
 *    rounded up to 8, Item[N] 16 + 4N rounded up to 8.
 *    Defaults used by the tests: T=4 N=5000 M=300 K=100: 20000 Item (480000
 *    bytes), 4 Item[5000] (20016 bytes each, 80064), 20000 Garbage (320000
 *    bytes), 1200 int[100] (416 bytes each, 499200 bytes).
 *  - these classes are allocated nowhere else; then main clears the static
 *    sink, calls System.gc() (a full GC on G1), prints "ready <checksum>" and
 *      without "wait": returns (exit status 0);
 *      with "wait": reads lines from stdin: "gc" runs System.gc() and prints
 *      "gc done"; "quit" or end of input returns (exit status 0).
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class SitesDemo {
    /** Kept: T * N allocated, all live. */
    static final class Item {
        final int id;
        final long value;

        Item(int id, long value) {
            this.id = id;
            this.value = value;
        }
    }

    /** Dropped at once: T * N allocated, none live after the GC. */
    static final class Garbage {
        final int id;

        Garbage(int id) {
            this.id = id;
        }
    }

    static final class Worker extends Thread {
        final int index, items, arrays, arrayLen;

        Worker(int index, int items, int arrays, int arrayLen) {
            super("sites-" + index);
            this.index = index;
            this.items = items;
            this.arrays = arrays;
            this.arrayLen = arrayLen;
        }

        @Override
        public void run() {
            work(this); // SITE-RUN
        }
    }

    static Item[][] KEEP;
    static Worker[] WORKERS;
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int items = Integer.parseInt(args[1]);
        int arrays = Integer.parseInt(args[2]);
        int arrayLen = Integer.parseInt(args[3]);
        boolean wait = args.length > 4 && args[4].equals("wait");
        KEEP = new Item[threads][];
        WORKERS = new Worker[threads];
        for (int t = 0; t < threads; t++) {
            WORKERS[t] = new Worker(t, items, arrays, arrayLen); // SITE-WORKER
        }
        for (Worker w : WORKERS) {
            w.start();
        }
        for (Worker w : WORKERS) {
            w.join();
        }
        sink = null;
        System.gc();
        long checksum = 0;
        for (Item[] row : KEEP) {
            for (Item it : row) {
                checksum += it.value;
            }
        }
        System.out.println("ready " + checksum);
        System.out.flush();
        if (!wait) {
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.equals("gc")) {
                System.gc();
                System.out.println("gc done");
                System.out.flush();
            } else if (line.equals("quit")) {
                break;
            }
        }
    }

    static void work(Worker w) {
        KEEP[w.index] = makeItems(w.index, w.items); // SITE-WORK-ITEMS
        makeGarbage(w.items, w.arrays, w.arrayLen); // SITE-WORK-GARBAGE
    }

    static Item[] makeItems(int index, int n) {
        Item[] keep = new Item[n]; // SITE-KEEP
        for (int i = 0; i < n; i++) {
            keep[i] = new Item(i, (long) index * n + i); // SITE-ITEM
        }
        return keep;
    }

    static void makeGarbage(int n, int arrays, int len) {
        for (int i = 0; i < n; i++) {
            sink = new Garbage(i); // SITE-GARBAGE
        }
        for (int i = 0; i < arrays; i++) {
            sink = new int[len]; // SITE-INTS
        }
    }
}
