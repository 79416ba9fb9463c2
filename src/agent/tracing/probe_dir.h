/* probe_dir.h — the directories that hold the providers' shared objects
 * (probe_dir.c): DIR/jvmprof-PID, made with an owner file (jvmprof-owner)
 * that says which process made it (pid, PID namespace, start time, boot),
 * removed by that process, and removed by a later one only when it is
 * jvmprof's, holds nothing else, and its owner is known to be gone. */
#ifndef PROBE_DIR_H
#define PROBE_DIR_H

#include <stdbool.h>
#include <stddef.h>

/* Makes base/jvmprof-PID (mode 0700) with its owner file, or takes it if it
 * is there already with this process's owner file: its path in top; false
 * with why. */
bool probe_dir_make(const char *base, char *top, size_t top_cap, char *why, size_t why_cap);

/* Removes this process's directory top if nothing but its owner file is left
 * in it (the providers' files and directories removed first). */
void probe_dir_remove(const char *top);

/* Removes the jvmprof-N directories in base that are this user's, hold only
 * what jvmprof writes there and an owner file, and whose owner is gone: it
 * ran in this PID namespace and boot, and no process with its pid and start
 * time runs. Anything else is left alone. */
void probe_dir_clean(const char *base);

#endif
