# upload= while the receiver (tests/tools/pyroscope_receiver.py, see t6021) is down for
# 30 s: UploadBusy burns the CPU for 45 s with upload_interval=1s and upload_queue=16k (the
# least: about ten of its profiles), printing a heartbeat every 500 ms. Nothing blocks: the
# heartbeats come on time (all 90, none late by 500 ms), jvmprof status answers at once
# while the receiver refuses connections and says so (retries, the last error, profiles
# waiting); when the receiver is back the profiles that waited are sent (some received
# after it came back are of intervals that ended while it was down), the oldest having
# been pushed out of the full queue and counted dropped; at the end every interval is
# either received or counted dropped (sent + dropped = intervals, none rejected or left
# unsent), and the intervals missing at the receiver are exactly as many as were dropped.
# Without upload_app= the application is named after the main class.
. "$(dirname "$0")/lib.sh"
python3 "$ROOT/tests/tools/pyroscope_receiver.py" --dir "$T/recv" --port-file "$T/port" --down-seconds 30 2>"$T/recv.err" &
RPID=$!
PIDS+=("$RPID")
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
PORT=$(cat "$T/port") || fail "the receiver did not start: $(cat "$T/recv.err")"

"$JAVA" "-agentpath:$AGENT=cpu=samples,upload=http://127.0.0.1:$PORT,upload_interval=1s,upload_queue=16k,file=$T/full.txt" \
    -cp "$CLASSES" UploadBusy 45 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^beat 6 "
kill -USR1 "$RPID"
down_at=$(date +%s.%N)
wait_line "$T/recv/requests.log" " down$"
wait_line "$T/out" "^beat 30 "
t0=$(date +%s%N)
"$JVMPROF" status "$JPID" >"$T/status1" 2>"$T/e" || fail "status while the receiver is down: $(cat "$T/e")"
took=$((($(date +%s%N) - t0) / 1000000))
[ "$took" -lt 5000 ] || fail "status took $took ms while the receiver is down"
grep -Eq "^upload: [0-9]+ profiles to http://127\.0\.0\.1:$PORT/ingest as UploadBusy: [0-9]+ sent .*, [1-9][0-9]* retries, .* [1-9][0-9]* waiting \([0-9.]+ KiB\), made in [0-9.]+ ms of the agent thread's CPU; last error [0-9.]+ s ago: connect to 127\.0\.0\.1:$PORT: Connection refused$" "$T/status1" ||
    fail "status while the receiver is down: $(grep upload "$T/status1")"
sent1=$(sed -n 's/^upload: .*: \([0-9]*\) sent .*/\1/p' "$T/status1")
wait_line "$T/recv/requests.log" " up$"
up_at=$(awk '$2 == "up" {print $1}' "$T/recv/requests.log")
wait_line "$T/out" "^beat 84 "
"$JVMPROF" status "$JPID" >"$T/status2" 2>"$T/e" || fail "status after the receiver came back: $(cat "$T/e")"
sent2=$(sed -n 's/^upload: .*: \([0-9]*\) sent .*/\1/p' "$T/status2")
waiting2=$(sed -n 's/^upload: .*), \([0-9]*\) waiting .*/\1/p' "$T/status2")
[ "$sent2" -gt "$((sent1 + 10))" ] && [ "$waiting2" -le 1 ] ||
    fail "after the receiver came back: $(grep upload "$T/status2") (before: $(grep upload "$T/status1"))"
wait "$JPID" || fail "the JVM failed: $(cat "$T/err")"
[ "$(tail -1 "$T/out")" = done ] || fail "the program's output: $(tail -3 "$T/out")"
beats=$(grep -c "^beat " "$T/out")
late=$(sed -n 's/^max late //p' "$T/out")
[ "$beats" -ge 89 ] && [ "$late" -lt 500 ] || fail "the program was slowed: $beats heartbeats, the latest $late ms late"
line=$(grep "^jvmprof: upload at the end: " "$T/err") || fail "no end line: $(cat "$T/err")"
re='^jvmprof: upload at the end: ([0-9]+) profiles .*: ([0-9]+) sent \([0-9.]+ KiB\), ([0-9]+) retries, ([0-9]+) dropped \(([0-9]+) for room in upload_queue=, 0 rejected by the server, 0 not sent at the end\), 0 waiting'
[[ "$line" =~ $re ]] || fail "the end line: $line"
made=${BASH_REMATCH[1]} sent=${BASH_REMATCH[2]} retries=${BASH_REMATCH[3]} dropped=${BASH_REMATCH[4]}
[ $((sent + dropped)) = "$made" ] || fail "sent $sent + dropped $dropped is not the $made intervals"
[ "$dropped" -gt 0 ] && [ "$retries" -ge 10 ] || fail "30 s down at 1 s into 16k: $line"
python3 - "$T/recv" "$sent" "$dropped" "$down_at" "$up_at" <<'PY' || fail "the profiles received"
import glob, json, os, sys
d, sent, dropped, down_at, up_at = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
got = []
for m in sorted(glob.glob(os.path.join(d, '*.json'))):
    j = json.load(open(m))
    got.append((int(j['query']['from']), int(j['query']['until']), j['received']))
if len(got) != sent:
    sys.exit('%d received, %d sent' % (len(got), sent))
if any(j for j in got if j[0] < 0):
    sys.exit('bad from')
# every interval once; those missing (between the first and the last) are the dropped ones
ivs = sorted((f, u) for f, u, _ in got)
missing = sum(b[0] - a[1] for a, b in zip(ivs, ivs[1:]))
if any(b[0] < a[1] for a, b in zip(ivs, ivs[1:])):
    sys.exit('intervals overlap or repeat')
if missing != dropped:
    sys.exit('%d s of intervals missing at the receiver, %d dropped' % (missing, dropped))
# the backlog: received after the receiver came back, though their intervals ended while it was down
backlog = [g for g in got if g[2] >= up_at and down_at < g[1] < up_at]
if len(backlog) < 5:
    sys.exit('only %d profiles of the time it was down were sent when it came back' % len(backlog))
print('  %d received (%d of them the backlog of the 30 s down), %d dropped for room, the gaps as long'
      % (len(got), len(backlog), dropped), file=sys.stderr)
PY
note "heartbeats: $beats, the latest $late ms late; $retries retries; status answered in $took ms while down"
echo "t6023 ok"
