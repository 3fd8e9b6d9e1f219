/*
 * AllocBench: an allocation-heavy program for measuring the agent's cost per
 * allocation. Each of T threads allocates N small objects (24 bytes) from a
 * handful of sites, keeping 1 in 64 so live counts change. It prints the
 * number of allocations and the elapsed time; the bench script compares
 * runs with and without the agent, side by side. cpu_ms is the process CPU
 * time over the same allocating phase (all threads: the program's and the
 * JVM's), so cpu_ms / elapsed_ms is the cores the phase kept busy.
 */
public class AllocBench {
    static final class Small { final long a; final int b; Small(long a, int b) { this.a = a; this.b = b; } }
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        long n = args.length > 1 ? Long.parseLong(args[1]) : 20_000_000L;
        Thread[] ts = new Thread[threads];
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long c0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            ts[t] = new Thread(() -> run(n), "bench-" + t);
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        long dt = System.nanoTime() - t0;
        long dc = os.getProcessCpuTime() - c0;
        System.out.printf("allocations=%d elapsed_ms=%.1f cpu_ms=%.1f%n", threads * n, dt / 1e6, dc / 1e6);
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
