# Native frames (C/C++ of real libraries of this machine, the kernel) and the
# JVM's own threads through every output, read back by real readers. No JVM:
# build/tools/native_report writes a binary report of a model whose samples
# carry frames of libc's write and libz's deflate (found with dladdr, with
# their libraries' paths and GNU build ids), two kernel frames above them,
# Java frames below, and a GC and a compiler thread of the JVM's own in
# libjvm. jvmprof report prints them as format=a would, with THREAD KINDS;
# jvmprof convert turns the file into pprof (go tool pprof -raw: a mapping per
# library with its path and build id, the native functions by symbol), JFR
# (the JDK's jfr: frames of type Native in jdk.ExecutionSample, wall samples
# in native code as jdk.NativeMethodSample), collapsed stacks (bare symbols,
# _[k] for the kernel; read back and converted again, the same) and the flame
# graph (C/C++ and kernel kinds, the libraries for the tooltip).
. "$(dirname "$0")/lib.sh"
TOOL="$ROOT/build/tools/native_report"
[ -x "$TOOL" ] || fail "build/tools/native_report is missing (make build/tools/native_report)"
"$TOOL" "$T/cpu.hprof" >"$T/libs.txt" || fail "native_report failed"
"$TOOL" "$T/wall.hprof" wall >/dev/null || fail "native_report wall failed"
read -r _ LIBC LIBC_ID <<EOF
$(grep '^libc ' "$T/libs.txt")
EOF
read -r _ LIBZ LIBZ_ID <<EOF
$(grep '^libz ' "$T/libs.txt")
EOF
read -r _ WRITE DEFLATE <<EOF
$(grep '^symbols ' "$T/libs.txt")
EOF
[ -f "$LIBC" ] && [ -f "$LIBZ" ] || fail "not files of this machine: '$LIBC' '$LIBZ'"
note "libc $LIBC ($LIBC_ID) $WRITE; libz $LIBZ ($LIBZ_ID) $DEFLATE"
LIBC_NAME=$(basename "$LIBC") LIBZ_NAME=$(basename "$LIBZ")
# the build ids the files themselves carry (readelf, when binutils is there)
if command -v readelf >/dev/null 2>&1; then
    for f in "$LIBC:$LIBC_ID" "$LIBZ:$LIBZ_ID"; do
        id=$(readelf -n "$(readlink -f "${f%%:*}")" | sed -n 's/.*Build ID: *//p' | head -1)
        [ "$id" = "${f##*:}" ] || fail "build id of ${f%%:*}: readelf says '$id', the tool '${f##*:}'"
    done
fi

# 0. HPROF readers that do not know jvmprof's NATIVE record skip it by its length (the tests' independent parser)
python3 "$ROOT/tests/golden/hprof_dump.py" "$T/cpu.hprof" >"$T/dump.txt" 2>&1 || fail "hprof_dump.py: $(tail -2 "$T/dump.txt")"
expect_grep "libz.so.1.deflate (libz.so.1:native method)" "$T/dump.txt"

# 1. the report, as format=a would print it
"$JVMPROF" report "$T/cpu.hprof" >"$T/r.txt" 2>"$T/e" || fail "report: $(cat "$T/e")"
expect_grep "^	kernel.vfs_write(vmlinux:Native method)$" "$T/r.txt"
expect_grep "^	$LIBC_NAME.$WRITE($LIBC_NAME:Native method)$" "$T/r.txt"
expect_grep "^	$LIBZ_NAME.$DEFLATE($LIBZ_NAME:Native method)$" "$T/r.txt"
expect_grep "^	libjvm.so.libjvm.so+0x5a3f10(libjvm.so:Native method)$" "$T/r.txt"
expect_grep 'name="G1 Conc#0", group="jvm", kind=gc)$' "$T/r.txt"
sed -n '/^THREAD KINDS BEGIN/,/^THREAD KINDS END/p' "$T/r.txt" >"$T/kinds.txt"
expect_grep "^THREAD KINDS BEGIN (total = 100)" "$T/kinds.txt"
for k in "java       70.0% (70)" "gc         20.0% (20)" "compiler   10.0% (10)"; do
    expect_grep "^$k$" "$T/kinds.txt"
done

# 2. pprof, read by go tool pprof
"$ROOT/tools/deps.sh" go || fail "Go cannot be installed"
GO=$(command -v go)
export HOME="${HOME:-$T}" GOCACHE="$T/gocache" GOFLAGS=-mod=mod
"$JVMPROF" convert "$T/cpu.hprof" --pprof "$T/p.pb.gz" 2>"$T/e" || fail "convert --pprof: $(cat "$T/e")"
"$GO" tool pprof -raw "$T/p.pb.gz" >"$T/raw.txt" 2>"$T/e" || fail "go tool pprof -raw: $(cat "$T/e")"
sed -n '/^Mappings/,$p' "$T/raw.txt" >"$T/maps.txt"
expect_grep " $LIBC $LIBC_ID \[FN\]$" "$T/maps.txt"
expect_grep " $LIBZ $LIBZ_ID \[FN\]$" "$T/maps.txt"
expect_grep " \[kernel.kallsyms\]  *\[FN\]$" "$T/maps.txt"
expect_grep "thread kind:\[gc\]" "$T/raw.txt"
# each native function in its library's mapping: "N: 0x0 M=<id> symbol path:0"
mapping_of() { awk -v f="$1" '$1 ~ /^[0-9]+:$/ && $2 ~ /^0x/ { if ($3 ~ /^M=/ && $4 == f) { sub(/M=/, "", $3); print $3; exit } }' "$T/raw.txt"; }
mapping_file() { awk -v m="$1:" '/^Mappings/ { on = 1; next } on && $1 == m { print $3 }' "$T/raw.txt"; }
for f in "$WRITE|$LIBC" "$DEFLATE|$LIBZ" "vfs_write|[kernel.kallsyms]" "G1ConcurrentMark::mark_from_roots|libjvm.so"; do
    sym=${f%%|*} want=${f#*|}
    m=$(mapping_of "$sym")
    [ -n "$m" ] || fail "pprof: no location of $sym in a mapping: $(grep -F "$sym" "$T/raw.txt")"
    [ "$(mapping_file "$m")" = "$want" ] || fail "pprof: $sym in mapping $m, $(mapping_file "$m"), not $want"
done
expect_grep " $WRITE $LIBC:0 " "$T/raw.txt"
"$GO" tool pprof -traces "$T/p.pb.gz" >"$T/traces.txt" 2>"$T/e" || fail "go tool pprof -traces: $(cat "$T/e")"
expect_grep " vfs_write$" "$T/traces.txt"
expect_grep "^ *libjvm.so+0x5a3f10$" "$T/traces.txt"
note "pprof: $(grep -c . "$T/maps.txt") lines of mappings, $WRITE in $LIBC"

# 3. JFR, read by the jfr tools of JDK 17 and 25
"$JVMPROF" convert "$T/cpu.hprof" --jfr "$T/cpu.jfr" 2>"$T/e" || fail "convert --jfr: $(cat "$T/e")"
"$JVMPROF" convert "$T/wall.hprof" --jfr "$T/wall.jfr" 2>"$T/e" || fail "convert --jfr (wall): $(cat "$T/e")"
for jfr in /usr/lib/jvm/java-17-openjdk-amd64/bin/jfr /usr/lib/jvm/temurin-25-jdk-amd64/bin/jfr; do
    [ -x "$jfr" ] || { note "no $jfr: skipped"; continue; }
    "$jfr" print --events jdk.ExecutionSample,jdk.NativeMethodSample "$T/cpu.jfr" >"$T/p.txt" 2>"$T/e" ||
        fail "$jfr print: $(cat "$T/e")"
    expect_grep "^    kernel.vfs_write() line: 0$" "$T/p.txt"
    expect_grep "^    $LIBC_NAME.$WRITE() line: 0$" "$T/p.txt"
    expect_grep "^    libjvm.so.G1ConcurrentMark::mark_from_roots() line: 0$" "$T/p.txt"
    expect_grep 'sampledThread = "G1 Conc#0" (osThreadId' "$T/p.txt"
    n=$(grep -c '^jdk.ExecutionSample' "$T/p.txt")
    [ "$n" = 100 ] || fail "$jfr: $n execution samples, not 100"
    "$jfr" print --json --events jdk.ExecutionSample "$T/cpu.jfr" >"$T/p.json" 2>"$T/e" || fail "$jfr --json: $(cat "$T/e")"
    python3 - "$T/p.json" "$WRITE" "$LIBC" <<'PY' || fail "$jfr: the native frames' types"
import json, sys
events = json.load(open(sys.argv[1]))["recording"]["events"]
kinds = {}
for e in events:
    for f in e["values"]["stackTrace"]["frames"]:
        m = f["method"]
        kinds[(m["type"]["name"], m["name"])] = (f["type"], m["type"]["package"]["name"])
ok = kinds.get(("libc.so.6", sys.argv[2]), (None, None)) == ("Native", sys.argv[3]) or \
     any(k[1] == sys.argv[2] and v == ("Native", sys.argv[3]) for k, v in kinds.items())
ok = ok and kinds[("kernel", "vfs_write")][0] == "Native" and kinds[("demo.NativeApp", "run")][0] != "Native"
sys.exit(0 if ok else 1)
PY
    "$jfr" print --events jdk.ExecutionSample,jdk.NativeMethodSample "$T/wall.jfr" >"$T/w.txt" 2>"$T/e" ||
        fail "$jfr print (wall): $(cat "$T/e")"
    nn=$(grep -c '^jdk.NativeMethodSample' "$T/w.txt") ne=$(grep -c '^jdk.ExecutionSample' "$T/w.txt")
    [ "$nn" = 70 ] && [ "$ne" = 30 ] || fail "$jfr: wall: $nn native method samples (want 70), $ne execution (30)"
    awk '/^jdk.NativeMethodSample/ { on = 1 } /^}/ { on = 0 } on' "$T/w.txt" >"$T/native.txt"
    expect_grep "^    $LIBZ_NAME.$DEFLATE() line: 0$" "$T/native.txt"
    expect_grep 'state = "STATE_IN_NATIVE"' "$T/native.txt"
    note "$jfr: 100 samples with native frames; wall: $nn in native code as jdk.NativeMethodSample"
done

# 4. collapsed stacks: bare symbols, kernel frames _[k]; read back and written again, the same
"$JVMPROF" convert "$T/cpu.hprof" --collapsed "$T/c.txt" 2>"$T/e" || fail "convert --collapsed: $(cat "$T/e")"
expect_grep "^\[main\];demo.NativeApp.main;demo.NativeApp.run;java.io.FileOutputStream.writeBytes_\[n\];$WRITE;ksys_write_\[k\];vfs_write_\[k\] 50$" "$T/c.txt"
expect_grep "^\[G1 Conc#0\];Thread::call_run;libjvm.so+0x5a3f10;G1ConcurrentMark::mark_from_roots 20$" "$T/c.txt"
"$JVMPROF" convert "$T/c.txt" --collapsed "$T/c2.txt" 2>"$T/e" || fail "convert collapsed: $(cat "$T/e")"
cmp -s "$T/c.txt" "$T/c2.txt" || fail "collapsed stacks read back differ: $(diff "$T/c.txt" "$T/c2.txt" | head -5)"
# the collapsed stacks as pprof: the kernel frames in the kernel's mapping, libjvm.so's unnamed frame in libjvm.so's
"$JVMPROF" convert "$T/c.txt" --pprof "$T/c.pb.gz" 2>"$T/e" || fail "convert collapsed --pprof: $(cat "$T/e")"
"$GO" tool pprof -raw "$T/c.pb.gz" >"$T/raw.txt" 2>"$T/e" || fail "go tool pprof -raw (collapsed): $(cat "$T/e")"
[ "$(mapping_file "$(mapping_of vfs_write)")" = "[kernel.kallsyms]" ] || fail "collapsed -> pprof: vfs_write not in the kernel"
[ "$(mapping_file "$(mapping_of libjvm.so+0x5a3f10)")" = "libjvm.so" ] || fail "collapsed -> pprof: the unnamed frame"

# 5. the flame graph: frames of kind C/C++ (5) and kernel (6), their libraries for the tooltip
"$JVMPROF" convert "$T/cpu.hprof" --flame "$T/f.html" 2>"$T/e" || fail "convert --flame: $(cat "$T/e")"
python3 - "$T/f.html" "$WRITE" "$LIBC_NAME" <<'PY' || fail "the flame graph's native frames"
import json, re, sys
page = open(sys.argv[1]).read()
d = json.loads(re.search(r"var D = (\{.*?\});\n</script>", page, re.S).group(1))
names, nodes, libs = d["names"], d["nodes"], d.get("libs", {})
kind = {}
for i in range(0, len(nodes), 3):
    kind.setdefault(names[nodes[i] // 16], set()).add(nodes[i] % 16)
w = names.index(sys.argv[2])
assert kind[sys.argv[2]] == {5}, kind[sys.argv[2]]
assert kind["vfs_write"] == {6} and kind["demo.NativeApp.run"] == {0}, kind
assert libs[str(w)] == sys.argv[3] and libs[str(names.index("vfs_write"))] == "kernel", libs
PY
# jvmprof diff of the report over its own collapsed stacks: every native frame matched (by name and kind),
# so every frame's share is the same before and after
"$JVMPROF" diff "$T/c.txt" "$T/cpu.hprof" -o "$T/d.html" 2>"$T/e" || fail "diff: $(cat "$T/e")"
python3 - "$T/d.html" <<'PY' || fail "the diff did not match the native frames"
import json, re, sys
page = open(sys.argv[1]).read()
d = json.loads(re.search(r"var D = (\{.*?\});\n</script>", page, re.S).group(1))
totals = d["nodes"][1::3]
assert len(totals) == len(d["before"]) and totals == d["before"], (totals, d["before"])
assert any(k % 16 == 6 for k in d["nodes"][0::3])
PY
note "collapsed, flame graph: native frames with their kinds and libraries"

# 6. the page in a browser, when Chromium is there (t6101 installs it): clicking a native frame names its
#    library in the status line, and the legend has the C/C++ and kernel kinds
if command -v chromium >/dev/null 2>&1; then
    timeout -k 10 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome-profile" \
        --virtual-time-budget=5000 --dump-dom "file://$T/f.html#click=$WRITE" >"$T/click.dom" 2>"$T/chromium.err" ||
        fail "chromium --dump-dom: $(tail -3 "$T/chromium.err")"
    expect_grep "<div id=\"status\">$WRITE in $LIBC_NAME  (C/C++)  50 samples, 50.00%</div>" "$T/click.dom"
    expect_grep ">C/C++<" "$T/click.dom"
    expect_grep ">kernel<" "$T/click.dom"
    note "Chromium: $WRITE's status line names $LIBC_NAME"
else
    note "no Chromium: the page is not opened in a browser (tools/deps.sh chromium installs it)"
fi
