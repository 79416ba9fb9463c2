# Safepoint bias: SafepointBias.arith() is straight-line arithmetic with no
# safepoint poll until it returns, called in a loop by drive(). The JVMTI
# sampler (sampler=jvmti) can only see threads at safepoints and so blames
# drive(); the async sampler (the default) interrupts the thread wherever it
# is and must put at least 80% of the samples in arith(). Both figures are
# printed. The flame graph's frames carry their kind: arith() and drive() run
# JIT-compiled code, main() the interpreter.
. "$(dirname "$0")/lib.sh"
share() { cpu_rows "$1" | awk -v m="$2" '$6 == m {s += $2} END {printf "%.1f", s + 0}'; }

run_java "cpu=samples,sampler=jvmti,file=$T/j.txt" SafepointBias 3
expect_rc 0
grep -qx done "$T/out" || fail "program output changed under sampler=jvmti"
j_arith=$(share "$T/j.txt" SafepointBias.arith)
j_drive=$(share "$T/j.txt" SafepointBias.drive)

run_java "cpu=samples,file=$T/a.txt,collapsed=$T/a.col" SafepointBias 3
expect_rc 0
grep -qx done "$T/out" || fail "program output changed under the async sampler"
a_arith=$(share "$T/a.txt" SafepointBias.arith)
a_drive=$(share "$T/a.txt" SafepointBias.drive)
total=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/a.txt" | grep -o '[0-9]*$')
note "sampler=jvmti: arith ${j_arith}%, drive ${j_drive}%"
note "async sampler: arith ${a_arith}%, drive ${a_drive}% of $total samples"
grep 'cpu sampler:' "$T/err" >&2
[ "${total:-0}" -ge 150 ] || fail "only ${total:-0} samples in 3 s of CPU at interval=10"
awk -v a="$a_arith" 'BEGIN { exit !(a >= 80) }' || fail "async sampler put ${a_arith}% in arith(), expected >= 80%"
awk -v d="$j_drive" 'BEGIN { exit !(d >= 50) }' ||
    fail "sampler=jvmti put only ${j_drive}% in drive(): the safepoint bias this test shows is gone"

# frame kinds in the collapsed stacks
grep -qE '(^|;)SafepointBias.main_\[0\];SafepointBias.drive_\[j\];SafepointBias.arith_\[j\] [0-9]*$' "$T/a.col" ||
    { cat "$T/a.col" >&2; fail "no main (interpreted) -> drive (JIT) -> arith (JIT) stack"; }

# an inlined frame: Inlining.mix() runs inside hot()'s compiled code
run_java "cpu=samples,file=$T/i.txt,collapsed=$T/i.col" Inlining 2
expect_rc 0
grep -qx done "$T/out" || fail "program output changed"
cat "$T/i.col" >&2
inl=$(awk '/Inlining.hot_\[j\];Inlining.mix_\[i\] [0-9]+$/ { n += $NF } { t += $NF } END { printf "%d %d", n, t }' "$T/i.col")
read -r n t <<<"$inl"
note "mix() inlined into compiled hot(): $n of $t samples"
[ "$t" -gt 0 ] && [ $((n * 2)) -ge "$t" ] || fail "fewer than half the samples show mix() inlined into JIT-compiled hot()"
