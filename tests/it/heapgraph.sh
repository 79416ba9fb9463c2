# heapgraph.sh — sourced by the heap dump tests (t5002, t5003): what a dump
# of tests/programs/HeapGraph.java must hold, checked by VisualVM's heap
# library (tests/tools/HeapVerify.java), and its class histogram.
"$ROOT/tools/deps.sh" visualvm || fail "tools/deps.sh visualvm failed"
VERIFY="$ROOT/tests/tools/heapverify.sh"
G='HeapGraph$'
CHECKS=(--count "${G}Derived" --count "${G}Impl" --sum "${G}Derived.d" --sum "${G}Derived.baseInt"
        --sum "${G}Derived.flag" --sum "${G}Derived.letter" --sum "${G}Derived.ratio" --sum "${G}Impl.own"
        --sum "${G}Impl.small" --sum "${G}Impl.tiny" --sum "${G}Impl.f" --static HeapGraph.staticLong
        --static HeapGraph.staticInt --static "${G}WithConstant.K")
EXPECT="count ${G}Derived 3000
count ${G}Impl 1500
sum ${G}Derived.d 4498500.0000
sum ${G}Derived.baseInt 21000.0000
sum ${G}Derived.flag 3000.0000
sum ${G}Derived.letter 360000.0000
sum ${G}Derived.ratio 1500.0000
sum ${G}Impl.own 1124250.0000
sum ${G}Impl.small -3000.0000
sum ${G}Impl.tiny 190500.0000
sum ${G}Impl.f 1875.0000
static HeapGraph.staticLong 1234605616436508552
static HeapGraph.staticInt 12345
static ${G}WithConstant.K 5"

# verify FILE: VisualVM's parser finds every reference and the known values
verify() {
    "$VERIFY" "$1" "${CHECKS[@]}" >"$T/v.out" 2>"$T/v.err" || { cat "$T/v.out" "$T/v.err" >&2; fail "$1: HeapVerify failed"; }
    grep -q ' unresolved=0 ' "$T/v.out" || fail "$1: unresolved references"
    diff <(grep -E '^(count|sum|static) ' "$T/v.out") <(echo "$EXPECT") >&2 || fail "$1: wrong counts or values"
    note "$(basename "$1"): $(grep '^classes=' "$T/v.out")"
}
# hist FILE: HeapGraph's classes and their instance counts, from `jvmprof heap`
hist() { "$JVMPROF" heap "$1" --top 0 | awk 'NF == 4 && $4 ~ /^HeapGraph/ { print $4, $2 }' | sort; }


# start_heapgraph AGENT_OPTIONS: HeapGraph in the background ($PID; "" = no
# agent), once it printed "ready"; it ends when $T/stop appears. The JVM
# options in the array HEAPGRAPH_JVM (none by default) go before the agent's.
HEAPGRAPH_JVM=()
start_heapgraph() {
    rm -f "$T/stop"
    local agent=()
    [ -n "$1" ] && agent=("-agentpath:$AGENT=$1")
    "$JAVA" ${HEAPGRAPH_JVM[@]+"${HEAPGRAPH_JVM[@]}"} "${agent[@]}" -cp "$CLASSES" HeapGraph "$T/stop" >"$T/out" 2>"$T/err" &
    PID=$!
    trap 'touch "$T/stop"; kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T"' EXIT
    for _ in $(seq 1 300); do grep -q '^ready$' "$T/out" 2>/dev/null && break; sleep 0.1; done
    grep -q '^ready$' "$T/out" || { cat "$T/err" >&2; fail "HeapGraph did not get ready"; }
}
# sigquit_dumps FILE...: one SIGQUIT to $PID per FILE, each waited for; the program runs on
sigquit_dumps() {
    for want in "$@"; do
        kill -QUIT $PID
        for _ in $(seq 1 100); do [ -f "$want" ] && break; sleep 0.1; done
        [ -f "$want" ] || { cat "$T/err" >&2; fail "no $want after SIGQUIT"; }
    done
    kill -0 $PID 2>/dev/null || fail "HeapGraph died on SIGQUIT"
}

# sigquit_like_jcmd AGENT_OPTIONS: HeapGraph dumped by jcmd ($T/jcmd.hprof),
# then twice on SIGQUIT to $T/q.hprof and $T/q.hprof.1 (AGENT_OPTIONS names
# that file, with doe=n); both verified, with jcmd's counts of HeapGraph's
# classes (at least 4 of them)
sigquit_like_jcmd() {
    start_heapgraph "$1"
    rm -f "$T/jcmd.hprof"
    "$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$T/jcmd.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd failed"; }
    sigquit_dumps "$T/q.hprof" "$T/q.hprof.1"
    touch "$T/stop"
    wait $PID || fail "HeapGraph failed with a dump taken"
    expect_grep "^sum 5622750 " "$T/out"
    verify "$T/q.hprof"
    verify "$T/q.hprof.1"
    hist "$T/jcmd.hprof" >"$T/jcmd.hist"
    hist "$T/q.hprof" >"$T/ours.hist"
    [ "$(wc -l <"$T/jcmd.hist")" -ge 4 ] || { cat "$T/jcmd.hist" >&2; fail "too few HeapGraph classes in jcmd's dump"; }
    diff "$T/jcmd.hist" "$T/ours.hist" >&2 || fail "instance counts differ from jcmd's dump"
    note "same counts as jcmd for $(wc -l <"$T/jcmd.hist") classes: $(tr '\n' ' ' <"$T/ours.hist")"
}

# dumps_while_classes_unload AGENT_OPTIONS: three SIGQUIT dumps while
# ClassUnload defines and drops classes all the time; each must be complete
# and read by VisualVM's library with every reference resolved
dumps_while_classes_unload() {
    "$JAVA" "-agentpath:$AGENT=$1,doe=n,file=$T/cu-%n.hprof" -cp "$CLASSES" ClassUnload 3000 >"$T/cu.out" 2>"$T/cu.err" &
    CU=$!
    trap 'kill $CU 2>/dev/null; rm -rf "$T"' EXIT
    sleep 1.5
    for n in 1 2 3; do
        kill -QUIT $CU
        for _ in $(seq 1 100); do [ -f "$T/cu-$n.hprof" ] && break; sleep 0.1; done
        [ -f "$T/cu-$n.hprof" ] || { cat "$T/cu.err" >&2; fail "no dump $n while classes load and unload"; }
    done
    kill $CU 2>/dev/null; wait $CU 2>/dev/null
    trap 'rm -rf "$T"' EXIT
    grep -q "heap dump failed" "$T/cu.err" && { cat "$T/cu.err" >&2; fail "a dump failed while classes load and unload"; }
    for n in 1 2 3; do
        "$VERIFY" "$T/cu-$n.hprof" >"$T/v.out" 2>&1 || { cat "$T/v.out" >&2; fail "cu-$n.hprof: HeapVerify failed"; }
    done
    note "3 dumps while classes load and unload ($1): $(grep -c 'heap dump: wrote' "$T/cu.err") written, all verified"
    rm -f "$T"/cu-*.hprof
}
