# trace= with 10,000 virtual threads (JDK 25), each calling step() 20 times
# and sleeping or parking between (VThreadCalls): every event a virtual
# thread makes names it, @ the carrier it ran on; each virtual thread's
# entries and exits balance, at the right depths, though it moves between
# carriers; trace=thread gives each one's start and end (vthreads=n leaves
# them out, not the platform threads'); jvmprof trace --thread N selects one
# virtual thread (N as its thread-start line gives it); a plugin sees the
# same (plugin API version 2), and one built for version 1 still loads.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/jdk25.sh"
THREADS=10000 CALLS=20
run_java25 "" VThreadCalls $THREADS $CALLS 1
expect_rc 0
cp "$T/out" "$T/expected"
run_java25 "trace=exec+thread,include=VThreadCalls,tracefile=$T/v.trace" VThreadCalls $THREADS $CALLS 1
expect_rc 0
cmp -s "$T/out" "$T/expected" || fail "program output changed under trace="
"$JVMPROF" trace "$T/v.trace" >"$T/v.txt" 2>"$T/v.err" || { cat "$T/v.err" >&2; fail "jvmprof trace failed"; }

# per virtual thread (the name before @): entries, exits, depth never below 0 nor wrong, starts, ends
awk -v want=$((1 + 2 * CALLS)) -v threads=$THREADS '
    $2 ~ /^vt-[0-9]+@ForkJoinPool/ {
        split($2, w, "@"); v = w[1]
        if ($3 == "enter") { d[v]++; en[v]++; if ($NF != "depth=" d[v]) bad++ }
        else if ($3 == "exit") { if ($NF != "depth=" d[v]) bad++; d[v]--; ex[v]++; if (d[v] < 0) bad++ }
        else if ($3 == "thread-start") st[v]++
        else if ($3 == "thread-end") nd[v]++
    }
    $3 == "enter" && $4 ~ /^VThreadCalls\.(step|burn|lambda)/ && $2 !~ /^vt-/ { stray++ }
    END {
        for (v in en) { n++; if (en[v] != want || ex[v] != want || d[v] != 0 || st[v] != 1 || nd[v] != 1) { off++; if (off <= 3) print "  " v ": " en[v] " entries, " ex[v] " exits, depth " d[v] ", " st[v] " starts, " nd[v] " ends" } }
        printf "threads %d off %d bad %d stray %d\n", n, off, bad, stray
    }' "$T/v.txt" >"$T/sum"
cat "$T/sum" >&2
read -r _ n _ off _ bad _ stray < <(tail -1 "$T/sum")
[ "$n" = $THREADS ] || fail "$n virtual threads named in the trace, expected $THREADS"
[ "$off" = 0 ] || fail "$off virtual threads without $((1 + 2 * CALLS)) balanced entries and exits, one start and one end"
[ "$bad" = 0 ] || fail "$bad entries or exits at a depth their thread's calls do not give"
[ "$stray" = 0 ] || fail "$stray of the virtual threads' entries named a platform thread"

# --thread: one virtual thread, by the number its thread-start line gives
num=$(awk '$3 == "thread-start" && $4 == "vt-4321" { for (i = 5; i <= NF; i++) if ($i ~ /^thread=/) { sub("thread=", "", $i); print $i } }' "$T/v.txt")
[ -n "$num" ] || fail "no thread-start line of vt-4321 with its thread= number"
"$JVMPROF" trace --thread "$num" "$T/v.trace" >"$T/one.txt" || fail "jvmprof trace --thread $num failed"
others=$(awk '$2 !~ /^vt-4321@/' "$T/one.txt" | wc -l)
enters=$(awk '$3 == "enter"' "$T/one.txt" | wc -l)
[ "$others" = 0 ] && [ "$enters" = $((1 + 2 * CALLS)) ] ||
    fail "--thread $num: $enters entries (expected $((1 + 2 * CALLS))), $others lines of other threads"

# a plugin (include/jvmprof/plugin.h, version 2) sees them too: each virtual thread's start, its entries
# with their carrier and balanced depths; one built for version 1 still loads and sees the same calls
cc -shared -fPIC -I"$ROOT/include" -o "$T/libvt.so" "$ROOT/tests/plugins/vthreads.c" -lpthread || fail "cc vthreads.c"
cc -shared -fPIC -DAPI1 -I"$ROOT/include" -o "$T/libvt1.so" "$ROOT/tests/plugins/vthreads.c" -lpthread || fail "cc vthreads.c -DAPI1"
run_java25 "trace=exec+thread,include=VThreadCalls,plugin=$T/libvt.so" VThreadCalls 1000 4 0.2
expect_rc 0
expect_grep "^vthreads: started 1000, balanced 1000, unbalanced 0, carried 9000, uncarried 0, bad depths 0$" "$T/err"
run_java25 "trace=exec,include=VThreadCalls,plugin=$T/libvt1.so" VThreadCalls 1000 4 0.2
expect_rc 0
read -r _ _ en _ ex < <(grep '^vthreads-v1: ' "$T/err")
[ -n "${en:-}" ] && [ "$en" = "$ex" ] && [ "$en" -ge 9000 ] || fail "a version-1 plugin: $(grep vthreads "$T/err")"

# vthreads=n: no virtual thread starts or ends; the platform threads' still there
run_java25 "trace=thread,vthreads=n,tracefile=$T/n.trace" VThreadCalls 200 4 0.2
expect_rc 0
"$JVMPROF" trace "$T/n.trace" >"$T/n.txt" || fail "jvmprof trace failed (vthreads=n)"
expect_no_grep " virtual id=" "$T/n.txt"
expect_no_grep "^ *[0-9.]* vt-" "$T/n.txt"
expect_grep "ForkJoinPool-1-worker-1 thread-start ForkJoinPool-1-worker-1" "$T/n.txt"
exit 0
