# Queries change nothing in the JVM they look at:
#  - `jvmprof status PID` on a JVM without jvmprof says so (exit 0) and
#    `stop`, `dump`, `reset` refuse in one line (exit 1), all without loading
#    the agent (no libjvmprof.so in its maps after) and without waking its
#    attach listener (no /tmp/.java_pidPID made);
#  - `jvmprof list` reads /proc only: it shows a JVM without jvmprof as no, one
#    profiling (the agent thread "jvmprof" runs) as profiling, one whose session
#    stopped as loaded, and it answers at once even for a stopped (SIGSTOP)
#    JVM, which it does not attach to (it waited 10 s on each before).
. "$(dirname "$0")/lib.sh"
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
untouched() { # PID: no agent loaded, no attach socket
    ! grep -q libjvmprof.so "/proc/$1/maps" || fail "$2 loaded jvmprof into process $1"
    [ ! -e "/proc/$1/root/tmp/.java_pid$1" ] || fail "$2 woke the attach listener of process $1"
}

# a JVM without jvmprof
"$JAVA" -cp "$CLASSES" HotLoop 60 >"$T/a.out" 2>"$T/a.err" &
A=$!; PIDS+=("$A")
wait_ready "$A"
sleep 1
RC=0; "$JVMPROF" status "$A" >"$T/o" 2>"$T/e" || RC=$?
[ "$RC" = 0 ] || fail "status of a JVM without jvmprof: exit $RC: $(cat "$T/e")"
grep -q "^jvmprof is not loaded in process $A; no profiling session runs" "$T/o" || fail "status: $(cat "$T/o" "$T/e")"
untouched "$A" "status"
for c in stop dump reset; do
    RC=0; "$JVMPROF" $c "$A" >"$T/o" 2>"$T/e" || RC=$?
    [ "$RC" = 1 ] || fail "$c of a JVM without jvmprof: exit $RC"
    [ "$(wc -l <"$T/e")" = 1 ] && grep -q "^jvmprof: $c: no profiling session runs in process $A: jvmprof is not loaded there" "$T/e" ||
        fail "$c: $(cat "$T/e")"
    untouched "$A" "$c"
done
"$JVMPROF" list >"$T/list.txt" || fail "list failed"
grep -Eq "^$A +no +HotLoop$" "$T/list.txt" || fail "list: $(cat "$T/list.txt")"
untouched "$A" "list"

# a JVM profiling from its start (-agentpath), never attached to
"$JAVA" "-agentpath:$AGENT=cpu=samples,file=$T/b.txt" -cp "$CLASSES" HotLoop 60 >"$T/b.out" 2>"$T/b.err" &
B=$!; PIDS+=("$B")
wait_ready "$B"
sleep 1
"$JVMPROF" list >"$T/list.txt"
grep -Eq "^$B +profiling +HotLoop$" "$T/list.txt" || fail "list, profiling: $(cat "$T/list.txt")"
[ ! -e "/tmp/.java_pid$B" ] || fail "list attached to process $B"
# stopped: list answers at once, from /proc
kill -STOP "$B"
s=$SECONDS
timeout 20 "$JVMPROF" list >"$T/list.txt" || fail "list with a stopped JVM failed or hung"
[ $((SECONDS - s)) -le 3 ] || fail "list took $((SECONDS - s)) s with a stopped JVM"
grep -Eq "^$B +profiling +HotLoop$" "$T/list.txt" || fail "list, stopped JVM: $(cat "$T/list.txt")"
kill -CONT "$B"
# its session stopped: loaded
"$JVMPROF" stop "$B" >"$T/o" 2>"$T/e" || fail "stop: $(cat "$T/e")"
for _ in $(seq 50); do grep -q . "$T/b.txt" 2>/dev/null && ! grep -qx jvmprof /proc/"$B"/task/*/comm && break; sleep 0.1; done
"$JVMPROF" list >"$T/list.txt"
grep -Eq "^$B +loaded +HotLoop$" "$T/list.txt" || fail "list, session stopped: $(cat "$T/list.txt")"
"$JVMPROF" status "$B" | grep -q "no profiling session runs" || fail "status of an idle agent"
echo "t7012 ok"
