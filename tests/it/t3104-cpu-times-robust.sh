# cpu=times under stress: 200 threads starting and ending (thread=y: each
# thread's call paths apart), classes loading and unloading, and a report
# written on SIGQUIT while instrumented code runs on other threads. No
# crash, output unchanged, every report complete.
. "$(dirname "$0")/lib.sh"
run_java "" ManyThreads 200
cp "$T/out" "$T/expected"
run_java "cpu=times,thread=y,file=$T/m.txt" ManyThreads 200
expect_rc 0
cmp -s "$T/out" "$T/expected" || fail "ManyThreads output changed under cpu=times"
expect_grep "^CPU TIME (ms) END" "$T/m.txt"
threads=$(grep -o 'call paths on [0-9]* threads' "$T/err" | grep -o '[0-9]* threads' | grep -o '[0-9]*')
[ "${threads:-0}" -ge 200 ] || fail "call paths on ${threads:-0} threads, expected 200 or more"
[ "$(grep -c '^TRACE .*(thread=' "$T/m.txt")" -gt 0 ] || fail "thread=y traces lack their thread"

run_java "cpu=times,file=$T/u.txt" ClassUnload
expect_rc 0
expect_grep "^CPU TIME (ms) END" "$T/u.txt"

timeout -k 10 60 "$JAVA" "-agentpath:$AGENT=cpu=times,file=$T/q.txt" -cp "$CLASSES" SleepThenDump 1.5 4 \
    >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
kill -QUIT $pid
for _ in $(seq 1 50); do [ -f "$T/q.txt" ] && break; sleep 0.1; done
[ -f "$T/q.txt" ] || fail "no report after SIGQUIT"
expect_grep "^CPU TIME (ms) END" "$T/q.txt"
cp "$T/q.txt" "$T/q1.txt"
wait $pid || fail "program exit code $?"
grep -q '^ok$' "$T/out" || fail "program output changed"
grep -q 'SleepThenDump.compute' "$T/q.txt" || fail "the final report lacks SleepThenDump.compute"
note "200 threads: $threads with call paths; reports on SIGQUIT and at exit"
