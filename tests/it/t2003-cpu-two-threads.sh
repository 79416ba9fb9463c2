# cpu=samples with several running threads. The async sampler has a timer on
# each thread's CPU clock, so two threads spinning in spinA() and spinB() each
# get about half of the samples. sampler=jvmti samples one running thread at
# random each round and weights it by the number running: the same halves,
# and a total of about (running threads) x (rounds).
. "$(dirname "$0")/lib.sh"
run_java "cpu=samples,interval=5,file=$T/a.txt" TwoSpinners 4
expect_rc 0
a=$(cpu_rows "$T/a.txt" | awk '$6 == "TwoSpinners.spinA" {s += $2} END {print s + 0}')
b=$(cpu_rows "$T/a.txt" | awk '$6 == "TwoSpinners.spinB" {s += $2} END {print s + 0}')
note "async: spinA ${a}%, spinB ${b}%"
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a >= 35 && a <= 65 && b >= 35 && b <= 65 && a + b >= 90) }' ||
    fail "async shares spinA $a% / spinB $b% not both within 15 points of 50%"

run_java "cpu=samples,sampler=jvmti,interval=5,file=$T/p.txt" TwoSpinners 4
expect_rc 0
cpu_rows "$T/p.txt" | head -4 >&2
a=$(cpu_rows "$T/p.txt" | awk '$6 == "TwoSpinners.spinA" {s += $2} END {print s + 0}')
b=$(cpu_rows "$T/p.txt" | awk '$6 == "TwoSpinners.spinB" {s += $2} END {print s + 0}')
note "spinA ${a}%, spinB ${b}%"
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a >= 35 && a <= 65 && b >= 35 && b <= 65 && a + b >= 90) }' ||
    fail "shares spinA $a% / spinB $b% not both within 15 points of 50%"
total=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/p.txt" | grep -o '[0-9]*$')
rounds=$(grep -o '[0-9]* sampling rounds' "$T/err" | grep -o '^[0-9]*')
note "$total samples in $rounds rounds"
[ "$total" -gt "$rounds" ] || fail "two running threads but only $total samples in $rounds rounds (weights missing)"
