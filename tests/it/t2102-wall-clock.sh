# wall=: SleepCompute's main thread computes 50 ms, then sleeps 50 ms, for
# 4 s. Wall-clock sampling sees both halves (each within 10 points of 50% of
# the main thread's samples), compute() as running and Thread.sleep as
# sleeping (the state is read just before the signal, so a sample at the
# moment the thread wakes may carry the old state: at most 1% may); CPU
# sampling sees only compute(). The JDK's own idle threads, blocked inside the
# JVM while JVMTI calls them runnable (Reference Handler in
# waitForReferencePendingList, Signal Dispatcher, Notification Thread), are
# never running: the kernel has them asleep (/proc's state), so their samples
# are waiting. Thread.sleep is native on JDK 17; from JDK 21 it is Java that
# calls the native Thread.sleep0 (JDK 21) or Thread.sleepNanos0 (JDK 22+),
# whose frame is then the sleeping one. These shares are read with
# cstack=java (the top frame is the Java one); with native frames (the
# default, cstack=native) the sleeping samples hold the JVM's and the C
# library's frames above the native Thread.sleep.
. "$(dirname "$0")/lib.sh"
SLEEP_RE='^java\.lang\.Thread\.sleep(0|Nanos0)?$' # the native frame that sleeps
run_java "wall=10,thread=y,cstack=java,file=$T/w.txt,collapsed=$T/w.col" SleepCompute 4
expect_rc 0
grep -qx done "$T/out" || fail "program output changed under wall="
expect_grep "^WALL SAMPLES BEGIN" "$T/w.txt"
# the main thread's serial, then its rows by method and state
main=$(grep 'THREAD START.*name="main"' "$T/w.txt" | grep -o 'id = [0-9]*' | grep -o '[0-9]*')
[ -n "$main" ] || fail "no THREAD START for main"
awk -v main="$main" -v re="$SLEEP_RE" '
    /^TRACE [0-9]+: \(thread=/ { split($2, a, ":"); gsub(/[^0-9]/, "", $3); owner[a[1]] = $3 }
    /^WALL SAMPLES BEGIN/ { on = 1; next }
    /^WALL SAMPLES END/ { on = 0 }
    on && $1 ~ /^[0-9]+$/ && owner[$5] == main { m = $7; if (m ~ re) m = "sleep"; n[m " " $6] += $4; total += $4 }
    END {
        for (k in n) printf "%s %d\n", k, n[k] > "/dev/stderr"
        printf "%d %d %d %d\n", total, n["SleepCompute.compute running"], n["sleep sleeping"],
            n["SleepCompute.compute sleeping"] + n["sleep running"] > "'"$T"'/shares"
    }' "$T/w.txt"
read -r total compute sleep wrong < "$T/shares"
note "wall: main thread $total samples: compute running $compute, Thread.sleep sleeping $sleep"
[ "$total" -ge 200 ] || fail "only $total wall samples of main in 4 s at wall=10"
awk -v t="$total" -v c="$compute" -v s="$sleep" -v w="$wrong" \
    'BEGIN { pc = 100 * c / t; ps = 100 * s / t; printf "  compute %.1f%%, sleep %.1f%%\n", pc, ps > "/dev/stderr";
             exit !(pc >= 40 && pc <= 60 && ps >= 40 && ps <= 60 && w * 100 <= t) }' ||
    fail "wall shares not within 10 points of 50% each (or more than 1% of samples in the wrong state)"
grep -q 'SleepCompute.compute_\[[j0i]\];\[running\] [0-9]*$' "$T/w.col" || fail "no [running] leaf under compute in collapsed"
grep -Eq 'java\.lang\.Thread\.sleep(0|Nanos0)?_\[n\];\[sleeping\] [0-9]*$' "$T/w.col" || fail "no [sleeping] leaf under Thread.sleep"

run_java "wall=10,thread=y,collapsed=$T/m.col" SleepCompute 2
expect_rc 0
grep -Eq 'java\.lang\.Thread\.sleep(0|Nanos0)?_\[n\];JVM_Sleep[A-Za-z]*;.*;\[sleeping\] [0-9]*$' "$T/m.col" ||
    { grep sleeping "$T/m.col" | head -3 >&2; fail "cstack=native (the default): no sleeping stack with JVM_Sleep above Thread.sleep"; }

run_java "cpu=samples,cstack=java,file=$T/c.txt" SleepCompute 4
expect_rc 0
c=$(cpu_rows "$T/c.txt" | awk '$6 == "SleepCompute.compute" {s += $2} END {print s + 0}')
note "cpu: compute ${c}%"
awk -v c="$c" 'BEGIN { exit !(c >= 90) }' || fail "cpu=samples put only ${c}% in compute()"
# a CPU timer may expire in the few microseconds of CPU a thread spends entering or leaving
# Thread.sleep, so a sample or two there is right; a share like wall's is not
s=$(cpu_rows "$T/c.txt" | awk -v re="$SLEEP_RE" '$6 ~ re {s += $2} END {print s + 0}')
note "cpu: Thread.sleep ${s}%"
awk -v s="$s" 'BEGIN { exit !(s <= 2) }' || fail "cpu=samples put ${s}% in Thread.sleep"

# 200 sleeping threads and a computing main thread: a period signals at most
# 16 threads, taking turns, and each sample counts for the threads it stands
# for, so the states' shares still cover every thread: sleeping ~200/201.
run_java "wall=10,file=$T/i.txt" IdleThreads 200 2
expect_rc 0
grep -qx done "$T/out" || fail "IdleThreads output changed under wall="
grep 'wall sampler:' "$T/err" >&2
read -r sig rec < <(sed -n 's/.*wall sampler: \([0-9]*\) signals: [0-9]* stacks recorded (\([0-9]*\) samples.*/\1 \2/p' "$T/err")
total=$(grep -o 'WALL SAMPLES BEGIN (total = [0-9]*' "$T/i.txt" | grep -o '[0-9]*$')
sleeping=$(awk '/^WALL SAMPLES BEGIN/ {on=1; next} /^WALL SAMPLES END/ {on=0} on && $6 == "sleeping" {s += $4} END {print s + 0}' "$T/i.txt")
main=$(awk '/^WALL SAMPLES BEGIN/ {on=1; next} /^WALL SAMPLES END/ {on=0} on && $7 == "IdleThreads.main" {s += $4} END {print s + 0}' "$T/i.txt")
note "200 idle threads: $sig signals gave $rec samples; sleeping $sleeping, main $main of $total"
[ $((sig * 5)) -le "$rec" ] || fail "$sig signals for $rec samples: more than 1 signal per 5 threads"
awk -v s="$sleeping" -v m="$main" -v t="$total" 'BEGIN { exit !(s / t >= 0.95 && m / t >= 0.002 && m / t <= 0.01) }' ||
    fail "sleeping $sleeping and main $main of $total: expected ~200/201 and ~1/201"
# the JVM's idle threads: blocked in the VM, runnable to JVMTI, asleep to the kernel: not running
# (at most 1 sample in 20)
for th in "Reference Handler" "Signal Dispatcher" "Notification Thread"; do
    grep -q "^\[$th\];" "$T/w.col" || fail "no wall samples of the thread '$th': $(cut -c1-80 "$T/w.col" | sort -u | head)"
    run=$(grep "^\[$th\];.*;\[running\] [0-9]*$" "$T/w.col" | awk '{s += $NF} END {print s + 0}')
    all=$(grep "^\[$th\];" "$T/w.col" | awk '{s += $NF} END {print s + 0}')
    note "$th: $run of $all samples running"
    # it may really run for a moment (the Reference Handler handing over a reference: 1 sample of 366
    # on JDK 25 in a CI run); the defect this catches, every idle sample 'running', is all of them
    [ $((run * 20)) -le "$all" ] || fail "$th, idle inside the JVM, has $run of its $all samples 'running'"
done
exit 0
