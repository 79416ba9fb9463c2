/* classfile_internal.h — the parsed form of a class file shared by the rewriter's
 * files: offsets into the caller's bytes (nothing is copied), the constant
 * pool index, members and attributes, and the constant-pool appender. */
#ifndef CF_INTERNAL_H
#define CF_INTERNAL_H

#include "classfile.h"
#include "../common/buf.h"

enum {
    CP_UTF8 = 1, CP_INTEGER = 3, CP_FLOAT = 4, CP_LONG = 5, CP_DOUBLE = 6, CP_CLASS = 7, CP_STRING = 8,
    CP_FIELDREF = 9, CP_METHODREF = 10, CP_IMETHODREF = 11, CP_NAMEANDTYPE = 12, CP_METHODHANDLE = 15,
    CP_METHODTYPE = 16, CP_DYNAMIC = 17, CP_INVOKEDYNAMIC = 18, CP_MODULE = 19, CP_PACKAGE = 20,
};

typedef struct cf_attr {
    uint16_t name;   /* constant-pool index of its name */
    uint32_t off;    /* offset of the attribute's info (after the 6-byte header) */
    uint32_t len;
} cf_attr;

typedef struct cf_member {
    uint16_t access, name, desc;
    uint16_t nattrs;
    cf_attr *attrs;
    uint32_t off, end; /* the member's bytes: [off, end) */
    int code;          /* index in attrs of the Code attribute, or -1 */
} cf_member;

typedef struct cf_class {
    const unsigned char *b;
    size_t n;
    uint16_t minor, major;
    uint16_t cp_count;
    uint32_t *cp_off;  /* offset of each entry's tag; 0 for index 0 and the slot after a long/double */
    uint32_t cp_end;
    uint16_t access, this_class, super_class;
    uint16_t nfields, nmethods;
    cf_member *fields, *methods;
    uint32_t methods_off; /* offset of methods_count */
    uint32_t attrs_off;   /* offset of the class's attributes_count */
    uint16_t nattrs;      /* the class's own attributes */
    cf_attr *attrs;
    cf_attr *pool;        /* every member's attributes */
    size_t pool_used, pool_cap;
} cf_class;

/* Writes the message into why[cap] (if why) and returns st: the error idiom
 * of the rewriter, whose callers decide whether to log. */
jp_status cf_fail(char *why, size_t cap, jp_status st, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

jp_status cf_parse(cf_class *c, const unsigned char *b, size_t n, char *why, size_t whycap);
void cf_class_free(cf_class *c);

/* The Utf8 entry idx: its bytes and length, or NULL if idx is not a Utf8. */
const unsigned char *cf_utf8(const cf_class *c, uint16_t idx, uint16_t *len);
bool cf_utf8_is(const cf_class *c, uint16_t idx, const char *s);
/* Copies Utf8 idx NUL-terminated into out[cap]; false if not a Utf8 or too long. */
bool cf_utf8_copy(const cf_class *c, uint16_t idx, char *out, size_t cap);
/* Whether Utf8 idx is one of the NULL-terminated names (false if it is no Utf8, or names is NULL). */
bool cf_utf8_in(const cf_class *c, uint16_t idx, const char *const *names);
/* The Methodref or InterfaceMethodref idx, as Utf8 indexes: its class's name
 * (0 if its Class entry is bad), its name and descriptor. 1: it is one; 0: idx
 * is another kind of entry; -1: its NameAndType is malformed. */
int cf_method_ref(const cf_class *c, uint16_t idx, uint16_t *cls_name, uint16_t *name, uint16_t *desc);
/* The name of CONSTANT_Class idx (a Utf8 index), or 0. */
uint16_t cf_class_name_index(const cf_class *c, uint16_t idx);

/* New constant-pool entries appended after the class's own. */
typedef struct cp_append {
    buf bytes;
    uint32_t next;   /* the index the next entry gets */
    uint32_t first;  /* the index of the first appended entry */
    /* the Class entries appended, by name, so each is added once */
    struct { char *name; uint16_t idx; } *classes;
    uint32_t nclasses, classes_cap;
} cp_append;

void cp_append_init(cp_append *a, const cf_class *c);
void cp_append_free(cp_append *a);
/* The CONSTANT_Class named name[0..n): an existing one (the class's own or
 * one appended before), or a new one; 0 when the pool is full. */
uint16_t cp_class_for(cp_append *a, const cf_class *c, const char *name, size_t n);
/* The name of CONSTANT_Class idx, in the class's pool or appended (not
 * NUL-terminated; *len set), or NULL. */
const char *cp_class_name(const cp_append *a, const cf_class *c, uint16_t idx, uint16_t *len);
uint16_t cp_add_utf8(cp_append *a, const char *s);
uint16_t cp_add_class(cp_append *a, const char *internal_name);
uint16_t cp_add_methodref(cp_append *a, uint16_t class_idx, const char *name, const char *desc);
uint16_t cp_add_integer(cp_append *a, int32_t v);
/* false once the pool would exceed 65535 entries (every add returns 0 then). */
bool cp_append_ok(const cp_append *a);

#endif
