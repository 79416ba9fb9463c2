# Attaching to a JVM that has only just started, and to one whose threads
# start all the time.
# 1. HotLoop is started without an agent and "jvmprof collect PID" runs as
# soon as the JVM handles SIGQUIT (its attach listener answers from the JVMTI
# start phase on, before the JVM can give an agent JVMTI), RUNS times. Each
# time the collect must succeed (the command asks again while the agent
# answers that the JVM is still starting), the JVM must end by itself with
# exit code 0 (never killed by a signal) and its stdout must be "done", as
# without jvmprof.
# 2. ManyThreads (threads that start, work 2-4 ms and end, all the time), on
# one CPU, gets "collect -d 1 cpu=samples,interval=1" CHURN_RUNS times: each
# collect must succeed and the JVM still run after it. Before the fix a thread
# that started while the session was being prepared armed its CPU timer before
# the SIGPROF handler was installed, and SIGPROF's default action killed the
# JVM ("Profiling timer expired"); at start-up (1.) the JVM starts threads too.
# Measured before the fix on the loaded 2-core machine (other builds and JVMs
# running): in 1., of 30 runs, 1 JVM was killed by SIGPROF and 10 collects
# failed (Agent_OnAttach returned -1: "this JVM does not offer JVMTI 11"); in
# 2., of 30 runs, 11 JVMs were killed by SIGPROF (2 more ended without an
# answer, before this test waited for them); each of 4 runs of this test
# failed (3, 5, 6 and 8 of its 14 attaches).
. "$(dirname "$0")/lib.sh"
JVMPROF=${JVMPROF_UNDER_TEST:-$ROOT/build/jvmprof}
RUNS=${RUNS:-6}
CHURN_RUNS=${CHURN_RUNS:-8}
JPID=
trap 'exec 2>/dev/null; [ -n "$JPID" ] && kill -9 "$JPID"; rm -rf "$T"' EXIT

# until the JVM handles SIGQUIT (its attach listener can be woken): at once, polled every 5 ms
wait_sigquit() {
    for _ in $(seq 2000); do
        sig=$(sed -n 's/^SigCgt:\t//p' "/proc/$1/status" 2>/dev/null)
        [ -n "$sig" ] && (( (16#$sig >> 2) & 1 )) && return 0
        sleep 0.005
    done
    fail "process $1 never handled SIGQUIT"
}

bad=0 lost=0
for i in $(seq "$RUNS"); do
    mkdir "$T/$i"
    "$JAVA" -cp "$CLASSES" HotLoop 3 >"$T/$i/out" 2>"$T/$i/err" &
    JPID=$!
    wait_sigquit "$JPID"
    crc=0
    (cd "$T/$i" && timeout -k 5 60 "$JVMPROF" collect "$JPID" -d 1 "cpu=samples,interval=5,file=c.txt,flame=c.html") \
        >"$T/$i/cout" 2>"$T/$i/cerr" || crc=$?
    jrc=0
    wait "$JPID" || jrc=$?
    JPID=
    why=
    if [ "$jrc" -gt 128 ]; then
        why="the JVM was killed by signal $((jrc - 128)) ($(kill -l $((jrc - 128)) 2>/dev/null))"
    elif [ "$jrc" != 0 ]; then
        why="the JVM exited with $jrc"
    elif [ "$(cat "$T/$i/out")" != done ]; then
        why="the JVM's stdout changed: $(head -c 300 "$T/$i/out")"
    elif [ "$crc" != 0 ] && grep -q "attach socket" "$T/$i/cerr" && [ "$lost" = 0 ]; then
        # HotSpot's own race: create_vm removes a stale attach socket (AttachListener::vm_start) just
        # after it starts handling SIGQUIT, also the one a SIGQUIT in between made (seen once in 26
        # runs); tolerated once, the JVM's checks above still hold
        note "run $i: the JVM lost its attach socket (HotSpot's start-up race): $(cat "$T/$i/cerr")"
        lost=1
    elif [ "$crc" != 0 ]; then
        why="collect failed ($crc): $(cat "$T/$i/cerr")"
    elif ! grep -q "^CPU SAMPLES BEGIN" "$T/$i/c.txt" 2>/dev/null || [ ! -s "$T/$i/c.html" ]; then
        why="collect wrote no report or no flame graph"
    elif grep -q "still starting" "$T/$i/cerr"; then
        why="collect said: $(cat "$T/$i/cerr")"
    fi
    if [ -n "$why" ]; then
        note "run $i: $why; JVM stderr: $(head -c 300 "$T/$i/err")"
        bad=$((bad + 1))
    fi
done
command -v taskset >/dev/null || fail "taskset (util-linux) is needed"
for i in $(seq "$CHURN_RUNS"); do
    mkdir "$T/m$i"
    taskset -c 0 "$JAVA" -XX:ActiveProcessorCount=1 -cp "$CLASSES" ManyThreads 1000000 >"$T/m$i/out" 2>"$T/m$i/err" &
    JPID=$!
    wait_sigquit "$JPID"
    sleep 1
    crc=0
    (cd "$T/m$i" && timeout -k 5 60 "$JVMPROF" collect "$JPID" -d 1 "cpu=samples,interval=1,file=c.txt") \
        >"$T/m$i/cout" 2>"$T/m$i/cerr" || crc=$?
    # still running: the KILL sent now is what ends it (a JVM that died is a zombie until waited for)
    kill -9 "$JPID" 2>/dev/null
    jrc=0
    wait "$JPID" 2>/dev/null || jrc=$?
    why=
    if [ "$jrc" != 137 ]; then
        why="the JVM ended during the collect: exit code $jrc$( ((jrc > 128)) && echo " ($(kill -l $((jrc - 128))))")"
    elif [ "$crc" != 0 ]; then
        why="collect failed ($crc): $(cat "$T/m$i/cerr")"
    elif ! grep -q "^CPU SAMPLES BEGIN" "$T/m$i/c.txt" 2>/dev/null; then
        why="collect wrote no report"
    fi
    JPID=
    if [ -n "$why" ]; then
        note "threads run $i: $why"
        bad=$((bad + 1))
    fi
done
[ "$bad" = 0 ] || fail "$bad of $((RUNS + CHURN_RUNS)) attaches went wrong"
