# The readers of trace files size what they keep by what the file holds, not
# by the numbers it names: crafted traces that name ids up to 2^64-1 (one
# thread-start of thread 2^64-1 in 68 bytes; metadata numbered up to 2^26-1
# and 2^64-1) convert to a JFR file the JDK's jfr tool reads, and print with
# jvmprof trace (text, --chrome, --flame, --collapsed, --slowest), each in
# under 20 s within 1 GB of address space. (convert --jfr looped once per thread number
# up to the largest named, growing without end; jvmprof trace's tables asked
# for an element per id up to the largest, 3 GB for one gc number.) A report
# counting more CPU samples than a JFR file's events may hold is refused.
. "$(dirname "$0")/lib.sh"
JFR="$JAVA_HOME/bin/jfr"
python3 - "$T" <<'PY' || fail "could not write the crafted traces"
import struct, sys, zlib
def leb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | 0x80 if v else b)
        if not v:
            return bytes(out)
def ev(kind, dt, fields, text=None):
    out = bytes([kind]) + (leb(dt) if kind >= 16 else b"") + b"".join(leb(f) for f in fields)
    return out + (leb(len(text)) + text if text is not None else b"")
def chunk(thread, base, payload):
    return b"TCHK" + struct.pack("<III", len(payload), zlib.crc32(payload), thread) + struct.pack("<Q", base) + payload
header = b"JVMPROF TRACE\0\0\0" + struct.pack("<IIQ", 1, 0, 1700000000000000000)
TOP, BIG, HALF = 2**64 - 1, 2**26 - 1, 2**63
# 68 bytes: one thread-start, of thread 2^64-1
one = header + chunk(1, 1000, ev(23, 1, [TOP]))
assert len(one) == 68
open(sys.argv[1] + "/thread.trace", "wb").write(one)
meta = b"".join([
    ev(1, 0, [TOP], b"huge.Cls"), ev(1, 0, [BIG], b"run"), ev(1, 0, [BIG - 1], b"()V"),
    ev(1, 0, [HALF], b"worker"), ev(1, 0, [BIG - 2], b"huge.Cls.run"), ev(1, 0, [BIG - 3], b"G1"),
    ev(2, 0, [HALF, TOP]), ev(3, 0, [BIG, HALF, BIG, BIG - 1, 0]), ev(4, 0, [7, HALF, 0, 5, 0]),
    ev(5, 0, [BIG, 1, BIG - 3, BIG - 3, 100, 50]),
])
events = b"".join([
    ev(23, 1, [7]), ev(16, 10, [BIG]), ev(21, 10, [BIG]), ev(22, 10, [BIG]), ev(19, 10, [TOP, HALF, 64, 0]),
    ev(27, 10, [1, TOP, HALF]), ev(27, 10, [2, TOP, HALF]), ev(36, 10, [7, BIG - 2]), ev(36, 10, [TOP, BIG - 2]),
    ev(17, 10, []), ev(24, 10, [TOP]),
])
open(sys.argv[1] + "/ids.trace", "wb").write(header + chunk(0, 0, meta) + chunk(7, 1000, events))
PY

# CMD...: ends in 20 s within 1 GB, exit 0 (its stderr in $T/err)
bounded() {
    RC=0
    (ulimit -v 1048576; exec timeout 20 "$@") >"$T/out" 2>"$T/err" || RC=$?
    [ "$RC" != 124 ] || fail "$*: still running after 20 s"
    [ "$RC" = 0 ] || fail "$*: exit $RC: $(head -c 300 "$T/err")"
}
for f in thread ids; do
    bounded "$JVMPROF" convert "$T/$f.trace" --jfr "$T/$f.jfr"
    "$JFR" summary "$T/$f.jfr" >"$T/$f.summary" 2>"$T/jfr.err" || fail "jfr summary of $f.jfr: $(cat "$T/jfr.err")"
    grep -Eq "^ jdk.ThreadStart +1 " "$T/$f.summary" || fail "$f.jfr: not one ThreadStart: $(cat "$T/$f.summary")"
    "$JFR" print "$T/$f.jfr" >"$T/$f.print" 2>"$T/jfr.err" || fail "jfr print of $f.jfr: $(cat "$T/jfr.err")"
done
# thread 2^64-1 is past JFR's longs: its events name no thread; thread 7 keeps its name
grep -q 'thread = N/A' "$T/thread.print" || fail "thread 2^64-1: $(cat "$T/thread.print")"
grep -q 'thread = "worker"' "$T/ids.print" || fail "thread 7 is not \"worker\": $(cat "$T/ids.print")"
for e in GarbageCollection:1 ObjectAllocationSample:1 ExecutionSample:2 JavaMonitorEnter:1 ThreadEnd:1; do
    grep -Eq "^ jdk.${e%:*} +${e#*:} " "$T/ids.summary" || fail "ids.jfr: not ${e#*:} ${e%:*}: $(cat "$T/ids.summary")"
done
grep -q 'huge.Cls' "$T/ids.print" || fail "ids.jfr: the class named by id 2^63 is missing"

bounded "$JVMPROF" trace "$T/ids.trace"
expect_grep "worker enter huge.Cls.run()V depth=1" "$T/out"
expect_grep "worker exit huge.Cls.run()V depth=1" "$T/out"
[ "$(wc -l <"$T/out")" = 11 ] || fail "jvmprof trace printed $(wc -l <"$T/out") lines, not 11: $(cat "$T/out")"
cp "$T/out" "$T/ids.txt"
bounded "$JVMPROF" trace "$T/ids.trace" --chrome
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any(e.get("name")=="huge.Cls.run" for e in (d["traceEvents"] if isinstance(d, dict) else d)) else 1)' "$T/out" ||
    fail "--chrome: no huge.Cls.run in $(head -c 400 "$T/out")"
bounded "$JVMPROF" trace "$T/ids.trace" --flame -o "$T/ids.html"
expect_grep "huge.Cls.run" "$T/ids.html"
bounded "$JVMPROF" trace "$T/ids.trace" --collapsed
expect_grep "huge.Cls.run" "$T/out"
bounded "$JVMPROF" trace "$T/ids.trace" --slowest 3
expect_grep "huge.Cls.run" "$T/out"
bounded "$JVMPROF" trace "$T/thread.trace"
# a report's CPU SAMPLES may count 4 billion samples in 8 bytes: JFR has an event for each, so
# convert --jfr refuses past 10 million (it wrote events for 20 s and more); --pprof carries counts
H="$ROOT/tests/fuzz/readers_regressions/cpu-samples-16m-to-jfr.hprof"
RC=0
(ulimit -v 1048576; exec timeout 20 "$JVMPROF" convert "$H" --jfr "$T/h.jfr") >"$T/out" 2>"$T/err" || RC=$?
[ "$RC" = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "16725860 CPU samples; a JFR file has an event for each, at most 10000000" "$T/err" ||
    fail "convert --jfr of 16.7 million samples: exit $RC: $(head -c 300 "$T/err")"
[ ! -e "$T/h.jfr" ] || fail "a refused conversion left $T/h.jfr"
bounded "$JVMPROF" convert "$H" --pprof "$T/h.pb.gz"
note "68-byte trace of thread 2^64-1 and ids up to 2^64-1: JFR files jfr reads, $(wc -l <"$T/ids.txt") trace lines"
