// VThreadServer: a request-style program on virtual threads. A server loop
// accepts loopback connections on an ephemeral port and hands each to a
// virtual thread (newVirtualThreadPerTaskExecutor, named "req-N"); each
// request line makes the handler compute for a while (cook(): CPU) and
// answer. Client virtual threads ("client-N") send a request, then think for
// a while (Thread.sleep) before the next, so most of the time the handlers
// wait in the socket read (awaitRequest()). Args: clients, seconds.
// Prints "done" to stdout.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

public class VThreadServer {
    static final AtomicLong answers = new AtomicLong();
    static volatile long sink;

    static String awaitRequest(BufferedReader in) throws Exception {
        return in.readLine();
    }

    static long cook(long n) {
        long h = n;
        for (int i = 0; i < 400_000; i++)
            h = h * 6364136223846793005L + 1442695040888963407L ^ (h >>> 17);
        return h;
    }

    static void serve(Socket s) {
        try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream()));
             PrintWriter out = new PrintWriter(s.getOutputStream(), true)) {
            String line;
            while ((line = awaitRequest(in)) != null)
                out.println(cook(line.length()));
        } catch (Exception e) {
            // the client went away
        }
    }

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 3;
        ServerSocket server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        int port = server.getLocalPort();
        ExecutorService handlers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("req-", 0).factory());
        Thread acceptor = Thread.ofPlatform().name("acceptor").start(() -> {
            try {
                while (true) {
                    Socket s = server.accept();
                    handlers.submit(() -> serve(s));
                }
            } catch (Exception e) {
                // closed at the end
            }
        });
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        Thread[] cs = new Thread[clients];
        for (int c = 0; c < clients; c++) {
            cs[c] = Thread.ofVirtual().name("client-" + c).start(() -> {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                     BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream()));
                     PrintWriter out = new PrintWriter(s.getOutputStream(), true)) {
                    while (System.nanoTime() < end) {
                        out.println("request");
                        sink += Long.parseLong(in.readLine());
                        answers.incrementAndGet();
                        Thread.sleep(20);
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
        }
        for (Thread c : cs)
            c.join();
        server.close();
        acceptor.join();
        handlers.shutdown();
        System.out.println("done");
    }
}
