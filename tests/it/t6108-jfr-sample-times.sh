# jfr=: each sample in the JFR file carries the real time it was taken (the
# agent keeps the samples' times when jfr= is asked), not a time spread
# evenly over the run in trace order. SleepCompute alternates 50 ms of
# compute() with 50 ms of Thread.sleep: wall= samples of the two must
# alternate in time (spread in trace order, each kind would be one block),
# and cpu=samples' samples must leave gaps where the thread slept (spread
# evenly, 100 samples over 2 s are 20 ms apart).
. "$(dirname "$0")/lib.sh"
# cstack=java: the samples' top frames are compute() and Thread.sleep themselves, not the libc functions
# the sleep waits in (with native frames, the traces' depth= frames can hold no Java frame at all)
JFR="$JAVA_HOME/bin/jfr"
# kinds FILE: "NS KIND" for each ExecutionSample of compute() (C) or Thread.sleep (S), ns since the epoch
kinds() {
    "$JFR" print --json --events jdk.ExecutionSample "$1" >"$T/ev.json" 2>"$T/jfr.err" || fail "jfr print --json: $(cat "$T/jfr.err")"
    python3 - "$T/ev.json" <<'PY'
import json, sys, datetime
for e in json.load(open(sys.argv[1]))["recording"]["events"]:
    v = e["values"]
    frames = [f["method"]["type"]["name"] + "." + f["method"]["name"] for f in (v.get("stackTrace") or {}).get("frames") or []]
    kind = "C" if "SleepCompute.compute" in frames else "S" if any(f.endswith("Thread.sleep") for f in frames) else None
    if kind:
        ts, frac = v["startTime"].rstrip("Z").split(".")
        sec = datetime.datetime.fromisoformat(ts).replace(tzinfo=datetime.timezone.utc).timestamp()
        print("%d%s %s" % (int(sec), frac.ljust(9, "0")[:9], kind))
PY
}
run_java "wall=10,cstack=java,file=$T/w.txt,jfr=$T/w.jfr" SleepCompute 2
expect_rc 0
kinds "$T/w.jfr" | sort -n >"$T/w.k"
n=$(grep -c . "$T/w.k")
switches=$(awk 'NR > 1 && $2 != k { s++ } { k = $2 } END { print s + 0 }' "$T/w.k")
[ "$n" -ge 40 ] || fail "wall=: only $n samples of compute() and Thread.sleep"
[ "$switches" -ge 10 ] || fail "wall=: compute() and Thread.sleep samples switch $switches times in time order (real times: about 2 per 100 ms round)"
note "wall=: $n samples of compute() and sleep, alternating $switches times in time order"

run_java "cpu=samples,interval=10,cstack=java,file=$T/c.txt,jfr=$T/c.jfr" SleepCompute 2
expect_rc 0
kinds "$T/c.jfr" | sort -n >"$T/c.k"
n=$(grep -c . "$T/c.k")
gaps=$(awk 'NR > 1 && $1 - t > 30000000 { g++ } { t = $1 } END { print g + 0 }' "$T/c.k")
[ "$n" -ge 20 ] || fail "cpu=samples: only $n samples of compute()"
[ "$gaps" -ge 5 ] || fail "cpu=samples: $gaps gaps of over 30 ms between compute() samples (it sleeps 50 ms in every 100)"
note "cpu=samples: $n samples, $gaps gaps of over 30 ms where the thread slept"
