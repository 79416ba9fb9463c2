/*
 * MyApplication.java: the example of com.sun.tracing's documentation, made
 * runnable: foo() is written, and main fires the two probes once a second
 * (args[0] times, default 60) so that a tracer has time to attach.
 *
 *   javac -cp build/jvmprof.jar -d /tmp/ex examples/probes/MyApplication.java
 *   java -agentpath:build/libjvmprof.so=trace=probe,tracefile=/tmp/ex.trace -cp /tmp/ex MyApplication
 *   sudo bpftrace -p $(pgrep -f MyApplication) -e 'usdt:*:MyProvider:finishProbe { printf("%d\n", arg0); }'
 */
import com.sun.tracing.Provider;
import com.sun.tracing.ProviderFactory;

interface MyProvider extends Provider {
    void startProbe();

    void finishProbe(int value);
}

public class MyApplication {
    static int calls;

    static int foo() {
        return ++calls * 10;
    }

    public static void main(String argv[]) throws InterruptedException {
        int times = argv.length > 0 ? Integer.parseInt(argv[0]) : 60;
        ProviderFactory factory = ProviderFactory.getDefaultFactory();
        MyProvider trace = factory.createProvider(MyProvider.class);
        for (int i = 0; i < times; i++) {
            if (i > 0)
                Thread.sleep(1000);
            trace.startProbe();
            int result = foo();
            trace.finishProbe(result);
        }
        trace.dispose();
    }
}
