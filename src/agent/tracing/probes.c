/* probes.c — com.sun.tracing's providers in the agent (probes.h).
 *
 * Each probe has a slot in a table made once and never freed, and a 32-bit
 * word beside it that the provider's generated class reads before each call
 * (ProbeRuntime.on): non-zero while a tracer is attached to its USDT probe
 * (PR_USDT), to the fixed probe jvmprof:probe (PR_FIXED), or a trace
 * session records probes (PR_TRACE). Tracers raise a USDT probe's
 * semaphore in the process's memory without telling anyone, so a thread of
 * the agent looks at the semaphores every PR_POLL_MS while providers with
 * USDT probes live, and Probe.isEnabled looks at once. A firing's key is
 * its slot and the slot's generation: a disposed provider's slots change
 * generation, and a firing with an old key does nothing.
 *
 * A provider's USDT probes live in a shared object written for it
 * (usdt_elf.h) at DIR/jvmprof-PID/SEQ/MODULE.so (DIR: $TMPDIR, /tmp,
 * /var/tmp, /dev/shm: the first where the first one can be loaded; the
 * directory and its owner file are probe_dir.h's, and nothing is left in
 * the others), dlopen'ed, and dlclose'd and removed at dispose (after any
 * firing inside it has left), removed at exit. A firing calls the probe's
 * site with its arguments as an array of 64-bit values in %rdi; Strings
 * become UTF-8 C strings. */
#include "probes.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "../../common/arena.h"
#include "../../common/intern.h"
#include "../../common/jp_log.h"
#include "../../trace/trace_file.h"
#include "../../elf/usdt_elf.h"
#include "../../options/options.h"
#include "probe_dir.h"
#include "trace_session.h"

/* jvmprof:probe — every provider's firings: provider, probe (C strings),
 * the number of arguments, the arguments (int64_t[], Strings as C string
 * pointers), module, function. Its semaphore, raised by tracers: */
__extension__ volatile unsigned short jvmprof_probe_semaphore __attribute__((unused, section(".probes")));

#define PR_SLOTS 16384u            /* probes of live providers at most */
#define PR_POLL_MS 10
#define PR_STRING_MAX 1024u        /* a String argument's UTF-8 bytes at most ... */
#define PR_STRINGS_MAX 4096u       /* ... and all of a firing's */
enum { PR_USDT = 1, PR_FIXED = 2, PR_TRACE = 4 };

typedef struct pr_slot {
    _Atomic uint32_t gen;          /* the key's upper half while its provider lives; changed at dispose */
    _Atomic uint32_t inflight;     /* firings inside its USDT site or reading its semaphore */
    _Atomic uint32_t described;    /* the trace session whose metadata names it (0: none) */
    bool live;
    bool system;                   /* the system's tracers may have it (not com.sun.tracing.dtrace=disable) */
    uint32_t provider_id;
    uint32_t trace_id;             /* its number in traces: one per probe of each provider made */
    const char *provider, *module, *function, *name, *attributes; /* interned: never freed */
    char kinds[PROBE_ARGS_MAX + 1];
    void (*site)(const int64_t *);         /* NULL: no USDT probe */
    volatile uint16_t *sem;
} pr_slot;

typedef struct pr_provider {
    uint32_t id;
    uint32_t n;
    uint32_t *slots;
    void *dl;                      /* its shared object (NULL: no USDT probes) */
    uint32_t described;            /* the trace session whose metadata names it (0: none) */
    char path[560], dir[460];
    struct pr_provider *next;
} pr_provider;

/* The probes of the program's providers, for the process's life: a provider
 * is made and disposed of by the program (its generated class), whatever
 * profiling session runs, and the words Java reads are never freed; the
 * shared objects' directory is removed at exit. */
typedef struct pr_table {
    pthread_mutex_t lock;                   /* everything below but the words' reads */
    pr_slot *slots;
    _Atomic uint32_t *words;                /* Java reads them: never freed */
    uint32_t *free, free_count, high;       /* free slots below high */
    pr_provider *providers;
    uint32_t next_id, next_probe;           /* the last provider's number; the last probe's (in traces) */
    arena arena;                            /* the names' (kept for good) */
    intern_table names;
    bool ready;                             /* the table made */
    bool tracing;                           /* a trace session records probes */
    atomic_bool fixed_on;                   /* jvmprof:probe's semaphore was up at the last look */
    bool poller;                            /* the poller thread runs */
    char base[460];                         /* DIR/jvmprof-PID once made ... */
    pid_t base_pid;                         /* ... by this process (not a child forked since) */
} pr_table;
static pr_table pr_all = { .lock = PTHREAD_MUTEX_INITIALIZER }; /* for the process's life: see above */

static bool pr_init_locked(void)
{
    if (pr_all.ready)
        return true;
    pr_all.slots = calloc(PR_SLOTS, sizeof *pr_all.slots);
    pr_all.free = malloc(PR_SLOTS * sizeof *pr_all.free);
    void *w = mmap(NULL, PR_SLOTS * sizeof *pr_all.words, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!pr_all.slots || !pr_all.free || w == MAP_FAILED) {
        free(pr_all.slots);
        free(pr_all.free);
        if (w != MAP_FAILED)
            munmap(w, PR_SLOTS * sizeof *pr_all.words);
        pr_all.slots = NULL;
        pr_all.free = NULL;
        return false;
    }
    pr_all.words = w;
    atexit(probes_exit);
    arena_init(&pr_all.arena);
    intern_init(&pr_all.names, &pr_all.arena);
    pr_all.ready = true;
    return true;
}

/* A name kept for good (interned), NUL-terminated; NULL if out of memory. */
static const char *pr_keep(const char *s)
{
    bool added;
    uint32_t id = intern_put(&pr_all.names, s, (uint32_t)strlen(s) + 1, &added);
    return id ? intern_key(&pr_all.names, id, &(uint32_t){ 0 }) : NULL;
}

static bool pr_slot_alloc(uint32_t *out)
{
    if (pr_all.free_count) {
        *out = pr_all.free[--pr_all.free_count];
        return true;
    }
    if (pr_all.high == PR_SLOTS)
        return false;
    *out = pr_all.high++;
    return true;
}

static uint32_t pr_listeners(const pr_slot *s)
{
    return (s->sem && *s->sem ? PR_USDT : 0) | (atomic_load(&pr_all.fixed_on) && s->system ? PR_FIXED : 0) |
           (pr_all.tracing ? PR_TRACE : 0);
}

/* ---- the shared objects ---- */

/* Writes img as SEQ/MODULE.so in top (this process's DIR/jvmprof-PID) and
 * loads it: the handle, or NULL with why (and nothing left in top). */
static void *pr_load_in(const char *top, pr_provider *p, const char *module, const usdt_elf_image *img, char *why,
                        size_t cap)
{
    snprintf(p->dir, sizeof p->dir, "%.440s/%u", top, p->id);
    snprintf(p->path, sizeof p->path, "%.460s/%.80s.so", p->dir, module);
    if (mkdir(p->dir, 0700) != 0) {
        snprintf(why, cap, "%.460s: %s", p->dir, strerror(errno));
        return NULL;
    }
    int fd = open(p->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    bool written = fd >= 0 && write(fd, img->data, img->len) == (ssize_t)img->len;
    int e = errno;
    if (fd >= 0 && close(fd) != 0 && written) {
        written = false;
        e = errno;
    }
    if (!written) {
        snprintf(why, cap, "%.560s: %s", p->path, strerror(e));
        unlink(p->path);
        rmdir(p->dir);
        return NULL;
    }
    void *dl = dlopen(p->path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *err = dlerror();
        snprintf(why, cap, "%s", err ? err : "dlopen failed");
        unlink(p->path);
        rmdir(p->dir);
        return NULL;
    }
    return dl;
}

/* The USDT probes of provider p (its slots filled but for site and sem):
 * its shared object made and loaded. false with why. */
static bool pr_usdt(pr_provider *p, const char *module, char *why, size_t cap)
{
#if defined(__x86_64__)
    enum { PR_ARGS_TEXT = PROBE_ARGS_MAX * 16 + 1 };
    /* on the heap: a provider may have thousands of probes, and this runs on a Java thread's stack */
    usdt_probe_spec *spec = calloc(p->n, sizeof *spec);
    usdt_probe_place *place = calloc(p->n, sizeof *place);
    char *args = calloc(p->n, PR_ARGS_TEXT);
    usdt_elf_image img = { 0 };
    bool ok = false;
    if (!spec || !place || !args) {
        snprintf(why, cap, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < p->n; i++) {
        pr_slot *s = &pr_all.slots[p->slots[i]];
        char *text = args + (size_t)i * PR_ARGS_TEXT;
        size_t at = 0;
        for (size_t j = 0; s->kinds[j]; j++) {
            static const char *const sizes[] = { ['Z'] = "1", ['B'] = "-1", ['C'] = "2", ['S'] = "-2",
                                                 ['I'] = "-4", ['J'] = "-8", ['F'] = "4", ['D'] = "8",
                                                 ['s'] = "8", ['o'] = "8" };
            at += (size_t)snprintf(text + at, PR_ARGS_TEXT - at, "%s%s@%zu(%%rdi)", j ? " " : "",
                                   sizes[(unsigned char)s->kinds[j]], j * 8);
        }
        spec[i] = (usdt_probe_spec){ s->provider, s->name, s->function[0] ? s->function : s->name, text };
    }
    char soname[200];
    snprintf(soname, sizeof soname, "%s.so.%u", module, p->id);
    if (usdt_elf_build(spec, p->n, soname, &img, place) != JP_OK) {
        snprintf(why, cap, "%s", img.why);
        goto out;
    }
    if (pr_all.base[0]) { /* the directory the first shared object could be loaded from */
        p->dl = pr_load_in(pr_all.base, p, module, &img, why, cap);
    } else { /* the first that works; nothing left in the others */
        const char *env = getenv("TMPDIR");
        const char *bases[] = { env && env[0] == '/' ? env : NULL, "/tmp", "/var/tmp", "/dev/shm" };
        char first[400] = "", top[441]; /* p->dir keeps 440 bytes of it */
        for (size_t b = 0; b < sizeof bases / sizeof bases[0] && !p->dl; b++) {
            if (!bases[b])
                continue;
            probe_dir_clean(bases[b]);
            char *w = first[0] ? why : first;
            size_t wcap = first[0] ? cap : sizeof first;
            if (!probe_dir_make(bases[b], top, sizeof top, w, wcap))
                continue;
            p->dl = pr_load_in(top, p, module, &img, w, wcap);
            if (p->dl) {
                snprintf(pr_all.base, sizeof pr_all.base, "%s", top);
                pr_all.base_pid = getpid();
            }
            else
                probe_dir_remove(top);
        }
        if (!p->dl)
            snprintf(why, cap, "%s", first);
    }
    if (!p->dl)
        goto out;
    struct link_map *lm = NULL;
    if (dlinfo(p->dl, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
        snprintf(why, cap, "dlinfo: %s", dlerror());
        dlclose(p->dl);
        p->dl = NULL;
        unlink(p->path);
        rmdir(p->dir);
        goto out;
    }
    for (uint32_t i = 0; i < p->n; i++) {
        pr_slot *s = &pr_all.slots[p->slots[i]];
        s->site = (void (*)(const int64_t *))(uintptr_t)(lm->l_addr + place[i].site);
        s->sem = (volatile uint16_t *)(uintptr_t)(lm->l_addr + place[i].semaphore);
    }
    ok = true;
out:
    usdt_elf_free(&img);
    free(spec);
    free(place);
    free(args);
    return ok;
#else
    (void)p;
    (void)module;
    snprintf(why, cap, "jvmprof makes USDT probes on x86-64 only");
    return false;
#endif
}

/* ---- the poller: semaphores into words ---- */

/* Every live probe's word, from what listens now; under pr_all.lock. */
static void pr_words_locked(void)
{
    for (pr_provider *p = pr_all.providers; p; p = p->next)
        for (uint32_t i = 0; i < p->n; i++)
            atomic_store(&pr_all.words[p->slots[i]], pr_listeners(&pr_all.slots[p->slots[i]]));
}

static void *pr_poll(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "jvmprof-probes");
    for (;;) {
        struct timespec ts = { 0, PR_POLL_MS * 1000000L };
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&pr_all.lock);
        atomic_store(&pr_all.fixed_on, jvmprof_probe_semaphore != 0);
        pr_words_locked();
        pthread_mutex_unlock(&pr_all.lock);
    }
    return NULL;
}

void probes_trace_listen(bool on)
{
    pthread_mutex_lock(&pr_all.lock);
    pr_all.tracing = on;
    pr_words_locked();
    pthread_mutex_unlock(&pr_all.lock);
}

/* ---- a provider's life ---- */

static char *pr_jstring(JNIEnv *jni, jstring s)
{
    if (!s)
        return NULL;
    const char *c = (*jni)->GetStringUTFChars(jni, s, NULL);
    char *copy = c ? strdup(c) : NULL;
    if (c)
        (*jni)->ReleaseStringUTFChars(jni, s, c);
    return copy;
}

static const char *pr_keep_java(JNIEnv *jni, jobjectArray a, jsize i)
{
    jstring s = (*jni)->GetObjectArrayElement(jni, a, i);
    char *c = pr_jstring(jni, s);
    const char *kept = c ? pr_keep(c) : NULL;
    free(c);
    if (s)
        (*jni)->DeleteLocalRef(jni, s);
    return kept;
}

static void pr_release_locked(pr_provider *p)
{
    for (uint32_t i = 0; i < p->n; i++) {
        pr_slot *s = &pr_all.slots[p->slots[i]];
        atomic_fetch_add(&s->gen, 1);
        s->live = false;
        atomic_store(&pr_all.words[p->slots[i]], 0);
    }
    for (uint32_t i = 0; i < p->n; i++) { /* a firing inside the shared object leaves it first */
        pr_slot *s = &pr_all.slots[p->slots[i]];
        while (atomic_load(&s->inflight))
            sched_yield();
        s->site = NULL;
        s->sem = NULL;
        pr_all.free[pr_all.free_count++] = p->slots[i];
    }
    if (p->dl) {
        dlclose(p->dl);
        unlink(p->path);
        rmdir(p->dir);
    }
    free(p->slots);
    free(p);
}

JNIEXPORT jstring JNICALL Java_jvmprof_ProbeRuntime_create0(JNIEnv *jni, jclass cls, jstring jprovider,
                                                            jstring jmodule, jstring jattributes, jobjectArray jnames,
                                                            jobjectArray jfunctions, jobjectArray jkinds,
                                                            jboolean usdt, jlongArray jout)
{
    (void)cls;
    jsize n = (*jni)->GetArrayLength(jni, jnames);
    char *provider = pr_jstring(jni, jprovider), *module = pr_jstring(jni, jmodule),
         *attributes = pr_jstring(jni, jattributes);
    const char *error = NULL;
    pr_provider *p = NULL;
    pthread_mutex_lock(&pr_all.lock);
    if (!provider || !module || !attributes || !pr_init_locked() || !(p = calloc(1, sizeof *p)) ||
        !(p->slots = calloc((size_t)n + 1, sizeof *p->slots))) {
        free(p);
        error = "out of memory";
        goto out;
    }
    p->id = ++pr_all.next_id;
    const char *kprovider = pr_keep(provider), *kmodule = pr_keep(module), *kattributes = pr_keep(attributes);
    for (jsize i = 0; i < n; i++) {
        uint32_t slot;
        if (!pr_slot_alloc(&slot)) {
            error = "the agent holds 16384 probes at most, and they are taken (dispose providers no longer used)";
            break;
        }
        p->slots[p->n++] = slot;
        pr_slot *s = &pr_all.slots[slot];
        const char *name = pr_keep_java(jni, jnames, i), *function = pr_keep_java(jni, jfunctions, i),
                   *kinds = pr_keep_java(jni, jkinds, i);
        if (!kprovider || !kmodule || !kattributes || !name || !function || !kinds || !probe_kinds_valid(kinds)) {
            error = kinds && !probe_kinds_valid(kinds) ? "bad parameter kinds" : "out of memory";
            break;
        }
        s->provider = kprovider;
        s->module = kmodule;
        s->attributes = kattributes;
        s->name = name;
        s->function = function;
        snprintf(s->kinds, sizeof s->kinds, "%s", kinds);
        s->provider_id = p->id;
        s->trace_id = ++pr_all.next_probe;
        s->system = usdt;
        atomic_store(&s->described, 0);
        s->site = NULL;
        s->sem = NULL;
    }
    if (!error && usdt && n > 0) {
        char why[600];
        if (!pr_usdt(p, module[0] ? module : provider, why, sizeof why))
            jp_log_error("provider %s: no USDT probes of its own (%s); its probes still reach jvmprof:probe and "
                         "the trace", provider, why);
        if (!pr_all.poller) { /* semaphores into words from now on */
            pthread_t t;
            pthread_attr_t at;
            pthread_attr_init(&at);
            pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
            pr_all.poller = pthread_create(&t, &at, pr_poll, NULL) == 0;
            pthread_attr_destroy(&at);
        }
    }
    if (error) {
        pr_release_locked(p);
        p = NULL;
        goto out;
    }
    jlong *out = calloc(1 + 2 * (size_t)n, sizeof *out);
    if (!out) {
        pr_release_locked(p);
        p = NULL;
        error = "out of memory";
        goto out;
    }
    out[0] = p->id;
    for (uint32_t i = 0; i < p->n; i++) {
        pr_slot *s = &pr_all.slots[p->slots[i]];
        uint32_t gen = atomic_fetch_add(&s->gen, 1) + 1;
        s->live = true;
        atomic_store(&pr_all.words[p->slots[i]], pr_listeners(s));
        out[1 + i] = (jlong)((uint64_t)gen << 32 | p->slots[i]);
        out[1 + (uint32_t)n + i] = (jlong)(uintptr_t)&pr_all.words[p->slots[i]];
    }
    (*jni)->SetLongArrayRegion(jni, jout, 0, 1 + 2 * n, out);
    free(out);
    p->next = pr_all.providers;
    pr_all.providers = p;
out:
    pthread_mutex_unlock(&pr_all.lock);
    free(provider);
    free(module);
    free(attributes);
    return error ? (*jni)->NewStringUTF(jni, error) : NULL;
}

JNIEXPORT void JNICALL Java_jvmprof_ProbeRuntime_dispose0(JNIEnv *jni, jclass cls, jlong handle)
{
    (void)jni;
    (void)cls;
    pthread_mutex_lock(&pr_all.lock);
    for (pr_provider **pp = &pr_all.providers; *pp; pp = &(*pp)->next)
        if ((*pp)->id == (uint32_t)handle) {
            pr_provider *p = *pp;
            *pp = p->next;
            pr_release_locked(p);
            break;
        }
    pthread_mutex_unlock(&pr_all.lock);
}

JNIEXPORT jstring JNICALL Java_jvmprof_ProbeRuntime_file0(JNIEnv *jni, jclass cls, jlong handle)
{
    (void)cls;
    char path[560] = "";
    pthread_mutex_lock(&pr_all.lock);
    for (pr_provider *p = pr_all.providers; p; p = p->next)
        if (p->id == (uint32_t)handle && p->dl)
            snprintf(path, sizeof path, "%.559s", p->path);
    pthread_mutex_unlock(&pr_all.lock);
    return path[0] ? (*jni)->NewStringUTF(jni, path) : NULL;
}

/* The live slot of key, or NULL. */
static pr_slot *pr_slot_of(uint64_t key)
{
    uint32_t slot = (uint32_t)key;
    if (!pr_all.ready || slot >= PR_SLOTS)
        return NULL;
    pr_slot *s = &pr_all.slots[slot];
    return atomic_load(&s->gen) == (uint32_t)(key >> 32) ? s : NULL;
}

JNIEXPORT jboolean JNICALL Java_jvmprof_ProbeRuntime_enabled0(JNIEnv *jni, jclass cls, jlong key)
{
    (void)jni;
    (void)cls;
    pthread_mutex_lock(&pr_all.lock);
    pr_slot *s = pr_slot_of((uint64_t)key);
    uint32_t w = 0;
    if (s && s->live) {
        atomic_store(&pr_all.fixed_on, jvmprof_probe_semaphore != 0);
        w = pr_listeners(s);
        atomic_store(&pr_all.words[(uint32_t)key], w);
    }
    pthread_mutex_unlock(&pr_all.lock);
    return w != 0;
}

bool probes_info(uint64_t id, probe_info *out)
{
    pr_slot *s = pr_slot_of(id);
    if (!s)
        return false;
    *out = (probe_info){ s->trace_id, s->provider_id, s->provider, s->module, s->function, s->name, s->attributes, "" };
    memcpy(out->kinds, s->kinds, sizeof out->kinds);
    return pr_slot_of(id) == s;
}

/* ---- a firing ---- */

/* A String's UTF-8 (truncated at a character to cap bytes) into out. */
static size_t pr_utf8(JNIEnv *jni, jstring str, char *out, size_t cap)
{
    jchar chars[PR_STRING_MAX];
    jsize len = (*jni)->GetStringLength(jni, str);
    jsize take = len < (jsize)PR_STRING_MAX ? len : (jsize)PR_STRING_MAX;
    (*jni)->GetStringRegion(jni, str, 0, take, chars);
    size_t n = 0;
    for (jsize i = 0; i < take; i++) {
        uint32_t c = chars[i];
        if (c >= 0xd800 && c < 0xdc00 && i + 1 < take && chars[i + 1] >= 0xdc00 && chars[i + 1] < 0xe000)
            c = 0x10000 + ((c - 0xd800) << 10) + (chars[++i] - 0xdc00);
        else if (c >= 0xd800 && c < 0xe000)
            c = 0xfffd;
        uint8_t b[4];
        size_t k = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (k == 1) {
            b[0] = (uint8_t)c;
        } else if (k == 2) {
            b[0] = (uint8_t)(0xc0 | c >> 6);
            b[1] = (uint8_t)(0x80 | (c & 0x3f));
        } else if (k == 3) {
            b[0] = (uint8_t)(0xe0 | c >> 12);
            b[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
            b[2] = (uint8_t)(0x80 | (c & 0x3f));
        } else {
            b[0] = (uint8_t)(0xf0 | c >> 18);
            b[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
            b[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
            b[3] = (uint8_t)(0x80 | (c & 0x3f));
        }
        if (n + k > cap)
            break;
        memcpy(out + n, b, k);
        n += k;
    }
    return n;
}

/* The probe's metadata in this session, written by the first firing. */
static bool pr_describe(const trace_state *ts, pr_slot *s, uint64_t key)
{
    uint32_t gen = ts->gen;
    if (atomic_load_explicit(&s->described, memory_order_acquire) == gen)
        return true;
    pthread_mutex_lock(&pr_all.lock);
    bool ok = pr_slot_of(key) == s;
    if (ok && atomic_load(&s->described) != gen) {
        pr_provider *p = pr_all.providers;
        while (p && p->id != s->provider_id)
            p = p->next;
        if (p && p->described != gen) { /* its provider, once */
            uint64_t provider = trace_string_id(s->provider, strlen(s->provider));
            uint64_t module = trace_string_id(s->module, strlen(s->module));
            uint64_t attributes = trace_string_id(s->attributes, strlen(s->attributes));
            trace_meta(TRACE_EV_PROVIDER, (uint64_t[]){ s->provider_id, provider, module, attributes });
            p->described = gen;
        }
        uint64_t name = trace_string_id(s->name, strlen(s->name));
        uint64_t function = trace_string_id(s->function, strlen(s->function));
        uint64_t kinds = trace_string_id(s->kinds, strlen(s->kinds));
        trace_meta(TRACE_EV_PROBE_INFO, (uint64_t[]){ s->trace_id, s->provider_id, name, function, kinds });
        atomic_store_explicit(&s->described, gen, memory_order_release);
    }
    pthread_mutex_unlock(&pr_all.lock);
    return ok;
}

static void pr_trace(trace_state *ts, JNIEnv *jni, pr_slot *s, uint64_t key, const int64_t *values,
                     const char *const *strs, const size_t *lens)
{
    trace_thread *t = trace_session_self(ts, jni);
    if (!t || !pr_describe(ts, s, key))
        return;
    uint8_t text[PROBE_ARGS_MAX * 10 + PR_STRINGS_MAX + 64];
    size_t n = probe_args_encode(s->kinds, values, strs, lens, text, sizeof text);
    uint64_t now = trace_session_now(ts), fields[2] = { s->trace_id, key };
    trace_session_tap(ts, trace_thread_id(t), TRACE_EV_PROBE, now, fields, (const char *)text, n);
    trace_emit(&t->p, TRACE_EV_PROBE, now, fields, (const char *)text, n);
}

JNIEXPORT void JNICALL Java_jvmprof_ProbeRuntime_fire(JNIEnv *jni, jclass cls, jlong jkey, jlongArray jvalues,
                                                      jobjectArray jstrings)
{
    (void)cls;
    uint64_t key = (uint64_t)jkey;
    pr_slot *s = pr_slot_of(key);
    if (!s || !jvalues)
        return;
    char kinds[PROBE_ARGS_MAX + 1];
    memcpy(kinds, s->kinds, sizeof kinds);
    const char *provider = s->provider, *module = s->module, *function = s->function, *name = s->name;
    if (pr_slot_of(key) != s)
        return;
    size_t n = strlen(kinds);
    if ((size_t)(*jni)->GetArrayLength(jni, jvalues) < n)
        return;
    uint32_t word = atomic_load_explicit(&pr_all.words[(uint32_t)key], memory_order_relaxed);
    trace_state *ts = word & PR_TRACE ? trace_live() : NULL;
    bool tracing = ts && atomic_load_explicit(&ts->on, memory_order_relaxed) && (ts->what & OPTIONS_TRACE_PROBE);
    bool fixed = (word & PR_FIXED) && jvmprof_probe_semaphore;
    bool usdt = word & PR_USDT;
    if (!tracing && !fixed && !usdt)
        return;
    int64_t values[PROBE_ARGS_MAX] = { 0 };
    (*jni)->GetLongArrayRegion(jni, jvalues, 0, (jsize)n, (jlong *)values);
    char room[PR_STRINGS_MAX + PROBE_ARGS_MAX];
    const char *strs[PROBE_ARGS_MAX] = { 0 };
    size_t lens[PROBE_ARGS_MAX] = { 0 }, used = 0;
    if (jstrings && (size_t)(*jni)->GetArrayLength(jni, jstrings) >= n)
        for (size_t i = 0; i < n; i++) {
            if (kinds[i] != 's')
                continue;
            jstring str = (*jni)->GetObjectArrayElement(jni, jstrings, (jsize)i);
            if (!str)
                continue;
            lens[i] = pr_utf8(jni, str, room + used, PR_STRINGS_MAX - used > PR_STRING_MAX ? PR_STRING_MAX
                                                                                             : PR_STRINGS_MAX - used);
            strs[i] = room + used;
            room[used + lens[i]] = '\0';
            used += lens[i] + 1;
            values[i] = (int64_t)(uintptr_t)strs[i];
            (*jni)->DeleteLocalRef(jni, str);
        }
    if (tracing)
        pr_trace(ts, jni, s, key, values, strs, lens);
    if (usdt || fixed) {
        int64_t args[PROBE_ARGS_MAX];
        for (size_t i = 0; i < n; i++) /* String arguments as pointers, other objects as 0 */
            args[i] = kinds[i] == 'o' ? 0 : values[i];
        if (usdt) {
            atomic_fetch_add(&s->inflight, 1);
            if (pr_slot_of(key) == s && s->site && *s->sem)
                s->site(args);
            atomic_fetch_sub(&s->inflight, 1);
        }
        if (fixed)
            STAP_PROBE6(jvmprof, probe, provider, name, (int64_t)n, args, module, function);
    }
}

void probes_exit(void)
{
    pthread_mutex_lock(&pr_all.lock);
    if (pr_all.base[0] && pr_all.base_pid == getpid()) { /* a forked child's exit leaves its parent's files */
        for (pr_provider *p = pr_all.providers; p; p = p->next)
            if (p->dl) {
                unlink(p->path);
                rmdir(p->dir);
            }
        probe_dir_remove(pr_all.base);
    }
    pthread_mutex_unlock(&pr_all.lock);
}
