# Samples the ring had no room for still count: in their thread, under
# <unknown frame>.ring_full, in the report, the collapsed stacks and the flame
# graph alike, and COUNTS says how many. JVMPROF_SAMPLE_RING=2 shrinks the ring
# to two slots so that two threads sampled every millisecond overflow it
# between two drains of the agent thread.
. "$(dirname "$0")/lib.sh"
export JVMPROF_SAMPLE_RING=2
run_java "cpu=samples,interval=1,thread=y,verbose=y,file=$T/r.txt,collapsed=$T/r.col,flame=$T/r.html" TwoSpinners 2
expect_rc 0
expect_grep "signals dropped (ring full)" "$T/err"
d=$(sed -n 's/^samples dropped (ring full; counted under <unknown frame>\.ring_full) \([0-9]*\)$/\1/p' "$T/r.txt")
[ -n "$d" ] && [ "$d" -gt 0 ] || fail "no dropped samples in COUNTS ($d)"
total=$(grep -o '^CPU SAMPLES BEGIN (total = [0-9]*' "$T/r.txt" | grep -o '[0-9]*$')
col=$(awk '{s += $NF} END {print s + 0}' "$T/r.col")
[ "$col" = "$total" ] || fail "the collapsed stacks hold $col samples, the report $total"
cold=$(grep '<unknown frame>\.ring_full' "$T/r.col" | awk '{s += $NF} END {print s + 0}')
[ "$cold" = "$d" ] || fail "the collapsed stacks hold $cold samples under ring_full, COUNTS $d"
rep=$(cpu_rows "$T/r.txt" | awk '/<unknown frame>\.ring_full$/ {s += $4} END {print s + 0}')
[ "$rep" = "$d" ] || fail "the report's rows hold $rep samples under ring_full, COUNTS $d"
# in their threads: each spinner lost some
grep -q '^\[spin-a\];<unknown frame>\.ring_full ' "$T/r.col" || fail "spin-a has no ring_full samples"
grep -q '^\[spin-b\];<unknown frame>\.ring_full ' "$T/r.col" || fail "spin-b has no ring_full samples"
expect_grep "ring_full" "$T/r.html"
note "$d of $total samples dropped, all counted under <unknown frame>.ring_full"
# a bad value is refused with one line, and the program still runs
JVMPROF_SAMPLE_RING=3 run_java "cpu=samples,file=$T/b.txt" Hello
expect_grep "JVMPROF_SAMPLE_RING=3: expected a power of two" "$T/err"
echo "t2109 ok"
