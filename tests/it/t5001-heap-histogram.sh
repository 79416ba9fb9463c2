# `jvmprof heap` on a real HotSpot heap dump (jcmd GC.heap_dump, HPROF 1.0.2,
# 8-byte ids, HEAP DUMP SEGMENTs): HeapShape holds exactly 12345 Node, 777
# Leaf and 2000 int[100]; the histogram must count them exactly. Also one-line
# errors for a missing and a truncated file, and the reader's speed.
. "$(dirname "$0")/lib.sh"
cd "$T"
JCMD="$JAVA_HOME/bin/jcmd"
# no `timeout` wrapper: jcmd needs the java process id itself (HeapShape quits after 60 s)
"$JAVA" -cp "$CLASSES" HeapShape "$T/stop" >"$T/out" 2>"$T/err" &
PID=$!
trap 'touch "$T/stop"; kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 1 300); do
    grep -q '^ready$' "$T/out" 2>/dev/null && break
    kill -0 $PID 2>/dev/null || { cat "$T/err" >&2; fail "HeapShape exited early"; }
    sleep 0.1
done
grep -q '^ready$' "$T/out" || fail "HeapShape did not get ready"
"$JCMD" $PID GC.heap_dump -all=false "$T/h.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd GC.heap_dump failed"; }
[ -s "$T/h.hprof" ] || fail "jcmd wrote no dump"
touch "$T/stop"
wait $PID || fail "HeapShape failed"

"$JVMPROF" heap "$T/h.hprof" --top 0 >"$T/hist.txt" 2>"$T/e" || { cat "$T/e" >&2; fail "jvmprof heap failed"; }
head -1 "$T/hist.txt" | grep -q "HPROF 1.0.2 heap dump, 8-byte ids: [0-9]* instances, [0-9]* bytes, [0-9]* classes" ||
    { head -3 "$T/hist.txt" >&2; fail "bad header line"; }
# row: rank instances bytes class
row() { awk -v c="$1" '$4 == c && NF == 4' "$T/hist.txt"; }
[ "$(row 'HeapShape$Node' | awk '{print $2}')" = 12345 ] || { row 'HeapShape$Node' >&2; fail "not 12345 HeapShape\$Node"; }
[ "$(row 'HeapShape$Leaf' | awk '{print $2}')" = 777 ] || { row 'HeapShape$Leaf' >&2; fail "not 777 HeapShape\$Leaf"; }
[ "$(row 'HeapShape$Leaf[]' | awk '{print $2}')" = 1 ] || fail "not one HeapShape\$Leaf[]"
ints=$(row 'int[]' | awk '{print $2}')
[ -n "$ints" ] && [ "$ints" -ge 2000 ] || fail "fewer than 2000 int[] ($ints)"
# Node: int + reference = 12 bytes of fields as dumped; 16 + 12 rounded to 8 = 32
[ "$(row 'HeapShape$Node' | awk '{print $3}')" = $((12345 * 32)) ] || fail "HeapShape\$Node bytes are not 12345 x 32"
# Leaf: two longs; 16 + 16 = 32
[ "$(row 'HeapShape$Leaf' | awk '{print $3}')" = $((777 * 32)) ] || fail "HeapShape\$Leaf bytes are not 777 x 32"
# int[100]: 20 + 400 = 420 -> 424 each, so int[] holds at least 2000 x 424
[ "$(row 'int[]' | awk '{print $3}')" -ge $((2000 * 424)) ] || fail "int[] bytes too small"
# sorted by bytes, descending; totals add up
awk 'NR > 2 && NF == 4 { if (prev != "" && $3 > prev) bad = 1; prev = $3; n += $2; b += $3 }
     END { exit bad }' "$T/hist.txt" || fail "rows not sorted by bytes"
tot=$(head -1 "$T/hist.txt" | sed 's/.*ids: \([0-9]*\) instances, \([0-9]*\) bytes, \([0-9]*\) classes/\1 \2 \3/')
sum=$(awk 'NR > 2 && NF == 4 { n += $2; b += $3; c++ } END { print n, b, c }' "$T/hist.txt")
[ "$tot" = "$sum" ] || fail "header totals ($tot) differ from the rows ($sum)"
# --top and -o
"$JVMPROF" heap "$T/h.hprof" --top 3 -o "$T/top.txt" || fail "heap --top 3 -o failed"
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+  ' "$T/top.txt")" = 3 ] || fail "--top 3 does not print 3 rows"
cmp -s <(sed -n 1,5p "$T/top.txt") <(sed -n 1,5p "$T/hist.txt") || fail "--top 3 rows differ from --top 0's first rows"
if "$JVMPROF" heap "$T/h.hprof" --top x 2>"$T/e"; then fail "--top x accepted"; fi

# errors: one line each
if "$JVMPROF" heap "$T/missing.hprof" >"$T/o" 2>"$T/e"; then fail "missing file accepted"; fi
[ "$(wc -l <"$T/e")" = 1 ] && grep -q "^jvmprof: .*missing.hprof" "$T/e" || { cat "$T/e" >&2; fail "no one-line error for a missing file"; }
size=$(stat -c %s "$T/h.hprof")
for cut in 100 $((size / 2)) $((size - 1)); do
    head -c $cut "$T/h.hprof" >"$T/cut.hprof"
    if "$JVMPROF" heap "$T/cut.hprof" >"$T/o" 2>"$T/e"; then fail "file cut at $cut bytes accepted"; fi
    [ "$(wc -l <"$T/e")" = 1 ] && grep -qE "^jvmprof: .*cut.hprof: .*(truncated|not closed)" "$T/e" ||
        { cat "$T/e" >&2; fail "no one-line truncation error (cut at $cut)"; }
    note "cut at $cut of $size: $(cat "$T/e")"
done

# speed: the dump read 10 times from the page cache
cat "$T/h.hprof" >/dev/null
start=$(date +%s%N)
for _ in 1 2 3 4 5 6 7 8 9 10; do "$JVMPROF" heap "$T/h.hprof" >/dev/null || fail "heap failed"; done
ns=$(( $(date +%s%N) - start ))
note "read $((size * 10)) bytes in $((ns / 1000000)) ms (10 runs, process start included): $(( size * 10 * 1000 / (ns + 1) )) MB/s"
exit 0
