#!/usr/bin/env bash
# What exact allocation counting costs before jvmprof does anything: javac
# (java/text, java/math, java/time: 139 files) with no agent, with the minimal
# agent of bench/alloc_floor.c in its four modes (sampler at interval 0 with
# an empty callback; + a 4-frame stack; + a tag; the stack and a weak
# reference until the first collection, a tag after it), and with jvmprof's
# exact mode, side by side. Appends to bench/RESULTS.md like bench/run.sh.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
export FLOOR_AGENT=${FLOOR_AGENT:-$ROOT/build/tools/alloc_floor.so}
[[ -f $FLOOR_AGENT ]] || make -C "$ROOT" -s build/tools/alloc_floor.so
export RUNS=${RUNS:-5} STARTUP=0 WORKLOADS=javac
export JAVAC_PKGS=${JAVAC_PKGS:-"java/text java/math java/time"}
export CONFIGS=${CONFIGS:-"none|floor=0|floor=1|floor=2|floor=3|heap=sites,alloc_interval=0"}
exec "$BENCH_DIR/run.sh"
