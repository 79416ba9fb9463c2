#!/usr/bin/env bash
# What net= adds to profiling (issue 21's target: <= 1% over writing the
# files locally, on javac with cpu=samples): a jvmprof serve on a free port
# of 127.0.0.1, then bench/run.sh's javac workload with no agent,
# cpu=samples, and cpu=samples,net=127.0.0.1:PORT, interleaved (RUNS, default
# 5). bench/run.sh prints the table and appends it to bench/RESULTS.md (wall
# and CPU ratios to no agent); this script checks that serve received every
# run's report.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
JVMPROF=${JVMPROF:-$ROOT/build/jvmprof}
OUT=$BENCH_DIR/out/net_cost
rm -rf "$OUT" && mkdir -p "$OUT/srv"
"$JVMPROF" serve --listen 0 --dir "$OUT/srv" 2>"$OUT/serve.log" &
SPID=$!
trap 'kill "$SPID" 2>/dev/null || true' EXIT
PORT=""
for _ in $(seq 100); do
    PORT=$(sed -n 's/^jvmprof serve: listening on 127\.0\.0\.1:\([0-9]*\), .*/\1/p' "$OUT/serve.log")
    [[ -n $PORT ]] && break
    sleep 0.05
done
[[ -n $PORT ]] || { echo "net_cost.sh: serve did not start: $(cat "$OUT/serve.log")" >&2; exit 1; }
WORKLOADS=javac STARTUP=0 CONFIGS="none|cpu=samples|cpu=samples,net=127.0.0.1:$PORT" "$BENCH_DIR/run.sh"
done_runs=$(grep -c 'done (files [1-9]' "$OUT/serve.log" || true)
echo "net_cost: serve received the files of $done_runs runs (one for each net= run)"
