/*
 * ModuleName.java: the module of a provider's probes. jvmprof names the
 * shared object that holds the provider's USDT probes after it
 * (<module>.so); without it, after the provider.
 */
package com.sun.tracing.dtrace;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE })
public @interface ModuleName {
    String value();
}
