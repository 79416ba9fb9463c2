# Session restarts (issue 37): one JVM runs 50 rounds of sessions, each
# round one session of every mode Control.start allows (cpu=samples, wall=,
# cpu=times, heap=sites sampled, monitor=y, trace=exec, heap=dump), each
# with its own output and its mode's fixed workload (tests/programs/
# Restarts.java). Exact allocation counts (heap=sites,alloc_interval=0, and
# alloc_count=site) run only from start-up: they are the JVM's first
# session, and Control.start must refuse both after the rounds. Then each
# mode runs once in a fresh JVM (the same options in -agentpath, the same
# workload), and each of the 351 sessions' outputs must hold what the fresh
# JVM's holds: calls per method and per call path (cpu=times), allocations
# per site (alloc_interval=0), one contended entry and no wait (monitor=y),
# the entries and exits in order (trace=exec), the program's instances
# (heap=dump, whose file is numbered over the JVM's dumps); for the sampled
# modes the workload's methods; and in every report the header, the
# sections, the COUNTS' names and the threads the workload started (a
# holder thread in the monitor session only), and trace serials that start
# again. Counts that vary are held to what the workload makes, not to the
# fresh JVM's: the samples of the workload (at least 1, at most what its
# time allows) and the sampled allocations (within 30% of those made), so a
# session that kept the one before of its mode would count about twice. A
# report that kept the session before it in the round (another mode, whose
# workload has other methods, classes or threads) differs from the fresh
# JVM's. Each difference is printed as: session, mode, file, line. Last,
# the comparison runs on reports doctored as leaks would make them (a
# session's calls doubled, an earlier session's thread in a CPU report,
# serials going on, a trace holding its events twice) and must fail on
# each, and only there.
. "$(dirname "$0")/lib.sh"
D="$T"
ROUNDS=50
# MODE KIND OPTIONS (%D the directory, %R the round, or "fresh")
MODES='cpu spin cpu=samples,interval=1,depth=8,file=%D/cpu.%R.txt
wall wall wall=5,depth=8,file=%D/wall.%R.txt
times calls cpu=times,include=Restarts$Calls,cutoff=0,file=%D/times.%R.txt
sites alloc heap=sites,alloc_interval=1024,file=%D/sites.%R.txt
monitor lock monitor=y,file=%D/monitor.%R.txt
trace calls trace=exec,include=Restarts$Calls,tracefile=%D/trace.%R.trace
dump dump heap=dump,file=%D/dump.%R.hprof'
EXACT='heap=sites,alloc_interval=0,file=%D/exact.%R.txt'
steps=()
while read -r mode kind opts; do steps+=("$kind=$opts"); done <<<"$MODES"

start=$SECONDS
opts=${EXACT//%D/$D}
run_java "${opts//%R/1}" Restarts "$D" "$ROUNDS" first:alloc "${steps[@]}" \
    "bad:heap=sites,alloc_interval=0,file=%D/x1.txt" "bad:heap=sites,alloc_count=site,file=%D/x2.txt"
expect_rc 0
note "$ROUNDS rounds of $(wc -l <<<"$MODES") sessions in one JVM: $((SECONDS - start)) s"
[ "$(grep -c '^round ' "$T/out")" = "$ROUNDS" ] || { cat "$T/out" "$T/err" >&2; fail "not $ROUNDS rounds"; }
expect_grep "^bad refused: jvmprof: start: heap=sites can only run from start-up (give it in -agentpath): exact counts (alloc_interval=0)" "$T/out"
expect_grep "^bad refused: jvmprof: start: heap=sites,alloc_count=site can only run from start-up" "$T/out"
expect_no_grep "NOT REFUSED" "$T/out"
[ ! -e "$D/x1.txt" ] && [ ! -e "$D/x2.txt" ] || fail "a refused start left a file"
# each session said it wrote its output, the traces all their events
n=$(grep -c "^jvmprof: wrote $D/[a-z]*\.[0-9]*\.txt " "$T/err")
[ "$n" = $((5 * ROUNDS + 1)) ] || fail "$n reports written, $((5 * ROUNDS + 1)) sessions wrote one: $(head -20 "$T/err")"
[ "$(grep -c "^jvmprof: heap dump: wrote $D/dump\." "$T/err")" = "$ROUNDS" ] || fail "not $ROUNDS heap dumps written"
[ "$(grep -c "^jvmprof: trace: .* 0 events dropped$" "$T/err")" = "$ROUNDS" ] || fail "not $ROUNDS whole traces"

# a fresh JVM per mode: the same options given in -agentpath, the same workload, then Control.stop()
start=$SECONDS
while read -r mode kind opts; do
    opts=${opts//%D/$D}
    run_java "${opts//%R/fresh}" Restarts "$D" 0 "first:$kind" </dev/null
    expect_rc 0
done <<<"$MODES
exact alloc $EXACT"
note "$(($(wc -l <<<"$MODES") + 1)) fresh JVMs: $((SECONDS - start)) s"

bad=0
# heap=dump: the dumps to file= are numbered over the JVM's life (heap_dump.c: a later session's first
# dump does not replace an earlier one's), so round r's dump, the JVM's r-th, is dump.r.hprof.(r-1); a
# fresh JVM's is dump.fresh.hprof
for r in $(seq "$ROUNDS") fresh; do
    want="dump.$r.hprof" f="$D/dump.$r.hprof"
    [ "$r" = fresh ] || [ "$r" = 1 ] || want="$want.$((r - 1))"
    got=$(cd "$D" && ls -d dump."$r".hprof* | tr '\n' ' ')
    [ "$got" = "$want " ] || fail "session $r, mode dump: $want expected (the JVM's dump $r), written: $got"
    mv "$D/$want" "$f" 2>/dev/null
    "$JVMPROF" heap "$f" --top 100000 >"$f.txt" || fail "jvmprof heap $f failed"
done
for r in $(seq "$ROUNDS") fresh; do
    "$JVMPROF" trace "$D/trace.$r.trace" >"$D/trace.$r.trace.txt" || fail "jvmprof trace $D/trace.$r.trace failed"
done

# compare.py DIR ROUNDS MODE...: each session's digest against the fresh JVM's, and the counts against the
# workload's; prints a line per difference (at most 20 per mode) and exits 1 on any
cat >"$T/compare.py" <<'PY'
import re, sys

d, rounds, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
SEEN = {}     # what varies, for the log: the samples of the workload, the estimates / the objects made
FRAME = re.compile(r'^\t(\S+)\(')
WORKLOAD = {'Restarts$Obj': 40000, 'long[]': 5000}     # Restarts.alloc's objects (the class loads it causes in
                                                       # a fresh JVM allocate too)

def report(path):
    """A text report: header (its first line, the date, left out), sections, traces, rows per section."""
    with open(path) as f:
        lines = f.read().split('\n')
    head = lines[1:lines.index('--------')] if '--------' in lines else ['no -------- line']
    r = {'head': head, 'sections': [], 'traces': {}, 'rows': {}, 'threads': [], 'counts': []}
    sec = None
    serial = None
    for ln in lines:
        m = re.match(r'^([A-Z][A-Za-z ()]*?) (BEGIN|END)\b', ln)
        if m and not ln.startswith('THREAD '):         # a section, not THREAD END (id = N)
            r['sections'].append(m.group(1) + ' ' + m.group(2))
            sec = m.group(1) if m.group(2) == 'BEGIN' else None
            if sec:
                r['rows'].setdefault(sec, [])
            serial = None
            continue
        m = re.match(r'^TRACE (\d+):', ln)
        if m:
            serial = m.group(1)
            r['traces'][serial] = []
            continue
        if serial and FRAME.match(ln):
            r['traces'][serial].append(FRAME.match(ln).group(1))
            continue
        serial = None
        if ln.startswith('THREAD START'):
            r['threads'].append(re.sub(r'.*name="([^"]*)".*', r'\1', ln))
        if sec == 'COUNTS' and ln and not ln.startswith(' '):
            r['counts'].append(ln)
        elif sec and re.match(r'^ *\d+ ', ln):
            r['rows'][sec].append(ln.split())
    return r

def common(r):
    """What every text report of a mode must hold alike."""
    # the header explains native frames and THREAD KINDS only when the report has native frames, which
    # depends on where the samples landed (a fresh JVM's start runs the JVM's code more than a warm session)
    native = ('  A frame of native code', '  (library:Native method)', 'THREAD KINDS:', '  their THREAD START)')
    out = ['header: ' + h for h in r['head'] if not h.startswith(native)]
    out += ['section: ' + s for s in r['sections']]
    out += ['counts: ' + re.sub(r' -?\d+$', '', c) for c in r['counts']]
    out.append('threads named restarts-holder: %d' % r['threads'].count('restarts-holder'))
    return out

def work_methods(r, sec, low, limit):
    """Sampled modes: the Restarts methods in the samples' traces that hold Restarts.work, and those samples.
    None when the wall sampler took no sample of the workload (see MISSED)."""
    methods, n = set(), 0
    for row in r['rows'].get(sec, []):
        frames = r['traces'].get(row[4], [])
        if 'Restarts.work' in frames:
            n += int(row[3])
            methods.update(f for f in frames if f.startswith('Restarts'))
    out = ['workload method: ' + m for m in sorted(methods)]
    SEEN.setdefault(sec, []).append(n)
    return (out if n else None), ([] if low <= n <= limit else ['%d samples of the workload, expected %d..%d' % (n, low, limit)])

def sites(r, classes, within):
    """heap=sites: the workload's sites (its classes allocated under Restarts.work, by class and
    allocating method) and their objects (exact), or their objects against what it made (sampled:
    within this fraction)"""
    out, bad = [], []
    got = {}
    for row in r['rows'].get('SITES', []):
        frames = r['traces'].get(row[7], [])
        if 'Restarts.work' in frames and row[8] in classes:
            key = '%s at %s' % (row[8], frames[0])
            got[key] = got.get(key, 0) + int(row[6])
    if within:
        for key, n in classes.items():
            SEEN.setdefault(key, []).append(got.get(key + ' at Restarts.alloc', 0) / n)
    for key in sorted(got):
        out.append('site: ' + key + ('' if within else ' allocated %d' % got[key]))
    for key, n in (classes.items() if within else ()):
        key += ' at Restarts.alloc'
        if not abs(got.get(key, 0) - n) <= within * n:
            bad.append('%s: %d allocated (estimate), %d made' % (key, got.get(key, 0), n))
    return out, bad

def serials(r, session):
    """A session's trace serials start again at 300001: its first printed one (a row cut by cutoff= can
    leave out a few) is one of the first 20; a fresh JVM's, whose session saw the JVM start, may be later"""
    first = int(min(r['traces'], default='300001'))
    return [] if session == 'fresh' or first <= 300020 else ['first trace serial %d: the serials went on from an earlier session' % first]

def digest(mode, path, session):
    """(what must equal the fresh JVM's, what is wrong in itself)"""
    if mode == 'trace':
        seq, counts = [], {}
        for ln in open(path):
            f = ln.split()
            if len(f) >= 4 and f[2] in ('enter', 'exit', 'exit-throw'):
                seq.append(' '.join(f[1:4] + [x for x in f[4:] if x.startswith('depth=')]))
                counts[' '.join(f[1:4])] = counts.get(' '.join(f[1:4]), 0) + 1
        return ['%s: %d' % kv for kv in sorted(counts.items())] + ['event: ' + s for s in seq], []
    if mode == 'dump':
        with open(path) as f:
            lines = f.read().split('\n')
        out = ['format: ' + re.sub(r'^\S+: ', '', re.sub(r': \d+ instances.*', '', lines[0]))]
        for ln in lines[1:]:
            f = ln.split()
            if len(f) == 4 and re.match(r'^Restarts(\$\w+)*$', f[3]):
                out.append('instances: %s %s, %s bytes' % (f[3], f[1], f[2]))
        return out, []
    r = report(path)
    out, bad = common(r), serials(r, 'fresh' if mode == 'exact' else session)   # exact: the JVM's first
    if mode == 'cpu':
        o, b = work_methods(r, 'CPU SAMPLES', 1, 45)    # 30 ms of CPU every 1 ms: 30
        out, bad = out + (o or []), bad + b
    elif mode == 'wall':
        o, b = work_methods(r, 'WALL SAMPLES', 0, 50)   # 200 ms every 5 ms: at most 40 (a tick can miss it)
        out, bad = out + (o if o is not None else ['workload method: (not sampled)']), bad + b
    elif mode == 'times':
        for sec in ('CPU TIME (ms)', 'CPU WAIT TIME (ms)'):
            paths = {}
            for row in r['rows'].get(sec, []):
                key = ' < '.join(r['traces'].get(row[4], ['no trace ' + row[4]]))
                paths[key] = paths.get(key, 0) + int(row[3])
            out += ['%s: %s calls of %s' % (sec, n, p) for p, n in sorted(paths.items())]
        out += ['METHODS: %s calls of %s' % (row[6], row[7]) for row in r['rows'].get('METHODS (CPU time)', [])]
        out += ['CALLS COUNTED: %s calls of %s' % (row[3], row[4]) for row in r['rows'].get('CALLS COUNTED', [])]
        out.sort()
    elif mode == 'sites':
        o, b = sites(r, WORKLOAD, 0.3)
        out, bad = out + o, bad + b
    elif mode == 'exact':
        o, b = sites(r, WORKLOAD, 0)
        out, bad = out + o, bad + b
    elif mode == 'monitor':
        for sec in ('MONITOR TIME', 'MONITOR WAIT TIME'):
            for row in r['rows'].get(sec, []):
                frames = r['traces'].get(row[4], [])
                if any(f.startswith('Restarts') for f in frames):
                    out.append('%s: %s x %s at %s' % (sec, row[3], ' '.join(row[5:]), ' < '.join(frames)))
    return out, bad

def name(mode, r):
    ext = {'trace': 'trace.txt', 'dump': 'hprof.txt'}.get(mode, 'txt')
    return '%s/%s.%s.%s' % (d, mode, r, ext)

# The wall sampler's ticks come from the agent thread: on a busy machine it may get no CPU during a
# session's 200 ms. A session whose workload it did not sample is compared without the workload's methods;
# at most a tenth of them may be so.
MISSED = []

def session_ok(got, ref):
    return [g for g in got if not g.startswith('workload method: ')] == [g for g in ref if not g.startswith('workload method: ')]

failed = 0
for mode in modes:
    ref, refbad = digest(mode, name(mode, 'fresh'), 'fresh')
    if 'workload method: (not sampled)' in ref:      # the fresh JVM's wall sampler missed it: the first session's
        for r in range(1, rounds + 1):
            got = digest(mode, name(mode, r), r)[0]
            if 'workload method: (not sampled)' not in got:
                ref = [g for g in ref if not g.startswith('workload method: ')]
                ref += [g for g in got if g.startswith('workload method: ')]
                print('seen: the fresh JVM\'s wall samples missed the workload: its methods from session %d' % r)
                break
    shown = 0
    for b in refbad:
        print('fresh JVM, mode %s: %s' % (mode, b))
        failed += 1
    for r in ([1] if mode == 'exact' else range(1, rounds + 1)):
        try:
            got, bad = digest(mode, name(mode, r), r)
        except OSError as e:
            got, bad = [], ['no report: %s' % e]
        diffs = ['%s' % b for b in bad]
        if 'workload method: (not sampled)' in got and session_ok(got, ref):
            MISSED.append(r)
            continue
        if got != ref:
            extra = [g for g in got if g not in ref]
            missing = [g for g in ref if g not in got]
            diffs += ['has "%s", the fresh JVM not' % g for g in extra[:3]]
            diffs += ['lacks "%s" (the fresh JVM\'s)' % g for g in missing[:3]]
            if not extra and not missing:
                i = next(i for i, (a, b) in enumerate(zip(got, ref)) if a != b) if len(got) == len(ref) else min(len(got), len(ref))
                diffs.append('line %d: "%s", the fresh JVM "%s"' % (i + 1, got[i] if i < len(got) else 'end',
                                                                     ref[i] if i < len(ref) else 'end'))
        for x in diffs:
            failed += 1
            if shown < 20:
                print('session %s, mode %s (%s): %s' % (r, mode, name(mode, r), x))
            shown += 1
    if shown > 20:
        print('mode %s: %d differences more' % (mode, shown - 20))
if len(MISSED) > rounds // 10:
    print('mode wall: sessions %s: no sample of the workload, in more than a tenth of the sessions' % MISSED)
    failed += 1
elif MISSED:
    print('seen: wall sessions without a sample of the workload: %s' % MISSED)
for k, v in SEEN.items():
    print('seen: %s %s..%s in %d reports' % (k, round(min(v), 2), round(max(v), 2), len(v)))
sys.exit(1 if failed else 0)
PY
compare() { python3 "$T/compare.py" "$D" "$ROUNDS" "$@"; }
compare cpu wall times sites monitor trace dump exact >"$T/diffs" 2>&1 || bad=1
grep -v '^seen: ' "$T/diffs" >&2
sed -n 's/^seen: /  /p' "$T/diffs" >&2
[ "$bad" = 0 ] || fail "sessions' reports differ from a fresh JVM's (above)"

# the sessions' reports being alike, the comparison must fail where a leak would show: session 2's calls
# doubled, an earlier session's holder thread in a CPU report, session 3's trace serials going on from
# 300500, session 3's trace holding its entries and exits twice
mkdir -p "$T/leak"
cp "$D"/times.fresh.txt "$D"/cpu.fresh.txt "$D"/trace.fresh.trace.txt "$T/leak/"
for r in 1 2 3; do
    cp "$D/times.$r.txt" "$D/cpu.$r.txt" "$D/trace.$r.trace.txt" "$T/leak/"
done
awk '/^CALLS COUNTED BEGIN/ {on = 1} /^CALLS COUNTED END/ {on = 0} on && $1 ~ /^[0-9]+$/ {$4 = 2 * $4} 1' \
    "$D/times.2.txt" >"$T/leak/times.2.txt"
sed -i '0,/^THREAD START (obj=/s//THREAD START (obj=99, id = 200099, name="restarts-holder", group="main")\n&/' "$T/leak/cpu.2.txt"
cat "$D/trace.3.trace.txt" "$D/trace.3.trace.txt" >"$T/leak/trace.3.trace.txt"
sed -i 's/\b3000\([0-9][0-9]\)\b/3005\1/g' "$T/leak/cpu.3.txt"
for m in times cpu trace; do
    ! python3 "$T/compare.py" "$T/leak" 3 "$m" >"$T/leak.$m" 2>&1 || fail "a doctored $m report passed the comparison"
    note "doctored: $(head -1 "$T/leak.$m")"
done
grep -q '^session 2, mode times .*CALLS COUNTED: 2000 calls of Restarts\$Calls.inner' "$T/leak.times" || fail "doubled calls: $(cat "$T/leak.times")"
grep -q '^session 2, mode cpu .*threads named restarts-holder: 1' "$T/leak.cpu" || fail "holder thread: $(cat "$T/leak.cpu")"
grep -q '^session 3, mode cpu .*first trace serial 3005' "$T/leak.cpu" || fail "serials: $(cat "$T/leak.cpu")"
grep -q '^session 3, mode trace .*enter Restarts\$Calls.fib(I)I: 3946' "$T/leak.trace" || fail "trace twice: $(cat "$T/leak.trace")"
! grep -q '^session [13],' "$T/leak.times" && ! grep -q '^session 1,' "$T/leak.cpu" "$T/leak.trace" ||
    fail "untouched sessions differ: $(cat "$T"/leak.*)"
echo "t9012 ok"
