# cpu=times' counted methods (loop-free, at most tiny= bytes): exact counts
# when 70 threads call one at once (more threads than the Tracker's stripes,
# so some share one), and with reset=y each report holds only its interval's
# calls (CountedCalls: 7,000,000 calls of tinyA, a report, 12,345 of tinyB).
# The counted methods are not in CPU TIME; the loop that calls one is.
# Without the Unsafe the Tracker counts with, counts take a lock, and are exact.
. "$(dirname "$0")/lib.sh"
counted() { sed -n '/^CALLS COUNTED BEGIN/,/^CALLS COUNTED END/p' "$1" | awk -v m="$2" '$5 == m { c += $4 } END { print c + 0 }'; }
timed() { sed -n '/^CPU TIME (ms) BEGIN/,/^CPU TIME (ms) END/p' "$1" | awk -v m="$2" '$6 == m { c += $4 } END { print c + 0 }'; }

run_java "cpu=times,reset=y,cutoff=0,file=$T/r-%n.txt" CountedCalls "$T/r-1.txt"
expect_rc 0
expect_grep "report true" "$T/out"
expect_grep "CountedCalls done" "$T/out"
a1=$(counted "$T/r-1.txt" 'CountedCalls.tinyA(I)I') b1=$(counted "$T/r-1.txt" 'CountedCalls.tinyB(I)I')
a2=$(counted "$T/r-2.txt" 'CountedCalls.tinyA(I)I') b2=$(counted "$T/r-2.txt" 'CountedCalls.tinyB(I)I')
note "reset=y: report 1 tinyA $a1 tinyB $b1; report 2 tinyA $a2 tinyB $b2"
[ "$a1 $b1 $a2 $b2" = "7000000 0 0 12345" ] || fail "counted calls per interval $a1 $b1 / $a2 $b2, expected 7000000 0 / 0 12345"
[ "$(timed "$T/r-1.txt" CountedCalls.viaLoop)" = 70 ] || fail "viaLoop (a loop) not timed 70 times: $(timed "$T/r-1.txt" CountedCalls.viaLoop)"
[ "$(timed "$T/r-1.txt" CountedCalls.tinyA)" = 0 ] || fail "tinyA was timed"

# without reset=y the second report holds both
run_java "cpu=times,cutoff=0,file=$T/n-%n.txt" CountedCalls "$T/n-1.txt"
expect_rc 0
a2=$(counted "$T/n-2.txt" 'CountedCalls.tinyA(I)I') b2=$(counted "$T/n-2.txt" 'CountedCalls.tinyB(I)I')
[ "$a2 $b2" = "7000000 12345" ] || fail "without reset=y, report 2: tinyA $a2 tinyB $b2, expected 7000000 12345"

# tiny=0: the same calls timed, not counted, with the same totals
run_java "cpu=times,tiny=0,cutoff=0,file=$T/z.txt" CountedCalls
expect_rc 0
[ "$(timed "$T/z.txt" CountedCalls.tinyA)" = 7000000 ] || fail "tiny=0: tinyA timed $(timed "$T/z.txt" CountedCalls.tinyA) times, expected 7000000"
! grep -q '^CALLS COUNTED BEGIN' "$T/z.txt" || fail "tiny=0 counted methods without timing them"

# without jdk.internal.misc.Unsafe (JVMPROF_TRACKER_NO_UNSAFE: the agent does not open it to the
# Tracker) counts take a lock, say so, and stay exact
JVMPROF_TRACKER_NO_UNSAFE=1 run_java "cpu=times,cutoff=0,file=$T/s.txt" CountedCalls
expect_rc 0
expect_grep "the Tracker has no Unsafe: counted calls take a lock" "$T/err"
a=$(counted "$T/s.txt" 'CountedCalls.tinyA(I)I') b=$(counted "$T/s.txt" 'CountedCalls.tinyB(I)I')
[ "$a $b" = "7000000 12345" ] || fail "without Unsafe: tinyA $a tinyB $b, expected 7000000 12345"
