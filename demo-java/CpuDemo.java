import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;

/*
 * CpuDemo: CPU work of known shares, for cpu=samples.
 *
 * The main thread alternates two hot methods, hotA (SITE-HOT-A) and hotB
 * (SITE-HOT-B), each burning the CPU for slices of A and B ms (elapsed
 * time), until they have had SECONDS seconds of CPU time in all (or ten
 * times that has elapsed, plus 30 s), and measures how much CPU time each
 * really got, by the thread's own CPU clock
 * (ThreadMXBean.getCurrentThreadCpuTime around each slice). It prints
 * "share hotA=<f> hotB=<f>" (fractions of their sum): a sampler, which
 * counts a thread only when it ran, should attribute the same shares to
 * traces through hotA / hotB. The elapsed-time shares follow on a line
 * "wall hotA=<f> hotB=<f>", for comparison only: on a busy machine the
 * thread is descheduled for part of some slices, so they drift from the
 * CPU shares (a test once saw 68.8 % by the clock against 66 % sampled).
 * A last line "time cpu_ms=<f> wall_ms=<f>" gives the CPU and elapsed time
 * of the slices, over which a test checks the rate of samples delivered.
 *
 * A second thread, "blocked-in-accept", sits in ServerSocket.accept() (a
 * native call that never returns here): it must get no samples. A third,
 * "sleeper", sleeps.
 *
 * usage: java CpuDemo [SECONDS [A_MS [B_MS]]]   (defaults 3, 30, 10: shares 0.75/0.25)
 */
public class CpuDemo {
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        long aMs = args.length > 1 ? Long.parseLong(args[1]) : 30;
        long bMs = args.length > 2 ? Long.parseLong(args[2]) : 10;
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread blocked = new Thread(() -> {
            try {
                server.accept(); // SITE-BLOCKED
            } catch (Exception e) {
                // closed at exit
            }
        }, "blocked-in-accept");
        blocked.setDaemon(true);
        blocked.start();
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // interrupted at exit
            }
        }, "sleeper");
        sleeper.setDaemon(true);
        sleeper.start();

        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isCurrentThreadCpuTimeSupported())
            throw new IllegalStateException("this JVM cannot measure a thread's CPU time");
        mx.setThreadCpuTimeEnabled(true);
        // SECONDS of the thread's CPU time, so a busy machine makes the run
        // longer, not the sample smaller; elapsed time capped all the same
        long want = (long) (seconds * 1e9), cap = System.nanoTime() + 10 * want + 30_000_000_000L;
        long cpuA = 0, cpuB = 0, wallA = 0, wallB = 0;
        while (cpuA + cpuB < want && System.nanoTime() < cap) {
            long c0 = mx.getCurrentThreadCpuTime();
            wallA += hotA(aMs);
            long c1 = mx.getCurrentThreadCpuTime();
            wallB += hotB(bMs);
            long c2 = mx.getCurrentThreadCpuTime();
            cpuA += c1 - c0;
            cpuB += c2 - c1;
        }
        double cpu = cpuA + cpuB, wall = wallA + wallB;
        System.out.printf("share hotA=%.4f hotB=%.4f%n", cpuA / cpu, cpuB / cpu);
        System.out.printf("wall hotA=%.4f hotB=%.4f%n", wallA / wall, wallB / wall);
        System.out.printf("time cpu_ms=%.1f wall_ms=%.1f%n", cpu / 1e6, wall / 1e6);
        server.close();
    }

    /* Burns the CPU for `ms` milliseconds of elapsed time; returns the
     * elapsed nanoseconds spent. */
    static long hotA(long ms) {
        long t0 = System.nanoTime(), stop = t0 + ms * 1_000_000L, x = sink;
        while (System.nanoTime() < stop) {
            for (int i = 0; i < 1000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L; // SITE-HOT-A
        }
        sink = x;
        return System.nanoTime() - t0;
    }

    static long hotB(long ms) {
        long t0 = System.nanoTime(), stop = t0 + ms * 1_000_000L, x = sink;
        while (System.nanoTime() < stop) {
            for (int i = 0; i < 1000; i++)
                x = x * 2862933555777941757L + 3037000493L; // SITE-HOT-B
        }
        sink = x;
        return System.nanoTime() - t0;
    }
}
