/*
 * ProviderAttributes.java: the stability and dependency attributes of the
 * provider field of a provider's probes (DTrace's interface attributes). jvmprof
 * records them in the trace's description of each probe.
 */
package com.sun.tracing.dtrace;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE })
public @interface ProviderAttributes {
    Attributes value();
}
