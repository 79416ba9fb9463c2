# cpu=samples: a program spending ~75% of its CPU in heavy() and ~25% in
# light() gets a report whose top two entries are those methods, with shares
# within 10 points of 75 and 25.
. "$(dirname "$0")/lib.sh"
run_java "cpu=samples,interval=10,file=$T/p.txt" HotLoop 4
expect_rc 0
[ "$(cat "$T/out")" = done ] || fail "program output changed"
expect_grep "CPU SAMPLES END" "$T/p.txt"
cpu_rows "$T/p.txt" | head -5 >&2
read -r _ s1 _ c1 _ m1 <<<"$(cpu_rows "$T/p.txt" | sed -n 1p)"
read -r _ s2 _ c2 _ m2 <<<"$(cpu_rows "$T/p.txt" | sed -n 2p)"
[ "$m1" = HotLoop.heavy ] || fail "top entry is $m1, expected HotLoop.heavy"
[ "$m2" = HotLoop.light ] || fail "second entry is $m2, expected HotLoop.light"
total=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/p.txt" | grep -o '[0-9]*$')
[ "$total" -ge 200 ] || fail "only $total samples in 4 s at interval=10"
awk -v a="${s1%\%}" -v b="${s2%\%}" 'BEGIN { exit !(a >= 65 && a <= 85 && b >= 15 && b <= 35) }' ||
    fail "shares $s1 / $s2 not within 10 points of 75% / 25%"
note "heavy $s1, light $s2 of $total samples"
