# The class-file rewriter (tests/fuzz/fuzz_rewrite.c: every spec the agent
# uses, each output checked against its input by tests/tools/cf_walk.h) under
# libFuzzer, ASan and UBSan, briefly: every input in tests/fuzz/regressions/
# replayed, then JP_FUZZ_RUNS (default 6,000, about 10 s) inputs fuzzed from
# tests/fuzz/corpus/ with the fixed seed JP_FUZZ_SEED (default 1), at most
# JP_FUZZ_SECONDS (default 120): the same inputs on every run, so that a clean
# tree passes every time, and a harness that no longer builds or aborts on its
# own inputs fails here. `make fuzz` explores with fresh seeds, for longer
# (FUZZ_SECONDS); what it finds goes into tests/fuzz/regressions/. A crash is
# kept in build/fuzz/.
. "$(dirname "$0")/lib.sh"
secs=${JP_FUZZ_SECONDS:-120}
make -s -C "$ROOT" fuzz-rewrite FUZZ_SECONDS="$secs" \
    FUZZ_EXTRA="-seed=${JP_FUZZ_SEED:-1} -runs=${JP_FUZZ_RUNS:-6000}" >"$T/fuzz.log" 2>&1 || {
    grep -E "ERROR|SUMMARY|fuzz_rewrite:|Test unit written|error" "$T/fuzz.log" | head -20 >&2
    tail -30 "$T/fuzz.log" >&2
    fail "the rewriter's fuzzer failed (crash inputs: $ROOT/build/fuzz/fuzz_rewrite-*)"
}
n=$(ls "$ROOT"/tests/fuzz/regressions/ | wc -l)
[ "$(grep -c '^Executed tests/fuzz/regressions/' "$T/fuzz.log")" = "$n" ] || fail "not all $n regressions replayed"
runs=$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$T/fuzz.log")
[ -n "$runs" ] && [ "$runs" -gt 1000 ] || { tail -20 "$T/fuzz.log" >&2; fail "the fuzzer did not run (runs: ${runs:-none})"; }
note "$n regressions replayed; $runs inputs (seed ${JP_FUZZ_SEED:-1}), no crash, leak, undefined behaviour or bad output"
