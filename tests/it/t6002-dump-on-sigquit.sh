# SIGQUIT (kill -QUIT) writes a complete report while the program runs;
# doe=n writes nothing at exit; jvmprof.Control.dump() asks for one from Java.
. "$(dirname "$0")/lib.sh"
RC=0
timeout -k 10 60 "$JAVA" "-agentpath:$AGENT=cpu=samples,doe=n,file=$T/q.txt" -cp "$CLASSES" SleepThenDump 1.5 4 \
    >"$T/out" 2>"$T/err" &
pid=$!
for _ in $(seq 1 50); do grep -q . /proc/$pid/status 2>/dev/null && break; sleep 0.1; done
sleep 2.5
[ ! -f "$T/q.txt" ] || fail "report exists before SIGQUIT with doe=n"
kill -QUIT $pid
for _ in $(seq 1 50); do [ -f "$T/q.txt" ] && break; sleep 0.1; done
[ -f "$T/q.txt" ] || fail "no report after SIGQUIT"
kill -0 $pid 2>/dev/null || fail "the program died on SIGQUIT"
expect_grep "CPU SAMPLES END" "$T/q.txt"
expect_grep "SleepThenDump.compute" "$T/q.txt"
ls "$T" | grep -q '\.tmp$' && fail "temporary file left behind"
cp "$T/q.txt" "$T/q1.txt"
wait $pid || fail "program exit code $?"
grep -q '^ok$' "$T/out" || fail "program output changed"
cmp -s "$T/q.txt" "$T/q1.txt" || fail "doe=n still rewrote the report at exit"
# the Java control API
run_java "cpu=samples,doe=n,file=$T/c.txt" SleepThenDump 1 control "$T/c.txt"
expect_rc 0
expect_grep "control true exists true" "$T/out"
expect_grep "CPU SAMPLES END" "$T/c.txt"
# without the agent the control API is a no-op returning false
RC=0; "$JAVA" -cp "$CLASSES:$ROOT/build/jvmprof.jar" SleepThenDump 0.1 control "$T/none.txt" >"$T/out" 2>&1 || RC=$?
expect_rc 0
expect_grep "control false exists false" "$T/out"
