import java.lang.ref.Reference;
import java.util.concurrent.CountDownLatch;

/*
 * SuspectDemo: a heap with two leak suspects known by construction, for
 * `hprof report` (tests/integration/test_report_heap.sh):
 *  - CACHE: a long[100][] of long[4000] (16 + 4 * 100 = 416 bytes and 100 x
 *    (16 + 8 * 4000) = 3 201 600 bytes: 3 202 016 bytes, 101 objects), held
 *    only by a local variable `cache` of main(), at the line marked
 *    SUSPECT-ROOT: an object suspect of 102 objects (the class object of
 *    long[][] too: only this array refers to it), whose path from a GC root
 *    is the Java frame of main() in the thread named "main", at that line;
 *  - 4 SuspectDemo$Session, each held only by a local variable of its own
 *    thread ("worker-0".."worker-3"), each with a byte[600000] `data`
 *    (16 + 600 000 bytes; a Session 16 bytes: 600 032 bytes, 2 objects
 *    retained each), whose frame waits at done.await(): top-level dominators, each under 10 % of the heap,
 *    together over it: a class suspect of 4 instances, 2 400 128 bytes,
 *    8 objects.
 * Prints "ready <pid>" and waits for standard input to close.
 *
 * usage: java SuspectDemo
 */
public class SuspectDemo {
    static final int ROWS = 100, ROW_LONGS = 4000, WORKERS = 4, SESSION_BYTES = 600_000;

    static final class Session {
        byte[] data;
    }

    public static void main(String[] args) throws Exception {
        long[][] cache = new long[ROWS][];
        for (int i = 0; i < ROWS; i++)
            cache[i] = new long[ROW_LONGS];
        CountDownLatch started = new CountDownLatch(WORKERS), done = new CountDownLatch(1);
        Thread[] workers = new Thread[WORKERS];
        for (int w = 0; w < WORKERS; w++) {
            workers[w] = new Thread(() -> {
                Session s = new Session();
                s.data = new byte[SESSION_BYTES];
                started.countDown();
                try {
                    done.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                Reference.reachabilityFence(s);
            }, "worker-" + w);
            workers[w].start();
        }
        started.await();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (System.in.read() >= 0) { // SUSPECT-ROOT
            // wait for EOF
        }
        done.countDown();
        for (Thread t : workers)
            t.join();
        Reference.reachabilityFence(cache);
    }
}
