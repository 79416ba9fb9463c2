# `jvmprof heap FILE --path ID | --path-class CLASS`: the shortest paths from the GC roots in dumps of
# HeapPaths (tests/programs/HeapPaths.java), whose small classes are each kept alive one known way:
#   HeldByStatic       class HeapPaths -static HeapPaths.cache-> HashMap -.table-> HashMap$Node[]
#                      -[7]-> HashMap$Node -.value-> (Integer 7 hashes to 7 of 16 buckets); what
#                      reaches the class HeapPaths itself is the JDK's business (not asserted)
#   HeldByLocal        a GC root itself: a Java frame of the thread "holder"
#   HeldByThreadLocal  the thread object of "holder" -.threadLocals-> ThreadLocal$ThreadLocalMap
#                      -.table-> its Entry[] -[i]-> Entry -.value-> (i: the ThreadLocal's hash, any)
#   HeldByJni          a GC root itself: a JNI global (tests/native/jpnative.c's keepGlobal)
#   HeldBySoft         no strong path: only softly reachable, class HeapPaths -static HeapPaths.soft->
#                      SoftReference -.referent (soft)->
#   HeldByWeak         as HeldBySoft through static HeapPaths.weak and a WeakReference, in a dump of
#                      all objects; a dump of live objects has none (the GC before it cleared it)
#   Dropped            10 objects nothing refers to: unreachable in a dump of all objects
# Dumps: jcmd GC.heap_dump -all=true (no GC first), jcmd GC.heap_dump (live objects), and the agent's
# heap=dump,dumper=jvmti on SIGQUIT. Also the text output, --path by hex and decimal id, --top, and
# one-line errors (exit 2).
. "$(dirname "$0")/lib.sh"
cd "$T"
JCMD="$JAVA_HOME/bin/jcmd"
LIB="$ROOT/build/it/native/libjpnative_fp.so"
[ -f "$LIB" ] || fail "the test's JNI library is not built (make)"
JVM=(-XX:+UseSerialGC -Xmn256m -XX:SoftRefLRUPolicyMSPerMB=1000000)
PID=
trap 'touch "$T/stop"; [ -z "$PID" ] || { kill $PID 2>/dev/null; wait $PID 2>/dev/null; }; rm -rf "$T"' EXIT
# start_heappaths [AGENT_OPTIONS]: HeapPaths in the background ($PID), once it printed "ready"
start_heappaths() {
    rm -f "$T/stop" "$T/out"
    local agent=()
    [ -z "${1:-}" ] || agent=("-agentpath:$AGENT=$1")
    "$JAVA" "${JVM[@]}" "${agent[@]}" -cp "$CLASSES" HeapPaths "$LIB" "$T/stop" >"$T/out" 2>"$T/err" &
    PID=$!
    for _ in $(seq 1 300); do
        grep -q '^ready$' "$T/out" 2>/dev/null && return 0
        kill -0 $PID 2>/dev/null || { cat "$T/err" >&2; fail "HeapPaths exited early"; }
        sleep 0.1
    done
    fail "HeapPaths did not get ready"
}
stop_heappaths() {
    touch "$T/stop"
    wait $PID || { cat "$T/err" >&2; fail "HeapPaths failed"; }
    PID=
    grep -q '^soft kept$' "$T/out" || fail "HeapPaths lost its SoftReference's object: $(cat "$T/out")"
}
start_heappaths
"$JCMD" $PID GC.heap_dump -all=true "$T/all.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd -all failed"; }
"$JCMD" $PID GC.heap_dump "$T/live.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd GC.heap_dump failed"; }
stop_heappaths
start_heappaths "heap=dump,dumper=jvmti,doe=n,file=$T/agent.hprof"
kill -QUIT $PID
for _ in $(seq 1 100); do grep -q 'heap dump: wrote' "$T/err" && break; sleep 0.1; done
grep -q 'heap dump: wrote' "$T/err" || { cat "$T/err" >&2; fail "no agent dump after SIGQUIT"; }
stop_heappaths

H='HeapPaths$'
want() { [ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"; }
# paths DUMP CLASS: --path-class CLASS --tsv into $T/p.tsv (exit status in $RC)
paths() {
    RC=0
    "$JVMPROF" heap "$T/$1.hprof" --path-class "$2" --tsv >"$T/p.tsv" 2>"$T/e" || RC=$?
}
# the first path's rows: its path row (reach, steps), root row (kind, serial, thread), and each step's
# class and reference to the next, as "CLASS NEXT" lines
path_row() { awk -F'\t' '$1 == "path" { print $4, $5; exit }' "$T/p.tsv"; }
root_row() { awk -F'\t' '$1 == "root" { print $2 "|" $4; exit }' "$T/p.tsv"; }
steps() { awk -F'\t' '$1 == "path" { n++ } n == 1 && $1 == "step" { print $4 " " $7 }' "$T/p.tsv"; }
# tail_is N EXPECTED WHAT: the last N steps are EXPECTED (lines)
tail_is() { want "$(steps | tail -n "$1")" "$2" "$3"; }

for d in live all agent; do
    # (a) through a static field: the tail from the class HeapPaths, each step by name
    paths $d "${H}HeldByStatic"
    [ $RC = 0 ] || { cat "$T/e" >&2; fail "$d: --path-class HeldByStatic failed"; }
    set -- $(path_row)
    want "$1" strong "$d: HeldByStatic's reach"
    [ "$2" -ge 5 ] || fail "$d: HeldByStatic $2 steps from a root, expected at least 5"
    tail_is 5 "class HeapPaths static HeapPaths.cache
java.util.HashMap .table
java.util.HashMap\$Node[] [7]
java.util.HashMap\$Node .value
${H}HeldByStatic " "$d: HeldByStatic's path"
    # (b) a local of the running frame of the thread "holder"
    paths $d "${H}HeldByLocal"
    want "$(path_row)" "strong 0" "$d: HeldByLocal's reach"
    want "$(root_row)" "Java frame|holder" "$d: HeldByLocal's root"
    # (c) a JNI global
    paths $d "${H}HeldByJni"
    want "$(path_row)" "strong 0" "$d: HeldByJni's reach"
    want "$(root_row)" "JNI global|" "$d: HeldByJni's root"
    # (d) a ThreadLocal of "holder": through its thread object
    paths $d "${H}HeldByThreadLocal"
    want "$(path_row)" "strong 4" "$d: HeldByThreadLocal's reach"
    want "$(root_row)" "thread object|holder" "$d: HeldByThreadLocal's root"
    steps | sed -n 3p | grep -qE '^java\.lang\.ThreadLocal\$ThreadLocalMap\$Entry\[\] \[[0-9]+\]$' ||
        fail "$d: HeldByThreadLocal's third step: $(steps | sed -n 3p)"
    want "$(steps | sed 3d)" "java.lang.Thread .threadLocals
java.lang.ThreadLocal\$ThreadLocalMap .table
java.lang.ThreadLocal\$ThreadLocalMap\$Entry .value
${H}HeldByThreadLocal " "$d: HeldByThreadLocal's path"
    # only softly reachable: its path through the referent
    paths $d "${H}HeldBySoft"
    set -- $(path_row)
    want "$1" soft "$d: HeldBySoft's reach"
    tail_is 3 "class HeapPaths static HeapPaths.soft
java.lang.ref.SoftReference .referent (soft)
${H}HeldBySoft " "$d: HeldBySoft's path"
    # the text output: header, the root line with the thread, the steps
    "$JVMPROF" heap "$T/$d.hprof" --path-class "${H}HeldByLocal" >"$T/l.txt" || fail "$d: --path-class (text) failed"
    grep -qE '^GC root: Java frame of thread "holder" \(serial [0-9]+\)$' "$T/l.txt" || { cat "$T/l.txt" >&2; fail "$d: no root line"; }
    grep -qE '^0x[0-9a-f]+ \(HeapPaths\$HeldByLocal\): a GC root itself$' "$T/l.txt" || { cat "$T/l.txt" >&2; fail "$d: no path line"; }
    "$JVMPROF" heap "$T/$d.hprof" --path-class "${H}HeldBySoft" >"$T/s.txt" || fail "$d: --path-class (text) failed"
    grep -q 'no path of strong references from a GC root: only softly reachable, through the referent of a soft reference' "$T/s.txt" ||
        { cat "$T/s.txt" >&2; fail "$d: HeldBySoft not said softly reachable"; }
    grep -qE '^ +[0-9]+ 0x[0-9a-f]+ +[0-9]+ +[0-9]+  static HeapPaths\.soft +class HeapPaths$' "$T/s.txt" ||
        { cat "$T/s.txt" >&2; fail "$d: no step line of class HeapPaths"; }
    # --path by id, hex and decimal: the same path
    paths $d "${H}HeldByStatic"
    id=$(awk -F'\t' '$1 == "path" { print $2; exit }' "$T/p.tsv")
    "$JVMPROF" heap "$T/$d.hprof" --path "$id" --tsv >"$T/id.tsv" || fail "$d: --path $id failed"
    diff "$T/p.tsv" "$T/id.tsv" >&2 || fail "$d: --path $id differs from --path-class"
    "$JVMPROF" heap "$T/$d.hprof" --path "$((id))" --tsv >"$T/id.tsv" || fail "$d: --path $((id)) failed"
    diff "$T/p.tsv" "$T/id.tsv" >&2 || fail "$d: --path $((id)) (decimal) differs"
    note "$d: HeldByStatic $(path_row | cut -d' ' -f2) steps from a $(root_row | cut -d'|' -f1) root, through $(steps | head -1)"
done

# weakly reachable only, in the dump of all objects; none in the dump of live objects
paths all "${H}HeldByWeak"
[ $RC = 0 ] || { cat "$T/e" >&2; fail "all: no HeldByWeak (a GC cleared it before the dump?)"; }
set -- $(path_row)
want "$1" weak "all: HeldByWeak's reach"
tail_is 3 "class HeapPaths static HeapPaths.weak
java.lang.ref.WeakReference .referent (weak)
${H}HeldByWeak " "all: HeldByWeak's path"
"$JVMPROF" heap "$T/all.hprof" --path-class "${H}HeldByWeak" | grep -q 'only weakly reachable, through the referent of a weak reference' ||
    fail "all: HeldByWeak not said weakly reachable"
paths live "${H}HeldByWeak"
[ $RC = 2 ] && grep -qx "jvmprof: heap: $T/live.hprof has no instance of a class ${H}HeldByWeak; --path-class takes a class name as the histogram prints it (java.util.HashMap, Outer\$Inner, int\[\], java.lang.Object\[\])" "$T/e" ||
    { cat "$T/e" >&2; fail "live: HeldByWeak: rc $RC"; }
# garbage: 10 Dropped, unreachable; --top 3 shows 3 of them
RC=0
"$JVMPROF" heap "$T/all.hprof" --path-class "${H}Dropped" --top 3 --tsv >"$T/p.tsv" || RC=$?
want "$RC" 0 "all: --path-class Dropped"
want "$(awk -F'\t' '$1 == "path" { print $4, $5 }' "$T/p.tsv" | sort | uniq -c | sed 's/^ *//')" "3 unreachable 0" "all: the Dropped paths"
"$JVMPROF" heap "$T/all.hprof" --path-class "${H}Dropped" --top 3 >"$T/dr.txt"
grep -q "^class ${H}Dropped: 10 instances, 0 reachable; the 3 that retain the most:\$" "$T/dr.txt" || { cat "$T/dr.txt" >&2; fail "all: Dropped header"; }
[ "$(grep -c ': unreachable: no GC root reaches it' "$T/dr.txt")" = 3 ] || fail "all: not 3 unreachable Dropped"

# errors: one line, exit 2
err() {
    local expect=$1; shift
    RC=0
    "$JVMPROF" heap "$@" >"$T/o" 2>"$T/e" || RC=$?
    [ "$RC" = 2 ] && [ "$(wc -l <"$T/e")" = 1 ] && grep -q -- "$expect" "$T/e" || { cat "$T/e" >&2; fail "$* : rc $RC"; }
}
err "holds no object 0x1 (1); --path takes the id of an object" "$T/live.hprof" --path 1
err "--path 0xzz: expected an object id, hex (0x7ff812340) or decimal" "$T/live.hprof" --path 0xzz
err "--path -5: expected an object id" "$T/live.hprof" --path -5
err "has no instance of a class NoSuchClass" "$T/live.hprof" --path-class NoSuchClass
err "--path-class needs a class name" "$T/live.hprof" --path-class
err "takes no --retained" "$T/live.hprof" --path 1 --retained
err "--top N goes with --path-class" "$T/live.hprof" --path 1 --top 3
exit 0
