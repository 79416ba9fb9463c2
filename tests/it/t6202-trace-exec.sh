# trace=exec+thread+user on TraceCalls (a known call tree): jvmprof trace
# gives exactly the expected entries and exits with their depths, exits by
# exception marked exit-throw (a constructor's closed by the next exit),
# the user events in order between the calls around them, and the helper
# thread's start, calls and end. Then 200 threads (ManyThreads) under
# trace=exec+thread: every thread's entries and exits balance. tracelimit=
# stops the trace at the limit and says so; a bad tracefile= stops the VM
# with one line.
. "$(dirname "$0")/lib.sh"
run_java "trace=exec+thread+user,include=TraceCalls,tracefile=$T/t.trace" TraceCalls
expect_rc 0
expect_grep "^TraceCalls true$" "$T/out"
expect_grep "^jvmprof: trace: [0-9]* events in [0-9]* chunks to $T/t.trace" "$T/err"
[ ! -e "$T/java.hprof.txt" ] || fail "trace= alone wrote a report"
"$JVMPROF" trace "$T/t.trace" >"$T/all.txt" || fail "jvmprof trace failed"
# thread, event, method or message, depth: the time column dropped
shape() { awk -v th="$1" '$2 == th { $1 = ""; sub(/^ /, ""); sub(/ this=.*/, ""); print }' "$T/all.txt"; }
shape main >"$T/main.txt"
cat >"$T/want-main.txt" <<'TXT'
main enter TraceCalls.main([Ljava/lang/String;)V depth=1
main user before
main enter TraceCalls.fact(I)I depth=2
main enter TraceCalls.fact(I)I depth=3
main enter TraceCalls.fact(I)I depth=4
main exit TraceCalls.fact(I)I depth=4
main exit TraceCalls.fact(I)I depth=3
main exit TraceCalls.fact(I)I depth=2
main user between
main enter TraceCalls.thrower(I)V depth=2
main enter TraceCalls.thrower(I)V depth=3
main enter TraceCalls.thrower(I)V depth=4
main exit-throw TraceCalls.thrower(I)V depth=4
main exit-throw TraceCalls.thrower(I)V depth=3
main exit-throw TraceCalls.thrower(I)V depth=2
main enter TraceCalls$Boom.<init>()V depth=2
main user after 8
main exit-throw TraceCalls$Boom.<init>()V depth=2
main exit TraceCalls.main([Ljava/lang/String;)V depth=1
main thread-end main
TXT
diff -u "$T/want-main.txt" "$T/main.txt" >&2 || fail "main's events are not the expected sequence"
shape helper >"$T/helper.txt"
cat >"$T/want-helper.txt" <<'TXT'
helper thread-start helper group=main priority=5
helper enter TraceCalls.lambda$main$0()V depth=1
helper enter TraceCalls.fact(I)I depth=2
helper enter TraceCalls.fact(I)I depth=3
helper exit TraceCalls.fact(I)I depth=3
helper exit TraceCalls.fact(I)I depth=2
helper exit TraceCalls.lambda$main$0()V depth=1
helper thread-end helper
TXT
diff -u "$T/want-helper.txt" "$T/helper.txt" >&2 || fail "helper's events are not the expected sequence"
# all lines in time order
awk '{ if ($1 + 0 < last) { bad = NR } last = $1 + 0 } END { exit bad > 0 }' "$T/all.txt" || fail "events out of time order"

# exec:light: entries only
run_java "trace=exec:light,include=TraceCalls,tracefile=$T/l.trace" TraceCalls
expect_rc 0
"$JVMPROF" trace "$T/l.trace" >"$T/l.txt" || fail "jvmprof trace l.trace failed"
[ "$(grep -c ' enter ' "$T/l.txt")" = 11 ] || fail "exec:light: $(grep -c ' enter ' "$T/l.txt") entries, expected 11"
! grep -q ' exit' "$T/l.txt" || fail "exec:light wrote exits"
! grep -q ' user \| thread-' "$T/l.txt" || fail "exec:light wrote user or thread events"

# 200 threads starting and ending: each one's entries and exits balance
run_java "trace=all,include=ManyThreads,tracefile=$T/m.trace" ManyThreads
expect_rc 0
"$JVMPROF" trace "$T/m.trace" >"$T/m.txt" || fail "jvmprof trace m.trace failed"
awk '$3 == "enter" { e[$2]++ } $3 ~ /^exit/ { x[$2]++ } $3 == "thread-start" { s++ }
     END { for (t in e) if (e[t] != x[t]) { print t, e[t], x[t]; bad++ } print "threads", s; exit bad > 0 }' \
    "$T/m.txt" >"$T/balance.txt" || { cat "$T/balance.txt" >&2; fail "entries and exits do not balance"; }
[ "$(awk '/^threads/ { print $2 }' "$T/balance.txt")" -ge 200 ] || fail "fewer than 200 thread starts: $(tail -1 "$T/balance.txt")"
note "ManyThreads: $(grep '^jvmprof: trace:' "$T/err")"

# tracelimit=: the file stops below the limit, whole chunks, and the line says so
run_java "trace=exec+thread,include=ManyThreads,tracefile=$T/s.trace,tracelimit=6k" ManyThreads
expect_rc 0
size=$(stat -c %s "$T/s.trace")
[ "$size" -le 6144 ] && [ "$size" -gt 32 ] || fail "tracelimit=6k: the file has $size bytes"
expect_grep "tracelimit= reached" "$T/err"
"$JVMPROF" trace "$T/s.trace" >/dev/null || fail "a trace stopped by tracelimit= does not read whole"

# a tracefile= that cannot be written: one line; force=n: the VM does not start (force=y: t9002)
run_java "trace=thread,force=n,tracefile=$T/nodir/x.trace" TraceCalls
[ "$RC" != 0 ] || fail "an unwritable tracefile= was accepted"
[ "$(grep -c '^jvmprof:' "$T/err")" = 1 ] && grep -q "^jvmprof: tracefile=$T/nodir/x.trace: " "$T/err" || fail "bad tracefile=: $(cat "$T/err")"

# --chrome: Chrome's Trace Event Format, read back by Python's json module (not our code): every
# call a B/E pair nested on its thread, as many as the text view's entries, threads named
"$JVMPROF" trace "$T/t.trace" --chrome -o "$T/t.json" || fail "jvmprof trace --chrome failed"
python3 - "$T/t.json" "$(grep -c ' enter ' "$T/all.txt")" <<'PY' || fail "the --chrome output does not hold the calls"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
want = int(sys.argv[2])
stacks, begins, names = {}, 0, {}
for e in events:
    if e["ph"] == "M":
        names[e["tid"]] = e["args"]["name"]
    elif e["ph"] == "B":
        stacks.setdefault(e["tid"], []).append(e["name"])
        begins += 1
    elif e["ph"] == "E":
        top = stacks[e["tid"]].pop()
        assert top == e["name"], (top, e["name"])
assert begins == want, (begins, want)
assert all(not s for s in stacks.values()), stacks
assert "main" in names.values() and "helper" in names.values(), names
assert any(e["ph"] == "i" and e["name"] == "after 8" for e in events)
assert any(e.get("args", {}).get("exception") for e in events if e["ph"] == "E")
ts = [e["ts"] for e in events if e["ph"] != "M"]
print("chrome:", begins, "calls on", len(stacks), "threads")
PY


# --slowest: main is the slowest call, with no caller; each thrower call names its callers
"$JVMPROF" trace "$T/t.trace" --slowest 20 >"$T/slow.txt" || fail "jvmprof trace --slowest failed"
expect_grep "^SLOWEST CALLS (11 of 11 calls)$" "$T/slow.txt"
sed -n 3,4p "$T/slow.txt" | tail -1 | grep -q "^ *TraceCalls.main(\[Ljava/lang/String;)V$" || fail "main is not the slowest call: $(sed -n 3,5p "$T/slow.txt")"
# the three thrower calls name 0, 1 and 2 thrower callers: 3 lines in all
[ "$(grep -c "<- TraceCalls.thrower(I)V" "$T/slow.txt")" = 3 ] || fail "thrower's calls lack their callers: $(cat "$T/slow.txt")"
RC=0
"$JVMPROF" trace "$T/t.trace" --slowest 0 2>"$T/err" || RC=$?
[ "$RC" = 2 ] && grep -q "slowest 0: expected how many calls" "$T/err" || fail "--slowest 0: $(cat "$T/err")"

# kill -9 in the middle of a run: the trace reads to its last complete chunk, and says where it stopped if a
# chunk was cut
timeout -k 5 60 "$JAVA" "-agentpath:$AGENT=trace=exec+alloc+thread,include=TraceLoop,tracefile=$T/k.trace" -cp "$CLASSES" \
    TraceLoop 30 >"$T/k.out" 2>"$T/k.err" &
pid=$!
for _ in $(seq 1 300); do
    [ -s "$T/k.trace" ] && [ "$(stat -c %s "$T/k.trace")" -gt 2000000 ] && break
    sleep 0.1
done
[ "$(stat -c %s "$T/k.trace" 2>/dev/null || echo 0)" -gt 2000000 ] || { kill -9 $pid; fail "the trace did not grow past 2 MB"; }
kill -9 $pid
wait $pid 2>/dev/null || true
RC=0
"$JVMPROF" trace "$T/k.trace" --type enter,exit,alloc >"$T/k.txt" 2>"$T/k.rerr" || RC=$?
[ "$RC" = 0 ] || { [ "$RC" = 1 ] && grep -q "stopped at offset [0-9]*" "$T/k.rerr"; } || fail "after kill -9: exit $RC: $(cat "$T/k.rerr")"
[ "$(grep -c ' main enter TraceLoop.step(I)I depth=2$' "$T/k.txt")" -gt 10000 ] || fail "after kill -9: too few calls read"
[ "$(grep -c ' main alloc ' "$T/k.txt")" -gt 10000 ] || fail "after kill -9: too few allocations read"
note "kill -9 at $(stat -c %s "$T/k.trace") bytes: $(wc -l <"$T/k.txt") events read; $(cat "$T/k.rerr")"
