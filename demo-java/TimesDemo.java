/*
 * TimesDemo: calls of known counts, for cpu=times and cpu=old.
 *
 * main calls outer() N times (SITE-CALL-OUTER); each outer() call calls
 * inner() K times (SITE-CALL-INNER), so inner() runs exactly N*K times,
 * always through the trace inner <- outer <- main. thrower() is called T
 * times and always throws (caught in main): its exits by exception count as
 * calls too. sleepy() sleeps S ms once: its self time is at least S ms.
 *
 * usage: java TimesDemo [N [K [T [S]]]]   (defaults 1000, 7, 13, 200)
 */
public class TimesDemo {
    static long sink;

    static int inner(int i) {
        return i * 31 + 7;
    }

    static void outer(int k) {
        for (int i = 0; i < k; i++)
            sink += inner(i); // SITE-CALL-INNER
    }

    static void thrower(int i) {
        throw new IllegalStateException("call " + i);
    }

    static void sleepy(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int k = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        int t = args.length > 2 ? Integer.parseInt(args[2]) : 13;
        long s = args.length > 3 ? Long.parseLong(args[3]) : 200;
        for (int i = 0; i < n; i++)
            outer(k); // SITE-CALL-OUTER
        int caught = 0;
        for (int i = 0; i < t; i++) {
            try {
                thrower(i);
            } catch (IllegalStateException e) {
                caught++;
            }
        }
        sleepy(s);
        System.out.println("calls outer=" + n + " inner=" + ((long) n * k) + " thrower=" + caught + " sleepy=1");
    }
}
