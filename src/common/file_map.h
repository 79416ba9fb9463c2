/* file_map.h — a whole file mapped into memory, for the readers of big files
 * (heap dumps can be larger than memory): the jvmprof command, the agent's
 * ASCII heap dump, and (writable) the fix-up of HotSpot's heap dumps. */
#ifndef FILE_MAP_H
#define FILE_MAP_H

#include <stddef.h>

/* Maps the regular file at path. NULL with a one-line reason in err (naming
 * the path); an empty file gives *len 0 and a pointer to nothing. */
const void *file_map(const char *path, size_t *len, char *err, size_t errlen);
/* The same, readable and writable: stores reach the file (MAP_SHARED). */
void *file_map_writable(const char *path, size_t *len, char *err, size_t errlen);
void file_unmap(const void *data, size_t len);

#endif
