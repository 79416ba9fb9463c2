#!/usr/bin/env bash
# heap_retained_ref.sh — how long the reference for `jvmprof heap --retained`
# (tests/tools/retainedref.sh: VisualVM's heap library) takes to compute the
# retained sizes of a big heap and pick its top 1000 objects. Builds HEAP_MIB
# (default 1024) MiB of live objects in bench/workloads/BigHeap.java (the
# generator bench/heap_read.sh uses: 10,000-node linked lists, int[], byte[]
# and Strings; about 30 objects per KiB, 31 million at 1024 MiB) under -Xmx3g,
# dumps them with `jcmd GC.heap_dump`, then runs `retainedref.sh DUMP --top
# 1000` once under /usr/bin/time -v (RETAINEDREF_JAVA_OPTS, default -Xmx2g,
# sizes its JVM). Prints the dump's size, the wall seconds and peak RSS of the
# run, RetainedRef's own phase timings and its header and first 5 rows. Writes
# nothing to bench/RESULTS.md; deletes the dump. KEEP=DIR keeps the dump and
# the top 1000 rows in DIR instead.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
JAVA_HOME=${JAVA_HOME:-$("$ROOT/tools/java-home.sh")}
HEAP_MIB=${HEAP_MIB:-1024}
TOP=${TOP:-1000}
KEEP=${KEEP:-}
[[ -x /usr/bin/time ]] || { echo "heap_retained_ref: /usr/bin/time is missing (Debian package time)" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/jvmprof-retref.XXXXXX")
PID=
trap 'touch "$TMP/stop"; [[ -n $PID ]] && kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
"$JAVA_HOME/bin/javac" -d "$TMP/classes" "$BENCH_DIR/workloads/BigHeap.java"
"$JAVA_HOME/bin/java" -Xmx3g -cp "$TMP/classes" BigHeap "$HEAP_MIB" "$TMP/stop" >"$TMP/out" &
PID=$!
for _ in $(seq 1 600); do grep -q '^ready' "$TMP/out" 2>/dev/null && break; sleep 0.5; done
grep -q '^ready' "$TMP/out" || { echo "heap_retained_ref: BigHeap did not get ready" >&2; exit 1; }
t0=$(date +%s.%N)
"$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$TMP/big.hprof" >/dev/null
t1=$(date +%s.%N)
touch "$TMP/stop"; wait $PID; PID=
size=$(stat -c %s "$TMP/big.hprof")
echo "dump: $(awk -v s="$size" 'BEGIN { printf "%.0f MiB", s / 1048576 }') written by jcmd GC.heap_dump in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s (BigHeap $HEAP_MIB MiB)"
rc=0
/usr/bin/time -v "$ROOT/tests/tools/retainedref.sh" "$TMP/big.hprof" --top "$TOP" >"$TMP/top.txt" 2>"$TMP/time.txt" || rc=$?
[[ $rc == 0 ]] || { tail -5 "$TMP/time.txt" >&2; echo "heap_retained_ref: retainedref.sh failed ($rc)" >&2; exit 1; }
wall=$(sed -n 's/^.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$TMP/time.txt" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
rss=$(sed -n 's/^.*Maximum resident set size (kbytes): //p' "$TMP/time.txt")
echo "retainedref.sh --top $TOP: $wall s wall, peak RSS $((rss / 1024)) MiB"
grep '^RetainedRef: seconds' "$TMP/time.txt" || true
head -6 "$TMP/top.txt"
if [[ -n $KEEP ]]; then
    mkdir -p "$KEEP"
    mv "$TMP/big.hprof" "$TMP/top.txt" "$KEEP/"
fi
