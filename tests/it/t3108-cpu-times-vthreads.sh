# cpu=times with 10,000 virtual threads (JDK 25), each calling step() 20
# times and sleeping or parking between (VThreadCalls): a virtual thread
# unmounts when it sleeps or parks and may come back on another carrier, so
# it has a shadow stack of its own, lent to its carrier while mounted.
# - every call counted exactly, 0 exits without their entry, 0 frames closed
#   by a later exit (the report's COUNTS);
# - burn()'s share of the virtual threads' own running time (burn, step and
#   the thread's lambda: their self time) within 10 points of its share of
#   their CPU samples in the same program under cpu=samples, cstack=java
#   (the samples' top Java frames: with native frames on top, a sample in
#   step's park would count for neither method). (The JDK's
#   scheduling code is left out of both: cpu=times measures elapsed time,
#   in which a carrier that wakes another thread with unpark waits its turn
#   on a busy machine; the samples count CPU only.)
# - the time unmounted is waiting: step()'s CPU WAIT TIME is at least the
#   50,000 sleeps of 2 ms, and its running time in CPU TIME is not (a
#   fraction of the CPU the program used).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/jdk25.sh"
THREADS=10000 CALLS=20 CPU=3
run_java25 "" VThreadCalls $THREADS $CALLS $CPU
expect_rc 0
cp "$T/out" "$T/expected"
run_java25 "cpu=times,cutoff=0,file=$T/t.txt" VThreadCalls $THREADS $CALLS $CPU
expect_rc 0
cmp -s "$T/out" "$T/expected" || fail "program output changed under cpu=times"

section() { sed -n "/^$2 BEGIN/,/^$2 END/p" "$1"; }
# calls and self ms of a method in CPU TIME, over its call paths
calls() { section "$1" 'CPU TIME (ms)' | awk -v m="$2" '$6 == m { c += $4 } END { print c + 0 }'; }
self_ms() {
    local tot; tot=$(grep -o "^$2 BEGIN (total = [0-9]*" "$1" | grep -o '[0-9]*$')
    section "$1" "$2" | awk -v m="$3" -v tot="${tot:-0}" '$6 == m { sub("%", "", $2); s += $2 * tot / 100 } END { printf "%d", s }'
}
count() { section "$1" COUNTS | awk -v n="$2" 'index($0, n " ") == 1 { print substr($0, length(n) + 2) }'; }

for m in step burn; do
    c=$(calls "$T/t.txt" "VThreadCalls.$m")
    [ "$c" = $((THREADS * CALLS)) ] || fail "VThreadCalls.$m: $c calls in CPU TIME, expected $((THREADS * CALLS))"
done
c=$(calls "$T/t.txt" 'VThreadCalls.lambda$main$0')
[ "$c" = $THREADS ] || fail "the threads' lambda: $c calls, expected $THREADS"
for n in "cpu=times: exits without their entry" "cpu=times: frames closed by a later exit"; do
    v=$(count "$T/t.txt" "$n")
    [ "$v" = 0 ] || fail "COUNTS: '$n' is '$v', expected 0"
done

# waiting: 50,000 sleeps of at least 2 ms are 100 s, step()'s, in CPU WAIT TIME; not in its CPU TIME
waited=$(self_ms "$T/t.txt" 'CPU WAIT TIME (ms)' VThreadCalls.step)
ran=$(self_ms "$T/t.txt" 'CPU TIME (ms)' VThreadCalls.step)
total=$(grep -o '^CPU TIME (ms) BEGIN (total = [0-9]*' "$T/t.txt" | grep -o '[0-9]*$')
note "step: $ran ms running (of $total ms in all), $waited ms waiting"
[ "$waited" -ge $((THREADS * CALLS / 4 * 2)) ] || fail "step() waited $waited ms by CPU WAIT TIME, expected at least $((THREADS * CALLS / 4 * 2))"
[ "$ran" -lt $((THREADS * CALLS / 4 * 2)) ] && [ "$ran" -lt "$total" ] || fail "step() ran $ran ms by CPU TIME: its waits counted as running"

# burn's share of the virtual threads' own methods, by self time and by CPU samples
share_times=$(section "$T/t.txt" 'CPU TIME (ms)' | awk '
    $6 == "VThreadCalls.burn" { b += $2 } $6 == "VThreadCalls.step" || $6 == "VThreadCalls.lambda$main$0" { o += $2 }
    END { printf "%.1f", (b + o > 0 ? 100 * b / (b + o) : 0) }')
run_java25 "cpu=samples,cstack=java,file=$T/s.txt" VThreadCalls $THREADS $CALLS $CPU
expect_rc 0
share_samples=$(cpu_rows "$T/s.txt" | awk '
    $6 == "VThreadCalls.burn" { b += $4 } $6 == "VThreadCalls.step" || $6 == "VThreadCalls.lambda$main$0" { o += $4 }
    END { printf "%.1f %d", (b + o > 0 ? 100 * b / (b + o) : 0), b + o }')
read -r share_samples nsamples <<<"$share_samples"
note "burn: $share_times% of the virtual threads' self time, $share_samples% of their $nsamples CPU samples"
[ "$nsamples" -ge 100 ] || fail "only $nsamples CPU samples in the virtual threads' methods"
awk -v a="$share_times" -v b="$share_samples" 'BEGIN { d = a - b; exit !(d <= 10 && d >= -10) }' ||
    fail "burn: $share_times% of the self time, $share_samples% of the samples: more than 10 points apart"
exit 0
