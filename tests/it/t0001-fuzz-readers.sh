# The readers of the jvmprof command (tests/fuzz/fuzz_readers.c) under libFuzzer,
# ASan and UBSan, briefly: every input in tests/fuzz/readers_regressions/ replayed,
# then JP_FUZZ_RUNS (default 150,000, about 25 s) inputs fuzzed from
# tests/fuzz/readers_corpus/ with the fixed seed JP_FUZZ_SEED (default 1), at
# most JP_FUZZ_SECONDS (default 120): the same inputs on every run, so that a
# clean tree passes every time; `make fuzz` explores with fresh seeds, for
# longer (FUZZ_SECONDS), and what it finds goes into readers_regressions/. A
# crash is kept in build/fuzz/.
. "$(dirname "$0")/lib.sh"
secs=${JP_FUZZ_SECONDS:-120}
make -s -C "$ROOT" fuzz-readers FUZZ_SECONDS="$secs" \
    FUZZ_EXTRA="-seed=${JP_FUZZ_SEED:-1} -runs=${JP_FUZZ_RUNS:-150000}" >"$T/fuzz.log" 2>&1 || {
    grep -E "ERROR|SUMMARY|fuzz_readers:|Test unit written|error" "$T/fuzz.log" | head -20 >&2
    tail -30 "$T/fuzz.log" >&2
    fail "the readers' fuzzer failed (crash inputs: $ROOT/build/fuzz/fuzz_readers-*)"
}
n=$(ls "$ROOT"/tests/fuzz/readers_regressions/ | wc -l)
[ "$(grep -c '^Executed tests/fuzz/readers_regressions/' "$T/fuzz.log")" = "$n" ] || fail "not all $n regressions replayed"
runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$T/fuzz.log")
[ -n "$runs" ] && [ "$runs" -gt 1000 ] || { tail -20 "$T/fuzz.log" >&2; fail "the fuzzer did not run (runs: ${runs:-none})"; }
note "$n regressions replayed; $runs inputs (seed ${JP_FUZZ_SEED:-1}), no crash, leak or undefined behaviour"
