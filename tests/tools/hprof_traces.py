#!/usr/bin/env python3
# hprof_traces.py FILE.hprof: the stack traces of a binary HPROF heap dump's
# objects. Prints, one per line:
#   obj CLASS SERIAL COUNT       the objects (instances and arrays) of CLASS whose
#                                INSTANCE/ARRAY DUMP carries trace SERIAL (CLASS in
#                                Java's style: java.lang.Object[], int[])
#   frame SERIAL I CLASS METHOD SIG SOURCE LINE
#                                frame I (0 = top) of TRACE SERIAL; CLASS from
#                                the frame's class serial through LOAD CLASS
#   bad WHAT                     a trace an object names without a TRACE record,
#                                a frame id without a FRAME record, a class
#                                serial without a LOAD CLASS
# An independent reader: it shares no code with src/heapdump (the record walk:
# hprof_records.py).
import collections
import struct
import sys

from hprof_records import Hprof


PRIMS = {'Z': 'boolean', 'C': 'char', 'F': 'float', 'D': 'double', 'B': 'byte', 'S': 'short', 'I': 'int',
         'J': 'long'}


def java_name(n):
    # java/lang/String -> java.lang.String; [Ljava/lang/Object; -> java.lang.Object[]; [[I -> int[][]
    n = n.replace('/', '.')
    dims = len(n) - len(n.lstrip('['))
    if not dims:
        return n
    e = n[dims:]
    e = e[1:-1] if e.startswith('L') else PRIMS.get(e, e)
    return e + '[]' * dims


def main():
    path = sys.argv[1]
    h = Hprof(path)
    d, ids, rid, u4 = h.d, h.ids, h.rid, h.u4
    strings, class_by_id, class_by_serial = {}, {}, {}
    frames, traces = {}, {}
    objs = collections.Counter()
    prim = {4: 'boolean[]', 5: 'char[]', 6: 'float[]', 7: 'double[]', 8: 'byte[]', 9: 'short[]',
            10: 'int[]', 11: 'long[]'}
    for tag, body, end in h.records():
        if tag == 0x01:
            strings[rid(body)] = d[body + ids:end].decode('utf-8', 'replace')
        elif tag == 0x02:
            name = java_name(strings.get(rid(body + 8 + ids), '?'))
            class_by_id[rid(body + 4)] = name
            class_by_serial[u4(body)] = name
        elif tag == 0x04:
            fid = rid(body)
            frames[fid] = (strings.get(rid(body + ids), '?'), strings.get(rid(body + 2 * ids), '?'),
                           strings.get(rid(body + 3 * ids), '') if rid(body + 3 * ids) else '',
                           u4(body + 4 * ids), struct.unpack('>i', d[body + 4 * ids + 4:body + 4 * ids + 8])[0])
        elif tag == 0x05:
            n = u4(body + 8)
            traces[u4(body)] = [rid(body + 12 + k * ids) for k in range(n)]
        elif tag in (0x0c, 0x1c):
            for st, q in h.sub_records(body, end):
                if st == 0x21:
                    objs[(rid(q + ids + 4), u4(q + ids))] += 1
                elif st == 0x22:
                    objs[(rid(q + ids + 8), u4(q + ids))] += 1
                elif st == 0x23:
                    objs[(-d[q + ids + 8], u4(q + ids))] += 1
    used = set()
    for (cid, serial), n in sorted(objs.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        name = prim.get(-cid, '?') if cid < 0 else class_by_id.get(cid, '?')
        print('obj %s %d %d' % (name, serial, n))
        used.add(serial)
    for serial in sorted(used):
        if serial not in traces:
            print('bad trace %d has no TRACE record' % serial)
            continue
        for i, fid in enumerate(traces[serial]):
            if fid not in frames:
                print('bad frame %d of trace %d has no FRAME record' % (fid, serial))
                continue
            m, sig, src, cser, line = frames[fid]
            if cser not in class_by_serial:
                print('bad class serial %d of trace %d has no LOAD CLASS' % (cser, serial))
            print('frame %d %d %s %s %s %s %d' % (serial, i, class_by_serial.get(cser, '?'), m, sig,
                                                   src or '-', line))


main()
