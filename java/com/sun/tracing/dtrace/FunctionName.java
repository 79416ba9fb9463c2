/*
 * FunctionName.java: the function of one probe. jvmprof names the function
 * symbol at the probe's USDT site after it (what a tracer's stack or
 * usym(reg("ip")) shows); without it, after the probe.
 */
package com.sun.tracing.dtrace;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.METHOD })
public @interface FunctionName {
    String value();
}
