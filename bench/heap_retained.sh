#!/usr/bin/env bash
# heap_retained.sh — issue 39's target for `jvmprof heap --retained`: a 1 GiB dump of about 10
# million objects in at most 60 s and 2 GiB of peak memory, measured side by side with VisualVM's
# heap library computing the retained sizes of the same dump in the same run (what `make bench`
# runs). Steps:
#   1. the dump: bench/workloads/RetainedHeap.java builds about MILLIONS (default 10) million live
#      objects under -Xmx3g (a HashMap of Long -> Item, each Item with a byte[] payload and one of
#      1000 shared Tags, and a linked list MILLIONS / 10 million long) and `jcmd GC.heap_dump`
#      writes them: about 1 GiB at 10 million. Cached in build/bench/ and made again only when
#      RetainedHeap.java, MILLIONS or the JDK change (its key in the .key file beside it).
#   2. `jvmprof heap DUMP --retained --tsv --top TOP` (TOP default 1000): one unmeasured warm-up
#      run (the page cache; its text header gives the object count), then RUNS (default 5) runs.
#   3. VisualVM's heap library: tests/tools/retainedref.sh DUMP --top TOP (RetainedRef.java:
#      Heap.getBiggestObjectsByRetainedSize, which computes every object's retained size first),
#      REF_RUNS (default 3) runs, each a minute or more, under -Xmx$REF_HEAP (default 2g, what it needs at 10 million).
# Each run under /usr/bin/time -v: wall time, CPU time (user + system) and peak resident set
# (which for both counts the pages of files they map: the dump for jvmprof, the library's index
# files). Prints the medians, the ratios, whether the targets are met and how many of jvmprof's
# top TOP objects have the library's retained size (tests/tools/retained_diff.py), and appends
# them to bench/RESULTS.md (RECORD=0 to not).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
MILLIONS=${MILLIONS:-10}
REF_RUNS=${REF_RUNS:-3}
REF_HEAP=${REF_HEAP:-2g}
TOP=${TOP:-1000}
RECORD=${RECORD:-1}
JVMPROF="$ROOT/build/jvmprof"
REF="$ROOT/tests/tools/retainedref.sh"
die() { echo "heap_retained: $*" >&2; exit 1; }
[[ $MILLIONS =~ ^[1-9][0-9]*$ && $RUNS =~ ^[1-9][0-9]*$ && $REF_RUNS =~ ^[0-9]+$ && $TOP =~ ^[1-9][0-9]*$ ]] ||
    die "MILLIONS, RUNS and TOP must be positive whole numbers, REF_RUNS a whole number"
[[ -x $JVMPROF ]] || die "build first (make)"
[[ -x /usr/bin/time ]] || die "needs /usr/bin/time (Debian package time)"
if ((REF_RUNS > 0)); then
    "$ROOT/tools/deps.sh" visualvm >&2 || die "tools/deps.sh visualvm failed (VisualVM's heap library is the reference)"
    "$ROOT/tests/tools/visualvm_tool.sh" --build RetainedRef || die "cannot build tests/tools/RetainedRef.java"
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/jvmprof-retained.XXXXXX")
PID=
trap 'touch "$TMP/stop"; [[ -n $PID ]] && kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- 1. the dump, made once
CACHE="$ROOT/build/bench"
DUMP="$CACHE/retained-heap-${MILLIONS}m.hprof"
KEY="$(sha256sum "$BENCH_DIR/workloads/RetainedHeap.java" | cut -c1-16) millions=$MILLIONS $("$JDK/bin/java" -version 2>&1 | head -1)"
mkdir -p "$CACHE"
if [[ -f $DUMP && -f $DUMP.key && $(cat "$DUMP.key") == "$KEY" ]]; then
    made="cached, made $(date -u -r "$DUMP" '+%Y-%m-%d %H:%M UTC')"
else
    rm -f "$DUMP" "$DUMP.key" "$CACHE/.making.hprof"
    "$JDK/bin/javac" -d "$TMP/classes" "$BENCH_DIR/workloads/RetainedHeap.java"
    "$JDK/bin/java" -Xmx3g -cp "$TMP/classes" RetainedHeap "$MILLIONS" "$TMP/stop" >"$TMP/out" &
    PID=$!
    for _ in $(seq 1 600); do grep -q '^ready' "$TMP/out" 2>/dev/null && break; sleep 0.5; done
    grep -q '^ready' "$TMP/out" || die "RetainedHeap did not get ready"
    t0=$(date +%s.%N)
    "$JDK/bin/jcmd" $PID GC.heap_dump "$CACHE/.making.hprof" >"$TMP/jcmd.out" || die "jcmd GC.heap_dump: $(tail -1 "$TMP/jcmd.out")"
    t1=$(date +%s.%N)
    touch "$TMP/stop"; wait $PID; PID=
    mv "$CACHE/.making.hprof" "$DUMP"
    echo "$KEY" >"$DUMP.key"
    made="made now by \`jcmd GC.heap_dump\` in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s ($(head -1 "$TMP/out"))"
fi
SIZE=$(stat -c %s "$DUMP")
SIZE_MIB=$(awk -v s="$SIZE" 'BEGIN { printf "%.0f", s / 1048576 }')
echo "dump: $DUMP, $SIZE bytes ($SIZE_MIB MiB), $made" >&2

# timed OUT ERR CMD... : runs CMD under /usr/bin/time -v; sets WALL and CPU (seconds) and RSS (MiB)
timed() {
    local out=$1 err=$2
    shift 2
    /usr/bin/time -v -o "$TMP/time.txt" "$@" >"$out" 2>"$err" || { tail -3 "$err" >&2; die "$* failed"; }
    WALL=$(sed -n 's/^.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$TMP/time.txt" |
        awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
    CPU=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { printf "%.2f", s }' "$TMP/time.txt")
    RSS=$(awk -F': ' '/Maximum resident set size \(kbytes\)/ { printf "%.0f", $2 / 1024 }' "$TMP/time.txt")
}

# ---------------------------------------------------------------- 2. jvmprof
timed "$TMP/warm.txt" "$TMP/warm.err" "$JVMPROF" heap "$DUMP" --retained --top 5
HEADER=$(head -1 "$TMP/warm.txt" | sed 's/^[^:]*: //')
OBJECTS=$(sed -n 's/.* ids: \([0-9]*\) objects .*/\1/p' <<<"$HEADER")
echo "jvmprof heap --retained: warm-up ${WALL}s wall; $HEADER" >&2
J_WALL=() J_CPU=() J_RSS=()
for r in $(seq 1 "$RUNS"); do
    timed "$TMP/ours.tsv" "$TMP/ours.err" "$JVMPROF" heap "$DUMP" --retained --tsv --top "$TOP"
    J_WALL+=("$WALL") J_CPU+=("$CPU") J_RSS+=("$RSS")
    echo "jvmprof heap --retained --tsv --top $TOP: run $r/$RUNS: ${WALL}s wall, ${CPU}s CPU, $RSS MiB peak RSS" >&2
done

# ---------------------------------------------------------------- 3. VisualVM's heap library
R_WALL=() R_CPU=() R_RSS=() R_PHASES=()
for r in $(seq 1 "$REF_RUNS"); do
    RETAINEDREF_JAVA_OPTS="-Xmx$REF_HEAP" timed "$TMP/ref.tsv" "$TMP/ref.err" "$REF" "$DUMP" --top "$TOP"
    R_WALL+=("$WALL") R_CPU+=("$CPU") R_RSS+=("$RSS")
    R_PHASES+=("$(sed -n 's/^RetainedRef: seconds: //p' "$TMP/ref.err" | tail -1)")
    echo "VisualVM's library (RetainedRef --top $TOP, -Xmx$REF_HEAP): run $r/$REF_RUNS: ${WALL}s wall, ${CPU}s CPU, $RSS MiB peak RSS; seconds: ${R_PHASES[-1]}" >&2
done
AGREE="(no reference run)" DIFFS=
if ((REF_RUNS > 0)); then
    python3 "$ROOT/tests/tools/retained_diff.py" --limit 5 "$TMP/ours.tsv" "$TMP/ref.tsv" >"$TMP/diff.txt" 2>&1 || true
    AGREE=$(grep '^objects:' "$TMP/diff.txt" || true)
    # the rows that differ: "ours ... | ref ..."
    DIFFS=$(grep '^ *0x.*| ref ' "$TMP/diff.txt" | tr '\t' ' ' | sed 's/^ *//' | paste -sd';' - | sed 's/;/; /g' || true)
fi

# ---------------------------------------------------------------- figures
jw=$(median "${J_WALL[@]}") jc=$(median "${J_CPU[@]}") jr=$(median "${J_RSS[@]}")
range() { printf '%s\n' "$@" | sort -g | sed -n '1p;$p' | paste -sd- -; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }'; }
TIME_OK=$(awk -v w="$jw" 'BEGIN { print (w <= 60) ? "met" : "NOT met" }')
MEM_OK=$(awk -v r="$jr" 'BEGIN { print (r <= 2048) ? "met" : "NOT met" }')
TABLE="$TMP/table.md"
{
    echo "| computing the retained sizes of the dump | runs | median wall s (min-max) | median CPU s | median peak RSS MiB (min-max) |"
    echo "|---|---:|---:|---:|---:|"
    echo "| \`jvmprof heap DUMP --retained --tsv --top $TOP\` | $RUNS | $jw ($(range "${J_WALL[@]}")) | $jc | $jr ($(range "${J_RSS[@]}")) |"
    if ((REF_RUNS > 0)); then
        rw=$(median "${R_WALL[@]}") rc=$(median "${R_CPU[@]}") rr=$(median "${R_RSS[@]}")
        echo "| VisualVM's heap library: \`tests/tools/retainedref.sh DUMP --top $TOP\`, -Xmx$REF_HEAP | $REF_RUNS | $rw ($(range "${R_WALL[@]}")) | $rc | $rr ($(range "${R_RSS[@]}")) |"
        echo "| ratio library / jvmprof | | $(ratio "$rw" "$jw") | $(ratio "$rc" "$jc") | $(ratio "$rr" "$jr") |"
    fi
} >"$TABLE"
echo
cat "$TABLE"
echo "targets (issue 39): wall <= 60 s: $TIME_OK ($jw s); peak RSS <= 2 GiB: $MEM_OK ($jr MiB)"
echo "jvmprof's top $TOP against the library's top $TOP: $AGREE"
[[ -z $DIFFS ]] || echo "rows that differ (up to 5): $DIFFS"

if [[ $RECORD != 0 ]]; then
    {
        echo
        echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — jvmprof heap --retained on a $SIZE_MIB MiB dump of $OBJECTS objects, beside VisualVM's heap library (bench/heap_retained.sh, RUNS=$RUNS, REF_RUNS=$REF_RUNS)"
        echo
        echo "- Machine: $(bench_cpu) (\`nproc\` $(nproc)), $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo) RAM; $("$JDK/bin/java" -version 2>&1 | head -1); commit $(bench_commit)"
        echo "- Load average (1/5/15 min) at start: $LOAD_START; at end: $(cut -d' ' -f1-3 /proc/loadavg). Other jobs share the machine: the times are those of a busy 2-core VM."
        echo "- Dump: \`workloads/RetainedHeap.java\` $MILLIONS (million objects), $SIZE bytes, $made; jvmprof's header: $HEADER"
        echo "- Each run under \`/usr/bin/time -v\` (CPU = user + system; peak RSS counts mapped file pages: the dump for jvmprof, the library's index files for it). jvmprof after one unmeasured warm-up run; the library $REF_RUNS runs (each over a minute), its phases (seconds): $(printf '%s | ' "${R_PHASES[@]:-none}" | sed 's/ | $//')"
        echo "- Targets (issue 39: ≤ 60 s, ≤ 2 GiB): time $TIME_OK, memory $MEM_OK"
        echo "- jvmprof's top $TOP against the library's top $TOP (tests/tools/retained_diff.py): $AGREE${DIFFS:+; rows that differ (up to 5): $DIFFS}"
        echo "- Per run: jvmprof wall ${J_WALL[*]} s, CPU ${J_CPU[*]} s, RSS ${J_RSS[*]} MiB; library wall ${R_WALL[*]:-} s, CPU ${R_CPU[*]:-} s, RSS ${R_RSS[*]:-} MiB"
        echo
        cat "$TABLE"
    } >>"$BENCH_DIR/RESULTS.md"
    echo "appended to bench/RESULTS.md" >&2
fi
