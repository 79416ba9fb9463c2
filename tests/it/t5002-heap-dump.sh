# heap=dump,dumper=jvmti (JVMTI's heap walk): HPROF binary heap dumps of HeapGraph's known object graph, at exit,
# on SIGQUIT (numbered) and from jvmprof.Control.dumpHeap, read by an
# independent parser (VisualVM's heap library: every reference resolves,
# class counts, primitive field values, statics), compared class by class with
# `jcmd GC.heap_dump` of the same state, with class data sharing on and off;
# `jvmprof heap --fix` finds nothing to null in them;
# a path that cannot be written and a full disk give one clear error, leave no
# file behind, and the program runs on.
. "$(dirname "$0")/lib.sh"
cd "$T"
. "$ROOT/tests/it/heapgraph.sh"

# 1. at exit (doe=y), class data sharing on (the default) and off
touch "$T/stop"
for share in auto off; do
    run_java "heap=dump,dumper=jvmti,file=$T/exit-$share.hprof" -Xshare:$share HeapGraph "$T/stop"
    expect_rc 0
    expect_grep "^sum 5622750 " "$T/out"
    expect_grep "heap dump: wrote $T/exit-$share.hprof" "$T/err"
    head -c 18 "$T/exit-$share.hprof" | grep -q "JAVA PROFILE 1.0.2" || fail "not an HPROF 1.0.2 file"
    verify "$T/exit-$share.hprof"
done
grep -q "left out" "$T/err" && fail "objects left out with -Xshare:off"
# jvmprof heap --fix on our own dumps (sparse ids up to 2^63: once refused as "more than 4 GiB of
# bitmap"): they hold no dangling reference, so nothing is nulled and the file stays as it was
for share in auto off; do
    cp "$T/exit-$share.hprof" "$T/fix-$share.hprof"
    "$JVMPROF" heap "$T/fix-$share.hprof" --fix >"$T/fix.out" 2>&1 || { cat "$T/fix.out" >&2; fail "heap --fix failed"; }
    expect_grep "^$T/fix-$share.hprof: 0 of [1-9][0-9]* references named objects the dump does not hold" "$T/fix.out"
    cmp -s "$T/exit-$share.hprof" "$T/fix-$share.hprof" || fail "heap --fix changed a dump with nothing to fix"
done
# the other collectors
for gc in Serial Parallel Z Shenandoah; do
    run_java "heap=dump,dumper=jvmti,file=$T/gc-$gc.hprof" -XX:+Use${gc}GC HeapGraph "$T/stop"
    expect_rc 0
    verify "$T/gc-$gc.hprof"
done

# format=a: HPROF's ASCII heap dump; and `jvmprof heap --text` of a binary dump
run_java "heap=dump,dumper=jvmti,format=a,file=$T/exit.txt" HeapGraph "$T/stop"
expect_rc 0
head -1 "$T/exit.txt" | grep -q "^JAVA PROFILE 1.0.1, created " || fail "no ASCII header"
expect_grep "^HEAP DUMP BEGIN ([0-9]* objects, [0-9]* bytes) " "$T/exit.txt"
[ "$(tail -1 "$T/exit.txt")" = "HEAP DUMP END" ] || fail "no HEAP DUMP END at the end"
[ "$(grep -c '^OBJ .*class=HeapGraph\$Derived@' "$T/exit.txt")" = 3000 ] || fail "not 3000 Derived OBJ entries"
[ "$(grep -c '^OBJ .*class=HeapGraph\$Impl@' "$T/exit.txt")" = 1500 ] || fail "not 1500 Impl OBJ entries"
expect_grep "^ARR .*nelems=3000, elem type=HeapGraph\$Derived@" "$T/exit.txt"
expect_grep "^CLS .*(name=HeapGraph, trace=" "$T/exit.txt"
expect_grep "^ROOT .*(kind=<system class>" "$T/exit.txt"
expect_grep "^ROOT .*(kind=<thread>, id=" "$T/exit.txt"
expect_grep "^ROOT .*(kind=<Java stack>, thread=" "$T/exit.txt"
n=$(grep -cE '^(OBJ|ARR) ' "$T/exit.txt")
grep -q "^HEAP DUMP BEGIN ($n objects" "$T/exit.txt" || fail "HEAP DUMP BEGIN does not count the $n OBJ/ARR entries"
ls "$T" | grep -q '\.bin$' && fail "the intermediate binary dump was left behind"
"$JVMPROF" heap "$T/exit-auto.hprof" --text -o "$T/conv.txt" || fail "jvmprof heap --text failed"
[ "$(grep -c '^OBJ .*class=HeapGraph\$Derived@' "$T/conv.txt")" = 3000 ] || fail "--text: not 3000 Derived"
note "format=a: $(sed -n 3p "$T/exit.txt")"

# 2. the same state dumped by jcmd and by SIGQUIT (twice: numbered files)
sigquit_like_jcmd "heap=dump,dumper=jvmti,doe=n,file=$T/q.hprof"
"$VERIFY" "$T/jcmd.hprof" >"$T/v.out" 2>&1
note "jcmd's own dump (CDS on): $(grep '^classes=' "$T/v.out")"
ls "$T" | grep -q '\.tmp$' && fail "temporary file left behind"

# classes loading and unloading all the time: every SIGQUIT still gives a complete, valid dump
dumps_while_classes_unload "heap=dump,dumper=jvmti"

# 3. jvmprof.Control.dumpHeap, an unwritable path, a full disk
run_java "heap=dump,dumper=jvmti,doe=n,file=$T/unused.hprof" HeapGraph "$T/stop" dump "$T/api.hprof" /nonexistent/dir/x.hprof
expect_rc 0
expect_grep "^dump $T/api.hprof true$" "$T/out"
expect_grep "^dump /nonexistent/dir/x.hprof failed: jvmprof: heap dump to /nonexistent/dir/x.hprof: directory /nonexistent/dir does not exist$" "$T/out"
expect_grep "^sum 5622750 " "$T/out"
[ ! -e "$T/unused.hprof" ] || fail "doe=n wrote a dump at exit"
verify "$T/api.hprof"
# with other options too (cpu=samples): the API works whatever the agent profiles
run_java "cpu=samples,file=$T/cpu.txt" HeapGraph "$T/stop" dump "$T/api2.hprof"
expect_rc 0
expect_grep "^dump $T/api2.hprof true$" "$T/out"
verify "$T/api2.hprof"
# an agent that could not start (file= unwritable, force=y): the program runs, the API says why
run_java "heap=dump,dumper=jvmti,file=/nonexistent/dir/y.hprof" -cp "$CLASSES:$ROOT/build/jvmprof.jar" HeapGraph "$T/stop" dump "$T/off.hprof"
expect_rc 0
expect_grep "profiling disabled, the program runs on" "$T/err"
expect_grep "^dump $T/off.hprof failed: jvmprof: heap dump to $T/off.hprof: the jvmprof agent is not active" "$T/out"
[ ! -e "$T/off.hprof" ] || fail "a dump from an agent that did not start"
# without the agent: false, nothing written
RC=0; "$JAVA" -cp "$CLASSES:$ROOT/build/jvmprof.jar" HeapGraph "$T/stop" dump "$T/none.hprof" >"$T/out" 2>&1 || RC=$?
expect_rc 0
expect_grep "^dump $T/none.hprof false$" "$T/out"
[ ! -e "$T/none.hprof" ] || fail "a dump without the agent"
mkdir -p "$T/full"
if mount -t tmpfs -o size=1m tmpfs "$T/full" 2>/dev/null; then
    trap 'umount "$T/full" 2>/dev/null; rm -rf "$T"' EXIT
    run_java "heap=dump,dumper=jvmti,doe=n" HeapGraph "$T/stop" dump "$T/full/x.hprof" "$T/after.hprof"
    [ -z "$(ls -A "$T/full")" ] || { ls -la "$T/full" >&2; fail "the failed dump left files on the full disk"; }
    expect_rc 0
    expect_grep "^dump $T/full/x.hprof failed: jvmprof: heap dump to $T/full/x.hprof: .*No space left on device" "$T/out"
    expect_grep "^dump $T/after.hprof true$" "$T/out"
    expect_grep "^sum 5622750 " "$T/out"
    note "full disk: $(grep "full/x.hprof failed" "$T/out")"
    verify "$T/after.hprof"
    umount "$T/full"
else
    note "SKIPPED the full-disk case: cannot mount a tmpfs here (not root?)"
fi
exit 0
