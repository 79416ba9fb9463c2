/* hprof_read.h — what the heap dump readers (the histogram, the ASCII
 * converter) share to read HPROF binary heap dumps: big-endian fields, ids
 * of the file's size (4 or 8), the size of a basic type's value, and the
 * names of records and sub-records for error messages. */
#ifndef HPROF_READ_H
#define HPROF_READ_H

#include <stdint.h>

static inline uint32_t hprof_rd_u4(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint16_t hprof_rd_u2(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint64_t hprof_rd_id(unsigned idsize, const uint8_t *p)
{
    return idsize == 8 ? (uint64_t)hprof_rd_u4(p) << 32 | hprof_rd_u4(p + 4) : hprof_rd_u4(p);
}

/* Bytes of a value of basic type t; 0 for an invalid type. Type 1 (an old
 * name for object arrays) is held like an object reference. */
static inline unsigned hprof_rd_type_size(unsigned idsize, uint8_t t)
{
    static const unsigned sizes[12] = { 0, 0, 0, 0, 1, 2, 4, 8, 1, 2, 4, 8 };
    if (t == 1 || t == 2)
        return idsize;
    return t < 12 ? sizes[t] : 0;
}

static inline const char *hprof_rd_sub_name(uint8_t tag)
{
    switch (tag) {
    case 0xFF: return "ROOT UNKNOWN";
    case 0x01: return "ROOT JNI GLOBAL";
    case 0x02: return "ROOT JNI LOCAL";
    case 0x03: return "ROOT JAVA FRAME";
    case 0x04: return "ROOT NATIVE STACK";
    case 0x05: return "ROOT STICKY CLASS";
    case 0x06: return "ROOT THREAD BLOCK";
    case 0x07: return "ROOT MONITOR USED";
    case 0x08: return "ROOT THREAD OBJECT";
    case 0x20: return "CLASS DUMP";
    case 0x21: return "INSTANCE DUMP";
    case 0x22: return "OBJECT ARRAY DUMP";
    case 0x23: return "PRIMITIVE ARRAY DUMP";
    default: return "?";
    }
}

static inline const char *hprof_rd_rec_name(uint8_t tag)
{
    switch (tag) {
    case 0x01: return "UTF8";
    case 0x02: return "LOAD CLASS";
    case 0x0C: return "HEAP DUMP";
    case 0x1C: return "HEAP DUMP SEGMENT";
    case 0x2C: return "HEAP DUMP END";
    default: return "top-level";
    }
}

/* Shallow bytes, as jvmprof heap and the ASCII dump count them (a dump does
 * not say whether the JVM compressed its pointers): a 16-byte header and the
 * fields as dumped for an instance, 20 and the elements for an array, rounded
 * up to 8. */
#define HEAP_HDR_INSTANCE 16u
#define HEAP_HDR_ARRAY 20u
static inline uint64_t heap_shallow(uint64_t header, uint64_t data_bytes)
{
    return (header + data_bytes + 7u) & ~(uint64_t)7u;
}

#endif
