# The per-method view (METHODS, method_rows.c): MethodsHot's hot method is
# reached through eight call paths, so no trace row holds more than about an
# eighth of the samples, but the METHODS table ranks hot first with nearly all
# of them, self and total; cpu=times gives its exact number of calls; and
# jvmprof report --methods shows the same from an HPROF binary file, its rows
# chosen by --top and --prefix.
. "$(dirname "$0")/lib.sh"
run_java "cpu=samples,depth=4,file=$T/s.txt" MethodsHot 5000
expect_rc 0
expect_grep "^METHODS (CPU samples) BEGIN" "$T/s.txt"
first=$(sed -n '/^METHODS (CPU samples) BEGIN/,/^METHODS (CPU samples) END/p' "$T/s.txt" | sed -n 3p)
echo "$first" | grep -q ' MethodsHot\.hot$' || fail "first METHODS row is not MethodsHot.hot: $first"
self=$(echo "$first" | awk '{print $2}' | tr -d %)
total=$(echo "$first" | awk '{print $4}' | tr -d %)
awk -v s="$self" -v t="$total" 'BEGIN { exit !(s >= 80 && t >= s) }' || fail "hot: self $self%, total $total%"
toprow=$(cpu_rows "$T/s.txt" | head -1 | awk '{print $2}' | tr -d %)
awk -v r="$toprow" 'BEGIN { exit !(r <= 30) }' || fail "the top trace row holds $toprow%, expected about an eighth"
note "hot: self $self%, total $total% in METHODS; the largest trace row $toprow%"
# each caller cN: total about an eighth, self near 0
for n in 1 8; do
    row=$(sed -n '/^METHODS (CPU samples) BEGIN/,/^METHODS (CPU samples) END/p' "$T/s.txt" | grep " MethodsHot\.c$n$" || true)
    [ -n "$row" ] || fail "no METHODS row for MethodsHot.c$n"
    t=$(echo "$row" | awk '{print $4}' | tr -d %)
    awk -v t="$t" 'BEGIN { exit !(t >= 4 && t <= 25) }' || fail "c$n total $t%, expected about 12.5%"
done
# cpu=times: exact calls
run_java "cpu=times,include=MethodsHot,tiny=0,file=$T/t.txt" MethodsHot 2000
expect_rc 0
row=$(sed -n '/^METHODS (CPU time) BEGIN/,/^METHODS (CPU time) END/p' "$T/t.txt" | sed -n 3p)
echo "$row" | grep -q ' MethodsHot\.hot$' || fail "first cpu=times METHODS row: $row"
[ "$(echo "$row" | awk '{print $7}')" = 16000 ] || fail "hot's calls: $row (8 x 2000 made)"
# jvmprof report --methods from the binary format
run_java "cpu=samples,format=b,file=$T/s.hprof" MethodsHot 5000
expect_rc 0
"$JVMPROF" report "$T/s.hprof" --methods --top 3 >"$T/m.txt" || fail "report --methods failed"
[ "$(grep -c '^ *[0-9]' "$T/m.txt")" = 3 ] || { cat "$T/m.txt" >&2; fail "--top 3: not 3 rows"; }
sed -n 3p "$T/m.txt" | grep -q ' MethodsHot\.hot$' || { cat "$T/m.txt" >&2; fail "report --methods: hot not first"; }
"$JVMPROF" report "$T/s.hprof" --methods --top 0 --prefix java. >"$T/p.txt" || fail "report --methods --prefix failed"
expect_no_grep " MethodsHot\." "$T/p.txt"
"$JVMPROF" report "$T/s.hprof" >"$T/full.txt" || fail "report failed"
expect_grep "^METHODS (CPU samples) BEGIN" "$T/full.txt"
RC=0; "$JVMPROF" report "$T/s.hprof" --top 3 >/dev/null 2>"$T/e" || RC=$?
[ "$RC" = 2 ] && grep -q -- "--top and --prefix choose the rows of --methods" "$T/e" || fail "--top without --methods: rc $RC $(cat "$T/e")"
# a heap dump is not a profile: report says so and where to go, instead of an empty report
run_java "heap=dump,file=$T/d.hprof" Hello
expect_rc 0
RC=0; "$JVMPROF" report "$T/d.hprof" >"$T/o" 2>"$T/e" || RC=$?
[ "$RC" = 1 ] && grep -q "a heap dump, not a profile: read it with jvmprof heap" "$T/e" || fail "report of a heap dump: rc $RC: $(cat "$T/e")"
[ ! -s "$T/o" ] || fail "report of a heap dump printed a report"
echo "t2004 ok"
