/* hprof_bin.h — record tags and constants of the HPROF binary format
 * ("JAVA PROFILE 1.0.2", big-endian, 8-byte identifiers), and jvmprof's
 * own record, shared by the writer and the reader. */
#ifndef HPROF_BIN_H
#define HPROF_BIN_H

#define HPROF_BIN_MAGIC "JAVA PROFILE 1.0.2"
#define HPROF_BIN_ID_SIZE 8u

enum hprof_bin_tag {
    HPROF_TAG_UTF8 = 0x01,
    HPROF_TAG_LOAD_CLASS = 0x02,
    HPROF_TAG_UNLOAD_CLASS = 0x03,
    HPROF_TAG_FRAME = 0x04,
    HPROF_TAG_TRACE = 0x05,
    HPROF_TAG_ALLOC_SITES = 0x06,
    HPROF_TAG_HEAP_SUMMARY = 0x07,
    HPROF_TAG_START_THREAD = 0x0A,
    HPROF_TAG_END_THREAD = 0x0B,
    HPROF_TAG_HEAP_DUMP = 0x0C,
    HPROF_TAG_CPU_SAMPLES = 0x0D,
    HPROF_TAG_CONTROL_SETTINGS = 0x0E,
    HPROF_TAG_HEAP_DUMP_SEGMENT = 0x1C,
    HPROF_TAG_HEAP_DUMP_END = 0x2C,
    /* jvmprof's own, after CONTROL SETTINGS: u4 the time one sample stands for, in microseconds (0: unknown),
     * u1 its kind (HPROF_SAMPLING_CPU or _WALL). HPROF's tags stop at 0x2C and readers skip a record they do
     * not know by its length, as heap dump readers skip HPROF's own profile records. */
    HPROF_TAG_JVMPROF_SAMPLING = 0xA1,
};

enum { HPROF_SAMPLING_CPU = 0, HPROF_SAMPLING_WALL = 1 };

enum { HPROF_CONTROL_ALLOC_TRACES = 0x1, HPROF_CONTROL_CPU_SAMPLING = 0x2 };

#endif
