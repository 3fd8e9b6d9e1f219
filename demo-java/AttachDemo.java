/*
 * AttachDemo: a running JVM that an agent is attached to, then driven by
 * commands on stdin, for the agent's attach tests
 * (tests/integration/test_agent_dumps.sh).
 *
 * usage: java AttachDemo      (then one command per line on stdin)
 *
 * It prints "waiting <pid>" and then, for each line read from stdin:
 *  - "warm": allocates 16 MiB as 4096 byte[4096] on the line marked
 *    SITE-WARM, dropped at once (after an attach JVMTI applies the new
 *    sampling interval to a thread only at its next sample point, up to
 *    about 512 KiB of its allocation later; this crosses it), prints "warm done";
 *  - "alloc N": allocates N objects of AttachDemo$Late in AttachDemo.late,
 *    on the line marked SITE-LATE, in the main thread, keeps them all,
 *    prints "alloc done";
 *  - "thread N": starts a thread named "late-thread" that allocates N
 *    AttachDemo$Late in AttachDemo.lateInThread (line SITE-LATE-THREAD),
 *    kept, joins it, prints "thread done";
 *  - "quit" or end of input: exits 0.
 * Late is allocated nowhere else; every Late object stays live.
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

public class AttachDemo {
    static final class Late {
        final int v;

        Late(int v) {
            this.v = v;
        }
    }

    static final List<Late[]> KEEP = new ArrayList<>();
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        System.out.println("waiting " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            String[] w = line.trim().split(" ");
            if (w[0].equals("warm")) {
                for (int i = 0; i < 4096; i++) {
                    sink = new byte[4096]; // SITE-WARM
                }
                sink = null;
                System.out.println("warm done");
            } else if (w[0].equals("alloc")) {
                KEEP.add(late(Integer.parseInt(w[1])));
                System.out.println("alloc done");
            } else if (w[0].equals("thread")) {
                int n = Integer.parseInt(w[1]);
                Thread t = new Thread(() -> {
                    Late[] got = lateInThread(n);
                    synchronized (KEEP) {
                        KEEP.add(got);
                    }
                }, "late-thread");
                t.start();
                t.join();
                System.out.println("thread done");
            } else if (w[0].equals("quit")) {
                break;
            }
            System.out.flush();
        }
    }

    static Late[] late(int n) {
        Late[] out = new Late[n];
        for (int i = 0; i < n; i++) {
            out[i] = new Late(i); // SITE-LATE
        }
        return out;
    }

    static Late[] lateInThread(int n) {
        Late[] out = new Late[n];
        for (int i = 0; i < n; i++) {
            out[i] = new Late(i); // SITE-LATE-THREAD
        }
        return out;
    }
}
