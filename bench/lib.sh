# bench/lib.sh — what the benchmark scripts share, sourced first: where they
# are (BENCH_DIR, ROOT), the JDK, RUNS (default 5), the median of numbers,
# and the machine and commit for RESULTS.md's lines.
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
JDK=${JDK:-/usr/lib/jvm/java-17-openjdk-amd64}
RUNS=${RUNS:-5}
# median N... : the middle one (the upper middle of an even count)
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
# "2 cores, AMD EPYC": the machine
bench_cpu() { echo "$(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"; }
# the commit measured
bench_commit() { git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'; }
