/* native_frames.c — the native and kernel frames of samples (see
 * native_frames.h).
 *
 * Process-lifetime state (nf_proc): the libraries seen (code_libs: only
 * grows, so a map's pointers stay good), the current map the handler reads
 * (nf_live), the maps replaced and not yet freed, the count of walks inside
 * (a replaced map is freed when none is), the count of walks that met an
 * unknown pc (the agent thread reads the map again), and the kernel's
 * symbols. A session's names (native_frames_names) map an address to its
 * frame in that session's model. */
#include "native_frames.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "../../common/id_map.h"
#include "../../common/jp_log.h"
#include "../../native/code_map.h"
#include "../../native/cxx_name.h"
#include "../../native/elf_symbols.h"
#include "../../native/kallsyms.h"
#include "../../native/kallsyms_cache.h"
#include "../../native/unwind.h"
#include "../hotspot/vm_code.h"

/* stack words a walk may read above the interrupted sp */
#define NF_STACK_SPAN ((uint64_t)8 << 20)
#define NF_RETIRED_MAX 64
#define NF_MISS_WAIT_MIN 100000000u           /* 100 ms */
#define NF_MISS_WAIT_MAX (64 * NF_MISS_WAIT_MIN)

static struct {
    code_libs *libs;
    code_map *_Atomic live;
    code_map *retired[NF_RETIRED_MAX];
    unsigned nretired;
    atomic_int walking;           /* walks inside a map now */
    _Atomic uint64_t misses;      /* pcs found in no mapping */
    uint64_t misses_seen;         /* agent thread: misses at the last read */
    uint64_t read_at_ns;          /* agent thread: when the map was last read */
    uint64_t miss_wait_ns;        /* agent thread: the least time between reads for walks that stopped short */
    unsigned long long adds_seen; /* agent thread: libraries the dynamic loader had loaded at the last read */
    bool read_failed;
    kallsyms *kernel;
    bool kernel_loaded, kernel_warned;
    bool kernel_cached;           /* the symbols came from the per-boot cache (not yet read again after a miss) */
    /* C++ names demangled by the C++ runtime's __cxa_demangle: the JVM's own
     * (Debian's libjvm links libstdc++), else libstdc++ loaded for it */
    char *(*demangle)(const char *mangled, char *out, size_t *len, int *status);
    bool demangle_looked;
} nf_proc = { .miss_wait_ns = NF_MISS_WAIT_MIN };

struct native_frames_names {
    id_map by_pc;                 /* pc << 2 | leaf << 1 | kernel -> frame id << 32 | packed frame + 1 (0: left out) */
    uint64_t named, unnamed;
};

static uint64_t nf_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One frame of the JVM's code cache, from r (pc in the code cache) to its
 * caller, as HotSpot lays frames out on x86-64: a compiled method or a stub
 * with a frame size ends with the return address and the caller's rbp (sp
 * + size words is the caller's sp); an interpreted frame and a stub without
 * a size (the call stub, which native code calls Java through) keep rbp as
 * their frame pointer (return address at fp + 8, the caller's rbp at fp; an
 * interpreted frame keeps the caller's sp at fp - 8). A compiled or an
 * interpreted frame leaves its method's marker in pcs. False when the frame
 * cannot be trusted: a leaf in a method's prologue, in the interpreter
 * without its method in the frame, a blob that cannot be read. */
static bool nf_java_step(unwind_regs *r, bool leaf, uint64_t lo, uint64_t hi, uint64_t *pcs, uint32_t *n,
                         uint32_t max)
{
    uintptr_t method;
    uint32_t words;
    bool complete;
    /* an interpreted frame's method, three words below its fp (read here, where the stack's bounds are known);
     * a leaf's checked (it may be at the method's entry, rbp not yet its frame's), the others taken as they are */
    uint64_t in_frame = 0;
    if (r->fp >= r->sp + 24 && !unwind_read(r->fp - 24, lo, hi, &in_frame))
        in_frame = 0;
    vm_code_kind kind = vm_code_frame((uintptr_t)r->pc, (uintptr_t)in_frame, leaf, &method, &words, &complete);
    if (kind == VM_CODE_UNKNOWN || (leaf && !complete && kind != VM_CODE_INTERPRETER))
        return false;
    uint64_t ret, fp, sp;
    if (kind == VM_CODE_INTERPRETER || words == 0) {
        if (kind == VM_CODE_INTERPRETER && !method) /* at a method's entry: rbp is not yet its frame's */
            return false;
        if (r->fp < r->sp || !unwind_read(r->fp + 8, lo, hi, &ret) || !unwind_read(r->fp, lo, hi, &fp))
            return false;
        sp = r->fp + 16;
        uint64_t sender_sp;
        if (kind == VM_CODE_INTERPRETER && vm_code_in_code_cache((uintptr_t)ret) &&
            unwind_read(r->fp - 8, lo, hi, &sender_sp) && sender_sp > r->fp && sender_sp < hi)
            sp = sender_sp; /* a compiled caller's own sp, before the interpreter's call extended it */
    } else {
        sp = r->sp + (uint64_t)words * 8;
        if (!unwind_read(sp - 8, lo, hi, &ret) || !unwind_read(sp - 16, lo, hi, &fp))
            return false;
    }
    if (sp <= r->sp || sp > hi || ret < 4096)
        return false;
    if (kind == VM_CODE_COMPILED || kind == VM_CODE_INTERPRETER) {
        if (*n == max)
            return false;
        pcs[(*n)++] = NATIVE_FRAMES_JAVA | (uint64_t)method;
    }
    r->pc = ret;
    r->sp = sp;
    r->fp = fp;
    return true;
}

uint32_t native_frames_walk(const void *ucontext, bool java_thread, uint32_t java_max, uint64_t *pcs, uint32_t max)
{
    atomic_fetch_add(&nf_proc.walking, 1);
    const code_map *m = atomic_load(&nf_proc.live);
    uint32_t n = 0;
    if (m && max) {
        unwind_regs r;
        unwind_regs_from_ucontext(ucontext, &r);
        uint64_t lo = 0, hi = 0;
        bool bounded = code_map_readable(m, r.sp, &lo, &hi);
        if (bounded && hi - r.sp > NF_STACK_SPAN)
            hi = r.sp + NF_STACK_SPAN;
        uint32_t marks = 0;
        for (bool leaf = true; n < max;) {
            if (java_thread && vm_code_in_code_cache((uintptr_t)r.pc)) {
                /* Java frames (AsyncGetCallTrace names them), walked through to the native ones below */
                uint32_t was = n;
                if (!bounded || marks >= java_max || !nf_java_step(&r, leaf, lo, hi, pcs, &n, max))
                    break;
                marks += n - was;
                leaf = false;
                continue;
            }
            if (!code_map_find(m, r.pc)) {
                if (r.pc > 4096)
                    atomic_fetch_add_explicit(&nf_proc.misses, 1, memory_order_relaxed);
                if (n == 0 || !leaf)
                    pcs[n++] = r.pc; /* named as unknown: a frame all the same */
                break;
            }
            pcs[n++] = r.pc;
            /* through a signal frame the next pc is an interrupted one, not a return address: a leaf again */
            if (!bounded || !unwind_step_ex(m, &r, leaf, r.sp, hi, &leaf)) {
                /* stopping short of the stack's end is most often a return address in a library loaded
                 * since the map was read (the step refuses an unmapped pc) */
                if (java_thread && !unwind_outermost(m, &r, leaf))
                    atomic_fetch_add_explicit(&nf_proc.misses, 1, memory_order_relaxed);
                break;
            }
        }
    }
    atomic_fetch_sub(&nf_proc.walking, 1);
    return n;
}

/* Frees the replaced maps once no walk is inside any map. */
static void nf_free_retired(void)
{
    if (!nf_proc.nretired || atomic_load(&nf_proc.walking) != 0)
        return;
    for (unsigned i = 0; i < nf_proc.nretired; i++)
        code_map_free(nf_proc.retired[i]);
    nf_proc.nretired = 0;
}

/* The map read again now, when the last read is 100 ms old or more: an
 * address to name is in no library of the map. True when it was. */
static bool nf_refresh_now(void)
{
    uint64_t now = nf_now_ns();
    if (now - nf_proc.read_at_ns < 100000000u || nf_proc.nretired == NF_RETIRED_MAX || !nf_proc.libs)
        return false;
    code_map *fresh = code_map_read(nf_proc.libs, NULL);
    nf_proc.read_at_ns = now;
    if (!fresh)
        return false;
    code_map *cur = atomic_exchange(&nf_proc.live, fresh);
    if (cur)
        nf_proc.retired[nf_proc.nretired++] = cur;
    return true;
}

/* dl_iterate_phdr's count of the libraries loaded so far (glibc's dlpi_adds), read from its first entry. */
static int nf_adds_of(struct dl_phdr_info *info, size_t size, void *out)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        *(unsigned long long *)out = info->dlpi_adds;
    return 1;
}

bool native_frames_refresh(void)
{
    nf_free_retired();
    code_map *cur = atomic_load(&nf_proc.live);
    uint64_t misses = atomic_load_explicit(&nf_proc.misses, memory_order_relaxed), now = nf_now_ns();
    /* a library loaded since the last read (System.loadLibrary): read again now, before walks miss it */
    unsigned long long adds = 0;
    dl_iterate_phdr(nf_adds_of, &adds);
    bool loaded = cur && adds != nf_proc.adds_seen;
    nf_proc.adds_seen = adds;
    /* or when walks stopped short since the last read: at most ten times a second, and half as often after each
     * read that found no library not seen before (the walks stop short for another reason), down to once in 6.4 s */
    if (cur && !loaded && (misses == nf_proc.misses_seen || now - nf_proc.read_at_ns < nf_proc.miss_wait_ns))
        return true;
    if (!cur && nf_proc.read_failed)
        return false;
    if (nf_proc.nretired == NF_RETIRED_MAX)
        return cur != NULL; /* walks keep arriving: read again once the old maps are freed */
    if (!nf_proc.libs && !(nf_proc.libs = code_libs_new()))
        return false;
    unsigned libs_before = code_libs_count(nf_proc.libs);
    code_map *fresh = code_map_read(nf_proc.libs, NULL);
    nf_proc.read_at_ns = now;
    nf_proc.misses_seen = misses;
    if (loaded || code_libs_count(nf_proc.libs) != libs_before)
        nf_proc.miss_wait_ns = NF_MISS_WAIT_MIN;
    else if (nf_proc.miss_wait_ns < NF_MISS_WAIT_MAX)
        nf_proc.miss_wait_ns *= 2;
    if (!fresh) {
        if (!cur) {
            nf_proc.read_failed = true;
            jp_log_error("cannot read /proc/self/maps: samples have no native frames");
        }
        return cur != NULL;
    }
    atomic_store(&nf_proc.live, fresh);
    if (cur)
        nf_proc.retired[nf_proc.nretired++] = cur;
    nf_free_retired();
    return true;
}

uint64_t native_frames_function(const char *name)
{
    const code_map *cm = atomic_load(&nf_proc.live);
    return cm ? code_map_function_address(cm, name, "libjvmprof") : 0;
}

native_frames_names *native_frames_names_new(void)
{
    native_frames_names *n = calloc(1, sizeof *n);
    return n;
}

void native_frames_names_free(native_frames_names *n)
{
    if (!n)
        return;
    id_map_free(&n->by_pc);
    free(n);
}

void native_frames_counts(const native_frames_names *n, uint64_t *named, uint64_t *unnamed)
{
    *named = n ? n->named : 0;
    *unnamed = n ? n->unnamed : 0;
}

/* The kernel's symbols, read the first time one is needed; NULL when they cannot be read or are hidden. */
static const kallsyms *nf_kernel(void)
{
    if (!nf_proc.kernel_loaded) {
        nf_proc.kernel_loaded = true;
        nf_proc.kernel = kallsyms_cache_load(NULL, NULL, &nf_proc.kernel_cached);
        jp_log_debug("kernel symbols: %zu, %s", kallsyms_count(nf_proc.kernel),
                     nf_proc.kernel_cached ? "from the per-boot cache" : "read from /proc/kallsyms");
        if ((!nf_proc.kernel || !kallsyms_usable(nf_proc.kernel)) && !nf_proc.kernel_warned) {
            nf_proc.kernel_warned = true;
            jp_log_info("kernel frames are unnamed: /proc/kallsyms %s", nf_proc.kernel ? "hides the addresses "
                        "(kernel.kptr_restrict; run as root)" : "cannot be read");
        }
    }
    return nf_proc.kernel && kallsyms_usable(nf_proc.kernel) ? nf_proc.kernel : NULL;
}

/* An address the cached symbols do not name may be in a function the kernel added since (a BPF program's): the
 * symbols read again, once. */
static const kallsyms *nf_kernel_fresh(void)
{
    if (!nf_proc.kernel_cached)
        return NULL;
    nf_proc.kernel_cached = false;
    kallsyms *k = kallsyms_load(NULL);
    jp_log_debug("kernel symbols: %zu, read from /proc/kallsyms again (an address the cached ones do not name)",
                 kallsyms_count(k));
    if (!k || !kallsyms_usable(k)) {
        kallsyms_free(k);
        return NULL;
    }
    kallsyms_free(nf_proc.kernel);
    nf_proc.kernel = k;
    return k;
}

/* A C++ symbol's readable name (malloc'd), or NULL to keep it as it is. */
static char *nf_demangle(const char *sym)
{
    if (sym[0] != '_' || sym[1] != 'Z')
        return NULL;
    if (!nf_proc.demangle_looked) {
        nf_proc.demangle_looked = true;
        *(void **)&nf_proc.demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
        if (!nf_proc.demangle) {
            void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
            if (h)
                *(void **)&nf_proc.demangle = dlsym(h, "__cxa_demangle");
        }
    }
    if (!nf_proc.demangle)
        return NULL;
    int status = -1;
    char *out = nf_proc.demangle(sym, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* The frame of an address: its library's class, its symbol's method. */
static bool nf_name(native_frames_names *n, model *m, uint64_t pc, bool leaf, bool kernel, frame_id *frame,
                    frame_kind *kind, bool *unnamed, bool *in_symbols, bool *cacheable)
{
    *cacheable = true;
    bool lib_symbols = false;
    char name[64];
    const char *sym = NULL;
    class_id cls;
    if (kernel) {
        const kallsyms *k = nf_kernel();
        sym = k ? kallsyms_find(k, pc) : NULL;
        if (!sym && k && (k = nf_kernel_fresh()) != NULL)
            sym = kallsyms_find(k, pc);
        cls = model_class_intern_lib(m, model_cstring(m, "kernel"), MODEL_CODE_KERNEL,
                                     model_cstring(m, "[kernel.kallsyms]"), (str_id){ 0 });
        if (!sym) {
            snprintf(name, sizeof name, "kernel+0x%llx", (unsigned long long)pc);
            sym = name;
        }
        *kind = FRAME_KIND_KERNEL;
    } else {
        const code_map *cm = atomic_load(&nf_proc.live);
        uint64_t vaddr = 0;
        /* a return address names the call before it */
        const code_lib *lib = cm ? code_map_symbol(cm, leaf ? pc : pc - 1, &sym, &vaddr) : NULL;
        if (!lib && nf_refresh_now()) { /* a library loaded since the map was read */
            cm = atomic_load(&nf_proc.live);
            lib = cm ? code_map_symbol(cm, leaf ? pc : pc - 1, &sym, &vaddr) : NULL;
        }
        *cacheable = lib != NULL;
        lib_symbols = lib && lib->syms && elf_symbols_complete(lib->syms);
        if (lib && lib->path && strstr(lib->path, "libjvmprof"))
            return false;
        if (lib && !lib->path[0] && !sym) {
            /* anonymous code outside the code cache: generated stubs */
            snprintf(name, sizeof name, "[anon]+0x%llx", (unsigned long long)pc);
            sym = name;
        }
        const char *lname = lib ? lib->name : "unknown";
        cls = model_class_intern_lib(m, model_cstring(m, lname), MODEL_CODE_NATIVE,
                                     model_cstring(m, lib ? lib->path : ""),
                                     lib && lib->syms && elf_symbols_build_id(lib->syms)[0]
                                         ? model_cstring(m, elf_symbols_build_id(lib->syms)) : (str_id){ 0 });
        if (!sym) {
            snprintf(name, sizeof name, "%s+0x%llx", lname, (unsigned long long)(lib ? vaddr : pc));
            sym = name;
        }
        *kind = FRAME_KIND_CPP;
    }
    *unnamed = sym == name;
    if (sym == name)
        n->unnamed++;
    else
        n->named++;
    *in_symbols = sym == name && !kernel && lib_symbols;
    /* a C++ name as profiles show it: without its parameters, return type and clone suffixes */
    char *readable = nf_demangle(sym);
    const char *shown = sym;
    if (readable) {
        size_t start = 0, len = cxx_name_short(readable, &start);
        readable[start + len] = '\0';
        shown = readable + start;
    }
    method_id me = model_method_intern(m, cls, model_cstring(m, shown), model_cstring(m, ""));
    free(readable);
    *frame = model_frame_intern(m, me, FRAME_LINE_NATIVE);
    return frame->v != 0;
}

bool native_frames_frame(native_frames_names *n, model *m, uint64_t pc, bool leaf, bool kernel, frame_id *frame,
                         uint32_t *packed, bool *unnamed, bool *unnamed_in_symbols)
{
    uint64_t key = pc << 2 | (leaf ? 2u : 0u) | (kernel ? 1u : 0u), v = 0;
    if (!id_map_get(&n->by_pc, key, &v)) {
        frame_kind kind;
        frame_id fr = { 0 };
        bool no_symbol = false, in_symbols = false, cacheable = true;
        bool keep = nf_name(n, m, pc, leaf, kernel, &fr, &kind, &no_symbol, &in_symbols, &cacheable);
        if (keep && fr.v == 0)
            return false; /* out of memory: not kept */
        /* frame id << 32 (its top bit: no symbol; the next: none in a library with a full symbol table) |
         * packed + 1 */
        v = keep ? ((uint64_t)fr.v | (no_symbol ? 1ull << 31 : 0) | (in_symbols ? 1ull << 30 : 0)) << 32 |
                       ((uint64_t)stack_frame_pack(model_frame_get(m, fr)->method, kind) + 1)
                 : 0;
        if (cacheable) /* an address in no library now may be in one after the map is read again */
            id_map_put(&n->by_pc, key, v);
    }
    if (v == 0)
        return false;
    *packed = (uint32_t)((v & 0xffffffffu) - 1);
    frame->v = (uint32_t)(v >> 32) & 0x3fffffffu;
    *unnamed = (v >> 63) != 0;
    *unnamed_in_symbols = ((v >> 62) & 1) != 0;
    return true;
}
