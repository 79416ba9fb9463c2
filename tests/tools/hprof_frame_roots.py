#!/usr/bin/env python3
# hprof_frame_roots.py FILE.hprof CLASS: how the instances of CLASS (its name
# as the dump spells it, e.g. VThreadHeld$Held) are held as ROOT JAVA FRAME
# roots of a binary HPROF heap dump. Prints one line:
#   "frame_roots N threads T named M"
# N: CLASS's instances that are a ROOT JAVA FRAME; T: the distinct thread
# serials of those roots; M: how many of those serials a ROOT THREAD OBJECT
# names (the thread object the frames belong to; HotSpot's dumper writes no
# START THREAD records, so they are not asked for). An independent reader: it
# shares no code with src/heapdump.
import struct
import sys


def main():
    path, want = sys.argv[1], sys.argv[2]
    d = open(path, 'rb').read()
    p = d.index(b'\0') + 1
    ids = struct.unpack('>I', d[p:p + 4])[0]
    p += 12

    def rid(q):
        return int.from_bytes(d[q:q + ids], 'big')

    def u4(q):
        return struct.unpack('>I', d[q:q + 4])[0]

    size = {2: ids, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
    strings, class_name, inst_class = {}, {}, {}
    frame_roots, thread_roots = [], set()
    while p < len(d):
        tag, ln = d[p], u4(p + 5)
        body, end = p + 9, p + 9 + ln
        p = end
        if tag == 0x01:
            strings[rid(body)] = d[body + ids:end].decode('utf-8', 'replace')
        elif tag == 0x02:
            class_name[rid(body + 4)] = strings.get(rid(body + 8 + ids), '').replace('/', '.')
        elif tag in (0x0c, 0x1c):
            q = body
            while q < end:
                st = d[q]
                q += 1
                if st == 0xff or st in (0x05, 0x07):
                    q += ids
                elif st == 0x01:
                    q += 2 * ids
                elif st in (0x02, 0x03):
                    if st == 0x03:
                        frame_roots.append((rid(q), u4(q + ids)))
                    q += ids + 8
                elif st in (0x04, 0x06):
                    q += ids + 4
                elif st == 0x08:
                    thread_roots.add(u4(q + ids))
                    q += ids + 8
                elif st == 0x20:
                    q += 7 * ids + 8
                    n = struct.unpack('>H', d[q:q + 2])[0]
                    q += 2
                    for _ in range(n):
                        q += 2
                        q += 1 + size[d[q]]
                    n = struct.unpack('>H', d[q:q + 2])[0]
                    q += 2
                    for _ in range(n):
                        q += ids + 1 + size[d[q + ids]]
                    n = struct.unpack('>H', d[q:q + 2])[0]
                    q += 2 + n * (ids + 1)
                elif st == 0x21:
                    inst_class[rid(q)] = rid(q + ids + 4)
                    q += 2 * ids + 8 + u4(q + 2 * ids + 4)
                elif st == 0x22:
                    q += 2 * ids + 8 + u4(q + ids + 4) * ids
                elif st == 0x23:
                    q += ids + 9 + u4(q + ids + 4) * size[d[q + ids + 8]]
                else:
                    sys.exit('%s: unknown heap dump sub-record 0x%02x' % (path, st))
    want = want.replace('/', '.')
    serials = [t for o, t in frame_roots if class_name.get(inst_class.get(o)) == want]
    threads = set(serials)
    print('frame_roots %d threads %d named %d' % (len(serials), len(threads),
                                                  len(threads & thread_roots)))


main()
