/*
 * LiveDemo: known live and dead objects at the JVM's exit, and one site
 * that allocates more than 4 GiB, for the agent's exit and saturation tests
 * (tests/integration/test_agent_sites.sh).
 *
 * usage: java LiveDemo HOW KEEP DROP [HOOK_OBJS]
 *        java LiveDemo big ARRAYS
 *
 * With HOW = return|exit|halt|hook, KEEP = K and DROP = D it does exactly
 * this, on the main thread, and never calls System.gc():
 *  - allocates K LiveDemo$Kept (16 bytes each with compressed oops: 12
 *    header + int) at the line marked SITE-KEPT and keeps them in a static
 *    array: K allocated, K live at the exit;
 *  - allocates D LiveDemo$Dropped (16 bytes) at the line marked
 *    SITE-DROPPED and keeps none: D allocated, 0 live once a GC ran. D is
 *    small (a few MB) so that no GC of the JVM's own runs before the exit;
 *  - prints "ready", then ends: `return` returns from main; `exit` calls
 *    System.exit(0); `halt` calls Runtime.getRuntime().halt(0), which runs
 *    no shutdown hook; `hook` registers a shutdown hook that waits 500 ms
 *    (the agent's own hook has forced its GC by then) and allocates
 *    HOOK_OBJS (default 1000) LiveDemo$Late at the line SITE-LATE, kept
 *    until the exit, then returns from main.
 * The exit status is 0.
 *
 * With `big`: allocates ARRAYS long[1048576] (8 MiB + 16 bytes header each)
 * at the line marked SITE-BIG, keeping only the last one, then returns:
 * 600 arrays are 5 033 174 400 bytes, more than a u4 (4 294 967 295).
 */
public class LiveDemo {
    static final class Kept {
        final int v;

        Kept(int v) {
            this.v = v;
        }
    }

    static final class Dropped {
        final int v;

        Dropped(int v) {
            this.v = v;
        }
    }

    static final class Late {
        final int v;

        Late(int v) {
            this.v = v;
        }
    }

    static Kept[] KEEP;
    static Late[] LATE;
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        String how = args[0];
        if (how.equals("big")) {
            int n = Integer.parseInt(args[1]);
            for (int i = 0; i < n; i++)
                sink = new long[1 << 20]; // SITE-BIG
            System.out.println("ready");
            return;
        }
        int keep = Integer.parseInt(args[1]);
        int drop = Integer.parseInt(args[2]);
        int late = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        KEEP = new Kept[keep];
        for (int i = 0; i < keep; i++)
            KEEP[i] = new Kept(i); // SITE-KEPT
        for (int i = 0; i < drop; i++)
            sink = new Dropped(i); // SITE-DROPPED
        sink = null;
        System.out.println("ready");
        System.out.flush();
        switch (how) {
        case "return":
            return;
        case "exit":
            System.exit(0);
            break;
        case "halt":
            Runtime.getRuntime().halt(0);
            break;
        case "hook":
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    return;
                }
                Late[] l = new Late[late];
                for (int i = 0; i < late; i++)
                    l[i] = new Late(i); // SITE-LATE
                LATE = l;
            }));
            return;
        default:
            throw new IllegalArgumentException(how);
        }
    }
}
