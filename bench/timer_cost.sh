#!/bin/bash
# bench/timer_cost.sh — the CPU one sampling signal costs, by kind of timer (workloads/timer_cost.c): each kind
# runs at the same time as a run with no timer, both pinned to the same CPU; the difference in CPU (user+sys)
# over the signals taken is the cost of one. PAIRS=N pairs a kind (default 5); prints each pair and the median.
# Needs perf_event_open (root, or kernel.perf_event_paranoid <= 1) for kinds 1, 2 and 4.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
OUT=$BENCH_DIR/out/timer_cost
mkdir -p "$OUT"
cc -O2 -Wall -Wextra -Werror -o "$OUT/timer_cost" "$BENCH_DIR/workloads/timer_cost.c"
PAIRS=${PAIRS:-5} ITER=${ITER:-2000000000} CPU=${CPU:-1}
declare -A NAME=([1]="perf_event task clock + signal" [2]="perf_event task clock + signal + kernel callchain"
                 [3]="POSIX CPU timer + signal" [4]="perf_event task clock, no signal (interrupts only)")
echo "| timer (1 ms of CPU) | pairs | us of CPU per period (median) | each pair |"
echo "|---|---:|---:|---|"
for mode in 1 2 3 4; do
    per=()
    for ((i = 0; i < PAIRS; i++)); do
        taskset -c "$CPU" "$OUT/timer_cost" 0 "$ITER" >"$OUT/base" &
        taskset -c "$CPU" "$OUT/timer_cost" "$mode" "$ITER" >"$OUT/with"
        wait
        read -r _ bu bs _ _ <"$OUT/base"
        read -r _ wu ws sig _ <"$OUT/with"
        # mode 4 takes no signal: its periods are the CPU time over 1 ms
        periods=$sig
        ((mode == 4)) && periods=$(awk -v u="$wu" -v s="$ws" 'BEGIN { printf "%d", (u + s) * 1000 }')
        per+=("$(awk -v a="$wu" -v b="$ws" -v c="$bu" -v d="$bs" -v n="$periods" \
            'BEGIN { printf "%.1f", n ? ((a + b) - (c + d)) * 1e6 / n : 0 }')")
    done
    med=$(printf '%s\n' "${per[@]}" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
    echo "| ${NAME[$mode]} | $PAIRS | $med | ${per[*]} |"
done
