/*
 * ControlException.java: what jvmprof.Control's tracing methods throw when a
 * call cannot be done: flags that do not make sense, calls in the wrong
 * order, a tracing library that cannot be found or loaded, no agent. The
 * message says what was wrong and what is accepted.
 */
package jvmprof;

public class ControlException extends Exception {
    private static final long serialVersionUID = 1L;

    public ControlException(String message) {
        super(message);
    }
}
