# Attaching to running JVMs (jvmprof list/start/dump/status/stop/collect/
# heapdump PID): HotLoop started without an agent is profiled with
# cpu=samples (the 75/25 split), then again with other options; cpu=times
# attached late counts exactly the calls made after start, and after stop
# the program runs at its speed from before; collect -d 2 writes a flame
# graph; a JVM in its own PID and mount namespaces (unshare, a tmpfs on its
# /tmp) is listed and profiled; another user's JVM, a pid that does not
# exist, a process that is not a JVM and a JVM with attach disabled are
# refused in one line each.
. "$(dirname "$0")/lib.sh"
JVMPROF="$ROOT/build/jvmprof"

# start_java NAME ARGS...: a JVM without an agent in the background; its pid in JPID
start_java() {
    local name=$1; shift
    "$JAVA" -cp "$CLASSES" "$@" >"$T/$name.out" 2>"$T/$name.err" &
    JPID=$!
    PIDS+=("$JPID")
}
# proc_find REGEX [UID]: a pid whose command line (arguments joined by spaces) matches (no procps needed)
proc_find() {
    local d cmd
    for d in /proc/[0-9]*; do
        [ -n "${2:-}" ] && [ "$(awk '/^Uid:/ {print $3}' "$d/status" 2>/dev/null)" != "$2" ] && continue
        cmd=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null) || continue
        [[ "${cmd% }" =~ $1 ]] && { echo "${d#/proc/}"; return 0; }
    done
}

# cpu=samples started late, a report now, the status, the report at stop
start_java hot HotLoop 14
wait_ready "$JPID"
sleep 1
"$JVMPROF" list >"$T/list.txt" || fail "jvmprof list failed"
grep -Eq "^$JPID +no +HotLoop$" "$T/list.txt" || fail "list: $(cat "$T/list.txt")"
"$JVMPROF" start "$JPID" "cpu=samples,interval=10,file=$T/a.txt" >"$T/o" 2>"$T/e" || fail "start: $(cat "$T/e")"
grep -q "^started: cpu=samples,interval=10,file=$T/a.txt$" "$T/o" || fail "start said: $(cat "$T/o")"
wait_cpu "$JPID" 3
"$JVMPROF" status "$JPID" >"$T/o" 2>"$T/e" || fail "status: $(cat "$T/e")"
grep -q "a session runs since [0-9.]* s: cpu=samples,interval=10,file=$T/a.txt" "$T/o" || fail "status: $(cat "$T/o")"
grep -q "^cpu sampler: [1-9][0-9]* signals" "$T/o" || fail "status has no sample count: $(cat "$T/o")"
"$JVMPROF" list >"$T/list.txt"
grep -Eq "^$JPID +profiling +HotLoop$" "$T/list.txt" || fail "list while profiling: $(cat "$T/list.txt")"
"$JVMPROF" dump "$JPID" >"$T/o" 2>"$T/e" || fail "dump: $(cat "$T/e")"
grep -q "^written: $T/a.txt$" "$T/o" || fail "dump said: $(cat "$T/o")"
expect_grep "CPU SAMPLES END" "$T/a.txt"
total() { grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$1" | grep -o '[0-9]*$'; }
t1=$(total "$T/a.txt")
[ "$t1" -ge 150 ] || fail "only $t1 samples in 3 s of CPU at interval=10"
# reset: the next report holds only what came after it
"$JVMPROF" reset "$JPID" >"$T/o" 2>"$T/e" || fail "reset: $(cat "$T/e")"
"$JVMPROF" dump "$JPID" >/dev/null 2>"$T/e" || fail "dump after reset: $(cat "$T/e")"
t2=$(total "$T/a.txt")
[ "${t2:-0}" -lt 50 ] || fail "after reset the report still holds $t2 samples (before: $t1)"
note "reset: $t1 samples before, $t2 just after"
wait_cpu "$JPID" 2
"$JVMPROF" stop "$JPID" >"$T/o" 2>"$T/e" || fail "stop: $(cat "$T/e")"
grep -q "^written: $T/a.txt$" "$T/o" || fail "stop said: $(cat "$T/o")"
read -r _ s1 _ _ _ m1 <<<"$(cpu_rows "$T/a.txt" | sed -n 1p)"
read -r _ s2 _ _ _ m2 <<<"$(cpu_rows "$T/a.txt" | sed -n 2p)"
[ "$m1" = HotLoop.heavy ] && [ "$m2" = HotLoop.light ] || fail "top entries $m1 $m2: $(cpu_rows "$T/a.txt" | head -3)"
awk -v a="${s1%\%}" 'BEGIN { exit !(a >= 60 && a <= 90) }' || fail "heavy has $s1, not about 75%"
note "attached cpu=samples: heavy $s1, light $s2"
"$JVMPROF" stop "$JPID" 2>"$T/e" && fail "a second stop succeeded"
grep -q "no profiling session is running" "$T/e" || fail "second stop: $(cat "$T/e")"
# again, with other options: wall-clock samples
"$JVMPROF" start "$JPID" "wall=10,file=$T/b.txt" >/dev/null 2>"$T/e" || fail "second start: $(cat "$T/e")"
"$JVMPROF" start "$JPID" "cpu=samples" 2>"$T/e" && fail "a start while a session runs succeeded"
grep -q "a profiling session is running" "$T/e" || fail "start while running: $(cat "$T/e")"
sleep 1
"$JVMPROF" heapdump "$JPID" "$T/h.hprof" >/dev/null 2>"$T/e" || fail "heapdump: $(cat "$T/e")"
head -c 18 "$T/h.hprof" | grep -q "JAVA PROFILE 1.0.2" || fail "heapdump: not an HPROF file"
"$JVMPROF" stop "$JPID" >/dev/null 2>"$T/e" || fail "second stop: $(cat "$T/e")"
grep -q "HotLoop.heavy" "$T/b.txt" || fail "the second session's report has no HotLoop.heavy"
wait "$JPID" || fail "HotLoop ended with $?"
[ "$(cat "$T/hot.out")" = done ] || fail "HotLoop's output changed: $(cat "$T/hot.out")"

# cpu=times attached late: exact counts of the calls after start; after stop, full speed
mkdir -p "$T/sync"
start_java calls AttachTarget calls "$T/sync"
wait_line "$T/calls.out" '^ready$'
"$JVMPROF" start "$JPID" "cpu=times,include=AttachTarget,file=$T/t.txt" >/dev/null 2>"$T/e" || fail "start cpu=times: $(cat "$T/e")"
touch "$T/sync/go"
wait_line "$T/calls.out" '^called$'
"$JVMPROF" stop "$JPID" >/dev/null 2>"$T/e" || fail "stop cpu=times: $(cat "$T/e")"
touch "$T/sync/end"
wait "$JPID" || fail "AttachTarget ended with $?"
sed -n '/^CALLS COUNTED BEGIN/,/^CALLS COUNTED END/p' "$T/t.txt" | grep -Eq "^ +[0-9]+ +[0-9.]+% +[0-9.]+% +100000 AttachTarget.counted\(I\)V$" ||
    fail "AttachTarget.counted is not counted 100000 times: $(grep -i counted "$T/t.txt")"
read -r before after < <(sed -n 's/^rate before \([0-9.]*\) after \([0-9.]*\) ns$/\1 \2/p' "$T/calls.out")
awk -v b="$before" -v a="$after" 'BEGIN { exit !(a <= 1.5 * b) }' ||
    fail "after stop the loop runs at $after ns a round, before attach $before"
note "cpu=times attached late: 100000 calls counted; loop $before ns before, $after ns after stop"

# trace= and heap=sites attached late: the same calls traced, the Blobs at their site
for mode in trace sites; do
    rm -f "$T/sync/go" "$T/sync/end"
    start_java "$mode" AttachTarget calls "$T/sync"
    wait_line "$T/$mode.out" '^ready$'
    opts="trace=exec,include=AttachTarget,tracefile=$T/l.trace"
    [ "$mode" = sites ] && opts="heap=sites,alloc_interval=512,file=$T/s.txt"
    "$JVMPROF" start "$JPID" "$opts" >/dev/null 2>"$T/e" || fail "start $opts: $(cat "$T/e")"
    touch "$T/sync/go"
    wait_line "$T/$mode.out" '^called$'
    "$JVMPROF" stop "$JPID" >"$T/o" 2>"$T/e" || fail "stop $mode: $(cat "$T/e")"
    touch "$T/sync/end"
    wait "$JPID" || fail "AttachTarget ($mode) ended with $?"
done
n=$("$JVMPROF" trace "$T/l.trace" --method AttachTarget.counted --type enter | wc -l)
[ "$n" = 100000 ] || fail "trace=exec attached late: $n entries of AttachTarget.counted, not 100000"
live=$(sed -n '/^SITES BEGIN/,/^SITES END/p' "$T/s.txt" | awk '$NF == "AttachTarget$Blob" {s += $7} END {print s + 0}')
awk -v n="$live" 'BEGIN { exit !(n >= 90000 && n <= 110000) }' ||
    fail "heap=sites attached late: $live Blobs allocated, not about 100000: $(grep -i blob "$T/s.txt" | head -3)"
note "attached late: trace=exec saw 100000 calls; heap=sites estimates $live Blobs of 100000"

# collect -d 2: a flame graph
start_java hot2 HotLoop 8
wait_ready "$JPID"
(cd "$T" && "$JVMPROF" collect "$JPID" -d 2 "cpu=samples,interval=5,file=c.txt,flame=c.html") >"$T/o" 2>"$T/e" ||
    fail "collect: $(cat "$T/e")"
grep -q "collected from process $JPID for 2 s" "$T/e" || fail "collect said: $(cat "$T/e")"
grep -q "HotLoop.heavy" "$T/c.html" || fail "collect: no flame graph with HotLoop.heavy"
grep -q "^written: $T/c.txt$" "$T/o" && grep -q "^written: $T/c.html$" "$T/o" || fail "collect: $(cat "$T/o")"
kill "$JPID"

# a JVM in its own PID and mount namespaces, with its own /tmp
# (the classes bound where the new /tmp does not hide them: this checkout may well be under /tmp)
NSCLS=$(mktemp -d /var/tmp/jvmprof-t7001.XXXXXX)
trap 'exec 2>/dev/null; for p in "${PIDS[@]}"; do kill -9 "$p"; done; rmdir "$NSCLS"; rm -rf "$T"' EXIT
unshare --pid --mount --fork --mount-proc sh -c \
    "mount --bind '$CLASSES' '$NSCLS' && mount -t tmpfs none /tmp && exec '$JAVA' -cp '$NSCLS' HotLoop 10" \
    >"$T/ns.out" 2>"$T/ns.err" &
PIDS+=($!)
for _ in $(seq 100); do
    JPID=$(proc_find "^$JAVA -cp $NSCLS HotLoop 10$")
    [ -n "$JPID" ] && grep -q '^NSpid:.*[[:space:]]1$' "/proc/$JPID/status" 2>/dev/null && break
    sleep 0.1
done
[ -n "$JPID" ] || fail "the namespaced JVM did not start: $(cat "$T/ns.err")"
PIDS+=("$JPID")
wait_ready "$JPID"
"$JVMPROF" list | grep -Eq "^$JPID +no +HotLoop$" || fail "the namespaced JVM is not listed"
"$JVMPROF" start "$JPID" "cpu=samples,file=/tmp/ns.txt" >/dev/null 2>"$T/e" || fail "start in a namespace: $(cat "$T/e")"
wait_cpu "$JPID" 1
"$JVMPROF" stop "$JPID" >/dev/null 2>"$T/e" || fail "stop in a namespace: $(cat "$T/e")"
grep -q "HotLoop.heavy" "/proc/$JPID/root/tmp/ns.txt" || fail "no report in the namespaced JVM's /tmp"
[ ! -e /tmp/ns.txt ] || fail "the report went to our /tmp"
note "namespaced JVM: pid $JPID here, $(awk '/^NSpid:/ {print $NF}' /proc/$JPID/status) in its namespace"
kill "$JPID"

# a JVM started with the agent: the same commands, through the copy it loaded
RC=0
"$JAVA" "-agentpath:$AGENT=cpu=samples,interval=10,file=$T/g.txt" -cp "$CLASSES" HotLoop 6 >"$T/g.out" 2>"$T/g.err" &
JPID=$!
PIDS+=("$JPID")
wait_ready "$JPID"
sleep 1
"$JVMPROF" list | grep -Eq "^$JPID +profiling +HotLoop$" || fail "the -agentpath JVM is not listed as profiling"
"$JVMPROF" status "$JPID" >"$T/o" 2>"$T/e" || fail "status (-agentpath): $(cat "$T/e")"
grep -q "a session runs since [0-9.]* s: cpu=samples,interval=10,file=$T/g.txt$" "$T/o" || fail "status: $(cat "$T/o")"
"$JVMPROF" dump "$JPID" "$T/g-now.txt" >"$T/o" 2>"$T/e" || fail "dump FILE: $(cat "$T/e")"
grep -q "^written: $T/g-now.txt$" "$T/o" || fail "dump FILE said: $(cat "$T/o")"
grep -q "HotLoop.heavy" "$T/g-now.txt" || fail "dump FILE: no HotLoop.heavy in it"
[ ! -e "$T/g.txt" ] || fail "dump FILE also wrote file="
"$JVMPROF" stop "$JPID" >/dev/null 2>"$T/e" || fail "stop (-agentpath): $(cat "$T/e")"
grep -q "HotLoop.heavy" "$T/g.txt" || fail "stop (-agentpath): no report"
"$JVMPROF" start "$JPID" "monitor=y,file=$T/g2.txt" >/dev/null 2>"$T/e" || fail "start (-agentpath): $(cat "$T/e")"
"$JVMPROF" stop "$JPID" >/dev/null 2>"$T/e" || fail "stop 2 (-agentpath): $(cat "$T/e")"
grep -q "MONITOR TIME BEGIN" "$T/g2.txt" || fail "the monitor session wrote no MONITOR TIME"
[ "$(grep -c '/libjvmprof.so' "/proc/$JPID/maps" | sort -u)" -ge 1 ] && [ "$(awk '/libjvmprof.so/ {print $NF}' "/proc/$JPID/maps" | sort -u | wc -l)" = 1 ] ||
    fail "a second copy of the library was loaded"
wait "$JPID" || fail "the -agentpath JVM ended with $?"

# refusals, one line each
"$JVMPROF" start 999999999 cpu=samples 2>"$T/e" && fail "a missing pid was accepted"
[ "$(cat "$T/e")" = "jvmprof: no process 999999999" ] || fail "missing pid: $(cat "$T/e")"
sleep 30 &
PIDS+=($!)
"$JVMPROF" status $! 2>"$T/e" && fail "a process that is not a JVM was accepted"
[ "$(cat "$T/e")" = "jvmprof: process $! is not a Java VM (no libjvm.so in it)" ] || fail "not a JVM: $(cat "$T/e")"
"$JAVA" -XX:+DisableAttachMechanism -cp "$CLASSES" HotLoop 10 >/dev/null 2>&1 &
PIDS+=($!)
wait_ready $!
"$JVMPROF" start $! cpu=samples 2>"$T/e" && fail "a JVM with attach disabled was accepted"
grep -q "^jvmprof: the JVM of process $! was started with -XX:+DisableAttachMechanism: it accepts no attach request" "$T/e" ||
    fail "attach disabled: $(cat "$T/e")"
[ "$(wc -l <"$T/e")" = 1 ] || fail "more than one line: $(cat "$T/e")"
if [ "$(id -u)" -eq 0 ]; then
    runuser -u nobody -- "$JAVA" -XX:-UsePerfData -cp "$CLASSES" HotLoop 10 >/dev/null 2>&1 &
    PIDS+=($!)
    for _ in $(seq 100); do
        NPID=$(proc_find "^$JAVA -XX:-UsePerfData -cp $CLASSES HotLoop 10$" "$(id -u nobody)")
        [ -n "$NPID" ] && break
        sleep 0.1
    done
    PIDS+=("$NPID")
    wait_ready "$NPID"
    "$JVMPROF" start "$NPID" cpu=samples 2>"$T/e" && fail "another user's JVM was accepted"
    grep -q "^jvmprof: the JVM of process $NPID runs as user 65534, not as you (0): a JVM accepts attach requests only from its own user" "$T/e" ||
        fail "another user: $(cat "$T/e")"
fi
"$JVMPROF" start 2>"$T/e"; [ $? = 2 ] || fail "start without a pid: not a usage error"
if "$JVMPROF" start abc cpu=samples 2>"$T/e"; then fail "a pid 'abc' was accepted"; fi
[ "$(cat "$T/e")" = "jvmprof: start: 'abc' is not a process id" ] || fail "pid abc: $(cat "$T/e")"
