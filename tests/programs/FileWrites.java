import java.io.FileOutputStream;
import java.io.IOException;

// FileWrites: java FileWrites <file> <seconds>: for <seconds> of wall time writes 64-byte blocks
// to <file> with an unbuffered FileOutputStream, one write(2) each, going back to the start of the
// file every 4096 blocks (256 KiB) so that it stays small: most of its CPU time is in the kernel's
// write system call. Deletes the file at the end and prints "FileWrites: <N> writes".
public class FileWrites {
    public static void main(String[] args) throws IOException {
        java.io.File file = new java.io.File(args[0]);
        long end = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        byte[] block = new byte[64];
        for (int i = 0; i < block.length; i++) block[i] = (byte) ('a' + i % 26);
        long writes = 0;
        try (FileOutputStream out = new FileOutputStream(file)) {
            do {
                for (int i = 0; i < 4096; i++) {
                    block[0] = (byte) i;
                    out.write(block);
                }
                writes += 4096;
                out.getChannel().position(0);
            } while (System.nanoTime() < end);
        }
        file.delete();
        System.out.println("FileWrites: " + writes + " writes");
    }
}
