#!/usr/bin/env bash
# run.sh — the test runner behind `make test`: runs the C unit tests (plain and
# under ASan+UBSan), then the integration tests on a real JVM, and ends with
# the line "N passed, N failed". `tests/run.sh unit` or `tests/run.sh it`
# runs one family; `tests/run.sh it t2001` runs the tests matching a prefix.
# Each test has TEST_TIMEOUT seconds (default 600).
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
if [ "$what" = all ] || [ "$what" = it ]; then
    for t in tests/it/t[0-9]*.sh; do
        case "$(basename "$t")" in "$filter"*) ;; *) continue ;; esac
        run_one "it/$(basename "$t" .sh)" bash "$t"
    done
fi
echo
[ ${#failures[@]} -eq 0 ] || echo "failed: ${failures[*]} (logs in build/test-logs/)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
