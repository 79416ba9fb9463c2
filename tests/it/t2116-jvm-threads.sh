# threads=all: the JVM's own threads (GC workers, the VM thread, the JIT
# compilers) are sampled on their CPU clocks like Java threads, named as the
# OS names them. GcChurn makes G1 collect continually; its GC threads' share
# of the samples (THREAD KINDS: gc) is within 10 points of the share of the
# process's CPU time /proc/PID/task/*/stat gives them (read while it runs,
# each thread's last reading kept). Their stacks are native (libjvm.so's
# functions), and without threads=all no JVM thread is sampled.
. "$(dirname "$0")/lib.sh"
# gc_share_proc PID OUT: polls the tasks' CPU ticks until PID exits; writes "gc total" ticks
poll_tasks() {
    local pid=$1 out=$2
    : >"$T/ticks"
    while kill -0 "$pid" 2>/dev/null; do
        for st in /proc/"$pid"/task/*/stat; do
            local line comm rest
            line=$(cat "$st" 2>/dev/null) || continue
            comm=${line#*(}; comm=${comm%)*}; rest=${line##*) }
            set -- $rest
            echo "${st%/stat} ${comm// /_} $((${12} + ${13}))"
        done >>"$T/ticks"
        sleep 0.2
    done
    # the last reading of each task
    awk '{last[$1] = $3; name[$1] = $2} END {for (t in last) print name[t], last[t]}' "$T/ticks" >"$out"
}
"$JAVA" -Xmx1g -XX:+UseG1GC "-agentpath:$AGENT=cpu=samples,threads=all,thread=y,depth=8,collapsed=$T/c.txt,file=$T/r.txt" \
    -cp "$CLASSES" GcChurn 6 >"$T/out" 2>"$T/err" &
pid=$!
( sleep 110; kill -9 "$pid" 2>/dev/null ) &
watchdog=$!
poll_tasks "$pid" "$T/tasks"
kill "$watchdog" 2>/dev/null
wait "$pid" || { cat "$T/err" >&2; fail "GcChurn failed"; }
gc_proc=$(awk '$1 ~ /^(GC_Thread|G1_|ZWorker|Parallel_GC)/ {g += $2} {t += $2} END {printf "%.1f", t ? g * 100 / t : 0}' "$T/tasks")
gc_prof=$(sed -n '/^THREAD KINDS BEGIN/,/^THREAD KINDS END/p' "$T/r.txt" | awk '$1 == "gc" {gsub(/%/, "", $2); print $2}')
[ -n "$gc_prof" ] || { cat "$T/r.txt" | head -80 >&2; fail "no gc row in THREAD KINDS"; }
note "GC threads: $gc_prof% of the samples, $gc_proc% of the process's CPU time (/proc)"
awk -v a="$gc_prof" -v b="$gc_proc" 'BEGIN {d = a - b; if (d < 0) d = -d; exit !(d <= 10 && b >= 5)}' ||
    fail "GC threads' share $gc_prof% of samples against $gc_proc% of CPU time: more than 10 points apart (or GC under 5%)"
# their threads are named as the OS names them, and their stacks are libjvm.so's
expect_grep 'name="GC Thread#0"' "$T/r.txt"
grep -q 'G1' "$T/c.txt" || grep -q 'G1' "$T/r.txt" || fail "no G1 function in the GC threads' stacks"
# without threads=all: no JVM thread
run_java "cpu=samples,thread=y,file=$T/j.txt" GcChurn 2
expect_rc 0
expect_no_grep 'name="GC Thread#0"' "$T/j.txt"
expect_no_grep '^THREAD KINDS BEGIN' "$T/j.txt"
echo "t2116 ok"
