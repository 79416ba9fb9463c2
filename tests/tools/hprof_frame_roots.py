#!/usr/bin/env python3
# hprof_frame_roots.py FILE.hprof CLASS: how the instances of CLASS (its name
# as the dump spells it, e.g. VThreadHeld$Held) are held as ROOT JAVA FRAME
# roots of a binary HPROF heap dump. Prints one line:
#   "frame_roots N threads T named M"
# N: CLASS's instances that are a ROOT JAVA FRAME; T: the distinct thread
# serials of those roots; M: how many of those serials a ROOT THREAD OBJECT
# names (the thread object the frames belong to; HotSpot's dumper writes no
# START THREAD records, so they are not asked for). An independent reader: it
# shares no code with src/heapdump (the record walk: hprof_records.py).
import sys

from hprof_records import Hprof


def main():
    path, want = sys.argv[1], sys.argv[2]
    h = Hprof(path)
    strings, class_name, inst_class = {}, {}, {}
    frame_roots, thread_roots = [], set()
    for tag, body, end in h.records():
        if tag == 0x01:
            strings[h.rid(body)] = h.d[body + h.ids:end].decode('utf-8', 'replace')
        elif tag == 0x02:
            class_name[h.rid(body + 4)] = strings.get(h.rid(body + 8 + h.ids), '').replace('/', '.')
        elif tag in (0x0c, 0x1c):
            for st, q in h.sub_records(body, end):
                if st == 0x03:
                    frame_roots.append((h.rid(q), h.u4(q + h.ids)))
                elif st == 0x08:
                    thread_roots.add(h.u4(q + h.ids))
                elif st == 0x21:
                    inst_class[h.rid(q)] = h.rid(q + h.ids + 4)
    want = want.replace('/', '.')
    serials = [t for o, t in frame_roots if class_name.get(inst_class.get(o)) == want]
    threads = set(serials)
    print('frame_roots %d threads %d named %d' % (len(serials), len(threads),
                                                  len(threads & thread_roots)))


main()
