#!/usr/bin/env bash
# rewrite.sh — the class-file rewriter's cost per class over all of the
# JDK's own classes (bench/rewrite_cost.c), RUNS times (default 5); each run
# reports the median of 5 rounds over all classes. Prints the runs and their
# median, and appends them to bench/RESULTS.md (RECORD=0: don't). The tool is
# pinned to one CPU (taskset): the rewriter runs on one thread, and on these
# 2-CPU VMs a process the scheduler moves between CPUs ran up to twice as slow.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
TOOL="$ROOT/build/tools/rewrite_cost"
[ -x "$TOOL" ] || { echo "rewrite.sh: $TOOL missing (make bench builds it)" >&2; exit 1; }
DIR=$("$ROOT/tools/jdk-classes.sh") || { echo "rewrite.sh: cannot extract the JDK's classes" >&2; exit 1; }
times=() alls=() lines=()
for ((i = 1; i <= RUNS; i++)); do
    line=$(taskset -c 0 "$TOOL" "$DIR" 5) || { echo "rewrite.sh: $line" >&2; exit 1; }
    echo "[bench] rewrite run $i/$RUNS: $line"
    lines+=("$line")
    times+=("$(sed -E 's/.*rounds: ([0-9.]+) us\/class \(cpu=times.*/\1/' <<<"$line")")
    alls+=("$(sed -E 's/.*, ([0-9.]+) us\/class \(every.*/\1/' <<<"$line")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mt=$(median "${times[@]}") ma=$(median "${alls[@]}")
n=$(sed -E 's/rewrite cost: ([0-9]+) classes.*/\1/' <<<"${lines[0]}")
summary="rewrite cost over the JDK's $n classes: median of $RUNS runs $mt us/class with cpu=times' rules (runs: ${times[*]}), $ma us/class with every call in every method (runs: ${alls[*]})"
echo "[bench] $summary"
if [ "${RECORD:-1}" != 0 ]; then
    {
        echo
        echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — class-file rewriter, RUNS=$RUNS"
        echo
        echo "- Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); repo commit $(git -C "$ROOT" rev-parse --short HEAD)"
        echo "- Tool: \`build/tools/rewrite_cost\` (bench/rewrite_cost.c), pinned to CPU 0: all classes in memory, only \`cf_rewrite\` timed, median of 5 rounds per run"
        echo "- $summary"
    } >>"$ROOT/bench/RESULTS.md"
fi
