# cpu=times counts running time: a method that runs 20 ms and then waits
# 20 ms, 25 times, in Thread.sleep, LockSupport.parkNanos or Object.wait, has
# about 500 ms in CPU TIME (not 1000), and its 500 ms of waiting in CPU WAIT
# TIME instead. On a busy machine a wait lasts longer than asked (the thread
# waits for a CPU once woken: 35 ms, not 20, beside stress-ng), so the
# figures are checked against what the program measured of itself (nanoTime
# around its calls and its waits), within 20% and 40 ms.
. "$(dirname "$0")/lib.sh"
run_java "cpu=times,file=$T/t.txt" WaitHalf 25
expect_rc 0
expect_grep "WaitHalf done" "$T/out"
sed -n '/^CPU WAIT TIME (ms) BEGIN/,/^CPU WAIT TIME (ms) END/p;/^METHODS (CPU time) BEGIN/,/^METHODS (CPU time) END/p' "$T/t.txt" |
    grep -v ' java\.\| jdk\.\| sun\.' >&2
wait_total=$(grep -o '^CPU WAIT TIME (ms) BEGIN (total = [0-9]*' "$T/t.txt" | grep -o '[0-9]*$')
[ -n "$wait_total" ] || fail "no CPU WAIT TIME section"
for m in sleepHalf parkHalf waitHalf; do
    # running: the method's total (inclusive) ms in METHODS
    run=$(sed -n '/^METHODS (CPU time) BEGIN/,/^METHODS (CPU time) END/p' "$T/t.txt" | awk -v m="WaitHalf.$m" '$8 == m {print $6}')
    [ -n "$run" ] || fail "WaitHalf.$m is not in METHODS (CPU time)"
    read -r mrun mwait <<<"$(sed -n "s/^measured $m ran \([0-9]*\) ms waited \([0-9]*\) ms$/\1 \2/p" "$T/out")"
    [ -n "$mwait" ] || fail "WaitHalf did not say what $m measured"
    near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 40 || d <= 0.2 * b) }'; }
    near "$run" "$mrun" || fail "WaitHalf.$m ran $run ms by CPU TIME, $mrun ms by its own measure (counting its waits would give $((mrun + mwait)))"
    # waiting: its CPU WAIT TIME rows, self% of the total
    waited=$(sed -n '/^CPU WAIT TIME (ms) BEGIN/,/^CPU WAIT TIME (ms) END/p' "$T/t.txt" |
        awk -v m="WaitHalf.$m" -v tot="$wait_total" '$6 == m {sub("%", "", $2); s += $2 * tot / 100} END {printf "%d", s}')
    near "$waited" "$mwait" || fail "WaitHalf.$m waited $waited ms by CPU WAIT TIME, $mwait ms by its own measure"
    note "WaitHalf.$m: $run ms running ($mrun measured), $waited ms waiting ($mwait measured)"
done
exit 0
