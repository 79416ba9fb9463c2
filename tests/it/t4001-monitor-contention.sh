# monitor=y: two threads fighting over one lock give a MONITOR TIME entry for
# the lock's class at the trace where they block; the waiter's Object.wait
# shows in MONITOR WAIT TIME, not in MONITOR TIME; threads appear as THREAD START / THREAD END.
. "$(dirname "$0")/lib.sh"
run_java "monitor=y,depth=4,file=$T/m.txt" Contended 2
expect_rc 0
expect_grep "MONITOR TIME BEGIN (total = " "$T/m.txt"
sed -n "/^MONITOR TIME BEGIN/,\$p" "$T/m.txt" >&2
row=$(sed -n '/^MONITOR TIME BEGIN/,/^MONITOR TIME END/p' "$T/m.txt" | grep 'Contended$SharedLock (Java)' |
      while read -r _ _ _ _ tr _; do trace_of "$T/m.txt" "$tr" | head -1 | grep -q 'Contended.holdAndWork' && echo "$tr"; done | head -1)
[ -n "$row" ] || fail "no MONITOR TIME row for Contended\$SharedLock at Contended.holdAndWork"
trace_of "$T/m.txt" "$row" | grep -q 'Contended.worker' || fail "trace $row lacks the caller Contended.worker"
# the contended row must carry real time and many events
line=$(grep -E "^ *[0-9]+ .* $row Contended\\\$SharedLock" "$T/m.txt" | head -1)
count=$(echo "$line" | awk '{print $4}')
[ "$count" -ge 10 ] || fail "only $count contended enters: $line"
total=$(grep -o 'MONITOR TIME BEGIN (total = [0-9]*' "$T/m.txt" | grep -o '[0-9]*$')
[ "$total" -gt 100 ] || fail "total monitor time $total ms is implausibly small for 2 s of contention"
# waits are reported at Object.wait, in MONITOR WAIT TIME, apart from blocking
w=$(sed -n '/^MONITOR WAIT TIME BEGIN/,/^MONITOR WAIT TIME END/p' "$T/m.txt" | grep 'Contended$SharedLock (Java)' |
    while read -r _ _ _ _ tr _; do trace_of "$T/m.txt" "$tr" | head -1 | grep -q 'java.lang.Object.wait' && echo "$tr"; done | head -1)
[ -n "$w" ] || fail "no MONITOR WAIT TIME row for the waiter's Object.wait"
# (MONITOR TIME may have an Object.wait row too: a waiter blocked re-entering
# the monitor once its wait is over, as HotSpot reports)
waits=$(sed -n '/^MONITOR WAIT TIME BEGIN/,/^MONITOR WAIT TIME END/p' "$T/m.txt" | awk -v t="$w" '$5 == t {print $4}')
[ "$waits" -ge 50 ] || fail "only $waits waits of 10 ms in 2 s"
for n in worker-a worker-b waiter; do expect_grep "name=\"$n\"" "$T/m.txt"; done
id=$(grep 'name="worker-a"' "$T/m.txt" | grep -o 'id = [0-9]*' | grep -o '[0-9]*')
expect_grep "THREAD END (id = $id)" "$T/m.txt"
# monitor=y alone has no CPU SAMPLES section
expect_no_grep "CPU SAMPLES BEGIN" "$T/m.txt"
