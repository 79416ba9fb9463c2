#!/usr/bin/env bash
# Issue 38's naming target: on a JNI-heavy workload (bench/workloads/JniHeavy.java
# and jniheavy.c: a C hash, libc's qsort and memcpy, zlib through java.util.zip),
# the share of cpu=samples' samples (cstack=mixed) that hold a native
# frame without a symbol, where symbols exist: in a library with a full symbol
# table (.symtab, its own or a separate debug file's). Frames of stripped libraries
# (Debian's libz.so.1 keeps only its exported functions, and no debug file for it
# is installed) are counted apart. RUNS (default 5) runs; each run's figures from
# the report's COUNTS; the median share. Also the handler's cost per signal with
# cstack=mixed and cstack=java, from the verbose line, interleaved.
# Appends to bench/RESULTS.md.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
AGENT=${AGENT:-$ROOT/build/libjvmprof.so}
OUT=$BENCH_DIR/out/native_names
mkdir -p "$OUT"
[[ -f $AGENT ]] || { echo "native_names.sh: no agent at $AGENT (run make)" >&2; exit 2; }
"$JDK/bin/javac" -d "$OUT" "$BENCH_DIR/workloads/JniHeavy.java"
${CC:-cc} -std=c11 -O2 -g -fPIC -shared -Wall -Wextra -Werror -isystem "$JDK/include" -isystem "$JDK/include/linux" \
    -o "$OUT/libjniheavy.so" "$BENCH_DIR/workloads/jniheavy.c"
count() { sed -n "s/^$1 \([0-9]*\)$/\1/p" "$2"; }
cost() { sed -n 's/.*signal handlers .* signals (\([0-9.]*\) us each.*/\1/p' "$1"; }
shares=() all=() mixed=() javac=()
for ((r = 1; r <= RUNS; r++)); do
    "$JDK/bin/java" "-agentpath:$AGENT=cpu=samples,cstack=mixed,file=$OUT/r.txt" -cp "$OUT" JniHeavy "$OUT/libjniheavy.so" 500 2 \
        >/dev/null 2>"$OUT/err.txt"
    n=$(count "samples with native frames (cstack=)" "$OUT/r.txt")
    u=$(count "samples with a native frame without a symbol" "$OUT/r.txt")
    s=$(count "  of which in a library with a full symbol table" "$OUT/r.txt")
    t=$(sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\)).*/\1/p' "$OUT/r.txt")
    shares+=("$(awk -v a="$s" -v b="$t" 'BEGIN {printf "%.2f", b ? 100 * a / b : 0}')")
    all+=("$(awk -v a="$u" -v b="$t" 'BEGIN {printf "%.1f", b ? 100 * a / b : 0}')")
    mixed+=("$(cost "$OUT/err.txt")")
    "$JDK/bin/java" "-agentpath:$AGENT=cpu=samples,cstack=java,file=$OUT/j.txt" -cp "$OUT" JniHeavy "$OUT/libjniheavy.so" 500 2 \
        >/dev/null 2>"$OUT/errj.txt"
    javac+=("$(cost "$OUT/errj.txt")")
    echo "[native_names] run $r: $t samples, $n with native frames, $u with an unnamed frame ($s in a library with a full symbol table); handler ${mixed[-1]} us (cstack=java ${javac[-1]} us)" >&2
done
ms=$(median "${shares[@]}") ma=$(median "${all[@]}") mm=$(median "${mixed[@]}") mj=$(median "${javac[@]}")
{
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — unnamed native frames on a JNI-heavy workload (bench/native_names.sh, RUNS=$RUNS)"
    echo
    echo "Machine: $(bench_cpu), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $("$JDK/bin/java" -version 2>&1 | head -1); agent $(bench_commit)."
    echo "JniHeavy 500 rounds x 2 threads, cpu=samples (cstack=mixed) at 10 ms."
    echo
    echo "| measure | median of $RUNS runs |"
    echo "|---|---:|"
    echo "| samples with a frame unnamed in a library that has a full symbol table | ${ms}% (target <= 1%) |"
    echo "| samples with an unnamed frame in any library (stripped libz.so.1's internal functions included) | ${ma}% |"
    echo "| signal handler per sample, cstack=mixed | ${mm} us |"
    echo "| signal handler per sample, cstack=java | ${mj} us |"
} >>"$BENCH_DIR/RESULTS.md"
echo "unnamed where symbols exist: ${ms}% (all: ${ma}%); handler ${mm} us mixed, ${mj} us java"
