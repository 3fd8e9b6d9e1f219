/*
 * CpuBench: a CPU-bound program of fixed work, for measuring a CPU
 * profiler's overhead (elapsed time vs no profiler) and accuracy (the share
 * it attributes to each method vs the share measured here with nanoTime).
 * The main thread runs workA and workB in turn, ROUNDS times, with round
 * lengths drawn from a fixed-seed generator (A gets 3/4 of the iterations
 * on average) so that no sampling period locks onto the rounds; the steps
 * are nonlinear so that no JIT can collapse the loops. It prints
 * "elapsed_ms=<t> shareA=<f>".
 */
public class CpuBench {
    static volatile long sink;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        long inA = 0, inB = 0, t0 = System.nanoTime();
        java.util.Random rnd = new java.util.Random(42);
        for (int r = 0; r < rounds; r++) {
            int na = 1_500_000 + rnd.nextInt(3_000_000);
            int nb = 500_000 + rnd.nextInt(1_000_000);
            long a = System.nanoTime();
            workA(na);
            long b = System.nanoTime();
            workB(nb);
            long c = System.nanoTime();
            inA += b - a;
            inB += c - b;
        }
        long dt = System.nanoTime() - t0;
        System.out.printf("elapsed_ms=%.1f shareA=%.4f%n", dt / 1e6, inA / (double) (inA + inB));
    }

    static void workA(int n) {
        long x = sink;
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + i;
            x ^= x >>> 29;
        }
        sink = x;
    }

    static void workB(int n) {
        long x = sink;
        for (int i = 0; i < n; i++) {
            x = x * 2862933555777941757L + i;
            x ^= x >>> 31;
        }
        sink = x;
    }
}
