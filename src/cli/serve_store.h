/* serve_store.h — where jvmprof serve keeps one connection's files
 * (serve_store.c): a directory of its own under DIR, made exclusively and
 * held open, and the files a client names, opened relative to it. Nothing is
 * ever opened by a path a client can influence, so a link planted in DIR
 * leads nowhere. */
#ifndef SERVE_STORE_H
#define SERVE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERVE_FILES 8          /* files of one connection open at once */
#define SERVE_DIRS_MAX 1000    /* HOST-PID, then HOST-PID.2 ... HOST-PID.1000 */

typedef struct serve_file {
    uint32_t id;               /* 0: free */
    int fd;
    char mode;                 /* 'R' whole (written to a temporary name, renamed at its end), 'A' growing */
    char name[256], tmp[300];
} serve_file;

typedef struct serve_store {
    int dfd;                   /* the connection's directory; -1 before the hello */
    char path[4400];           /* DIR/NAME, for messages */
    serve_file files[SERVE_FILES];
} serve_store;

/* A name from the wire made safe for a file name: letters, digits, '.', '-', '_' kept, any other byte '_';
 * an empty name, or one that starts with '.', gets a '_' in front. */
void serve_safe_name(const char *in, size_t n, char *out, size_t cap);

/* An empty store (no directory, no file). */
void serve_store_init(serve_store *s);

/* Makes the connection's directory under base_fd (the directory `base`): STEM, or STEM.2, STEM.3 ... if
 * taken, each created with mkdir (never one that exists), then opened without following a link and checked
 * to be a directory of this process's user. false with why. */
bool serve_store_open(serve_store *s, int base_fd, const char *base, const char *stem, char *why, size_t cap);

/* A file begun (mode 'R' or 'A', its name from the wire, made safe), given more bytes, ended. false with
 * why (the connection is then dropped). */
bool serve_store_begin(serve_store *s, uint32_t id, char mode, const char *name, size_t n, char *why,
                       size_t cap);
bool serve_store_data(serve_store *s, uint32_t id, const void *p, size_t n, char *why, size_t cap);
bool serve_store_end(serve_store *s, uint32_t id, char *why, size_t cap);

/* Whether a whole file is begun and not ended (its bytes are not kept yet). */
bool serve_store_whole_open(const serve_store *s);

/* Closes the files and the directory: whole files not ended are removed, growing ones kept as far as they
 * came (a line on stderr for each, with who, unless complete). */
void serve_store_close(serve_store *s, bool complete, const char *who);

#endif
