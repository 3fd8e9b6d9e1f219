/*
 * ThreadChurnDemo: many threads start and end while others allocate, for the
 * agent's robustness tests (tests/integration/test_agent_robust.sh).
 *
 * usage: java ThreadChurnDemo ROUNDS PER_ROUND ALLOCS
 *
 * With ROUNDS = R, PER_ROUND = W and ALLOCS = X it does exactly this:
 *  - R rounds; round r starts W threads named "churn-r-i" (i = 0..W-1); main
 *    starts round r+1 before it joins round r, so threads of two rounds start,
 *    allocate and end at the same time: R * W threads in all, each with one
 *    THREAD START and one THREAD END;
 *  - each thread allocates X objects of ThreadChurnDemo$Bit in
 *    ThreadChurnDemo.churn, on the line marked SITE-BIT, each stored in a
 *    volatile static and dropped: R * W * X Bit allocated (16 bytes each on
 *    64-bit HotSpot with compressed oops), none live after the final GC;
 *  - then main calls System.gc() and prints "churned <R*W> threads".
 * Bit is allocated nowhere else.
 */
public class ThreadChurnDemo {
    static final class Bit {
        final int v;

        Bit(int v) {
            this.v = v;
        }
    }

    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        int perRound = Integer.parseInt(args[1]);
        int allocs = Integer.parseInt(args[2]);
        Thread[] previous = new Thread[0];
        for (int r = 0; r < rounds; r++) {
            Thread[] current = new Thread[perRound];
            for (int i = 0; i < perRound; i++) {
                current[i] = new Thread(() -> churn(allocs), "churn-" + r + "-" + i);
                current[i].start();
            }
            for (Thread t : previous) {
                t.join();
            }
            previous = current;
        }
        for (Thread t : previous) {
            t.join();
        }
        sink = null;
        System.gc();
        System.out.println("churned " + (long) rounds * perRound + " threads");
    }

    static void churn(int n) {
        for (int i = 0; i < n; i++) {
            sink = new Bit(i); // SITE-BIT
        }
    }
}
