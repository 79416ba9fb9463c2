# trace=all on TraceEvents (allocations, collections, a kept object's death,
# monitor contention and a wait, classes loaded and unloaded, all with counts
# it knows): the allocation counts between two user events equal the loop's;
# the kept object's death follows the user event that drops it; collections
# pair start and end, told young or full as often as the JVM's
# GarbageCollectorMXBeans count them; three class loads and unloads of
# TraceEvents$Victim; the contention and the wait on one object id. Light
# and absent classes write nothing of theirs. mintime= keeps whole calls of
# at least that length (TraceSlow). --chrome carries the collections and the
# heap counter; bad combinations of options are refused in one line.
. "$(dirname "$0")/lib.sh"
run_java "trace=all,include=TraceEvents,tracefile=$T/a.trace" TraceEvents
expect_rc 0
expect_grep "^ones 3 young [0-9]* full [0-9]*$" "$T/out"
"$JVMPROF" trace "$T/a.trace" >"$T/a.txt" || fail "jvmprof trace failed"
note "$(grep '^jvmprof: trace:' "$T/err")"

# allocations on main between the two user events: 1000 Blobs, 500 int[7], one Blob[1000]
sed -n '/ main user alloc-start$/,/ main user alloc-end$/p' "$T/a.txt" >"$T/window.txt"
blobs=$(grep -cF ' main alloc object=' "$T/window.txt" | head -1)
n_blob=$(grep -F ' main alloc ' "$T/window.txt" | grep -cF ' TraceEvents$Blob bytes=')
n_int7=$(grep -F ' main alloc ' "$T/window.txt" | grep -F ' [I bytes=' | grep -c ' length=7$')
n_arr=$(grep -F ' main alloc ' "$T/window.txt" | grep -F ' [LTraceEvents$Blob; bytes=' | grep -c ' length=1000$')
[ "$n_blob" = 1000 ] && [ "$n_int7" = 500 ] && [ "$n_arr" = 1 ] ||
    fail "allocations between the user events: $n_blob Blob (want 1000), $n_int7 int[7] (500), $n_arr Blob[1000] (1); $blobs in all"
# the kept Blob (the 124th) dies after "drop kept"; every Blob dies by the end
kept=$(grep -F ' main alloc ' "$T/window.txt" | grep -F ' TraceEvents$Blob bytes=' | sed -n 124p | sed 's/.* object=\([0-9]*\) .*/\1/')
[ -n "$kept" ] || fail "no 124th Blob"
awk -v k="$kept" '/ main user drop kept$/ { dropped = NR } $3 == "free" && $4 == "object=" k { freed = NR }
     END { exit !(dropped && freed > dropped) }' "$T/a.txt" || fail "the kept Blob (object $kept) does not die after 'drop kept'"
grep -F ' main alloc ' "$T/window.txt" | grep -F ' TraceEvents$Blob bytes=' | sed 's/.* object=\([0-9]*\) .*/\1/' | sort >"$T/blob-ids"
awk '$3 == "free" { sub(/object=/, "", $4); print $4 }' "$T/a.txt" | sort >"$T/freed-ids"
[ "$(comm -23 "$T/blob-ids" "$T/freed-ids" | wc -l)" = 0 ] || fail "$(comm -23 "$T/blob-ids" "$T/freed-ids" | wc -l) Blobs never died"
# no object dies twice, and every death is of an object the trace named
[ -z "$(uniq -d "$T/freed-ids")" ] || fail "an object died twice"

# collections: each start has its end; young and full as the JVM's beans count them
young=$(grep "^ones " "$T/out" | sed "s/.* young \([0-9]*\) full.*/\1/")
full=$(grep '^ones ' "$T/out" | sed 's/.* full \([0-9]*\)$/\1/')
[ "$(grep -c ' gc-start #' "$T/a.txt")" = "$(grep -c ' gc-end #' "$T/a.txt")" ] || fail "gc-start and gc-end do not pair"
t_young=$(grep -c ' gc-start #[0-9]* young ' "$T/a.txt")
t_full=$(grep -c ' gc-start #[0-9]* full ' "$T/a.txt")
[ "$t_young" = "$young" ] && [ "$t_full" = "$full" ] ||
    fail "collections in the trace: $t_young young, $t_full full; the JVM counted $young young, $full full"
[ "$full" -ge 3 ] && [ "$young" -ge 1 ] || fail "the program made too few collections: $young young, $full full"
grep -q ' gc-start #[0-9]* full "[^"]*" cause="System.gc()" used-before=[0-9]*$' "$T/a.txt" ||
    fail "no full collection caused by System.gc() with its heap: $(grep -m3 gc-start "$T/a.txt")"
awk '$3 == "gc-end" && $5 == "full" { sub(/used-after=/, "", $6); if ($6 + 0 <= 0) bad++; n++ } END { exit !(n && !bad) }' \
    "$T/a.txt" || fail "a full collection without the heap used after it"

# classes: three loads and three unloads of TraceEvents$Victim (loaded on main)
[ "$(grep -cF ' main class-load TraceEvents$Victim' "$T/a.txt")" = 3 ] || fail "class-load TraceEvents\$Victim: $(grep -cF 'class-load TraceEvents$Victim' "$T/a.txt")"
[ "$(grep -cF ' class-unload TraceEvents$Victim' "$T/a.txt")" = 3 ] || fail "class-unload TraceEvents\$Victim: $(grep -cF 'class-unload TraceEvents$Victim' "$T/a.txt")"

# monitors: main contends for the lock holder holds, enters it, waits and is woken, on one object id
grep ' main monitor ' "$T/a.txt" | grep ' java.lang.Object$' | awk '{ print $4, $5 }' >"$T/mon.txt"
lock=$(awk '$1 == "contended" { print $2; exit }' "$T/mon.txt")
[ -n "$lock" ] || fail "main never contended for the lock: $(cat "$T/mon.txt")"
[ "$(grep -c " $lock\$" "$T/mon.txt")" = 4 ] && [ "$(awk '{ print $1 }' "$T/mon.txt" | tr '\n' ' ')" = "contended entered wait waited " ] ||
    fail "main's monitor events: $(cat "$T/mon.txt")"
expect_grep " holder thread-start holder group=main priority=5$" "$T/a.txt"
# trace=all holds calls too: main's entries and exits of TraceEvents balance
[ "$(grep -c ' main enter ' "$T/a.txt")" = "$(grep -c ' main exit' "$T/a.txt")" ] && grep -q ' main enter TraceEvents.main' "$T/a.txt" ||
    fail "trace=all: main's calls do not balance"

# the object-reference report: the two Nodes (ids as their allocations gave them) hold each other
expect_grep "^references true$" "$T/out"
grep -F ' main alloc ' "$T/a.txt" | grep -F ' TraceEvents$Node bytes=' | sed 's/.* object=\([0-9]*\) .*/\1/' >"$T/nodes"
[ "$(wc -l <"$T/nodes")" = 2 ] || fail "not two Node allocations: $(cat "$T/nodes")"
na=$(sed -n 1p "$T/nodes"); nb=$(sed -n 2p "$T/nodes")
awk '$3 == "object" { cur = $4 } $3 == "reference" { print cur, $4, $5 } $3 == "object-end" { cur = "" }' "$T/a.txt" >"$T/refs"
grep -q "^object=$na object=$nb field" "$T/refs" && grep -q "^object=$nb object=$na field" "$T/refs" ||
    fail "the report lacks the Nodes' references to each other: $(grep "^object=$na \|^object=$nb " "$T/refs")"
[ "$(grep -c "^object=$na " "$T/refs")" -ge 3 ] || fail "Node $na holds fewer than 3 references (class, next, data)"
grep -qF " main object object=$na TraceEvents\$Node object bytes=" "$T/a.txt" || fail "the report does not list Node $na"
grep -q " main references objects=[0-9]* references=[0-9]*$" "$T/a.txt" || fail "no references header"
[ "$(grep -c ' main object object=' "$T/a.txt")" = "$(grep -c ' main object-end$' "$T/a.txt")" ] || fail "objects and ends do not pair"

# light and absent classes: mem:light+user writes collections and user events, nothing else (but the
# object-reference report the program asks for)
run_java "trace=mem:light+user,tracefile=$T/l.trace" TraceEvents
expect_rc 0
"$JVMPROF" trace "$T/l.trace" >"$T/l.txt" || fail "jvmprof trace l.trace failed"
types=$(awk '$3 !~ /^(references|object|reference|object-end)$/ { print $3 }' "$T/l.txt" | sort -u | tr '\n' ' ')
[ "$types" = "gc-end gc-start user " ] || fail "trace=mem:light+user wrote: $types"
# mem without alloc: the deaths of objects the trace named (the monitor's lock), no allocations
run_java "trace=mem+monitor,tracefile=$T/m.trace" TraceEvents
expect_rc 0
"$JVMPROF" trace "$T/m.trace" >"$T/m.txt" || fail "jvmprof trace m.trace failed"
! grep -q ' alloc \| class-load ' "$T/m.txt" || fail "trace=mem+monitor wrote allocations or class loads"
grep -q ' gc-start #' "$T/m.txt" && grep -q ' monitor contended ' "$T/m.txt" || fail "trace=mem+monitor lacks collections or monitors"

# --chrome: collections as instants, the heap used as a counter, read by Python's json
"$JVMPROF" trace "$T/a.trace" --chrome -o "$T/a.json" --type gc-start,gc-end,user || fail "--chrome failed"
python3 - "$T/a.json" "$((young + full))" <<'PY' || fail "the --chrome output lacks the collections"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
starts = [e for e in events if e["ph"] == "i" and e["name"].startswith("gc-start #")]
heap = [e for e in events if e["ph"] == "C" and e["name"] == "heap used"]
assert len(starts) == int(sys.argv[2]), (len(starts), sys.argv[2])
assert len(heap) == 2 * len(starts) and all(e["args"]["bytes"] >= 0 for e in heap), len(heap)
assert any(e["ph"] == "i" and e["name"] == "drop kept" for e in events)
PY

# mintime=10ms,tiny=0: whole calls of at least 10 ms, with depth, length, and the one left by an exception
run_java "trace=exec,mintime=10ms,tiny=0,include=TraceSlow,tracefile=$T/s.trace" TraceSlow
expect_rc 0
expect_grep "^caught late 999000$" "$T/out"
"$JVMPROF" trace "$T/s.trace" >"$T/s.txt" || fail "jvmprof trace s.trace failed"
awk '{ $1 = ""; sub(/^ /, ""); sub(/ duration=[0-9.]*ms/, ""); print }' "$T/s.txt" >"$T/s-shape.txt"
cat >"$T/want-s.txt" <<'TXT'
main call TraceSlow.slow()V depth=3
main call TraceSlow.outer()V depth=2
main call TraceSlow.slow()V depth=3
main call TraceSlow.outer()V depth=2
main call TraceSlow.failing()V depth=2 thrown
main call TraceSlow.main([Ljava/lang/String;)V depth=1
TXT
diff -u "$T/want-s.txt" "$T/s-shape.txt" >&2 || fail "mintime=10ms: not the expected calls"
awk '{ d = $0; sub(/.*duration=/, "", d); sub(/ms.*/, "", d); d += 0; if ($4 ~ /slow|failing/ && (d < 39 || d > 1000)) bad++ }
     END { exit bad > 0 }' "$T/s.txt" || fail "a 40 ms call's duration is off: $(cat "$T/s.txt")"
"$JVMPROF" trace "$T/s.trace" --slowest 2 >"$T/ss.txt" || fail "--slowest on whole calls failed"
[ "$(grep -c '<- TraceSlow.main' "$T/ss.txt")" = 1 ] && grep -q '^ *TraceSlow.main(\[Ljava/lang/String;)V$' "$T/ss.txt" ||
    fail "--slowest 2 on whole calls: $(cat "$T/ss.txt")"

# --collapsed and --flame: the exact call tree; slow() twice under outer() is 80 ms of its own
"$JVMPROF" trace "$T/s.trace" --collapsed >"$T/s.collapsed" || fail "--collapsed failed"
awk '$1 == "[main];TraceSlow.main;TraceSlow.outer;TraceSlow.slow" { ok = $2 >= 80000000 && $2 < 2000000000 }
     END { exit !ok }' "$T/s.collapsed" || fail "--collapsed: no 80 ms in slow() under outer(): $(cat "$T/s.collapsed")"
[ "$(wc -l <"$T/s.collapsed")" = 4 ] || fail "--collapsed: not the 4 paths of the whole calls: $(cat "$T/s.collapsed")"
run_java "trace=exec,include=TraceSlow,tracefile=$T/e.trace" TraceSlow
expect_rc 0
"$JVMPROF" trace "$T/e.trace" --collapsed >"$T/e.collapsed" || fail "--collapsed of every call failed"
grep -q '^\[main\];TraceSlow.main;TraceSlow.outer;TraceSlow.fast [0-9]*$' "$T/e.collapsed" || fail "no fast() in the call tree"
"$JVMPROF" trace "$T/e.trace" --flame -o "$T/e.html" || fail "--flame failed"
grep -q '"unit": "ns"' "$T/e.html" && grep -q '<title>Exact call times</title>' "$T/e.html" || fail "--flame: not a call-time flame graph"
# the page in headless Chromium: a search for TraceSlow.slow matches its share of the call time, in ns
"$ROOT/tools/deps.sh" chromium >&2 && command -v chromium >/dev/null 2>&1 ||
    fail "this test needs Chromium (Debian package chromium) and could not install it: run tools/deps.sh chromium as root"
timeout -k 10 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome-profile" \
    --virtual-time-budget=5000 --dump-dom "file://$T/e.html#search=TraceSlow.slow" >"$T/e.dom" 2>>"$T/chromium.err" ||
    { tail -5 "$T/chromium.err" >&2; fail "chromium --dump-dom failed"; }
matched=$(grep -o 'Matched: [0-9.]*% ([0-9]* of [0-9]* ns)' "$T/e.dom")
note "--flame in Chromium: $matched"
# the page's figures are the trace's own: slow()'s ns (two 40 ms sleeps: at least 80 ms) and the whole's, as
# --collapsed sums them (their ratio depends on how fast the machine ran the rest)
want=$(awk '{ n = $NF; all += n; if ($1 ~ /;TraceSlow\.slow$/) slow += n } END { printf "%d of %d ns", slow, all }' "$T/e.collapsed")
echo "$matched" | grep -q "($want)\$" || fail "--flame: the page's search says '$matched', the trace's call tree $want"
echo "$want" | awk '{ exit !($1 >= 80000000) }' || fail "--flame: slow() has less than its two 40 ms sleeps: $want"
RC=0; "$JVMPROF" trace "$T/e.trace" --flame --type enter -o "$T/x.html" 2>"$T/err" || RC=$?
[ "$RC" = 2 ] && grep -q "do not apply" "$T/err" || fail "--flame --type: $(cat "$T/err")"
# mintime= by default leaves out only what cpu=times counts, the straight-line leaves (fast), which
# tiny=0 leaves out too as they cannot last long: the same calls as tiny=0
run_java "trace=exec,mintime=10ms,include=TraceSlow,tracefile=$T/d.trace" TraceSlow
expect_rc 0
"$JVMPROF" trace "$T/d.trace" | awk '{ $1 = ""; sub(/^ /, ""); sub(/ duration=[0-9.]*ms/, ""); print }' >"$T/d-shape.txt"
diff -u "$T/want-s.txt" "$T/d-shape.txt" >&2 || fail "mintime=10ms by default: not the calls of tiny=0"
# tiny=80, the old trade: the loop-free methods (main, slow, failing) are not traced; outer is
run_java "trace=exec,mintime=10ms,tiny=80,include=TraceSlow,tracefile=$T/d.trace" TraceSlow
expect_rc 0
"$JVMPROF" trace "$T/d.trace" | awk '{ print $3, $4, $5 }' >"$T/d.txt"
printf 'call TraceSlow.outer()V depth=1\ncall TraceSlow.outer()V depth=1\n' | diff -u - "$T/d.txt" >&2 ||
    fail "mintime= with tiny=80: not outer() twice"

# refused, each in one line naming what to do
for bad in "trace=exec:light,mintime=1ms|mintime= keeps the calls of trace=exec" \
           "trace=alloc,heap=sites|trace=alloc with heap=sites" \
           "trace=mem+sampled|'sampled' is no event class" \
           "trace=exec,mintime=5parsecs|mintime=5parsecs"; do
    run_java "${bad%%|*},tracefile=$T/x.trace" Hello
    [ "$RC" != 0 ] && [ "$(grep -c '^jvmprof:' "$T/err")" = 1 ] && grep -qF "${bad#*|}" "$T/err" ||
        fail "${bad%%|*}: $(cat "$T/err")"
done
