/*
 * Attributes.java: one field's interface attributes: the stability of its
 * name and of its data, and its dependency class. Unset: Private/Private/
 * Unknown.
 */
package com.sun.tracing.dtrace;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({})
public @interface Attributes {
    StabilityLevel name() default StabilityLevel.PRIVATE;

    StabilityLevel data() default StabilityLevel.PRIVATE;

    DependencyClass dependency() default DependencyClass.UNKNOWN;
}
