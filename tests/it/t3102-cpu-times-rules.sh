# cpu=times method rules and class filters: with tiny=12 the loop-free methods of at most
# 12 bytes (and the straight-line leaves, the default's) are counted, not timed (CALLS COUNTED,
# exact counts, not in CPU TIME), a leaf with a loop is timed; tiny=0 times them all; a non-system <clinit> is
# instrumented, a java.* <clinit> never; include= and exclude= select classes
# by dotted prefix (exclude wins); bad values and options that would be
# ignored stop the VM with one line.
. "$(dirname "$0")/lib.sh"
rows() { sed -n '/^CPU TIME (ms) BEGIN/,/^CPU TIME (ms) END/p' "$1" | awk 'NR > 2 && $6 != "" { print $6 }' | sort -u; }

run_java "cpu=times,cutoff=0,tiny=12,file=$T/a.txt" filt.main.FiltMain
expect_rc 0
[ "$(cat "$T/out")" = ok ] || fail "program output changed"
rows "$T/a.txt" >"$T/a.rows"
calls() { sed -n '/^CPU TIME (ms) BEGIN/,/END/p' "$1" | awk -v m="$2" '$6 == m { c += $4 } END { print c + 0 }'; }
for m in filt.main.FiltMain.work filt.main.FiltMain.main 'filt.main.FiltMain.<clinit>' filt.lib.Lib.spin; do
    grep -qxF "$m" "$T/a.rows" || fail "$m missing from the CPU TIME table"
done
for m in filt.lib.Lib.get filt.lib.Lib.compute 'filt.lib.Lib.<init>'; do
    ! grep -qxF "$m" "$T/a.rows" || fail "$m (at most 12 bytes, no loop) was timed"
done
counted() { sed -n '/^CALLS COUNTED BEGIN/,/^CALLS COUNTED END/p' "$1" | awk -v m="$2" '$5 == m { c += $4 } END { print c + 0 }'; }
[ "$(counted "$T/a.txt" 'filt.lib.Lib.get()I')" = 2000 ] || fail "Lib.get not counted 2000 times (1000 direct, 1000 from compute): $(counted "$T/a.txt" 'filt.lib.Lib.get()I')"
[ "$(counted "$T/a.txt" 'filt.lib.Lib.compute(I)I')" = 1000 ] || fail "Lib.compute not counted 1000 times"
[ "$(counted "$T/a.txt" 'filt.lib.Lib.<init>(I)V')" = 1 ] || fail "Lib.<init> not counted once"
[ "$(counted "$T/a.txt" 'filt.lib.Lib.spin(I)I')" = 0 ] || fail "Lib.spin (a loop) was counted, not timed"
total=$(sed -n 's/^CALLS COUNTED BEGIN (total = \([0-9]*\) calls.*/\1/p' "$T/a.txt")
sum=$(sed -n '/^CALLS COUNTED BEGIN/,/^CALLS COUNTED END/p' "$T/a.txt" | awk 'NR > 2 && $4 ~ /^[0-9]+$/ { c += $4 } END { print c + 0 }')
[ "$total" = "$sum" ] || fail "CALLS COUNTED total $total is not the sum of its rows ($sum, cutoff=0)"
grep -q "^jvmprof: cpu=times: .* counted calls of [0-9]* methods" "$T/err" || fail "verbose line does not give the counted calls"
note "counted: $(grep -o '[0-9]* counted calls of [0-9]* methods' "$T/err")"
! grep -q '^java\..*\.<clinit>$' "$T/a.rows" || fail "a java.* <clinit> was instrumented: $(grep '^java\..*<clinit>' "$T/a.rows" | head -1)"
[ "$(calls "$T/a.txt" filt.lib.Lib.spin)" = 1000 ] || fail "Lib.spin not counted 1000 times"

# by default the getter (a straight-line leaf) is counted; compute, which calls it, is timed
run_java "cpu=times,cutoff=0,file=$T/d.txt" filt.main.FiltMain
expect_rc 0
[ "$(counted "$T/d.txt" 'filt.lib.Lib.get()I')" = 2000 ] || fail "default: Lib.get not counted 2000 times: $(counted "$T/d.txt" 'filt.lib.Lib.get()I')"
[ "$(calls "$T/d.txt" filt.lib.Lib.compute)" = 1000 ] || fail "default: Lib.compute (it calls) not timed 1000 times: $(calls "$T/d.txt" filt.lib.Lib.compute)"
[ "$(counted "$T/d.txt" 'filt.lib.Lib.compute(I)I')" = 0 ] || fail "default: Lib.compute was counted"

run_java "cpu=times,cutoff=0,tiny=0,file=$T/z.txt" filt.main.FiltMain
expect_rc 0
[ "$(calls "$T/z.txt" filt.lib.Lib.get)" = 2000 ] || fail "tiny=0: Lib.get not counted 2000 times (1000 direct, 1000 from compute)"
[ "$(calls "$T/z.txt" filt.lib.Lib.compute)" = 1000 ] || fail "tiny=0: Lib.compute not counted 1000 times"
[ "$(calls "$T/z.txt" 'filt.lib.Lib.<init>')" = 1 ] || fail "tiny=0: Lib.<init> not counted once"
! grep -q '^CALLS COUNTED BEGIN' "$T/z.txt" || fail "tiny=0 counted methods without timing them"

run_java "cpu=times,cutoff=0,include=filt.lib.,file=$T/i.txt" filt.main.FiltMain
expect_rc 0
rows "$T/i.txt" >"$T/i.rows"
grep -qxF filt.lib.Lib.spin "$T/i.rows" || fail "include=filt.lib. lost Lib.spin"
[ -z "$(grep -v '^filt\.lib\.' "$T/i.rows")" ] || fail "include=filt.lib. let in $(grep -v '^filt\.lib\.' "$T/i.rows" | head -3)"

run_java "cpu=times,cutoff=0,include=filt.:java.util.,exclude=filt.lib/,file=$T/e.txt" filt.main.FiltMain
expect_rc 0
rows "$T/e.txt" >"$T/e.rows"
grep -qxF filt.main.FiltMain.work "$T/e.rows" || fail "include=filt. lost FiltMain.work"
! grep -q '^filt\.lib\.' "$T/e.rows" || fail "exclude=filt.lib/ did not exclude filt.lib.Lib"
[ -z "$(grep -v -e '^filt\.' -e '^java\.util\.' "$T/e.rows")" ] || fail "include let in $(grep -v -e '^filt\.' -e '^java\.util\.' "$T/e.rows" | head -3)"

bad() {
    run_java "$1" filt.main.FiltMain
    [ "$RC" != 0 ] || fail "$1 was accepted"
    grep -q "^jvmprof: .*$2" "$T/err" || { cat "$T/err" >&2; fail "$1: no message about '$2'"; }
    [ "$(grep -c '^jvmprof:' "$T/err")" = 1 ] || fail "$1: more than one line of error"
    note "$1 -> $(grep '^jvmprof:' "$T/err")"
}
bad "cpu=samples,include=filt." "include= applies to bytecode instrumentation"
bad "tiny=4" "tiny= applies to cpu=times and to trace=exec with mintime="
bad "cpu=times,tiny=-1" "tiny=-1"
bad "exclude=filt." "exclude= applies to bytecode instrumentation"
bad "cpu=times,include=a::b" "include=a::b: empty prefix at position 3"
bad "cpu=times,exclude=a,b" "unknown option 'b'"
bad "cpu=times,include=" "include=: expected"
bad "cpu=old" "cpu=old"
