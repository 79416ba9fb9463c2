#!/usr/bin/env bash
# Converting collapsed stacks of one million distinct stacks to pprof
# (issue 22's target: at most 2x the time jvmprof flame takes on the same
# file): a generated file (depth 6, 1,000,000 distinct stacks), then RUNS
# (default 5) interleaved timings of `jvmprof flame FILE -o OUT.html` and
# `jvmprof convert FILE --pprof OUT.pb.gz` (wall and CPU seconds, max RSS),
# medians. Appends to bench/RESULTS.md.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
JVMPROF=${JVMPROF:-$ROOT/build/jvmprof}
OUT=$BENCH_DIR/out/pprof_convert
mkdir -p "$OUT"
python3 - "$OUT/big.collapsed" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1000000):
        a, b = i % 1000, i // 1000
        f.write("java.lang.Thread.run_[j];app.Server.loop_[j];app.Handler%d.handle_[j];app.Service%d.call_[i];"
                "app.Dao%d.query%d_[j];app.Util.m%d_[j] %d\n" % (a % 50, b % 40, a, b, (a * 7 + b) % 300, 1 + i % 5))
PY
timed() { # label command... -> "wall cpu rss"
    /usr/bin/time -f "%e %U %S %M" -o "$OUT/time.txt" "$@" >/dev/null
    awk '{ printf "%s %.2f %d\n", $1, $2 + $3, $4 }' "$OUT/time.txt"
}
fw=() fc=() pw=() pc=() frss=0 prss=0
for ((r = 1; r <= RUNS; r++)); do
    read -r w c rss < <(timed "$JVMPROF" flame "$OUT/big.collapsed" -o "$OUT/big.html")
    fw+=("$w") fc+=("$c") frss=$rss
    read -r w c rss < <(timed "$JVMPROF" convert "$OUT/big.collapsed" --pprof "$OUT/big.pb.gz")
    pw+=("$w") pc+=("$c") prss=$rss
    echo "[pprof_convert] run $r: flame ${fw[-1]} s, convert --pprof ${pw[-1]} s" >&2
done
mfw=$(median "${fw[@]}") mfc=$(median "${fc[@]}") mpw=$(median "${pw[@]}") mpc=$(median "${pc[@]}")
ratio=$(awk -v a="$mpw" -v b="$mfw" 'BEGIN { printf "%.2f", a / b }')
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — collapsed stacks to pprof (bench/pprof_convert.sh, RUNS=$RUNS)"
    echo
    echo "Machine: $(bench_cpu); jvmprof $(bench_commit). Input: $(stat -c %s "$OUT/big.collapsed") bytes, 1,000,000 distinct stacks of depth 6. Medians."
    echo
    echo "| command | wall s | CPU s | max RSS KB | output bytes |"
    echo "|---|---:|---:|---:|---:|"
    echo "| jvmprof flame | $mfw | $mfc | $frss | $(stat -c %s "$OUT/big.html") |"
    echo "| jvmprof convert --pprof | $mpw | $mpc | $prss | $(stat -c %s "$OUT/big.pb.gz") |"
    echo
    echo "convert --pprof / flame: $ratio (wall)"
} >>"$BENCH_DIR/RESULTS.md"
echo "1M stacks: flame $mfw s, convert --pprof $mpw s ($ratio x)"
