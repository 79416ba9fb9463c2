# cpu=samples: a program spending ~75% of its CPU in heavy() and ~25% in
# light() gets a report whose top two entries are those methods, with shares
# (over all their rows) within 10 points of the split the program measured itself (each call's
# thread CPU time: about 75/25, but a busy machine that delays the JIT moves
# it).
. "$(dirname "$0")/lib.sh"
run_java "cpu=samples,interval=10,file=$T/p.txt" HotLoop 4 measure
expect_rc 0
[ "$(cat "$T/out")" = done ] || fail "program output changed"
expect_grep "CPU SAMPLES END" "$T/p.txt"
cpu_rows "$T/p.txt" | head -5 >&2
read -r _ s1 _ c1 _ m1 <<<"$(cpu_rows "$T/p.txt" | sed -n 1p)"
[ "$m1" = HotLoop.heavy ] || fail "top entry is $m1, expected HotLoop.heavy"
# the second method by samples over all its rows (heavy's ~75% can fall on two lines, so its second
# row can come before light's one)
m2=$(cpu_rows "$T/p.txt" | awk '{ n[$6] += $4 } END { for (m in n) print n[m], m }' | sort -rn | sed -n 2p | awk '{print $2}')
[ "$m2" = HotLoop.light ] || fail "second method is $m2, expected HotLoop.light"
total=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/p.txt" | grep -o '[0-9]*$')
[ "$total" -ge 200 ] || fail "only $total samples in 4 s at interval=10"
read -r mh ml < <(sed -n 's/^measured: heavy \([0-9.]*\)% light \([0-9.]*\)%$/\1 \2/p' "$T/err")
# each method's share over all its rows (a method's samples can fall on two lines, so two traces)
share() { cpu_rows "$T/p.txt" | awk -v m="$1" '$6 == m { s += $2 } END { printf "%.2f%%", s }'; }
s1=$(share HotLoop.heavy) s2=$(share HotLoop.light)
[ -n "$mh" ] || fail "HotLoop printed no measured split: $(cat "$T/err")"
awk -v a="${s1%\%}" -v b="${s2%\%}" -v ma="$mh" -v mb="$ml" \
    'BEGIN { d = a - ma; e = b - mb; exit !(d * d <= 100 && e * e <= 100 && ma >= 50) }' ||
    fail "shares $s1 / $s2 not within 10 points of the measured $mh% / $ml%"
note "heavy $s1, light $s2 of $total samples; measured by the program $mh% / $ml%"
