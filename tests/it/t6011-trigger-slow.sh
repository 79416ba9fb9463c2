# trigger=slow: a call of trace=exec that lasts mintime= or more dumps the
# recording around it: from 1 s before the call began to its end. SlowCall
# calls quick() (1 ms) 200 times, then slow() (400 ms of CPU), quick() 200
# times, sleeps 1 s, and calls slow() again. With mintime=200ms: one dump
# whose header and stderr line name the call (SlowCall.slow, thread "main",
# its length, when it began), with slow() on top of its CPU samples and a
# window that holds the call; the second slow() within trigger_interval=
# (1m) is not dumped (one line says so). With trigger_interval=1s both are,
# numbered 1 and 2. trigger=slow without trace=exec and mintime=: one line.
. "$(dirname "$0")/lib.sh"
OPTS="cpu=samples,interval=5,cstack=java,record=y,trace=exec,mintime=200ms,include=SlowCall,tracefile=$T/t.trace"
run_java "$OPTS,trigger=slow,file=$T/full.txt" SlowCall 400 300
expect_rc 0
[ "$(cat "$T/out")" = $'slow begins\nslow ends\nslow again\ndone' ] || fail "the program's stdout: $(cat "$T/out")"
[ "$(ls "$T" | grep -- -trigger-)" = full-trigger-1.txt ] || fail "not one dump: $(ls "$T"; cat "$T/err")"
D=$T/full-trigger-1.txt
re='SlowCall\.slow took ([0-9]+)\.[0-9]{3} ms on thread "main", from [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}; mintime=200\.000 ms'
grep -Eq "^TRIGGER: slow: $re$" "$D" || fail "the dump's header does not name the call: $(head -8 "$D")"
grep -Eq "^jvmprof: trigger slow \($re\): wrote $D \(" "$T/err" || fail "no line for the dump: $(cat "$T/err")"
took=$(sed -En "s/^TRIGGER: slow: $re$/\1/p" "$D")
[ "$took" -ge 400 ] && [ "$took" -lt 5000 ] || fail "slow() took $took ms by the dump, not 400 or a little more"
# the window: from 1 s before the call (or the session's start) to its end, so at least the call's length
win=$(sed -n 's/^RECORDING WINDOW: .* (\([0-9.]*\) s); .*/\1/p' "$D")
awk -v w="$win" -v t="$took" 'BEGIN { exit !(w * 1000 >= t && w <= t / 1000 + 1.5) }' ||
    fail "the window is $win s, for a call of $took ms"
top=$(cpu_rows "$D" | sed -n 1p | awk '{print $6}')
[ "$top" = SlowCall.slow ] || fail "the dump's top is not slow(): $(cpu_rows "$D" | head -3)"
grep -Eq "^jvmprof: trigger slow \($re\): no dump, the last was [0-9.]+ s ago \(trigger_interval=60 s\)$" "$T/err" ||
    fail "no line for the second slow() within the interval: $(cat "$T/err")"
note "slow() took $took ms; window $win s; top: $(cpu_rows "$D" | sed -n 1p)"

# trigger_interval=1s: both slow() calls, 1.2 s apart, each dumped
run_java "$OPTS,trigger=slow,trigger_interval=1s,trigger_file=$T/slow-%n.txt,file=$T/i.txt" SlowCall 400 300
expect_rc 0
for n in 1 2; do
    grep -Eq "^TRIGGER: slow: $re$" "$T/slow-$n.txt" 2>/dev/null || fail "slow-$n.txt does not name slow(): $(ls "$T"; cat "$T/err")"
done
[ ! -e "$T/slow-3.txt" ] || fail "a third dump: $(head -6 "$T/slow-3.txt")"

run_java "cpu=samples,record=y,trigger=slow" Hello
[ "$RC" != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "trigger=slow fires on a call of trace=exec slower than mintime=" "$T/err" ||
    fail "trigger=slow without trace=exec: $(cat "$T/err")"
exit 0
