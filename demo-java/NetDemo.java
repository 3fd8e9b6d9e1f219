/*
 * NetDemo: a program driven line by line on stdin, for the net= tests: the
 * test sends it work, and hprof-ctl (or another front end) commands, in a
 * known order, so every command's effect is known exactly.
 *
 * Lines (each answered by "done <line>" on stdout once finished):
 *   alloc N   allocates N NetDemo$Blob (24 bytes each: 12 header + long +
 *             int) at line SITE-BLOB, in NetDemo.makeBlobs called from
 *             NetDemo.main (line SITE-CALL), and keeps them (live)
 *   drop      forgets every Blob kept so far (garbage at the next GC)
 *   spin MS   burns CPU for MS ms in NetDemo.spin (line SITE-SPIN)
 *   deep N    allocates one NetDemo$Blob N + 2 frames deep: NetDemo.deep
 *             recurses N times, then calls makeBlobs(1) at line SITE-DEEP
 *             (main calls deep at line SITE-DEEPCALL)
 *   quit      returns (exit status 0); so does the end of stdin
 * It prints "ready" first.
 *
 * usage: java NetDemo
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

public class NetDemo {
    static final class Blob {
        long value;
        int index;

        Blob(long value, int index) {
            this.value = value;
            this.index = index;
        }
    }

    static final List<Blob[]> KEEP = new ArrayList<>();
    static volatile long sink;

    static Blob[] makeBlobs(int n) {
        Blob[] out = new Blob[n];
        for (int i = 0; i < n; i++)
            out[i] = new Blob(i * 7L, i); // SITE-BLOB
        return out;
    }

    static void spin(long ms) {
        long end = System.nanoTime() + ms * 1_000_000L;
        long x = 0;
        while (System.nanoTime() < end) { // SITE-SPIN
            for (int i = 0; i < 10_000; i++)
                x += i * 31L ^ x;
        }
        sink = x;
    }

    static Blob[] deep(int n) {
        if (n > 0)
            return deep(n - 1);
        return makeBlobs(1); // SITE-DEEP
    }

    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            String[] w = line.split(" ");
            if (w[0].equals("alloc")) {
                KEEP.add(makeBlobs(Integer.parseInt(w[1]))); // SITE-CALL
            } else if (w[0].equals("drop")) {
                KEEP.clear();
            } else if (w[0].equals("spin")) {
                spin(Long.parseLong(w[1]));
            } else if (w[0].equals("deep")) {
                KEEP.add(deep(Integer.parseInt(w[1]))); // SITE-DEEPCALL
            } else if (w[0].equals("quit")) {
                break;
            }
            System.out.println("done " + line);
            System.out.flush();
        }
    }
}
