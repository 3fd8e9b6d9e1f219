/*
 * DepthAlloc: how GetStackTrace's cost depends on the stack (bench/BENCHMARKS.md,
 * "Where the stack walk's time goes").
 *
 *   java DepthAlloc D N     D in 1..8: N allocations, each D calls deep
 *
 * run() calls a<D>, which calls a<D-1> ... a1, which allocates: with the
 * agent's depth=D, GetStackTrace walks exactly the D frames a1..a<D>. Under
 * C2 the chain is inlined into run()'s compiled loop (one physical frame,
 * D virtual frames); with -XX:-Inline each is a physical compiled frame;
 * with -Xint each is an interpreted frame.
 */
public class DepthAlloc {
    static final class Small { final long a; Small(long a) { this.a = a; } }
    static volatile Object sink;

    static Object a1(long i) { return new Small(i); }
    static Object a2(long i) { return a1(i); }
    static Object a3(long i) { return a2(i); }
    static Object a4(long i) { return a3(i); }
    static Object a5(long i) { return a4(i); }
    static Object a6(long i) { return a5(i); }
    static Object a7(long i) { return a6(i); }
    static Object a8(long i) { return a7(i); }

    public static void main(String[] args) {
        int d = Integer.parseInt(args[0]);
        long n = Long.parseLong(args[1]);
        long t0 = System.nanoTime();
        switch (d) {
        case 1: for (long i = 0; i < n; i++) sink = a1(i); break;
        case 2: for (long i = 0; i < n; i++) sink = a2(i); break;
        case 3: for (long i = 0; i < n; i++) sink = a3(i); break;
        case 4: for (long i = 0; i < n; i++) sink = a4(i); break;
        case 5: for (long i = 0; i < n; i++) sink = a5(i); break;
        case 6: for (long i = 0; i < n; i++) sink = a6(i); break;
        case 7: for (long i = 0; i < n; i++) sink = a7(i); break;
        default: for (long i = 0; i < n; i++) sink = a8(i); break;
        }
        long dt = System.nanoTime() - t0;
        System.out.printf("allocations=%d elapsed_ms=%.1f%n", n, dt / 1e6);
    }
}
