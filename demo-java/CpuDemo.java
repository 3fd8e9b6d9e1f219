import java.net.InetAddress;
import java.net.ServerSocket;

/*
 * CpuDemo: CPU work of known shares, for cpu=samples.
 *
 * The main thread alternates two hot methods, hotA (SITE-HOT-A) and hotB
 * (SITE-HOT-B), each burning the CPU for slices of A and B ms, for about
 * SECONDS seconds in all, and measures with System.nanoTime how long each
 * really ran. It prints "share hotA=<f> hotB=<f>" (fractions of their sum):
 * a sampler should attribute the same shares to traces through hotA / hotB.
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

        long end = System.nanoTime() + (long) (seconds * 1e9);
        long inA = 0, inB = 0;
        while (System.nanoTime() < end) {
            inA += hotA(aMs);
            inB += hotB(bMs);
        }
        double total = inA + inB;
        System.out.printf("share hotA=%.4f hotB=%.4f%n", inA / total, inB / total);
        server.close();
    }

    /* Burns the CPU for `ms` milliseconds; returns the nanoseconds spent. */
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
