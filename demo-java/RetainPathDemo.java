import java.lang.ref.Reference;
import java.lang.ref.SoftReference;

/*
 * RetainPathDemo: a heap whose dominator tree and paths are known by hand, for
 * `hprof retained` and `hprof path` (tests/integration/test_retained.sh).
 *
 *   - `holder` (a Holder, 24 bytes: header 12 + two references 8, aligned)
 *     holds a Leaf[N] (16 + 4 N bytes, aligned) of N Leaf objects (24 bytes:
 *     header 12 + a long) and a Shared that `other` holds too. The holder
 *     retains itself, the array and the N leaves: N + 2 objects,
 *     24 + align8(16 + 4 N) + 24 N bytes; the Shared belongs to neither.
 *   - a chain of named fields, held only by a local variable of main():
 *     First.alpha -> Second.beta -> Third.gamma -> Target. Its path from a
 *     root is the Java frame of main (thread "main") at the line marked
 *     PATH-ROOT, then alpha, beta, gamma.
 *   - a SoftTarget reachable only through the SoftReference `soft` (soft,
 *     not weak: the dump's full GC clears weak referents, and keeps soft
 *     ones while memory is plentiful): no path without --weak; with it,
 *     through `referent`.
 *
 * Prints "ready <pid>" and waits for standard input to close.
 *
 * usage: java RetainPathDemo [N]   (default 100000)
 */
public class RetainPathDemo {
    static final class Leaf {
        long v;
    }

    static final class Shared {
        int x;
    }

    static final class Holder {
        Leaf[] items;
        Shared shared;
    }

    static final class Other {
        Shared shared;
    }

    static final class Target {
        int payload;
    }

    static final class SoftTarget {
        int payload;
    }

    static final class Third {
        Target gamma;
    }

    static final class Second {
        Third beta;
    }

    static final class First {
        Second alpha;
    }

    static Holder holder;
    static Other other;
    static SoftReference<SoftTarget> soft;

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        Shared shared = new Shared();
        holder = new Holder();
        holder.items = new Leaf[n];
        for (int i = 0; i < n; i++) {
            holder.items[i] = new Leaf();
            holder.items[i].v = i;
        }
        holder.shared = shared;
        other = new Other();
        other.shared = shared;
        First first = new First();
        first.alpha = new Second();
        first.alpha.beta = new Third();
        first.alpha.beta.gamma = new Target();
        soft = new SoftReference<>(new SoftTarget());
        shared = null;
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (System.in.read() >= 0) { // PATH-ROOT
            // wait for EOF
        }
        Reference.reachabilityFence(first);
    }
}
