# trigger=quit: with it, SIGQUIT writes the recording's last maxage= to a
# numbered file (trigger_file=) instead of the session's report to file=,
# with one line on stderr naming the trigger and the file; a second SIGQUIT
# within trigger_interval= writes nothing (one line says why); after the
# interval the next one writes file number 2; jvmprof status counts them
# (its attach fires nothing). The JVM's own thread dump on
# stdout is HotSpot's, as without the agent. Without trigger=quit (here
# trigger=oom alone), SIGQUIT writes the session's report to file= as
# before. A session started late (jvmprof start) with trigger=quit dumps too.
. "$(dirname "$0")/lib.sh"
quit_and_wait() { # SIGQUIT to JPID, then until FILE exists (10 s at most)
    kill -QUIT "$JPID"
    for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.1; done
    fail "no $1 after SIGQUIT: $(ls "$T"; cat "$T/err")"
}
"$JAVA" "-agentpath:$AGENT=cpu=samples,interval=5,record=y,maxage=1m,trigger=quit,trigger_interval=4s,file=$T/full.txt" \
    -cp "$CLASSES" SpikeIdle 60000 0 0 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^idle begins"
wait_ready "$JPID"
sleep 1
quit_and_wait "$T/full-trigger-1.txt"
t1=$(date +%s%N)
grep -q "^jvmprof: trigger quit (SIGQUIT): wrote $T/full-trigger-1.txt (.*; the recording's window of [0-9.]* s)$" "$T/err" ||
    fail "no line for the dump: $(cat "$T/err")"
expect_grep "^TRIGGER: quit: SIGQUIT$" "$T/full-trigger-1.txt"
expect_grep "^RECORDING WINDOW: " "$T/full-trigger-1.txt"
cpu_rows "$T/full-trigger-1.txt" | grep -q "SpikeIdle.idle" || fail "the dump has no idle(): $(cpu_rows "$T/full-trigger-1.txt" | head -3)"
# within the interval: nothing written, one line
kill -QUIT "$JPID"
for _ in $(seq 50); do grep -q "trigger quit (SIGQUIT): no dump" "$T/err" && break; sleep 0.1; done
grep -q "^jvmprof: trigger quit (SIGQUIT): no dump, the last was [0-9.]* s ago (trigger_interval=4 s)$" "$T/err" ||
    fail "no line for the SIGQUIT within the interval: $(cat "$T/err")"
sleep 1
[ ! -e "$T/full-trigger-2.txt" ] || fail "a second dump within trigger_interval=4s"
[ ! -e "$T/full.txt" ] || fail "SIGQUIT with trigger=quit wrote file= too"
# after the interval: number 2
while [ $(( ($(date +%s%N) - t1) / 1000000 )) -lt 4300 ]; do sleep 0.1; done
quit_and_wait "$T/full-trigger-2.txt"
[ "$(grep -c "^jvmprof: trigger quit (SIGQUIT): wrote " "$T/err")" = 2 ] || fail "not two dump lines: $(cat "$T/err")"
[ "$(grep -c '^Full thread dump' "$T/out")" = 3 ] || fail "HotSpot's thread dumps on stdout: not 3"
# jvmprof status counts them (attaching, which wakes the JVM's attach listener by a SIGQUIT of its own, fires nothing)
"$JVMPROF" status "$JPID" >"$T/o" 2>"$T/e" || fail "status: $(cat "$T/e")"
grep -q "^triggers: quit 2 dumped, 1 skipped (trigger_interval=4 s; files $T/full-trigger-%n.txt)$" "$T/o" ||
    fail "status has no triggers line: $(cat "$T/o")"
sleep 0.5
[ ! -e "$T/full-trigger-3.txt" ] || fail "attaching fired trigger=quit"
kill "$JPID"
wait "$JPID" 2>/dev/null
note "$(ls "$T" | grep -c -- -trigger-) dumps for 3 SIGQUITs"

# trigger=oom alone: SIGQUIT writes the session's report, as without triggers
"$JAVA" "-agentpath:$AGENT=cpu=samples,interval=5,record=y,trigger=oom,file=$T/o.txt" -cp "$CLASSES" \
    SpikeIdle 60000 0 0 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^idle begins"
wait_ready "$JPID"
sleep 1
quit_and_wait "$T/o.txt"
expect_grep "^CPU SAMPLES END" "$T/o.txt"
expect_no_grep "^TRIGGER:" "$T/o.txt"
ls "$T" | grep -q -- "^o-trigger-" && fail "SIGQUIT without trigger=quit wrote a trigger dump"
kill "$JPID"
wait "$JPID" 2>/dev/null

# a session started late (jvmprof start) has its triggers too
"$JAVA" -cp "$CLASSES" SpikeIdle 60000 0 0 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^idle begins"
wait_ready "$JPID"
"$JVMPROF" start "$JPID" "cpu=samples,record=y,trigger=quit+oom,file=$T/late.txt" >/dev/null 2>"$T/e" ||
    fail "start with trigger=: $(cat "$T/e")"
sleep 1
quit_and_wait "$T/late-trigger-1.txt"
expect_grep "^TRIGGER: quit: SIGQUIT$" "$T/late-trigger-1.txt"
[ ! -e "$T/late.txt" ] || fail "the late session's SIGQUIT wrote file= too"
"$JVMPROF" stop "$JPID" >/dev/null 2>"$T/e" || fail "stop: $(cat "$T/e")"
kill "$JPID"
exit 0
