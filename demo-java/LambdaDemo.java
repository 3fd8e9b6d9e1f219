/*
 * LambdaDemo: instances of hidden classes (lambdas) whose counts are known
 * exactly, for the naming tests (tests/integration/test_agent_names.sh):
 * the agent's text and binary outputs and HotSpot's heap dump must spell a
 * hidden class the same way (HotSpot's `LambdaDemo$$Lambda...+0x<address>`),
 * and `hprof --normalize` must make two runs compare.
 *
 * usage: java LambdaDemo [A B [wait]]   (defaults A=3000, B=2000)
 *
 * It does exactly this (the LAMBDA-* markers are comments on the allocating
 * lines; the tests grep for them):
 *  - main calls makeSuppliers(A): A instances of one capturing lambda class
 *    (a Supplier capturing an int, line LAMBDA-A), all kept in SUPPLIERS;
 *  - then makeRunners(B): B instances of a second capturing lambda class (a
 *    Runnable capturing an int, line LAMBDA-B), all kept in RUNNERS;
 *  - each instance holds one int: 16 bytes with compressed class pointers
 *    (12 header + int); nothing else allocates these two classes;
 *  - prints "ready <checksum>" and, without "wait", returns (exit status 0);
 *    with "wait", waits for end of input (so a heap dump can be taken).
 */
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

public class LambdaDemo {
    static final List<Supplier<Integer>> SUPPLIERS = new ArrayList<>();
    static final List<Runnable> RUNNERS = new ArrayList<>();
    static volatile long sink;

    static void makeSuppliers(int n) {
        for (int i = 0; i < n; i++) {
            final int k = i;
            SUPPLIERS.add(() -> k); // LAMBDA-A
        }
    }

    static void makeRunners(int n) {
        for (int i = 0; i < n; i++) {
            final int k = i;
            RUNNERS.add(() -> sink += k); // LAMBDA-B
        }
    }

    public static void main(String[] args) throws IOException {
        int a = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        int b = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        makeSuppliers(a);
        makeRunners(b);
        long sum = 0;
        for (Supplier<Integer> s : SUPPLIERS)
            sum += s.get();
        for (Runnable r : RUNNERS)
            r.run();
        System.out.println("ready " + (sum + sink));
        if (args.length > 2 && args[2].equals("wait")) {
            while (System.in.read() >= 0) {
                // until end of input
            }
        }
    }
}
