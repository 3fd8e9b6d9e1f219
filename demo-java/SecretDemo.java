import java.util.concurrent.CountDownLatch;

/*
 * SecretDemo: a heap holding known secrets, for the redaction tests
 * (tests/integration/test_redact.sh). Every secret has bytes that cannot
 * occur by chance:
 *  - SecretDemo$Vault (one instance, held by SecretDemo.VAULT):
 *      String latin1 = "S3CR3T-PASSWORD-4242"        (Latin-1: a byte[] of coder 0)
 *      String utf16  = "GEHEIM-\u03A9-KENNWORT-7391" (non-Latin-1: UTF-16 in a byte[])
 *      char[] chars  = "CHARARRAY-SECRET-8813"
 *      byte[] bytes  = "BYTEARRAY-SECRET-5150" (ASCII)
 *      long   lng    = 0x5EC12E7A11CE5EC2L
 *      int    integer= 0x5EC2E7A1
 *      double dbl    = Double.longBitsToDouble(0x41E5EC2E7DAB1E55L)
 *  - the static long SECRET_STATIC = 0x57A71C5EC2E7A55EL;
 *  - SecretDemo$Config (one instance, held by SecretDemo.CONFIG), whose
 *    Strings are harmless: the static SHARED = "config-static-KEEP-A" and
 *    the field label = "config-field-KEEP-B" (for --keep-strings);
 *  - a thread named "worker-THREADNAME-6021" (a Thread subclass, SecretDemo$Worker)
 *    parked (for --keep-thread-names).
 * main prints "ready" and waits until stdin closes (or SECONDS pass, default 60:
 * then it exits at once).
 *
 * usage: java SecretDemo [SECONDS]
 */
public class SecretDemo {
    static final class Vault {
        String latin1 = "S3CR3T-PASSWORD-4242";
        String utf16 = "GEHEIM-\u03A9-KENNWORT-7391";
        char[] chars = "CHARARRAY-SECRET-8813".toCharArray();
        byte[] bytes = "BYTEARRAY-SECRET-5150".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        long lng = 0x5EC12E7A11CE5EC2L;
        int integer = 0x5EC2E7A1;
        double dbl = Double.longBitsToDouble(0x41E5EC2E7DAB1E55L);
    }

    static final class Config {
        static String SHARED = "config-static-KEEP-A";
        String label = "config-field-KEEP-B";
    }

    static final class Worker extends Thread {
        final CountDownLatch stop;

        Worker(CountDownLatch stop) {
            super("worker-THREADNAME-6021");
            this.stop = stop;
            setDaemon(true);
        }

        @Override
        public void run() {
            try {
                stop.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static long SECRET_STATIC = 0x57A71C5EC2E7A55EL;
    static Vault VAULT = new Vault();
    static Config CONFIG = new Config();

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        CountDownLatch stop = new CountDownLatch(1);
        Worker w = new Worker(stop);
        w.start();
        System.out.println("ready");
        System.out.flush();
        Thread timer = new Thread(() -> {
            try {
                Thread.sleep(seconds * 1000L);
            } catch (InterruptedException e) {
                return;
            }
            System.exit(0);
        }, "timer");
        timer.setDaemon(true);
        timer.start();
        while (System.in.read() >= 0) {
        }
        stop.countDown();
        w.join();
        System.out.println(VAULT.lng + VAULT.integer + (long) VAULT.dbl + SECRET_STATIC);
    }
}
