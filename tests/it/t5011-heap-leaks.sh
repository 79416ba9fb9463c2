# `jvmprof heap --leaks` on a jcmd dump of LeakyCache, whose leak is known by hand: the static
# HashMap `cache` holds 20000 Entry objects under keys 1000..20999, each Entry with its byte[1000].
# With compressed references (the default), headers of 12 bytes, references of 4:
#   Entry (one reference) 12 + 4 = 16; its byte[1000] 16 + 1000 = 1016: 1032 an Entry retains
#   HashMap$Node (int + 3 references) 12 + 16 = 28 -> 32; Integer 12 + 4 = 16: a node retains
#                32 + 16 + 1032 = 1080, the 20000 nodes 21600000
#   the table HashMap$Node[32768] (20000 entries grow it 16 -> 32768; keys below 32768 hash to distinct
#                slots, so the table dominates every node) 16 + 4 x 32768 = 131088: retains 21731088
#   the HashMap 12 + 4 references + 4 ints = 44 -> 48: retains 21731136
# So the suspect is the class LeakyCache (its static holds the map: 98% of a heap of ~22 MB), the
# dominator tree leads from it through the HashMap to the table, the accumulation point: 20000 children,
# all HashMap$Node, 21600000 bytes. The classes HashMap$Node (20000 under the table), LeakyCache$Entry
# (20000 x 1032 = 20640000, 2 levels below the table) are class suspects. The path from a GC root runs
# through the static `cache` and the map's `table`. A dump of Hello (a JVM holding nothing of its own)
# has no suspect above 75%, where LeakyCache's has 4. Headless Chromium loads the --html page: no
# script error, the icicle holds the class LeakyCache, clicking the table zooms it to the full width.
# Also one-line errors for bad options.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" chromium >&2 && command -v chromium >/dev/null 2>&1 ||
    fail "this test needs Chromium (Debian package chromium) and could not install it: run tools/deps.sh chromium as root"
cd "$T"
JCMD="$JAVA_HOME/bin/jcmd"
"$JAVA" -XX:+UseSerialGC -cp "$CLASSES" LeakyCache "$T/stop" >"$T/out" 2>"$T/err" &
PID=$!
trap 'touch "$T/stop"; kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 1 300); do
    grep -q '^ready$' "$T/out" 2>/dev/null && break
    kill -0 $PID 2>/dev/null || { cat "$T/err" >&2; fail "LeakyCache exited early"; }
    sleep 0.1
done
grep -q '^ready$' "$T/out" || fail "LeakyCache did not get ready"
"$JCMD" $PID GC.heap_dump "$T/leak.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd GC.heap_dump failed"; }
touch "$T/stop"
wait $PID || fail "LeakyCache failed"
grep -qx 20000 "$T/out" || fail "LeakyCache did not hold 20000 entries: $(cat "$T/out")"
want() { [ "$1" = "$2" ] || fail "$3: got '$1', expected $2"; }

# --tsv: the rows by kind
start=$SECONDS
"$JVMPROF" heap "$T/leak.hprof" --leaks --tsv --top 0 >"$T/l.tsv" 2>"$T/e" || { cat "$T/e" >&2; fail "--leaks --tsv failed"; }
note "--leaks: $((SECONDS - start)) s for $(stat -c %s "$T/leak.hprof") bytes"
[ ! -s "$T/e" ] || fail "a short run wrote to stderr: $(cat "$T/e")"
want "$(head -1 "$T/l.tsv")" "$(printf 'rule\tevery-reference')" "the rule row"
heap=$(awk -F'\t' '$1 == "heap" { print $2 }' "$T/l.tsv")
want "$(awk -F'\t' '$1 == "heap" { print $3 }' "$T/l.tsv")" 10 "the default threshold"
[ "$(awk -F'\t' '$1 == "suspect" && $2 == "object"' "$T/l.tsv" | wc -l)" = 1 ] ||
    { cat "$T/l.tsv" >&2; fail "expected one object suspect"; }
s=$(awk -F'\t' '$1 == "suspect" && $2 == "object"' "$T/l.tsv")
field() { echo "$s" | cut -d"$(printf '\t')" -f"$1"; }
want "$(field 3)" "class LeakyCache" "the suspect"
[ "$(field 5)" -ge 21731136 ] || fail "class LeakyCache retains $(field 5), less than its map's 21731136"
awk -v r="$(field 5)" -v h="$heap" 'BEGIN { exit !(r * 100 > 90 * h) }' || fail "the suspect holds $(field 5) of $heap bytes, expected > 90%"
want "$(field 6)" 'java.util.HashMap$Node[]' "the accumulation point's class"
want "$(field 8)" 2 "the accumulation point's levels below the suspect"
want "$(field 9)" 21731088 "the accumulation point's retained size"
want "$(field 10)" 20000 "the accumulation point's children"
want "$(field 11)" 21600000 "its children's retained size"
want "$(field 12)" 'java.util.HashMap$Node' "its children's class"
want "$(field 13)" 20000 "its children of that class"
want "$(field 14)" 21600000 "their retained size"
# the chain down the dominator tree: the class, the map, the table
want "$(awk -F'\t' '$1 == "chain" { printf "%s%s|%s", sep, $3, $5; sep = ";" }' "$T/l.tsv")" \
    "class LeakyCache|$(field 5);java.util.HashMap|21731136;java.util.HashMap\$Node[]|21731088" "the dominator chain"
# class suspects: HashMap$Node held by the table; Entry 2 levels below it; none of a class one object holds
node=$(awk -F'\t' '$1 == "suspect" && $2 == "class" && $3 == "java.util.HashMap$Node" { print $6 "|" $7 "|" $8 "|" $9 "|" $10 }' "$T/l.tsv")
want "$node" "java.util.HashMap\$Node[]|$(field 7)|1|20000|21600000" "the class suspect HashMap\$Node"
entry=$(awk -F'\t' '$1 == "suspect" && $2 == "class" && $3 == "LeakyCache$Entry" { print $4 "|" $5 "|" $6 "|" $8 "|" $9 "|" $10 }' "$T/l.tsv")
want "$entry" "20000|20640000|java.util.HashMap\$Node[]|2|20000|20640000" "the class suspect LeakyCache\$Entry"
for c in java.lang.Class java.util.HashMap 'java.util.HashMap$Node[]'; do
    awk -F'\t' -v c="$c" '$1 == "suspect" && $3 == c { bad = 1 } END { exit bad }' "$T/l.tsv" ||
        fail "$c is a class suspect, though one instance holds its retained size"
done
# the path from a GC root: through the static field and the map's table
awk -F'\t' '$1 == "path" && $2 == 1 { print $3 }' "$T/l.tsv" >"$T/path1"
expect_grep '^GC root: ' "$T/path1"
expect_grep '^  static LeakyCache.cache  0x[0-9a-f]* java.util.HashMap$' "$T/path1"
expect_grep '^  .table  0x[0-9a-f]* java.util.HashMap\$Node\[\]$' "$T/path1"
want "$(tail -1 "$T/path1" | sed 's/^  .table  \(0x[0-9a-f]*\) .*/\1/')" "$(field 7)" "the path's last object (the table)"
# the histogram: every class, sorted by retained size
[ "$(awk -F'\t' '$1 == "class" && $2 == "LeakyCache$Entry" { print $3 "|" $4 "|" $5 }' "$T/l.tsv")" = "20000|320000|20640000" ] ||
    fail "the class row of LeakyCache\$Entry"
awk -F'\t' '$1 == "class" { if (n++ && $5 > prev) bad = 1; prev = $5 } END { exit bad }' "$T/l.tsv" ||
    fail "class rows not sorted by retained size"

# the text report
"$JVMPROF" heap "$T/leak.hprof" --leaks --top 5 >"$T/l.txt" || fail "--leaks failed"
expect_grep "^suspect 1: class LeakyCache 0x[0-9a-f]* retains [0-9]* bytes, 9[0-9].[0-9][0-9]% of the heap$" "$T/l.txt"
expect_grep "^  dominator tree down to it: class LeakyCache 0x[0-9a-f]* > java.util.HashMap 0x[0-9a-f]* > java.util.HashMap\$Node\[\] 0x[0-9a-f]*$" "$T/l.txt"
expect_grep "^  accumulation point: java.util.HashMap\$Node\[\] 0x[0-9a-f]* (below the suspect), retains 21731088 bytes: 20000 objects it dominates retain 21600000 bytes, 20000 of them java.util.HashMap\$Node (21600000 bytes, " "$T/l.txt"
expect_grep "^    GC root: " "$T/l.txt"
expect_grep "^suspect [2-9]: 20000 instances of LeakyCache\$Entry retain 20640000 bytes" "$T/l.txt"
[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+%  ' "$T/l.txt")" = 5 ] || fail "--top 5: not 5 class rows"

# a high threshold: LeakyCache's 4 suspects at 75%, none in a dump of Hello
"$JVMPROF" heap "$T/leak.hprof" --leaks --threshold 75 --tsv >"$T/l75.tsv" || fail "--threshold 75 failed"
want "$(grep -c '^suspect' "$T/l75.tsv")" 4 "LeakyCache's suspects above 75%"
run_java "heap=dump,dumper=jvmti,file=$T/hello.hprof" Hello
expect_rc 0
"$JVMPROF" heap "$T/hello.hprof" --leaks --threshold 75 >"$T/h.txt" || fail "--leaks on Hello's dump failed"
expect_grep "^no suspect: no object, and no class, retains more than 75% of the heap$" "$T/h.txt"
expect_no_grep "^suspect" "$T/h.txt"
note "Hello at 10%: $("$JVMPROF" heap "$T/hello.hprof" --leaks | grep -c '^suspect') suspects (the JVM's own tables)"

# --ignore-weak: the same suspect (no weak reference on its way)
"$JVMPROF" heap "$T/leak.hprof" --leaks --ignore-weak --tsv >"$T/lw.tsv" || fail "--ignore-weak failed"
want "$(head -1 "$T/lw.tsv")" "$(printf 'rule\tignore-weak')" "the ignore-weak rule row"
want "$(awk -F'\t' '$1 == "suspect" && $2 == "object" { print $3 "|" $6 "|" $9 }' "$T/lw.tsv")" \
    "class LeakyCache|java.util.HashMap\$Node[]|21731088" "--ignore-weak: the suspect"

# the page: self-contained, loaded by headless Chromium
"$JVMPROF" heap "$T/leak.hprof" --leaks --html -o "$T/leaks.html" || fail "--leaks --html failed"
ART="$ROOT/build/test-artefacts"
mkdir -p "$ART" && cp "$T/leaks.html" "$ART/leaks.html"
expect_no_grep 'http://' "$T/leaks.html"
expect_no_grep 'https://' "$T/leaks.html"
expect_no_grep ' src=' "$T/leaks.html"
size=$(stat -c %s "$T/leaks.html")
[ "$size" -lt 200000 ] || fail "the page is $size bytes for a dump of 20000 leaked objects: the tree is not pruned"
chrome() {
    timeout -k 10 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome-profile" \
        --enable-logging=stderr --v=0 --virtual-time-budget=5000 "$@" 2>>"$T/chromium.err"
}
# nodes FILE: the drawn nodes of a dumped DOM as "classes|x|w|label", one a line
nodes() {
    grep -o '<div class="node[^"]*" data-i="[0-9]*" data-x="[^"]*" data-w="[^"]*"[^>]*>[^<]*</div>' "$1" |
        sed -E 's/^<div class="([^"]*)" data-i="[0-9]*" data-x="([^"]*)" data-w="([^"]*)"[^>]*>([^<]*)<\/div>$/\1|\2|\3|\4/'
}
chrome --dump-dom "file://$T/leaks.html" >"$T/page.dom" || { tail -5 "$T/chromium.err" >&2; fail "chromium --dump-dom failed"; }
expect_grep '<div id="errors"></div>' "$T/page.dom"
! grep -E 'CONSOLE.*(Uncaught|Error)' "$T/chromium.err" || fail "the page logged errors to the console"
nodes "$T/page.dom" >"$T/nodes"
[ "$(awk -F'|' '$4 == "class LeakyCache"' "$T/nodes" | wc -l)" = 1 ] || { cat "$T/nodes" >&2; fail "no node class LeakyCache in the icicle"; }
w=$(awk -F'|' '$4 == "class LeakyCache" { print $3 }' "$T/nodes")
awk -v w="$w" 'BEGIN { exit !(w > 90) }' || fail "class LeakyCache drawn $w% wide, expected > 90%"
grep -q '|(20000 smaller objects)$' "$T/nodes" || { cat "$T/nodes" >&2; fail "the table's 20000 nodes not drawn as one"; }
expect_grep 'Suspect 1: <b>class LeakyCache</b>' "$T/page.dom"
expect_grep '<table id="classes">' "$T/page.dom"
# the path, one step a line, and no repeat of it for the class suspects that lead to the same table
expect_grep '^  static LeakyCache.cache  0x[0-9a-f]* java.util.HashMap$' "$T/page.dom"
expect_grep '^  .table  0x[0-9a-f]* java.util.HashMap\$Node\[\]$' "$T/page.dom"
[ "$(grep -c 'Path from a GC root: as suspect 1' "$T/page.dom")" = 3 ] || fail "the class suspects' paths are not said to be suspect 1's"
# clicking the table zooms it: full width, its ancestors above it, the status line describing it
chrome --dump-dom "file://$T/leaks.html#click=java.util.HashMap%24Node%5B%5D" >"$T/zoom.dom" || fail "chromium --dump-dom (zoom) failed"
nodes "$T/zoom.dom" >"$T/znodes"
want "$(awk -F'|' '$4 == "java.util.HashMap$Node[]" { print $1 "|" $2 "|" $3 }' "$T/znodes")" "node zoomed suspect-node|0.000|100.000" "the clicked table"
want "$(awk -F'|' '$4 == "class LeakyCache" { print $1 }' "$T/znodes")" "node ancestor suspect-node" "the suspect above the zoomed table"
expect_grep '<div id="status">java.util.HashMap\$Node\[\]  0x[0-9a-f]*  shallow 131088 bytes, retained 21731088 bytes, ' "$T/zoom.dom"
expect_grep '<div id="errors"></div>' "$T/zoom.dom"
# the first suspect's "show in the tree" button zooms to it
chrome --dump-dom "file://$T/leaks.html#show=1" >"$T/show.dom" || fail "chromium --dump-dom (show) failed"
want "$(nodes "$T/show.dom" | awk -F'|' '$4 == "class LeakyCache" { print $1 "|" $3 }')" "node zoomed suspect-node|100.000" "the suspect shown"
expect_grep '<div id="errors"></div>' "$T/show.dom"

# errors: one line each, exit code 2
for bad in "--threshold abc" "--threshold 0" "--threshold 101" "--threshold"; do
    RC=0; "$JVMPROF" heap "$T/leak.hprof" --leaks $bad 2>"$T/e" >/dev/null || RC=$?
    [ "$RC" = 2 ] && [ "$(wc -l <"$T/e")" = 1 ] && grep -q "^jvmprof: heap: .*--threshold" "$T/e" || fail "$bad: rc $RC: $(cat "$T/e")"
done
RC=0; "$JVMPROF" heap "$T/leak.hprof" --threshold 5 2>"$T/e" || RC=$?
[ "$RC" = 2 ] && grep -q "^jvmprof: heap: --threshold goes with --leaks" "$T/e" || fail "--threshold without --leaks: $RC $(cat "$T/e")"
RC=0; "$JVMPROF" heap "$T/leak.hprof" --leaks --html --tsv 2>"$T/e" || RC=$?
[ "$RC" = 2 ] || fail "--html --tsv accepted"
RC=0; "$JVMPROF" heap "$T/leak.hprof" --leaks --retained 2>"$T/e" || RC=$?
[ "$RC" = 2 ] && grep -q "^jvmprof: heap: --leaks .* no --retained" "$T/e" || fail "--leaks --retained: $RC $(cat "$T/e")"
head -c 5000 "$T/leak.hprof" >"$T/cut.hprof"
RC=0; "$JVMPROF" heap "$T/cut.hprof" --leaks 2>"$T/e" || RC=$?
[ "$RC" = 1 ] && [ "$(wc -l <"$T/e")" = 1 ] || fail "a cut dump: rc $RC: $(cat "$T/e")"
exit 0
