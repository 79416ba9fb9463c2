# `jvmprof heap A --diff B`: two jcmd dumps of GrowingLeak, after 1000 and after 3000 Leaks, each
# holding its own byte[100]. With compressed references (the default) a Leak is 12 + 4 = 16 bytes and
# its byte[100] 16 + 100 -> 120: the class GrowingLeak$Leak retains 1000 x 136 = 136000 bytes in A,
# 408000 in B (+272000), with 1000 then 3000 instances; the class byte[] grows by 2000 x 120 = 240000
# at least. Rows sorted by retained growth; --tsv; --top; one-line errors.
. "$(dirname "$0")/lib.sh"
cd "$T"
JCMD="$JAVA_HOME/bin/jcmd"
"$JAVA" -cp "$CLASSES" GrowingLeak "$T/go" "$T/stop" >"$T/out" 2>"$T/err" &
PID=$!
trap 'touch "$T/go" "$T/stop"; kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T"' EXIT
wait_line() {
    for _ in $(seq 1 300); do
        grep -q "^$1\$" "$T/out" 2>/dev/null && return 0
        kill -0 $PID 2>/dev/null || { cat "$T/err" >&2; fail "GrowingLeak exited early"; }
        sleep 0.1
    done
    fail "GrowingLeak never printed '$1'"
}
wait_line "step 1"
"$JCMD" $PID GC.heap_dump "$T/a.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd (A) failed"; }
touch "$T/go"
wait_line "step 2"
"$JCMD" $PID GC.heap_dump "$T/b.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd (B) failed"; }
touch "$T/stop"
wait $PID || fail "GrowingLeak failed"
grep -qx 3000 "$T/out" || fail "GrowingLeak did not end with 3000 Leaks: $(cat "$T/out")"

"$JVMPROF" heap "$T/a.hprof" --diff "$T/b.hprof" --tsv --top 0 >"$T/d.tsv" 2>"$T/e" || { cat "$T/e" >&2; fail "--diff --tsv failed"; }
[ "$(head -1 "$T/d.tsv")" = "$(printf 'rule\tevery-reference')" ] || fail "the rule row: $(head -1 "$T/d.tsv")"
leak=$(awk -F'\t' '$1 == "diff" && $2 == "GrowingLeak$Leak"' "$T/d.tsv")
[ "$leak" = "$(printf 'diff\tGrowingLeak$Leak\t1000\t3000\t16000\t48000\t136000\t408000')" ] ||
    fail "the Leak row: '$leak', expected 1000 -> 3000 instances, 16000 -> 48000 shallow, 136000 -> 408000 retained"
bytes=$(awk -F'\t' '$1 == "diff" && $2 == "byte[]" { print $8 - $7 }' "$T/d.tsv")
[ -n "$bytes" ] && [ "$bytes" -ge 240000 ] || fail "byte[]'s retained size grew by $bytes, expected at least 240000"
# sorted by retained growth; the Leak row among the first (its holders, the ArrayList and its Object[], grow as much)
awk -F'\t' '$1 == "diff" { g = $8 - $7; if (n++ && g > prev) bad = 1; prev = g } END { exit bad }' "$T/d.tsv" ||
    fail "rows not sorted by retained growth"
rank=$(awk -F'\t' '$1 == "diff" { n++ } $2 == "GrowingLeak$Leak" { print n; exit }' "$T/d.tsv")
[ "$rank" -le 5 ] || fail "GrowingLeak\$Leak is row $rank by growth, expected among the first 5"
note "GrowingLeak\$Leak: row $rank, +272000 bytes retained, +2000 instances; byte[] +$bytes"

# the text: both dumps named, the table, --top
"$JVMPROF" heap "$T/a.hprof" --diff "$T/b.hprof" --top 5 >"$T/d.txt" || fail "--diff failed"
grep -q "^A: $T/a.hprof: [0-9]* objects, [0-9]* reachable ([0-9]* bytes), compressed references$" "$T/d.txt" || fail "no A line: $(head -2 "$T/d.txt")"
grep -q "^B: $T/b.hprof: " "$T/d.txt" || fail "no B line"
grep -qE '^ +[0-9]+ +1000 +3000 +\+2000 +\+32000 +136000 +408000 +\+272000  GrowingLeak\$Leak$' "$T/d.txt" ||
    { cat "$T/d.txt" >&2; fail "no text row for GrowingLeak\$Leak"; }
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[-+][0-9]+ ' "$T/d.txt")" = 5 ] || fail "--top 5: not 5 rows"
grep -q "^(.* more classes; --top 0 shows all)$" "$T/d.txt" || fail "no line saying more classes"

# errors: one line each
RC=0; "$JVMPROF" heap "$T/a.hprof" --diff 2>"$T/e" || RC=$?
[ "$RC" = 2 ] && [ "$(wc -l <"$T/e")" = 1 ] && grep -q "^jvmprof: heap: --diff needs the second dump" "$T/e" || fail "--diff alone: $RC $(cat "$T/e")"
RC=0; "$JVMPROF" heap "$T/a.hprof" --diff "$T/nothing.hprof" >/dev/null 2>"$T/e" || RC=$?
[ "$RC" = 1 ] && [ "$(wc -l <"$T/e")" = 1 ] && grep -q "nothing.hprof" "$T/e" || fail "missing B: $RC $(cat "$T/e")"
RC=0; "$JVMPROF" heap "$T/a.hprof" --diff "$T/b.hprof" --retained 2>"$T/e" || RC=$?
[ "$RC" = 2 ] && grep -q "^jvmprof: heap: --diff compares two dumps' classes; it takes no --retained" "$T/e" || fail "--diff --retained: $RC $(cat "$T/e")"
head -c 1000 "$T/b.hprof" >"$T/cut.hprof"
RC=0; "$JVMPROF" heap "$T/a.hprof" --diff "$T/cut.hprof" >/dev/null 2>"$T/e" || RC=$?
[ "$RC" = 1 ] && [ "$(wc -l <"$T/e")" = 1 ] && grep -q "cut.hprof: " "$T/e" || fail "truncated B: $RC $(cat "$T/e")"
echo "t5008 ok"
