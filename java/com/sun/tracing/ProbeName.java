/*
 * ProbeName.java: the name tracers see for a probe, in place of its method's
 * name.
 */
package com.sun.tracing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.METHOD })
public @interface ProbeName {
    String value();
}
