# A thread whose perf_event clock cannot be opened, because the process is out
# of file descriptors, is sampled all the same, on a POSIX CPU timer: 80
# threads computing at once (2 s of CPU in all) under a limit of 60
# descriptors. The verbose line
# counts the threads that fell back, and the samples keep coming.
. "$(dirname "$0")/lib.sh"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$(id -u)" != 0 ] && [ "$paranoid" -gt 1 ]; then
    note "perf_event_open not open to uid $(id -u) (perf_event_paranoid=$paranoid): nothing to fall back from"
    echo "t2111 ok"
    exit 0
fi
RC=0
(ulimit -Sn 60 && ulimit -Hn 60 && exec timeout -k 10 120 "$JAVA" \
    "-agentpath:$AGENT=cpu=samples,interval=1,verbose=y,file=$T/f.txt" -cp "$CLASSES" SpinThreads 80 2) \
    >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
expect_grep "^done" "$T/out"
expect_grep "cannot open a perf_event CPU clock for a thread (Too many open files): it gets a POSIX CPU timer" "$T/err"
fell=$(sed -n 's/.*, \([0-9]*\) threads on POSIX CPU timers (no perf_event clock could be opened for them).*/\1/p' "$T/err")
[ -n "$fell" ] && [ "$fell" -gt 0 ] || fail "no threads counted on POSIX timers: $(grep 'cpu sampler:' "$T/err")"
# the sampling goes on: about one sample per ms of CPU
smp=$(sed -n 's/^jvmprof: cpu sampler: [0-9]* signals: [0-9]* stacks recorded (\([0-9]*\) samples.*/\1/p' "$T/err")
note "$fell threads on POSIX timers; $smp samples in 2 s of CPU of 80 threads"
[ -n "$smp" ] && [ "$smp" -ge 1000 ] || fail "only $smp samples"
expect_no_grep "that thread is not sampled" "$T/err"
echo "t2111 ok"
