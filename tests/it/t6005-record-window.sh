# record=y: windows of the recording. SpikeIdle idles (a worker thread does
# 2 ms of work in idle() every 20 ms), burns the CPU in spike() for 2 s,
# then idles again. A dump of the last 3 s right after the spike has
# spike() on top; a dump of the last 3 s after 4 s of idling, and one of the
# first 2.5 s (--from/--to), have no spike() at all, only idle(). A window
# dumped without FILE writes every output of the session as the window:
# collapsed stacks, flame graph, pprof, and a JFR file whose samples' times
# all fall in the window. jvmprof.Control.dump does the same from inside
# the program. Bad windows, and a window of a session without record=y, are
# refused in one line; a session with record=y started late (jvmprof start)
# has its windows too.
. "$(dirname "$0")/lib.sh"
JFR="$JAVA_HOME/bin/jfr"
top_method() { cpu_rows "$1" | sed -n 1p | awk '{print $6}'; }
now_ns() { date +%s%N; }

OUTS="collapsed=$T/w.collapsed,flame=$T/w.html,pprof=$T/w.pb.gz,jfr=$T/w.jfr"
"$JAVA" "-agentpath:$AGENT=cpu=samples,interval=5,cstack=java,record=y,file=$T/full.txt,$OUTS" -cp "$CLASSES" \
    SpikeIdle 3000 2000 30000 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^spike ends"
"$JVMPROF" dump "$JPID" --last 3s "$T/spike.txt" >"$T/o" 2>"$T/e" || fail "dump --last 3s: $(cat "$T/e")"
grep -q "^written: $T/spike.txt$" "$T/o" || fail "dump said: $(cat "$T/o")"
expect_grep "^RECORDING WINDOW: .* (3.000 s); the recording reaches back to" "$T/spike.txt"
[ "$(top_method "$T/spike.txt")" = SpikeIdle.spike ] || fail "the spike's window: top is not spike(): $(cpu_rows "$T/spike.txt" | head -3)"
# the same window, every output of the session
before=$(now_ns)
"$JVMPROF" dump "$JPID" --last 3s >"$T/o" 2>"$T/e" || fail "dump --last 3s (the session's outputs): $(cat "$T/e")"
after=$(now_ns)
[ "$(top_method "$T/full.txt")" = SpikeIdle.spike ] || fail "file=: top is not spike(): $(cpu_rows "$T/full.txt" | head -3)"
top_stack=$(sort -t' ' -k2 -n -r "$T/w.collapsed" | sed -n 1p)
[[ "$top_stack" == *SpikeIdle.spike* ]] || fail "collapsed: the heaviest stack is not spike()'s: $top_stack"
expect_grep "SpikeIdle.spike" "$T/w.html"
gzip -dc "$T/w.pb.gz" | grep -aq "spike" || fail "pprof: no spike() in the profile"
"$JFR" print --json --events jdk.ExecutionSample "$T/w.jfr" >"$T/ev.json" 2>"$T/jfr.err" || fail "jfr print: $(cat "$T/jfr.err")"
python3 - "$T/ev.json" "$before" "$after" <<'PY' || fail "jfr: the samples' times are not those of the window"
import json, sys, datetime
lo, hi = int(sys.argv[2]) - 3_000_000_000 - 100_000_000, int(sys.argv[3]) + 100_000_000
n = spike = 0
for e in json.load(open(sys.argv[1]))["recording"]["events"]:
    v = e["values"]
    ts, frac = v["startTime"].rstrip("Z").split(".")
    t = int(datetime.datetime.fromisoformat(ts).replace(tzinfo=datetime.timezone.utc).timestamp()) * 10**9 + int(frac.ljust(9, "0")[:9])
    if not lo <= t <= hi:
        sys.exit("a sample at %d, outside the window %d..%d" % (t, lo, hi))
    n += 1
    frames = [f["method"]["name"] for f in (v.get("stackTrace") or {}).get("frames") or []]
    spike += "spike" in frames
if n < 20 or spike < n // 2:
    sys.exit("%d samples, %d of them in spike()" % (n, spike))
print("  jfr: %d samples in the window, %d in spike()" % (n, spike), file=sys.stderr)
PY
# jvmprof status says what the recording holds
"$JVMPROF" status "$JPID" >"$T/o" 2>"$T/e" || fail "status: $(cat "$T/e")"
grep -Eq "^recording: [1-9][0-9]* events kept in [0-9.]+ MiB of 3[12].[0-9][0-9] MiB \(maxsize=\), reaching back [0-9.]+ s \(maxage=600 s\)" "$T/o" ||
    fail "status has no recording line: $(cat "$T/o")"
# after 4 s of idling: the last 3 s have no spike()
wait_line "$T/out" "^idle again"
"$JVMPROF" dump "$JPID" --last 3s "$T/idle.txt" >/dev/null 2>"$T/e" || fail "dump of the idle window: $(cat "$T/e")"
[ "$(top_method "$T/idle.txt")" = SpikeIdle.idle ] || fail "the idle window: top is not idle(): $(cpu_rows "$T/idle.txt" | head -3)"
cpu_rows "$T/idle.txt" | grep -q "SpikeIdle.spike" && fail "the idle window holds spike(): $(cpu_rows "$T/idle.txt" | head -3)"
# the first 2.5 s since the session's start
"$JVMPROF" dump "$JPID" --from 0 --to 2.5s "$T/first.txt" >/dev/null 2>"$T/e" || fail "dump --from 0 --to 2.5s: $(cat "$T/e")"
cpu_rows "$T/first.txt" | grep -q "SpikeIdle.idle" || fail "the first 2.5 s: no idle(): $(cpu_rows "$T/first.txt" | head -3)"
cpu_rows "$T/first.txt" | grep -q "SpikeIdle.spike" && fail "the first 2.5 s hold spike(): $(cpu_rows "$T/first.txt" | head -3)"
note "spike window: $(cpu_rows "$T/spike.txt" | sed -n 1p | awk '{print $2, $6}'); idle window: $(cpu_rows "$T/idle.txt" | sed -n 1p | awk '{print $2, $6}')"
# bad windows: one line each, usage errors
for args in "--last 0" "--last 2m --from 1" "--from 5 --to 2" "--last soon" "--since 2"; do
    rc=0
    # shellcheck disable=SC2086
    "$JVMPROF" dump "$JPID" $args "$T/x.txt" >/dev/null 2>"$T/e" || rc=$?
    [ "$rc" = 2 ] || fail "dump $args: exit $rc, not 2"
    [ "$(wc -l <"$T/e")" = 1 ] || fail "dump $args: not one line: $(cat "$T/e")"
done
kill "$JPID"

# Control.dump, from inside the program
run_java "cpu=samples,interval=5,cstack=java,record=y,file=$T/c-full.txt" SpikeIdle 2000 2000 4000 control "$T"
expect_rc 0
[ "$(grep -c '^control dump: true$' "$T/out")" = 2 ] || fail "Control.dump: $(cat "$T/out" "$T/err")"
[ "$(top_method "$T/ctl-spike.txt")" = SpikeIdle.spike ] || fail "Control.dump of the spike: $(cpu_rows "$T/ctl-spike.txt" | head -3)"
[ "$(top_method "$T/ctl-idle.txt")" = SpikeIdle.idle ] || fail "Control.dump of the idle time: $(cpu_rows "$T/ctl-idle.txt" | head -3)"
cpu_rows "$T/ctl-idle.txt" | grep -q "SpikeIdle.spike" && fail "Control.dump of the idle time holds spike()"

# a session without record=y has no window to dump
"$JAVA" "-agentpath:$AGENT=cpu=samples,file=$T/n.txt" -cp "$CLASSES" SpikeIdle 20000 0 0 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^idle begins"
wait_ready "$JPID"
"$JVMPROF" dump "$JPID" --last 2s "$T/x.txt" >/dev/null 2>"$T/e" && fail "a window of a session without record=y was written"
grep -q "record=y" "$T/e" || fail "dump --last without record=y: $(cat "$T/e")"
[ "$(wc -l <"$T/e")" = 1 ] || fail "dump --last without record=y: not one line: $(cat "$T/e")"
# a session with record=y started late, by jvmprof start, records from its start
"$JVMPROF" stop "$JPID" >/dev/null 2>"$T/e" || fail "stop: $(cat "$T/e")"
"$JVMPROF" start "$JPID" "cpu=samples,interval=5,cstack=java,record=y,maxage=1m,file=$T/late.txt" >/dev/null 2>"$T/e" ||
    fail "start with record=y: $(cat "$T/e")"
sleep 3
"$JVMPROF" dump "$JPID" --last 2s "$T/late-w.txt" >/dev/null 2>"$T/e" || fail "dump --last 2s of the late session: $(cat "$T/e")"
[ "$(top_method "$T/late-w.txt")" = SpikeIdle.idle ] || fail "the late session's window: $(cpu_rows "$T/late-w.txt" | head -3)"
"$JVMPROF" status "$JPID" >"$T/o" 2>"$T/e" || fail "status: $(cat "$T/e")"
grep -q "reaching back [0-9.]* s (maxage=60 s)" "$T/o" || fail "status of the late session: $(cat "$T/o")"
"$JVMPROF" stop "$JPID" >/dev/null 2>"$T/e" || fail "stop of the late session: $(cat "$T/e")"
kill "$JPID"
# and the options: maxage= without record=y, a bad maxsize=
run_java "cpu=samples,maxage=2m" Hello
grep -q "maxage= bounds the recording of record=y" "$T/err" || fail "maxage= alone: $(cat "$T/err")"
run_java "cpu=samples,record=y,maxsize=1k" Hello
grep -q "maxsize" "$T/err" || fail "maxsize=1k: $(cat "$T/err")"
exit 0
