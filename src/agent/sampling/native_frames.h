/* native_frames.h — the native (C/C++) and kernel frames of the async
 * sampler's samples (cstack=): the walk from a signal's context up to the
 * first Java frame, in the handler, and the names of the frames, on the
 * agent thread.
 *
 * The process's code map (src/native/code_map.h: each mapped library, its
 * DWARF CFI and, when asked, its symbols) lives for the JVM's life: read
 * once in the background when the first session with native frames starts,
 * read again when a sample lands in code it does not know (a library
 * loaded since). The handler reads the current map with one load; a map
 * replaced is freed only once no walk is inside it. Kernel symbols come from
 * /proc/kallsyms, read the first time a kernel frame needs its name. */
#ifndef NATIVE_FRAMES_H
#define NATIVE_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "../../model/model.h"

/* Handler, async-signal-safe: the native frames of the interrupted context,
 * leaf first, into pcs (the first is the interrupted pc, the others return
 * addresses), at most max, to the end of the stack. On a Java thread the
 * walk goes through the Java frames too (compiled code, the interpreter,
 * stubs: AsyncGetCallTrace names them), leaving for each compiled or
 * interpreted frame a marker, NATIVE_FRAMES_JAVA | its Method* (0 when
 * unknown; vm_code_method_of gives an id's, on the agent thread), so that
 * the native frames between Java frames (a JNI method's C code that calls
 * Java back, the JVM's own code that runs Java: class
 * initializers, the thread's start) can be put where they were; a walk
 * ends early where a frame cannot be trusted, and after java_max markers
 * (AsyncGetCallTrace's depth: the frames below have no place). 0 before the code map is
 * read. */
#define NATIVE_FRAMES_JAVA ((uint64_t)1 << 62)
uint32_t native_frames_walk(const void *ucontext, bool java_thread, uint32_t java_max, uint64_t *pcs, uint32_t max);

/* Agent thread: reads the code map the first time (false: the map cannot be
 * read) and again when walks met code it did not know, at most once a second. */
bool native_frames_refresh(void);

/* Agent thread: the address of the native function called name in the
 * process's libraries (not jvmprof's), 0 if none: for event=<function>. */
uint64_t native_frames_function(const char *name);

/* Agent thread: a session's names of native frames, by address. */
typedef struct native_frames_names native_frames_names;
native_frames_names *native_frames_names_new(void);
void native_frames_names_free(native_frames_names *n);

/* Agent thread: the frame of pc in m (a return address unless leaf; kernel:
 * an address of the kernel's), with its kind (FRAME_KIND_CPP or
 * FRAME_KIND_KERNEL) packed as stacks keep them in *packed. False for a
 * frame left out: jvmprof's own code. An address without a symbol is named
 * `library+0xoffset` (*unnamed set; *unnamed_in_symbols too when the library has a full symbol
 * table, .symtab or a debug file, which should have named it). */
bool native_frames_frame(native_frames_names *n, model *m, uint64_t pc, bool leaf, bool kernel, frame_id *frame,
                         uint32_t *packed, bool *unnamed, bool *unnamed_in_symbols);

/* The count of native frames named and of those without a symbol, for the log. */
void native_frames_counts(const native_frames_names *n, uint64_t *named, uint64_t *unnamed);

#endif
