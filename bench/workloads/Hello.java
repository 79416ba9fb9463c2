/** Minimal program for measuring JVM start-up cost with and without the agent. */
public class Hello {
    public static void main(String[] args) {
        System.out.println("Hello, world");
    }
}
