/* vm_perf.c — see vm_perf.h. The region begins with a PerfDataPrologue
 * (described in gHotSpotVMStructs: entry_offset, num_entries, used), then
 * the entries one after another, each a PerfDataEntry (HotSpot's
 * perfMemory.hpp, unchanged since JDK 6, not in the tables):
 *   jint entry_length, name_offset, vector_length;
 *   jbyte data_type, flags, data_units, data_variability;
 *   jint data_offset;
 * name and data at those offsets from the entry. Every offset is checked
 * against the region's used bytes before it is followed. */
#include "vm_perf.h"

#include <stdbool.h>
#include <string.h>

#include "vmstructs.h"

#define VP_ENTRY_HEADER 20

/* The entry named name: its data's address, type and vector length; false if none. */
static bool vm_perf_find(const char *name, const char **data, char *type, int32_t *vlen)
{
    char **start_at = vmstructs_static("PerfMemory", "_start");
    long used_at = vmstructs_offset("PerfDataPrologue", "used");
    long first_at = vmstructs_offset("PerfDataPrologue", "entry_offset");
    long count_at = vmstructs_offset("PerfDataPrologue", "num_entries");
    if (!start_at || !*start_at || used_at < 0 || first_at < 0 || count_at < 0)
        return false;
    const char *base = *start_at;
    int32_t used, off, count;
    memcpy(&used, base + used_at, sizeof used);
    memcpy(&off, base + first_at, sizeof off);
    memcpy(&count, base + count_at, sizeof count);
    size_t want = strlen(name);
    for (int32_t i = 0; i < count && off > 0 && off + VP_ENTRY_HEADER <= used; i++) {
        const char *e = base + off;
        int32_t len, name_off, vector, data_off;
        memcpy(&len, e, 4);
        memcpy(&name_off, e + 4, 4);
        memcpy(&vector, e + 8, 4);
        memcpy(&data_off, e + 16, 4);
        if (len <= 0 || len > used - off)
            break;
        if (name_off >= VP_ENTRY_HEADER && name_off + (int32_t)want < len && data_off > 0 && data_off < len &&
            memcmp(e + name_off, name, want + 1) == 0) {
            *data = e + data_off;
            *type = e[12];
            *vlen = vector;
            return (size_t)(len - data_off) >= (vector ? (size_t)vector : sizeof(int64_t));
        }
        off += len;
    }
    return false;
}

const volatile int64_t *vm_perf_long(const char *name)
{
    const char *data;
    char type;
    int32_t vlen;
    if (!vm_perf_find(name, &data, &type, &vlen) || type != 'J' || vlen != 0 || ((uintptr_t)data & 7))
        return NULL;
    return (const volatile int64_t *)(const void *)data;
}

const volatile char *vm_perf_string(const char *name, size_t *cap)
{
    const char *data;
    char type;
    int32_t vlen;
    if (!vm_perf_find(name, &data, &type, &vlen) || type != 'B' || vlen <= 0)
        return NULL;
    *cap = (size_t)vlen;
    return data;
}
