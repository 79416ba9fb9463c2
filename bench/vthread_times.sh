#!/usr/bin/env bash
# cpu=times' cost per timed call with virtual threads against the same calls
# on platform threads (issue 36's target: within 1.5x), on JDK 25
# (JDK25_HOME): workloads21/VThreadCallLoop.java runs 10,000 tasks of 2,000
# calls of leaf(), each parking 10 us every 200 calls, on a virtual thread
# each (which unmounts at each park and may resume on another carrier), or
# on as many platform threads as cores. RUNS (default 5) interleaved runs of
# each mode with no agent and with cpu=times,tiny=0 timing leaf(); each
# run's figure is the median round's process CPU ns per call, and its user-mode
# ns per call (the calls and the agent's work on them are user mode; the parks'
# futex and timer work is mostly kernel, and noisy on platform threads);
# medians of the runs, the cost cpu=times adds per call in each mode, and
# their ratio, by both measures.
# Appends to bench/RESULTS.md.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
AGENT=${AGENT:-$ROOT/build/libjvmprof.so}
JDK25_HOME=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
OUT=$BENCH_DIR/out/vthread_times
mkdir -p "$OUT"
[[ -f $AGENT ]] || { echo "vthread_times.sh: no agent at $AGENT (run make)" >&2; exit 2; }
[[ -x $JDK25_HOME/bin/javac ]] || { echo "vthread_times.sh: no JDK 25 at JDK25_HOME=$JDK25_HOME" >&2; exit 2; }
"$JDK25_HOME/bin/javac" -d "$OUT" "$BENCH_DIR/workloads21/VThreadCallLoop.java"
TASKS=10000 CALLS=2000 ROUNDS=4
run() { # mode [agent options] -> "CPU-ns user-ns" per call
    local opt=()
    [[ -n ${2:-} ]] && opt=("-agentpath:$AGENT=$2")
    "$JDK25_HOME/bin/java" "${opt[@]}" -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,VThreadCallLoop::leaf \
        -cp "$OUT" VThreadCallLoop "$1" $TASKS $CALLS $ROUNDS 2>/dev/null | sed -n 's/^VTCALLLOOP .* ns_per_call=\([0-9.]*\) user_ns_per_call=\([0-9.]*\).*/\1 \2/p'
}
TIMES="cpu=times,tiny=0,include=VThreadCallLoop,verbose=n,file=$OUT/report.txt"
vn=() vt=() pn=() pt=() uvn=() uvt=() upn=() upt=()
for ((r = 1; r <= RUNS; r++)); do
    read -r a b < <(run virtual); vn+=("$a"); uvn+=("$b")
    read -r a b < <(run virtual "$TIMES"); vt+=("$a"); uvt+=("$b")
    read -r a b < <(run platform); pn+=("$a"); upn+=("$b")
    read -r a b < <(run platform "$TIMES"); pt+=("$a"); upt+=("$b")
    echo "[vthread_times] round $r: virtual ${vn[-1]} -> ${vt[-1]} (user ${uvn[-1]} -> ${uvt[-1]}), platform ${pn[-1]} -> ${pt[-1]} (user ${upn[-1]} -> ${upt[-1]}) ns per call" >&2
done
sub() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", a - b}'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }
mvn=$(median "${vn[@]}") mvt=$(median "${vt[@]}") mpn=$(median "${pn[@]}") mpt=$(median "${pt[@]}")
umvn=$(median "${uvn[@]}") umvt=$(median "${uvt[@]}") umpn=$(median "${upn[@]}") umpt=$(median "${upt[@]}")
av=$(sub "$mvt" "$mvn") ap=$(sub "$mpt" "$mpn") uav=$(sub "$umvt" "$umvn") uap=$(sub "$umpt" "$umpn")
ratio=$(div "$av" "$ap") uratio=$(div "$uav" "$uap")
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — cpu=times per call, virtual against platform threads (bench/vthread_times.sh, RUNS=$RUNS)"
    echo
    echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $("$JDK25_HOME/bin/java" -version 2>&1 | head -1); agent $(bench_commit)."
    echo "VThreadCallLoop: $TASKS tasks x $CALLS calls of an out-of-line leaf(), a 10 us park every $((CALLS / 10)) calls; process CPU ns per call (and user-mode ns per call), median of $((ROUNDS - 1)) measured rounds per run; medians of the runs."
    echo
    echo "| mode | no agent ns/call | cpu=times,tiny=0 ns/call | added per call | user: no agent | user: cpu=times | user: added |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    echo "| 10,000 virtual threads | $mvn | $mvt | $av | $umvn | $umvt | $uav |"
    echo "| platform threads ($(nproc)) | $mpn | $mpt | $ap | $umpn | $umpt | $uap |"
    echo
    echo "Added per call, virtual / platform: ${ratio}x in process CPU, ${uratio}x in user-mode CPU (target: within 1.5x)."
} >>"$BENCH_DIR/RESULTS.md"
echo "cpu=times adds $av ns per call on virtual threads, $ap on platform threads: ${ratio}x (user mode: $uav and $uap, ${uratio}x)"
