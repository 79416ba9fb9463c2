# wall=: a sample whose stack cannot be walked still counts, in its thread and
# state, under <unknown frame>, so that each thread's share stays right.
# Every thread is signalled equally often, so with thread=y each thread that
# lived through the run holds about 1/N of the samples (N such threads):
# IdleThreads' computing main thread, its 3 sleeping threads, and the JDK's
# Notification Thread, whose every stack is one AsyncGetCallTrace cannot walk
# (it runs in the JVM's own code). Before, its samples were dropped and the
# other threads' shares were inflated to fill the hole. The collapsed stacks
# hold every sample as well, and COUNTS gives the unknown ones by cause.
. "$(dirname "$0")/lib.sh"
run_java "wall=5,thread=y,cutoff=0,file=$T/w.txt,collapsed=$T/w.col" IdleThreads 3 2
expect_rc 0
expect_grep "^ *[0-9].*<unknown frame>\." "$T/w.txt"
u=$(sed -n 's/^samples not walkable (counted under <unknown frame>) \([0-9]*\)$/\1/p' "$T/w.txt")
[ -n "$u" ] && [ "$u" -gt 0 ] || fail "no samples counted under <unknown frame> (COUNTS: $u)"
awk '
    /^THREAD START/ { id = $0; sub(/.*id = /, "", id); sub(/,.*/, "", id); n = $0; sub(/.*name="/, "", n); sub(/".*/, "", n); name[id] = n }
    /^TRACE [0-9]+: \(thread=/ { t = $2; sub(":", "", t); th = $3; gsub(/[^0-9]/, "", th); owner[t] = th }
    /^WALL SAMPLES BEGIN/ { on = 1; next }
    /^WALL SAMPLES END/ { on = 0 }
    on && $1 ~ /^[0-9]+$/ { s[owner[$5]] += $4; total += $4 }
    END { for (k in s) printf "%s\t%.2f\n", name[k], 100 * s[k] / total }' "$T/w.txt" | sort >"$T/shares"
cat "$T/shares" >&2
n=$(grep -vc '^DestroyJavaVM' "$T/shares")
grep -q '^Notification Thread' "$T/shares" || fail "the Notification Thread (never walkable) has no share"
grep -q '^main' "$T/shares" || fail "main has no share"
awk -F'\t' -v n="$n" '$1 != "DestroyJavaVM" { d = $2 - 100 / n; if (d * d > 100) { print "share of " $1 ": " $2 "%, expected " 100 / n "%"; bad = 1 } }
    END { exit bad }' "$T/shares" >&2 || fail "a thread's share is more than 10 points from 1/$n"
note "$n threads, each about $((100 / n))%; $u samples under <unknown frame>"
# every sample is in the collapsed stacks too, the unknown ones as frames, and
# COUNTS breaks the unknown ones down by cause
total=$(grep -o '^WALL SAMPLES BEGIN (total = [0-9]*' "$T/w.txt" | grep -o '[0-9]*$')
col=$(awk '{s += $NF} END {print s + 0}' "$T/w.col")
[ "$col" = "$total" ] || fail "the collapsed stacks hold $col samples, the report $total"
colu=$(grep '<unknown frame>\.' "$T/w.col" | awk '{s += $NF} END {print s + 0}')
[ "$colu" = "$u" ] || fail "the collapsed stacks hold $colu samples under <unknown frame>, COUNTS $u"
byc=$(sed -n 's/^  of which <unknown frame>\.[A-Za-z_]* \([0-9]*\)$/\1/p' "$T/w.txt" | awk '{s += $1} END {print s + 0}')
[ "$byc" = "$u" ] || fail "COUNTS by cause add up to $byc, not $u"
note "collapsed: $col samples = the report's; $colu under <unknown frame>"
echo "t2104 ok"
