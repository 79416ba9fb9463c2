# A dump that was asked for is not lost, and a dump that was killed leaves one
# recognisable temporary file, which the next dump to the same path removes.
#  1. doe=n: jvmprof.Control.dump() returns true just before the program
#     exits: the report is written anyway (20 runs with heap=dump, 10 with
#     cpu=samples; before the fix 5-10 of 10 heap dumps were lost).
#  2. kill -9 during a heap dump (dumper=jvmti, and format=a which makes a
#     binary dump then its text): at most one temporary file is left, named
#     <file>.jvmprof-<pid>-<random>.tmp; the next dump to that path removes it.
. "$(dirname "$0")/lib.sh"

# 1. a request just before exit
lost=0
for i in $(seq 1 20); do
    run_java "heap=dump,doe=n,file=$T/exit$i.hprof" DumpAtExit exit
    expect_rc 0
    expect_grep "^taken true$" "$T/out"
    [ -s "$T/exit$i.hprof" ] || { lost=$((lost + 1)); note "run $i: no heap dump; stderr: $(tail -2 "$T/err")"; }
done
[ "$lost" = 0 ] || fail "heap=dump,doe=n: $lost of 20 dumps asked for just before exit were lost"
for i in $(seq 1 10); do
    run_java "cpu=samples,doe=n,file=$T/cpu$i.txt" DumpAtExit exit
    expect_rc 0
    grep -q "^CPU SAMPLES BEGIN" "$T/cpu$i.txt" 2>/dev/null || { lost=$((lost + 1)); note "cpu run $i: no report"; }
done
[ "$lost" = 0 ] || fail "cpu=samples,doe=n: $lost of 10 reports asked for just before exit were lost"
ls -a "$T" | grep -q 'jvmprof-' && fail "a temporary file was left behind: $(ls -a "$T" | grep jvmprof-)"
note "30 of 30 reports asked for just before exit written"

# 2. kill -9 in the middle of a heap dump
# kill_during_dump OPTIONS: starts a JVM with 400 MiB of objects, asks for a dump by
# SIGQUIT, kills it as soon as a temporary file appears; prints the temporaries left.
kill_during_dump() {
    rm -f "$T/stop" "$T/big."*
    "$JAVA" "-agentpath:$AGENT=$1" -cp "$CLASSES" DumpAtExit heap 400 "$T/stop" >"$T/out" 2>"$T/err" &
    local pid=$!
    for _ in $(seq 1 600); do grep -q ready "$T/out" 2>/dev/null && break; sleep 0.1; done
    grep -q ready "$T/out" || { kill -9 $pid; fail "the program did not get ready"; }
    kill -QUIT $pid
    for _ in $(seq 1 600); do ls "$T" | grep -q '^big\..*jvmprof-' && break; sleep 0.05; done
    sleep 0.3
    kill -9 $pid
    wait $pid 2>/dev/null
    ls "$T" | grep '^big\..*jvmprof-' || true
}
for opts in "heap=dump,dumper=jvmti,doe=n,file=$T/big.hprof" "heap=dump,format=a,doe=n,file=$T/big.txt" \
            "heap=dump,format=a,dumper=jvmti,doe=n,file=$T/big.txt"; do
    all=$(kill_during_dump "$opts")
    # HotSpot's parallel dumper (JDK 21 and later) may have left segments of the temporary beside it
    left=$(printf '%s\n' "$all" | grep -vE '\.tmp\.hprof\.p[0-9]+$' || true)
    for seg in $(printf '%s\n' "$all" | grep -E '\.tmp\.hprof\.p[0-9]+$' || true); do
        [ "${seg%.p*}" = "$left" ] || fail "$opts: a segment $seg of another temporary than $left"
    done
    n=$(printf '%s\n' "$left" | grep -c .)
    [ "$n" = 1 ] || fail "$opts: killed during the dump, left $n temporary files: $left"
    printf '%s\n' "$left" | grep -qE '^big\.(hprof|txt)\.jvmprof-[0-9]+-[0-9a-f]{16}\.tmp(\.hprof)?$' ||
        fail "$opts: the temporary file is not named <file>.jvmprof-<pid>-<random>.tmp: $left"
    [ ! -e "$T/big.hprof" ] && [ ! -e "$T/big.txt" ] || fail "$opts: a final file appeared although the dump was killed"
    segs=$(printf '%s\n' "$all" | grep -cE '\.tmp\.hprof\.p[0-9]+$' || true)
    [ "$segs" = 0 ] && segs=""
    note "$opts: killed mid-dump, left $left ($(stat -c %s "$T/$left") bytes)${segs:+ and $segs segment(s) of it}"
    # the next dump to the same path removes it
    file=${opts##*file=}
    run_java "${opts/doe=n/doe=y}" Hello
    expect_rc 0
    expect_grep "removed $T/$left, a temporary file left by process [0-9]*, which no longer runs" "$T/err"
    [ -s "$file" ] || fail "$opts: the next dump was not written"
    ls "$T" | grep -q 'jvmprof-' && fail "$opts: temporary files remain after the next dump: $(ls "$T" | grep jvmprof-)"
    rm -f "$file"
done
echo "t9006 ok"
