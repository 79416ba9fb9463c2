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
# an existing report is replaced atomically, and %p names the pid
run_java "file=$T/p%p.txt" Hello
ls "$T"/p[0-9]*.txt >/dev/null 2>&1 || fail "%p was not expanded"
