#!/usr/bin/env bash
# heap_dump.sh — heap=dump against `jcmd GC.heap_dump` on the same heap
# (issue 5's targets: at most 1.5x jcmd's time, a file within 5% of jcmd's).
# DUMPER=hotspot (default) or jvmti chooses the agent's dumper=.
# Builds HEAP_MIB (default 1024) MiB of live objects in
# bench/workloads/BigHeap.java under the agent (heap=dump,doe=n), then RUNS
# (default 5) times takes one dump with jcmd and one with jvmprof (SIGQUIT;
# done when the file appears under its name), the order alternating run by
# run. Records wall times, file sizes, and the JVM's peak anonymous resident
# memory during each dump (RssAnon, sampled every 50 ms; JVMTI's object tags
# live in the JVM's native memory; the pages of a mapped file are not
# counted: dumper=hotspot maps its file to check it). Appends the figures to bench/RESULTS.md (RECORD=0 to
# not).
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
JAVA_HOME=${JAVA_HOME:-$("$ROOT/tools/java-home.sh")}
HEAP_MIB=${HEAP_MIB:-1024}
RUNS=${RUNS:-5}
RECORD=${RECORD:-1}
DUMPER=${DUMPER:-hotspot}
AGENT=${AGENT:-$ROOT/build/libjvmprof.so}
[[ -f $AGENT ]] || { echo "heap_dump: build first (make)" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/jvmprof-heapdump.XXXXXX")
trap 'touch "$TMP/stop"; [[ -n ${PID:-} ]] && kill $PID 2>/dev/null; rm -rf "$TMP"' EXIT
"$JAVA_HOME/bin/javac" -d "$TMP/classes" "$BENCH_DIR/workloads/BigHeap.java"
"$JAVA_HOME/bin/java" -Xmx$((HEAP_MIB * 3))m "-agentpath:$AGENT=heap=dump,doe=n,dumper=$DUMPER,file=$TMP/ours-%n.hprof" \
    -cp "$TMP/classes" BigHeap "$HEAP_MIB" "$TMP/stop" >"$TMP/out" 2>"$TMP/err" &
PID=$!
for _ in $(seq 1 600); do grep -q '^ready' "$TMP/out" 2>/dev/null && break; sleep 0.5; done
grep -q '^ready' "$TMP/out" || { cat "$TMP/err" >&2; echo "heap_dump: BigHeap did not get ready" >&2; exit 1; }

rss_kb() { awk '/^RssAnon:/ { print $2 }' /proc/$PID/status; }
# watch_rss COMMAND...: peak RSS (kB) while COMMAND succeeds; prints it
watch_rss() {
    local peak=0 r
    while "$@"; do
        r=$(rss_kb); (( r > peak )) && peak=$r
        sleep 0.05
    done
    echo "$peak"
}
running() { kill -0 "$1" 2>/dev/null; }
missing() { [[ ! -e $1 ]]; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

rows=()
seq_no=0
for r in $(seq 1 "$RUNS"); do
    for who in $( (( r % 2 )) && echo "jcmd ours" || echo "ours jcmd"); do
        before=$(rss_kb)
        if [[ $who == jcmd ]]; then
            f="$TMP/jcmd.hprof"
            t0=$(now)
            "$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$f" >/dev/null &
            jp=$!
            peak=$(watch_rss running $jp)
            wait $jp
            t1=$(now)
        else
            seq_no=$((seq_no + 1))
            f="$TMP/ours-$seq_no.hprof"
            t0=$(now)
            kill -QUIT $PID
            peak=$(watch_rss missing "$f")
            t1=$(now)
        fi
        size=$(stat -c %s "$f")
        rows+=("$r $who $(secs "$t0" "$t1") $size $before $peak")
        echo "run $r $who: $(secs "$t0" "$t1") s, $size bytes, anon RSS $((before / 1024)) -> peak $((peak / 1024)) MiB" >&2
        [[ $r == 1 && $who == ours ]] && "$ROOT/build/jvmprof" heap "$f" --top 3 >"$TMP/ours.hist"
        [[ $r == 1 && $who == jcmd ]] && "$ROOT/build/jvmprof" heap "$f" --top 3 >"$TMP/jcmd.hist"
        rm -f "$f"
    done
done
touch "$TMP/stop"; wait $PID; PID=

summary=$(printf '%s\n' "${rows[@]}" | awk '
    { t[$2, ++n[$2]] = $3; s[$2] = $4; peak[$2] = $6 - $5 > peak[$2] ? $6 - $5 : peak[$2] }
    function median(who,   i, j, k, a, m) {
        m = n[who]; for (i = 1; i <= m; i++) a[i] = t[who, i]
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { k = a[i]; a[i] = a[j]; a[j] = k }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END {
        mj = median("jcmd"); mo = median("ours")
        printf "jcmd median %.2f s, jvmprof median %.2f s: time ratio %.2f; size jcmd %d, jvmprof %d bytes: size ratio %.4f; ", mj, mo, mo / mj, s["jcmd"], s["ours"], s["ours"] / s["jcmd"]
        printf "peak anonymous RSS growth during the dump: jcmd %d MiB, jvmprof %d MiB\n", peak["jcmd"] / 1024, peak["ours"] / 1024
    }')
echo "$summary"
grep "heap dump: wrote" "$TMP/err" | tail -1 || true
if [[ $RECORD == 1 ]]; then
    {
        echo
        echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — heap=dump,dumper=$DUMPER against jcmd GC.heap_dump on a ${HEAP_MIB} MiB heap (bench/heap_dump.sh)"
        echo
        echo "- Machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); BigHeap ${HEAP_MIB} MiB, -Xmx$((HEAP_MIB * 3))m, the agent loaded with heap=dump,doe=n,dumper=$DUMPER; $RUNS dumps each, alternating"
        echo "- $summary"
        echo "- jvmprof's last dump: $(grep "heap dump: wrote" "$TMP/err" | tail -1 | sed 's/^jvmprof: //')"
        grep -q "written as null" "$TMP/err" && echo "- $(grep "written as null" "$TMP/err" | tail -1 | sed 's/^jvmprof: //')"
        echo "- jcmd's dump: $(head -1 "$TMP/jcmd.hist")"
        echo "- jvmprof's dump: $(head -1 "$TMP/ours.hist")"
        echo
        echo "| run | who | seconds | bytes | anon RSS before kB | peak anon RSS kB |"
        echo "|---:|---|---:|---:|---:|---:|"
        printf '%s\n' "${rows[@]}" | awk '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }'
    } >>"$BENCH_DIR/RESULTS.md"
fi
