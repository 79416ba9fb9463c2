# jvmprof convert REPORT.hprof --pprof: the binary report carries the sampling
# interval and the samples' kind (jvmprof's own SAMPLING record, which other
# HPROF readers skip: tests/golden/hprof_dump.py does), so go tool pprof's
# default view of the converted profile is CPU time with the report's top
# methods and shares (it was all zeros: "Total samples = 0"). A binary file
# without that record (another producer's) gets counts only: the default
# sample type is samples, never a column of zeros, and convert says so.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" go || fail "Go cannot be installed"
GO=$(command -v go)
export HOME="${HOME:-$T}" GOCACHE="$T/gocache" GOFLAGS=-mod=mod
pp() { "$GO" tool pprof "$@" 2>"$T/pprof.err" || fail "go tool pprof $*: $(cat "$T/pprof.err")"; }
# share METHOD < report: the method's share of the CPU samples in percent, 2 decimals
share() { awk -v m="$1" '/^CPU SAMPLES BEGIN/ { t = $6 + 0; on = 1; next } /^CPU SAMPLES END/ { on = 0 }
                         on && $6 == m { s += $4 } END { printf "%.2f\n", t ? 100 * s / t : 0 }'; }
# flatpct METHOD < go tool pprof -top: its flat share
flatpct() { awk -v n="$1" '$NF == n { v = $2; sub(/%/, "", v); printf "%.2f\n", v }'; }

run_java "cpu=samples,interval=10,format=b,file=$T/b.hprof" HotLoop 2
expect_rc 0
python3 "$ROOT/tests/golden/hprof_dump.py" "$T/b.hprof" >"$T/dump.txt" || fail "the independent parser rejected it: $(tail -2 "$T/dump.txt")"
"$ROOT/build/jvmprof" report "$T/b.hprof" >"$T/r.txt" || fail "jvmprof report failed"
"$ROOT/build/jvmprof" convert "$T/b.hprof" --pprof "$T/b.pb.gz" 2>"$T/e" || fail "convert: $(cat "$T/e")"
pp -top "$T/b.pb.gz" >"$T/top.txt"          # the default view, no -sample_index
grep -q "^Type: cpu$" "$T/top.txt" || fail "default view is not cpu: $(head -5 "$T/top.txt")"
! grep -q "Total samples = 0" "$T/top.txt" || fail "an empty profile: $(head -5 "$T/top.txt")"
pp -raw "$T/b.pb.gz" >"$T/raw.txt"
grep -q "^Period: 10000000$" "$T/raw.txt" || fail "period: $(grep -i period "$T/raw.txt")"
total=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/r.txt" | grep -o '[0-9]*$')
pp -top -unit=ms "$T/b.pb.gz" | grep -q "Total samples = $((total * 10))ms" ||
    fail "not $total samples of 10 ms: $(sed -n 3,4p "$T/top.txt")"
for m in HotLoop.heavy HotLoop.light; do
    want=$(share "$m" <"$T/r.txt") got=$(flatpct "$m" <"$T/top.txt")
    awk -v a="${got:-0}" -v b="$want" 'BEGIN { d = a - b; exit !(b > 0 && d < 0.01 && d > -0.01) }' ||
        fail "$m: $got% in pprof's default view, $want% in the report"
    note "$m: $got% in pprof's default view, $want% in the report"
done

# the same file without jvmprof's record, as another producer writes it: counts, not zeros
python3 - "$T/b.hprof" "$T/old.hprof" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
pos = data.index(b"\0") + 1 + 12
out = bytearray(data[:pos])
while pos < len(data):
    tag, _, n = struct.unpack(">BII", data[pos:pos + 9])
    if tag != 0xA1:
        out += data[pos:pos + 9 + n]
    pos += 9 + n
open(sys.argv[2], "wb").write(out)
PY
"$ROOT/build/jvmprof" convert "$T/old.hprof" --pprof "$T/old.pb.gz" 2>"$T/e" || fail "convert: $(cat "$T/e")"
grep -q "^jvmprof: note: $T/old.pb.gz does not carry the samples' time" "$T/e" || fail "no note: $(cat "$T/e")"
pp -top "$T/old.pb.gz" >"$T/top.txt"
grep -q "^Type: samples$" "$T/top.txt" || fail "no interval: default view is not samples: $(head -5 "$T/top.txt")"
grep -q "of $total total" "$T/top.txt" || fail "no interval: not $total samples: $(sed -n 4,6p "$T/top.txt")"
pp -raw "$T/old.pb.gz" | grep -q "nanoseconds" && fail "no interval, yet a nanoseconds column"
note "without the record: $total samples as the default view, no time column"
