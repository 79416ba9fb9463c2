# record=y at its defaults (maxage=10m, maxsize=32m) left on for 10.5
# minutes: SpikeIdle (a thread working 2 ms in every 20) under
# cpu=samples,record=y, a dump of the whole recording (--from 0) every two
# minutes and at the end. Each dump's ring holds at most maxsize= bytes and
# reaches back at most maxage= (plus a second); the last, 630 s in, reaches
# back close to maxage= (595 s or more) and no further: the samples of the
# first half minute have gone. The JVM's resident memory grows by less than
# maxsize= from the first dump to the last. tests/run.sh runs this test in the
# background beside the others (LONG_TESTS), so that it adds no time to the
# suite; bench/record_bounds.sh runs the same for 12 minutes and records it.
. "$(dirname "$0")/lib.sh"
MAXSIZE=33554432
count() { sed -n "s/^$2 //p" "$1"; }
back_s() { sed -n 's/.*the recording reaches back to .*(\([0-9.]*\) s before the window.s end).*/\1/p' "$1"; }
rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

"$JAVA" "-agentpath:$AGENT=cpu=samples,record=y,file=$T/final.txt" -cp "$CLASSES" \
    SpikeIdle 1000 2000 660000 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^idle begins"
start=$SECONDS
rss_first=
for at in 120 240 360 480 600 630; do
    while ((SECONDS - start < at)); do sleep 1; done
    kill -0 "$JPID" 2>/dev/null || fail "the JVM ended before ${at} s: $(tail -5 "$T/err")"
    "$JVMPROF" dump "$JPID" --from 0 "$T/d$at.txt" >/dev/null 2>"$T/e" || fail "dump at $at s: $(cat "$T/e")"
    bytes=$(count "$T/d$at.txt" "recording bytes held")
    back=$(back_s "$T/d$at.txt")
    rss=$(rss_kib "$JPID")
    [ -n "$rss_first" ] || rss_first=$rss
    note "at $at s: the ring holds ${bytes:-?} bytes, reaching back ${back:-?} s; JVM RSS $rss KiB"
    [ -n "$bytes" ] && [ "$bytes" -gt 0 ] && [ "$bytes" -le "$MAXSIZE" ] ||
        fail "at $at s: the ring holds ${bytes:-?} bytes (maxsize= $MAXSIZE)"
    awk -v b="$back" 'BEGIN { exit !(b > 0 && b <= 601) }' || fail "at $at s: reaches back ${back:-?} s, past maxage=600s"
done
awk -v b="$back" 'BEGIN { exit !(b >= 595) }' || fail "at 630 s the recording reaches back only $back s, not about maxage=600s"
grows=$((rss - rss_first))
[ "$grows" -lt $((MAXSIZE / 1024)) ] || fail "the JVM's RSS grew by $grows KiB from 120 s to 630 s, more than maxsize="
# the last dump holds the samples of the last 600 s, not those of the first 30 s: the spike (2 s at 1 s) is gone
expect_no_grep "SpikeIdle.spike" "$T/d630.txt"
expect_grep "SpikeIdle.spike" "$T/d120.txt"
kill "$JPID"
