# jvmprof.Control's tracing API (TraceControl, with tests/plugins/window.c as
# the tracing library): every ControlException case with its message, with
# and without an agent; then tracingBegin/tracingEnd 100 times while 8
# threads run: no crash, no event outside a begin..end window, the user
# events of each window in order; reportObjectReferences gives the plugin
# exactly the four edges of a known graph; tracingShutdown calls its
# shutdown once.
. "$(dirname "$0")/lib.sh"
LIB="$T/libwindow.so"
cc -shared -fPIC -I"$ROOT/include" -o "$LIB" "$ROOT/tests/plugins/window.c" || fail "cc window.c"

run_java "trace=thread,tracefile=$T/x.trace" TraceControl errors "$LIB"
expect_rc 0
cat >"$T/want.txt" <<TXT
begin before startup: jvmprof: tracingBegin before tracingStartup: load a tracing library with tracingStartup(name) first
end before begin: jvmprof: tracingEnd without tracingBegin: tracing has not begun
shutdown before startup: jvmprof: tracingShutdown without tracingStartup: no tracing library is loaded
report before begin: jvmprof: reportObjectReferences: tracing has not begun; call tracingBegin first
relative path: jvmprof: tracingStartup: 'lib/x': give a library name ("trace" for libtrace.so in java.library.path) or an absolute path
missing file: jvmprof: tracingStartup: /nonexistent/libx.so: no such file
two exec levels: jvmprof: tracingBegin(0xa3): choose exactly one execution level of EXECUTION_ON, EXECUTION_LIGHT, EXECUTION_OFF; 2 given
no memory level: jvmprof: tracingBegin(0x81): choose exactly one memory level of MEMORY_ON, MEMORY_LIGHT, MEMORY_OFF; 0 given
unknown bits: jvmprof: tracingBegin(0x1000a1): unknown flag bits 0x100000
no events: jvmprof: tracingBegin(0xa4): the flags name no events; add EXECUTION_ON, MEMORY_LIGHT, THREADS ...
startup: no exception
startup twice: jvmprof: tracingStartup: $LIB is started already; call tracingShutdown first
begin: no exception
begin twice: jvmprof: tracingBegin: tracing has begun already; call tracingEnd first
end: no exception
shutdown: no exception
userEvent false objectReferences false
TXT
grep -v '^no such library: ' "$T/out" | diff -u "$T/want.txt" - >&2 || fail "the ControlException messages differ"
expect_grep "^no such library: jvmprof: tracingStartup: no libnosuchlib.so in java.library.path (" "$T/out"
expect_grep "^window: startups 1 begins 1 ends 1 shutdowns 1 " "$T/err"

# without an agent: the calls that need one say so
RC=0
timeout -k 10 60 "$JAVA" -cp "$CLASSES:$ROOT/build/jvmprof.jar" TraceControl noagent "$LIB" >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
expect_grep "^startup: jvmprof: tracingStartup: no jvmprof agent is loaded; start the JVM with -agentpath:/path/to/libjvmprof.so$" "$T/out"
expect_grep "^begin: jvmprof: tracingBegin before tracingStartup" "$T/out"
expect_grep "^userEvent false objectReferences false$" "$T/out"

# a tracing ended by Control.stop(): tracingEnd then stops nothing (not the session started since), and
# tracingBegin begins again (it said "begun already")
run_java "trace=thread,tracefile=$T/s.trace" TraceControl stopped "$LIB" "$T/after.txt"
expect_rc 0
cat >"$T/want.txt" <<'TXT'
stop true
start true
end after stop: no exception
running after tracingEnd true
begin: no exception
stop true
begin after stop: no exception
report: no exception
end: no exception
running after end false
shutdown: no exception
TXT
diff -u "$T/want.txt" "$T/out" >&2 || fail "tracingEnd after Control.stop()"
expect_grep "^CPU SAMPLES BEGIN" "$T/after.txt"
expect_grep "^window: startups 1 begins 3 ends 3 shutdowns 1 " "$T/err"

# 100 windows while 8 threads run, then the object graph
run_java "trace=exec,include=TraceControl,tracefile=$T/w.trace" TraceControl windows "$LIB"
expect_rc 0
expect_grep "^windows done$" "$T/out"
expect_grep "^window: startups 1 begins 101 ends 101 shutdowns 1 events [1-9][0-9]* outside 0 users 100 out-of-order 0$" "$T/err"
grep '^window: edge ' "$T/err" | sort >"$T/edges.txt"
cat >"$T/want-edges.txt" <<'TXT'
window: edge TraceControl$NodeA -> TraceControl$NodeB
window: edge TraceControl$NodeA -> TraceControl$NodeC
window: edge TraceControl$NodeB -> TraceControl$NodeC
window: edge TraceControl$NodeC -> TraceControl$NodeA
TXT
diff -u "$T/want-edges.txt" "$T/edges.txt" >&2 || fail "the plugin did not rebuild the graph's edges exactly"
note "$(grep '^window: startups' "$T/err")"
