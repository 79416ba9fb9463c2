/* vm_code.h — what HotSpot's own structures say about a sampled thread where
 * AsyncGetCallTrace gives up: which method the code at a pc belongs to (a
 * compiled method's prologue or epilogue, the interpreter at a method's
 * entry). The layouts
 * come from vmstructs (HotSpot's exported descriptions); every word read
 * from a pointer that has not been proven good goes through
 * process_vm_readv, so a bad one gives an error, never a fault. No lock, no
 * allocation: for the signal handler. */
#ifndef VM_CODE_H
#define VM_CODE_H

#include <jni.h>
#include <stdbool.h>
#include <stdint.h>

/* On a Java thread after vmstructs_init (each session may call it; the
 * first call does the work): reads the code cache's heaps and the offsets
 * below. False (and nothing else here works) when the JVM does not
 * describe them. */
bool vm_code_init(void);

typedef enum {
    VM_CODE_UNKNOWN,     /* not in the code cache, or it could not be read */
    VM_CODE_COMPILED,    /* a compiled Java method (an nmethod) */
    VM_CODE_INTERPRETER, /* the template interpreter */
    VM_CODE_STUB,        /* any other blob: stubs, adapters, runtime stubs */
} vm_code_kind;

/* What the code at pc is. For a compiled method, *method is the method it
 * was compiled for (NULL when its id cannot be had). For the interpreter,
 * the method the interpreter keeps in rbx at a method's entry or the one in
 * the frame at fp (that one first when frame_first), whichever first proves
 * to be a method with an id (x86-64).
 * *frame_words: the blob's frame size in words, return address included (0
 * when not known); *complete: whether its frame is set up at pc (past its
 * prologue). */
vm_code_kind vm_code_at(uintptr_t pc, uintptr_t rbx, uintptr_t fp, bool frame_first, jmethodID *method,
                        uint32_t *frame_words, bool *complete);

/* As vm_code_at, for a walk that goes through many frames, without the
 * reads that turn a method into its id (process_vm_readv, a system call
 * each, about eight for a method not met before): *method is the Method*
 * itself, a compiled method's, or for the interpreter the word in_frame
 * (what its frame keeps three words below fp), taken as it is, or only if it
 * proves to be a method with an id when check (a leaf frame, which may be at
 * a method's entry, before the frame is the method's); 0 when none. */
vm_code_kind vm_code_frame(uintptr_t pc, uintptr_t in_frame, bool check, uintptr_t *method, uint32_t *frame_words,
                           bool *complete);

/* Agent thread: the Method* a jmethodID names now (0 when none: the method
 * was unloaded, or the id cannot be read): the word the id points to, read
 * directly once one id has proved to be such a pointer (HotSpot up to 25
 * keeps each id's word for the life of the process), through
 * process_vm_readv until then. */
uintptr_t vm_code_method_of(jmethodID id);

/* A Java frame anchor: where the thread's last Java frame is, which the
 * JVM sets as the thread leaves Java code (AsyncGetCallTrace walks from
 * it when the thread is not in Java). */
typedef struct {
    uintptr_t sp, pc, fp;
} vm_code_anchor;

/* The calling thread's anchor (jni: its JNIEnv), when the thread is in the
 * VM or on its way out (_thread_in_vm, _thread_in_vm_trans: a safepoint
 * waits for such a thread, so no other thread walks its stack then, nor
 * changes its anchor); false otherwise or when the layout is not known. */
bool vm_code_anchor_get(JNIEnv *jni, vm_code_anchor *anchor);
/* Whether the calling thread, out of Java code, has a Java frame at all
 * (its anchor names one): 1 or 0; -1 when the layout is not known. Read
 * only, any state. */
int vm_code_has_java_frame(JNIEnv *jni);
/* Sets the calling thread's anchor (only between a vm_code_anchor_get that
 * returned true and the end of the same signal handler, to walk from a
 * frame the JVM's anchor does not name, and then to put it back). */
void vm_code_anchor_set(JNIEnv *jni, const vm_code_anchor *anchor);

/* Whether pc is in libjvm.so's code, in the code cache's range (known
 * after vm_code_init), at the return of a signal handler (the C library's
 * sigreturn trampoline). */
bool vm_code_in_jvm(uintptr_t pc);
bool vm_code_in_code_cache(uintptr_t pc);
bool vm_code_is_sigreturn(uintptr_t pc);

/* Whether the calling thread (jni: its JNIEnv) is in the Java state (or on
 * its way out of it): AsyncGetCallTrace then walks from the signal's
 * context, not from the thread's anchor. */
bool vm_code_in_java(JNIEnv *jni);

/* The word at addr, read without any risk of a fault; false when it cannot be read. */
bool vm_code_word(uintptr_t addr, uintptr_t *out);

#endif
