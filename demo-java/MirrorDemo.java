import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/*
 * MirrorDemo: objects held only by java.lang.Class objects' own fields,
 * for heap dumps (a JVMTI heap walk does not report a mirror's fields).
 *
 *  - COUNT (default 20) ClassValue<MirrorDemo$Val>, each computed once for
 *    MirrorDemo$Holder.class: the COUNT MirrorDemo$Val instances are held
 *    only by Holder.class's classValueMap (the ClassValues themselves are
 *    dropped, so each entry is kept by the map alone);
 *  - MirrorDemo$Reflected's declared fields and methods read once by
 *    reflection: its Class.reflectionData caches them (a SoftReference to
 *    arrays of Field and Method);
 *  - int.class.getName() and Holder.class.getName(): the Class.name strings;
 *  - an interface MirrorDemo$Shape (super class: java.lang.Object in
 *    HotSpot's dumps).
 * With an argument "vthreads" (JDK 21+), it also starts 2 virtual threads
 * that each hold one MirrorDemo$VMarker in a local until the end: marker 0
 * in MirrorDemo.spin, which spins (mounted while a dump runs: it never
 * parks), marker 1 in MirrorDemo.parked, which parks (unmounted).
 * Main prints "ready" and waits for stdin to close (or SECONDS to pass).
 *
 * usage: java MirrorDemo [COUNT [SECONDS [vthreads]]]
 */
public class MirrorDemo {
    static final class Val {
        final int n;

        Val(int n) {
            this.n = n;
        }
    }

    static final class Holder {
    }

    interface Shape {
        int sides();
    }

    static final class Square implements Shape {
        public int sides() {
            return 4;
        }
    }

    static final class Reflected {
        int alpha;
        long beta;
        String gamma;

        int one() {
            return 1;
        }

        int two() {
            return 2;
        }
    }

    static final class VMarker {
        final int id;

        VMarker(int id) {
            this.id = id;
        }
    }

    static volatile boolean stop;
    static volatile long sink;
    static Shape SHAPE = new Square();

    public static void main(String[] args) throws Exception {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 60;
        int vthreads = args.length > 2 && args[2].equals("vthreads") ? 2 : 0;
        for (int i = 0; i < count; i++) {
            final int n = i;
            ClassValue<Val> cv = new ClassValue<>() {
                @Override
                protected Val computeValue(Class<?> type) {
                    return new Val(n);
                }
            };
            if (cv.get(Holder.class).n != i)
                throw new AssertionError("ClassValue " + i);
        }
        Field[] fs = Reflected.class.getDeclaredFields();
        Method[] ms = Reflected.class.getDeclaredMethods();
        if (fs.length != 3 || ms.length != 2)
            throw new AssertionError("reflection");
        if (!int.class.getName().equals("int") || Holder.class.getName().isEmpty())
            throw new AssertionError("names");
        CountDownLatch started = new CountDownLatch(vthreads);
        Thread[] vts = new Thread[vthreads];
        for (int i = 0; i < vthreads; i++)
            vts[i] = startVirtual(i, started);
        started.await();
        if (SHAPE.sides() != 4)
            throw new AssertionError("shape");
        System.out.println("ready");
        System.out.flush();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            if (System.in.available() > 0) {
                if (System.in.read() < 0)
                    break;
                continue;
            }
            Thread.sleep(50);
            try {
                if (System.in.read() < 0)
                    break;
            } catch (java.io.IOException e) {
                break;
            }
        }
        stop = true;
        for (Thread t : vts)
            t.join();
    }

    /* Thread.ofVirtual() by reflection: the demo compiles with --release 17 */
    static Thread startVirtual(int i, CountDownLatch started) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Method start = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
        Runnable r = i == 0 ? () -> spin(new VMarker(0), started) : () -> parked(new VMarker(1), started);
        return (Thread) start.invoke(builder, r);
    }

    static void parked(VMarker m, CountDownLatch started) {
        started.countDown();
        while (!stop)
            LockSupport.parkNanos(20_000_000L);
        sink = m.id;
    }

    static void spin(VMarker m, CountDownLatch started) {
        started.countDown();
        long x = 0;
        while (!stop)
            x += m.id + 1;
        sink = x;
    }
}
