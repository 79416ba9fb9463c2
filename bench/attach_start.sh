#!/usr/bin/env bash
# How long `jvmprof start PID` takes on a JVM with 20,000 classes loaded
# (issue 21's target: <= 1 s for cpu=samples; the time for cpu=times, which
# retransforms the loaded classes, is reported): ManyClasses loads 20,000
# of the JDK's classes and loops; then, timed by the wall clock around the
# command: the first start (the library loaded and made ready) with
# cpu=samples, stop; cpu=times (every loaded class instrumentable), stop;
# cpu=times,include=ManyClasses (one class), stop. RUNS (default 5) JVMs,
# medians. Appends to bench/RESULTS.md.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
JVMPROF=${JVMPROF:-$ROOT/build/jvmprof}
OUT=$BENCH_DIR/out/attach_start
mkdir -p "$OUT"
[[ -x $JVMPROF ]] || { echo "attach_start.sh: no $JVMPROF (run make)" >&2; exit 2; }
"$JDK/bin/javac" -d "$OUT" "$BENCH_DIR/workloads/ManyClasses.java"
ms() { # command... -> wall ms
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
samples=() times=() narrow=() classes=""
for ((r = 1; r <= RUNS; r++)); do
    "$JDK/bin/java" -cp "$OUT" ManyClasses 20000 >"$OUT/j.out" 2>&1 &
    jp=$!
    for _ in $(seq 600); do grep -q 'MANYCLASSES ready' "$OUT/j.out" && break; sleep 0.1; done
    classes=$(sed -n 's/^MANYCLASSES ready //p' "$OUT/j.out")
    samples+=("$(ms "$JVMPROF" start "$jp" "cpu=samples,file=$OUT/a.txt")")
    "$JVMPROF" stop "$jp" >/dev/null
    times+=("$(ms "$JVMPROF" start "$jp" "cpu=times,file=$OUT/b.txt")")
    "$JVMPROF" stop "$jp" >/dev/null
    narrow+=("$(ms "$JVMPROF" start "$jp" "cpu=times,include=ManyClasses,file=$OUT/c.txt")")
    "$JVMPROF" stop "$jp" >/dev/null
    kill "$jp"
    wait "$jp" 2>/dev/null || true
    echo "[attach_start] run $r: $classes classes; start cpu=samples ${samples[-1]} ms, cpu=times ${times[-1]} ms," \
         "cpu=times,include=ManyClasses ${narrow[-1]} ms" >&2
done
ms_=$(median "${samples[@]}") mt=$(median "${times[@]}") mn=$(median "${narrow[@]}")
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — jvmprof start on a running JVM (bench/attach_start.sh, RUNS=$RUNS)"
    echo
    echo "Machine: $(bench_cpu); agent $(bench_commit). ManyClasses: $classes classes loaded. Wall time of the command, median of the runs."
    echo
    echo "| start cpu=samples (first attach) ms | start cpu=times ms | start cpu=times,include=ManyClasses ms |"
    echo "|---:|---:|---:|"
    echo "| $ms_ | $mt | $mn |"
} >>"$BENCH_DIR/RESULTS.md"
echo "jvmprof start with $classes classes: cpu=samples $ms_ ms, cpu=times $mt ms, cpu=times on one class $mn ms"
