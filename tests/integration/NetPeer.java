/*
 * NetPeer: an independent front end for the net= tests, written from the
 * protocol's documentation (socket/hc_proto.h, README), sharing no code with
 * the agent or hprof-ctl. It listens on a free loopback port (written to
 * PORTFILE), accepts one agent, saves everything the agent sends to OUT, and
 * runs its steps in order while a reader thread keeps receiving:
 *   cmd:TAG[:HEXPAYLOAD]   one framed command: u1 tag, u4 serial (1, 2 ...),
 *                          u4 payload length, payload (big-endian)
 *   raw:HEX                bytes as they are (malformed frames, EOF 0xff)
 *   random:N:SEED          N pseudo-random bytes
 *   frames:N:SEED          N well-framed commands with random tags (any but
 *                          EXIT and EOF), 0..12-byte random payloads
 *   sleep:MS
 *   waitfile:PATH          waits (at most 60 s) until PATH exists
 *   await:TEXT             waits (at most 60 s) until the bytes received
 *                          contain TEXT (ASCII), e.g. a UTF8 message
 *   close                  closes the connection at once and exits 0
 *   rst                    resets the connection (SO_LINGER 0) and exits 0
 *   stopread               the reader stops reading (the agent's output
 *                          fills the connection and waits)
 *   trickle:BYTES:MS       the reader reads at most BYTES, then sleeps MS
 *                          ms, and so on (a front end too slow to keep up)
 *   read                   the reader reads at full speed again
 * After the steps it keeps reading until the agent closes, then exits 0
 * (after stopread: never; the test kills it).
 *
 * usage: java NetPeer.java PORTFILE OUT STEP...
 */
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Random;

public class NetPeer {
    static final ByteArrayOutputStream SEEN = new ByteArrayOutputStream();
    /* how the reader reads: 0 at full speed, 1 not at all, 2 a trickle */
    static volatile int readMode = 0;
    static volatile int trickleBytes = 1, trickleMs = 100;

    static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    static boolean seen(String text) {
        byte[] all;
        synchronized (SEEN) {
            all = SEEN.toByteArray();
        }
        return new String(all, StandardCharsets.ISO_8859_1).contains(text);
    }

    public static void main(String[] args) throws Exception {
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Path pf = Path.of(args[0]);
        Path tmp = Path.of(args[0] + ".tmp");
        Files.writeString(tmp, server.getLocalPort() + "\n");
        Files.move(tmp, pf, StandardCopyOption.ATOMIC_MOVE);
        server.setSoTimeout(120_000);
        Socket s = server.accept();
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        Thread reader = new Thread(() -> {
            try (FileOutputStream f = new FileOutputStream(args[1])) {
                byte[] buf = new byte[1 << 16];
                int n;
                for (;;) {
                    int mode = readMode;
                    if (mode == 1) {
                        Thread.sleep(20);
                        continue;
                    }
                    n = in.read(buf, 0, mode == 2 ? Math.min(trickleBytes, buf.length) : buf.length);
                    if (n <= 0)
                        break;
                    f.write(buf, 0, n);
                    synchronized (SEEN) {
                        if (SEEN.size() < (64 << 20))
                            SEEN.write(buf, 0, n);
                    }
                    if (mode == 2)
                        Thread.sleep(trickleMs);
                }
            } catch (Exception e) {
                System.out.println("reader: " + e);
            }
        });
        reader.start();
        int serial = 1;
        for (int i = 2; i < args.length; i++) {
            String[] p = args[i].split(":", 3);
            switch (p[0]) {
                case "cmd": {
                    byte[] payload = p.length > 2 ? hex(p[2]) : new byte[0];
                    java.nio.ByteBuffer bb = java.nio.ByteBuffer.allocate(9 + payload.length);
                    bb.put((byte) Integer.parseInt(p[1], 16)).putInt(serial++).putInt(payload.length).put(payload);
                    out.write(bb.array());
                    out.flush();
                    break;
                }
                case "raw":
                    out.write(hex(p[1]));
                    out.flush();
                    break;
                case "random": {
                    byte[] b = new byte[Integer.parseInt(p[1])];
                    new Random(Long.parseLong(p[2])).nextBytes(b);
                    out.write(b);
                    out.flush();
                    break;
                }
                case "frames": {
                    Random r = new Random(Long.parseLong(p[2]));
                    int[] tags = {1, 2, 3, 4, 6, 7, 8, 0x42, 0x99, 0};
                    for (int k = Integer.parseInt(p[1]); k > 0; k--) {
                        byte[] payload = new byte[r.nextInt(13)];
                        r.nextBytes(payload);
                        java.nio.ByteBuffer bb = java.nio.ByteBuffer.allocate(9 + payload.length);
                        bb.put((byte) tags[r.nextInt(tags.length)]).putInt(serial++).putInt(payload.length).put(payload);
                        out.write(bb.array());
                    }
                    out.flush();
                    break;
                }
                case "sleep":
                    Thread.sleep(Long.parseLong(p[1]));
                    break;
                case "waitfile": {
                    long end = System.nanoTime() + 60_000_000_000L;
                    while (!Files.exists(Path.of(p[1]))) {
                        if (System.nanoTime() > end) {
                            System.out.println("waitfile: timed out waiting for " + p[1]);
                            System.exit(3);
                        }
                        Thread.sleep(20);
                    }
                    break;
                }
                case "await": {
                    long end = System.nanoTime() + 60_000_000_000L;
                    while (!seen(p[1])) {
                        if (System.nanoTime() > end) {
                            System.out.println("await: timed out waiting for '" + p[1] + "'");
                            System.exit(3);
                        }
                        Thread.sleep(20);
                    }
                    break;
                }
                case "close":
                    s.close();
                    System.out.println("closed");
                    return;
                case "stopread":
                    readMode = 1;
                    break;
                case "trickle": {
                    String[] t = p[2].split(":");
                    trickleBytes = Integer.parseInt(p[1]);
                    trickleMs = Integer.parseInt(t[0]);
                    readMode = 2;
                    break;
                }
                case "read":
                    readMode = 0;
                    break;
                case "rst":
                    s.setSoLinger(true, 0);
                    s.close();
                    System.out.println("reset");
                    return;
                default:
                    System.out.println("bad step: " + args[i]);
                    System.exit(2);
            }
            System.out.println("step " + args[i]);
        }
        reader.join();
        System.out.println("agent closed");
    }
}
