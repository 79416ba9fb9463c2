// AllocSites — known allocations for heap=sites (tests/it/t4101): exactly
// 100000 AllocSites$Foo allocated in makeFoos() and kept, 50000
// AllocSites$Bar allocated in makeBars() and dropped, then garbage
// collections, so the Bar objects die and the Foo objects live.
public class AllocSites {
    static final class Foo {
        long a, b;
        Foo(long a) { this.a = a; this.b = a * 3; }
    }

    static final class Bar {
        int x;
        Bar(int x) { this.x = x; }
    }

    static Foo[] foos;
    static volatile Bar[] bars;

    static void makeFoos() {
        foos = new Foo[100_000];
        for (int i = 0; i < foos.length; i++)
            foos[i] = new Foo(i);
    }

    static long makeBars() {
        Bar[] b = new Bar[50_000];
        for (int i = 0; i < b.length; i++)
            b[i] = new Bar(i);
        bars = b;
        long sum = 0;
        for (Bar x : b)
            sum += x.x;
        bars = null;
        return sum;
    }

    public static void main(String[] args) throws Exception {
        makeFoos();
        long sum = makeBars();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        long f = 0;
        for (Foo x : foos)
            f += x.b;
        System.out.println("foos " + foos.length + " " + f + " bars " + sum);
    }
}
