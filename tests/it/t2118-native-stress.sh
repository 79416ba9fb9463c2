# The signal handler's native and kernel walks under stress: PingPong's
# threads hand a token back and forth, so that each hand-over is a context
# switch, and event=context-switches,interval=1 takes a sample at each one
# (with threads=all, on the JVM's own threads too): well over 10,000 samples
# a second for 30 s, each with its kernel callchain read from the ring and
# its native frames walked, while two reports are asked for by SIGQUIT. The
# program runs to its end with its output unchanged, and the rate is printed.
. "$(dirname "$0")/lib.sh"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
opts="cpu=samples,interval=1,threads=all,verbose=y,file=$T/s%n.txt,collapsed=$T/s%n.col"
if [ "$(id -u)" = 0 ] || [ "$paranoid" -le 1 ]; then
    opts="$opts,event=context-switches"
else
    note "perf events are not open to uid $(id -u) (perf_event_paranoid=$paranoid): CPU samples at interval=1 instead"
fi
"$JAVA" "-agentpath:$AGENT=$opts" -cp "$CLASSES" PingPong 2 30 >"$T/out" 2>"$T/err" &
pid=$!
( sleep 150; kill -9 "$pid" 2>/dev/null ) &
watchdog=$!
sleep 10
kill -QUIT "$pid" 2>/dev/null
sleep 10
kill -QUIT "$pid" 2>/dev/null
RC=0
wait "$pid" || RC=$?
kill "$watchdog" 2>/dev/null
expect_rc 0
grep -qx "PingPong done" "$T/out" || fail "the program's output changed"
[ -s "$T/s1.txt" ] && [ -s "$T/s2.txt" ] && [ -s "$T/s3.txt" ] || { ls "$T" >&2; fail "not three reports (two on SIGQUIT, one at exit)"; }
sig=$(sed -n 's/^jvmprof: cpu sampler: \([0-9]*\) signals.*/\1/p' "$T/err" | tail -1)
note "$sig signals in 30 s: $((sig / 30)) a second"
grep 'native frames:' "$T/err" | tail -1 >&2
if [ "$(id -u)" = 0 ] || [ "$paranoid" -le 1 ]; then
    [ "${sig:-0}" -ge 300000 ] || fail "only ${sig:-0} signals in 30 s: under 10,000 a second"
    grep -q '_\[k\]' "$T/s3.col" || fail "no kernel frame in the samples"
fi
echo "t2118 ok"
