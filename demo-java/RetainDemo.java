import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.ArrayList;

/*
 * RetainDemo: a heap whose retained sets, paths and growth are known by
 * construction, for `hprof retained`, `hprof path` and `hprof diff`
 * (tests/integration/test_retained_vvm.sh, test_diff.sh).
 *
 * usage: java RetainDemo [N [S [T [M]]]]   (defaults 1000, 200, 300, 100000)
 *
 * Every object below is reached only as said (nothing else refers to it,
 * and no thread's frame holds one: they are built in methods that have
 * returned). Object counts are exact, whatever the JVM's object layout:
 *  - HOLDER, a RetainDemo$Holder, has a private ArrayList<Leaf> `leaves`
 *    made with capacity N (one Object[N] that never grows) holding N
 *    RetainDemo$Leaf, each with its own byte[64] `data`. HOLDER retains
 *    exactly 2N + 3 objects (Holder, ArrayList, Object[N], N Leaf, N
 *    byte[]): 2003 with the defaults.
 *  - OWNER1 and OWNER2, two RetainDemo$Owner, each with its own Leaf[S]
 *    `mine` (S Leaf, each with a byte[64]) and the SAME Leaf[T] `shared`
 *    (T Leaf, each with a byte[64]). Each owner retains exactly 2S + 2
 *    objects (402): the shared array and its 2T objects (1 + 2T = 601)
 *    belong to neither.
 *    Leaf instances in all: N + 2S + T (1700), and as many byte[64].
 *  - CHAIN, a RetainDemo$ChainA: CHAIN.b.c.d.target, fields b (ChainB),
 *    c (ChainC), d (ChainD), target (RetainDemo$Target): the path from the
 *    static field RetainDemo.CHAIN to the one Target is those four fields in
 *    that order. CHAIN retains 5 objects.
 *  - RING, the first of R = 50 RetainDemo$RingNode linked by `next`, the
 *    last one's next back to the first (a cycle). RING retains the 50
 *    nodes; the k-th node (k = 1..49) retains 50 - k.
 *  - BIG, an Object[1000000] whose elements i % 1000 == 0 are
 *    RetainDemo$Marker (1000 of them), the others null: BIG retains 1001
 *    objects and is the biggest object by retained size.
 *  - ADDED, an ArrayList made with capacity M (its Object[M] exists from
 *    the start), empty at first.
 * It prints "ready" and reads lines from standard input: "add" adds M new
 * RetainDemo$Added (one int each) to ADDED and prints "added" (nothing
 * else is allocated that stays: a dump before and one after differ by
 * exactly M RetainDemo$Added, the class that grows most); "pid" prints
 * the JVM's pid; end of input ends the program (exit status 0).
 */
public class RetainDemo {
    static final int LEAF_BYTES = 64;

    static class Leaf {
        final byte[] data = new byte[LEAF_BYTES];
    }

    static class Holder {
        private final ArrayList<Leaf> leaves;

        Holder(int n) {
            leaves = new ArrayList<>(n);
            for (int i = 0; i < n; i++)
                leaves.add(new Leaf());
        }

        int size() {
            return leaves.size();
        }
    }

    static class Owner {
        final Leaf[] mine;
        final Leaf[] shared;

        Owner(int s, Leaf[] shared) {
            mine = new Leaf[s];
            for (int i = 0; i < s; i++)
                mine[i] = new Leaf();
            this.shared = shared;
        }
    }

    static class Target {
        int value = 42;
    }

    static class ChainD {
        Target target = new Target();
    }

    static class ChainC {
        ChainD d = new ChainD();
    }

    static class ChainB {
        ChainC c = new ChainC();
    }

    static class ChainA {
        ChainB b = new ChainB();
    }

    static class RingNode {
        RingNode next;
        int index;
    }

    static class Marker {
        int index;
    }

    static class Added {
        int value;
    }

    static final int RING_NODES = 50;
    static final int BIG_LENGTH = 1_000_000;
    static final int BIG_STRIDE = 1000;

    static Holder HOLDER;
    static Owner OWNER1, OWNER2;
    static ChainA CHAIN;
    static RingNode RING;
    static Object[] BIG;
    static ArrayList<Added> ADDED;
    static int addCount;

    static void build(int n, int s, int t, int m) {
        HOLDER = new Holder(n);
        Leaf[] shared = new Leaf[t];
        for (int i = 0; i < t; i++)
            shared[i] = new Leaf();
        OWNER1 = new Owner(s, shared);
        OWNER2 = new Owner(s, shared);
        CHAIN = new ChainA();
        RingNode first = new RingNode();
        RingNode last = first;
        for (int i = 1; i < RING_NODES; i++) {
            RingNode r = new RingNode();
            r.index = i;
            last.next = r;
            last = r;
        }
        last.next = first;
        RING = first;
        BIG = new Object[BIG_LENGTH];
        for (int i = 0; i < BIG_LENGTH; i += BIG_STRIDE) {
            Marker k = new Marker();
            k.index = i;
            BIG[i] = k;
        }
        ADDED = new ArrayList<>(m);
        addCount = m;
    }

    static void add() {
        for (int i = 0; i < addCount; i++) {
            Added a = new Added();
            a.value = i;
            ADDED.add(a);
        }
    }

    public static void main(String[] args) throws IOException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int s = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        int t = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        int m = args.length > 3 ? Integer.parseInt(args[3]) : 100000;
        build(n, s, t, m);
        System.out.println("ready " + HOLDER.size());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("add")) {
                add();
                System.out.println("added " + ADDED.size());
            } else if (line.equals("pid")) {
                System.out.println(ProcessHandle.current().pid());
            }
        }
    }
}
