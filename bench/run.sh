#!/usr/bin/env bash
# Overhead benchmark for the jvmprof JVMTI agent (what `make bench` runs).
#
# Measures wall time of three workloads (javac compiling JDK sources, the H2
# database under a multithreaded JDBC load, and JniHeavy, whose CPU is mostly in
# native code: its own JNI library, libc and zlib) without the agent and with
# each agent configuration, interleaved round by round, plus JVM start-up cost.
# Prints a table and appends a dated section to bench/RESULTS.md.
#
# Environment (all optional):
#   AGENT=path/to/libjvmprof.so   default: build/libjvmprof.so (relative to the repo root)
#   RUNS=N                        measured runs per workload and config (default 5)
#   WORKLOADS="javac h2 jni"      which workloads to run (default all three; "" = start-up only)
#   CONFIGS="none|cpu=samples,interval=10|cpu=samples,interval=1|jfr|monitor=y|cpu=times"
#                                 '|'-separated agent option strings; "none" = no agent;
#                                 "jfr" = no agent but JDK Flight Recorder's default recording
#                                 (-XX:StartFlightRecording, settings=default), "jfr-profile" = its
#                                 profile settings, both dumped to a file at exit.
#                                 "jvm:OPTION" = no agent, one more JVM option (e.g. -XX:Flags=FILE).
#                                 "floor=N" = not jvmprof but $FLOOR_AGENT (bench/alloc_floor.c) in mode N.
#                                 "base:OPTS" = OPTS given to $BASE_AGENT, another build of the agent
#                                 (e.g. of the previous commit), for a before/after comparison in one run;
#                                 BASE_DESC says what it is, in RESULTS.md.
#                                 "ap:OPTS" = not jvmprof but async-profiler, $AP_LIB (its
#                                 libasyncProfiler.so, built by hand: bench/README.md), given
#                                 start,OPTS,file=<tmp>/report....ap.out (e.g. ap:event=cpu,interval=10ms);
#                                 refused when AP_LIB is unset or not a file.
#                                 ",file=<tmp>/report.txt" is appended to each
#                                 (",tracefile=<tmp>/report.txt.trace" to trace= alone).
#   STARTUP=1                     measure start-up cost (0 to skip)
#   STARTUP_RUNS=N                measured start-up runs per config (default 30, interleaved;
#                                 STARTUP_WARMUP=3 unmeasured rounds first)
#   STARTUP_CONFIGS="none|cpu=samples|-"
#                                 as CONFIGS; "-" = -agentpath without any options
#   WARMUP=1                      unmeasured warm-up runs (config none) per workload
#   JAVAC_PKGS="java/util ..."    JDK packages (with sub-packages) of java.base to compile
#   H2_ARGS="4 2000 10000"        H2Load arguments: threads customersPerThread opsPerThread
#   JNI_ARGS="1000 2"             JniHeavy arguments: rounds per thread, threads (its library,
#                                 bench/workloads/jniheavy.c, is built into bench/out/libjniheavy.so)
#   RESULTS=path                  results file (default bench/RESULTS.md); RECORD=0 to not write it
#   BENCH_JAVA_HOME=dir           JDK to use (default /usr/lib/jvm/java-17-openjdk-amd64,
#                                 else the one javac on PATH belongs to)
#   KEEP_TMP=1                    keep the temp dir (agent reports) and print its path
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
OUT="$BENCH_DIR/out"

RUNS=${RUNS:-5}
WORKLOADS=${WORKLOADS-"javac h2 jni"}
CONFIGS=${CONFIGS:-"none|cpu=samples,interval=10|cpu=samples,interval=1|jfr|monitor=y|cpu=times"}
STARTUP=${STARTUP:-1}
STARTUP_RUNS=${STARTUP_RUNS:-30}
STARTUP_WARMUP=${STARTUP_WARMUP:-3}
STARTUP_CONFIGS=${STARTUP_CONFIGS:-"none|cpu=samples|-"}
WARMUP=${WARMUP:-1}
JAVAC_PKGS=${JAVAC_PKGS:-"java/util java/io java/time java/text java/math java/net java/security"}
H2_ARGS=${H2_ARGS:-"4 2000 10000"}
JNI_ARGS=${JNI_ARGS:-"1000 2"}
RESULTS=${RESULTS:-"$BENCH_DIR/RESULTS.md"}
RECORD=${RECORD:-1}
KEEP_TMP=${KEEP_TMP:-0}

SRC_ZIP=/usr/lib/jvm/openjdk-17/src.zip
H2_JAR=/usr/share/java/h2.jar

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] FAILED: %s\n' "$*" >&2; exit 1; }

[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$RUNS')"
[[ "$STARTUP_RUNS" =~ ^[1-9][0-9]*$ ]] || die "STARTUP_RUNS must be a positive integer"
[[ "$STARTUP_WARMUP" =~ ^[0-9]+$ ]] || die "STARTUP_WARMUP must be a non-negative integer"
[[ "$WARMUP" =~ ^[0-9]+$ ]] || die "WARMUP must be a non-negative integer"

# ---------------------------------------------------------------- prerequisites
SUDO=
if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null; then SUDO=sudo; fi
apt_install() {
    log "installing missing packages: $*"
    export DEBIAN_FRONTEND=noninteractive
    if ! $SUDO apt-get install -y "$@"; then
        log "apt-get install failed; running apt-get update and retrying"
        $SUDO apt-get update
        $SUDO apt-get install -y "$@"
    fi
}
if [[ -n ${BENCH_JAVA_HOME:-} ]]; then
    JDK=$BENCH_JAVA_HOME
elif [[ -x /usr/lib/jvm/java-17-openjdk-amd64/bin/javac ]]; then
    JDK=/usr/lib/jvm/java-17-openjdk-amd64
else
    JDK=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
fi
JAVA="$JDK/bin/java"
JAVAC="$JDK/bin/javac"
[[ -x $JAVA && -x $JAVAC ]] || die "no java/javac in $JDK"
JAVA_VERSION=$("$JAVA" -version 2>&1 | head -1)
JDK_FEATURE=$(sed -n 's/^[^"]*"\([0-9]*\).*/\1/p' <<<"$JAVA_VERSION")
# javac compiles the sources of the JDK it runs on: Debian's for 17, the JDK's own lib/src.zip otherwise
if [[ $JDK_FEATURE != 17 ]]; then
    [[ -f $JDK/lib/src.zip ]] || die "$JAVA_VERSION: javac's workload needs its own sources, and $JDK/lib/src.zip is missing"
    SRC_ZIP=$JDK/lib/src.zip
fi

missing=()
[[ -f $SRC_ZIP ]] || missing+=(openjdk-17-source)
[[ -f $H2_JAR ]] || missing+=(libh2-java)
command -v unzip >/dev/null || missing+=(unzip)
command -v python3 >/dev/null || missing+=(python3)
if ((${#missing[@]})); then apt_install "${missing[@]}"; fi
[[ -f $SRC_ZIP ]] || die "$SRC_ZIP still missing after installing openjdk-17-source"
[[ -f $H2_JAR ]] || die "$H2_JAR still missing after installing libh2-java"

# ---------------------------------------------------------------- agent
AGENT=${AGENT:-build/libjvmprof.so}
if [[ $AGENT != /* ]]; then
    # relative paths: to the caller's directory if the file is there, else to the repo root
    if [[ -e $AGENT ]]; then AGENT="$PWD/$AGENT"; else AGENT="$ROOT/$AGENT"; fi
fi
HAVE_AGENT=0
if [[ -f $AGENT ]]; then
    HAVE_AGENT=1
    AGENT=$(readlink -f "$AGENT")
fi

split_configs() { # "a|b|c" -> one per line, agent configs dropped when there is no agent
    local IFS='|' c
    for c in $1; do
        [[ -z $c ]] && continue
        if [[ $c != none && $c != jfr* && $c != ap:* && $HAVE_AGENT == 0 ]]; then continue; fi
        printf '%s\n' "$c"
    done
}
mapfile -t CFG < <(split_configs "$CONFIGS")
mapfile -t SCFG < <(split_configs "$STARTUP_CONFIGS")
if [[ $HAVE_AGENT == 0 ]]; then
    log "NOTE: agent $AGENT does not exist (build it with 'make')."
    log "NOTE: skipping all agent configurations; measuring only 'none'."
fi
((${#CFG[@]})) || die "no configurations to run (CONFIGS='$CONFIGS')"
# ap:OPTS: async-profiler, a peer built by hand outside the repo (bench/README.md)
AP_DESC=
if [[ "|$CONFIGS|$STARTUP_CONFIGS|" == *"|ap:"* ]]; then
    [[ -n ${AP_LIB:-} ]] || die "an ap:OPTS configuration needs AP_LIB=/path/to/libasyncProfiler.so (how to build it: bench/README.md)"
    [[ -f $AP_LIB ]] || die "AP_LIB=$AP_LIB: no such file (build async-profiler as bench/README.md says)"
    AP_LIB=$(readlink -f "$AP_LIB")
    # its version action prints the version alone ("4.5") on stdout
    AP_VERSION=$("$JAVA" "-agentpath:$AP_LIB=version" -version 2>/dev/null | head -1 | tr -cd '[:alnum:].-' || true)
    AP_DESC="${AP_VERSION:-(version unknown)}, \`$AP_LIB\` (sha256 $(sha256sum "$AP_LIB" | cut -c1-12))"
fi

# ---------------------------------------------------------------- scratch space
mkdir -p "$OUT/logs" "$OUT/classes"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/jvmprof-bench.XXXXXX")
cleanup() {
    if [[ $KEEP_TMP == 1 ]]; then log "kept temp dir $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
rm -f "$OUT"/logs/*.log

. "$BENCH_DIR/agent_opt.sh"

now() { printf '%s' "${EPOCHREALTIME/,/.}"; }

# ---------------------------------------------------------------- workloads
"$JAVAC" -d "$OUT/classes" -nowarn "$BENCH_DIR/workloads/H2Load.java" "$BENCH_DIR/workloads/Hello.java" \
    "$BENCH_DIR/workloads/JniHeavy.java" || die "could not compile bench/workloads"
JNI_LIB="$OUT/libjniheavy.so"

JAVAC_SRC="$OUT/javac-src"
JAVAC_LIST="$OUT/javac-files.txt"
JAVAC_EXPECT="$OUT/javac-expected-classes.txt"
prepare_javac() {
    local stamp
    stamp="$SRC_ZIP|$(stat -c %Y "$SRC_ZIP")|$JAVAC_PKGS"
    if [[ ! -f $JAVAC_SRC/.stamp || $(cat "$JAVAC_SRC/.stamp") != "$stamp" ]]; then
        log "extracting JDK sources ($JAVAC_PKGS) from $SRC_ZIP"
        rm -rf "$JAVAC_SRC"
        mkdir -p "$JAVAC_SRC"
        local pats=() p
        for p in $JAVAC_PKGS; do pats+=("java.base/$p/*"); done
        unzip -q "$SRC_ZIP" "${pats[@]}" -d "$JAVAC_SRC"
        printf '%s' "$stamp" >"$JAVAC_SRC/.stamp"
    fi
    # javadoc's snippet files (JDK 18+) are examples beside the sources, not part of java.base
    (cd "$JAVAC_SRC/java.base" && find . -name '*.java' -not -path '*/snippet-files/*' | sed 's|^\./||' | LC_ALL=C sort) >"$TMP/rel.txt"
    sed "s|^|$JAVAC_SRC/java.base/|" "$TMP/rel.txt" >"$JAVAC_LIST"
    grep -v -e '/package-info\.java$' -e '^module-info\.java$' "$TMP/rel.txt" | sed 's|\.java$|.class|' >"$JAVAC_EXPECT"
    JAVAC_NFILES=$(wc -l <"$JAVAC_LIST")
    ((JAVAC_NFILES > 0)) || die "no .java files extracted for JAVAC_PKGS=$JAVAC_PKGS"
}

# run_javac <agent-opt> <log>: compile the extracted java.base packages into a fresh dir
run_javac() {
    local aopt=$1 logf=$2 dest="$TMP/javac-out"
    rm -rf "$dest"
    mkdir -p "$dest"
    local jopt=()
    [[ -n $aopt ]] && jopt=("-J$aopt")
    local rc=0
    "$BENCH_DIR/timeit.py" "$TMP/time" -- "$JAVAC" "${jopt[@]}" --patch-module "java.base=$JAVAC_SRC/java.base" -d "$dest" \
        -proc:none -nowarn -XDsuppressNotes -XDignore.symbol.file -implicit:none \
        "@$JAVAC_LIST" >"$logf" 2>&1 || rc=$?
    if ((rc != 0)); then
        tail -n 30 "$logf" >&2
        die "javac exited with status $rc (log: $logf)"
    fi
    local missing_cls
    missing_cls=$(cd "$dest" && find . -name '*.class' | sed 's|^\./||' | LC_ALL=C sort | LC_ALL=C comm -23 "$JAVAC_EXPECT" - | head -5)
    [[ -z $missing_cls ]] || die "javac exited 0 but class files are missing, e.g.: ${missing_cls//$'\n'/ } (log: $logf)"
    local ncls
    ncls=$(find "$dest" -name '*.class' | wc -l)
    printf 'javac: %d source files -> %d class files\n' "$JAVAC_NFILES" "$ncls" >>"$logf"
    read_time
}

# sets RUN_SECONDS (wall), RUN_CPU (user+sys of the JVM) and RUN_PROF (CPU s of its JFR and jvmprof
# threads, as timeit.py saw them) from timeit.py's output
read_time() {
    local wall user sys prof
    read -r wall user sys prof <"$TMP/time"
    RUN_SECONDS=$wall
    RUN_PROF=${prof:-0}
    RUN_CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
}

H2_CHECKSUM=
run_h2() {
    local aopt=$1 logf=$2
    local jopt=()
    [[ -n $aopt ]] && jopt=("$aopt")
    local rc=0
    # shellcheck disable=SC2086 # H2_ARGS is split on purpose
    "$BENCH_DIR/timeit.py" "$TMP/time" -- "$JAVA" "${jopt[@]}" -cp "$OUT/classes:$H2_JAR" H2Load $H2_ARGS >"$logf" 2>&1 || rc=$?
    if ((rc != 0)); then
        tail -n 30 "$logf" >&2
        die "H2Load exited with status $rc (log: $logf)"
    fi
    local line sum
    line=$(grep '^H2LOAD OK ' "$logf" | tail -1) || die "H2Load printed no 'H2LOAD OK' line (log: $logf)"
    sum=$(sed -n 's/.* orders=\([0-9]*\) .* checksum=\([0-9a-f]*\).*/\1 \2/p' <<<"$line")
    [[ -n $sum ]] || die "cannot parse H2Load result line: $line"
    if [[ -z $H2_CHECKSUM ]]; then
        H2_CHECKSUM=$sum
    elif [[ $sum != "$H2_CHECKSUM" ]]; then
        die "H2Load result '$sum' differs from earlier runs '$H2_CHECKSUM' (log: $logf)"
    fi
    read_time
}

# JniHeavy's JNI library, built against the JDK that runs it
prepare_jni() {
    if [[ ! -f $JNI_LIB || $BENCH_DIR/workloads/jniheavy.c -nt $JNI_LIB ]]; then
        log "building $JNI_LIB"
        ${CC:-cc} -std=c11 -O2 -g -fPIC -shared -Wall -Wextra -Werror -isystem "$JDK/include" -isystem "$JDK/include/linux" \
            -o "$JNI_LIB" "$BENCH_DIR/workloads/jniheavy.c" || die "could not build $JNI_LIB"
    fi
}

JNI_CHECKSUM=
run_jni() {
    local aopt=$1 logf=$2
    local jopt=()
    [[ -n $aopt ]] && jopt=("$aopt")
    local rc=0
    # shellcheck disable=SC2086 # JNI_ARGS is split on purpose
    "$BENCH_DIR/timeit.py" "$TMP/time" -- "$JAVA" "${jopt[@]}" -cp "$OUT/classes" JniHeavy "$JNI_LIB" $JNI_ARGS >"$logf" 2>&1 || rc=$?
    if ((rc != 0)); then
        tail -n 30 "$logf" >&2
        die "JniHeavy exited with status $rc (log: $logf)"
    fi
    local sum
    sum=$(sed -n 's/^JNIHEAVY OK .* checksum=\([0-9a-f]*\)$/\1/p' "$logf" | tail -1)
    [[ -n $sum ]] || die "JniHeavy printed no 'JNIHEAVY OK' line (log: $logf)"
    if [[ -z $JNI_CHECKSUM ]]; then
        JNI_CHECKSUM=$sum
    elif [[ $sum != "$JNI_CHECKSUM" ]]; then
        die "JniHeavy checksum $sum differs from earlier runs' $JNI_CHECKSUM (log: $logf)"
    fi
    read_time
}

describe_workload() {
    case $1 in
        javac) printf "javac (JDK $JDK_FEATURE, single JVM)"' compiling %s .java files of java.base (%s) from src.zip with --patch-module java.base, -proc:none -implicit:none' \
            "$JAVAC_NFILES" "$JAVAC_PKGS" ;;
        h2) printf 'H2 %s in-memory database, H2Load driver (JDBC) with args "%s" (threads, customers/thread, ops/thread): inserts, indexed selects, updates, deletes, joins, aggregates' \
            "$(unzip -p "$H2_JAR" META-INF/MANIFEST.MF | sed -n 's/^Implementation-Version: *\([^[:space:]]*\).*/\1/p')" "$H2_ARGS" ;;
        jni) printf 'JniHeavy (bench/workloads/JniHeavy.java, jniheavy.c) with args "%s" (rounds per thread, threads): a C hash over a byte[] held critical, libc qsort with a C comparator, libc memcpy/memmove/memset, zlib deflate/inflate through java.util.zip, a CRC32' \
            "$JNI_ARGS" ;;
    esac
}

for wl in $WORKLOADS; do
    case $wl in
        javac) prepare_javac ;;
        h2) ;;
        jni) prepare_jni ;;
        *) die "unknown workload '$wl' (known: javac h2 jni)" ;;
    esac
done

# ---------------------------------------------------------------- measurement
RAW="$OUT/last-run.csv"
echo "workload,config,round,seconds,cpu_seconds" >"$RAW"
declare -A TIMES=() CPUS=() PAIRED=() AGENTMS=() STACKMS=() MONMS=() SAMPMS=() PROFMS=()
MISSING_REPORTS=()
START_ALL=$(now)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

for wl in $WORKLOADS; do
    log "workload $wl: $(describe_workload "$wl")"
    for ((w = 1; w <= WARMUP; w++)); do
        "run_$wl" "" "$OUT/logs/$wl-warmup-$w.log"
        log "  warm-up $w (none): ${RUN_SECONDS}s"
    done
    ncfg=${#CFG[@]}
    for ((r = 1; r <= RUNS; r++)); do
        # each round starts at a different config, so no config always runs first
        declare -A ROUND_T=()
        for ((k = 0; k < ncfg; k++)); do
            i=$(((k + r - 1) % ncfg))
            cfg=${CFG[$i]}
            report="$TMP/report-$wl-$i-$r.txt"
            "run_$wl" "$(agent_opt "$cfg" "$report")" "$OUT/logs/$wl-cfg$i-r$r.log"
            TIMES[$wl,$i]+="$RUN_SECONDS "
            CPUS[$wl,$i]+="$RUN_CPU "
            PROFMS[$wl,$i]+="$(awk -v p="$RUN_PROF" 'BEGIN { printf "%.0f", p * 1000 }') "
            ROUND_T[$i]=$RUN_SECONDS
            # the agent's own account of its cost (its "jvmprof: cost:" line on stderr):
            # agent thread CPU ms + ms spent taking stacks + ms in monitor callbacks
            logf="$OUT/logs/$wl-cfg$i-r$r.log"
            # (the stack-taking and monitor parts are there only for the collectors that have them)
            cost=$(grep '^jvmprof: cost: agent thread ' "$logf" | tail -1 || true)
            if [[ -n $cost ]]; then
                c_agent=$(sed -n 's/^jvmprof: cost: agent thread \([0-9.]*\) ms CPU.*/\1/p' <<<"$cost")
                c_stack=$(sed -n 's/.*taken in \([0-9.]*\) ms.*/\1/p' <<<"$cost")
                c_mon=$(sed -n 's/.*monitor callbacks \([0-9.]*\) ms.*/\1/p' <<<"$cost")
                c_stack=${c_stack:-0} c_mon=${c_mon:-0}
                AGENTMS[$wl,$i]+="$c_agent "
                STACKMS[$wl,$i]+="$c_stack "
                MONMS[$wl,$i]+="$c_mon "
            fi
            # the async sampler's cost on the program's threads ("jvmprof: sampler cost:")
            scost=$(sed -n 's/^jvmprof: sampler cost: signal handlers \([0-9.]*\) ms.*class-prepare callbacks \([0-9.]*\) ms.*$/\1 \2/p' "$logf" | tail -1)
            # heap=sites' allocation callbacks ("jvmprof: heap=sites: ... allocation callbacks N ms")
            acost=$(sed -n 's/^jvmprof: heap=sites: .*allocation callbacks \([0-9.]*\) ms$/\1/p' "$logf" | tail -1)
            if [[ -n $scost || -n $acost ]]; then
                read -r c_hand c_prep <<<"${scost:-0 0}"
                SAMPMS[$wl,$i]+="$(awk -v a="$c_hand" -v b="$c_prep" -v c="${acost:-0}" 'BEGIN { printf "%.1f", a + b + c }') "
            fi
            echo "$wl,\"$cfg\",$r,$RUN_SECONDS,$RUN_CPU" >>"$RAW"
            log "  round $r/$RUNS  $(printf '%-28s' "$cfg") ${RUN_SECONDS}s wall, ${RUN_CPU}s cpu"
            out_file=$(report_of "$cfg" "$report")
            [[ ${cfg#base:} == trace=* && ! -e $report ]] && out_file=$report.trace # trace= alone: the trace only
            if [[ $cfg != none && $cfg != floor=* && ! -s $out_file ]]; then
                log "  WARNING: agent wrote no report to $out_file"
                MISSING_REPORTS+=("$wl:$cfg")
            fi
            rm -f "$report.trace" # a whole javac's trace is gigabytes: its size is in the log's trace: line
        done
        # paired ratio: each run against the same round's run without the agent
        for i in "${!CFG[@]}"; do
            [[ ${CFG[$i]} == none ]] || continue
            for j in "${!CFG[@]}"; do
                PAIRED[$wl,$j]+="$(awk -v a="${ROUND_T[$j]}" -v b="${ROUND_T[$i]}" 'BEGIN { printf "%.4f", a / b }') "
            done
        done
        unset ROUND_T
    done
done

# stats <numbers...> -> "n median min max"
stats() {
    printf '%s\n' "$@" | LC_ALL=C sort -g | awk '
        { v[NR] = $1 }
        END {
            n = NR
            med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            printf "%d %.3f %.3f %.3f\n", n, med, v[1], v[n]
        }'
}

TABLE="$TMP/table.md"
{
    echo "| workload | config | runs | median s | min s | max s | ratio | overhead % | paired ratio | CPU s | CPU ratio | agent thread CPU ms | stack-taking wait ms | monitor callbacks ms | signal handlers + class prepare + allocation callbacks ms | agent CPU % of wall | agent CPU % of no-agent CPU | JFR's or jvmprof's own threads, CPU ms (polled) |"
    echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} >"$TABLE"
for wl in $WORKLOADS; do
    base=
    for i in "${!CFG[@]}"; do
        cfg=${CFG[$i]}
        # shellcheck disable=SC2086
        read -r n med mn mx < <(stats ${TIMES[$wl,$i]})
        read -r _ cmed _ _ < <(stats ${CPUS[$wl,$i]})
        pmed=n/a
        if [[ -n ${PAIRED[$wl,$i]:-} ]]; then read -r _ pmed _ _ < <(stats ${PAIRED[$wl,$i]}); fi
        if [[ $cfg == none ]]; then base=$med; cbase=$cmed; fi
        if [[ -n $base ]]; then
            read -r ratio pct < <(awk -v m="$med" -v b="$base" 'BEGIN { printf "%.3f %+.1f\n", m / b, (m / b - 1) * 100 }')
        else
            ratio=n/a pct=n/a
        fi
        cratio=$(awk -v m="$cmed" -v b="${cbase:-0}" 'BEGIN { if (b > 0) printf "%.3f", m / b; else print "n/a" }')
        a_ms=- s_ms=- m_ms=- h_ms=- costpct=- costcpu=-
        if [[ -n ${AGENTMS[$wl,$i]:-} ]]; then
            read -r _ a_ms _ _ < <(stats ${AGENTMS[$wl,$i]})
            read -r _ s_ms _ _ < <(stats ${STACKMS[$wl,$i]})
            read -r _ m_ms _ _ < <(stats ${MONMS[$wl,$i]})
            # the CPU the agent itself used, as a share of the run's wall time: its own
            # thread plus its callbacks on the program's threads. (Stack-taking time is
            # shown apart: it is the agent thread waiting for a handshake, mostly for the
            # target to reach its next safepoint poll while it runs on.)
            h=0
            if [[ -n ${SAMPMS[$wl,$i]:-} ]]; then read -r _ h_ms _ _ < <(stats ${SAMPMS[$wl,$i]}); h=$h_ms; fi
            costpct=$(awk -v a="$a_ms" -v c="$m_ms" -v h="$h" -v w="$med" 'BEGIN { printf "%.2f", (a + c + h) / (w * 10) }')
            # the same CPU as a share of the run's CPU without an agent: the direct part of the CPU ratio,
            # which (unlike the ratio) the run-to-run spread of the JIT compilers' work does not blur
            costcpu=$(awk -v a="$a_ms" -v c="$m_ms" -v h="$h" -v b="${cbase:-0}" 'BEGIN { if (b > 0) printf "%.2f", (a + c + h) / (b * 10); else print "n/a" }')
        fi
        # the profiler's own threads by /proc (timeit.py): JFR's (recorder, sampler, periodic tasks),
        # whose share of the no-agent CPU is given as the direct cost of a JFR configuration
        read -r _ p_ms _ _ < <(stats ${PROFMS[$wl,$i]})
        p_ms=${p_ms%.*}
        if [[ $cfg == jfr* ]]; then
            costcpu=$(awk -v p="$p_ms" -v b="${cbase:-0}" 'BEGIN { if (b > 0) printf "%.2f (its threads)", p / (b * 10); else print "n/a" }')
        fi
        echo "| $wl | \`$cfg\` | $n | $med | $mn | $mx | $ratio | $pct | $pmed | $cmed | $cratio | $a_ms | $s_ms | $m_ms | $h_ms | $costpct | $costcpu | $p_ms |" >>"$TABLE"
    done
done

# ---------------------------------------------------------------- start-up cost
# Own loop instead of hyperfine so that the configurations are interleaved too
# (this machine's speed drifts); each sample is fork+exec+JVM lifetime of `java Hello`.
STABLE=
if [[ $STARTUP != 0 ]]; then
    log "start-up: java Hello, $STARTUP_WARMUP warm-up + $STARTUP_RUNS measured rounds over ${#SCFG[@]} configs"
    mkdir -p "$TMP/startup-cwd"
    AOPT=()
    for i in "${!SCFG[@]}"; do
        cfg=${SCFG[$i]}
        AOPT[i]=$(agent_opt "$cfg" "$TMP/startup-report-$i.txt")
        # check once that it works and prints the expected line
        out=$(cd "$TMP/startup-cwd" && "$JAVA" ${AOPT[i]:+"${AOPT[i]}"} -cp "$OUT/classes" Hello 2>"$OUT/logs/startup-$i.log") \
            || { tail -n 30 "$OUT/logs/startup-$i.log" >&2; die "java Hello failed with config '$cfg'"; }
        grep -qx 'Hello, world' <<<"$out" || die "java Hello with config '$cfg' printed '$out'"
    done
    declare -A STIMES=()
    cd "$TMP/startup-cwd"
    for ((r = 1 - STARTUP_WARMUP; r <= STARTUP_RUNS; r++)); do
        for i in "${!SCFG[@]}"; do
            t0=$(now)
            "$JAVA" ${AOPT[i]:+"${AOPT[i]}"} -cp "$OUT/classes" Hello >/dev/null 2>>"$OUT/logs/startup-$i.log" \
                || { tail -n 30 "$OUT/logs/startup-$i.log" >&2; die "java Hello failed with config '${SCFG[$i]}'"; }
            t1=$(now)
            if ((r >= 1)); then
                STIMES[$i]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) * 1000 }') "
            fi
        done
    done
    cd "$ROOT"
    STABLE="$TMP/startup.md"
    {
        echo "| start-up config | runs | median ms | min ms | max ms | added ms |"
        echo "|---|---:|---:|---:|---:|---:|"
    } >"$STABLE"
    sbase=
    for i in "${!SCFG[@]}"; do
        cfg=${SCFG[$i]}
        label=$cfg
        [[ $cfg == - ]] && label="(no options)"
        # shellcheck disable=SC2086
        read -r n med mn mx < <(stats ${STIMES[$i]})
        [[ $cfg == none ]] && sbase=$med
        if [[ -n $sbase ]]; then
            added=$(awk -v a="$med" -v b="$sbase" 'BEGIN { printf "%+.1f", a - b }')
        else
            added=n/a
        fi
        # shellcheck disable=SC2016 # literal backticks
        printf '| `%s` | %d | %.1f | %.1f | %.1f | %s |\n' "$label" "$n" "$med" "$mn" "$mx" "$added" >>"$STABLE"
    done
fi

ELAPSED=$(awk -v a="$START_ALL" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')

# ---------------------------------------------------------------- report
HAVE_WL=0
[[ -n ${WORKLOADS//[[:space:]]/} ]] && HAVE_WL=1
echo
if [[ $HAVE_WL == 1 ]]; then cat "$TABLE"; echo; fi
if [[ -n $STABLE ]]; then cat "$STABLE"; echo; fi
if [[ $HAVE_AGENT == 0 ]]; then echo "NOTE: agent not found ($AGENT): agent configurations were skipped."; fi
if ((${#MISSING_REPORTS[@]})); then echo "WARNING: no agent report written for: ${MISSING_REPORTS[*]}"; fi
echo "raw times: $RAW   logs: $OUT/logs/   total measurement time: ${ELAPSED}s"

if [[ $RECORD != 0 ]]; then
    if [[ ! -f $RESULTS ]]; then
        cat >"$RESULTS" <<'EOF'
# jvmprof overhead benchmark results

Appended by `bench/run.sh` (`make bench`); newest section last. See bench/README.md.
Each section: wall time of each workload without the agent (`none`) and with each
agent configuration, runs interleaved round by round; ratio = median / median of
`none`, overhead % = (ratio - 1) * 100. Start-up: wall time of `java Hello` (fork to
exit, configs interleaved), "added ms" = median minus median without agent.
The development machine is a small shared VM, often busy with builds at the same time
(see the load average line): single runs vary by up to about ±25 %, so differences of
less than ~10 % in a RUNS=5 median are within noise; look at min/max too.
EOF
    fi
    cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -1)
    mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
    if [[ $HAVE_AGENT == 1 ]]; then
        agent_desc="\`${AGENT#"$ROOT"/}\` (sha256 $(sha256sum "$AGENT" | cut -c1-12), built $(date -u -r "$AGENT" '+%Y-%m-%d %H:%M UTC'))"
    else
        agent_desc="not found (\`${AGENT#"$ROOT"/}\`): only \`none\` measured"
    fi
    commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
    if [[ $commit != unknown && -n $(git -C "$ROOT" status --porcelain -- src Makefile 2>/dev/null) ]]; then
        commit="$commit (with uncommitted changes in src/ or Makefile)"
    fi
    {
        echo
        echo "## $(date -u '+%Y-%m-%d %H:%M UTC') — RUNS=$RUNS"
        echo
        echo "- Machine: $(nproc) CPUs, $cpu, $mem RAM, kernel $(uname -r); $JAVA_VERSION"
        echo "- Load average (1/5/15 min) at start: $LOAD_START; at end: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "- Agent: $agent_desc; repo commit $commit"
        if [[ -n $AP_DESC ]]; then
            echo "- \`ap:\` configurations: async-profiler $AP_DESC, given \`start,OPTS,file=<tmpdir>/report.ap.out\`"
        fi
        if [[ $CONFIGS == *base:* && -f ${BASE_AGENT:-} ]]; then
            echo "- \`base:\` configurations: \`$BASE_AGENT\` (sha256 $(sha256sum "$BASE_AGENT" | cut -c1-12), built $(date -u -r "$BASE_AGENT" '+%Y-%m-%d %H:%M UTC'))${BASE_DESC:+: $BASE_DESC}"
        fi
        for wl in $WORKLOADS; do
            echo "- Workload $wl: $(describe_workload "$wl")"
        done
        echo "- jvmprof's options get \`,file=<tmpdir>/report.txt\` appended; $WARMUP unmeasured warm-up run(s) per workload; total ${ELAPSED}s"
        if ((${#MISSING_REPORTS[@]})); then echo "- WARNING: no agent report written for: ${MISSING_REPORTS[*]}"; fi
        if [[ $HAVE_WL == 1 ]]; then echo; cat "$TABLE"; fi
        if [[ -n $STABLE ]]; then echo; cat "$STABLE"; fi
    } >>"$RESULTS"
    log "appended results to ${RESULTS#"$ROOT"/}"
fi
