/*
 * StressDemo: programs that put the agent under the pressure that once froze
 * JVMs (GC storms, exit while everything runs, classes coming and going), for
 * the stress suite (tests/stress/). Unlike the other demos its counts are not
 * exact: what the stress suite checks is that the JVM always exits, with the
 * status the program chose, and that every output is complete and clean.
 *
 * usage: java StressDemo MODE THREADS MILLIS [STATUS [STOPFILE]]
 *
 *  churn   THREADS threads allocate small objects as fast as they can, each
 *          keeping a ring of 4096 of them (so every GC has live objects to
 *          keep and dead ones to free, and a small -Xmx collects all the
 *          time); after MILLIS ms a thread named "exiter" calls
 *          System.exit(STATUS) while they still allocate.
 *  gc      as churn, plus one thread calling System.gc() in a loop.
 *  classes as churn, plus one thread that defines a class by a fresh class
 *          loader, allocates 100 of its objects in an array of that class
 *          (so an array class is made too), drops them, the class and the
 *          loader, over and over (classes load and unload all the time).
 *  threads as churn, plus one thread that starts short-lived threads two at a
 *          time, over and over: each allocates 2000 small objects (keeping
 *          the last 64) and ends (threads come and go while others allocate
 *          and the agent counts).
 *  run     as churn, but the workers keep going until MILLIS ms have passed
 *          and the program returns from main (no System.exit).
 * It prints "ready" once every worker allocates, then "exiting STATUS".
 * With STOPFILE, the end (System.exit, or the return from main) comes as
 * soon as that file exists, or after MILLIS ms, whichever is first.
 */
import java.io.File;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;

public class StressDemo {
    /** Defined anew by each loader in the "classes" mode. */
    public static final class Transient {
        final long v;

        Transient(long v) {
            this.v = v;
        }

        public static Object[] make(int n) {
            Transient[] out = new Transient[n]; // a new array class with each new class
            for (int i = 0; i < n; i++) {
                out[i] = new Transient(i);
            }
            return out;
        }
    }

    static final class Isolating extends ClassLoader {
        private final byte[] bytes;

        Isolating(byte[] bytes) {
            super(StressDemo.class.getClassLoader());
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals("StressDemo$Transient")) {
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    if (c == null) {
                        c = defineClass(name, bytes, 0, bytes.length);
                    }
                    return c;
                }
            }
            return super.loadClass(name, resolve);
        }
    }

    static final class Cell {
        final long a;
        final Object b;

        Cell(long a, Object b) {
            this.a = a;
            this.b = b;
        }
    }

    static volatile boolean stop;
    static volatile long sink;

    static void allocate(int id, CountDownLatch started) {
        Object[] ring = new Object[4096];
        long n = 0;
        boolean counted = false;
        while (!stop) {
            int k = (int) (n & 4095);
            switch ((int) (n % 3)) {
                case 0:
                    ring[k] = new Cell(n, null);
                    break;
                case 1:
                    ring[k] = new int[(int) (n & 63)];
                    break;
                default: // a reference into the ring, never a chain (bounded)
                    Object o = ring[(k + 1) & 4095];
                    ring[k] = new Cell(n, o instanceof int[] ? o : null);
            }
            n++;
            if (!counted && n > 10000) {
                counted = true;
                started.countDown();
            }
        }
        sink += n;
    }

    static void shortLived() {
        Object[] keep = new Object[64];
        for (int i = 0; i < 2000; i++) {
            keep[i & 63] = new Cell(i, null);
        }
        sink += keep.length;
    }

    /** Sleeps MILLIS ms, or until stopFile exists. */
    static void pause(long millis, File stopFile) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            if (stopFile != null && stopFile.exists()) {
                return;
            }
            Thread.sleep(stopFile != null ? 10 : Math.max(1, millis));
        }
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int threads = Integer.parseInt(args[1]);
        long millis = Long.parseLong(args[2]);
        int status = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        File stopFile = args.length > 4 ? new File(args[4]) : null;
        CountDownLatch started = new CountDownLatch(threads);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            workers[t] = new Thread(() -> allocate(id, started), "stress-" + t);
            workers[t].setDaemon(!mode.equals("run"));
            workers[t].start();
        }
        if (mode.equals("gc")) {
            Thread g = new Thread(() -> {
                while (!stop) {
                    System.gc();
                }
            }, "stress-gc");
            g.setDaemon(true);
            g.start();
        }
        if (mode.equals("threads")) {
            Thread s = new Thread(() -> {
                try {
                    while (!stop) {
                        Thread a = new Thread(StressDemo::shortLived, "stress-short-a");
                        Thread b = new Thread(StressDemo::shortLived, "stress-short-b");
                        a.setDaemon(true);
                        b.setDaemon(true);
                        a.start();
                        b.start();
                        a.join();
                        b.join();
                    }
                } catch (InterruptedException e) {
                    // the end
                }
            }, "stress-threads");
            s.setDaemon(true);
            s.start();
        }
        if (mode.equals("classes")) {
            byte[] bytes;
            try (InputStream in = StressDemo.class.getResourceAsStream("StressDemo$Transient.class")) {
                bytes = in.readAllBytes();
            }
            Thread c = new Thread(() -> {
                try {
                    while (!stop) {
                        Class<?> k = new Isolating(bytes).loadClass("StressDemo$Transient");
                        Method make = k.getMethod("make", int.class);
                        sink += ((Object[]) make.invoke(null, 100)).length;
                    }
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }, "stress-classes");
            c.setDaemon(true);
            c.start();
        }
        started.await();
        System.out.println("ready");
        System.out.flush();
        if (mode.equals("run")) {
            pause(millis, stopFile);
            stop = true;
            for (Thread w : workers) {
                w.join();
            }
            System.out.println("exiting " + status);
            return;
        }
        Thread exiter = new Thread(() -> {
            try {
                pause(millis, stopFile);
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("exiting " + status);
            System.out.flush();
            System.exit(status);
        }, "exiter");
        exiter.start();
        exiter.join(); // never returns: System.exit ends the JVM
    }
}
