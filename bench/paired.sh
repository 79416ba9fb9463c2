#!/usr/bin/env bash
# bench/paired.sh — CPU overhead resolved to about a percent on a noisy virtual machine.
#
# On these VMs a vCPU's speed drifts: the same C loop run twice, one run after the other,
# differs by up to 8%, and run.sh's CPU ratios of whole JVMs spread 10–29% from round to
# round. Two processes pinned to the same CPU and run at the same time share whatever that
# CPU does (the scheduler interleaves them every few ms): the same C loop run that way
# differs by 0.3%. So here each configuration runs at the same time as a run without an
# agent, both pinned to one CPU (taskset), and its CPU time (user + sys) is divided by that
# run's: one paired ratio. Each round runs two such pairs at once, one on each of CPUs 0
# and 1 (the pair on CPU 1 started in the other order). The configuration `none` paired
# with `none` shows what the method resolves (its ratios' spread is the floor).
#
# Each JVM sees one CPU (the JVM sizes itself for it: Serial GC, fewer compiler threads);
# wall time is not a figure here (two programs share a CPU, and whichever ends first
# leaves it to the other), only CPU time. H2 runs with one worker (H2_ARGS): with four,
# how the workers interleave changes the work (its whole-database queries read what the
# others wrote so far), and the same run's CPU spreads 13% on its own.
#
# Environment (all optional):
#   AGENT=path        default build/libjvmprof.so
#   AP_LIB=path       async-profiler's library, for ap:OPTS configurations (bench/README.md)
#   RUNS=N            rounds of javac (default 5); each gives two pairs per configuration
#   H2_RUNS=N         rounds of H2 (default 8: its pairs spread more)
#   WORKLOADS="javac h2"
#   CONFIGS="none|cpu=samples,interval=10|cpu=samples,record=y|jfr" and, with AP_LIB,
#                     "|ap:event=cpu,interval=10ms" (as run.sh's CONFIGS)
#   H2_ARGS="1 8000 80000"   H2Load's threads, customers per thread, operations per thread
#   BASELINE=CONFIG   what each configuration is paired with (default none), e.g.
#                     jvm:-XX:Flags=FILE for what an agent adds beyond a VM flag it sets
#   RESULTS=path      default bench/RESULTS.md; RECORD=0 to not write it
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
OUT=$BENCH_DIR/out
RUNS=${RUNS:-5}
WORKLOADS=${WORKLOADS:-"javac h2"}
CONFIGS=${CONFIGS:-"none|cpu=samples,interval=10|cpu=samples,record=y|jfr${AP_LIB:+|ap:event=cpu,interval=10ms}"}
H2_ARGS=${H2_ARGS:-"1 8000 80000"}
H2_RUNS=${H2_RUNS:-8}
RESULTS=${RESULTS:-$BENCH_DIR/RESULTS.md}
BASELINE=${BASELINE:-none}
RECORD=${RECORD:-1}
H2_JAR=/usr/share/java/h2.jar
AGENT=${AGENT:-$ROOT/build/libjvmprof.so}
[[ $AGENT == /* ]] || AGENT=$PWD/$AGENT

log() { printf '[paired] %s\n' "$*" >&2; }
die() { printf '[paired] FAILED: %s\n' "$*" >&2; exit 1; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$RUNS')"
[[ $H2_RUNS =~ ^[1-9][0-9]*$ ]] || die "H2_RUNS must be a positive integer (got '$H2_RUNS')"
(($(nproc) >= 2)) || die "needs 2 CPUs (pairs run on CPUs 0 and 1); this machine has $(nproc)"
command -v taskset >/dev/null || die "needs taskset (Debian package util-linux)"
[[ -f $AGENT ]] || die "no agent at $AGENT (run make)"
if [[ "|$CONFIGS|" == *"|ap:"* ]]; then
    [[ -f ${AP_LIB:-} ]] || die "an ap:OPTS configuration needs AP_LIB=/path/to/libasyncProfiler.so (bench/README.md)"
fi
. "$BENCH_DIR/agent_opt.sh"

# run.sh prepares the javac workload (sources from src.zip, the list of files); one short run does it
if [[ " $WORKLOADS " == *" javac "* && ! ( -s $OUT/javac-files.txt && -s $OUT/javac-expected-classes.txt ) ]]; then
    log "preparing javac's sources with run.sh"
    WORKLOADS=javac CONFIGS=none RUNS=1 WARMUP=0 STARTUP=0 RECORD=0 "$BENCH_DIR/run.sh" >/dev/null
fi
if [[ " $WORKLOADS " == *" h2 "* && ! -f $H2_JAR ]]; then die "$H2_JAR missing (Debian package libh2-java; run.sh installs it)"; fi
mkdir -p "$OUT/classes"
"$JDK/bin/javac" -d "$OUT/classes" -nowarn "$BENCH_DIR/workloads/H2Load.java"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/jvmprof-paired.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
RAW=$OUT/paired-last-run.csv
echo "workload,config,round,cpu,config_cpu_seconds,baseline_cpu_seconds,config_sys_seconds,baseline_sys_seconds" >"$RAW"

# one WL CFG CPU TAG: one run of the workload with the configuration, pinned to CPU; its
# CPU seconds go to $TMP/TAG.cpu. Checks what the run produced.
one() {
    local wl=$1 cfg=$2 cpu=$3 tag=$4 opt rc=0
    local report=$TMP/$tag.report.txt
    opt=$(agent_opt "$cfg" "$report")
    local j=()
    case $wl in
        javac)
            [[ -n $opt ]] && j=("-J$opt")
            rm -rf "$TMP/$tag.out" && mkdir -p "$TMP/$tag.out"
            taskset -c "$cpu" "$BENCH_DIR/timeit.py" "$TMP/$tag.time" -- "$JDK/bin/javac" "${j[@]}" \
                --patch-module "java.base=$OUT/javac-src/java.base" -d "$TMP/$tag.out" -proc:none -nowarn \
                -XDsuppressNotes -XDignore.symbol.file -implicit:none "@$OUT/javac-files.txt" >"$TMP/$tag.log" 2>&1 || rc=$?
            ((rc == 0)) || { tail -20 "$TMP/$tag.log" >&2; die "javac ($cfg) exited with status $rc"; }
            # run.sh's list of the class files every source gives (made as it prepared the sources)
            local missing
            missing=$(cd "$TMP/$tag.out" && find . -name '*.class' | sed 's|^\./||' | LC_ALL=C sort |
                LC_ALL=C comm -23 "$OUT/javac-expected-classes.txt" - | head -5)
            [[ -z $missing ]] || die "javac ($cfg) exited 0 but class files are missing, e.g.: ${missing//$'\n'/ }"
            rm -rf "$TMP/$tag.out" ;;
        h2)
            [[ -n $opt ]] && j=("$opt")
            # shellcheck disable=SC2086 # H2_ARGS is split on purpose
            taskset -c "$cpu" "$BENCH_DIR/timeit.py" "$TMP/$tag.time" -- "$JDK/bin/java" "${j[@]}" \
                -cp "$OUT/classes:$H2_JAR" H2Load $H2_ARGS >"$TMP/$tag.log" 2>&1 || rc=$?
            ((rc == 0)) || { tail -20 "$TMP/$tag.log" >&2; die "H2Load ($cfg) exited with status $rc"; }
            grep -q '^H2LOAD OK ' "$TMP/$tag.log" || die "H2Load ($cfg) printed no 'H2LOAD OK' line" ;;
    esac
    if [[ $cfg != none && $cfg != jvm:* && $cfg != "$BASELINE" ]]; then
        [[ -s $(report_of "$cfg" "$report") ]] || die "$cfg wrote no report on $wl"
        rm -f "$(report_of "$cfg" "$report")"
    fi
    awk '{ printf "%.3f %.3f %.3f\n", $2 + $3, $2, $3 }' "$TMP/$tag.time" >"$TMP/$tag.cpu"
}

# pair WL CFG CPU FIRST: CFG and BASELINE at the same time on CPU; FIRST=cfg or none (the baseline) starts first
pair() {
    local wl=$1 cfg=$2 cpu=$3 first=$4
    if [[ $first == cfg ]]; then
        one "$wl" "$cfg" "$cpu" "c$cpu" & local p1=$!
        one "$wl" "$BASELINE" "$cpu" "n$cpu" & local p2=$!
    else
        one "$wl" "$BASELINE" "$cpu" "n$cpu" & local p2=$!
        one "$wl" "$cfg" "$cpu" "c$cpu" & local p1=$!
    fi
    wait "$p1" || return 1
    wait "$p2" || return 1
}

IFS='|' read -r -a CFG <<<"$CONFIGS"
START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
for wl in $WORKLOADS; do
    [[ $wl == javac || $wl == h2 ]] || die "unknown workload '$wl' (known: javac h2)"
    rounds=$RUNS
    [[ $wl == h2 ]] && rounds=$H2_RUNS
    for ((r = 1; r <= rounds; r++)); do
        for cfg in "${CFG[@]}"; do
            [[ -n $cfg ]] || continue
            first=cfg second=none
            ((r % 2)) || { first=none second=cfg; }
            pair "$wl" "$cfg" 0 "$first" & p0=$!
            pair "$wl" "$cfg" 1 "$second" & p1=$!
            wait "$p0" || die "a run on CPU 0 failed"
            wait "$p1" || die "a run on CPU 1 failed"
            for cpu in 0 1; do
                read -r c _ cs <"$TMP/c$cpu.cpu"
                read -r n _ ns <"$TMP/n$cpu.cpu"
                echo "$wl,\"$cfg\",$r,$cpu,$c,$n,$cs,$ns" >>"$RAW"
                log "$wl round $r/$rounds cpu $cpu: $cfg $c s (sys $cs), $BASELINE $n s (sys $ns), ratio $(awk -v a="$c" -v b="$n" 'BEGIN { printf "%.4f", a / b }')"
            done
        done
    done
done
ELAPSED=$(($(date +%s) - START))
WL_DESC=
[[ " $WORKLOADS " == *" javac "* ]] && WL_DESC+=" javac: run.sh's workload ($(wc -l <"$OUT/javac-files.txt") files of java.base)."
[[ " $WORKLOADS " == *" h2 "* ]] && WL_DESC+=" H2: H2Load \"$H2_ARGS\" (threads, customers/thread, ops/thread)."

TABLE=$(python3 - "$RAW" "$BASELINE" <<'EOF'
import csv, statistics, sys
# two-sided 95% quantiles of Student's t by degrees of freedom (1..30), then the normal's
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
       2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
rows = {}
for r in csv.DictReader(open(sys.argv[1])):
    rows.setdefault((r["workload"], r["config"]), []).append((float(r["config_cpu_seconds"]), float(r["baseline_cpu_seconds"]),
                                                              float(r["config_sys_seconds"]), float(r["baseline_sys_seconds"])))
base = "no agent" if sys.argv[2] == "none" else "`%s`" % sys.argv[2]
print("| workload | config | pairs | CPU s (median) | " + base + ": CPU s (median) | paired CPU ratio: median | mean | 95% interval of the mean | sd of one pair | of the CPU, sys s (median): config / baseline |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for (wl, cfg), v in rows.items():
    ratios = [x[0] / x[1] for x in v]
    n = len(ratios)
    mean = statistics.fmean(ratios)
    sd = statistics.stdev(ratios) if n > 1 else 0.0
    half = (T95[n - 2] if n - 1 <= 30 else 1.96) * sd / n ** 0.5 if n > 1 else float("nan")
    print("| %s | `%s` | %d | %.2f | %.2f | %.4f | %.4f | %.4f .. %.4f | %.1f%% | %.3f / %.3f |" % (
        wl, cfg, n, statistics.median(x[0] for x in v), statistics.median(x[1] for x in v),
        statistics.median(ratios), mean, mean - half, mean + half, 100 * sd,
        statistics.median(x[2] for x in v), statistics.median(x[3] for x in v)))
EOF
)
echo "$TABLE"
if [[ $RECORD == 1 ]]; then
    {
        echo
        echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — paired CPU overhead (bench/paired.sh, RUNS=$RUNS, H2_RUNS=$H2_RUNS)"
        echo
        echo "Machine: $(bench_cpu), $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo); load average $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; $("$JDK/bin/java" -version 2>&1 | head -1); agent $(bench_commit); ${ELAPSED} s."
        if [[ "|$CONFIGS|" == *"|ap:"* ]]; then echo "async-profiler: \`$AP_LIB\`."; fi
        echo "Each configuration ran at the same time as a run of \`$BASELINE\` (none: no agent), both pinned to one CPU (each JVM sees one CPU); CPU time (user + sys) of the configuration's run / that run's; two pairs a round (CPUs 0 and 1). The baseline against itself shows the method's own spread. Wall time is not a figure of this method.$WL_DESC"
        echo
        echo "$TABLE"
    } >>"$RESULTS"
fi
