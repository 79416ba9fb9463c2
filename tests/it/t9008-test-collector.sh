# A collector takes one file and one row (docs/ARCHITECTURE.md): the test agent
# (build/test/libjvmprof.so) has tests/collectors/collect_thread_count.c in its
# list, which counts the threads that start and end and puts the counts in
# each report's COUNTS section. ManyThreads starts 60 threads that all end; the
# program's own main thread and the JVM's threads come on top, so the counts
# are at least 60, and with the program's threads gone, as many ended as
# started, less the threads still running at exit. The production agent's
# COUNTS have no such lines.
. "$(dirname "$0")/lib.sh"
TEST_AGENT="$ROOT/build/test/libjvmprof.so"
[ -f "$TEST_AGENT" ] || fail "no $TEST_AGENT (make builds it for make test)"
RC=0
timeout -k 10 120 "$JAVA" "-agentpath:$TEST_AGENT=cpu=samples,file=$T/r.txt" -cp "$CLASSES" ManyThreads 60 >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
expect_grep "^COUNTS BEGIN" "$T/r.txt"
started=$(sed -n 's/^test collector: threads started \([0-9]*\)$/\1/p' "$T/r.txt")
ended=$(sed -n 's/^test collector: threads ended \([0-9]*\)$/\1/p' "$T/r.txt")
[ -n "$started" ] && [ -n "$ended" ] || fail "no counts: $(sed -n '/COUNTS BEGIN/,/COUNTS END/p' "$T/r.txt")"
[ "$started" -ge 60 ] && [ "$started" -le 80 ] || fail "threads started: $started, expected 60 and the JVM's few"
[ "$ended" -ge 60 ] && [ "$ended" -le "$started" ] || fail "threads ended: $ended of $started"
note "the test collector counted $started threads started and $ended ended"
# the same program with the real agent: no COUNTS section, the rest as before
run_java "cpu=samples,file=$T/p.txt" ManyThreads 60
expect_rc 0
expect_no_grep "^test collector" "$T/p.txt"
expect_grep "^events lost (out of memory) 0$" "$T/p.txt"
expect_grep "^CPU SAMPLES END" "$T/p.txt"
cmp -s "$T/out" <(timeout -k 10 120 "$JAVA" -cp "$CLASSES" ManyThreads 60) || fail "the program's output changed"
echo "t9008 ok"
