// Hello: the smallest program, for start-up cost.
public class Hello {
    public static void main(String[] args) {
        System.out.println("hello");
    }
}
