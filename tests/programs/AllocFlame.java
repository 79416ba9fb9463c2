// AllocFlame: two allocation paths in a known ratio of bytes: big() allocates
// 3000 byte[3000] (3016 bytes each with the array header) and small() 1000
// long[374] (3008 bytes each), args[0] rounds (default 200): 3.0075 times as
// many bytes through big() as through small().
public class AllocFlame {
    static Object sink;

    static void big() {
        for (int i = 0; i < 3000; i++)
            sink = new byte[3000];
    }

    static void small() {
        for (int i = 0; i < 1000; i++)
            sink = new long[374];
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        for (int r = 0; r < rounds; r++) {
            big();
            small();
        }
        System.out.println("AllocFlame done");
    }
}
