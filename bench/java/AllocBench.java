/*
 * AllocBench: an allocation-heavy program for measuring the agent's cost per
 * allocation. Each of T threads allocates N small objects (24 bytes) from a
 * handful of sites, keeping 1 in 64 so live counts change. It prints the
 * number of allocations, the elapsed time and the process CPU time of the
 * allocating phase (all threads: the agent's and the GC's included, from
 * /proc through ProcessHandle, 10 ms resolution); the bench scripts compare
 * runs with and without the agent, side by side.
 */
public class AllocBench {
    static final class Small { final long a; final int b; Small(long a, int b) { this.a = a; this.b = b; } }
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        long n = args.length > 1 ? Long.parseLong(args[1]) : 20_000_000L;
        Thread[] ts = new Thread[threads];
        ProcessHandle.Info self = ProcessHandle.current().info();
        long c0 = cpuNanos(self);
        long t0 = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            ts[t] = new Thread(() -> run(n), "bench-" + t);
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        long dt = System.nanoTime() - t0;
        long dc = cpuNanos(ProcessHandle.current().info()) - c0;
        System.out.printf("allocations=%d elapsed_ms=%.1f cpu_ms=%.1f%n", threads * n, dt / 1e6, dc / 1e6);
    }

    static long cpuNanos(ProcessHandle.Info i) {
        return i.totalCpuDuration().map(java.time.Duration::toNanos).orElse(-1L);
    }

    static void run(long n) {
        Object[] keep = new Object[1024];
        for (long i = 0; i < n; i++) {
            Object o;
            switch ((int) (i & 3)) {
                case 0: o = new Small(i, 1); break;
                case 1: o = new Small(i, 2); break;
                case 2: o = new Small(i, 3); break;
                default: o = new Small(i, 4); break;
            }
            if ((i & 63) == 0) keep[(int) ((i >> 6) & 1023)] = o;
            else sink = o;
        }
    }
}
