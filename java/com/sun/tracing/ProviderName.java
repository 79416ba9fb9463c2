/*
 * ProviderName.java: the name tracers see for a provider, in place of its
 * interface's simple name.
 */
package com.sun.tracing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.TYPE })
public @interface ProviderName {
    String value();
}
