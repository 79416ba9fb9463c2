// LeakAmong — a leak from one allocation site among many (tests/it/t5013):
// 20 rounds; in each, parse() makes 20000 LeakAmong$Token, render() 10000
// LeakAmong$Line with a char[] each, and buffer() 5000 byte[64], all dropped;
// register() makes 1000 LeakAmong$Session and keeps each in the static
// HashMap SESSIONS (the leak: 20000 at the end). Each round ends with a
// garbage collection, so lifetimes=y sees the site's live objects grow.
//   LeakAmong dump FILE   then calls jvmprof.Control.dumpHeap(FILE) and prints "dump FILE true|false"
import java.util.HashMap;
import java.util.Map;

public class LeakAmong {
    static final class Token {
        int kind;
        long pos;
    }

    static final class Line {
        char[] text;
        int width;
    }

    static final class Session {
        long id;
        long started;
        Session(long id) { this.id = id; this.started = id * 7; }
    }

    static final Map<Long, Session> SESSIONS = new HashMap<>();
    static long sink;

    static void parse(int round) {
        for (int i = 0; i < 20000; i++) {
            Token t = new Token();
            t.pos = (long) round * i;
            sink += t.pos + t.kind;
        }
    }

    static void render() {
        for (int i = 0; i < 10000; i++) {
            Line l = new Line();
            l.text = new char[16];
            sink += l.text.length + l.width;
        }
    }

    static void buffer() {
        for (int i = 0; i < 5000; i++) {
            byte[] b = new byte[64];
            sink += b.length;
        }
    }

    static void register(int round) {
        for (int i = 0; i < 1000; i++) {
            long id = (long) round * 1000 + i;
            SESSIONS.put(id, new Session(id));
        }
    }

    public static void main(String[] args) throws Exception {
        for (int r = 0; r < 20; r++) {
            parse(r);
            render();
            register(r);
            buffer();
            System.gc();
            Thread.sleep(100);
        }
        if (args.length == 2 && args[0].equals("dump"))
            System.out.println("dump " + args[1] + " " + jvmprof.Control.dumpHeap(args[1]));
        System.out.println("sessions " + SESSIONS.size());
    }
}
