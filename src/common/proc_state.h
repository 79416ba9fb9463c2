/* proc_state.h — what the kernel says a thread of this process is doing: the
 * state letter of /proc/self/task/TID/stat (R running or runnable, S
 * sleeping, D in uninterruptible sleep, T stopped, ...). The wall-clock
 * sampler asks it of threads JVMTI calls runnable, which may be blocked
 * inside the JVM or the kernel all the same. Also when a process started
 * (probe directories' owners, attach's stale sockets), and the boot's id. */
#ifndef PROC_STATE_H
#define PROC_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads the stat file at PATH (/proc/self/stat, /proc/PID/stat, a task's)
 * into BUF (CAP bytes) and returns its third field on: the text after the
 * command name, which is in parentheses and may hold anything (spaces,
 * parentheses). NULL if it cannot be read or is not of that form. */
const char *proc_stat_fields(const char *path, char *buf, size_t cap);

/* The start time of the process or thread whose stat file is at PATH (its
 * field 22: clock ticks since boot) into *TICKS; false if it cannot be read. */
bool proc_start_ticks(const char *path, unsigned long long *ticks);

/* This boot's id (/proc/sys/kernel/random/boot_id: 36 characters of
 * hex digits and dashes) into out, NUL-ended; false when it cannot be read
 * or is not of that form. */
bool proc_boot_id(char out[37]);

/* The state letter of thread TID of this process, or 0 if it cannot be read
 * (the thread has ended, /proc is not mounted). Opens and reads one small
 * file: not for a signal handler. */
char proc_thread_state(uint32_t tid);

/* 1 if the letter means on a CPU or waiting for one (R), 0 if not, and -1 for
 * 0 (not known). */
int proc_state_running(char state);

#endif
