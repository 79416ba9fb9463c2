# A bad option stops the VM at start with one line naming the option and what
# is accepted; the program does not run.
. "$(dirname "$0")/lib.sh"
check_bad() { # OPTIONS EXPECTED-TEXT
    run_java "$1" Hello
    [ "$RC" != 0 ] || fail "$1: exit code 0"
    ! grep -q hello "$T/out" || fail "$1: the program ran"
    local line
    line=$(grep '^jvmprof: ' "$T/err")
    [ "$(echo "$line" | wc -l)" = 1 ] || { cat "$T/err" >&2; fail "$1: not exactly one jvmprof line"; }
    echo "$line" | grep -qF -- "$2" || fail "$1: message '$line' lacks '$2'"
    note "$1 -> $line"
}
check_bad "interval=abc" "interval=abc: bad value; expected 1..60000"
check_bad "interval=0" "expected 1..60000"
check_bad "depth=-1" "depth=-1: bad value; expected 0..2048"
check_bad "depth=99999" "expected 0..2048"
check_bad "cutoff=2" "cutoff=2: bad value; expected 0..1"
check_bad "format=x" "format=x: bad value; expected a|b"
check_bad "cpu=fast" "cpu=fast: bad value; expected samples|times|y"
check_bad "monitor=maybe" "expected y|n"
check_bad "lineno=1" "expected y|n"
check_bad "bogus=1" "unknown option 'bogus=1'; accepted: help, cpu, monitor"
check_bad "interval" "interval: missing value"
check_bad "file=" "file=: empty file name"
check_bad "heap=all,format=b" "heap=all (or heap=sites with heap=dump) with format=b: the allocation sites and the heap dump go in one HPROF ASCII file (format=a)"
check_bad "heap=sites,alloc_hook=bci" "alloc_hook= chooses how exact counting sees every allocation; add heap=sites,alloc_interval=0"
check_bad "cpu=samples,dumper=hotspot" "dumper= chooses how heap dumps are taken; add heap=dump (or heap=all) or drop dumper="
check_bad "heap=dump,cpu=samples" "heap=dump with cpu=samples: a heap dump is written to file= on its own"
check_bad "cpu=old" "cpu=old: HPROF's caller/callee timing is not available"
check_bad "net=localhost:99999" "net=localhost:99999: expected net=HOST:PORT (a host name or address, [ADDRESS] for IPv6, and a port 1-65535)"
check_bad "msa=y" "msa=y: not available"
# the LIFETIMES section is the ASCII report's: with format=b it would be lost without a word (issue 35)
check_bad "heap=sites,lifetimes=y,format=b" "lifetimes=y with format=b: the HPROF binary format has no record for ages at death"
check_bad "sampler=fast" "sampler=fast: bad value; expected async|jvmti"
check_bad "wall=10,cpu=samples" "wall= with cpu=samples"
check_bad "cpu=samples,sampler=jvmti,flame=x.html" "flame= draws the stacks of the async sampler"
check_bad "flame=/nonexistent-dir/x.html,force=n" "flame=/nonexistent-dir/x.html"
check_bad "collapsed=/nonexistent-dir/x.txt,force=n" "collapsed=/nonexistent-dir/x.txt"
# native frames, the JVM's threads and events (issue 38)
check_bad "cstack=full" "cstack=full: bad value; expected mixed|native|java"
check_bad "heap=dump,cstack=mixed" "cstack= chooses the frames the async sampler takes"
check_bad "wall=10,threads=all" "threads=all samples the JVM's own threads on their CPU clocks: it needs cpu=samples with sampler=async (wall= samples Java threads only)"
check_bad "cpu=samples,sampler=jvmti,event=cycles" "event= chooses what cpu=samples samples on"
check_bad "interval=70000" "interval=70000: with event=cpu the interval is in ms, 1..60000"
check_bad "event=cycles;x" "event=cycles;x: bad value"
check_bad "event=no_such_function_xyz" "event=no_such_function_xyz: no such event, and no function of that name"
# JVMPROF_OPTIONS is appended and validated the same way
JVMPROF_OPTIONS="depth=x" run_java "cpu=samples" Hello
[ "$RC" != 0 ] && grep -q "depth=x: bad value" "$T/err" || fail "JVMPROF_OPTIONS not validated"
# an option given twice: the last would win without a word (heap= adds up, see below)
check_bad "cpu=times,cpu=samples" "cpu= given twice (cpu=times, then cpu=samples); give each option once"
check_bad "cpu=samples,depth=4,depth=8" "depth= given twice (depth=4, then depth=8)"
JVMPROF_OPTIONS="cpu=samples" check_bad "cpu=times" "cpu= given twice (cpu=times, then cpu=samples)"
# interval= is cpu=samples' period only
check_bad "wall=10,interval=5" "interval= with wall=: interval= is the period of cpu=samples, which is off"
check_bad "cpu=times,interval=5" "interval= with cpu=times: interval= is the period of cpu=samples, which is off; add cpu=samples or drop interval="
check_bad "heap=sites,interval=5" "interval= with heap=sites"
# heap=dump alone writes the dump only, which takes no depth=, lineno=, thread= or cutoff=
check_bad "heap=dump,depth=8" "depth= with heap=dump alone: the heap dump is all that is written"
check_bad "heap=dump,lineno=n" "lineno= with heap=dump alone"
check_bad "heap=dump,thread=y" "thread= with heap=dump alone"
check_bad "heap=dump,cutoff=0" "cutoff= with heap=dump alone"
# ... and what stays accepted: heap=sites with heap=dump (= heap=all) and depth= with it
run_java "heap=sites,heap=dump,depth=2,file=$T/all.txt" Hello
expect_rc 0
expect_grep hello "$T/out"
expect_grep "^SITES BEGIN" "$T/all.txt"
expect_grep "^HEAP DUMP BEGIN" "$T/all.txt"

# the agent loaded twice: refused with one line, the JVM stops before the program
check_twice() { # SECOND-AGENT-PATH EXPECTED-TEXT
    RC=0
    (cd "$T" && timeout -k 10 120 "$JAVA" "-agentpath:$AGENT=cpu=samples,file=$T/first.txt" "-agentpath:$1=heap=sites,depth=8" \
        -cp "$CLASSES" Hello >"$T/out" 2>"$T/err") || RC=$?
    [ "$RC" != 0 ] || fail "loaded twice ($1): exit code 0"
    ! grep -q hello "$T/out" || fail "loaded twice ($1): the program ran"
    local line
    line=$(grep '^jvmprof: ' "$T/err")
    [ "$(echo "$line" | wc -l)" = 1 ] || { cat "$T/err" >&2; fail "loaded twice ($1): not exactly one jvmprof line"; }
    echo "$line" | grep -qF -- "$2" || fail "loaded twice ($1): message '$line' lacks '$2'"
    [ ! -e "$T/first.txt" ] && [ ! -e "$T/java.hprof.txt" ] || fail "loaded twice ($1): a report was written"
    note "loaded twice ($1) -> $line"
}
check_twice "$AGENT" "jvmprof: loaded twice in one JVM (-agentpath:$AGENT given twice); the second's options 'heap=sites,depth=8' are refused: give one -agentpath with all the options, e.g. cpu=samples,file=$T/first.txt,heap=sites,depth=8"
cp "$AGENT" "$T/copy.so"
check_twice "$T/copy.so" "jvmprof: loaded twice in one JVM (-agentpath:$AGENT, then a copy of it, -agentpath:$T/copy.so); the second's options 'heap=sites,depth=8' are refused: give one -agentpath with all the options, the first's and these"
