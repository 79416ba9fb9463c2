# cpu=times counts every call exactly: fib(25) = 242785 calls (summed over
# its call paths), three frames left by an exception 1000 times each, a
# recursion caught half way up (1100 calls), a constructor that throws
# (100 calls), with tiny=0 (every method instrumented); the program's output
# is unchanged and the class files are verified (-Xverify:all). Also: the CPU TIME table's layout, and that time
# follows the work (HotLoop: heavy ~75%, light ~25%).
. "$(dirname "$0")/lib.sh"
run_java "" CallCounts
expect_rc 0
cp "$T/out" "$T/expected"
run_java "cpu=times,cutoff=0,tiny=0,file=$T/t.txt" -Xverify:all CallCounts
expect_rc 0
cmp -s "$T/out" "$T/expected" || fail "program output changed under cpu=times"
expect_no_grep "VerifyError" "$T/err"
# the verbose line (verbose=y is the default) says what the timing cost: the
# calibrated bookkeeping per call, its total, and what an empty method records
cost=$(sed -n 's/.*; bookkeeping \([0-9.]*\) ns per call (calibrated at the start, without the two JNI calls to it), about \([0-9.]*\) s of CPU in all; an empty method records \([0-9.]*\) ns per call$/\1 \2 \3/p' "$T/err")
[ -n "$cost" ] || fail "no calibrated cost in the cpu=times line: $(grep 'cpu=times:' "$T/err")"
read -r per total empty <<<"$cost"
awk -v p="$per" -v e="$empty" 'BEGIN { exit !(p > 0 && p < 2000 && e >= 0 && e <= p) }' ||
    fail "implausible calibration: $per ns per call, an empty method $empty ns"
note "bookkeeping $per ns per call ($total s in all), an empty method records $empty ns"
expect_grep "^CPU TIME (ms) BEGIN (total = [0-9]*)" "$T/t.txt"
expect_grep "^rank   self  accum   count trace method$" "$T/t.txt"
expect_grep "^CPU TIME (ms) END$" "$T/t.txt"
# calls per method, summed over the method's call paths (depth=4 splits fib's)
calls() {
    sed -n '/^CPU TIME (ms) BEGIN/,/^CPU TIME (ms) END/p' "$T/t.txt" |
        awk -v m="$1" '$6 == m { c += $4 } END { print c + 0 }'
}
check() {
    local got; got=$(calls "$1")
    [ "$got" = "$2" ] || fail "$1: $got calls, expected $2"
    note "$1: $got calls"
}
check CallCounts.fib 242785
check CallCounts.thrower 1000
check CallCounts.middle 1000
check CallCounts.outer 1000
check CallCounts.catcher 1
check CallCounts.rec 1100
check 'CallCounts$Boom.<init>' 100
check CallCounts.main 1
# every exit found its frame; the 50 constructors that threw were closed later
expect_grep "0 exits without their entry, 50 frames closed by a later exit, 0 calls not recorded" "$T/err"
# a trace of fib's deepest path is four fib frames
serial=$(sed -n '/^CPU TIME (ms) BEGIN/,/END/p' "$T/t.txt" | awk '$6 == "CallCounts.fib" { print $5; exit }')
[ "$(trace_of "$T/t.txt" "$serial" | grep -c 'CallCounts.fib(CallCounts.java')" = 4 ] ||
    fail "top fib trace $serial is not four fib frames"

# by default only straight-line leaves are counted: every CallCounts method calls another (or
# throws a new exception: a constructor call), so all are timed, with the same exact counts, and
# nothing of CallCounts is counted
run_java "cpu=times,cutoff=0,file=$T/d.txt" CallCounts
expect_rc 0
cp "$T/d.txt" "$T/t.txt"
for mc in 'CallCounts.middle 1000' 'CallCounts.outer 1000' 'CallCounts.thrower 1000' 'CallCounts.fib 242785' \
    'CallCounts.rec 1100' 'CallCounts.catcher 1' 'CallCounts.main 1'; do
    read -r m c <<<"$mc"
    check "$m" "$c"
done
! sed -n '/^CALLS COUNTED BEGIN/,/^CALLS COUNTED END/p' "$T/d.txt" | grep -q ' CallCounts' ||
    fail "a CallCounts method was counted, not timed: $(grep ' CallCounts.*(' "$T/d.txt" | head -3)"
# tiny=80, the old trade on request: the small loop-free ones counted, with the same counts
run_java "cpu=times,cutoff=0,tiny=80,file=$T/d.txt" CallCounts
expect_rc 0
cp "$T/d.txt" "$T/t.txt"
counted() {
    sed -n '/^CALLS COUNTED BEGIN/,/^CALLS COUNTED END/p' "$T/d.txt" |
        awk -v m="$1" '$5 == m { c += $4 } END { print c + 0 }'
}
for mc in 'CallCounts.middle(I)V 1000' 'CallCounts.outer(I)V 1000' 'CallCounts.thrower(I)V 1000' \
    'CallCounts.fib(I)I 242785' 'CallCounts.rec(I)I 1100'; do
    read -r m c <<<"$mc"
    [ "$(counted "$m")" = "$c" ] || fail "tiny=80: $m counted $(counted "$m") times, expected $c"
    check "${m%%(*}" 0
done
check CallCounts.catcher 1

# time follows the work
run_java "cpu=times,file=$T/h.txt" HotLoop 2
expect_rc 0
pct() {
    sed -n '/^CPU TIME (ms) BEGIN/,/^CPU TIME (ms) END/p' "$T/h.txt" |
        awk -v m="$1" '$6 == m { s += $2 } END { printf "%.0f", s }'
}
# heavy() does 3 times light()'s work: 75% of the two's time (their shares of the whole also hold
# main's and the JDK's, which a busy machine makes larger: 64% and 26% were seen beside stress-ng)
h=$(pct HotLoop.heavy) l=$(pct HotLoop.light)
note "HotLoop: heavy $h%, light $l%"
awk -v a="$h" -v b="$l" 'BEGIN { exit !(a + b >= 50 && a / (a + b) >= 0.65 && a / (a + b) <= 0.85) }' ||
    fail "heavy $h% / light $l%: heavy's part of the two not within 10 points of 75%, or the two under 50%"
