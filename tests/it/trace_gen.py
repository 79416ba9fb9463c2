#!/usr/bin/env python3
"""A jvmprof trace file written from docs/trace-format.md alone, for
t6201: metadata, then thread 1's chunk, thread 2's, and thread 1's again,
the two threads' times interleaved.  usage: trace_gen.py OUT"""
import struct
import sys
import zlib


def leb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def meta(kind, *fields, text=None):
    out = bytes([kind]) + b"".join(leb(f) for f in fields)
    if text is not None:
        out += leb(len(text)) + text
    return out


def chunk(thread, base, events):
    """events: (type, time, fields, text)"""
    payload, last = bytearray(), base
    for kind, t, fields, text in events:
        payload += bytes([kind]) + leb(t - last) + b"".join(leb(f) for f in fields)
        if text is not None:
            payload += leb(len(text)) + text
        last = t
    return b"TCHK" + struct.pack("<III", len(payload), zlib.crc32(payload), thread) + struct.pack("<Q", base) + payload


ENTER, EXIT, EXIT_THROW, THREAD_START, USER = 16, 17, 18, 23, 28
header = b"JVMPROF TRACE\0\0\0" + struct.pack("<IIQ", 1, 0, 1700000000000000000)
md = b"".join([
    meta(1, 1, text=b"demo/Shapes"), meta(1, 2, text=b"area"), meta(1, 3, text=b"(D)D"),
    meta(1, 4, text=b"run"), meta(1, 5, text=b"()V"), meta(1, 6, text=b"main"), meta(1, 7, text=b"worker-1"), meta(1, 8, text=b"system"),
    meta(2, 1, 1), meta(3, 20, 1, 2, 3, 0), meta(3, 21, 1, 4, 5, 0), meta(4, 1, 6, 8, 5, 1), meta(4, 2, 7, 0, 5, 0),
])
data = header + b"TCHK" + struct.pack("<III", len(md), zlib.crc32(md), 0) + struct.pack("<Q", 0) + md
data += chunk(1, 1000, [(THREAD_START, 1000, [1], None), (ENTER, 1500, [20], None)])
data += chunk(2, 2000, [(ENTER, 2000, [21], None), (USER, 3000, [], b"halfway"),
                        (EXIT_THROW, 2000000000, [], None)])
data += chunk(1, 2500, [(EXIT, 2500, [], None)])
with open(sys.argv[1], "wb") as f:
    f.write(data)
