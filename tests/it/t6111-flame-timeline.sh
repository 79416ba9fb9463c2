# The flame graph's timeline (record=y), in headless Chromium. SpikeIdle idles
# 3 s (a worker does 2 ms of work in idle() every 20 ms), burns the CPU in
# spike() for 2 s, then idles 3 s. The test notes when the program printed
# "spike begins" and "spike ends" (polled every 20 ms) and turns them into
# seconds after the session's start (the page's t0). The agent's flame= page
# has a timeline: a heat map of as many samples as the flame graph has (no
# reset=y: the recording holds them all); the page's test hook #range=A-B
# drags across it (the real mouse handlers): the range inside the spike
# redraws the flame graph with spike() wider than in the whole profile (most
# of the samples); a range in the idle time before or after it has no spike()
# at all, and idle() is there; #whole=1 gives the whole profile back. A
# window of the recording dumped during the run (jvmprof dump --last 3s, to
# the session's flame=) has a timeline too, of at most 3 s. A profile without
# record=y has no timeline.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" chromium >&2 && command -v chromium >/dev/null 2>&1 ||
    fail "this test needs Chromium (Debian package chromium) and could not install it: run tools/deps.sh chromium as root"
ART="$ROOT/build/test-artefacts"
mkdir -p "$ART" || fail "cannot create $ART"

chrome() {
    timeout -k 10 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome-profile" \
        --virtual-time-budget=5000 "$@" 2>>"$T/chromium.err"
}
# frames FILE: the drawn frames of a dumped DOM as "classes|x|w|name", one a line
frames() {
    grep -o '<div class="frame[^"]*" data-i="[0-9]*" data-x="[^"]*" data-w="[^"]*"[^>]*>[^<]*</div>' "$1" |
        sed -E 's/^<div class="([^"]*)" data-i="[0-9]*" data-x="([^"]*)" data-w="([^"]*)"[^>]*>([^<]*)<\/div>$/\1|\2|\3|\4/'
}
# width FILE NAME: the width (percent) of the widest drawn frame named NAME, empty if none
width() { frames "$1" | awk -F'|' -v n="$2" '$4 == n && $3 > w { w = $3 } END { if (w != "") print w }'; }
# wait_at FILE PATTERN: waits for the line, then prints the time (ns since the epoch) it was seen
wait_at() {
    for _ in $(seq 3000); do
        grep -q -- "$2" "$1" 2>/dev/null && { date +%s%N; return 0; }
        sleep 0.02
    done
    fail "no line '$2' in $1"
}
# dom NAME HASH: the page's DOM after the test hooks of HASH, in $T/NAME.dom (wide: 2 pixels a slice)
dom() { chrome --window-size=1700,900 --dump-dom "file://$T/f.html#$2" >"$T/$1.dom" || { tail -5 "$T/chromium.err" >&2; fail "chromium --dump-dom ($2) failed"; }; }
info() { sed -n 's/.*<span id="tl-info"\([^>]*\)>\([^<]*\)<.*/\1 \2/p' "$1"; }

OPTS="cpu=samples,interval=5,cstack=java,record=y,flame=$T/f.html,file=$T/j.txt"
"$JAVA" "-agentpath:$AGENT=$OPTS" -cp "$CLASSES" SpikeIdle 3000 2000 3000 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
begin=$(wait_at "$T/out" "^spike begins")
end=$(wait_at "$T/out" "^spike ends")
# a window of the recording to the session's outputs: the last 3 s, the spike's end in it
"$JVMPROF" dump "$JPID" --last 3s >"$T/o" 2>"$T/e" || fail "dump --last 3s: $(cat "$T/e")"
cp "$T/f.html" "$T/window.html"
wait "$JPID" || fail "SpikeIdle failed: $(tail -5 "$T/err")"
grep -q "^done" "$T/out" || fail "SpikeIdle did not finish: $(cat "$T/out")"
cp "$T/f.html" "$ART/timeline.html"

t0=$(grep -o '"timeline": {"t0": [0-9]*' "$T/f.html" | grep -o '[0-9]*$')
[ -n "$t0" ] || fail "the flame= page of a record=y session has no timeline"
# the spike, in seconds after the session's start: its inside (0.4 s in from each end), and the idle times
read -r sb se <<<"$(awk -v b="$begin" -v e="$end" -v t="$t0" 'BEGIN { printf "%.3f %.3f", (b / 1e6 - t) / 1000, (e / 1e6 - t) / 1000 }')"
note "spike seen from $sb s to $se s after the session's start"
awk -v b="$sb" -v e="$se" 'BEGIN { exit !(b > 2 && b < 8 && e - b > 1.8 && e - b < 2.6) }' || fail "the spike seen at $sb..$se s is not 2 s after about 3 s"
spike_range=$(awk -v b="$sb" -v e="$se" 'BEGIN { printf "%.2f-%.2f", b + 0.4, e - 0.4 }')
before_range=$(awk -v b="$sb" 'BEGIN { printf "%.2f-%.2f", 0.8, b - 0.4 }')
after_range=$(awk -v e="$se" 'BEGIN { printf "%.2f-%.2f", e + 0.6, e + 2.4 }')

# 1. the whole profile: the timeline holds as many samples as the flame graph
dom whole ""
all=$(sed -n 's/.*<div id="sub">\([0-9]*\) CPU samples.*/\1/p' "$T/whole.dom")
grep -q '<canvas id="tl-heat" data-slices="[0-9]*" data-peak="[1-9][0-9]*"' "$T/whole.dom" || fail "no heat map drawn"
slices=$(sed -n 's/.*<canvas id="tl-heat" data-slices="\([0-9]*\)".*/\1/p' "$T/whole.dom")
info "$T/whole.dom" | grep -q "Timeline: $all samples with their times" || fail "the timeline does not hold the flame graph's $all samples: $(info "$T/whole.dom")"
awk -v n="$slices" 'BEGIN { exit !(n >= 700 && n <= 1000) }' || fail "$slices slices for 8 s, expected 10 ms ones (700..1000)"
w0=$(width "$T/whole.dom" SpikeIdle.spike)
[ -n "$w0" ] || { frames "$T/whole.dom" >&2; fail "the whole profile has no spike()"; }
note "whole: $all samples, $slices slices; spike() $w0%"

# 2. the spike's inside: spike() wider, most of the samples
dom spike "range=$spike_range"
i=$(info "$T/spike.dom")
echo "$i" | grep -q 'data-from=.*data-samples="[1-9][0-9]*".*Showing' || fail "range $spike_range: no range shown: $i"
from=$(echo "$i" | sed -n 's/.*data-from="\([0-9.]*\)".*/\1/p'); to=$(echo "$i" | sed -n 's/.*data-to="\([0-9.]*\)".*/\1/p')
awk -v f="$from" -v t="$to" -v r="$spike_range" 'BEGIN { split(r, a, "-"); exit !(f >= a[1] - 0.011 && f <= a[1] && t >= a[2] && t <= a[2] + 0.011) }' ||
    fail "dragged $spike_range, the page shows $from..$to"
w1=$(width "$T/spike.dom" SpikeIdle.spike)
[ -n "$w1" ] || { frames "$T/spike.dom" >&2; fail "the spike's range has no spike()"; }
awk -v a="$w1" -v b="$w0" 'BEGIN { exit !(a > b && a >= 70) }' || fail "spike() is $w1% of the spike's range, $w0% of the whole: expected wider and >= 70%"
n1=$(echo "$i" | sed -n 's/.*data-samples="\([0-9]*\)".*/\1/p')
note "spike's range $spike_range s: $n1 samples, spike() $w1%"
frames "$T/spike.dom" | grep -q '^frame zoomed|0.000|100.000|all$' || fail "the range's flame graph has no whole 'all' frame"

# 3. idle times, before and after the spike: no spike(), idle() there
for r in "$before_range" "$after_range"; do
    dom idle "range=$r"
    i=$(info "$T/idle.dom")
    echo "$i" | grep -q 'Showing' || fail "range $r: no range shown: $i"
    [ -z "$(width "$T/idle.dom" SpikeIdle.spike)" ] || { frames "$T/idle.dom" >&2; fail "the idle range $r shows spike()"; }
    [ -n "$(width "$T/idle.dom" SpikeIdle.idle)" ] || { frames "$T/idle.dom" >&2; fail "the idle range $r has no idle()"; }
    note "idle range $r s: $(echo "$i" | sed -n 's/.*data-samples="\([0-9]*\)".*/\1/p') samples, idle() $(width "$T/idle.dom" SpikeIdle.idle)%"
done

# 4. back to the whole profile after a range
dom back "range=$spike_range&whole=1"
[ "$(width "$T/back.dom" SpikeIdle.spike)" = "$w0" ] || fail "after #whole=1 spike() is $(width "$T/back.dom" SpikeIdle.spike)%, the whole profile's is $w0%"
info "$T/back.dom" | grep -q "Timeline: $all samples" || fail "after #whole=1: $(info "$T/back.dom")"
chrome --window-size=1200,500 --screenshot="$ART/timeline.png" "file://$T/f.html#range=$spike_range" >/dev/null &&
    [ -s "$ART/timeline.png" ] || fail "no screenshot of the timeline"

# 5. the window dumped during the run: its own timeline, 3 s at most
grep -q '"timeline": {' "$T/window.html" || fail "the window's page has no timeline"
wslices=$(grep -o '"timeline": {[^}]*"n": [0-9]*' "$T/window.html" | grep -o '[0-9]*$')
awk -v n="$wslices" 'BEGIN { exit !(n >= 100 && n <= 301) }' || fail "the 3 s window has $wslices slices of 10 ms"
grep -q 'SpikeIdle.spike' "$T/window.html" || fail "the window's page (the last 3 s after the spike) has no spike()"

# 6. without record=y: no timeline
run_java "cpu=samples,interval=5,flame=$T/plain.html" SpikeIdle 200 300 200
expect_rc 0
expect_no_grep '"timeline": {' "$T/plain.html"
chrome --dump-dom "file://$T/plain.html#range=0.1-0.3" >"$T/plain.dom" || fail "chromium --dump-dom (plain) failed"
grep -q '<div id="timeline"></div>' "$T/plain.dom" || fail "a page without times draws a timeline"
[ -n "$(width "$T/plain.dom" SpikeIdle.spike)" ] || fail "the page without times lost its flame graph"
exit 0
