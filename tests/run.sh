#!/usr/bin/env bash
# run.sh — the test runner behind `make test`: runs the C unit tests (plain and
# under ASan+UBSan), then the integration tests on a real JVM, OpenJDK 17 (the
# JDK the agent is built against, tools/java-home.sh), then those that start a
# JVM again on JDK 25 (JDK25_HOME, default /usr/lib/jvm/temurin-25-jdk-amd64;
# one line says the pass was skipped when it is absent), and ends with the line
# "N passed, N failed". `tests/run.sh unit`, `tests/run.sh it` or
# `tests/run.sh it25` runs one family; `tests/run.sh it t2001` runs the tests
# matching a prefix. Each test has TEST_TIMEOUT seconds (default 600).
#
# t6012 (ten minutes of record=y) runs in the background during the JDK 17
# pass (LONG_TESTS below), and not again on 25.
# Not run again on JDK 25 (NOT_ON_25), so that make test stays under 45
# minutes: the tests that start no JVM, and those whose JVM only writes what
# the code under test (C that does not depend on the JVM) then reads or
# checks. t0001 and t0004 fuzz the C readers and rewriter; t0002, t0003, t0006 and
# t1003 read src/, t0005 the manual's links; t6201 reads trace files written by a Python writer; t6021 tests
# the Pyroscope receiver of the upload= tests (no JVM); t6104
# (diff), t6107 (convert), t7003 and t7004 (serve's files and limits), t9007
# and t9010 (the command's inputs and usage) test the jvmprof command on
# reports whatever JVM wrote; t1001 and t1002 (the option table, bad options)
# test the option parser; t6004 (reset=y reports), t9002 and t9005 (output
# files) the report writers; t6101 (the flame page in Chromium), t6103
# (pprof, read by go tool pprof and npm), t6105 and t6106 (JFR files, read by
# the jfr tools of JDK 17 and of Temurin 25: t6106 runs both itself) and t7002
# (net= to serve), t6109 (format=b's own records, converted) and t6110 (native
# frames and the JVM's threads, from a report a C tool writes: no JVM) the output
# formats. The virtual-thread tests (t2112, t3108, t3109, t4003, t6207, t6208) run
# their JVMs on JDK 25 (tests/it/jdk25.sh) already in the first pass. Every
# agent mode, the rewriter, the sampler's walk, heap dumps and attaching run
# on both JDKs.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
what=${1:-all}
filter=${2:-}
passed=0 failed=0 failures=()
LOG="$ROOT/build/test-logs"
mkdir -p "$LOG"

run_one() {
    local name=$1; shift
    local start=$SECONDS
    mkdir -p "$(dirname "$LOG/$name.log")"
    # a test that hangs fails after TEST_TIMEOUT seconds (its processes killed)
    # instead of holding up the whole run
    if timeout -k 10 "${TEST_TIMEOUT:-600}" "$@" >"$LOG/$name.log" 2>&1; then
        passed=$((passed + 1))
        printf 'ok    %-50s %3ds\n' "$name" $((SECONDS - start))
    else
        failed=$((failed + 1))
        failures+=("$name")
        printf 'FAIL  %-50s %3ds\n' "$name" $((SECONDS - start))
        sed 's/^/      | /' "$LOG/$name.log" | tail -25
    fi
}

if [ "$what" = all ] || [ "$what" = unit ]; then
    for t in build/unit/test_* build/unit-asan/test_*; do
        [ -x "$t" ] || continue
        case "$t" in *"$filter"*) ;; *) continue ;; esac
        run_one "$(basename "$(dirname "$t")")/$(basename "$t")" "$t"
    done
fi
# Long tests (LONG_TESTS: minutes of waiting, little CPU) start in the background at the
# beginning of the JDK 17 pass and are waited for at its end, so that they add no time to it;
# each has LONG_TEST_TIMEOUT seconds (default 1200).
LONG_TESTS="t6012"
long_names=() long_pids=() long_starts=()
start_long() {
    local t n
    for t in tests/it/t[0-9]*.sh; do
        n=$(basename "$t" .sh)
        case "$n" in "$filter"*) ;; *) continue ;; esac
        case " $LONG_TESTS " in *" ${n%%-*} "*) ;; *) continue ;; esac
        mkdir -p "$LOG/it"
        (timeout -k 10 "${LONG_TEST_TIMEOUT:-1200}" bash "$t" >"$LOG/it/$n.log" 2>&1; echo $? >"$LOG/it/$n.rc") &
        long_names+=("$n") long_pids+=("$!") long_starts+=("$SECONDS")
        echo "started in the background: it/$n"
    done
}
finish_long() {
    local i n
    for i in "${!long_names[@]}"; do
        n=${long_names[$i]}
        wait "${long_pids[$i]}"
        if [ "$(cat "$LOG/it/$n.rc" 2>/dev/null)" = 0 ]; then
            passed=$((passed + 1))
            printf 'ok    %-50s %3ds (in the background)\n' "it/$n" $((SECONDS - long_starts[i]))
        else
            failed=$((failed + 1))
            failures+=("it/$n")
            printf 'FAIL  %-50s %3ds (in the background)\n' "it/$n" $((SECONDS - long_starts[i]))
            sed 's/^/      | /' "$LOG/it/$n.log" | tail -25
        fi
    done
}
if [ "$what" = all ] || [ "$what" = it ]; then
    start_long
    for t in tests/it/t[0-9]*.sh; do
        n=$(basename "$t" .sh)
        case "$n" in "$filter"*) ;; *) continue ;; esac
        case " $LONG_TESTS " in *" ${n%%-*} "*) continue ;; esac
        run_one "it/$n" bash "$t"
    done
    finish_long
fi
NOT_ON_25="t6012 t0001 t0002 t0003 t0004 t0005 t0006 t1001 t1002 t1003 t2112 t3108 t3109 t4003 t6004 t6021 t6101 t6103 t6104 t6105 t6106 t6107 t6109 t6110 t6201 t6207 t6208 t7002 t7003 t7004 t9002 t9005 t9007 t9010"
JDK25_HOME=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
if [ "$what" = all ] || [ "$what" = it25 ]; then
    if [ -x "$JDK25_HOME/bin/java" ] && [ -x "$JDK25_HOME/bin/javac" ]; then
        for t in tests/it/t[0-9]*.sh; do
            n=$(basename "$t" .sh)
            case "$n" in "$filter"*) ;; *) continue ;; esac
            case " $NOT_ON_25 " in *" ${n%%-*} "*) continue ;; esac
            run_one "it25/$n" env JAVA_HOME="$JDK25_HOME" bash "$t"
        done
    else
        echo "skipped: the JDK 25 pass (no JDK at JDK25_HOME=$JDK25_HOME)"
    fi
fi
echo
[ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]} (logs in build/test-logs/)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
