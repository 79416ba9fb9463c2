#!/usr/bin/env bash
# record=y left on at its defaults (maxage=10m, maxsize=32m) for MINUTES
# (default 12: past maxage, so that the oldest samples have had to go):
# SpikeIdle (a thread working 2 ms in every 20, one 2 s spike at the start)
# under cpu=samples,record=y; every minute a dump of the whole recording
# (--from 0) says how far back it reaches and how many bytes the ring holds
# (its COUNTS), beside the JVM's resident memory. Checks that the ring never
# holds more than maxsize= and that no dump reaches back more than maxage=
# (plus a second). Appends to bench/RESULTS.md. At the defaults a quiet
# program is bounded by maxage=; the ring reaches maxsize= only with about
# 17 threads busy all along (t6006 tests that bound with a small maxsize=).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
JVMPROF=${JVMPROF:-$ROOT/build/jvmprof}
MINUTES=${MINUTES:-12}
OPTS=${OPTS:-cpu=samples,record=y}
MAXAGE_S=${MAXAGE_S:-600}
MAXSIZE=${MAXSIZE:-33554432}
OUT=$BENCH_DIR/out/record_bounds
mkdir -p "$OUT"
"$JDK/bin/javac" -d "$OUT" -cp "$ROOT/build/jvmprof.jar" "$ROOT/tests/programs/SpikeIdle.java"
"$JDK/bin/java" "-agentpath:$ROOT/build/libjvmprof.so=$OPTS,file=$OUT/final.txt" -cp "$OUT" \
    SpikeIdle 1000 2000 $((MINUTES * 60000 + 30000)) >"$OUT/j.out" 2>"$OUT/j.err" &
jp=$!
trap 'kill "$jp" 2>/dev/null || true' EXIT
worst_bytes=0 worst_back=0 bad=0
for ((m = 1; m <= MINUTES; m++)); do
    sleep 60
    "$JVMPROF" dump "$jp" --from 0 "$OUT/m$m.txt" >/dev/null
    bytes=$(sed -n 's/^recording bytes held //p' "$OUT/m$m.txt")
    back=$(sed -n 's/.*the recording reaches back to .*(\([0-9.]*\) s before the window.s end).*/\1/p' "$OUT/m$m.txt")
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$jp/status")
    echo "minute $m: ring $bytes bytes, reaches back $back s, JVM RSS $rss KiB"
    ((bytes > worst_bytes)) && worst_bytes=$bytes
    awk -v a="$back" -v b="$worst_back" 'BEGIN { exit !(a > b) }' && worst_back=$back
    ((bytes <= MAXSIZE)) || { echo "  the ring holds $bytes bytes, more than $MAXSIZE" >&2; bad=1; }
    awk -v a="$back" -v b="$MAXAGE_S" 'BEGIN { exit !(a <= b + 1) }' || { echo "  reaches back $back s, past maxage $MAXAGE_S s" >&2; bad=1; }
done
line="record_bounds ($OPTS, $MINUTES min, SpikeIdle): ring at most $worst_bytes bytes (maxsize $MAXSIZE), reaching back at most $worst_back s (maxage $MAXAGE_S s)$([ $bad = 0 ] && echo ", within both" || echo ", OUT OF BOUNDS")"
echo "$line"
echo "- $(date -u +%F) $line" >>"$BENCH_DIR/RESULTS.md"
exit $bad
