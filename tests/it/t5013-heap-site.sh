# `jvmprof heap FILE --site TRACE|REPORT`: what holds the objects of one allocation site. LeakAmong
# allocates from many sites (Token, Line and its char[], byte[]: all dropped) and leaks from one:
# register() keeps 1000 Session a round, for 20 rounds, in the static HashMap SESSIONS. Run with
# heap=sites,lifetimes=y and a dump from Control.dumpHeap at the end:
#  1. the report has a LEAK SUSPECT line for LeakAmong$Session (and none for the dropped classes);
#  2. --site REPORT names that site (its trace, register() at the line of SESSIONS.put as its top
#     frame) and one path holding every one of its objects in the dump: the static field
#     LeakAmong.SESSIONS, the map's .table, any element [*], the node's .value, the Session; the
#     map's keys (Long, also a suspect) are held by .key on the same path;
#  3. a dropped site's trace (a CHURN line's): no object carries it, said so, exit 0;
#  4. a dump without traces (HotSpot's dumper, no heap=sites) is refused in one line (exit 1), and
#     bad --site values (0, a missing file, a file with no LEAK SUSPECT line) in one line (exit 2).
. "$(dirname "$0")/lib.sh"
SRC="$ROOT/tests/programs/LeakAmong.java"
PUT_LINE=$(src_line "$SRC" "SESSIONS.put(id, new Session(id))")

run_java "heap=sites,lifetimes=y,alloc_interval=1k,depth=4,file=$T/r.txt" LeakAmong dump "$T/d.hprof"
expect_rc 0
expect_grep "^dump $T/d.hprof true$" "$T/out"
expect_grep "^sessions 20000$" "$T/out"

# ---- 1. the leak suspect, and only it ----
lt=$(sed -n 's/^LEAK SUSPECT: site [0-9]* (trace \([0-9]*\), LeakAmong\$Session).*/\1/p' "$T/r.txt")
[ -n "$lt" ] || { grep "^LEAK SUSPECT\|^CHURN" "$T/r.txt" >&2; fail "no LEAK SUSPECT line for LeakAmong\$Session"; }
! grep -q "^LEAK SUSPECT: .*\(Token\|Line\|char\[\]\|byte\[\]\))" "$T/r.txt" || fail "a dropped class is a leak suspect: $(grep '^LEAK SUSPECT' "$T/r.txt")"

# ---- 2. --site REPORT ----
"$JVMPROF" heap "$T/d.hprof" --site "$T/r.txt" --tsv >"$T/s.tsv" 2>"$T/e" || { cat "$T/e" >&2; fail "--site REPORT --tsv failed"; }
# the Session suspect's block: from its site line to the next site line
awk -F'\t' -v t="$lt" '$1 == "site" { on = ($2 == t && $3 == "LeakAmong$Session") } on' "$T/s.tsv" >"$T/sess"
objs=$(awk -F'\t' '$1 == "site" { print $4 }' "$T/sess")
[ -n "$objs" ] && [ "$objs" -gt 0 ] || { cat "$T/s.tsv" >&2; fail "no Session object carries trace $lt in the dump"; }
grep -qx "frame	0	LeakAmong.register(LeakAmong.java:$PUT_LINE)" "$T/sess" ||
    fail "trace $lt's top frame is not register() at line $PUT_LINE: $(grep '^frame' "$T/sess" | head -2)"
ngroups=$(grep -c "^group" "$T/sess")
[ "$ngroups" = 1 ] || fail "the Session objects are held through $ngroups paths, expected 1: $(grep '^group' "$T/sess")"
gobjs=$(awk -F'\t' '$1 == "group" { print $3 }' "$T/sess")
[ "$gobjs" = "$objs" ] || fail "the one path holds $gobjs of the $objs Session objects"
# the path's last four steps, written by hand from the program and java.util.HashMap
awk -F'\t' '$1 == "step" { print $4 "\t" $5 "\t" $6 }' "$T/sess" | tail -4 >"$T/steps"
printf '%s\n' "static LeakAmong.SESSIONS	java.util.HashMap" ".table	java.util.HashMap\$Node[]" \
    "[*]	*	java.util.HashMap\$Node" ".value	*	LeakAmong\$Session" >"$T/want"
awk -F'\t' 'NR <= 2 { print $1 "\t" $3; next } { print }' "$T/steps" >"$T/got"
diff "$T/want" "$T/got" >&2 || fail "the Session objects' path is not static SESSIONS .table [*] .value"
# the map's keys: a suspect of their own (Long.valueOf in register()), held by .key on the same path
kt=$(sed -n 's/^LEAK SUSPECT: site [0-9]* (trace \([0-9]*\), java.lang.Long).*/\1/p' "$T/r.txt")
if [ -n "$kt" ]; then
    awk -F'\t' -v t="$kt" '$1 == "site" { on = ($2 == t) } on && $1 == "step" { last = $4 "\t" $6 } END { print last }' \
        "$T/s.tsv" | grep -qx ".key	java.lang.Long" || fail "the Long keys (trace $kt) are not held by .key"
fi
# the text names the suspect and the static field
"$JVMPROF" heap "$T/d.hprof" --site "$T/r.txt" >"$T/s.txt" || fail "--site REPORT failed"
expect_grep "^LEAK SUSPECT site [0-9]*: trace $lt, LeakAmong\$Session: $objs objects in the dump carry it" "$T/s.txt"
expect_grep "^      static LeakAmong.SESSIONS  0x[0-9a-f]* java.util.HashMap$" "$T/s.txt"
expect_grep "^      .value  $objs objects LeakAmong\$Session$" "$T/s.txt"
note "trace $lt: $objs LeakAmong\$Session in the dump, all held through static LeakAmong.SESSIONS"

# --site TRACE: the same objects, the trace's every class
"$JVMPROF" heap "$T/d.hprof" --site "$lt" --tsv >"$T/t.tsv" || fail "--site $lt failed"
grep -q "^class	LeakAmong\$Session	$objs	" "$T/t.tsv" || fail "--site $lt: not $objs Session objects: $(grep '^class' "$T/t.tsv")"

# ---- 3. a dropped site ----
ct=$(sed -n 's/^CHURN: site [0-9]* (trace \([0-9]*\), LeakAmong\$Token).*/\1/p' "$T/r.txt")
[ -n "$ct" ] || fail "no CHURN line for LeakAmong\$Token"
"$JVMPROF" heap "$T/d.hprof" --site "$ct" >"$T/c.txt" || fail "--site $ct (a dropped site) failed"
expect_grep "^trace $ct: 0 objects in the dump carry it" "$T/c.txt"
expect_grep "none of its sampled objects was alive when the dump was taken" "$T/c.txt"

# ---- 4. refusals ----
run_java "heap=dump,dumper=hotspot,file=$T/hs.hprof" LeakAmong
expect_rc 0
RC=0; "$JVMPROF" heap "$T/hs.hprof" --site "$lt" >"$T/o" 2>"$T/e" || RC=$?
[ "$RC" = 1 ] && [ "$(wc -l <"$T/e")" = 1 ] && grep -q "no object carries an allocation trace" "$T/e" ||
    fail "a dump without traces: exit $RC, $(cat "$T/e")"
for bad in 0 "$T/missing.txt" "$T/out"; do
    RC=0; "$JVMPROF" heap "$T/d.hprof" --site "$bad" >"$T/o" 2>"$T/e" || RC=$?
    [ "$RC" = 2 ] && [ "$(wc -l <"$T/e")" = 1 ] || fail "--site $bad: exit $RC, $(cat "$T/e")"
done
RC=0; "$JVMPROF" heap "$T/d.hprof" --site "$lt" --retained >"$T/o" 2>"$T/e" || RC=$?
[ "$RC" = 2 ] || fail "--site with --retained: exit $RC"
echo "t5013 ok"
