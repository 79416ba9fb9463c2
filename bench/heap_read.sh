#!/usr/bin/env bash
# heap_read.sh — how fast `jvmprof heap` reads a large HotSpot heap dump (issue
# 5's target: a 1 GiB dump in under 10 s). Builds HEAP_MIB (default 1024) MiB of
# live objects in bench/workloads/BigHeap.java, dumps them with
# `jcmd GC.heap_dump`, then times RUNS (default 5) runs of `jvmprof heap`:
# the first after dropping the page cache (cold, when run as root), the rest
# warm. Appends the figures to bench/RESULTS.md (RECORD=0 to not).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
JAVA_HOME=${JAVA_HOME:-$("$ROOT/tools/java-home.sh")}
HEAP_MIB=${HEAP_MIB:-1024}
RUNS=${RUNS:-5}
RECORD=${RECORD:-1}
JVMPROF="$ROOT/build/jvmprof"
[[ -x $JVMPROF ]] || { echo "heap_read: build first (make)" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/jvmprof-heap.XXXXXX")
trap 'touch "$TMP/stop"; [[ -n ${PID:-} ]] && kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
"$JAVA_HOME/bin/javac" -d "$TMP/classes" "$BENCH_DIR/workloads/BigHeap.java"
"$JAVA_HOME/bin/java" -Xmx$((HEAP_MIB * 3))m -cp "$TMP/classes" BigHeap "$HEAP_MIB" "$TMP/stop" >"$TMP/out" &
PID=$!
for _ in $(seq 1 600); do grep -q '^ready' "$TMP/out" 2>/dev/null && break; sleep 0.5; done
grep -q '^ready' "$TMP/out" || { echo "heap_read: BigHeap did not get ready" >&2; exit 1; }
t0=$(date +%s.%N)
"$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$TMP/big.hprof" >/dev/null
t1=$(date +%s.%N)
touch "$TMP/stop"; wait $PID; PID=
size=$(stat -c %s "$TMP/big.hprof")
times=()
for r in $(seq 1 "$RUNS"); do
    cold=warm
    if [[ $r == 1 && $(id -u) == 0 ]]; then sync; echo 3 >/proc/sys/vm/drop_caches; cold=cold; fi
    s=$(date +%s.%N)
    "$JVMPROF" heap "$TMP/big.hprof" --top 5 >"$TMP/hist.txt"
    e=$(date +%s.%N)
    times+=("$cold $(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", b - a }')")
done
echo "dump: $size bytes written by jcmd in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
printf '%s\n' "${times[@]}"
head -7 "$TMP/hist.txt"
if [[ $RECORD == 1 ]]; then
    {
        echo
        echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — jvmprof heap on a ${HEAP_MIB} MiB heap (bench/heap_read.sh)"
        echo
        echo "- Dump: $(awk -v s="$size" 'BEGIN { printf "%.0f MiB", s / 1048576 }') written by \`jcmd GC.heap_dump\` in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s"
        echo "- \`jvmprof heap --top 5\` wall time per run (first after dropping the page cache when root):"
        for t in "${times[@]}"; do echo "  - $t s"; done
        echo "- $(head -1 "$TMP/hist.txt")"
    } >>"$BENCH_DIR/RESULTS.md"
fi
