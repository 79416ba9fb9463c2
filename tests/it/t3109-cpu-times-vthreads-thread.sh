# cpu=times,thread=y with virtual threads (JDK 25): VThreadCalls' 400
# virtual threads vt-0 .. vt-399, each calling step() (and burn()) 20 times
# and its lambda once, sleeping or parking between (so each unmounts and
# may resume on another carrier). With thread=y the CPU TIME rows are the
# virtual threads': each row's trace names a thread vt-N (group
# VirtualThreads, with carrier= a ForkJoinPool worker, as cpu=samples'
# thread=y does: one such thread for each carrier it ran on), and summed
# over those, each vt-N has exactly 20 calls of step() and of burn() and
# one of its lambda; no carrier has a row of them; each vt-N's step()
# waited (CPU WAIT TIME) under its own name.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/jdk25.sh"
THREADS=400 CALLS=20 CPU=1
run_java25 "cpu=times,thread=y,cutoff=0,file=$T/t.txt" VThreadCalls $THREADS $CALLS $CPU
expect_rc 0
expect_grep "VThreadCalls done: $((THREADS * CALLS)) calls of step" "$T/out"
# per thread name: calls of step, burn, the lambda, and step's waits (ms); the carriers' rows apart
awk -v threads=$THREADS -v calls=$CALLS "$AWK_THREAD_START"'
    /^TRACE [0-9]+: \(thread=/ { t = $2; sub(":", "", t); th = $3; gsub(/[^0-9]/, "", th); owner[t] = th }
    /^CPU TIME \(ms\) BEGIN/ { on = 1; next }
    /^CPU TIME \(ms\) END/ { on = 0 }
    /^CPU WAIT TIME \(ms\) BEGIN/ { w = 1; tot = $0; sub(/.*total = /, "", tot); sub(/[^0-9].*/, "", tot); next }
    /^CPU WAIT TIME \(ms\) END/ { w = 0 }
    (on || w) && $1 ~ /^[0-9]+$/ && $6 ~ /^VThreadCalls\.(step|burn|lambda\$main\$0)$/ {
        th = owner[$5]; nm = name[th]
        if (nm !~ /^vt-[0-9]+$/ || group[th] != "VirtualThreads" || name[carrier[th]] !~ /^ForkJoinPool-[0-9]+-worker-[0-9]+$/) {
            other++; if (!bad) bad = $0 " (thread " th " \"" nm "\", carrier " carrier[th] ")"; next
        }
        if (on) { n[nm, $6] += $4; seen[nm] = 1 }
        else if ($6 == "VThreadCalls.step") { sub("%", "", $2); waited[nm] += $2 * tot / 100 }
    }
    END {
        for (i = 0; i < threads; i++) {
            nm = "vt-" i
            if (!seen[nm]) { missing++; continue }
            if (n[nm, "VThreadCalls.step"] != calls || n[nm, "VThreadCalls.burn"] != calls || n[nm, "VThreadCalls.lambda$main$0"] != 1) {
                wrong++; if (!ex) ex = nm ": step " n[nm, "VThreadCalls.step"] + 0 ", burn " n[nm, "VThreadCalls.burn"] + 0 ", lambda " n[nm, "VThreadCalls.lambda$main$0"] + 0
            }
            if (waited[nm] > 0) nwaited++
        }
        printf "%d|%d|%d|%d|%s|%s\n", missing, wrong, other, nwaited, ex, bad
    }' "$T/t.txt" >"$T/res"
IFS="|" read -r missing wrong other nwaited ex bad <"$T/res"
note "of $THREADS virtual threads: $missing without rows, $wrong with wrong counts, $nwaited with step()'s waits; $other rows not a virtual thread's"
[ "$other" = 0 ] || fail "$other CPU TIME rows of VThreadCalls not named by a vt-N virtual thread with its carrier, e.g. $bad"
[ "$missing" = 0 ] || fail "$missing of the $THREADS virtual threads have no CPU TIME rows"
[ "$wrong" = 0 ] || fail "$wrong virtual threads have wrong call counts, e.g. $ex (expected $CALLS, $CALLS, 1)"
# every step() sleeps 2 ms or parks 0.2 ms in 3 of 4 calls: some of each thread's is in CPU WAIT TIME,
# under its name (the table shows each row's ms rounded: a thread's sum may round to 0 for a few)
[ $((nwaited * 100)) -ge $((THREADS * 90)) ] || fail "only $nwaited of $THREADS virtual threads have step()'s waits in CPU WAIT TIME"
for n in "cpu=times: exits without their entry" "cpu=times: frames closed by a later exit"; do
    v=$(sed -n '/^COUNTS BEGIN/,/^COUNTS END/p' "$T/t.txt" | awk -v n="$n" 'index($0, n " ") == 1 { print substr($0, length(n) + 2) }')
    [ "$v" = 0 ] || fail "COUNTS: '$n' is '$v', expected 0"
done
exit 0
