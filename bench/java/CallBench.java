/*
 * CallBench: a call-heavy program of fixed work, for measuring cpu=times
 * (whose cost is per method call). ITER times, main calls mid(i), which
 * calls leaf() twice, and leaf(i) once: 4 calls of our own per iteration
 * (plus none from the JDK in the loop). It prints
 * "elapsed_ms=<t> calls=<n>".
 */
public class CallBench {
    static volatile long sink;

    static long leaf(long x) {
        return x * 6364136223846793005L + 1442695040888963407L;
    }

    static long mid(long x) {
        return leaf(x) ^ leaf(x >>> 7);
    }

    public static void main(String[] args) {
        int iter = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        long x = 1, t0 = System.nanoTime();
        for (int i = 0; i < iter; i++)
            x += mid(x + i) + leaf(i);
        sink = x;
        long dt = System.nanoTime() - t0;
        System.out.printf("elapsed_ms=%.1f calls=%d%n", dt / 1e6, 4L * iter);
    }
}
