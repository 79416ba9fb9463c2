#!/usr/bin/env python3
"""hprof_dump.py - prints an HPROF binary file record by record, resolving
string ids, so a golden file can be checked by eye. Written from the format
description in shared/reference/hprof-formats.md (section 1.4), not from our
reader: it is the independent check of tests/golden/*.hprof.

    python3 tests/golden/hprof_dump.py tests/golden/model1.hprof

Exits 1 on anything it does not understand (bad header, truncated record,
reference to an undefined string/class/frame/trace, leftover bytes)."""
import struct
import sys

TAGS = {0x01: "UTF8", 0x02: "LOAD CLASS", 0x03: "UNLOAD CLASS", 0x04: "FRAME", 0x05: "TRACE",
        0x06: "ALLOC SITES", 0x07: "HEAP SUMMARY", 0x0A: "START THREAD", 0x0B: "END THREAD",
        0x0C: "HEAP DUMP", 0x0D: "CPU SAMPLES", 0x0E: "CONTROL SETTINGS", 0x1C: "HEAP DUMP SEGMENT",
        0x2C: "HEAP DUMP END"}
LINES = {-1: "unknown line", -2: "compiled method", -3: "native method"}


class Bad(Exception):
    pass


class Body:
    def __init__(self, data, idsize):
        self.data, self.pos, self.idsize = data, 0, idsize

    def take(self, n):
        if self.pos + n > len(self.data):
            raise Bad("record body too short")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def u1(self): return self.take(1)[0]
    def u2(self): return struct.unpack(">H", self.take(2))[0]
    def u4(self): return struct.unpack(">I", self.take(4))[0]
    def i4(self): return struct.unpack(">i", self.take(4))[0]
    def u8(self): return struct.unpack(">Q", self.take(8))[0]
    def id(self): return self.u4() if self.idsize == 4 else self.u8()
    def rest(self): return self.take(len(self.data) - self.pos)

    def done(self):
        if self.pos != len(self.data):
            raise Bad("%d bytes left over in record" % (len(self.data) - self.pos))


def dump(data, out):
    nul = data.find(b"\0", 0, 64)
    if nul < 0:
        raise Bad("no header string")
    magic = data[:nul].decode("ascii")
    if magic not in ("JAVA PROFILE 1.0.1", "JAVA PROFILE 1.0.2"):
        raise Bad("bad header %r" % magic)
    if len(data) < nul + 13:
        raise Bad("truncated header")
    idsize, hi, lo = struct.unpack(">III", data[nul + 1:nul + 13])
    if idsize not in (4, 8):
        raise Bad("id size %d" % idsize)
    start = (hi << 32) | lo
    out.append("header %r id size %d start %d ms" % (magic, idsize, start))
    strings, classes, frames, traces, threads = {}, {}, {}, {}, {}

    def s(i):
        if i == 0:
            return "<none>"
        if i not in strings:
            raise Bad("undefined string id %d" % i)
        return strings[i]

    pos = nul + 13
    while pos < len(data):
        if pos + 9 > len(data):
            raise Bad("truncated record header at %d" % pos)
        tag, micros, length = struct.unpack(">BII", data[pos:pos + 9])
        if pos + 9 + length > len(data):
            raise Bad("truncated record at %d" % pos)
        b = Body(data[pos + 9:pos + 9 + length], idsize)
        name = TAGS.get(tag, "tag 0x%02x" % tag)
        head = "@%-5d %-16s t=+%dus len=%d" % (pos, name, micros, length)
        if tag == 0x01:
            i = b.id()
            strings[i] = b.rest().decode("utf-8")
            out.append("%s id=%d %r" % (head, i, strings[i]))
        elif tag == 0x02:
            serial, obj, trace, nid = b.u4(), b.id(), b.u4(), b.id()
            classes[serial] = s(nid)
            out.append("%s class=%d obj=%#x trace=%d name=%s" % (head, serial, obj, trace, s(nid)))
        elif tag == 0x04:
            fid, mname, msig, src, cls, line = b.id(), b.id(), b.id(), b.id(), b.u4(), b.i4()
            if cls not in classes:
                raise Bad("FRAME %d: undefined class serial %d" % (fid, cls))
            if line <= 0 and line not in LINES:
                raise Bad("FRAME %d: bad line %d" % (fid, line))
            frames[fid] = "%s.%s%s (%s:%s)" % (classes[cls], s(mname), s(msig), s(src),
                                               line if line > 0 else LINES[line])
            out.append("%s id=%d %s" % (head, fid, frames[fid]))
        elif tag == 0x05:
            serial, thread, n = b.u4(), b.u4(), b.u4()
            fids = [b.id() for _ in range(n)]
            for f in fids:
                if f not in frames:
                    raise Bad("TRACE %d: undefined frame %d" % (serial, f))
            if thread and thread not in threads:
                raise Bad("TRACE %d: thread %d never started" % (serial, thread))
            traces[serial] = fids
            out.append("%s serial=%d thread=%d frames=%d" % (head, serial, thread, n))
            for f in fids:
                out.append("        " + frames[f])
        elif tag == 0x0A:
            serial, obj, trace, tname, grp, parent = b.u4(), b.id(), b.u4(), b.id(), b.id(), b.id()
            threads[serial] = s(tname)
            out.append("%s thread=%d obj=%#x trace=%d name=%s group=%s parent=%s"
                       % (head, serial, obj, trace, s(tname), s(grp), s(parent)))
        elif tag == 0x0B:
            serial = b.u4()
            if serial not in threads:
                raise Bad("END THREAD %d never started" % serial)
            out.append("%s thread=%d (%s)" % (head, serial, threads[serial]))
        elif tag == 0x0D:
            total, n = b.u4(), b.u4()
            rows = [(b.u4(), b.u4()) for _ in range(n)]
            if sum(c for c, _ in rows) != total:
                raise Bad("CPU SAMPLES total %d != sum of rows" % total)
            out.append("%s total=%d traces=%d" % (head, total, n))
            for count, serial in rows:
                if serial not in traces:
                    raise Bad("CPU SAMPLES: undefined trace %d" % serial)
                top = frames[traces[serial][0]] if traces[serial] else "<empty trace>"
                out.append("        %6d  trace %d  %s" % (count, serial, top))
        elif tag == 0x0E:
            flags, depth = b.u4(), b.u2()
            out.append("%s flags=%#x depth=%d" % (head, flags, depth))
        else:
            b.rest()
            out.append("%s (skipped)" % head)
        b.done()
        pos += 9 + length


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    out = []
    try:
        dump(data, out)
    except Bad as e:
        print("\n".join(out))
        sys.exit("hprof_dump: %s: %s" % (sys.argv[1], e))
    print("\n".join(out))


if __name__ == "__main__":
    main()
