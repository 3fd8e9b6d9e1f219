import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/*
 * IdleDemo: work next to waiting, on platform threads (JDK 17 and 25), for
 * cpu=times (waiting is not work) and cpu=samples (a thread blocked in a
 * native method gets no sample, the Reference Handler included).
 *
 * The main thread computes in compute() (SITE-IDLE-COMPUTE) for COMPUTE_MS
 * ms of its own CPU time (its CPU clock, ThreadMXBean), while a thread
 * "idler" spends IDLE_MS ms in each of: sleepy() (Thread.sleep), parky()
 * (LockSupport.parkNanos), waity() (Object.wait with a timeout) and
 * blocky() (a ServerSocket.accept that times out: blocked in native code).
 * Meanwhile refs() gives the Reference Handler work: ROUNDS times, REFS
 * weak references registered with a queue lose their referents and a
 * System.gc() makes them pending, so the Reference Handler runs (in Java,
 * enqueueing them) and then blocks again in its native
 * waitForReferencePendingList. It prints "compute_ms=<cpu ms> idle_ms=<ms>
 * enqueued=<n>".
 *
 * usage: java IdleDemo [COMPUTE_MS [IDLE_MS [ROUNDS]]]   (defaults 1500, 300, 6)
 */
public class IdleDemo {
    static final int REFS = 200_000;
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        long computeMs = args.length > 0 ? Long.parseLong(args[0]) : 1500;
        long idleMs = args.length > 1 ? Long.parseLong(args[1]) : 300;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6;
        // the first timed accept loads and initialises the network classes,
        // links their native methods and builds the timeout exception (work,
        // and slow under cpu=times): done here, so that blocky() only waits
        warmAccept();
        Thread idler = new Thread(() -> {
            try {
                sleepy(idleMs);
                parky(idleMs);
                waity(idleMs);
                blocky(idleMs);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }, "idler");
        idler.start();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long c0 = mx.getCurrentThreadCpuTime();
        long enqueued = 0;
        for (int r = 0; r < rounds; r++) {
            enqueued += refs();
            compute(computeMs / rounds, mx);
        }
        idler.join();
        long cpu = (mx.getCurrentThreadCpuTime() - c0) / 1_000_000;
        System.out.println("compute_ms=" + cpu + " idle_ms=" + idleMs + " enqueued=" + enqueued);
    }

    /* Burns the CPU until this thread's CPU clock advanced by `ms`. */
    static void compute(long ms, ThreadMXBean mx) {
        long end = mx.getCurrentThreadCpuTime() + ms * 1_000_000L;
        long x = 1;
        while (mx.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 100_000; i++) { // SITE-IDLE-COMPUTE
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        sink += x;
    }

    static void sleepy(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }

    static void parky(long ms) {
        long end = System.nanoTime() + ms * 1_000_000L;
        for (long left; (left = end - System.nanoTime()) > 0; )
            LockSupport.parkNanos(left);
    }

    static void waity(long ms) throws InterruptedException {
        Object o = new Object();
        long end = System.nanoTime() + ms * 1_000_000L;
        synchronized (o) {
            for (long left; (left = (end - System.nanoTime()) / 1_000_000L) > 0; )
                o.wait(left);
        }
    }

    /* blocky()'s path once with a 1 ms timeout, from another method so
     * that its work is not blocky()'s. */
    static void warmAccept() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setSoTimeout(1);
            s.accept();
        } catch (SocketTimeoutException expected) {
            // warmed
        }
    }

    static void blocky(long ms) throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setSoTimeout((int) ms);
            s.accept();
        } catch (SocketTimeoutException expected) {
            // the point: ms in a native accept
        }
    }

    /* REFS weak references whose referents die, then a GC: the Reference
     * Handler enqueues them. Returns how many were enqueued. */
    static long refs() throws InterruptedException {
        ReferenceQueue<Object> q = new ReferenceQueue<>();
        List<WeakReference<Object>> keep = new ArrayList<>(REFS);
        for (int i = 0; i < REFS; i++)
            keep.add(new WeakReference<>(new Object(), q));
        System.gc();
        // polled, not q.remove(): a remove() per reference would wake this
        // thread from Object.wait a million times, busy in the handoff
        long n = 0, until = System.nanoTime() + 10_000_000_000L;
        while (n < REFS && System.nanoTime() < until) {
            if (q.poll() != null)
                n++;
            else
                Thread.sleep(1);
        }
        sink += keep.size();
        return n;
    }
}
