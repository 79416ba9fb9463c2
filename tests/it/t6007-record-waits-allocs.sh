# record=y with monitor=y and heap=sites: lock waits and sampled allocations
# are in the recording too. Contended's two threads block on one lock all
# along: a window of the last 2 s has MONITOR TIME rows of its lock, with
# fewer waits than the whole session's report at the end. GcChurn allocates
# all along: a window of the last 2 s has SITES rows (GcChurn$Node among
# them) with less allocated than the session's report at the end, and its
# flame graph of allocated bytes is written; its GC line counts the
# collections of those 2 s, fewer than the session's.
. "$(dirname "$0")/lib.sh"
count() { sed -n "s/^$2 //p" "$1"; }
mon_waits() { sed -n '/^MONITOR TIME BEGIN/,/^MONITOR TIME END/p' "$1" | awk '$6 ~ /SharedLock/ {n += $4} END {print n + 0}'; }

"$JAVA" "-agentpath:$AGENT=cpu=samples,monitor=y,record=y,file=$T/m.txt" -cp "$CLASSES" Contended 6 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_ready "$JPID"
wait_cpu "$JPID" 2
"$JVMPROF" dump "$JPID" --last 2s "$T/mw.txt" >/dev/null 2>"$T/e" || fail "dump --last 2s: $(cat "$T/e")"
w=$(mon_waits "$T/mw.txt")
[ "$w" -gt 0 ] || fail "the window has no wait on Contended\$SharedLock: $(sed -n '/^MONITOR TIME BEGIN/,/END/p' "$T/mw.txt" | head -5)"
wait "$JPID" || true
s=$(mon_waits "$T/m.txt")
[ "$s" -gt "$w" ] || fail "the session's report has $s waits, the 2 s window $w"
note "monitor=y: $w waits in the last 2 s, $s in the session"

"$JAVA" -Xmx256m "-agentpath:$AGENT=heap=sites,alloc_interval=64k,record=y,file=$T/a.txt,flame=$T/a.html" -cp "$CLASSES" \
    GcChurn 6 20 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_ready "$JPID"
wait_cpu "$JPID" 2
"$JVMPROF" dump "$JPID" --last 2s >/dev/null 2>"$T/e" || fail "dump --last 2s: $(cat "$T/e")"
cp "$T/a.txt" "$T/aw.txt"
expect_grep "^RECORDING WINDOW: " "$T/aw.txt"
expect_grep 'GcChurn$Node' "$T/aw.txt"
expect_grep "bytes allocated" "$T/a.html"
[ "$(count "$T/aw.txt" "recording events in the window")" -gt 0 ] || fail "no allocation in the window"
alloc() { sed -n '/^SITES BEGIN/,/^SITES END/p' "$1" | awk '$1 ~ /^[0-9]+$/ {b += $6} END {printf "%.0f\n", b}'; }
wait "$JPID" || true
wa=$(alloc "$T/aw.txt") sa=$(alloc "$T/a.txt")
gcs() { sed -n 's/^GC (total = \([0-9]*\) collections.*/\1/p' "$1"; }
wg=$(gcs "$T/aw.txt") sg=$(gcs "$T/a.txt")
[ "${wg:-0}" -gt 0 ] && [ "$sg" -gt "$wg" ] || fail "collections: the window ${wg:-none}, the session ${sg:-none}"
note "collections: $wg in the last 2 s, $sg in the session"
awk -v w="$wa" -v s="$sa" 'BEGIN { exit !(w > 0 && s > w) }' || fail "allocated: the window $wa bytes, the session $sa"
note "heap=sites: $wa bytes allocated in the last 2 s, $sa in the session"
exit 0
