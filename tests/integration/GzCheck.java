import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/*
 * GzCheck: reads a gzip file with java.util.zip.GZIPInputStream, the way
 * Java heap dump readers open HotSpot's -gz dumps, and compares what it
 * gives with a plain file. Owns the Java side of test_convert.sh's gzip
 * check: a multi-member file must read as one stream.
 *
 * usage: java GzCheck FILE.gz PLAIN   (exit 0: the same bytes; 1: not)
 */
public class GzCheck {
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: java GzCheck FILE.gz PLAIN");
            System.exit(2);
        }
        byte[] want = Files.readAllBytes(Path.of(args[1]));
        byte[] got;
        try (InputStream in = new GZIPInputStream(new BufferedInputStream(Files.newInputStream(Path.of(args[0]))))) {
            got = in.readAllBytes();
        }
        if (!Arrays.equals(got, want)) {
            System.err.println("GzCheck: " + args[0] + " reads as " + got.length + " bytes that differ from "
                               + args[1] + " (" + want.length + " bytes)");
            System.exit(1);
        }
        System.out.println("GzCheck: " + args[0] + ": " + got.length + " bytes, the same as " + args[1]);
    }
}
