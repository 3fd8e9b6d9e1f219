/*
 * ExitDemo: a JVM that ends through System.exit, called from another thread
 * while worker threads still allocate, for the agent's robustness tests
 * (tests/integration/test_agent_robust.sh).
 *
 * usage: java ExitDemo THREADS PER_THREAD STATUS
 *
 * With THREADS = T, PER_THREAD = N and STATUS = S it does exactly this:
 *  - starts T non-daemon threads named "exit-0" .. "exit-(T-1)"; each first
 *    allocates N objects of ExitDemo$Before in ExitDemo.before, on the line
 *    marked SITE-BEFORE, keeps them all (T * N Before allocated and live),
 *    then counts down a latch and allocates ExitDemo$After objects (line
 *    SITE-AFTER, each dropped at once) in an endless loop: an unknown number;
 *  - a thread named "exiter" waits for the latch (all Before allocated),
 *    prints "exiting <S>" and calls System.exit(S) while the workers are
 *    still allocating; main is blocked in join() and never returns.
 * The JVM's exit status is S.
 */
import java.util.concurrent.CountDownLatch;

public class ExitDemo {
    static final class Before {
        final long v;

        Before(long v) {
            this.v = v;
        }
    }

    static final class After {
        final long v;

        After(long v) {
            this.v = v;
        }
    }

    static Before[][] KEEP;
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int perThread = Integer.parseInt(args[1]);
        int status = Integer.parseInt(args[2]);
        KEEP = new Before[threads][];
        CountDownLatch done = new CountDownLatch(threads);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int index = t;
            workers[t] = new Thread(() -> {
                KEEP[index] = before(perThread);
                done.countDown();
                after();
            }, "exit-" + t);
            workers[t].start();
        }
        Thread exiter = new Thread(() -> {
            try {
                done.await();
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("exiting " + status);
            System.out.flush();
            System.exit(status);
        }, "exiter");
        exiter.start();
        for (Thread w : workers) {
            w.join();
        }
    }

    static Before[] before(int n) {
        Before[] out = new Before[n];
        for (int i = 0; i < n; i++) {
            out[i] = new Before(i); // SITE-BEFORE
        }
        return out;
    }

    static void after() {
        for (long i = 0; ; i++) {
            sink = new After(i); // SITE-AFTER
        }
    }
}
