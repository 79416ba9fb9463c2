/*
 * DependencyClass.java: DTrace's dependency classes: what an interface's
 * meaning depends on.
 */
package com.sun.tracing.dtrace;

public enum DependencyClass {
    UNKNOWN(0), CPU(1), PLATFORM(2), GROUP(3), ISA(4), COMMON(5);

    private final int encoding;

    DependencyClass(int encoding) {
        this.encoding = encoding;
    }

    /** The class's number in DTrace's encoding (0 to 5). */
    public int getEncoding() {
        return encoding;
    }
}
