#!/usr/bin/env bash
# heap_retained.sh — how long `jvmprof heap --retained` takes, and how much memory, on a dump of
# about MILLIONS (default 10) million small objects (issue 39's target: 10 million objects in at
# most 60 s and 2 GiB). Builds them in bench/workloads/RetainedHeap.java (-Xmx3g), dumps them with
# `jcmd GC.heap_dump`, then runs `jvmprof heap FILE --retained` (and --ignore-weak) under
# /usr/bin/time -v: wall time and maximum resident set size. Prints the figures (does not touch
# bench/RESULTS.md) and deletes the dump.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
JAVA_HOME=${JAVA_HOME:-$("$ROOT/tools/java-home.sh")}
MILLIONS=${MILLIONS:-10}
JVMPROF="$ROOT/build/jvmprof"
[[ -x $JVMPROF ]] || { echo "heap_retained: build first (make)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "heap_retained: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/jvmprof-retained.XXXXXX")
trap 'touch "$TMP/stop"; [[ -n ${PID:-} ]] && kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
"$JAVA_HOME/bin/javac" -d "$TMP/classes" "$BENCH_DIR/workloads/RetainedHeap.java"
"$JAVA_HOME/bin/java" -Xmx3g -cp "$TMP/classes" RetainedHeap "$MILLIONS" "$TMP/stop" >"$TMP/out" &
PID=$!
for _ in $(seq 1 600); do grep -q '^ready' "$TMP/out" 2>/dev/null && break; sleep 0.5; done
grep -q '^ready' "$TMP/out" || { echo "heap_retained: RetainedHeap did not get ready" >&2; exit 1; }
t0=$(date +%s.%N)
"$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$TMP/big.hprof" >/dev/null
t1=$(date +%s.%N)
touch "$TMP/stop"; wait $PID; PID=
size=$(stat -c %s "$TMP/big.hprof")
echo "dump: $size bytes written by jcmd in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s ($(head -1 "$TMP/out"))"
for flags in "" "--ignore-weak"; do
    /usr/bin/time -v "$JVMPROF" heap "$TMP/big.hprof" --retained --top 5 $flags >"$TMP/ret.txt" 2>"$TMP/time.txt"
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$TMP/time.txt")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$TMP/time.txt")
    echo "jvmprof heap --retained $flags: wall $wall, max RSS $((rss / 1024)) MiB"
    grep '^jvmprof:' "$TMP/time.txt" | sed 's/^/  stderr: /' || true
    head -1 "$TMP/ret.txt" | sed 's/^[^:]*: /  /'
    sed -n '/^objects by retained/,$p' "$TMP/ret.txt" | sed -n 3,5p
done
