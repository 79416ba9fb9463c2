#!/usr/bin/env bash
# The flame graph's timeline at a full default recording (record=y: one
# million samples in ten minutes, 2000 distinct stacks): build/tools/timeline_size
# writes the flame page (with its timeline) and the format=b file (with its
# SAMPLE TIMES) and times each; then RUNS (default 5) timings of `jvmprof
# flame FILE --from 100 --to 160` (a minute's window) and, when Chromium is
# there, of a headless Chromium that loads the page and redraws that minute
# (#range=100-160, the drag's handlers). Medians; appends to bench/RESULTS.md.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
JVMPROF=${JVMPROF:-$ROOT/build/jvmprof}
OUT=$BENCH_DIR/out/timeline
mkdir -p "$OUT"
sizes=$("$ROOT/build/tools/timeline_size" "$OUT" "$RUNS")
echo "$sizes" >&2
page_b=$(echo "$sizes" | awk '$1 == "flame-html" { print $2 }') page_s=$(echo "$sizes" | awk '$1 == "flame-html" { print $4 }')
bin_b=$(echo "$sizes" | awk '$1 == "hprof-binary" { print $2 }') bin_s=$(echo "$sizes" | awk '$1 == "hprof-binary" { print $4 }')
none_b=$(echo "$sizes" | awk '$1 == "without" { print $5 }') none_s=$(echo "$sizes" | awk '$1 == "without" { print $7 }')
cut=() chrome=()
for ((r = 1; r <= RUNS; r++)); do
    s=$(date +%s%N)
    "$JVMPROF" flame "$OUT/timeline.hprof" --from 100 --to 160 -o "$OUT/minute.html"
    cut+=("$(awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')")
    if command -v chromium >/dev/null 2>&1; then
        s=$(date +%s%N)
        timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$OUT/chrome" --window-size=1700,900 \
            --virtual-time-budget=5000 --dump-dom "file://$OUT/timeline.html#range=100-160" 2>/dev/null >"$OUT/minute.dom"
        chrome+=("$(awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')")
        grep -q 'data-samples="100000"' "$OUT/minute.dom" || { echo "timeline: the page's minute does not hold 100000 samples" >&2; exit 1; }
    fi
done
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — the flame graph's timeline (bench/timeline.sh, RUNS=$RUNS)"
    echo
    echo "Machine: $(bench_cpu); jvmprof $(bench_commit). A recording of 1,000,000 CPU samples over 10 minutes, 2000 distinct stacks of 12 frames (build/tools/timeline_size). Medians."
    echo
    echo "| what | bytes | seconds |"
    echo "|---|---:|---:|"
    echo "| flame page with its timeline (600 slices of 1 s), written | $page_b | $page_s |"
    echo "| the same page without the times, written | $none_b | $none_s |"
    echo "| format=b with SAMPLE TIMES, written | $bin_b | $bin_s |"
    echo "| jvmprof flame FILE --from 100 --to 160 (read, cut, page) | $(stat -c %s "$OUT/minute.html") | $(median "${cut[@]}") |"
    [ ${#chrome[@]} -eq 0 ] || echo "| headless Chromium: load the page, redraw 100..160 s (whole run) | | $(median "${chrome[@]}") |"
} >>"$BENCH_DIR/RESULTS.md"
echo "timeline: page $page_b bytes in $page_s s; format=b $bin_b bytes; --from/--to $(median "${cut[@]}") s"
