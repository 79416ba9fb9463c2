#!/usr/bin/env bash
# What delivering an event to a plugin that does nothing adds to tracing, per
# event (issue 19's target: <= 30 ns): CallLoop (a loop calling an
# out-of-line leaf() 10 million times a round, 12 rounds) under trace=exec of CallLoop
# with receivers=n, the trace going to /dev/null, with and without
# plugin=noop (bench/noop_plugin.c); RUNS (default 5) interleaved runs,
# medians of the runs' ns per call; each call is two events (its entry and
# exit). Appends to bench/RESULTS.md.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
AGENT=${AGENT:-$ROOT/build/libjvmprof.so}
OUT=$BENCH_DIR/out/plugin_cost
mkdir -p "$OUT"
[[ -f $AGENT ]] || { echo "plugin_cost.sh: no agent at $AGENT (run make)" >&2; exit 2; }
"$JDK/bin/javac" -d "$OUT" "$BENCH_DIR/workloads/CallLoop.java"
cc -O2 -shared -fPIC -I"$ROOT/include" -o "$OUT/libnoop.so" "$BENCH_DIR/noop_plugin.c"
run() { # [agent option] -> ns per call
    local opt=()
    [[ -n ${1:-} ]] && opt=("-agentpath:$AGENT=$1")
    "$JDK/bin/java" "${opt[@]}" -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,CallLoop::leaf \
        -cp "$OUT" CallLoop 10000000 12 2>/dev/null | sed -n 's/^CALLLOOP ns_per_call=\([0-9.]*\).*/\1/p'
}
base="trace=exec,receivers=n,include=CallLoop,tracefile=/dev/null,verbose=n"
none=() traced=() plugged=()
for ((r = 1; r <= RUNS; r++)); do
    none+=("$(run)")
    traced+=("$(run "$base")")
    plugged+=("$(run "$base,plugin=$OUT/libnoop.so")")
    echo "[plugin_cost] round $r: none ${none[-1]}, traced ${traced[-1]}, traced + plugin ${plugged[-1]} ns per call" >&2
done
mn=$(median "${none[@]}") mt=$(median "${traced[@]}") mp=$(median "${plugged[@]}")
per_event=$(awk -v a="$mp" -v b="$mt" 'BEGIN {printf "%.2f", (a - b) / 2}')
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — plugin delivery per event (bench/plugin_cost.sh, RUNS=$RUNS)"
    echo
    echo "Machine: $(bench_cpu); agent $(bench_commit). CallLoop, 2 events per call."
    echo
    echo "| no agent ns/call | trace=exec ns/call | + plugin=noop ns/call | added per event |"
    echo "|---:|---:|---:|---:|"
    echo "| $mn | $mt | $mp | $per_event |"
} >>"$BENCH_DIR/RESULTS.md"
echo "a plugin that does nothing adds $per_event ns per event (trace=exec $mt ns/call, with the plugin $mp)"
