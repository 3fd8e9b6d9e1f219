import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/*
 * HeapDemo: a heap of known shape, for heap=dump.
 *
 * It holds, from static fields of HeapDemo:
 *  - N instances of HeapDemo$Item, one field of every type; item i has
 *    z = (i % 2 == 0), b = (byte) i, c = (char) ('A' + i % 26), s = (short) -i,
 *    i = i * 1000, j = i * 1_000_000_007L, f = i + 0.5f, d = i * 0.25,
 *    name = "item-" + i, next = item i + 1 (the last one: null);
 *  - M instances of HeapDemo$SubItem extends Item (+ int extra = -i,
 *    Object peer = the Item of the same index), held in SUBS;
 *  - ITEMS, an Item[N + 5] (the last 5 slots null: trailing nulls);
 *  - one array of every primitive type, of lengths 11..18, with values
 *    (k * 3 + 1) cast to the type (booleans: k % 3 == 0);
 *  - int[3][7] GRID (GRID[r][c] = r * 10 + c);
 *  - the static fields sInt = 424242, sLong = -7L, sStr = "static-string",
 *    sChar = 'Q', sDouble = 2.5, sBool = true.
 * A thread "parked-holder" holds 3 HeapDemo$Marker objects only in its
 * locals and parks; main prints "ready" and waits for stdin to close (or
 * SECONDS to pass), so a heap dump can be taken meanwhile.
 *
 * usage: java HeapDemo [N [M [SECONDS]]]   (defaults 1000, 50, 60)
 */
public class HeapDemo {
    static class Item {
        boolean z;
        byte b;
        char c;
        short s;
        int i;
        long j;
        float f;
        double d;
        String name;
        Item next;
    }

    static class SubItem extends Item {
        int extra;
        Object peer;
    }

    static class Marker {
        final int id;

        Marker(int id) {
            this.id = id;
        }
    }

    static int sInt = 424242;
    static long sLong = -7L;
    static String sStr = "static-string";
    static char sChar = 'Q';
    static double sDouble = 2.5;
    static boolean sBool = true;

    static Item[] ITEMS;
    static SubItem[] SUBS;
    static boolean[] ZS = new boolean[11];
    static byte[] BS = new byte[12];
    static char[] CS = new char[13];
    static short[] SS = new short[14];
    static int[] IS = new int[15];
    static long[] JS = new long[16];
    static float[] FS = new float[17];
    static double[] DS = new double[18];
    static int[][] GRID = new int[3][7];

    static Item item(Item it, int i) {
        it.z = i % 2 == 0;
        it.b = (byte) i;
        it.c = (char) ('A' + i % 26);
        it.s = (short) -i;
        it.i = i * 1000;
        it.j = i * 1_000_000_007L;
        it.f = i + 0.5f;
        it.d = i * 0.25;
        it.name = "item-" + i;
        return it;
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int m = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        long seconds = args.length > 2 ? Long.parseLong(args[2]) : 60;
        ITEMS = new Item[n + 5];
        for (int i = 0; i < n; i++)
            ITEMS[i] = item(new Item(), i);
        for (int i = 0; i + 1 < n; i++)
            ITEMS[i].next = ITEMS[i + 1];
        SUBS = new SubItem[m];
        for (int i = 0; i < m; i++) {
            SubItem s = (SubItem) item(new SubItem(), i);
            s.extra = -i;
            s.peer = ITEMS[i];
            SUBS[i] = s;
        }
        for (int k = 0; k < 18; k++) {
            int v = k * 3 + 1;
            if (k < 11) ZS[k] = k % 3 == 0;
            if (k < 12) BS[k] = (byte) v;
            if (k < 13) CS[k] = (char) v;
            if (k < 14) SS[k] = (short) v;
            if (k < 15) IS[k] = v;
            if (k < 16) JS[k] = v;
            if (k < 17) FS[k] = v;
            DS[k] = v;
        }
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 7; c++)
                GRID[r][c] = r * 10 + c;
        CountDownLatch parked = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            Marker m1 = new Marker(1), m2 = new Marker(2), m3 = new Marker(3);
            parked.countDown();
            while (true) {
                LockSupport.park();
                if (m1.id + m2.id + m3.id < 0) // keeps the locals live
                    break;
            }
        }, "parked-holder");
        holder.setDaemon(true);
        holder.start();
        parked.await();
        System.out.println("ready");
        System.out.flush();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end && System.in.available() >= 0) {
            if (System.in.available() == 0) {
                Thread.sleep(50);
                try {
                    if (System.in.read() < 0) break; // stdin closed
                } catch (java.io.IOException e) {
                    break;
                }
            } else if (System.in.read() < 0) {
                break;
            }
        }
    }
}
