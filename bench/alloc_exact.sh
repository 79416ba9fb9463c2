#!/usr/bin/env bash
# Exact allocation counting (heap=sites,alloc_interval=0) against no agent,
# with each of its two hooks (the JVMTI sampler at interval 0, and bytecode
# instrumentation), side by side. Every allocation costs a stack trace and a
# tag, so the inputs are smaller than bench/run.sh's: javac compiles
# java/text, java/math and java/time (139 files), and H2Load runs a quarter
# of its default load. Appends to bench/RESULTS.md like bench/run.sh.
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export RUNS=${RUNS:-5} STARTUP=0
export JAVAC_PKGS=${JAVAC_PKGS:-"java/text java/math java/time"}
export H2_ARGS=${H2_ARGS:-"4 500 2500"}
export CONFIGS=${CONFIGS:-"none|heap=sites,alloc_interval=0|heap=sites,alloc_interval=0,alloc_hook=bci"}
exec "$BENCH_DIR/run.sh"
