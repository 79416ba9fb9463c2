#!/usr/bin/env bash
# What a com.sun.tracing probe call costs (issue 20's targets: <= 5 ns with
# nothing listening, in JIT-compiled code; <= 150 ns per firing with the
# trace recording probes): ProbeBench (a loop calling a probe with an int
# argument; the median of 7 rounds' ns per call), RUNS (default 5)
# interleaved runs of: an ordinary implementation of the interface (the
# loop's own cost) and the probe without an agent, with the agent and
# nothing listening, with trace=probe writing a trace file, and with
# bpftrace attached to its USDT probe (as root, if bpftrace is there).
# Medians of the runs. Appends to bench/RESULTS.md.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
AGENT=${AGENT:-$ROOT/build/libjvmprof.so}
JAR=$(dirname "$AGENT")/jvmprof.jar
OUT=$BENCH_DIR/out/probe_cost
mkdir -p "$OUT"
[[ -f $AGENT ]] || { echo "probe_cost.sh: no agent at $AGENT (run make)" >&2; exit 2; }
"$JDK/bin/javac" -cp "$JAR" -d "$OUT" "$BENCH_DIR/workloads/ProbeBench.java"
N=100000000
run() { # mode calls [agent option] -> ns per call
    local opt=() cp="$OUT:$JAR"
    [[ -n ${3:-} ]] && opt=("-agentpath:$AGENT=$3")
    "$JDK/bin/java" "${opt[@]}" -cp "$cp" ProbeBench "$1" "$2" 7 2>/dev/null |
        sed -n 's/^PROBEBENCH mode=[a-z]* ns_per_call=\([0-9.]*\).*/\1/p'
}
BPF=$( [[ $(id -u) -eq 0 ]] && command -v bpftrace || true )
run_bpf() { # -> ns per firing with bpftrace counting them
    rm -f "$OUT/go" "$OUT/bpf.out"
    "$JDK/bin/java" "-agentpath:$AGENT=trace=user,tracefile=/dev/null,verbose=n" -cp "$OUT" ProbeBench probe 200000 7 \
        "$OUT/go" >"$OUT/bpf.java" 2>/dev/null &
    local jp=$!
    for _ in $(seq 300); do grep -q 'PROBEBENCH ready' "$OUT/bpf.java" 2>/dev/null && break; sleep 0.1; done
    "$BPF" -p "$jp" -e 'usdt:*:Bench:tick { @n = count(); }' >"$OUT/bpf.out" 2>/dev/null &
    local bp=$!
    for _ in $(seq 300); do grep -q Attaching "$OUT/bpf.out" 2>/dev/null && break; sleep 0.1; done
    sleep 1
    touch "$OUT/go"
    wait "$jp" || true
    kill -INT "$bp" 2>/dev/null || true
    wait "$bp" || true
    sed -n 's/^PROBEBENCH mode=[a-z]* ns_per_call=\([0-9.]*\).*/\1/p' "$OUT/bpf.java"
}
plain=() bare=() idle=() traced=() bpf=()
for ((r = 1; r <= RUNS; r++)); do
    plain+=("$(run plain $N)")
    bare+=("$(run probe $N)")
    idle+=("$(run probe $N "trace=user,tracefile=/dev/null,verbose=n")")
    traced+=("$(run probe 2000000 "trace=probe,tracefile=$OUT/p.trace,verbose=n")")
    [[ -n $BPF ]] && bpf+=("$(run_bpf)")
    echo "[probe_cost] round $r: plain ${plain[-1]}, no agent ${bare[-1]}, nothing listening ${idle[-1]}," \
         "trace=probe ${traced[-1]}, bpftrace ${bpf[-1]:-n/a} ns per call" >&2
done
rm -f "$OUT/p.trace"
mp=$(median "${plain[@]}") mb=$(median "${bare[@]}") mi=$(median "${idle[@]}") mt=$(median "${traced[@]}")
mf=n/a
[[ ${#bpf[@]} -gt 0 ]] && mf=$(median "${bpf[@]}")
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — probe calls (bench/probe_cost.sh, RUNS=$RUNS)"
    echo
    echo "Machine: $(bench_cpu); agent $(bench_commit). ProbeBench: a loop calling a probe tick(int), median of 7 rounds per run, median of the runs."
    echo
    echo "| plain interface ns/call | probe, no agent | probe, agent, nothing listening | trace=probe ns/firing | bpftrace attached ns/firing |"
    echo "|---:|---:|---:|---:|---:|"
    echo "| $mp | $mb | $mi | $mt | $mf |"
} >>"$BENCH_DIR/RESULTS.md"
echo "probe call: nothing listening $mi ns (plain loop $mp, no agent $mb); trace=probe $mt ns per firing; bpftrace $mf ns per firing"
