# jvmprof flame/collapse FILE --from T --to T: the samples of a window, from
# the SAMPLE TIMES a format=b file of record=y carries. SpikeIdle idles 3 s,
# burns the CPU in spike() for 2 s, idles 3 s; the test notes when it printed
# "spike begins" and "spike ends" and turns them into seconds after the
# session's start (the file's header). The window inside the spike holds
# spike() as its heaviest stack, with about as many samples as 5 ms samples
# of one busy thread in it; the idle windows before and after hold no spike();
# --from 0 alone holds every sample; the flame page of a window has spike()
# and a timeline of that window only. A window of the recording dumped during
# the run (jvmprof dump --last 3s FILE, format=b) carries its own times. A file
# without sample times (no record=y; collapsed stacks) and bad times are
# refused in one line each.
. "$(dirname "$0")/lib.sh"
# wait_at FILE PATTERN: waits for the line, then prints the time (ns since the epoch) it was seen
wait_at() {
    for _ in $(seq 3000); do
        grep -q -- "$2" "$1" 2>/dev/null && { date +%s%N; return 0; }
        sleep 0.02
    done
    fail "no line '$2' in $1"
}
# sum FILE [PATTERN]: the samples of the collapsed stacks (those matching PATTERN)
sum() { awk -v p="${2:-}" 'p == "" || index($0, p) { s += $NF } END { print s + 0 }' "$1"; }
# one_line_error RC ARGS...: jvmprof ARGS fails with exit code RC and one line on stderr
one_line_error() {
    local want=$1 rc=0
    shift
    "$JVMPROF" "$@" >"$T/o" 2>"$T/e" || rc=$?
    [ "$rc" = "$want" ] || fail "jvmprof $*: exit $rc, expected $want: $(cat "$T/e")"
    [ "$(wc -l <"$T/e")" = 1 ] || fail "jvmprof $*: not one line: $(cat "$T/e")"
}

"$JAVA" "-agentpath:$AGENT=cpu=samples,interval=5,cstack=java,record=y,file=$T/j.hprof,format=b" -cp "$CLASSES" \
    SpikeIdle 3000 2000 3000 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
begin=$(wait_at "$T/out" "^spike begins")
end=$(wait_at "$T/out" "^spike ends")
"$JVMPROF" dump "$JPID" --last 3s "$T/w.hprof" >"$T/o" 2>"$T/e" || fail "dump --last 3s: $(cat "$T/e")"
wait "$JPID" || fail "SpikeIdle failed: $(tail -5 "$T/err")"
grep -q "^done" "$T/out" || fail "SpikeIdle did not finish: $(cat "$T/out")"

# the session's start: the HPROF header's time (ms since the epoch, after the magic's 19 bytes and the id size)
t0=$(od -An -t u1 -j 23 -N 8 "$T/j.hprof" | awk '{ for (i = 1; i <= NF; i++) v = v * 256 + $i } END { printf "%.0f", v }')
read -r sb se <<<"$(awk -v b="$begin" -v e="$end" -v t="$t0" 'BEGIN { printf "%.3f %.3f", (b / 1e6 - t) / 1000, (e / 1e6 - t) / 1000 }')"
note "spike seen from $sb s to $se s after the session's start"
awk -v b="$sb" -v e="$se" 'BEGIN { exit !(b > 2 && b < 8 && e - b > 1.8 && e - b < 2.6) }' || fail "the spike seen at $sb..$se s is not 2 s after about 3 s"
read -r s_from s_to <<<"$(awk -v b="$sb" -v e="$se" 'BEGIN { printf "%.2f %.2f", b + 0.4, e - 0.4 }')"

# the spike's inside: spike() on top, about 200 samples a second of it
"$JVMPROF" collapse "$T/j.hprof" --from "$s_from" --to "${s_to}s" -o "$T/spike.collapsed" 2>"$T/e" || fail "collapse --from --to: $(cat "$T/e")"
top=$(sort -k2 -n -r "$T/spike.collapsed" | sed -n 1p)
[[ "$top" == *SpikeIdle.spike* ]] || fail "the spike's window: the heaviest stack is not spike()'s: $top"
n=$(sum "$T/spike.collapsed" SpikeIdle.spike)
awk -v n="$n" -v f="$s_from" -v t="$s_to" 'BEGIN { want = (t - f) * 200; exit !(n >= 0.4 * want && n <= 1.15 * want) }' ||
    fail "spike() has $n samples in $s_from..$s_to s, expected about 200 a second"
note "window $s_from..$s_to s: $(sum "$T/spike.collapsed") samples, $n in spike()"
# the idle times, before (in ms) and after (in s, --to alone past the end): no spike(), idle() there
before_to=$(awk -v b="$sb" 'BEGIN { printf "%d", (b - 0.4) * 1000 }')
"$JVMPROF" collapse "$T/j.hprof" --from 800ms --to "${before_to}ms" -o "$T/before.collapsed" 2>"$T/e" || fail "collapse (before): $(cat "$T/e")"
after_from=$(awk -v e="$se" 'BEGIN { printf "%.2f", e + 0.6 }')
"$JVMPROF" collapse "$T/j.hprof" --from "$after_from" -o "$T/after.collapsed" 2>"$T/e" || fail "collapse (after): $(cat "$T/e")"
for w in before after; do
    grep -q SpikeIdle.spike "$T/$w.collapsed" && fail "the idle window ($w the spike) holds spike(): $(grep SpikeIdle.spike "$T/$w.collapsed")"
    [ "$(sum "$T/$w.collapsed" SpikeIdle.idle)" -gt 0 ] || fail "the idle window ($w the spike) has no idle(): $(cat "$T/$w.collapsed")"
    note "idle window $w the spike: $(sum "$T/$w.collapsed") samples, $(sum "$T/$w.collapsed" SpikeIdle.idle) in idle()"
done
# --from 0: every sample (the recording kept them all); the file without a window: the same
"$JVMPROF" collapse "$T/j.hprof" -o "$T/all.collapsed" || fail "collapse"
"$JVMPROF" collapse "$T/j.hprof" --from 0 -o "$T/from0.collapsed" || fail "collapse --from 0"
[ "$(sum "$T/from0.collapsed")" = "$(sum "$T/all.collapsed")" ] && [ "$(sum "$T/all.collapsed")" -gt 0 ] ||
    fail "--from 0 holds $(sum "$T/from0.collapsed") samples, the file $(sum "$T/all.collapsed")"
# the window's flame page: spike(), a timeline of the window only (10 ms slices)
"$JVMPROF" flame "$T/j.hprof" --from "$s_from" --to "$s_to" -o "$T/spike.html" 2>"$T/e" || fail "flame --from --to: $(cat "$T/e")"
grep -q 'SpikeIdle.spike' "$T/spike.html" || fail "the spike's flame page has no spike()"
grep -q "<div id=\"sub\">$(sum "$T/spike.collapsed") CPU samples" "$T/spike.html" || fail "the flame page does not hold the window's samples"
slices=$(grep -o '"timeline": {[^}]*"n": [0-9]*' "$T/spike.html" | grep -o '[0-9]*$')
awk -v n="$slices" -v f="$s_from" -v t="$s_to" 'BEGIN { exit !(n >= 1 && n <= (t - f) * 100 + 1) }' ||
    fail "the window's timeline has $slices slices, more than its $s_from..$s_to s"
"$JVMPROF" flame "$T/j.hprof" --from 800ms --to "${before_to}ms" -o "$T/before.html" 2>"$T/e" || fail "flame (before): $(cat "$T/e")"
expect_no_grep SpikeIdle.spike "$T/before.html"
grep -q '"timeline": {' "$T/before.html" || fail "the idle window's page has no timeline"

# a window of the recording dumped during the run, in format=b: its times, its spike
"$JVMPROF" collapse "$T/w.hprof" --from 0 -o "$T/w.collapsed" 2>"$T/e" || fail "collapse of the dumped window: $(cat "$T/e")"
grep -q SpikeIdle.spike "$T/w.collapsed" || fail "the dumped window (the last 3 s after the spike) has no spike()"
"$JVMPROF" flame "$T/w.hprof" -o "$T/w.html" || fail "flame of the dumped window"
grep -q '"timeline": {' "$T/w.html" || fail "the dumped window's page has no timeline"

# refused in one line: no sample times, bad times
run_java "cpu=samples,interval=5,file=$T/plain.hprof,format=b" SpikeIdle 100 300 100
expect_rc 0
one_line_error 1 flame "$T/plain.hprof" --from 1 -o "$T/x.html"
grep -q "plain.hprof has no sample times to cut --from/--to by: write it with record=y and format=b" "$T/e" || fail "no times: $(cat "$T/e")"
[ ! -e "$T/x.html" ] || fail "a refused window left an output file"
printf 'a;b 3\n' >"$T/c.collapsed"
one_line_error 1 collapse "$T/c.collapsed" --to 2s
grep -q "c.collapsed has no sample times" "$T/e" || fail "collapsed stacks with --to: $(cat "$T/e")"
one_line_error 2 flame "$T/j.hprof" --from soon
grep -q "flame: --from takes a time after the profile's start: a number with ms, s, m or h (a bare number is seconds), not 'soon'" "$T/e" || fail "--from soon: $(cat "$T/e")"
one_line_error 2 collapse "$T/j.hprof" --from 5 --to 2
grep -q "must come after --from" "$T/e" || fail "--from 5 --to 2: $(cat "$T/e")"
one_line_error 2 flame "$T/j.hprof" --to
one_line_error 2 flame "$T/j.hprof" --from -1s
exit 0
