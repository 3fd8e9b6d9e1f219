/*
 * MonitorDemo: an exact amount of monitor contention, and one wait, for
 * monitor=y.
 *
 * THREADS threads ("contender-i") play TURNS rounds on the monitor of one
 * shared MonitorDemo.Lock object. In round r, contender r % THREADS is the
 * holder: it enters the monitor first (nobody else is trying yet), lets the
 * others go, and keeps the monitor until every other contender is BLOCKED
 * entering it, then HOLD ms more. Each of the others therefore enters
 * contended exactly once per round (SITE-CONTEND) and holds the monitor
 * HOLD ms itself; a barrier ends the round. The contended entries are
 * exactly (THREADS - 1) * TURNS, whatever the scheduler does; the program
 * prints that number as "contended = <n>".
 *
 * A thread is BLOCKED only once HotSpot has given up spinning and is about
 * to post MonitorContendedEnter, so no entry is counted that JVMTI does not
 * report as contended.
 *
 * main prints "contending" once the rounds start and then joins the
 * contenders. With "steady" as fifth argument, the last round's holder,
 * once the others are blocked, prints "steady" and keeps the monitor until
 * it reads a line from stdin: a state a SIGQUIT dump can be taken in. Then a "waiter" thread calls LOCK.wait(WAIT_MS) once
 * (SITE-WAIT), which times out.
 *
 * usage: java MonitorDemo [THREADS [TURNS [HOLD_MS [WAIT_MS [steady]]]]]   (defaults 4, 10, 5, 100)
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;

public class MonitorDemo {
    static final class Lock {
    }

    static final Lock LOCK = new Lock();

    static void hold(long ms) throws InterruptedException {
        synchronized (LOCK) { // SITE-CONTEND
            Thread.sleep(ms);
        }
    }

    /* the holder's turn: enter uncontended, release the others, keep the
     * monitor until they all block on it */
    static void lead(Thread self, Thread[] all, CountDownLatch go, long ms, boolean steady) throws Exception {
        synchronized (LOCK) {
            go.countDown();
            for (Thread t : all) {
                while (t != self && t.getState() != Thread.State.BLOCKED)
                    Thread.sleep(1);
            }
            if (steady) {
                System.out.println("steady");
                System.out.flush();
                new BufferedReader(new InputStreamReader(System.in)).readLine();
            }
            Thread.sleep(ms);
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int turns = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        long holdMs = args.length > 2 ? Long.parseLong(args[2]) : 5;
        long waitMs = args.length > 3 ? Long.parseLong(args[3]) : 100;
        boolean steady = args.length > 4 && args[4].equals("steady");
        CountDownLatch[] go = new CountDownLatch[turns];
        for (int r = 0; r < turns; r++)
            go[r] = new CountDownLatch(1);
        CyclicBarrier round = new CyclicBarrier(threads);
        Thread[] ts = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            final int me = i;
            ts[i] = new Thread(() -> {
                try {
                    for (int r = 0; r < turns; r++) {
                        round.await();
                        if (r % threads == me) {
                            lead(ts[me], ts, go[r], holdMs, steady && r == turns - 1);
                        } else {
                            go[r].await();
                            hold(holdMs);
                        }
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "contender-" + i);
        }
        for (Thread t : ts)
            t.start();
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
        System.out.println("contended = " + (long) (threads - 1) * turns);
    }
}
