# cpu=samples takes one sample per interval of each thread's CPU time: with a
# perf_event task clock where the kernel allows one (root, or
# kernel.perf_event_paranoid <= 1), every signal is one sample, at the
# interval asked for, also below the scheduler tick. Where perf_event_open is
# refused (here by a seccomp filter, as in a container), the sampler says why
# and falls back to POSIX CPU timers, whose signals come at the tick and stand
# for the expirations since: the total still follows the CPU time. Without
# kernel frames (cstack=native or java) at interval=10 or more, POSIX timers
# are chosen: they cost less a sample.
. "$(dirname "$0")/lib.sh"
# verbose line -> "signals samples"
counts() { sed -n 's/^jvmprof: cpu sampler: \([0-9]*\) signals: [0-9]* stacks recorded (\([0-9]*\) samples.*/\1 \2/p' "$1"; }
# the handlers' cost line: timed on one handler in 8 of each thread (those without a context switch inside), so
# on at most a signal in 8 plus one per thread that took signals (a handful here), and on some of them: a switch
# inside a handler of a few us needs an interrupt or a wait in it, but a machine busy with other jobs may give
# many; the time per handler is more than nothing and far below a millisecond
check_cost() {
    local line sig each timed
    line=$(grep '^jvmprof: sampler cost: signal handlers' "$1" | tail -1)
    read -r sig each timed < <(echo "$line" | sed -n 's/.* in \([0-9]*\) signals (\([0-9.]*\) us each, timed on \([0-9]*\)).*/\1 \2 \3/p')
    [ -n "$timed" ] || fail "no handler cost line of the form expected: '$line'"
    note "handlers: $each us each, timed on $timed of $sig signals"
    [ "$timed" -ge 1 ] && [ "$timed" -le $((sig / 8 + 16)) ] || fail "timed on $timed of $sig signals"
    awk -v e="$each" 'BEGIN { exit !(e > 0 && e < 1000) }' || fail "$each us a handler"
}
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$(id -u)" = 0 ] || [ "$paranoid" -le 1 ]; then
    run_java "cpu=samples,interval=1,verbose=y,file=$T/p.txt" TwoSpinners 2
    expect_rc 0
    expect_grep "samples, one per signal of a perf_event task clock)" "$T/err"
    read -r sig smp < <(counts "$T/err")
    note "perf_event: $sig signals, $smp samples in 2 s of two spinning threads"
    [ "$sig" -ge 1500 ] || fail "only $sig signals in 2 s of two threads at interval=1"
    # one sample per signal, less those the sampler says came on threads not sampled (a thread ending, or
    # the JVM's exit), give or take the ones still in flight at the end: one a thread that uses CPU, the
    # two spinners and main, which watches their CPU time (CpuBudget)
    # and less those whose stack could not be walked, which the line counts apart ("N samples not walkable
    # (why)": 1 or 2 a run on either JDK here; a CI run on JDK 25 had 4 signals more than samples)
    off=$(grep -o '[0-9]* on threads not sampled' "$T/err" | awk '{s += $1} END {print s + 0}')
    unwalk=$(grep -o '[0-9]* samples not walkable' "$T/err" | awk '{s += $1} END {print s + 0}')
    sig=$((sig - off - unwalk))
    [ $((smp - sig)) -le 3 ] && [ $((sig - smp)) -le 3 ] ||
        fail "$smp samples from $sig signals ($off more on threads not sampled, $unwalk not walkable): not one each"
    check_cost "$T/err"
else
    note "perf_event_open not open to uid $(id -u) (perf_event_paranoid=$paranoid): only the fallback is checked"
fi
# cstack=native at interval=10 needs nothing only the perf_event clock gives: POSIX CPU timers, chosen and
# said so, whose totals still follow the CPU time (two spinners for 2 s: about 400 samples of 10 ms; a busy
# machine gives the spinners less CPU, never more, and the budget (CpuBudget) counts their own CPU time)
run_java "cpu=samples,cstack=native,interval=10,verbose=y,file=$T/n.txt" TwoSpinners 2
expect_rc 0
expect_grep "with the overruns of POSIX CPU timers), chosen: cstack=native at interval=10 needs no perf_event clock" "$T/err"
read -r sig smp < <(counts "$T/err")
note "cstack=native, interval=10: POSIX timers, $sig signals, $smp samples"
[ "$smp" -ge 360 ] && [ "$smp" -le 520 ] || fail "$smp samples of 10 ms in 2 s of CPU of each of two spinners (expected 360..520)"
timeout -k 10 120 "$ROOT/build/tools/deny" perf_event_open "$JAVA" "-agentpath:$AGENT=cpu=samples,interval=1,verbose=y,file=$T/t.txt" \
    -cp "$CLASSES" TwoSpinners 2 >"$T/out" 2>"$T/err" || fail "TwoSpinners failed without perf_event_open: $(tail -3 "$T/err")"
expect_grep "with the overruns of POSIX CPU timers), perf_event_open refused (Operation not permitted)" "$T/err"
read -r sig smp < <(counts "$T/err")
note "POSIX timers: $sig signals, $smp samples"
[ "$smp" -ge 1500 ] || fail "only $smp samples in 2 s of two threads at interval=1 with POSIX timers"
check_cost "$T/err"
# the report holds every sample: those walked and those counted under <unknown frame>
unwalkable=$(grep -o '[0-9]* samples not walkable' "$T/err" | awk '{s += $1} END {print s + 0}')
expect_grep "^CPU SAMPLES BEGIN (total = $((smp + unwalkable))" "$T/t.txt"
echo "t2110 ok"
