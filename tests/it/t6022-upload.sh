# upload=: a pprof profile of each interval of the recording to a Pyroscope-compatible
# ingest endpoint, here tests/tools/pyroscope_receiver.py (no Pyroscope server installs on
# these machines; the receiver implements its documented API, t6021). UploadBusy burns the
# CPU in busy() for 8 s with upload_interval=2s: the receiver gets one profile per interval,
# the intervals adjoining (each one's from the previous one's until), ending on even
# seconds (the last one at the end of the run), 2 s long but the first and the last, and
# all within the run; each request names the application with its labels, format=pprof,
# sampleRate=100 and spyName=jvmprof, in a form with the profile and its sample type
# configuration; each profile is read by go tool pprof (Debian's golang-go), starts at its
# interval's from, and has busy() on top; the intervals' samples add up to the whole
# run's (the report's) but for the last moments after the last cut. jvmprof status says
# what was sent while the program runs; the log at the end says all were sent. A session
# started on a running JVM (jvmprof start PID upload=...) uploads too, and jvmprof stop
# sends its last interval before it answers.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" go || fail "Go cannot be installed"
GO=$(command -v go)
export HOME="${HOME:-$T}" GOCACHE="$T/gocache" GOFLAGS=-mod=mod
python3 "$ROOT/tests/tools/pyroscope_receiver.py" --dir "$T/recv" --port-file "$T/port" 2>"$T/recv.err" &
PIDS+=("$!")
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
PORT=$(cat "$T/port") || fail "the receiver did not start: $(cat "$T/recv.err")"

before=$(date +%s.%N)
"$JAVA" "-agentpath:$AGENT=cpu=samples,interval=10,upload=http://127.0.0.1:$PORT,upload_interval=2s,upload_app=busy{env=test+host=ci},file=$T/full.txt" \
    -cp "$CLASSES" UploadBusy 8 >"$T/out" 2>"$T/err" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out" "^beat 10 "
"$JVMPROF" status "$JPID" >"$T/status" 2>"$T/e" || fail "status: $(cat "$T/e")"
grep -Eq "^upload: [1-9][0-9]* profiles to http://127\.0\.0\.1:$PORT/ingest as busy\{env=test,host=ci\}: [1-9][0-9]* sent \([0-9.]+ KiB\), 0 retries, 0 dropped" "$T/status" ||
    fail "status has no upload line: $(cat "$T/status")"
wait "$JPID" || fail "the JVM failed: $(cat "$T/err")"
after=$(date +%s.%N)
[ "$(tail -1 "$T/out")" = done ] || fail "the program's output: $(tail -3 "$T/out")"
grep -q "^jvmprof: upload: a pprof profile every 2 s to http://127.0.0.1:$PORT/ingest as busy{env=test,host=ci}$" "$T/err" ||
    fail "no start line: $(cat "$T/err")"
line=$(grep "^jvmprof: upload at the end: " "$T/err") || fail "no end line: $(cat "$T/err")"
n=$(sed -n 's/^jvmprof: upload at the end: \([0-9]*\) profiles .*/\1/p' <<<"$line")
grep -Eq ": $n sent \([0-9.]+ KiB\), 0 retries, 0 dropped \(0 for room in upload_queue=, 0 rejected by the server, 0 not sent at the end\), 0 waiting" <<<"$line" ||
    fail "not all $n sent: $line"
total=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/full.txt" | grep -o '[0-9]*$')

# each profile, read by go tool pprof
# (the first interval, from the session's start to the first even second, may be a few ms long and hold no
# sample; go tool pprof refuses to show a profile without samples: marked EMPTY, allowed for the first only)
for f in "$T"/recv/*.pb.gz; do
    if ! "$GO" tool pprof -top -sample_index=samples "$f" >"${f%.pb.gz}.top" 2>"$T/pprof.err"; then
        grep -q 'profile has no samples' "$T/pprof.err" || fail "go tool pprof -top $f: $(cat "$T/pprof.err")"
        echo EMPTY >"${f%.pb.gz}.top"
        echo EMPTY >"${f%.pb.gz}.raw"
        continue
    fi
    "$GO" tool pprof -raw "$f" >"${f%.pb.gz}.raw" 2>"$T/pprof.err" || fail "go tool pprof -raw $f: $(cat "$T/pprof.err")"
done
python3 - "$T/recv" "$before" "$after" "$n" "$total" <<'PY' || fail "the profiles received"
import datetime, glob, json, os, re, sys
d, before, after, n, total = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
metas = sorted(glob.glob(os.path.join(d, '*.json')))
if len(metas) != n:
    sys.exit('%d profiles received, the agent says %d sent' % (len(metas), n))
# 8 s of the program: 4 interval ends at least; the whole run (the JVM's start and end too): at most one a 2 s
if not 5 <= n <= (after - before) / 2 + 2:
    sys.exit('%d profiles for a run of %.1f s at 2 s' % (n, after - before))
prev_until, sum_samples = None, 0
for i, m in enumerate(metas):
    j = json.load(open(m))
    q = j['query']
    want = {'name': 'busy{env=test,host=ci}', 'format': 'pprof', 'sampleRate': '100', 'spyName': 'jvmprof'}
    for k, v in want.items():
        if q.get(k) != v:
            sys.exit('%s: %s=%r, expected %r' % (m, k, q.get(k), v))
    if j['fields'] != ['profile', 'sample_type_config'] or not j['content_type'].startswith('multipart/form-data'):
        sys.exit('%s: not the documented form: %s %s' % (m, j['content_type'], j['fields']))
    fr, un = int(q['from']), int(q['until'])
    if prev_until is not None and fr != prev_until:
        sys.exit('%s: from %d, the previous until %d: not adjoining' % (m, fr, prev_until))
    if not int(before) <= fr < un <= int(after) + 1:
        sys.exit('%s: %d..%d is not within the run %.1f..%.1f' % (m, fr, un, before, after))
    last = i == n - 1
    if not last and un % 2:
        sys.exit('%s: until %d is not on an even second' % (m, un))
    if 0 < i < n - 1 and un - fr != 2:
        sys.exit('%s: a middle interval of %d s' % (m, un - fr))
    prev_until = un
    top = open(m[:-5] + '.top').read()
    raw = open(m[:-5] + '.raw').read()
    if top == 'EMPTY\n':
        if i != 0:
            sys.exit('%s: no samples in interval %d..%d, not the first' % (m, fr, un))
        continue
    tot = int(re.search(r'Total samples = (\d+)', top).group(1)) if 'Total samples' in top else 0
    sum_samples += tot
    rows = [l.split() for l in top.splitlines() if re.match(r'^\s+\d+\s+[\d.]+%', l)]
    if 0 < i < n - 1 and tot < 20:  # 200 on a core of its own; 20 even on a machine loaded ten times over
        sys.exit('%s: %d samples in a whole interval of 2 s' % (m, tot))
    if tot >= 20 and rows[0][-1] != 'UploadBusy.busy':
        sys.exit('%s: top is %s, not busy(): %s' % (m, rows[0][-1], top))
    # the profile's own start time is its interval's from (the first one's: at the recording's first sample,
    # which may come after the session's start)
    t = re.search(r'^Time: (\S+ \S+) \+0000 UTC$', raw, re.M)
    start = datetime.datetime.strptime(t.group(1)[:19], '%Y-%m-%d %H:%M:%S').replace(tzinfo=datetime.timezone.utc)
    if not (int(start.timestamp()) == fr or (i == 0 and fr <= int(start.timestamp()) < un)):
        sys.exit('%s: the profile starts at %s, its from is %d' % (m, t.group(1), fr))
    if not re.search(r'^PeriodType: cpu nanoseconds$', raw, re.M) or not re.search(r'^Period: 10000000$', raw, re.M):
        sys.exit('%s: no period of 10 ms' % m)
if not 0.95 * total <= sum_samples <= total:
    sys.exit('the profiles hold %d samples, the whole run %d' % (sum_samples, total))
print('  %d profiles, adjoining from %d to %d, %d samples of the run\'s %d, busy() on top of each'
      % (n, int(json.load(open(metas[0]))['query']['from']), prev_until, sum_samples, total), file=sys.stderr)
PY
# a session started on a running JVM, and stopped: its intervals, the last one sent by the stop
rm -rf "$T/recv"/*
"$JAVA" -cp "$CLASSES" UploadBusy 20 >"$T/out2" 2>"$T/err2" &
JPID=$!
PIDS+=("$JPID")
wait_line "$T/out2" "^beat 2 "
started=$(date +%s)
"$JVMPROF" start "$JPID" "upload=http://127.0.0.1:$PORT,upload_interval=1s,upload_app=attached{how=start},file=$T/attached.txt" >"$T/o" 2>"$T/e" ||
    fail "jvmprof start: $(cat "$T/e")"
wait_line "$T/out2" "^beat 10 "
"$JVMPROF" stop "$JPID" >"$T/o" 2>"$T/e" || fail "jvmprof stop: $(cat "$T/e")"
stopped=$(date +%s)
python3 - "$T/recv" "$started" "$stopped" <<'PY' || fail "the attached session's profiles"
import glob, json, os, sys
d, started, stopped = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
qs = [json.load(open(m))['query'] for m in sorted(glob.glob(os.path.join(d, '*.json')))]
if len(qs) < 3:
    sys.exit('%d profiles from a session of %d s at 1 s' % (len(qs), stopped - started))
for a, b in zip(qs, qs[1:]):
    if a['until'] != b['from']:
        sys.exit('not adjoining: %s then %s' % (a, b))
if any(q['name'] != 'attached{how=start}' for q in qs) or not started <= int(qs[0]['from']) or int(qs[-1]['until']) > stopped + 1:
    sys.exit('names or times: %s (started %d, stopped %d)' % (qs, started, stopped))
print('  jvmprof start PID upload=...: %d profiles, the last sent by jvmprof stop' % len(qs), file=sys.stderr)
PY
echo "t6022 ok"
