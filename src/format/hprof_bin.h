/* hprof_bin.h — record tags and constants of the HPROF binary format
 * ("JAVA PROFILE 1.0.2", big-endian, 8-byte identifiers), and jvmprof's
 * own records, shared by the writer and the reader. */
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
    /* jvmprof's own, after CPU SAMPLES (counts are u8, ids as the file's):
     * WALL STATES (wall=): u4 rows, each u4 trace serial, u1 sample_state, u8 samples; the CPU SAMPLES
     *   record before it holds each trace's samples of all states together.
     * CPU TIMES (cpu=times): u4 rows, each u4 trace serial, u8 self ns, u8 calls, u8 wait ns; then u4
     *   counted methods, each u4 class serial, id name, id signature (UTF8 ids), u8 calls.
     * MONITORS (monitor=y): u4 rows, each u4 trace serial, id class name (a UTF8 id), u1 kind (0
     *   blocked, 1 waiting), u8 count, u8 ns.
     * COUNTS (what collectors counted besides their tables): u4 rows, each u2 length, the name's
     *   bytes, u8 value.
     * VIRTUAL THREADS (after the START/END THREAD records, when a thread is virtual, JDK 21+): u4 rows,
     *   each u4 thread serial (a START THREAD's), u4 serial of the carrier it ran on (0: none kept). */
    HPROF_TAG_JVMPROF_WALL_STATES = 0xA3,
    HPROF_TAG_JVMPROF_CPU_TIMES = 0xA4,
    HPROF_TAG_JVMPROF_MONITORS = 0xA5,
    HPROF_TAG_JVMPROF_COUNTS = 0xA6,
    HPROF_TAG_JVMPROF_VIRTUAL_THREADS = 0xA7,
    /* jvmprof's own, after the FRAME records, when a class is a native library or the kernel, or a thread
     * is one of the JVM's own (GC, compiler, VM thread: no java.lang.Thread): u4 libraries, each u4 class
     * serial (a LOAD CLASS's: its name the library's file name, "libc.so.6", or "kernel"), u1 code (1 a
     * native library, 2 the kernel), id path, id build id (hex) (UTF8 ids, 0: unknown); then u4 threads,
     * each u4 thread serial (a START THREAD's). A native frame is a FRAME of such a class, its method name
     * the symbol ("libfoo.so+0x1a2b" when it has none), its line -3 (native). */
    HPROF_TAG_JVMPROF_NATIVE = 0xA8,
    /* jvmprof's own, after CPU SAMPLES (and WALL STATES), when the samples' times are known (record=y's
     * recording, or a window of it): u4 rows, each u8 the time it was taken (wall clock, ns since the
     * epoch), u4 trace serial, u2 weight (the samples it stands for), u1 sample_state. Oldest first. */
    HPROF_TAG_JVMPROF_SAMPLE_TIMES = 0xA9,
};

enum { HPROF_SAMPLING_CPU = 0, HPROF_SAMPLING_WALL = 1 };

enum { HPROF_CONTROL_ALLOC_TRACES = 0x1, HPROF_CONTROL_CPU_SAMPLING = 0x2 };

#endif
