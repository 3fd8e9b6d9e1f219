import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/*
 * VThreadDemo: CPU work of known shares, allocations of known counts and
 * monitor contention in virtual threads (JDK 21+; compiled with
 * --release 21, run on JDK 25 only), or the same tasks on platform threads,
 * for the agent's tests (tests/integration/test_agent_vthreads.sh).
 *
 *   java VThreadDemo cpu MODE TASKS
 *       MODE virtual|platform. TASKS tasks (~12 ms of CPU each), in
 *       batches of 8, each in a thread of its own (a new virtual thread
 *       per task, or a pool of 2 platform threads), run hotA
 *       (SITE-VT-HOT-A) then hotB (SITE-VT-HOT-B); hotA does 3 times the
 *       iterations of hotB with the same loop body, so their CPU shares
 *       are 0.75 / 0.25 by construction. A fixed amount of work, not of
 *       time: a busy machine makes the run longer, not the sample
 *       smaller. Prints "tasks=<n>".
 *   java VThreadDemo alloc TASKS
 *       TASKS virtual threads, each allocating exactly ALLOCS Blob objects
 *       (SITE-VT-BLOB) and ending. Prints "blobs=<n>".
 *   java VThreadDemo monitor TASKS
 *       TASKS virtual threads that each enter one shared monitor
 *       (SITE-VT-LOCK) while the main thread holds it for HOLD_MS ms, so
 *       each of them contends once; then each waits (Object.wait) on its
 *       own object for WAIT_MS ms (SITE-VT-WAIT).
 *   java VThreadDemo times TASKS
 *       TASKS virtual threads, each running compute (SITE-VT-COMPUTE, a
 *       fixed loop) and then idle: sleeping (Thread.sleep), parking
 *       (LockSupport.parkNanos) and waiting (Object.wait) IDLE_MS ms each.
 *   java VThreadDemo churn TASKS
 *       TASKS short virtual threads (a few allocations each), in batches,
 *       for memory measurements; prints the RSS of the process at the end.
 *   java VThreadDemo short TASKS ITER
 *       TASKS short virtual threads, at most 1000 alive at a time, each
 *       running a loop of ITER iterations; prints "elapsed_ms=<n>
 *       cpu_ms=<n>" for the tasks alone: elapsed time, and the CPU time of
 *       the whole process meanwhile (every thread: the JVM's, an agent's)
 *       (bench/vthreads_bench.sh).
 */
public class VThreadDemo {
    static final int UNIT = 200_000;   // iterations of hotB per task (~1 ms)
    static final int ALLOCS = 100;     // Blobs per task in `alloc`
    static final long HOLD_MS = 300;
    static final long WAIT_MS = 50;
    static final long IDLE_MS = 100;
    static volatile long sink;

    static final class Blob {
        long a, b;
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "cpu" -> cpu(args[1], Integer.parseInt(args[2]));
            case "alloc" -> alloc(Integer.parseInt(args[1]));
            case "monitor" -> monitor(Integer.parseInt(args[1]));
            case "times" -> times(Integer.parseInt(args[1]));
            case "churn" -> churn(Integer.parseInt(args[1]));
            case "short" -> shortTasks(Integer.parseInt(args[1]), Long.parseLong(args[2]));
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    static long spin(long n, long x) {
        for (long i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long hotA(long n) {
        long x = n | 1;
        for (long i = 0; i < n; i++) { // SITE-VT-HOT-A
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long hotB(long n) {
        long x = n | 1;
        for (long i = 0; i < n; i++) { // SITE-VT-HOT-B
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static void task() {
        sink += hotA(3L * 10 * UNIT);
        sink += hotB(10L * UNIT);
    }

    static void cpu(String mode, int total) throws Exception {
        ExecutorService ex = mode.equals("virtual") ? Executors.newVirtualThreadPerTaskExecutor()
                : Executors.newFixedThreadPool(2);
        int tasks = 0;
        while (tasks < total) {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < 8; i++)
                fs.add(ex.submit(VThreadDemo::task));
            for (Future<?> f : fs)
                f.get();
            tasks += fs.size();
        }
        ex.shutdown();
        System.out.println("tasks=" + tasks);
    }

    static Blob[] keep = new Blob[ALLOCS];

    static void allocTask() {
        for (int i = 0; i < ALLOCS; i++)
            keep[i] = new Blob(); // SITE-VT-BLOB
    }

    static void alloc(int tasks) throws Exception {
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < tasks; i++)
                ex.submit(VThreadDemo::allocTask);
        }
        System.out.println("blobs=" + (long) tasks * ALLOCS);
    }

    static final Object LOCK = new Object();

    static void monitor(int tasks) throws Exception {
        List<Thread> ts = new ArrayList<>();
        synchronized (LOCK) {
            for (int i = 0; i < tasks; i++) {
                ts.add(Thread.ofVirtual().start(() -> {
                    synchronized (LOCK) { // SITE-VT-LOCK
                        sink++;
                    }
                    Object mine = new Object();
                    synchronized (mine) {
                        try {
                            mine.wait(WAIT_MS); // SITE-VT-WAIT
                        } catch (InterruptedException e) {
                            throw new RuntimeException(e);
                        }
                    }
                }));
            }
            Thread.sleep(HOLD_MS);
        }
        for (Thread t : ts)
            t.join();
        System.out.println("contended=" + tasks);
    }

    static long compute() {
        return spin(20L * UNIT, 7); // SITE-VT-COMPUTE
    }

    static void idle() throws InterruptedException {
        Thread.sleep(IDLE_MS);
        java.util.concurrent.locks.LockSupport.parkNanos(IDLE_MS * 1_000_000L);
        Object o = new Object();
        synchronized (o) {
            o.wait(IDLE_MS);
        }
    }

    static void timesTask() {
        sink += compute();
        try {
            idle();
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    static void times(int tasks) throws Exception {
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < tasks; i++)
                ex.submit(VThreadDemo::timesTask);
        }
        System.out.println("tasks=" + tasks);
    }

    static void churn(int tasks) throws Exception {
        int batch = 10_000;
        for (int done = 0; done < tasks; done += batch) {
            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < batch && done + i < tasks; i++)
                    ex.submit(VThreadDemo::allocOne);
            }
        }
        String rss = java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("VmRSS:")).findFirst().orElse("VmRSS: ?");
        System.out.println("churned=" + tasks + " " + rss.replaceAll("\\s+", " "));
    }

    static void shortTasks(int tasks, long iter) throws Exception {
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean();
        long c0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        java.util.concurrent.Semaphore alive = new java.util.concurrent.Semaphore(1000);
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < tasks; i++) {
                alive.acquire();
                ex.submit(() -> {
                    try {
                        sink += spin(iter, 3);
                    } finally {
                        alive.release();
                    }
                });
            }
        }
        long elapsed = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("elapsed_ms=" + elapsed + " cpu_ms=" + (os.getProcessCpuTime() - c0) / 1_000_000);
    }

    static void allocOne() {
        keep[0] = new Blob();
    }
}
