/* vm_code.c — HotSpot's code cache, methods and frame anchors read from a
 * signal handler (see vm_code.h). */
#include "vm_code.h"

#include <link.h>
#include <stdatomic.h>
#include <dlfcn.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../../common/jp_log.h"
#include "vmstructs.h"

#define VMC_MAX_HEAPS 8
#define VMC_BLOB_BYTES 192 /* the part of a blob (an nmethod's header) read at once */
#define VMC_IDS_LOG2 12
#define VMC_STUB_NAMES 32

typedef struct {
    uintptr_t low, high;    /* the heap's range (_memory's low, and its high boundary) */
    uintptr_t segmap;       /* _segmap's low: one byte per segment */
    int log2_segment;
    /* where the JVM keeps how far each is committed (VirtualSpace::_high, which grows): memory below it is
     * read directly, without a system call */
    const uintptr_t *memory_high, *segmap_high;
} vmc_heap;

/* What follows describes the JVM, read once (vm_code_init, on the first
 * session's start) and the same for its whole life and every session after:
 * the signal handler reads it as plain fields (nothing here is written once
 * vm_code_init has returned, but for the two caches at the end, which are
 * atomic). */

/* This process and libjvm.so's executable segment (pid 0: vm_code_init has
 * not run, the reads are refused). */
static struct {
    pid_t pid;
    uintptr_t low, high;
} vmc_jvm;

/* The code cache: its bounds, its heaps and how a blob in it is laid out;
 * ready once all of it was read and process_vm_readv proved to work. */
static struct {
    vmc_heap heaps[VMC_MAX_HEAPS];
    int nheaps;
    uintptr_t low, high;              /* CodeCache's bounds: no heap outside */
    uint64_t block_header;            /* sizeof(HeapBlock): the blob follows it */
    long header_used;                 /* HeapBlock::Header::_used */
    long blob_name, frame_size, frame_complete, code_begin, code_end, cm_method;
    bool code_relative;               /* JDK 23+: the code's bounds are int offsets from the blob (_code_offset,
                                       * _data_offset), not addresses (_code_begin, _code_end) */
    int frame_complete_size;          /* sizeof _frame_complete_offset: int (4), int16_t (2) from JDK 23 */
    bool ready;
} vmc_cache;

/* From a Method* to its jmethodID: the offsets on the way (Method,
 * ConstMethod, ConstantPool, InstanceKlass). */
static struct {
    long const_method, constants, pool_holder, jmethod_ids, idnum;
} vmc_method;

/* A thread's frame anchor and state, as offsets from its JNIEnv (either
 * side of it), and the states' values; known: all of them were found. */
static struct {
    long anchor_sp, anchor_pc, anchor_fp, state;
    bool known;
    int32_t in_vm, in_vm_trans;       /* _thread_in_vm, _thread_in_vm_trans */
    int32_t in_java, in_java_trans;   /* _thread_in_Java, _thread_in_Java_trans */
} vmc_thread = { .in_vm = -1, .in_vm_trans = -1, .in_java = -1, .in_java_trans = -1 };

/* What the signal handler found and keeps for the JVM's life (HotSpot
 * never frees a jmethodID's memory, and blob names are constant strings in
 * libjvm): jmethodIDs by Method*, and the addresses of the names it knows. */
static struct {
    _Atomic uintptr_t ids[1u << VMC_IDS_LOG2];
    _Atomic uintptr_t name_nmethod, name_interpreter;
    _Atomic uintptr_t name_stubs[VMC_STUB_NAMES]; /* the other names met (stubs, adapters), by address */
} vmc_seen;

/* n bytes at addr, or false: never faults, whatever addr is */
static bool vmc_read(uintptr_t addr, void *buf, size_t n)
{
    if (addr < 4096)
        return false;
    struct iovec local = { buf, n }, remote = { (void *)addr, n };
    return process_vm_readv(vmc_jvm.pid, &local, 1, &remote, 1, 0) == (ssize_t)n;
}

static bool vmc_word(uintptr_t addr, uintptr_t *out) { return vmc_read(addr, out, sizeof *out); }

/* n bytes at addr in the code cache (a heap's code or its segment map): read directly where committed, which
 * the code cache never gives back, else as vmc_read */
static bool vmc_read_cache(uintptr_t addr, void *buf, size_t n)
{
    for (int i = 0; i < vmc_cache.nheaps; i++) {
        const vmc_heap *h = &vmc_cache.heaps[i];
        uintptr_t top = 0;
        if (addr >= h->low && addr < h->high)
            top = h->memory_high ? __atomic_load_n(h->memory_high, __ATOMIC_ACQUIRE) : 0;
        else if (addr >= h->segmap && addr < h->segmap + ((h->high - h->low) >> h->log2_segment))
            top = h->segmap_high ? __atomic_load_n(h->segmap_high, __ATOMIC_ACQUIRE) : 0;
        else
            continue;
        if (top && addr + n <= top && addr + n > addr) {
            memcpy(buf, (const void *)addr, n);
            return true;
        }
        break;
    }
    return vmc_read(addr, buf, n);
}

bool vm_code_word(uintptr_t addr, uintptr_t *out) { return vmc_jvm.pid && vmc_word(addr, out); }

/* a word at offset `at` of a copied blob header */
static uintptr_t vmc_field(const uint8_t *blob, long at)
{
    uintptr_t v;
    memcpy(&v, blob + at, sizeof v);
    return v;
}

/* where the code of a copied blob (at `at`) begins or ends: a field holding the address, or an int offset */
static uintptr_t vmc_code_bound(const uint8_t *blob, uintptr_t at, long field)
{
    if (!vmc_cache.code_relative)
        return vmc_field(blob, field);
    int32_t off;
    memcpy(&off, blob + field, sizeof off);
    return off > 0 ? at + (uintptr_t)off : 0;
}

/* dl_iterate_phdr's callback: the executable segment of the object that holds data (an address in libjvm) */
static int vmc_find_jvm(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t probe = (uintptr_t)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && probe >= lo && probe < hi) {
            vmc_jvm.low = lo;
            vmc_jvm.high = hi;
            return 1;
        }
    }
    return 0;
}

bool vm_code_in_jvm(uintptr_t pc) { return pc >= vmc_jvm.low && pc < vmc_jvm.high; }

bool vm_code_in_code_cache(uintptr_t pc) { return vmc_cache.ready && pc >= vmc_cache.low && pc < vmc_cache.high; }

bool vm_code_is_sigreturn(uintptr_t pc)
{
    /* glibc's __restore_rt on x86-64: mov $15, %rax; syscall */
    static const uint8_t code[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
    uint8_t at[sizeof code];
    return vmc_read(pc, at, sizeof at) && memcmp(at, code, sizeof code) == 0;
}

static bool vmc_init(void);

bool vm_code_init(void)
{
    /* once: the code cache's heaps are fixed at start-up */
    static int done = -1;
    if (done < 0)
        done = vmc_init();
    return done;
}

static bool vmc_init(void)
{
    void *probe = dlsym(RTLD_DEFAULT, "JNI_CreateJavaVM");
    if (probe)
        dl_iterate_phdr(vmc_find_jvm, probe);
    vmc_jvm.pid = getpid();
    char **heaps = vmstructs_static("CodeCache", "_heaps");
    uintptr_t *low = vmstructs_static("CodeCache", "_low_bound");
    uintptr_t *high = vmstructs_static("CodeCache", "_high_bound");
    long len = vmstructs_offset("GrowableArrayBase", "_len"), data = vmstructs_offset("GrowableArray<int>", "_data");
    long memory = vmstructs_offset("CodeHeap", "_memory"), segmap = vmstructs_offset("CodeHeap", "_segmap");
    long log2 = vmstructs_offset("CodeHeap", "_log2_segment_size");
    long vs_low = vmstructs_offset("VirtualSpace", "_low");
    long vs_high_b = vmstructs_offset("VirtualSpace", "_high_boundary");
    long vs_high = vmstructs_offset("VirtualSpace", "_high");
    vmc_cache.block_header = vmstructs_sizeof("HeapBlock");
    vmc_cache.header_used = vmstructs_offset("HeapBlock::Header", "_used");
    vmc_cache.blob_name = vmstructs_offset("CodeBlob", "_name");
    vmc_cache.code_begin = vmstructs_offset("CodeBlob", "_code_begin");
    vmc_cache.code_end = vmstructs_offset("CodeBlob", "_code_end");
    if (vmc_cache.code_begin < 0 && vmc_cache.code_end < 0) { /* JDK 23+ */
        vmc_cache.code_begin = vmstructs_offset("CodeBlob", "_code_offset");
        vmc_cache.code_end = vmstructs_offset("CodeBlob", "_data_offset");
        vmc_cache.code_relative = true;
    }
    vmc_cache.frame_size = vmstructs_offset("CodeBlob", "_frame_size");
    vmc_cache.frame_complete = vmstructs_offset("CodeBlob", "_frame_complete_offset");
    vmc_cache.frame_complete_size = (int)vmstructs_field_size("CodeBlob", "_frame_complete_offset");
    vmc_cache.cm_method = vmstructs_offset("CompiledMethod", "_method");
    if (vmc_cache.cm_method < 0) /* JDK 23+: CompiledMethod is folded into nmethod */
        vmc_cache.cm_method = vmstructs_offset("nmethod", "_method");
    vmc_method.const_method = vmstructs_offset("Method", "_constMethod");
    vmc_method.constants = vmstructs_offset("ConstMethod", "_constants");
    vmc_method.idnum = vmstructs_offset("ConstMethod", "_method_idnum");
    vmc_method.pool_holder = vmstructs_offset("ConstantPool", "_pool_holder");
    vmc_method.jmethod_ids = vmstructs_offset("InstanceKlass", "_methods_jmethod_ids");
    long anchor = vmstructs_offset("JavaThread", "_anchor"), env = vmstructs_jni_env_offset();
    long a_sp = vmstructs_offset("JavaFrameAnchor", "_last_Java_sp");
    long a_pc = vmstructs_offset("JavaFrameAnchor", "_last_Java_pc");
    long a_fp = vmstructs_offset("JavaFrameAnchor", "_last_Java_fp");
    long state = vmstructs_offset("JavaThread", "_thread_state");
    if (anchor >= 0 && env >= 0 && a_sp >= 0 && a_pc >= 0 && a_fp >= 0 && state >= 0 &&
        vmstructs_int_constant("_thread_in_vm", &vmc_thread.in_vm) &&
        vmstructs_int_constant("_thread_in_vm_trans", &vmc_thread.in_vm_trans) &&
        vmstructs_int_constant("_thread_in_Java", &vmc_thread.in_java) &&
        vmstructs_int_constant("_thread_in_Java_trans", &vmc_thread.in_java_trans)) {
        vmc_thread.anchor_sp = anchor + a_sp - env;
        vmc_thread.anchor_pc = anchor + a_pc - env;
        vmc_thread.anchor_fp = anchor + a_fp - env;
        vmc_thread.state = state - env;
        vmc_thread.known = true;
    }
    if (!heaps || !*heaps || !low || !high || len < 0 || data < 0 || memory < 0 || segmap < 0 || log2 < 0 ||
        vs_low < 0 || vs_high_b < 0 || !vmc_cache.block_header || vmc_cache.header_used < 0 ||
        vmc_cache.blob_name < 0 || vmc_cache.frame_size < 0 || vmc_cache.frame_complete < 0 ||
        vmc_cache.code_begin < 0 || vmc_cache.code_end < 0 || vmc_cache.cm_method < 0 ||
        vmc_method.const_method < 0 || vmc_method.constants < 0 || vmc_method.idnum < 0 ||
        vmc_method.pool_holder < 0 || vmc_method.jmethod_ids < 0 ||
        (vmc_cache.frame_complete_size != 2 && vmc_cache.frame_complete_size != 4)) {
        jp_log_debug("HotSpot does not describe its code cache: samples in compiled methods' prologues stay on the "
                     "caller");
        return false;
    }
    long most = vmc_cache.blob_name > vmc_cache.cm_method ? vmc_cache.blob_name : vmc_cache.cm_method;
    if (most < vmc_cache.code_end)
        most = vmc_cache.code_end;
    if (most + 8 > VMC_BLOB_BYTES || vmc_cache.frame_size + 4 > VMC_BLOB_BYTES ||
        vmc_cache.frame_complete + vmc_cache.frame_complete_size > VMC_BLOB_BYTES ||
        vmc_cache.header_used >= (long)vmc_cache.block_header) {
        jp_log_debug("HotSpot's code blobs are laid out unlike what the sampler reads");
        return false;
    }
    vmc_cache.low = *low;
    vmc_cache.high = *high;
    char *arr = *heaps;
    int n = *(int *)(arr + len);
    char **elems = *(char ***)(arr + data);
    for (int i = 0; i < n && vmc_cache.nheaps < VMC_MAX_HEAPS; i++) {
        char *h = elems[i];
        vmc_heap *v = &vmc_cache.heaps[vmc_cache.nheaps];
        v->low = *(uintptr_t *)(h + memory + vs_low);
        v->high = *(uintptr_t *)(h + memory + vs_high_b);
        v->segmap = *(uintptr_t *)(h + segmap + vs_low);
        v->log2_segment = *(int *)(h + log2);
        v->memory_high = vs_high >= 0 ? (const uintptr_t *)(h + memory + vs_high) : NULL;
        v->segmap_high = vs_high >= 0 ? (const uintptr_t *)(h + segmap + vs_high) : NULL;
        if (v->low && v->high > v->low && v->segmap && v->log2_segment > 0 && v->log2_segment < 16)
            vmc_cache.nheaps++;
    }
    /* the reads go through process_vm_readv, which a container's seccomp
     * profile may refuse: without it, AsyncGetCallTrace alone */
    uintptr_t probe_word = 0, here = (uintptr_t)&vmc_cache.heaps[0].low;
    if (!vmc_word(here, &probe_word) || probe_word != vmc_cache.heaps[0].low) {
        jp_log_info("process_vm_readv is not allowed here: the sampler walks stacks with AsyncGetCallTrace alone");
        return false;
    }
    vmc_cache.ready = vmc_cache.nheaps > 0;
    return vmc_cache.ready;
}

/* The blob whose code holds pc: copies its first VMC_BLOB_BYTES into blob
 * and returns its address, or 0 */
static uintptr_t vmc_blob_at(uintptr_t pc, uint8_t *blob)
{
    if (pc < vmc_cache.low || pc >= vmc_cache.high)
        return 0;
    for (int i = 0; i < vmc_cache.nheaps; i++) {
        const vmc_heap *h = &vmc_cache.heaps[i];
        if (pc < h->low || pc >= h->high)
            continue;
        /* the segment map: 0 where a block starts, else how many segments
         * back to go (at most 0xfe at a time), 0xff for a free segment */
        uintptr_t seg = (pc - h->low) >> h->log2_segment;
        for (int hops = 0;; hops++) {
            uint8_t back;
            if (hops > 65536 || !vmc_read_cache(h->segmap + seg, &back, 1) || back == 0xff || back > seg)
                return 0;
            if (back == 0)
                break;
            seg -= back;
        }
        /* the block's header (is it in use?) and the blob after it, in one read */
        uintptr_t block = h->low + (seg << h->log2_segment);
        uint8_t buf[VMC_BLOB_BYTES + 64];
        if (vmc_cache.block_header > 64 || !vmc_read_cache(block, buf, vmc_cache.block_header + VMC_BLOB_BYTES) ||
            !buf[vmc_cache.header_used])
            return 0;
        memcpy(blob, buf + vmc_cache.block_header, VMC_BLOB_BYTES);
        uintptr_t at = block + vmc_cache.block_header;
        uintptr_t begin = vmc_code_bound(blob, at, vmc_cache.code_begin);
        uintptr_t end = vmc_code_bound(blob, at, vmc_cache.code_end);
        return begin && pc >= begin && pc < end ? at : 0;
    }
    return 0;
}

/* The jmethodID of a Method*, or NULL: the method's class keeps its ids by
 * the method's idnum, and an id names its method (checked, so that a
 * pointer that only looks like a method gives nothing). Ids found are kept
 * in a table by Method*; HotSpot never frees an id's memory (an unloaded
 * method's id is cleared), so a kept id is checked by reading it directly. */
static jmethodID vmc_method_id(uintptr_t method)
{
    if (!method)
        return NULL;
    _Atomic uintptr_t *slot = &vmc_seen.ids[((method >> 3) * 0x9E3779B97F4A7C15ull) >> (64 - VMC_IDS_LOG2)];
    uintptr_t kept = atomic_load_explicit(slot, memory_order_acquire);
    if (kept && *(const uintptr_t *)kept == method)
        return (jmethodID)kept;
    uintptr_t cm, cp, ik, ids, count, id, back;
    uint16_t idnum;
    if (!vmc_word(method + (uintptr_t)vmc_method.const_method, &cm) ||
        !vmc_word(cm + (uintptr_t)vmc_method.constants, &cp) ||
        !vmc_word(cp + (uintptr_t)vmc_method.pool_holder, &ik) ||
        !vmc_word(ik + (uintptr_t)vmc_method.jmethod_ids, &ids) ||
        !vmc_read(cm + (uintptr_t)vmc_method.idnum, &idnum, sizeof idnum) || !vmc_word(ids, &count))
        return NULL;
    if (idnum >= count || !vmc_word(ids + (1 + (uintptr_t)idnum) * sizeof(uintptr_t), &id) || !vmc_word(id, &back) ||
        back != method)
        return NULL;
    atomic_store_explicit(slot, id, memory_order_release);
    return (jmethodID)id;
}

/* Which of the names we know a blob's name is: the names are constant
 * strings in libjvm, so each is compared once and its address kept */
static vm_code_kind vmc_kind_of(uintptr_t name_at)
{
    if (name_at && name_at == atomic_load_explicit(&vmc_seen.name_nmethod, memory_order_relaxed))
        return VM_CODE_COMPILED;
    if (name_at && name_at == atomic_load_explicit(&vmc_seen.name_interpreter, memory_order_relaxed))
        return VM_CODE_INTERPRETER;
    for (int i = 0; name_at && i < VMC_STUB_NAMES; i++) {
        uintptr_t seen = atomic_load_explicit(&vmc_seen.name_stubs[i], memory_order_relaxed);
        if (seen == name_at)
            return VM_CODE_STUB;
        if (!seen)
            break;
    }
    char name[16] = { 0 };
    if (!vmc_read(name_at, name, sizeof name - 1))
        return VM_CODE_UNKNOWN;
    if (strcmp(name, "nmethod") == 0) {
        atomic_store_explicit(&vmc_seen.name_nmethod, name_at, memory_order_relaxed);
        return VM_CODE_COMPILED;
    }
    if (strcmp(name, "Interpreter") == 0) {
        atomic_store_explicit(&vmc_seen.name_interpreter, name_at, memory_order_relaxed);
        return VM_CODE_INTERPRETER;
    }
    for (int i = 0; i < VMC_STUB_NAMES; i++) {
        uintptr_t none = 0;
        if (atomic_compare_exchange_strong(&vmc_seen.name_stubs[i], &none, name_at) || none == name_at)
            break;
    }
    return VM_CODE_STUB;
}

/* A blob's kind, frame size and whether its frame is complete at pc (the blob copied at `at`). */
static vm_code_kind vmc_blob_kind(uintptr_t pc, const uint8_t *blob, uintptr_t at, uint32_t *frame_words,
                                  bool *complete)
{
    vm_code_kind kind = vmc_kind_of(vmc_field(blob, vmc_cache.blob_name));
    int32_t words;
    memcpy(&words, blob + vmc_cache.frame_size, sizeof words);
    if (words > 0 && words < 65536)
        *frame_words = (uint32_t)words;
    int32_t done;
    if (vmc_cache.frame_complete_size == 2) {
        int16_t d16;
        memcpy(&d16, blob + vmc_cache.frame_complete, sizeof d16);
        done = d16;
    } else {
        memcpy(&done, blob + vmc_cache.frame_complete, sizeof done);
    }
    *complete = done >= 0 && pc >= vmc_code_bound(blob, at, vmc_cache.code_begin) + (uintptr_t)done;
    return kind;
}

/* The blob whose code holds pc, copied into blob, with its kind, frame size and completeness; VM_CODE_UNKNOWN
 * (frame size 0, not complete) when none */
static vm_code_kind vmc_code_at(uintptr_t pc, uint8_t *blob, uint32_t *frame_words, bool *complete)
{
    *frame_words = 0;
    *complete = false;
    uintptr_t at;
    if (!vmc_cache.ready || !(at = vmc_blob_at(pc, blob)))
        return VM_CODE_UNKNOWN;
    return vmc_blob_kind(pc, blob, at, frame_words, complete);
}

vm_code_kind vm_code_at(uintptr_t pc, uintptr_t rbx, uintptr_t fp, bool frame_first, jmethodID *method,
                        uint32_t *frame_words, bool *complete)
{
    *method = NULL;
    uint8_t blob[VMC_BLOB_BYTES];
    vm_code_kind kind = vmc_code_at(pc, blob, frame_words, complete);
    if (kind == VM_CODE_COMPILED) {
        *method = vmc_method_id(vmc_field(blob, vmc_cache.cm_method));
    } else if (kind == VM_CODE_INTERPRETER) {
        /* an interpreted frame keeps its Method* three words below fp
         * (frame::interpreter_frame_method_offset on x86-64) */
        uintptr_t in_frame = 0;
        if (fp && !vmc_word(fp - 3 * sizeof(uintptr_t), &in_frame))
            in_frame = 0;
        *method = vmc_method_id(frame_first ? in_frame : rbx);
        if (!*method)
            *method = vmc_method_id(frame_first ? rbx : in_frame);
    }
    return kind;
}

vm_code_kind vm_code_frame(uintptr_t pc, uintptr_t in_frame, bool check, uintptr_t *method, uint32_t *frame_words,
                           bool *complete)
{
    *method = 0;
    uint8_t blob[VMC_BLOB_BYTES];
    vm_code_kind kind = vmc_code_at(pc, blob, frame_words, complete);
    if (kind == VM_CODE_COMPILED)
        *method = vmc_field(blob, vmc_cache.cm_method);
    else if (kind == VM_CODE_INTERPRETER)
        *method = !check || vmc_method_id(in_frame) ? in_frame : 0;
    return kind;
}

/* whether jmethodIDs have proved to be what HotSpot has made them so far: the address of a word that holds
 * the method (set once one id was read so and its method led back to it) */
static atomic_bool vmc_ids_point;

uintptr_t vm_code_method_of(jmethodID id)
{
    uintptr_t method = 0;
    if (!id || (uintptr_t)id < 4096)
        return 0;
    if (atomic_load_explicit(&vmc_ids_point, memory_order_relaxed))
        return *(const uintptr_t *)id; /* HotSpot never frees an id's word (an unloaded method's is cleared) */
    if (!vmc_jvm.pid || !vmc_word((uintptr_t)id, &method) || vmc_method_id(method) != id)
        return 0;
    atomic_store_explicit(&vmc_ids_point, true, memory_order_relaxed);
    return method;
}

/* The calling thread's JavaThreadState (jni: its JNIEnv), or -1 when its layout is not known. */
static int32_t vmc_thread_state(JNIEnv *jni)
{
    if (!vmc_cache.ready || !vmc_thread.known || !jni)
        return -1;
    return __atomic_load_n((const int32_t *)((const char *)jni + vmc_thread.state), __ATOMIC_ACQUIRE);
}

bool vm_code_anchor_get(JNIEnv *jni, vm_code_anchor *anchor)
{
    int32_t state = vmc_thread_state(jni);
    if (state < 0 || (state != vmc_thread.in_vm && state != vmc_thread.in_vm_trans))
        return false;
    const char *t = (const char *)jni;
    anchor->sp = __atomic_load_n((const uintptr_t *)(t + vmc_thread.anchor_sp), __ATOMIC_RELAXED);
    anchor->pc = __atomic_load_n((const uintptr_t *)(t + vmc_thread.anchor_pc), __ATOMIC_RELAXED);
    anchor->fp = __atomic_load_n((const uintptr_t *)(t + vmc_thread.anchor_fp), __ATOMIC_RELAXED);
    return true;
}

int vm_code_has_java_frame(JNIEnv *jni)
{
    if (!vmc_thread.known || !jni)
        return -1;
    return __atomic_load_n((const uintptr_t *)((const char *)jni + vmc_thread.anchor_sp), __ATOMIC_RELAXED) != 0;
}

void vm_code_anchor_set(JNIEnv *jni, const vm_code_anchor *anchor)
{
    char *t = (char *)jni;
    /* sp last: the JVM takes a frame to be there once sp is set */
    __atomic_store_n((uintptr_t *)(t + vmc_thread.anchor_sp), (uintptr_t)0, __ATOMIC_RELEASE);
    __atomic_store_n((uintptr_t *)(t + vmc_thread.anchor_fp), anchor->fp, __ATOMIC_RELEASE);
    __atomic_store_n((uintptr_t *)(t + vmc_thread.anchor_pc), anchor->pc, __ATOMIC_RELEASE);
    __atomic_store_n((uintptr_t *)(t + vmc_thread.anchor_sp), anchor->sp, __ATOMIC_RELEASE);
}

bool vm_code_in_java(JNIEnv *jni)
{
    int32_t state = vmc_thread_state(jni);
    return state >= 0 && (state == vmc_thread.in_java || state == vmc_thread.in_java_trans);
}
