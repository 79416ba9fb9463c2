/* kallsyms_cache.h — the kernel's symbols kept for the boot in this user's cache directory, so that the JVMs after
 * the first read a file of a few MB instead of having the kernel format /proc/kallsyms (~50 ms of CPU each). */
#ifndef JP_NATIVE_KALLSYMS_CACHE_H
#define JP_NATIVE_KALLSYMS_CACHE_H

#include <stdbool.h>

#include "kallsyms.h"

/* The kernel's symbols: from dir's cache file when it was written in this boot, with the same modules loaded, and
 * the start of proc_path reads as it did then; else from proc_path, and then saved to the cache (only a table with
 * addresses). dir NULL: $XDG_CACHE_HOME/jvmprof, or $HOME/.cache/jvmprof; made (0700) when missing, and used only
 * when it is a directory of this user's, not a link, that no one else may write; the file the same, 0600. A cache
 * that cannot be used or written is left alone: the symbols are read from proc_path. proc_path NULL:
 * /proc/kallsyms. *from_cache (may be NULL) says where they came from. NULL as kallsyms_load. */
kallsyms *kallsyms_cache_load(const char *dir, const char *proc_path, bool *from_cache);

#endif
