# %n in file= (and flame=) numbers the reports: a report asked for by the
# program (Control.dump) goes to r1.txt, the one at exit to r2.txt, each
# complete (everything since the start); no file keeps the literal %n.
. "$(dirname "$0")/lib.sh"
D="$T"
run_java "cpu=samples,file=$D/r%n.txt,collapsed=$D/c%n.txt" Sessions "$D" spin1 reflect-dump spin2 spin3
expect_rc 0
expect_grep "^reflect-dump true$" "$T/out"
[ -f "$D/r1.txt" ] && [ -f "$D/r2.txt" ] || { ls "$D" >&2; fail "r1.txt and r2.txt expected"; }
[ -f "$D/c1.txt" ] && [ -f "$D/c2.txt" ] || { ls "$D" >&2; fail "c1.txt and c2.txt expected"; }
ls "$D" | grep -q '%n' && fail "a file kept the literal %n: $(ls "$D")"
expect_grep "Sessions.phaseOneSpin" "$D/r1.txt"
expect_no_grep "Sessions.phaseThreeSpin" "$D/r1.txt"
expect_grep "Sessions.phaseOneSpin" "$D/r2.txt"
expect_grep "Sessions.phaseThreeSpin" "$D/r2.txt"
n1=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$D/r1.txt" | grep -o '[0-9]*$')
n2=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$D/r2.txt" | grep -o '[0-9]*$')
[ "$n2" -gt "$n1" ] || fail "the report at exit ($n2 samples) holds no more than the first ($n1)"
note "r1.txt $n1 samples, r2.txt $n2"
echo "t6003 ok"
