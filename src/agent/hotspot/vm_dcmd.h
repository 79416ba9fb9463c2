/* vm_dcmd.h — a HotSpot diagnostic command (what jcmd runs: "VM.log ...")
 * run inside the JVM, through the DiagnosticCommand MBean's implementation
 * called by JNI (no MBean server, no JMX connection). */
#ifndef VM_DCMD_H
#define VM_DCMD_H

#include <jni.h>
#include <stdbool.h>

/* Runs command on the calling Java thread; true when the JVM ran it. Any exception is cleared: on failure
 * the line saying why is in why (why_len bytes). */
bool vm_dcmd(JNIEnv *jni, const char *command, char *why, size_t why_len);

#endif
