# reset=y: each report holds only what came since the one before. On
# IntervalPhases (phase A in a(), a report by Control.dump(), phase B in b()),
# the first report has a() and not b(), the second b() and not a(): for CPU
# samples, cpu=times (calls and time) and heap=sites (allocations); without
# reset=y the second report has both. reset=y without %n in file= is refused.
. "$(dirname "$0")/lib.sh"
rows() { sed -n "/^$2 BEGIN/,/^$2 END/p" "$1" | grep -E '^ *[0-9]+ '; }
count() { # FILE SECTION NAME: the count column of NAME's rows, summed
    rows "$1" "$2" | awk -v n="$3" '$NF == n || $6 == n {s += $4} END {print s + 0}'
}
run_java "cpu=samples,reset=y,file=$T/r-%n.txt" IntervalPhases "$T/r-1.txt"
expect_rc 0
expect_grep "report true" "$T/out"
for f in r-1 r-2; do [ -f "$T/$f.txt" ] || fail "no $f.txt"; done
a1=$(count "$T/r-1.txt" "CPU SAMPLES" IntervalPhases.a) b1=$(count "$T/r-1.txt" "CPU SAMPLES" IntervalPhases.b)
a2=$(count "$T/r-2.txt" "CPU SAMPLES" IntervalPhases.a) b2=$(count "$T/r-2.txt" "CPU SAMPLES" IntervalPhases.b)
note "cpu=samples, reset=y: report 1 a=$a1 b=$b1, report 2 a=$a2 b=$b2"
[ "$a1" -ge 50 ] && [ "$b1" = 0 ] || fail "report 1: a() $a1, b() $b1 samples (expected a() only)"
[ "$b2" -ge 50 ] && [ "$a2" -le 2 ] || fail "report 2: a() $a2, b() $b2 samples (expected b() only)"
t1=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/r-2.txt" | grep -o '[0-9]*$')
[ "$t1" -lt $((a1 + b2 + 20)) ] || fail "report 2's total $t1 holds report 1's samples"

run_java "cpu=samples,file=$T/n-%n.txt" IntervalPhases "$T/n-1.txt"
expect_rc 0
a2=$(count "$T/n-2.txt" "CPU SAMPLES" IntervalPhases.a) b2=$(count "$T/n-2.txt" "CPU SAMPLES" IntervalPhases.b)
[ "$a2" -ge 50 ] && [ "$b2" -ge 50 ] || fail "without reset=y, report 2 should hold both: a() $a2, b() $b2"

# cpu=times: exact calls per interval
run_java "cpu=times,reset=y,file=$T/t-%n.txt" IntervalPhases "$T/t-1.txt"
expect_rc 0
calls() { sed -n '/^METHODS (CPU time) BEGIN/,/^METHODS (CPU time) END/p' "$1" | awk -v n="$2" '$8 == n {print $7}'; }
ca1=$(calls "$T/t-1.txt" IntervalPhases.a) cb1=$(calls "$T/t-1.txt" IntervalPhases.b)
ca2=$(calls "$T/t-2.txt" IntervalPhases.a) cb2=$(calls "$T/t-2.txt" IntervalPhases.b)
note "cpu=times, reset=y: report 1 a() ${ca1:-0} calls, b() ${cb1:-0}; report 2 a() ${ca2:-0}, b() ${cb2:-0}"
[ "${ca1:-0}" -ge 2000 ] && [ -z "$cb1" ] || fail "cpu=times report 1: a() ${ca1:-0} calls, b() ${cb1:-0}"
[ "${cb2:-0}" -ge 2000 ] && [ -z "$ca2" ] || fail "cpu=times report 2: a() ${ca2:-0} calls, b() ${cb2:-0}"

# heap=sites: allocations per interval, exact
run_java "heap=sites,alloc_interval=0,reset=y,file=$T/h-%n.txt" IntervalPhases "$T/h-1.txt"
expect_rc 0
alloc() { sed -n '/^SITES BEGIN/,/^SITES END/p' "$1" | awk -v c="$2" '$NF == c {s += $7} END {print s + 0}'; }
pa1=$(alloc "$T/h-1.txt" 'IntervalPhases$PhaseA') pb1=$(alloc "$T/h-1.txt" 'IntervalPhases$PhaseB')
pa2=$(alloc "$T/h-2.txt" 'IntervalPhases$PhaseA') pb2=$(alloc "$T/h-2.txt" 'IntervalPhases$PhaseB')
note "heap=sites, reset=y: report 1 PhaseA $pa1 PhaseB $pb1 allocated; report 2 PhaseA $pa2 PhaseB $pb2"
[ "$pa1 $pb1 $pa2 $pb2" = "20000 0 0 20000" ] || fail "heap=sites: allocations per interval $pa1 $pb1 / $pa2 $pb2, expected 20000 0 / 0 20000"

run_java "cpu=samples,reset=y,file=$T/plain.txt" IntervalPhases
expect_rc 1
expect_grep "reset=y: each report holds only what came since the one before, and without %n in file=" "$T/err"
exit 0
