import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * A JNI-heavy benchmark workload: most of its CPU time is in native code of several libraries.
 * Each thread does the same fixed mix of work, round after round, on its own data:
 * <ul>
 * <li>a hash of a 256 KiB byte[] in C, over the array held with GetPrimitiveArrayCritical
 *     (libjniheavy.so, from bench/workloads/jniheavy.c);</li>
 * <li>a qsort of pseudo-random ints with a C comparator (libc and libjniheavy.so);</li>
 * <li>memcpy/memmove/memset of a 1 MiB block (libc);</li>
 * <li>a deflate and inflate of 128 KiB of text with java.util.zip (zlib, through the JDK's libzip)
 *     and a CRC32 of the result (a JIT intrinsic);</li>
 * <li>a little Java that changes the data a bit for the next round.</li>
 * </ul>
 * The work is the same in every run, so its wall time is the measure and its checksum is the check.
 *
 * Usage: java JniHeavy &lt;path of libjniheavy.so&gt; [rounds per thread (default 1000)] [threads (default 2)]
 *
 * Prints one line, JNIHEAVY OK threads=T rounds=R checksum=X, and exits 0; exits 1 when an inflate
 * gives back other bytes than were deflated, 2 on bad usage.
 */
public class JniHeavy {
    static native long hash(byte[] data, int rounds);
    static native long sort(int n, long seed);
    static native long copy(int kib, int rounds, long seed);

    static final String[] WORDS = {
        "profiler", "sample", "native", "frame", "stack", "thread", "kernel", "java", "method", "library",
        "unwind", "symbol", "signal", "timer", "heap", "collector", "compile", "inline", "return", "call",
    };

    /** one thread's work: rounds rounds of the mix over its own buffers; returns its checksum */
    static long work(int id, int rounds) throws DataFormatException {
        long seed = 0x9E3779B97F4A7C15L * (id + 1);
        byte[] block = new byte[256 << 10];
        for (int i = 0; i < block.length; i++) block[i] = (byte) (seed >>> (i & 63) ^ i);
        StringBuilder sb = new StringBuilder();
        java.util.Random random = new java.util.Random(seed);
        while (sb.length() < (128 << 10)) sb.append(WORDS[random.nextInt(WORDS.length)]).append(random.nextInt(1000)).append(' ');
        byte[] text = sb.substring(0, 128 << 10).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] packed = new byte[text.length + 1024], unpacked = new byte[text.length];
        Deflater deflater = new Deflater(1);
        Inflater inflater = new Inflater();
        CRC32 crc = new CRC32();
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            sum = sum * 31 + hash(block, 40);
            sum = sum * 31 + sort(20000, seed + r);
            sum = sum * 31 + copy(1024, 8, seed ^ r);
            deflater.reset();
            deflater.setInput(text);
            deflater.finish();
            int n = deflater.deflate(packed);
            inflater.reset();
            inflater.setInput(packed, 0, n);
            if (inflater.inflate(unpacked) != text.length) throw new IllegalStateException("inflate: short");
            crc.reset();
            crc.update(unpacked);
            if (unpacked[r % unpacked.length] != text[r % text.length]) throw new IllegalStateException("inflate: bytes differ");
            sum = sum * 31 + crc.getValue() + n;
            // the Java part: change the data a little for the next round
            for (int i = (int) (sum & 63); i < block.length; i += 61) block[i] += (byte) (i ^ sum);
            text[(int) ((sum >>> 1) % text.length)] = (byte) ('a' + (r % 26));
        }
        deflater.end();
        inflater.end();
        return sum;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 3) {
            System.err.println("usage: java JniHeavy <libjniheavy.so> [rounds per thread] [threads]");
            System.exit(2);
        }
        System.load(new java.io.File(args[0]).getAbsolutePath());
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        long[] sums = new long[threads];
        Throwable[] errors = new Throwable[threads];
        Thread[] all = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            all[t] = new Thread(() -> {
                try {
                    sums[id] = work(id, rounds);
                } catch (Throwable e) {
                    errors[id] = e;
                }
            }, "jniheavy-" + t);
            all[t].start();
        }
        long checksum = 0;
        for (int t = 0; t < threads; t++) {
            all[t].join();
            if (errors[t] != null) {
                errors[t].printStackTrace();
                System.exit(1);
            }
            checksum = checksum * 1_000_003L + sums[t];
        }
        System.out.println("JNIHEAVY OK threads=" + threads + " rounds=" + rounds + " checksum=" + Long.toHexString(checksum));
    }
}
