/*
 * AllocDemo: a Java program whose allocations are known exactly, for the demo
 * and for agent tests (heap=sites, heap=dump, cpu=samples).
 *
 * usage: java AllocDemo [THREADS [PER_THREAD [HOLD_MS]]]     (defaults 4 25000 0)
 *
 * With THREADS = T and PER_THREAD = P it does exactly this:
 *  - starts T threads named "alloc-0" .. "alloc-(T-1)", released together;
 *  - each allocates P objects of AllocDemo$Payload in AllocDemo.allocate, on
 *    the line marked ALLOC-SITE-PAYLOAD (line 98), and keeps every one of them
 *    reachable from the static AllocDemo.KEEP until the program exits:
 *      T * P Payload live and allocated (100000 with the defaults), held in
 *      T arrays Payload[P] inside one Payload[T][] (the only other arrays of
 *      these types);
 *  - each also allocates P objects of AllocDemo$Temp in AllocDemo.churn, on
 *    the line marked ALLOC-SITE-TEMP (line 106), and drops them at once:
 *      T * P Temp allocated, 0 reachable after a GC;
 *  - main then sleeps HOLD_MS milliseconds (time to attach an agent or ask
 *    for a dump) and prints "AllocDemo done: <T*P> payloads, checksum <c>".
 * Payload and Temp are allocated nowhere else. The checksum (the sum of the
 * payload values) only keeps the JIT from removing the allocations.
 * Stack at the Payload site, innermost first: AllocDemo.allocate (line 98),
 * AllocDemo.work, AllocDemo.lambda$main$0, java.lang.Thread.run...
 */
import java.util.concurrent.CountDownLatch;

public class AllocDemo {
    /** An object kept live: allocated T * P times. */
    static final class Payload {
        final int id;
        final long value;

        Payload(int id, long value) {
            this.id = id;
            this.value = value;
        }
    }

    /** An object dropped at once: allocated T * P times, none reachable. */
    static final class Temp {
        final long value;

        Temp(long value) {
            this.value = value;
        }
    }

    /* One array per thread, so that no lock is needed to keep the payloads. */
    static Payload[][] KEEP;
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int perThread = args.length > 1 ? Integer.parseInt(args[1]) : 25000;
        long holdMs = args.length > 2 ? Long.parseLong(args[2]) : 0;
        if (threads < 1 || perThread < 0 || holdMs < 0) {
            System.err.println("usage: java AllocDemo [THREADS>=1 [PER_THREAD>=0 [HOLD_MS>=0]]]");
            System.exit(2);
        }
        KEEP = new Payload[threads][];
        CountDownLatch start = new CountDownLatch(1);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int index = t;
            workers[t] = new Thread(() -> work(start, index, perThread), "alloc-" + t);
            workers[t].start();
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long checksum = 0;
        for (Payload[] ps : KEEP) {
            for (Payload p : ps) {
                checksum += p.value;
            }
        }
        if (holdMs > 0) {
            Thread.sleep(holdMs);
        }
        System.out.println("AllocDemo done: " + (long) threads * perThread + " payloads, checksum " + checksum);
    }

    static void work(CountDownLatch start, int index, int perThread) {
        try {
            start.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        KEEP[index] = allocate(index, perThread);
        churn(perThread);
    }

    static Payload[] allocate(int index, int n) {
        Payload[] out = new Payload[n];
        for (int i = 0; i < n; i++) {
            out[i] = new Payload(i, (long) index * n + i); // ALLOC-SITE-PAYLOAD
        }
        return out;
    }

    static void churn(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            Temp t = new Temp(i); // ALLOC-SITE-TEMP
            s += t.value;
        }
        sink = s;
    }
}
