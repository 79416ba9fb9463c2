# pprof= and jvmprof convert --pprof, read by go tool pprof (Debian's
# golang-go): CPU samples (the total and each method's samples equal the
# HPROF report's, lines and source files there), allocation sites
# (alloc_objects per allocating method equal the SITES rows'), cpu=times
# (calls and nanoseconds), and a report converted from format=b; bad input
# to convert: one line, and no file left.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" go || fail "Go cannot be installed"
GO=$(command -v go)
export HOME="${HOME:-$T}" GOCACHE="$T/gocache" GOFLAGS=-mod=mod
pp() { "$GO" tool pprof "$@" 2>"$T/pprof.err" || fail "go tool pprof $*: $(cat "$T/pprof.err")"; }
# flat NAME < -top output: the flat value of NAME's row
flat() { awk -v n="$1" '$NF == n { v = $1; gsub(/[^0-9]/, "", v); print v }'; }

# CPU samples
run_java "cpu=samples,interval=10,file=$T/p.txt,pprof=$T/p.pb.gz" HotLoop 2
expect_rc 0
[ "$(cat "$T/out")" = done ] || fail "program output changed"
total=$(grep -o 'CPU SAMPLES BEGIN (total = [0-9]*' "$T/p.txt" | grep -o '[0-9]*$')
pp -top -sample_index=samples "$T/p.pb.gz" >"$T/top.txt"
grep -q "^Type: samples$" "$T/top.txt" || fail "pprof: $(head -5 "$T/top.txt")"
grep -q "of $total total" "$T/top.txt" || fail "pprof's total is not the report's $total: $(sed -n 4,5p "$T/top.txt")"
for m in HotLoop.heavy HotLoop.light; do
    want=$(cpu_rows "$T/p.txt" | awk -v m="$m" '$6 == m { s += $4 } END { print s + 0 }')
    got=$(flat "$m" <"$T/top.txt")
    [ "$got" = "$want" ] || fail "$m: $got samples in pprof, $want in the report"
done
pp -raw "$T/p.pb.gz" >"$T/raw.txt"
grep -Eq "HotLoop.heavy HotLoop.java:[0-9]+ s=0\(HotLoop.heavy\(J\)J\)" "$T/raw.txt" || fail "no line numbers or source file"
grep -q "^PeriodType: cpu nanoseconds$" "$T/raw.txt" && grep -q "^Period: 10000000$" "$T/raw.txt" ||
    fail "period: $(grep -i period "$T/raw.txt")"
# the same file through an independent decoder in another language: npm's pprof-format
"$ROOT/tools/deps.sh" node || fail "Node.js and npm cannot be installed"
mkdir -p "$T/npm"
(cd "$T/npm" && npm install --no-audit --no-fund --silent pprof-format >"$T/npm.log" 2>&1) ||
    fail "npm install pprof-format failed: $(tail -3 "$T/npm.log")"
node "$ROOT/tests/tools/pprof_sum.js" "$T/npm/node_modules" "$T/p.pb.gz" >"$T/js.txt" 2>"$T/e" ||
    fail "pprof-format could not read the file: $(cat "$T/e")"
grep -q "^total $total$" "$T/js.txt" || fail "pprof-format's total is not the report's $total: $(cat "$T/js.txt")"
for m in HotLoop.heavy HotLoop.light; do
    want=$(cpu_rows "$T/p.txt" | awk -v m="$m" '$6 == m { s += $4 } END { print s + 0 }')
    grep -q "^leaf $m $want$" "$T/js.txt" || fail "pprof-format: $m is not $want: $(cat "$T/js.txt")"
done
note "cpu=samples: $total samples, pprof's and the report's totals and methods equal (go tool pprof, pprof-format)"

# allocation sites, and the same report converted from format=b
run_java "heap=sites,alloc_interval=256,format=b,file=$T/s.hprof,pprof=$T/s.pb.gz" AllocSites
expect_rc 0
"$ROOT/build/jvmprof" convert "$T/s.hprof" --pprof "$T/s2.pb.gz" 2>"$T/e" || fail "convert: $(cat "$T/e")"
"$ROOT/build/jvmprof" report "$T/s.hprof" --cutoff 0 >"$T/s.txt"
for f in s.pb.gz s2.pb.gz; do
    pp -top -sample_index=alloc_objects "$T/$f" >"$T/top.txt"
    for m in AllocSites.makeFoos AllocSites.makeBars; do
        want=$(sed -n '/^SITES BEGIN/,/^SITES END/p' "$T/s.txt" | awk -v m="$m" '$7 ~ /^[0-9]+$/ { print $7, $8 }' |
               while read -r objs trace; do
                   top=$(awk -v s="TRACE $trace:" 'index($0, s) == 1 {getline; print; exit}' "$T/s.txt")
                   case "$top" in *"$m("*) echo "$objs" ;; esac
               done | awk '{ s += $1 } END { print s + 0 }')
        got=$(flat "$m" <"$T/top.txt")
        # the converted file is made from the binary report itself: exact; the agent's own rounds each
        # site's estimate where the binary format stores whole numbers, so it may differ by under 0.1%
        if [ "$f" = s2.pb.gz ]; then
            [ -n "$got" ] && [ "$got" = "$want" ] || fail "$f: $m allocates $got objects in pprof, $want in the report"
        else
            awk -v a="${got:-0}" -v b="$want" 'BEGIN { d = a - b; exit !(b > 0 && d * d <= (b / 1000) * (b / 1000)) }' ||
                fail "$f: $m allocates $got objects in pprof, $want in the report"
        fi
    done
done
note "heap=sites: alloc_objects per method equal the SITES rows' (convert: exactly; pprof=: within 0.1%)"

# wall samples with thread=y: the thread and its state as labels
run_java "wall=10,thread=y,file=$T/w.txt,pprof=$T/w.pb.gz" SleepCompute 2
expect_rc 0
pp -tags "$T/w.pb.gz" >"$T/tags.txt"
grep -Eq "^ *[0-9.]+(ms|s) \( *[0-9.]+%\): main$" "$T/tags.txt" || fail "no thread label main: $(cat "$T/tags.txt")"
grep -Eq "^ *[0-9.]+(ms|s) \( *[0-9.]+%\): sleeping$" "$T/tags.txt" || fail "no thread state label sleeping: $(cat "$T/tags.txt")"
pp -top -sample_index=wall "$T/w.pb.gz" | grep -q "^Type: wall$" || fail "no wall sample type"

# cpu=times: calls and nanoseconds
run_java "cpu=times,include=CallCounts,file=$T/t.txt,pprof=$T/t.pb.gz" CallCounts
expect_rc 0
pp -top -sample_index=calls "$T/t.pb.gz" >"$T/top.txt"
grep -q "^Type: calls$" "$T/top.txt" || fail "cpu=times: $(head -3 "$T/top.txt")"
pp -top -sample_index=cpu "$T/t.pb.gz" >/dev/null

# collapsed stacks converted: pprof's total and methods are the file's
run_java "cpu=samples,interval=10,file=$T/c.txt,collapsed=$T/c.collapsed" HotLoop 1
expect_rc 0
"$ROOT/build/jvmprof" convert "$T/c.collapsed" --pprof "$T/c.pb.gz" 2>"$T/e" || fail "convert collapsed: $(cat "$T/e")"
pp -top -sample_index=samples "$T/c.pb.gz" >"$T/top.txt"
sum=$(awk '{ s += $NF } END { print s }' "$T/c.collapsed")
grep -q "of $sum total" "$T/top.txt" || fail "collapsed: pprof's total is not the file's $sum: $(sed -n 3,4p "$T/top.txt")"
heavy=$(awk '{ n = $NF; line = $0; sub(/ [0-9]+$/, "", line) } line ~ /HotLoop.heavy_\[[a-z0-9]\]$/ { s += n }
    END { print s + 0 }' "$T/c.collapsed")
[ "$(flat HotLoop.heavy <"$T/top.txt")" = "$heavy" ] || fail "collapsed: HotLoop.heavy is not $heavy in pprof"

# bad input to convert: one line, status 1, no file left
printf 'not a profile' >"$T/bad.hprof"
"$ROOT/build/jvmprof" convert "$T/bad.hprof" --pprof "$T/bad.pb.gz" 2>"$T/e" && fail "convert took a bad file"
[ "$(wc -l <"$T/e")" = 1 ] || fail "convert: not one line: $(cat "$T/e")"
[ ! -e "$T/bad.pb.gz" ] || fail "convert left a file"
"$ROOT/build/jvmprof" convert "$T/s.hprof" 2>"$T/e"; [ $? = 2 ] || fail "convert without --pprof: not a usage error"
