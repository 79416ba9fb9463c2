# Profiling sessions (session.h): the session given in -agentpath is stopped
# from the program (jvmprof.Control.stop), and new ones with other options
# follow it in the same JVM (Control.start), one for each collector that can
# start at run time. Each phase of tests/programs/Sessions.java has its own
# hot method, class or lock, so each report must hold its own phase and no
# other: a phase run while no session ran (spin2) is in no report. Then what
# start refuses, and a last session written at exit (doe=y).
. "$(dirname "$0")/lib.sh"
D="$T"
run_java "cpu=samples,file=$D/a.txt" Sessions "$D" expect-running reflect-dump spin1 stop expect-stopped stop-none spin2 \
    "start:cpu=samples,interval=5,file=%D/b.txt" spin3 "busy:cpu=samples,file=%D/z.txt" stop \
    "start:monitor=y,file=%D/c.txt" lock stop \
    "start:heap=sites,alloc_interval=4096,file=%D/d.txt" alloc stop \
    "start:cpu=times,include=Sessions,tiny=0,file=%D/e.txt" calls stop \
    "start:cpu=times,include=Sessions,tiny=0,file=%D/e2.txt" calls calls stop \
    "start:cpu=times,include=Sessions,file=%D/e3.txt" calls stop \
    "start:cpu=times,include=Sessions,file=%D/e4.txt" calls calls stop \
    "start:trace=exec+user,include=Sessions,tracefile=%D/tr.trace" calls stop \
    "start:trace=exec,include=Sessions,tracefile=%D/tr2.trace" calls calls stop \
    "start:cpu=samples,sampler=jvmti,interval=5,file=%D/f.txt" spin4 stop \
    "start:wall=20,file=%D/w.txt" spin6 stop \
    "bad:cpu=bogus" "bad:heap=sites,alloc_interval=0,file=%D/x.txt" "bad:cpu=samples,file=%D/nodir/y.txt" \
    "bad:help" expect-stopped \
    "start:cpu=samples,format=b,file=%D/g.hprof" expect-running spin5
expect_rc 0
cat "$T/out" >&2
for line in "reflect-dump true" "running true" "stop true" "stopped true" "stop-none true" "start true" "spin5"; do
    expect_grep "^$line$" "$T/out"
done
[ "$(grep -c '^stop true$' "$T/out")" = 12 ] || fail "12 sessions stopped expected"
[ "$(grep -c '^start true$' "$T/out")" = 12 ] || fail "12 sessions started expected"
expect_grep "^busy refused: jvmprof: start: a profiling session is running; stop it first (jvmprof.Control.stop() in the program, or jvmprof stop PID)$" "$T/out"
expect_grep "^bad refused: jvmprof: start: cpu=bogus: bad value" "$T/out"
expect_grep "^bad refused: jvmprof: start: heap=sites can only run from start-up (give it in -agentpath): exact counts (alloc_interval=0)" "$T/out"
expect_grep "^bad refused: jvmprof: start: file=$D/nodir/y.txt: " "$T/out"
expect_grep "^bad refused: jvmprof: start: help: " "$T/out"
expect_no_grep "NOT REFUSED\|WRONG" "$T/out"
[ ! -e "$D/z.txt" ] && [ ! -e "$D/x.txt" ] && [ ! -e "$D/nodir" ] || fail "a refused start left a file"

# each CPU report: its own phase's method, none of the others
only_phase() { # FILE PHASE-METHOD
    expect_grep "Sessions.$2" "$1"
    for other in phaseOneSpin phaseTwoSpin phaseThreeSpin phaseFourSpin phaseFiveSpin phaseSixSpin; do
        [ "$other" = "$2" ] || expect_no_grep "Sessions.$other" "$1"
    done
}
only_phase "$D/a.txt" phaseOneSpin
only_phase "$D/b.txt" phaseThreeSpin
only_phase "$D/f.txt" phaseFourSpin
only_phase "$D/w.txt" phaseSixSpin
# a session's samples: 700 ms of CPU of one busy thread at its own interval (10 ms, then 5 ms), not the
# sessions' sum: each session sets each running thread's CPU timer afresh
samples() { sed -n 's/^CPU SAMPLES BEGIN (total = \([0-9]*\)).*/\1/p' "$1"; }
n=$(samples "$D/a.txt"); [ -n "$n" ] && [ "$n" -ge 30 ] && [ "$n" -le 100 ] || fail "a.txt: $n CPU samples for 700 ms at 10 ms"
n=$(samples "$D/b.txt"); [ -n "$n" ] && [ "$n" -ge 90 ] && [ "$n" -le 200 ] || fail "b.txt: $n CPU samples for 700 ms at 5 ms"
expect_grep "^WALL SAMPLES BEGIN" "$D/w.txt"
# monitor=y: the phase's lock; no CPU samples
expect_grep "Sessions\$PhaseLock" "$D/c.txt"
expect_grep "^MONITOR TIME BEGIN" "$D/c.txt"
expect_no_grep "^CPU SAMPLES BEGIN" "$D/c.txt"
# heap=sites: the phase's class, allocated by alloc()
expect_grep "Sessions\$PhaseAllocThing" "$D/d.txt"
expect_no_grep "Sessions\$PhaseLock" "$D/d.txt"
# cpu=times in a later session: the classes loaded before it are instrumented; exact call counts
row=$(sed -n '/^CPU TIME (ms) BEGIN/,/^CPU TIME (ms) END/p' "$D/e.txt" | grep ' Sessions.phaseCallee$' || true)
[ -n "$row" ] || { sed -n '/^CPU TIME/,$p' "$D/e.txt" >&2; fail "no Sessions.phaseCallee row in e.txt"; }
calls=$(echo "$row" | awk '{print $4}')
[ "$calls" = 200000 ] || fail "phaseCallee: $calls calls, 200000 made in the session: $row"
# a second cpu=times session counts its own calls only (400000), not the first's too
row=$(sed -n '/^CPU TIME (ms) BEGIN/,/^CPU TIME (ms) END/p' "$D/e2.txt" | grep ' Sessions.phaseCallee$' || true)
calls=$(echo "$row" | awk '{print $4}')
[ "$calls" = 400000 ] || fail "e2.txt: phaseCallee: $calls calls, 400000 made in the second cpu=times session: $row"
expect_no_grep "phaseOneSpin\|phaseThreeSpin" "$D/e.txt"
# with the default tiny= the small phaseCallee is counted, not timed: its calls in the session
# that counted them (200000), then in the next (400000), without the earlier sessions' calls
counted() { sed -n '/^CALLS COUNTED BEGIN/,/^CALLS COUNTED END/p' "$1" | awk '$5 == "Sessions.phaseCallee(I)I" { print $4 }'; }
[ "$(counted "$D/e3.txt")" = 200000 ] || fail "e3.txt: phaseCallee counted $(counted "$D/e3.txt") times, 200000 made"
[ "$(counted "$D/e4.txt")" = 400000 ] || fail "e4.txt: phaseCallee counted $(counted "$D/e4.txt") times, 400000 made"
# trace=exec in later sessions: each trace holds its own session's calls, entered and left
for f in "tr.trace 200000" "tr2.trace 400000"; do
    set -- $f
    "$JVMPROF" trace "$D/$1" --method Sessions.phaseCallee >"$D/$1.txt" || fail "jvmprof trace $1 failed"
    [ "$(grep -c ' enter Sessions.phaseCallee' "$D/$1.txt")" = "$2" ] && [ "$(grep -c ' exit Sessions.phaseCallee' "$D/$1.txt")" = "$2" ] ||
        fail "$1: $(grep -c ' enter ' "$D/$1.txt") entries of phaseCallee, $2 made"
done
# the last session, written at exit in HPROF binary: our reader finds its phase and no other
"$JVMPROF" report "$D/g.hprof" >"$D/g.txt" || fail "jvmprof report g.hprof failed"
only_phase "$D/g.txt" phaseFiveSpin
# the test collector's counts start again with each session (collector.h's end)
TEST_AGENT="$ROOT/build/test/libjvmprof.so"
RC=0
timeout -k 10 120 "$JAVA" "-agentpath:$TEST_AGENT=cpu=samples,file=$D/t1.txt" -cp "$CLASSES" Sessions "$D" lock stop \
    "start:cpu=samples,file=%D/t2.txt" spin1 stop >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
t1=$(sed -n 's/^test collector: threads started \([0-9]*\)$/\1/p' "$D/t1.txt")
t2=$(sed -n 's/^test collector: threads started \([0-9]*\)$/\1/p' "$D/t2.txt")
[ -n "$t1" ] && [ "$t1" -ge 3 ] || fail "t1.txt: $t1 threads started, the lock phase starts 3"
[ "$t2" = 0 ] || fail "t2.txt: $t2 threads started in a session that started none"
# without the agent (jvmprof.jar on the class path, as a program that bundles it), the Control calls return false
RC=0
timeout -k 10 120 "$JAVA" -cp "$CLASSES:$ROOT/build/jvmprof.jar" Sessions "$D" stop-none "start:cpu=samples" spin1 expect-stopped >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
[ "$(tr '\n' ' ' <"$T/out")" = "stop-none true start false spin1 stopped true " ] || fail "without agent: $(cat "$T/out")"
# docs/options.md's reflection snippet without an agent or its jar: false, no exception
RC=0
timeout -k 10 120 "$JAVA" -cp "$CLASSES" Sessions "$D" reflect-dump >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
[ "$(cat "$T/out")" = "reflect-dump false" ] || fail "reflection snippet without agent: $(cat "$T/out" "$T/err")"
echo "t9009 ok"
