#!/usr/bin/env bash
# What cpu=times adds to one timed call, and to one counted call, on a tight
# call loop (workloads/CallLoop.java): RUNS (default 5) interleaved runs with
# no agent, with cpu=times,tiny=0 timing only CallLoop (leaf() timed), and
# with cpu=times (by default leaf(), a straight-line leaf, is counted), medians of each run's
# nanoseconds per call, and the differences. Also the cost of one read of the
# clock jvmprof uses (the time-stamp counter) on this machine, measured in C,
# since two of them per call are the floor. Appends to bench/RESULTS.md.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
AGENT=${AGENT:-$ROOT/build/libjvmprof.so}
OUT=$BENCH_DIR/out/times_cost
mkdir -p "$OUT"
[[ -f $AGENT ]] || { echo "times_cost.sh: no agent at $AGENT (run make)" >&2; exit 2; }
"$JDK/bin/javac" -d "$OUT" "$BENCH_DIR/workloads/CallLoop.java"
cc -O2 -o "$OUT/tsc_cost" -x c - <<'C'
#include <stdio.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif
int main(void)
{
#if defined(__x86_64__)
    struct timespec a, b;
    unsigned long long s = 0;
    const int n = 50000000;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++)
        s += __rdtsc();
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.2f %llu\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n, s & 1);
#else
    printf("- 0\n");
#endif
    return 0;
}
C
read -r tsc _ < <("$OUT/tsc_cost")
run() { # [agent option] -> ns per call
    local opt=()
    [[ -n ${1:-} ]] && opt=("-agentpath:$AGENT=$1")
    "$JDK/bin/java" "${opt[@]}" -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,CallLoop::leaf \
        -cp "$OUT" CallLoop 2>/dev/null | sed -n 's/^CALLLOOP ns_per_call=\([0-9.]*\).*/\1/p'
}
none=() timed=() counted=()
for ((r = 1; r <= RUNS; r++)); do
    none+=("$(run)")
    timed+=("$(run "cpu=times,tiny=0,include=CallLoop,verbose=n,file=$OUT/report.txt")")
    counted+=("$(run "cpu=times,include=CallLoop,verbose=n,file=$OUT/counted.txt")")
    echo "[times_cost] round $r: none ${none[-1]} ns, timed ${timed[-1]} ns, counted ${counted[-1]} ns per call" >&2
done
grep -q '^CALLS COUNTED BEGIN' "$OUT/counted.txt" || { echo "times_cost.sh: leaf() was not counted" >&2; exit 1; }
mn=$(median "${none[@]}") mt=$(median "${timed[@]}") mc=$(median "${counted[@]}")
added=$(awk -v a="$mt" -v b="$mn" 'BEGIN {printf "%.2f", a - b}')
cadded=$(awk -v a="$mc" -v b="$mn" 'BEGIN {printf "%.2f", a - b}')
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — cpu=times per timed call (bench/times_cost.sh, RUNS=$RUNS)"
    echo
    echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); agent $(bench_commit)."
    echo "CallLoop: a loop calling an out-of-line leaf() 50 million times a round, median of 6 measured rounds per run; medians of the runs."
    echo
    echo "| no agent ns/call | cpu=times,tiny=0 ns/call | added per timed call | cpu=times (leaf counted) ns/call | added per counted call | one time-stamp counter read (C loop) |"
    echo "|---:|---:|---:|---:|---:|---:|"
    echo "| $mn | $mt | $added | $mc | $cadded | $tsc |"
} >>"$BENCH_DIR/RESULTS.md"
echo "cpu=times adds $added ns per timed call (no agent $mn, with $mt), $cadded ns per counted call ($mc); one rdtsc: $tsc ns"
