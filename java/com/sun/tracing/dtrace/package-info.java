/**
 * DTrace's annotations for providers: module and function names and the
 * interface attributes of each field. jvmprof maps the module to the file
 * name of the provider's USDT shared object and the function to the symbol at
 * each probe's site, and records the attributes in its trace.
 */
package com.sun.tracing.dtrace;
