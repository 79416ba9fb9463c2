# heap=sites with flame= and collapsed=: allocation flame graphs. Each
# allocation site's stack, the allocated class on top, weighed in bytes.
# AllocFlame allocates 1,809,600,000 bytes of byte[] in big() and 601,600,000
# of long[] in small(): exact mode (alloc_interval=0) gives exactly those,
# the sampled default the same ratio within 10% (over 600 rounds: about
# 10,400 samples of big() and 3,400 of small() at the default 512 KiB, a
# ratio within 2% (one standard deviation), so 10% is five of them; 200
# rounds gave 3.4% and failed once in CI); headless Chromium draws the
# page, whose frames, search and status count bytes.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" chromium >&2 && command -v chromium >/dev/null 2>&1 ||
    fail "this test needs Chromium (Debian package chromium) and could not install it: run tools/deps.sh chromium as root"
bytes() { awk -v k="$2" '$1 ~ k {print $NF}' "$1"; }
run_java "heap=sites,alloc_interval=0,flame=$T/a.html,collapsed=$T/a.col,file=$T/a.txt" AllocFlame 200
expect_rc 0
expect_grep "AllocFlame done" "$T/out"
cat "$T/a.col" >&2
# (within 1 KiB: the JVM's own few allocations on the first calls, a String, count too)
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(a != "" && d * d <= 1024 * 1024) }'; }
b=$(bytes "$T/a.col" 'AllocFlame.main;AllocFlame.big;byte\\[\\]$') s=$(bytes "$T/a.col" 'AllocFlame.main;AllocFlame.small;long\\[\\]$')
near "$b" 1809600000 || fail "exact mode: big()'s byte[] is $b bytes, not 1809600000"
near "$s" 601600000 || fail "exact mode: small()'s long[] is $s bytes, not 601600000"
expect_grep '<h1 id="title">Allocations (bytes allocated)</h1>' "$T/a.html"

run_java "heap=sites,collapsed=$T/s.col,file=$T/s.txt" AllocFlame 600
expect_rc 0
b=$(bytes "$T/s.col" 'AllocFlame.big;byte\\[\\]$') s=$(bytes "$T/s.col" 'AllocFlame.small;long\\[\\]$')
note "sampled: big $b, small $s bytes"
awk -v b="$b" -v s="$s" 'BEGIN { r = b / s; exit !(s > 0 && r > 3.0075 * 0.9 && r < 3.0075 * 1.1) }' ||
    fail "sampled: big/small = $b/$s, not within 10% of 3.0075"

# the page in Chromium: a search for byte[] matches 75.05% of the bytes
timeout -k 10 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome-profile" \
    --virtual-time-budget=5000 --dump-dom "file://$T/a.html#search=byte%5B%5D&click=AllocFlame.small" \
    >"$T/a.dom" 2>>"$T/chromium.err" || { tail -5 "$T/chromium.err" >&2; fail "chromium --dump-dom failed"; }
frame() { grep -o '<div class="frame[^"]*" data-i="[0-9]*" data-x="[^"]*" data-w="[^"]*"[^>]*>[^<]*</div>' "$1" |
    sed -E 's/^<div class="([^"]*)" data-i="[0-9]*" data-x="([^"]*)" data-w="([^"]*)"[^>]*>([^<]*)<\/div>$/\1|\2|\3|\4/' |
    awk -F'|' -v n="$2" '$4 == n'; }
grep -o 'Matched: [0-9.]*% ([0-9]* of [0-9]* bytes)' "$T/a.dom" >&2
grep -q 'Matched: 75.0[0-9]% (18096[0-9]* of 2411[0-9]* bytes)' "$T/a.dom" || fail "the search for byte[] did not match 75% of the bytes"
grep -q '<div id="status">AllocFlame.small  (unknown)  6016[0-9]* bytes, 24.9[0-9]%</div>' "$T/a.dom" ||
    fail "the status line does not give small()'s bytes"
frame "$T/a.dom" 'long[]' | grep -q '|0.000|100.000|long\[\]$' || { frame "$T/a.dom" 'long[]' >&2; fail "zoomed into small(), long[] does not span the width"; }
expect_grep 'allocated class' "$T/a.dom"
exit 0
