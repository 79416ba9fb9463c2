# `jvmprof flame` turns collapsed stacks into one self-contained HTML page;
# headless Chromium loads it and the page's test hook (#search=TEXT types
# into the search box, #click=NAME clicks a frame) drives its real search and
# zoom handlers. The dumped DOM must show the frames with the right widths,
# the search highlighting exactly the matching frames with the right percent,
# and a zoomed frame spanning the width; a screenshot must show the colours.
# Also: an agent-written HPROF binary file becomes a flame graph and
# collapsed stacks. Chromium is installed (tools/deps.sh chromium) if missing.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" chromium >&2 && command -v chromium >/dev/null 2>&1 ||
    fail "this test needs Chromium (Debian package chromium) and could not install it: run tools/deps.sh chromium as root"
ART="$ROOT/build/test-artefacts"
mkdir -p "$ART" || fail "cannot create $ART"

cat >"$T/app.collapsed" <<'EOF'
main;work;compute_[j] 100
main;work;compute_[j];helper_[i] 20
main;work;io_[n] 50
main;idle_[0] 30
EOF
"$JVMPROF" flame "$T/app.collapsed" -o "$T/flame.html" --title 'Test <profile> & co' || fail "jvmprof flame failed"
cp "$T/flame.html" "$ART/flame.html"
expect_grep '<h1 id="title">Test &lt;profile&gt; &amp; co</h1>' "$T/flame.html"
expect_no_grep 'http://' "$T/flame.html"
expect_no_grep 'https://' "$T/flame.html"
expect_no_grep ' src=' "$T/flame.html"

# chrome ARGS... URL: one headless run with a fresh profile, at most 60 s
chrome() {
    timeout -k 10 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome-profile" \
        --virtual-time-budget=5000 "$@" 2>>"$T/chromium.err"
}
# frames FILE: the drawn frames of a dumped DOM as "classes|x|w|name", one a line
frames() {
    grep -o '<div class="frame[^"]*" data-i="[0-9]*" data-x="[^"]*" data-w="[^"]*"[^>]*>[^<]*</div>' "$1" |
        sed -E 's/^<div class="([^"]*)" data-i="[0-9]*" data-x="([^"]*)" data-w="([^"]*)"[^>]*>([^<]*)<\/div>$/\1|\2|\3|\4/'
}
# frame FILE NAME: the "classes|x|w|name" line of the frame named NAME
frame() { frames "$1" | awk -F'|' -v n="$2" '$4 == n'; }
expect_frame() {  # FILE NAME X W [CLASS]
    local f
    f=$(frame "$1" "$2")
    [ "$(echo "$f" | grep -c .)" = 1 ] || { frames "$1" >&2; fail "$1: expected one frame named $2, got: $f"; }
    [ "$(echo "$f" | cut -d'|' -f2,3)" = "$3|$4" ] || { frames "$1" >&2; fail "$1: frame $2 at x|w $(echo "$f" | cut -d'|' -f2,3), expected $3|$4"; }
    if [ -n "${5:-}" ]; then echo "$f" | cut -d'|' -f1 | grep -qw -- "$5" || fail "$1: frame $2 lacks class $5: $f"; fi
}

start=$SECONDS
# 1. search: substring "compute" matches the compute frame only: 120 of 200 samples
chrome --dump-dom "file://$T/flame.html#search=compute" >"$T/search.dom" || { tail -5 "$T/chromium.err" >&2; fail "chromium --dump-dom failed"; }
[ "$(frames "$T/search.dom" | wc -l)" = 7 ] || { frames "$T/search.dom" >&2; fail "expected 7 drawn frames"; }
expect_frame "$T/search.dom" all 0.000 100.000
expect_frame "$T/search.dom" main 0.000 100.000
expect_frame "$T/search.dom" idle 0.000 15.000
expect_frame "$T/search.dom" work 15.000 85.000
expect_frame "$T/search.dom" compute 15.000 60.000 match
expect_frame "$T/search.dom" helper 15.000 10.000
expect_frame "$T/search.dom" io 75.000 25.000
[ "$(frames "$T/search.dom" | cut -d'|' -f1 | grep -cw match)" = 1 ] || { frames "$T/search.dom" >&2; fail "search highlighted other frames than compute"; }
expect_grep '<span id="matched" data-percent="60.00%">Matched: 60.00% (120 of 200 samples)</span>' "$T/search.dom"
note "search: $((SECONDS - start)) s"

# 2. zoom: clicking work makes it span the width, its children scaled to it,
#    its ancestors drawn above it; a regex search after it counts io + helper
chrome --dump-dom "file://$T/flame.html#click=work&search=%2F%5E(io%7Chelper)%24%2F" >"$T/zoom.dom" || fail "chromium --dump-dom (zoom) failed"
expect_frame "$T/zoom.dom" work 0.000 100.000 zoomed
expect_frame "$T/zoom.dom" main 0.000 100.000 ancestor
expect_frame "$T/zoom.dom" all 0.000 100.000 ancestor
expect_frame "$T/zoom.dom" compute 0.000 70.588
expect_frame "$T/zoom.dom" helper 0.000 11.765 match
expect_frame "$T/zoom.dom" io 70.588 29.412 match
[ -z "$(frame "$T/zoom.dom" idle)" ] || fail "zoomed into work but idle is still drawn"
expect_grep 'data-percent="35.00%">Matched: 35.00% (70 of 200 samples)' "$T/zoom.dom"
expect_grep '<div id="status">work  (unknown)  170 samples, 85.00%</div>' "$T/zoom.dom"

# 3. a screenshot: a real PNG with the frames' colours and the search colour
rm -f "$ART/flame.png"
chrome --window-size=1200,800 --screenshot="$ART/flame.png" "file://$T/flame.html#search=compute" >/dev/null ||
    fail "chromium --screenshot failed"
[ -s "$ART/flame.png" ] || fail "no screenshot at $ART/flame.png"
python3 - "$ART/flame.png" >"$T/png.txt" <<'EOF' || { cat "$T/png.txt" >&2; fail "screenshot check failed"; }
# Decodes the PNG (8-bit RGB/RGBA, non-interlaced) and counts its colours.
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG file'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    pos += 12 + n
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT':
        idat += body
assert depth == 8 and ctype in (2, 6) and interlace == 0, 'unexpected PNG type'
bpp = 3 if ctype == 2 else 4
raw, stride, i = zlib.decompress(idat), w * bpp, 0
prev, colours = bytearray(stride), {}
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    if f == 1:
        for x in range(bpp, stride): line[x] = (line[x] + line[x - bpp]) & 255
    elif f == 2:
        for x in range(stride): line[x] = (line[x] + prev[x]) & 255
    elif f == 3:
        for x in range(stride): line[x] = (line[x] + ((line[x - bpp] if x >= bpp else 0) + prev[x]) // 2) & 255
    elif f == 4:
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp):
        k = bytes(line[x:x + 3])
        colours[k] = colours.get(k, 0) + 1
magenta = colours.get(bytes((0xe0, 0x52, 0xe0)), 0)
big = sum(1 for v in colours.values() if v >= 500)
print('%dx%d, %d colours, %d with >= 500 pixels, %d search-match pixels' % (w, h, len(colours), big, magenta))
assert (w, h) == (1200, 800), 'wrong size'
assert big >= 8, 'too few colours: the frames were not drawn'
assert magenta >= 5000, 'the matched frame is not drawn in the search colour'
EOF
note "screenshot: $(cat "$T/png.txt")"

# 4. an HPROF binary file written by the agent: flame graph and collapsed stacks
cd "$T"
run_java "cpu=samples,format=b,depth=8" HotLoop 2
expect_rc 0
"$JVMPROF" collapse "$T/java.hprof" -o "$T/hot.collapsed" || fail "jvmprof collapse failed"
expect_grep '^HotLoop.main;.*HotLoop.heavy [0-9]*$' "$T/hot.collapsed"
"$JVMPROF" flame "$T/java.hprof" >"$T/hot.html" || fail "jvmprof flame on java.hprof failed"
chrome --dump-dom "file://$T/hot.html#search=heavy" >"$T/hot.dom" || fail "chromium --dump-dom (hprof) failed"
frame "$T/hot.dom" HotLoop.heavy | grep -qw match || { frames "$T/hot.dom" >&2; fail "HotLoop.heavy not drawn and matched"; }
pct=$(sed -n 's/.*data-percent="\([0-9.]*\)%".*/\1/p' "$T/hot.dom")
awk -v p="$pct" 'BEGIN { exit !(p > 50) }' || fail "heavy has $pct% of the samples, expected most"
# 5. the agent's own flame= page: the async sampler's full stacks with frame kinds
run_java "cpu=samples,file=$T/sb.txt,flame=$T/sb.html" SafepointBias 2
expect_rc 0
[ -s "$T/sb.html" ] || fail "flame= wrote no page"
cp "$T/sb.html" "$ART/safepoint-bias.html"
chrome --dump-dom "file://$T/sb.html#click=SafepointBias.arith&search=arith" >"$T/sb.dom" || fail "chromium --dump-dom (flame=) failed"
status=$(sed -n 's/.*<div id="status">\([^<]*\)<\/div>.*/\1/p' "$T/sb.dom")
note "flame=: clicked: $status"
echo "$status" | grep -q '^SafepointBias.arith  (JIT-compiled)  [0-9]* samples, [0-9.]*%$' ||
    fail "clicking arith in the agent's flame graph gave '$status', expected it as JIT-compiled"
pct=$(echo "$status" | sed 's/.*, \([0-9.]*\)%$/\1/')
awk -v p="$pct" 'BEGIN { exit !(p >= 80) }' || fail "arith has $pct% of the agent's flame graph, expected >= 80%"
frame "$T/sb.dom" SafepointBias.arith | grep -qw zoomed || { frames "$T/sb.dom" >&2; fail "arith not zoomed"; }
frame "$T/sb.dom" SafepointBias.drive | grep -qw ancestor || { frames "$T/sb.dom" >&2; fail "drive not drawn as arith's caller"; }
chrome --window-size=1200,500 --screenshot="$ART/safepoint-bias.png" "file://$T/sb.html#search=arith" >/dev/null &&
    [ -s "$ART/safepoint-bias.png" ] || fail "no screenshot of the agent's flame graph"

# errors: one line each
if "$JVMPROF" flame "$T/missing.txt" 2>"$T/e"; then fail "missing file accepted"; fi
[ "$(wc -l <"$T/e")" = 1 ] && grep -q "^jvmprof: cannot open .*missing.txt" "$T/e" || { cat "$T/e" >&2; fail "no one-line error for a missing file"; }
printf 'a;b 1\na;b x\n' >"$T/bad.collapsed"
if "$JVMPROF" flame "$T/bad.collapsed" -o "$T/bad.html" 2>"$T/e"; then fail "bad count accepted"; fi
[ "$(wc -l <"$T/e")" = 1 ] && grep -q "bad.collapsed: line 2: bad sample count 'x'" "$T/e" || { cat "$T/e" >&2; fail "no one-line error for a bad count"; }
[ ! -e "$T/bad.html" ] || fail "a failed flame left an output file"
note "total: $((SECONDS - start)) s"
