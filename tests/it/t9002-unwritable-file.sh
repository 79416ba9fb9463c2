# An output file that cannot be written: clear error at start; force=n stops
# the VM, force=y (the default) lets the program run unprofiled.
. "$(dirname "$0")/lib.sh"
run_java "file=/nonexistent-dir/x.txt,force=n" Hello
[ "$RC" != 0 ] || fail "force=n: the VM started"
! grep -q hello "$T/out" || fail "force=n: the program ran"
expect_grep "jvmprof: file=/nonexistent-dir/x.txt: directory /nonexistent-dir does not exist (force=n stops the program)" "$T/err"
run_java "file=/nonexistent-dir/x.txt" Hello
expect_rc 0
[ "$(cat "$T/out")" = hello ] || fail "force=y: program output changed"
expect_grep "profiling disabled, the program runs on (force=y)" "$T/err"
# force=y: a flame graph that cannot be written is left out, not the profile
run_java "cpu=samples,file=$T/keep.txt,flame=/nonexistent-dir/f.html" Hello
expect_rc 0
[ "$(cat "$T/out")" = hello ] || fail "force=y, bad flame=: program output changed"
expect_grep "^jvmprof: flame=/nonexistent-dir/f.html: directory /nonexistent-dir does not exist; it is not written, the rest of the profile is (force=y)$" "$T/err"
expect_grep "^CPU SAMPLES END" "$T/keep.txt"
# an existing report is replaced atomically, and %p names the pid
run_java "file=$T/p%p.txt" Hello
ls "$T"/p[0-9]*.txt >/dev/null 2>&1 || fail "%p was not expanded"

# tracefile= that cannot be written, as file=: force=y (the default) runs the program unprofiled after one
# line, force=n stops the VM (it stopped the VM either way); a device that refuses the header (/dev/full) too
for bad in "$T/nodir/x.trace|directory $T/nodir does not exist" "$T|is a directory" "/dev/full|No space left on device"; do
    for opts in "trace=exec+thread|runs on" "trace=thread,cpu=samples,file=$T/tr-keep.txt|runs on" "trace=thread,force=n|stops"; do
        run_java "${opts%|*},tracefile=${bad%|*}" Hello
        if [ "${opts#*|}" = stops ]; then
            [ "$RC" != 0 ] || fail "${opts%|*},tracefile=${bad%|*}: the VM started"
            want="(force=n stops the program)"
        else
            expect_rc 0
            [ "$(cat "$T/out")" = hello ] || fail "${opts%|*},tracefile=${bad%|*}: program output changed"
            want="; profiling disabled, the program runs on (force=y)"
        fi
        [ "$(grep -c '^jvmprof:' "$T/err")" = 1 ] || fail "${opts%|*},tracefile=${bad%|*}: not one line: $(cat "$T/err")"
        grep -qF "jvmprof: tracefile=${bad%|*}: " "$T/err" && grep -qF "${bad#*|}" "$T/err" && grep -qF "$want" "$T/err" ||
            fail "${opts%|*},tracefile=${bad%|*}: $(cat "$T/err")"
    done
done
[ ! -e "$T/tr-keep.txt" ] || fail "profiling went on with an unwritable tracefile="
# ... and Control.start throws IllegalArgumentException for it, as for any output that cannot be written
run_java "cpu=samples,file=$T/s0.txt" Sessions "$T" stop "bad:trace=exec,tracefile=%D" "bad:trace=thread,tracefile=/dev/full" \
    "start:trace=thread,tracefile=%D/ok.trace" stop
expect_rc 0
expect_grep "^bad refused: jvmprof: start: tracefile=$T: is a directory" "$T/out"
expect_grep "^bad refused: jvmprof: start: tracefile=/dev/full: No space left on device$" "$T/out"
expect_no_grep "WRONG\|NOT REFUSED" "$T/out"
[ "$(grep -c '^start true$' "$T/out")" = 1 ] && [ -s "$T/ok.trace" ] || fail "no trace session after the refusals: $(cat "$T/out")"

# pprof= and jfr= with trace= alone or heap=dump alone (no report to make them from): refused in one line,
# where they were accepted and never written
for opts in "trace=thread,tracefile=$T/p.trace,pprof=$T/p.pb.gz|pprof= with trace= alone" \
            "trace=exec,tracefile=$T/p.trace,jfr=$T/p.jfr|jfr= with trace= alone" \
            "heap=dump,file=$T/p.hprof,pprof=$T/p.pb.gz|pprof= with heap=dump alone" \
            "heap=dump,file=$T/p.hprof,jfr=$T/p.jfr|jfr= with heap=dump alone"; do
    run_java "${opts%|*}" Hello
    [ "$RC" != 0 ] && [ "$(grep -c '^jvmprof:' "$T/err")" = 1 ] && grep -q "^jvmprof: ${opts#*|}: " "$T/err" ||
        fail "${opts%|*}: $(cat "$T/err")"
done

# Control.dumpHeap to a device that refuses the bytes: it throws, and stderr does not say it was written
for dumper in hotspot jvmti; do
    run_java "heap=dump,dumper=$dumper,doe=n,file=$T/d.hprof" Sessions "$T" heapdump:/dev/full "heapdump:%D/d2.hprof"
    expect_rc 0
    expect_grep "^heapdump failed: jvmprof: heap dump to /dev/full: .*No space left on device" "$T/out"
    expect_grep "^heapdump true$" "$T/out"
    expect_no_grep "wrote /dev/full" "$T/err"
    expect_grep "^jvmprof: heap dump: wrote $T/d2.hprof " "$T/err"
done

# a trace whose writes fail (a FIFO whose reader leaves after the header): the summary says so, then the drops
mkfifo "$T/t.fifo"
head -c 32 "$T/t.fifo" >/dev/null &
reader=$!
run_java "trace=exec+thread,include=Sessions,tracefile=$T/t.fifo" Sessions "$T" calls
wait "$reader"
expect_rc 0
expect_grep "^jvmprof: trace: .*; writing failed: Broken pipe; [0-9]* events dropped$" "$T/err"
echo "t9002 ok"
