# hprof_records.py: the walk over a binary HPROF heap dump that the test
# readers hprof_traces.py and hprof_frame_roots.py share: the header's
# identifier size, the records, and the sub-records of the HEAP DUMP (SEGMENT)
# records, each stepped over by its size. The readers pick what they want out
# of them. An independent reader: it shares no code with src/heapdump.
import struct
import sys


class Hprof:
    """A binary HPROF file, read whole into memory."""

    def __init__(self, path):
        self.path = path
        self.d = d = open(path, 'rb').read()
        p = d.index(b'\0') + 1
        self.ids = struct.unpack('>I', d[p:p + 4])[0]
        self.first = p + 12   # past the identifier size and the time stamp
        # a basic type's size by its HPROF code (2: an object reference)
        self.size = {2: self.ids, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}

    def rid(self, q):
        """the identifier at offset q"""
        return int.from_bytes(self.d[q:q + self.ids], 'big')

    def u4(self, q):
        return struct.unpack('>I', self.d[q:q + 4])[0]

    def u2(self, q):
        return struct.unpack('>H', self.d[q:q + 2])[0]

    def records(self):
        """(tag, body, end) for each record: its body spans the offsets body to end"""
        p = self.first
        while p < len(self.d):
            body = p + 9
            end = body + self.u4(p + 5)
            yield self.d[p], body, end
            p = end

    def sub_records(self, body, end):
        """(tag, q) for each sub-record of a HEAP DUMP (SEGMENT) record whose body spans body
        to end: q is the offset just past the sub-record's tag"""
        q = body
        while q < end:
            st = self.d[q]
            q += 1
            yield st, q
            q += self.sub_record_len(st, q)

    def sub_record_len(self, st, q):
        """the length of the sub-record tagged st whose fields start at q (exits on a tag it
        does not know)"""
        d, ids, size = self.d, self.ids, self.size
        if st == 0xff or st in (0x05, 0x07):   # ROOT UNKNOWN, STICKY CLASS, MONITOR USED
            return ids
        if st == 0x01:                         # ROOT JNI GLOBAL
            return 2 * ids
        if st in (0x02, 0x03, 0x08):           # ROOT JNI LOCAL, JAVA FRAME, THREAD OBJECT
            return ids + 8
        if st in (0x04, 0x06):                 # ROOT NATIVE STACK, THREAD BLOCK
            return ids + 4
        if st == 0x20:                         # CLASS DUMP
            r = q + 7 * ids + 8
            n = self.u2(r)
            r += 2
            for _ in range(n):                 # the constant pool
                r += 2
                r += 1 + size[d[r]]
            n = self.u2(r)
            r += 2
            for _ in range(n):                 # the static fields
                r += ids + 1 + size[d[r + ids]]
            n = self.u2(r)                     # the instance fields
            r += 2 + n * (ids + 1)
            return r - q
        if st == 0x21:                         # INSTANCE DUMP
            return 2 * ids + 8 + self.u4(q + 2 * ids + 4)
        if st == 0x22:                         # OBJECT ARRAY DUMP
            return 2 * ids + 8 + self.u4(q + ids + 4) * ids
        if st == 0x23:                         # PRIMITIVE ARRAY DUMP
            return ids + 9 + self.u4(q + ids + 4) * size[d[q + ids + 8]]
        sys.exit('%s: unknown heap dump sub-record 0x%02x' % (self.path, st))
