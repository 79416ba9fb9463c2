/* usdt_elf.h — a small x86-64 ELF shared object, written byte by byte into
 * memory, that holds Linux USDT probes (SystemTap SDT v3 notes, the format of
 * <sys/sdt.h>), so that a process can dlopen() it and bpftrace, perf or bcc
 * can list its probes and attach to them. The agent makes one per Java
 * provider at run time, where there is no compiler. Each probe is a function
 * of its own (`nop; ret`, called with the arguments array in %rdi) and a
 * 2-byte semaphore that tracers raise while attached. Pure C: no JVM. */
#ifndef USDT_ELF_H
#define USDT_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "../common/jp_error.h"

#define USDT_ELF_MAX_PROBES 65536u
#define USDT_ELF_MAX_STRING 1024u  /* bytes in a provider, name, function, args or soname */

typedef struct usdt_probe_spec {
    const char *provider;  /* the USDT provider, e.g. "MyProvider" */
    const char *name;      /* the probe, e.g. "finishProbe" */
    const char *function;  /* the global STT_FUNC symbol (.dynsym and .symtab) at the probe's site;
                            * two probes may share one (each gets its own symbol; dlsym finds the first) */
    const char *args;      /* the note's argument string, e.g. "-4@0(%rdi) 8@8(%rdi)"; "" or NULL: none */
} usdt_probe_spec;

/* Where a probe landed: addresses relative to the load base (dlinfo's
 * RTLD_DI_LINKMAP l_addr), which are also the file offsets. */
typedef struct usdt_probe_place {
    uint64_t site;         /* a function, void (*)(const int64_t *args): `nop` (the probe), then `ret` */
    uint64_t semaphore;    /* the probe's uint16_t semaphore in section .probes: nonzero while traced */
} usdt_probe_place;

typedef struct usdt_elf_image {
    uint8_t *data;         /* malloc'd; usdt_elf_free */
    size_t len;
    char why[160];         /* after an error: what was wrong */
} usdt_elf_image;

/* Builds the image of n probes (1 <= n <= USDT_ELF_MAX_PROBES) into *out and
 * each probe's place into places[i]. soname: the DT_SONAME. JP_ERR_ARG (why
 * says which probe and field) for a NULL or empty provider, name, function or
 * soname, a string longer than USDT_ELF_MAX_STRING, or n out of range;
 * JP_ERR_NOMEM. On error out->data is NULL. Names are not checked to be C
 * identifiers (the caller does that); any string makes a sound image. */
jp_status usdt_elf_build(const usdt_probe_spec *probes, size_t n, const char *soname, usdt_elf_image *out,
                         usdt_probe_place *places);

void usdt_elf_free(usdt_elf_image *img);

#endif
