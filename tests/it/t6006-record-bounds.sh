# record=y's bounds, in a few seconds (bench/record_bounds.sh runs the
# defaults, maxage=10m and maxsize=32m, for 12 minutes). Memory: wall=1
# samples SpikeIdle's ten or so threads a thousand times a second, far more
# than maxsize=512k holds (three chunks of 4096 samples of 32 bytes, one of
# them the spare): two dumps of the whole recording, seconds apart, show the
# ring at no more than 512 KiB, its oldest samples dropped and the window
# reaching back less than the run. Age: with maxage=2s, a dump of the whole
# recording after 6 s reaches back at most 2 s, in its header and in the
# times of its JFR file's samples.
. "$(dirname "$0")/lib.sh"
JFR="$JAVA_HOME/bin/jfr"
count() { sed -n "s/^$2 //p" "$1"; }
back_s() { sed -n 's/.*the recording reaches back to .*(\([0-9.]*\) s before the window.s end).*/\1/p' "$1"; }

"$JAVA" "-agentpath:$AGENT=wall=1,record=y,maxsize=512k,maxage=1m,file=$T/full.txt" -cp "$CLASSES" \
    SpikeIdle 30000 0 0 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^idle begins"
sleep 4
for d in 1 2; do
    "$JVMPROF" dump "$JPID" --from 0 "$T/d$d.txt" >/dev/null 2>"$T/e" || fail "dump $d: $(cat "$T/e")"
    bytes=$(count "$T/d$d.txt" "recording bytes held")
    dropped=$(count "$T/d$d.txt" "recording events dropped (by age or for room)")
    held=$(count "$T/d$d.txt" "recording events in the window")
    back=$(back_s "$T/d$d.txt")
    [ -n "$bytes" ] && [ "$bytes" -le 524288 ] || fail "dump $d: the ring holds ${bytes:-?} bytes, over maxsize=512k"
    [ "${dropped:-0}" -gt 0 ] || fail "dump $d: nothing dropped at a thousand samples a second into 512 KiB"
    # at most the two full chunks and the one being filled: 3 * 4096 samples
    [ "${held:-0}" -gt 0 ] && [ "$held" -le 12288 ] || fail "dump $d: ${held:-?} samples held"
    awk -v b="$back" 'BEGIN { exit !(b > 0 && b < 4) }' || fail "dump $d: reaches back $back s, not less than the run"
    note "dump $d: $bytes bytes, $held samples held, $dropped dropped, reaching back $back s"
    sleep 2
done
kill "$JPID"

"$JAVA" "-agentpath:$AGENT=cpu=samples,interval=5,cstack=java,record=y,maxage=2s,file=$T/a.txt,jfr=$T/a.jfr" \
    -cp "$CLASSES" SpikeIdle 30000 0 0 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^idle begins"
sleep 6
before=$(date +%s%N)
"$JVMPROF" dump "$JPID" --from 0 >/dev/null 2>"$T/e" || fail "dump: $(cat "$T/e")"
back=$(back_s "$T/a.txt")
awk -v b="$back" 'BEGIN { exit !(b > 0.5 && b <= 2.0) }' || fail "maxage=2s: the recording reaches back $back s"
"$JFR" print --json --events jdk.ExecutionSample "$T/a.jfr" >"$T/ev.json" 2>"$T/jfr.err" || fail "jfr print: $(cat "$T/jfr.err")"
python3 - "$T/ev.json" "$before" <<'PY' || fail "maxage=2s: the JFR file holds older samples"
import json, sys, datetime
lo = int(sys.argv[2]) - 2_000_000_000 - 100_000_000
ts_all = []
for e in json.load(open(sys.argv[1]))["recording"]["events"]:
    ts, frac = e["values"]["startTime"].rstrip("Z").split(".")
    ts_all.append(int(datetime.datetime.fromisoformat(ts).replace(tzinfo=datetime.timezone.utc).timestamp()) * 10**9 + int(frac.ljust(9, "0")[:9]))
if len(ts_all) < 10:
    sys.exit("only %d samples" % len(ts_all))
if min(ts_all) < lo:
    sys.exit("a sample %.3f s before the dump" % ((int(sys.argv[2]) - min(ts_all)) / 1e9))
print("  maxage=2s: %d samples, the oldest %.3f s before the dump" % (len(ts_all), (int(sys.argv[2]) - min(ts_all)) / 1e9), file=sys.stderr)
PY
exit 0
