# The readers of the jvmprof command (tests/fuzz/fuzz_readers.c) under libFuzzer,
# ASan and UBSan, briefly: every input in tests/fuzz/readers_regressions/ replayed,
# then JP_FUZZ_SECONDS (default 25) of fuzzing from tests/fuzz/readers_corpus/.
# `make fuzz` runs it longer (FUZZ_SECONDS). A crash is kept in build/fuzz/.
. "$(dirname "$0")/lib.sh"
secs=${JP_FUZZ_SECONDS:-25}
make -s -C "$ROOT" fuzz-readers FUZZ_SECONDS="$secs" >"$T/fuzz.log" 2>&1 || {
    grep -E "ERROR|SUMMARY|fuzz_readers:|Test unit written|error" "$T/fuzz.log" | head -20 >&2
    tail -30 "$T/fuzz.log" >&2
    fail "the readers' fuzzer failed (crash inputs: $ROOT/build/fuzz/fuzz_readers-*)"
}
n=$(ls "$ROOT"/tests/fuzz/readers_regressions/ | wc -l)
[ "$(grep -c '^Executed tests/fuzz/readers_regressions/' "$T/fuzz.log")" = "$n" ] || fail "not all $n regressions replayed"
runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$T/fuzz.log")
[ -n "$runs" ] && [ "$runs" -gt 1000 ] || { tail -20 "$T/fuzz.log" >&2; fail "the fuzzer did not run (runs: ${runs:-none})"; }
note "$n regressions replayed; $runs inputs in ${secs} s, no crash, leak or undefined behaviour"
