#!/usr/bin/env bash
# The tracing API's cost once tracing has ended (issue 19's target: <= 1.10x
# no agent on javac): bench/workloads/TracedJavac.java traces calls while
# javac compiles 40 files (javac's classes get instrumented), ends tracing,
# then compiles the whole javac workload (856 files of java.base) twice; the
# time of each of those compiles is measured (the first also recompiles the
# classes tracingEnd restored to their own code), with the agent (trace=thread at start-up,
# the tracing library bench/noop_plugin.c) and without one, RUNS (default 5)
# interleaved runs each; medians, and the whole processes' CPU time.
# Appends to bench/RESULTS.md. Needs the javac workload's sources (make bench
# sets them up: bench/run.sh).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
AGENT=${AGENT:-$ROOT/build/libjvmprof.so}
OUT=$BENCH_DIR/out/tracing_ended
LIST=$BENCH_DIR/out/javac-files.txt
PATCH=$BENCH_DIR/out/javac-src/java.base
[[ -f $LIST && -d $PATCH ]] || { echo "tracing_ended.sh: no javac workload in bench/out (run bench/run.sh once)" >&2; exit 2; }
mkdir -p "$OUT"
"$JDK/bin/javac" -cp "$ROOT/build/jvmprof.jar" -d "$OUT" "$BENCH_DIR/workloads/TracedJavac.java"
cc -O2 -shared -fPIC -I"$ROOT/include" -o "$OUT/libnoop.so" "$BENCH_DIR/noop_plugin.c"
run() { # [agent] -> "ms again_ms cpu_s"
    local opt=() d ms
    d=$(mktemp -d "$OUT/run.XXXXXX")
    [[ -n ${1:-} ]] && opt=("-agentpath:$AGENT=trace=thread,tracefile=/dev/null,verbose=n")
    ms=$("$BENCH_DIR/timeit.py" "$d/cpu" -- "$JDK/bin/java" "${opt[@]}" -cp "$OUT:$ROOT/build/jvmprof.jar" \
        TracedJavac "$OUT/libnoop.so" "$LIST" "$d" "$PATCH" 2>"$d/err" | sed -n 's/^TRACEDJAVAC ms=\([0-9.]*\) again=\([0-9.]*\).*/\1 \2/p')
    [[ -n $ms ]] || { cat "$d/err" >&2; echo "tracing_ended.sh: the run failed" >&2; exit 1; }
    echo "$ms $(awk '{printf "%.2f", $2 + $3}' "$d/cpu")"
    rm -rf "$d"
}
none=() ended=() none2=() ended2=() ncpu=() ecpu=()
for ((r = 1; r <= RUNS; r++)); do
    read -r a a2 b < <(run); none+=("$a"); none2+=("$a2"); ncpu+=("$b")
    read -r a a2 b < <(run agent); ended+=("$a"); ended2+=("$a2"); ecpu+=("$b")
    echo "[tracing_ended] round $r: no agent ${none[-1]} + ${none2[-1]} ms (${ncpu[-1]} s CPU), tracing ended ${ended[-1]} + ${ended2[-1]} ms (${ecpu[-1]} s CPU)" >&2
done
mn=$(median "${none[@]}") me=$(median "${ended[@]}") cn=$(median "${ncpu[@]}") ce=$(median "${ecpu[@]}")
mn2=$(median "${none2[@]}") me2=$(median "${ended2[@]}")
ratio=$(awk -v a="$me" -v b="$mn" 'BEGIN {printf "%.3f", a / b}')
ratio2=$(awk -v a="$me2" -v b="$mn2" 'BEGIN {printf "%.3f", a / b}')
cratio=$(awk -v a="$ce" -v b="$cn" 'BEGIN {printf "%.3f", a / b}')
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — javac after tracingEnd (bench/tracing_ended.sh, RUNS=$RUNS)"
    echo
    echo "Machine: $(bench_cpu); agent $(bench_commit)."
    echo "The whole javac workload compiled after a traced window (40 files with EXECUTION_ON) and tracingEnd; medians."
    echo
    echo "| compile | no agent ms | tracing ended ms | ratio |"
    echo "|---|---:|---:|---:|"
    echo "| first after tracingEnd | $mn | $me | $ratio |"
    echo "| second | $mn2 | $me2 | $ratio2 |"
    echo
    echo "Whole processes' CPU, the traced window included: $cn s without the agent, $ce s with it ($cratio x)."
} >>"$BENCH_DIR/RESULTS.md"
echo "javac after tracingEnd: $ratio x no agent ($me vs $mn ms), then $ratio2 x ($me2 vs $mn2 ms); CPU $cratio x"
