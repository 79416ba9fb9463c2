# trigger=cpu: SpikeIdle idles 5 s (a worker busy 2 ms in every 20: about
# 10% of a core), burns a core in spike() for 6 s, then idles 2 s. With
# cpu_above=25% (well above the idle 10%, and below what spike() gets of a
# core on the loaded 2-core test machine: 59% to 96% measured) and
# cpu_for=2s the recording is dumped once: not while idle, and from 1 s
# (the measure is by steps of 1 s) after the spike began (at most 7 s: a
# starved spike takes longer to add up to 2 s above 25%); the spike lasts
# three times cpu_for=, but trigger_interval= (1m) keeps it to one dump,
# and one line says the next was not written. The dump has spike() on top,
# and its header and stderr line say how much CPU for how long. Bad values
# of cpu_above= and cpu_for=: one line each.
. "$(dirname "$0")/lib.sh"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
"$JAVA" "-agentpath:$AGENT=cpu=samples,interval=5,cstack=java,record=y,trigger=cpu,cpu_above=25%,cpu_for=2s,file=$T/full.txt" \
    -cp "$CLASSES" SpikeIdle 5000 6000 2000 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^spike begins"
began=$(now_ms)
ls "$T" | grep -q -- -trigger- && fail "a dump while idle: $(cat "$T/err")"
for _ in $(seq 180); do [ -s "$T/full-trigger-1.txt" ] && break; sleep 0.05; done
fired=$(now_ms)
[ -s "$T/full-trigger-1.txt" ] || fail "no dump 9 s after the spike began: $(cat "$T/err")"
after=$((fired - began))
[ "$after" -ge 1000 ] && [ "$after" -le 7000 ] || fail "dumped $after ms after the spike began, not 1000 to 7000"
wait "$JPID" || fail "the program's exit code: $?"
[ "$(cat "$T/out")" = $'idle begins\nspike begins\nspike ends\nidle again\ndone' ] || fail "the program's stdout: $(cat "$T/out")"
[ "$(ls "$T" | grep -c -- -trigger-)" = 1 ] || fail "not one dump: $(ls "$T")"
D=$T/full-trigger-1.txt
re="the process used [0-9]+% of one core for [0-9.]+ s; cpu_above=25% for cpu_for=2 s"
grep -Eq "^jvmprof: trigger cpu \($re\): wrote $D \(" "$T/err" || fail "no line for the dump: $(cat "$T/err")"
grep -Eq "^TRIGGER: cpu: $re$" "$D" || fail "the dump's header: $(head -8 "$D")"
grep -Eq "^jvmprof: trigger cpu \(.*\): no dump, the last was [0-9.]+ s ago \(trigger_interval=60 s\)$" "$T/err" ||
    fail "no line for the second spell above 25%: $(cat "$T/err")"
pct=$(sed -n 's/^TRIGGER: cpu: the process used \([0-9]*\)%.*/\1/p' "$D")
[ "$pct" -ge 25 ] || fail "the dump says $pct% of one core, under cpu_above=25%"
top=$(cpu_rows "$D" | sed -n 1p | awk '{print $6}')
[ "$top" = SpikeIdle.spike ] || fail "the dump's top is not spike(): $(cpu_rows "$D" | head -3)"
note "dumped $after ms after the spike began, at $pct% of one core; top: $(cpu_rows "$D" | sed -n 1p)"

bad() {
    run_java "$1" Hello
    [ "$RC" != 0 ] || fail "$1: accepted"
    [ "$(wc -l <"$T/err")" = 1 ] || fail "$1: not one line: $(cat "$T/err")"
    grep -q -- "$2" "$T/err" || fail "$1: no '$2' in: $(cat "$T/err")"
}
bad "cpu=samples,record=y,trigger=cpu,cpu_above=0%" "cpu_above=0%: bad value; expected 1..100000 (% of one core)"
bad "cpu=samples,record=y,trigger=cpu,cpu_above=lots" "cpu_above=lots: bad value"
bad "cpu=samples,record=y,trigger=cpu,cpu_for=500ms" "cpu_for=500ms: bad value; expected 1s..1h"
bad "cpu=samples,record=y,trigger=oom,cpu_above=90%" "cpu_above= shapes trigger=cpu; add cpu to trigger="
bad "cpu=samples,record=y,cpu_for=5s" "cpu_for= shapes trigger=cpu"
exit 0
