# plugin=: the example plugins on programs with known events. count.c sees
# exactly TraceCalls' 11 entries and 11 exits (4 by exception) and its three
# user events in the program's order, and TraceEvents' 1000 Blob and 1
# Blob[] allocations; calltree.c builds TraceSlow's call tree. With plugin=
# and no tracefile=, no trace file is written. Each way a plugin is refused
# (not found, no event function, another API version, a startup that
# fails, an argument it does not take) gives one line naming the library
# and the reason; the program runs on (force=n: the JVM stops).
. "$(dirname "$0")/lib.sh"
make -s -C "$ROOT" examples >&2 || fail "make examples failed"
COUNT="$ROOT/build/examples/libcount.so" TREE="$ROOT/build/examples/libcalltree.so"
cd "$T"
run_java "trace=exec+user+alloc,include=TraceCalls,plugin=$COUNT" TraceCalls
expect_rc 0
expect_grep "^TraceCalls true$" "$T/out"
expect_grep "^count: enter  *11$" "$T/err"
expect_grep "^count: exit  *7$" "$T/err"
expect_grep "^count: exit-throw  *4$" "$T/err"
expect_grep "^count: user  *3$" "$T/err"
expect_grep "^count:  *5 TraceCalls.fact$" "$T/err"
expect_grep "^count:  *3 TraceCalls.thrower$" "$T/err"
expect_grep "^count: user events: before | between | after 8$" "$T/err"
[ ! -e "$T/java.trace" ] || fail "plugin= without tracefile= wrote java.trace"

run_java "trace=alloc+user,plugin=$COUNT:top=3,tracefile=$T/a.trace" TraceEvents
expect_rc 0
expect_grep '^count: alloc  *1000 TraceEvents\$Blob$' "$T/err"
expect_grep '^count: alloc  *1 \[LTraceEvents\$Blob;$' "$T/err"
expect_grep "^count: user events: alloc-start | alloc-end | drop kept | ring made$" "$T/err"
[ -s "$T/a.trace" ] || fail "plugin= with tracefile= wrote no trace file"
# the file and the plugin saw the same allocations
[ "$("$JVMPROF" trace "$T/a.trace" --type alloc | grep -cF ' TraceEvents$Blob bytes=')" = 1000 ] || fail "the file lacks the Blobs"

run_java "trace=exec,include=TraceSlow,plugin=$TREE" TraceSlow
expect_rc 0
expect_grep "^calltree:     TraceSlow.outer  calls=2  ms=" "$T/err"
# slow()'s two 40 ms sleeps: the plugin's time within 10 ms of what the program measured around them
ms=$(sed -n 's/^calltree:       TraceSlow\.slow  calls=2  ms=\([0-9.]*\)$/\1/p' "$T/err")
took=$(sed -n 's/^slow took \([0-9.]*\) ms$/\1/p' "$T/out")
[ -n "$ms" ] && [ -n "$took" ] || fail "no calltree line for slow(), or TraceSlow did not say how long it took"
awk -v a="$ms" -v b="$took" 'BEGIN { exit !(b >= 80 && a - b <= 10 && b - a <= 10) }' ||
    fail "calltree: slow() took $ms ms, TraceSlow measured $took ms (at least 80)"
expect_grep "^calltree:       TraceSlow.fast  calls=2000  ms=" "$T/err"
expect_grep "^calltree:     TraceSlow.failing  calls=1  ms=" "$T/err"

# refusals: one line naming the library and the reason; the program runs on
for kind in NO_EVENT OLD_API FAILING; do
    cc -shared -fPIC -I"$ROOT/include" -D$kind -o "$T/lib$kind.so" "$ROOT/tests/plugins/broken.c" || fail "cc $kind"
done
refused() { # options, what the line says
    run_java "trace=exec,include=TraceCalls,$1" TraceCalls
    expect_rc 0
    expect_grep "^TraceCalls " "$T/out"
    [ "$(grep -c "^jvmprof: plugin=" "$T/err")" = 1 ] && grep -q "^jvmprof: plugin=.*: $2" "$T/err" ||
        fail "$1: $(cat "$T/err")"
}
refused "plugin=$T/nowhere.so" "$T/nowhere.so: cannot open shared object file"
refused "plugin=$T/libNO_EVENT.so" "it does not export jvmprof_plugin_event"
refused "plugin=$T/libOLD_API.so" "built for plugin API version 0; this jvmprof has version 2 (and loads 1)"
refused "plugin=$T/libFAILING.so:x" 'its jvmprof_plugin_startup("x") returned 7'
refused "plugin=$COUNT:bogus" 'its jvmprof_plugin_startup("bogus") returned 1'
# force=n: the JVM stops
run_java "trace=exec,include=TraceCalls,plugin=$T/libOLD_API.so,force=n" TraceCalls
[ "$RC" != 0 ] && ! grep -q "^TraceCalls" "$T/out" && grep -q "^jvmprof: plugin=$T/libOLD_API.so: built for" "$T/err" ||
    fail "force=n: a refused plugin did not stop the JVM: rc $RC, $(cat "$T/err")"

# every support function from every event type where the header allows it: no failure, and the answers agree
# with the events (the stack's innermost frame is the entered method, main's thread is "main")
cc -shared -fPIC -I"$ROOT/include" -o "$T/libsupport.so" "$ROOT/tests/plugins/support.c" || fail "cc support.c"
run_java "trace=all,include=TraceEvents,plugin=$T/libsupport.so" TraceEvents
expect_rc 0
grep '^support: ' "$T/err" >"$T/support.txt"
for type in 16 17 19 23 24 25 27 28 31 32 33 34; do
    grep -q "^support: type $type events [1-9][0-9]* failures 0 mismatches 0$" "$T/support.txt" ||
        fail "support functions from type $type: $(grep "type $type " "$T/support.txt")"
done
! grep -v 'failures 0 mismatches 0$' "$T/support.txt" | grep -q . || fail "support functions failed: $(cat "$T/support.txt")"
