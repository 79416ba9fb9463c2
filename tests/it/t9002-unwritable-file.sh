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
