# jfr= and jvmprof convert --jfr, read by the JDK's own jfr tool: CPU
# samples (jdk.ExecutionSample: as many as the report's samples, each
# method's as many as the report gives it, with line numbers), monitors
# (one jdk.JavaMonitorEnter per MONITOR TIME row, of its class, the rows'
# counts and total time), allocation sites (jdk.ObjectAllocationSample
# weights per method equal the SITES bytes), a report converted from
# format=b; `jfr print` reports no error on any of them; cpu=times and
# collapsed stacks refused in one line.
. "$(dirname "$0")/lib.sh"
JFR="$JAVA_HOME/bin/jfr"
# events FILE TYPE: the events of TYPE as "top-frame-method weight duration-ns" lines (python reads jfr's JSON)
events() {
    "$JFR" print --json --events "$2" "$1" >"$T/ev.json" 2>"$T/jfr.err" || fail "jfr print --json $1: $(cat "$T/jfr.err")"
    python3 - "$T/ev.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for e in doc["recording"]["events"]:
    v = e["values"]
    frames = (v.get("stackTrace") or {}).get("frames") or []
    top = frames[0]["method"] if frames else None
    name = (top["type"]["name"] + "." + top["name"]) if top else "-"
    dur = v.get("duration", "PT0S")
    print(name, v.get("weight", 0), dur)
PY
}
check_print() { # FILE: jfr print reads it all, without an error
    "$JFR" print "$1" >/dev/null 2>"$T/jfr.err" || fail "jfr print $1 failed: $(cat "$T/jfr.err")"
    [ ! -s "$T/jfr.err" ] || fail "jfr print $1 said: $(cat "$T/jfr.err")"
    "$JFR" summary "$1" >"$T/summary.txt" 2>"$T/jfr.err" || fail "jfr summary $1: $(cat "$T/jfr.err")"
}

# CPU samples
run_java "cpu=samples,interval=10,file=$T/p.txt,jfr=$T/p.jfr" HotLoop 2
expect_rc 0
check_print "$T/p.jfr"
total=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/p.txt" | grep -o '[0-9]*$')
grep -Eq "^ jdk.ExecutionSample +$total " "$T/summary.txt" || fail "jfr summary: not $total samples: $(cat "$T/summary.txt")"
events "$T/p.jfr" jdk.ExecutionSample >"$T/p.ev"
for m in HotLoop.heavy HotLoop.light; do
    want=$(cpu_rows "$T/p.txt" | awk -v m="$m" '$6 == m { s += $4 } END { print s + 0 }')
    got=$(awk -v m="$m" '$1 == m' "$T/p.ev" | wc -l)
    [ "$got" = "$want" ] || fail "$m: $got samples in the JFR file, $want in the report"
done
"$JFR" print --events jdk.ExecutionSample "$T/p.jfr" | grep -Eq "HotLoop.heavy\(long\) line: [0-9]+" || fail "no line numbers"

# the same report converted from format=b
run_java "cpu=samples,interval=10,format=b,file=$T/b.hprof" HotLoop 1
expect_rc 0
"$ROOT/build/jvmprof" convert "$T/b.hprof" --jfr "$T/b.jfr" 2>"$T/e" || fail "convert --jfr: $(cat "$T/e")"
check_print "$T/b.jfr"
btotal=$("$ROOT/build/jvmprof" report "$T/b.hprof" | grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' | grep -o '[0-9]*$')
grep -Eq "^ jdk.ExecutionSample +$btotal " "$T/summary.txt" || fail "convert: not $btotal samples: $(cat "$T/summary.txt")"
note "cpu=samples: $total samples, the same in jfr summary and per method; convert --jfr: $btotal"

# monitors: a JavaMonitorEnter per row, its count and time
run_java "monitor=y,cutoff=0,file=$T/m.txt,jfr=$T/m.jfr" Contended
expect_rc 0
check_print "$T/m.jfr"
rows=$(sed -n '/^MONITOR TIME BEGIN/,/^MONITOR TIME END/p' "$T/m.txt" | grep -Ec '^ +[0-9]+ ')
grep -Eq "^ jdk.JavaMonitorEnter +$rows " "$T/summary.txt" || fail "not $rows JavaMonitorEnter events: $(cat "$T/summary.txt")"
"$JFR" print --events jdk.JavaMonitorEnter "$T/m.jfr" | grep -q 'monitorClass = Contended\$SharedLock' ||
    fail "the monitors' class is not named"

# allocation sites: the weights per allocating method are the SITES bytes
run_java "heap=sites,alloc_interval=256,cutoff=0,file=$T/s.txt,jfr=$T/s.jfr" AllocSites
expect_rc 0
check_print "$T/s.jfr"
events "$T/s.jfr" jdk.ObjectAllocationSample >"$T/s.ev"
for m in AllocSites.makeFoos AllocSites.makeBars; do
    want=$(sed -n '/^SITES BEGIN/,/^SITES END/p' "$T/s.txt" | awk '$6 ~ /^[0-9]+$/ { print $6, $8 }' |
           while read -r bytes trace; do
               top=$(awk -v s="TRACE $trace:" 'index($0, s) == 1 {getline; print; exit}' "$T/s.txt")
               case "$top" in *"$m("*) echo "$bytes" ;; esac
           done | awk '{ s += $1 } END { print s + 0 }')
    got=$(awk -v m="$m" '$1 == m { s += $2 } END { print s + 0 }' "$T/s.ev")
    [ "$got" = "$want" ] || fail "$m: $got bytes in the JFR file, $want in the report"
done
note "monitors: $rows rows as JavaMonitorEnter; allocation sites' bytes per method equal"

# every format convert writes from the binary report, and what each leaves out
for to in txt collapsed flame pprof jfr; do
    "$ROOT/build/jvmprof" convert "$T/b.hprof" "--$to" "$T/b.$to" 2>"$T/e" || fail "convert --$to: $(cat "$T/e")"
    [ -s "$T/b.$to" ] || fail "convert --$to wrote nothing"
done
"$ROOT/build/jvmprof" convert "$T/b.hprof" --flame "$T/b2.html" 2>"$T/e"
grep -q "^jvmprof: note: $T/b2.html does not carry the frames' line numbers" "$T/e" || fail "no drop note: $(cat "$T/e")"
"$ROOT/build/jvmprof" report "$T/b.hprof" >"$T/b-report.txt"
cmp <(grep -v '^CPU SAMPLES BEGIN\|^jvmprof' "$T/b.txt") <(grep -v '^CPU SAMPLES BEGIN\|^jvmprof' "$T/b-report.txt") >/dev/null ||
    fail "convert --txt differs from jvmprof report"

# a trace as a JFR file: its collections, thread starts and ends, samples, timed
run_java "trace=mem+thread+alloc+monitor,cpu=samples,interval=5,tracefile=$T/e.trace,file=$T/e.txt" TraceEvents
expect_rc 0
"$ROOT/build/jvmprof" convert "$T/e.trace" --jfr "$T/e.jfr" 2>"$T/e" || fail "convert TRACE --jfr: $(cat "$T/e")"
check_print "$T/e.jfr"
"$ROOT/build/jvmprof" trace "$T/e.trace" >"$T/e.txt2"
for pair in "gc-end jdk.GarbageCollection" "thread-start jdk.ThreadStart" "thread-end jdk.ThreadEnd" \
            "sample jdk.ExecutionSample" "alloc jdk.ObjectAllocationSample"; do
    set -- $pair
    n=$("$ROOT/build/jvmprof" trace "$T/e.trace" --type "$1" | grep -c .)
    [ "$n" -gt 0 ] || fail "the trace has no $1 events"
    grep -Eq "^ $2 +$n " "$T/summary.txt" || fail "not $n $2 events: $(grep "$2" "$T/summary.txt")"
done
"$JFR" print --events jdk.GarbageCollection "$T/e.jfr" | grep -q 'cause = "System.gc()"' || fail "no collection's cause"
note "a trace as JFR: $(grep -c . "$T/e.txt2") trace lines; $(grep -E '^ jdk' "$T/summary.txt" | awk '$2 > 0 {printf "%s %s, ", $1, $2}')"

# refusals, one line each
run_java "cpu=times,jfr=$T/x.jfr" HotLoop 1
[ "$RC" != 0 ] || fail "cpu=times with jfr= was accepted"
expect_grep "^jvmprof: jfr= with cpu=times: a JFR file has no event for exact call times" "$T/err"
printf 'main;work 5\n' >"$T/c.collapsed"
if "$ROOT/build/jvmprof" convert "$T/c.collapsed" --jfr "$T/c.jfr" 2>"$T/e"; then fail "collapsed stacks made a JFR file"; fi
[ "$(wc -l <"$T/e")" = 1 ] && [ ! -e "$T/c.jfr" ] || fail "convert --jfr of collapsed stacks: $(cat "$T/e")"
