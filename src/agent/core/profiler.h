/* profiler.h — the agent thread and the model it owns. The agent thread
 * wakes every interval= ms, samples running threads (cpu=samples), drains
 * the collectors' event queue into the model, and writes the report when a
 * dump was requested (SIGQUIT). Only this thread touches the model until
 * profiler_stop() has returned; after that the caller (VM death) may. */
#ifndef PROFILER_H
#define PROFILER_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stdio.h>

#include "../../common/jp_error.h"
#include "session_ctx.h"

/* A session's model (s->model) and the agent thread's part of it
 * (JP_PART_PROFILER); the agent thread runs for s until profiler_end. */
jp_status profiler_init(jp_session *s);
/* After a stopped session's last report: frees its model, the events queued
 * for it and the names resolved into it; profiler_init starts the next. */
void profiler_end(void);
/* Starts the agent thread (call from VMInit). */
jp_status profiler_start(JNIEnv *jni);
/* Asks the agent thread to write the report soon (SIGQUIT, control API).
 * True when the request was taken: it is then written, at the latest by VM
 * death (profiler_final_request) even with doe=n. False when the agent is
 * not running (profiling disabled at start) or has already written its last
 * report. */
bool profiler_request_dump(void);
/* Wakes the agent thread now (from a GarbageCollectionFinish callback: it
 * takes no lock and allocates nothing). */
void profiler_wake(void);
/* Stops the agent thread and waits for it (up to 10 s, and as long as a dump
 * it is writing takes), then drains what is queued. False if the thread did
 * not stop: the model must not be touched. */
bool profiler_stop(JNIEnv *jni);
/* After profiler_stop, at VM death: closes the door to requests and says
 * whether one was taken that the agent thread did not write. */
bool profiler_final_request(void);
/* For the attach commands, on their own thread: a report written now (the
 * dump request, waited for; to path instead of file= and without the other
 * outputs, if path is not NULL); what was collected so far discarded; the
 * collectors' counts written to a file, by the agent thread. false if the
 * agent thread is not running or did not do it within timeout_ms. */
/* window (NULL: none): a window of record=y's recording instead of the whole session: the last last_ms
 * before now, or (last_ms 0) from_ms to to_ms after the session's start (to_ms 0: now). */
typedef struct profiler_window {
    bool set;
    uint64_t last_ms, from_ms, to_ms;
} profiler_window;
bool profiler_dump_and_wait(const char *path, const profiler_window *window, int timeout_ms);
bool profiler_reset_and_wait(int timeout_ms);
/* The agent thread drains every collector once more (what the samplers took
 * before they stopped, into collectors still running), the caller waiting
 * for it (jni: the caller's JNIEnv; the agent thread itself drains at
 * once). false if the agent thread is not running or did not do it within
 * timeout_ms. */
bool profiler_drain_and_wait(JNIEnv *jni, int timeout_ms);
bool profiler_describe_and_wait(FILE *to, int timeout_ms);
/* For a heap dump on any thread while a session runs: the agent thread drains the collectors and fills out
 * with the objects they tagged (collectors_dump_sites; at once on the agent thread itself). false when the
 * agent thread is not running or did not do it within timeout_ms (out is then not being written). */
struct heap_dump_sites;
bool profiler_dump_sites_and_wait(JNIEnv *jni, struct heap_dump_sites *out, int timeout_ms);
/* Writes the report now, down one path for every mode: the collectors'
 * before_report, file='s output, the collectors' report hooks (a heap
 * dump), the other outputs, then the log lines (outputs.h, collector.h);
 * only after profiler_stop (or from the agent thread). */
jp_status profiler_dump(JNIEnv *jni);
/* A trigger's dump (triggers.h), on the agent thread (or after profiler_stop): window of the recording as a
 * report in file='s format to path (no other output), what (what happened) in its header as "TRIGGER: name:
 * what", and one line on stderr naming the trigger and the file. */
jp_status profiler_dump_trigger(JNIEnv *jni, const char *path, const profiler_window *window, const char *name,
                                const char *what);

#endif
