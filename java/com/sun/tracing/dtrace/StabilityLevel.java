/*
 * StabilityLevel.java: DTrace's stability levels, from least to most stable.
 */
package com.sun.tracing.dtrace;

public enum StabilityLevel {
    INTERNAL(0), PRIVATE(1), OBSOLETE(2), EXTERNAL(3), UNSTABLE(4), EVOLVING(5), STABLE(6), STANDARD(7);

    private final int encoding;

    StabilityLevel(int encoding) {
        this.encoding = encoding;
    }

    /** The level's number in DTrace's encoding (0 to 7). */
    public int getEncoding() {
        return encoding;
    }
}
