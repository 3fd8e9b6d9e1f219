/*
 * MonitorDemo: known monitor contention and waits, for monitor=y.
 *
 * THREADS threads ("contender-i") each take the monitor of one shared
 * MonitorDemo.Lock object TURNS times and hold it HOLD ms each time
 * (SITE-CONTEND), so most entries are contended; main prints "contending"
 * once they are released and then joins them. Then a "waiter" thread calls
 * LOCK.wait(WAIT_MS) once (SITE-WAIT), which times out. The program prints
 * the number of its contended entries as it measured them (an entry that
 * took more than 1 ms): "contended >= <n>".
 *
 * usage: java MonitorDemo [THREADS [TURNS [HOLD_MS [WAIT_MS]]]]   (defaults 4, 10, 5, 100)
 */
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

public class MonitorDemo {
    static final class Lock {
    }

    static final Lock LOCK = new Lock();
    static final AtomicInteger slowEntries = new AtomicInteger();

    static void hold(long ms) throws InterruptedException {
        long t0 = System.nanoTime();
        synchronized (LOCK) { // SITE-CONTEND
            if (System.nanoTime() - t0 > 1_000_000)
                slowEntries.incrementAndGet();
            Thread.sleep(ms);
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int turns = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        long holdMs = args.length > 2 ? Long.parseLong(args[2]) : 5;
        long waitMs = args.length > 3 ? Long.parseLong(args[3]) : 100;
        CountDownLatch start = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            ts[i] = new Thread(() -> {
                try {
                    start.await();
                    for (int k = 0; k < turns; k++)
                        hold(holdMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "contender-" + i);
            ts[i].start();
        }
        start.countDown();
        System.out.println("contending");
        System.out.flush();
        for (Thread t : ts)
            t.join();
        Thread waiter = new Thread(() -> {
            synchronized (LOCK) {
                try {
                    LOCK.wait(waitMs); // SITE-WAIT
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "waiter");
        waiter.start();
        waiter.join();
        System.out.println("contended >= " + slowEntries.get());
    }
}
