# Both dumpers write what survives a full collection, as jcmd GC.heap_dump
# does: on RefKinds, objects held only through weak or phantom references are
# not in the dump, softly held ones are (memory is plentiful), strong ones
# are; HotSpot's dumper, jvmprof's JVMTI walk (dumper=jvmti) and jcmd give
# the same counts for every marker class, and the walk writes no class with
# more instances than HotSpot's dumper. The walk used to follow weak and
# phantom references and keep their objects (1000 WeakOnly, 1000 PhantomOnly).
. "$(dirname "$0")/lib.sh"
counts() { # FILE: the marker classes and their instance counts
    "$JVMPROF" heap "$1" --top 0 | awk 'NF == 4 && $4 ~ /^RefKinds\$/ { print $4, $2 }' | sort
}
want='RefKinds$SoftOnly 1000
RefKinds$Strong 1000
RefKinds$WeakAndStrong 1000'
for d in hotspot jvmti; do
    run_java "dumper=$d,heap=dump,doe=n,file=$T/unused.hprof" RefKinds dump "$T/$d.hprof"
    expect_rc 0
    expect_grep "dumped true" "$T/out"
    expect_grep "held 2000 4000" "$T/out"
    counts "$T/$d.hprof" >"$T/$d.counts"
    note "dumper=$d: $(tr '\n' ' ' <"$T/$d.counts")"
    diff <(echo "$want") "$T/$d.counts" >&2 || fail "dumper=$d wrote other instance counts than what survives a collection"
done
# jcmd on the same program without the agent
"$JAVA" -cp "$CLASSES" RefKinds wait "$T/stop" >"$T/jout" 2>&1 &
PID=$!
trap 'touch "$T/stop"; kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 1 300); do grep -q '^ready$' "$T/jout" 2>/dev/null && break; sleep 0.1; done
"$JAVA_HOME/bin/jcmd" $PID GC.heap_dump "$T/jcmd.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd failed"; }
touch "$T/stop"
wait $PID || fail "RefKinds failed under jcmd"
counts "$T/jcmd.hprof" >"$T/jcmd.counts"
diff <(echo "$want") "$T/jcmd.counts" >&2 || fail "jcmd's dump holds other counts than expected: the program is wrong"
# whole heaps: the walk writes no class with more instances than HotSpot's
# dumper (it used to: every object held only weakly). It writes fewer of
# some: objects only the JVM's own roots hold (CDS's archived objects, the
# constant pools' strings), which JVMTI's walk does not report; docs/heap-dumps.md
# says so. Separate runs: a class may differ by a few instances.
hist() { "$JVMPROF" heap "$1" --top 0 | awk 'NF == 4 && $2 ~ /^[0-9]+$/ { print $4, $2 }' | sort; }
hist "$T/hotspot.hprof" >"$T/h.hist"
hist "$T/jvmti.hprof" >"$T/j.hist"
join -a1 -a2 -e0 -o 0,1.2,2.2 "$T/h.hist" "$T/j.hist" | awk '$3 > $2 + 5 + $2 / 50' >"$T/more"
[ ! -s "$T/more" ] || { cat "$T/more" >&2; fail "the walk wrote more instances of these classes (name, hotspot, jvmti) than HotSpot's dumper"; }
note "instances in all: hotspot $(awk '{s += $2} END {print s}' "$T/h.hist"), jvmti $(awk '{s += $2} END {print s}' "$T/j.hist")"
exit 0
