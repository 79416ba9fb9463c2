# JVMTI's allocation sampler (can_generate_sampled_object_alloc_events) belongs
# to one JVMTI environment at a time: heap=sites takes it in the profile's,
# trace=alloc in the trace's own. Each gives it back at its session's end, so
# in one JVM heap=sites, then trace=alloc, then heap=sites again each run and
# write their real output, whichever session came first (given in -agentpath
# or started by jvmprof.Control.start). Asked in one session, the pair is
# refused in one line that says why; held by another JVMTI agent, the refusal
# says so.
. "$(dirname "$0")/lib.sh"
D="$T"
sites_ok() { # FILE: the SITES table holds the phase's class, allocated 400000 times (sampled: about)
    local n
    n=$(awk '$1 ~ /^[0-9]+$/ && $9 == "Sessions$PhaseAllocThing" { s += $7 } END { print s + 0 }' "$1")
    [ "$n" -ge 300000 ] && [ "$n" -le 500000 ] || { cat "$1" >&2; fail "$1: $n PhaseAllocThing allocated, 400000 made"; }
}
trace_ok() { # FILE: every one of the phase's 400000 allocations in the trace
    local n
    n=$("$JVMPROF" trace "$1" | grep -c ' alloc .*Sessions\$PhaseAllocThing' || true)
    [ "$n" = 400000 ] || fail "$1: $n allocations of PhaseAllocThing traced, 400000 made"
}

# sessions one after another: the first given in -agentpath (each kind), the others by Control.start
for first in "cpu=samples,file=%D/a0.txt" "trace=alloc,tracefile=%D/a0.trace" \
             "heap=sites,alloc_interval=0,file=%D/a0.txt"; do
    rm -f "$D"/a0.* "$D"/s[1-4].*
    run_java "${first//%D/$D}" Sessions "$D" alloc stop \
        "start:heap=sites,alloc_interval=4096,file=%D/s1.txt" alloc stop \
        "start:trace=alloc,tracefile=%D/s2.trace" alloc stop \
        "start:heap=sites,alloc_interval=4096,file=%D/s3.txt" alloc stop \
        "start:trace=alloc+thread,tracefile=%D/s4.trace" alloc stop
    expect_rc 0
    [ "$(grep -c '^start true$' "$T/out")" = 4 ] || { cat "$T/out" "$T/err" >&2; fail "first $first: 4 sessions started expected"; }
    case $first in
    trace=*) trace_ok "$D/a0.trace" ;;
    heap=sites,alloc_interval=0*) site_objs "$D/a0.txt" 'Sessions$PhaseAllocThing' | grep -qx 400000 ||
        fail "a0.txt: not the 400000 PhaseAllocThing counted exactly" ;;
    heap=*) sites_ok "$D/a0.txt" ;;
    esac
    sites_ok "$D/s1.txt"
    trace_ok "$D/s2.trace"
    sites_ok "$D/s3.txt"
    trace_ok "$D/s4.trace"
    expect_no_grep "allocation sampler\|refused\|failed" "$T/err"
done

# both in one session: refused in one line that names the pair and what to do
run_java "heap=sites,alloc_interval=0,trace=alloc,tracefile=$D/x.trace,file=$D/x.txt" Hello
[ "$RC" != 0 ] && [ "$(grep -c '^jvmprof:' "$T/err")" = 1 ] || fail "heap=sites,alloc_interval=0,trace=alloc: $(cat "$T/err")"
expect_grep "trace=alloc with heap=sites,alloc_interval=0: both need JVMTI's allocation sampler .*one JVMTI environment holds at a time; add alloc_hook=bci" "$T/err"
run_java "cpu=samples,file=$D/y.txt" Sessions "$D" stop "bad:heap=sites,trace=alloc,tracefile=%D/z.trace,file=%D/z.txt" expect-stopped
expect_rc 0
expect_grep "^bad refused: jvmprof: start: trace=alloc with heap=sites: both need JVMTI's allocation sampler" "$T/out"
expect_grep "^stopped true$" "$T/out"
# with alloc_hook=bci, exact counts need no sampler: both run, each complete
run_java "heap=sites,alloc_interval=0,alloc_hook=bci,trace=alloc,tracefile=$D/b.trace,file=$D/b.txt" Sessions "$D" alloc
expect_rc 0
trace_ok "$D/b.trace"
site_objs "$D/b.txt" 'Sessions$PhaseAllocThing' | grep -qx 400000 || fail "b.txt: not the 400000 PhaseAllocThing counted"

# another JVMTI agent holds the sampler: each refusal says so (at start-up the JVM stops, as when it refuses
# any capability the options need)
HOLDER="$T/libholder.so"
cc -shared -fPIC -isystem "$JAVA_HOME/include" -isystem "$JAVA_HOME/include/linux" -o "$HOLDER" \
    "$ROOT/tests/agents/sampler_holder.c" || fail "cc sampler_holder.c"
for opts in "heap=sites,file=$D/h.txt|heap=sites" "trace=alloc,tracefile=$D/h.trace|trace=alloc"; do
    RC=0
    timeout -k 10 120 "$JAVA" "-agentpath:$HOLDER" "-agentpath:$AGENT=${opts%|*}" -cp "$CLASSES" Hello >"$T/out" 2>"$T/err" || RC=$?
    expect_rc 1
    expect_grep "^jvmprof: ${opts#*|}: JVMTI's allocation sampler (can_generate_sampled_object_alloc_events), which one JVMTI environment holds at a time, is held by another JVMTI agent in this JVM" "$T/err"
    [ "$(grep -c '^jvmprof:' "$T/err")" = 1 ] || fail "${opts%|*} with another agent: $(cat "$T/err")"
done
RC=0
timeout -k 10 120 "$JAVA" "-agentpath:$HOLDER" "-agentpath:$AGENT=cpu=samples,file=$D/c.txt" -cp "$CLASSES" Sessions "$D" stop \
    "busy:trace=alloc,tracefile=%D/c.trace" "busy:heap=sites,file=%D/c2.txt" "start:cpu=samples,file=%D/c3.txt" stop >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
expect_grep "^busy refused: jvmprof: start: trace=alloc: JVMTI's allocation sampler .* is held by another JVMTI agent in this JVM" "$T/out"
expect_grep "^busy refused: jvmprof: start: heap=sites: JVMTI's allocation sampler .* is held by another JVMTI agent in this JVM" "$T/out"
expect_grep "^start true$" "$T/out"
[ ! -e "$D/c2.txt" ] || fail "a refused start left c2.txt"
echo "t9011 ok"
