/*
 * UnloadDemo: classes defined by custom class loaders, used, then unloaded,
 * for the agent's robustness tests (tests/integration/test_agent_robust.sh).
 *
 * usage: java UnloadDemo LOADERS OBJECTS
 *
 * With LOADERS = L and OBJECTS = N it does exactly this:
 *  - L times: a fresh UnloadDemo$Isolating loader defines the class
 *    UnloadDemo$Victim from the bytes of its class file (read as a resource),
 *    so L distinct classes named UnloadDemo$Victim exist, one per loader;
 *  - through reflection it calls that class's static Victim.make(N), which
 *    allocates N Victim objects on the line marked SITE-VICTIM and returns
 *    them in an Object[] (line SITE-VICTIM-ARRAY); the objects, the class and
 *    the loader are then dropped:
 *      L * N Victim allocated (16 bytes each on 64-bit HotSpot with
 *      compressed oops), 0 live after the GCs below;
 *  - it keeps only a WeakReference to each Victim class and calls
 *    System.gc() (up to 50 times) until all L are cleared, i.e. the classes
 *    were unloaded; then prints "unloaded <count> of <L>" and exits 0 if all
 *    were unloaded, 3 otherwise.
 */
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;

public class UnloadDemo {
    /** Defined anew by each loader: the unit of unloading. */
    public static final class Victim {
        final int id;

        Victim(int id) {
            this.id = id;
        }

        public static Object[] make(int n) {
            Object[] out = new Object[n]; // SITE-VICTIM-ARRAY
            for (int i = 0; i < n; i++) {
                out[i] = new Victim(i); // SITE-VICTIM
            }
            return out;
        }
    }

    /** Defines Victim itself from bytes; delegates everything else. */
    static final class Isolating extends ClassLoader {
        private final byte[] bytes;

        Isolating(byte[] bytes) {
            super(UnloadDemo.class.getClassLoader());
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals("UnloadDemo$Victim")) {
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

    static volatile long sink;

    public static void main(String[] args) throws Exception {
        int loaders = Integer.parseInt(args[0]);
        int objects = Integer.parseInt(args[1]);
        byte[] bytes;
        try (InputStream in = UnloadDemo.class.getResourceAsStream("UnloadDemo$Victim.class")) {
            bytes = in.readAllBytes();
        }
        @SuppressWarnings("unchecked")
        WeakReference<Class<?>>[] refs = new WeakReference[loaders];
        for (int l = 0; l < loaders; l++) {
            refs[l] = new WeakReference<>(useOnce(bytes, objects));
        }
        int cleared = 0;
        for (int round = 0; round < 50 && cleared < loaders; round++) {
            System.gc();
            Thread.sleep(20);
            cleared = 0;
            for (WeakReference<Class<?>> r : refs) {
                if (r.get() == null) {
                    cleared++;
                }
            }
        }
        System.out.println("unloaded " + cleared + " of " + loaders);
        System.exit(cleared == loaders ? 0 : 3);
    }

    static Class<?> useOnce(byte[] bytes, int objects) throws Exception {
        Class<?> c = new Isolating(bytes).loadClass("UnloadDemo$Victim");
        if (c.getClassLoader() == UnloadDemo.class.getClassLoader()) {
            throw new IllegalStateException("Victim was not defined by the custom loader");
        }
        Method make = c.getMethod("make", int.class);
        Object[] made = (Object[]) make.invoke(null, objects);
        sink += made.length;
        return c;
    }
}
