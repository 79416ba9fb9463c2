/**
 * Providers and probes declared as Java interfaces, fired by calling their
 * methods, and seen by tracers: jvmprof's trace and plugins, and Linux's
 * tracers (bpftrace, perf) as USDT probes. The API of JDK 7 and 8's
 * com.sun.tracing, implemented by jvmprof (docs/probes.md).
 */
package com.sun.tracing;
