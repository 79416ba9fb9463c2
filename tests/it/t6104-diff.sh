# jvmprof diff BEFORE AFTER: ShiftHot moves its hot method from first() to
# second() between two runs; the differential flame graph, loaded in
# headless Chromium, draws the second run with first() shrunk (blue, its
# share down) and second() grown (red), the numbers in each frame's
# description; bad input gives one line, status 1, and no file.
. "$(dirname "$0")/lib.sh"
"$ROOT/tools/deps.sh" chromium >&2 && command -v chromium >/dev/null 2>&1 || fail "this test needs Chromium"
JVMPROF="$ROOT/build/jvmprof"
for mode in before after; do
    run_java "cpu=samples,interval=5,file=$T/$mode.txt,collapsed=$T/$mode.collapsed" ShiftHot "$mode" 2
    expect_rc 0
done
"$JVMPROF" diff "$T/before.collapsed" "$T/after.collapsed" -o "$T/diff.html" 2>"$T/e" || fail "jvmprof diff: $(cat "$T/e")"
expect_grep "Differential flame graph" "$T/diff.html"
share() { awk -v m="$2" '{ t += $NF } $1 ~ ("ShiftHot." m "_") { s += $NF } END { printf "%.4f", s / t }' "$1"; }
note "first(): $(share "$T/before.collapsed" first) before, $(share "$T/after.collapsed" first) after"
timeout -k 10 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$T/chrome" --virtual-time-budget=5000 \
    --dump-dom "file://$T/diff.html#click=ShiftHot.main" >"$T/diff.dom" 2>"$T/chromium.err" ||
    fail "chromium: $(tail -3 "$T/chromium.err")"
# frame NAME: "delta|r|g|b" of the widest drawn frame named NAME (a method sampled both JIT-compiled and, once,
# interpreted is two frames of one name: the interpreted one may come first, a sliver)
frame() {
    grep -o "<div class=\"frame[^\"]*\"[^>]*data-delta=\"[^\"]*\"[^>]*>$1</div>" "$T/diff.dom" |
        sed -E 's/.*data-delta="([^"]*)".*width: ([0-9.e+-]+)%.*background-color: rgb\(([0-9]+), ([0-9]+), ([0-9]+)\).*/\2|\1|\3|\4|\5/' |
        sort -t'|' -k1,1 -g -r | head -1 | cut -d'|' -f2-
}
IFS='|' read -r d1 r1 g1 b1 <<<"$(frame ShiftHot.first)"
IFS='|' read -r d2 r2 g2 b2 <<<"$(frame ShiftHot.second)"
[ -n "$d1" ] && [ -n "$d2" ] || fail "the frames of first() and second() are not drawn: $(grep -o 'data-delta="[^"]*"[^>]*>[^<]*<' "$T/diff.dom" | head)"
awk -v d="$d1" 'BEGIN { exit !(d <= -0.3) }' || fail "first()'s share fell by $d1, not by 0.3 or more"
awk -v d="$d2" 'BEGIN { exit !(d >= 0.3) }' || fail "second()'s share rose by $d2, not by 0.3 or more"
[ "$b1" -gt "$r1" ] || fail "first() is not drawn blue: rgb($r1, $g1, $b1)"
[ "$r2" -gt "$b2" ] || fail "second() is not drawn red: rgb($r2, $g2, $b2)"
grep -q '<div id="status"[^>]*>ShiftHot.main .*; before: [0-9]* samples, [0-9.]*%; [-+][0-9.]* points</div>' "$T/diff.dom" ||
    fail "the clicked frame's description has no before and change: $(grep -o '<div id="status"[^<]*' "$T/diff.dom")"
note "first(): $d1, drawn rgb($r1, $g1, $b1); second(): +$d2, drawn rgb($r2, $g2, $b2)"

# bad input: one line, status 1, no output left
printf 'garbage without counts\n' >"$T/bad.txt"
if "$JVMPROF" diff "$T/bad.txt" "$T/after.collapsed" -o "$T/bad.html" 2>"$T/e"; then fail "diff took a bad file"; fi
[ "$(wc -l <"$T/e")" = 1 ] || fail "diff: not one line: $(cat "$T/e")"
[ ! -e "$T/bad.html" ] || fail "diff left a file"
: >"$T/empty.txt"
if "$JVMPROF" diff "$T/before.collapsed" "$T/nonexistent" -o "$T/bad.html" 2>"$T/e"; then fail "diff took a missing file"; fi
[ ! -e "$T/bad.html" ] || fail "diff left a file"
"$JVMPROF" diff "$T/before.collapsed" 2>"$T/e"; [ $? = 2 ] || fail "diff with one file: not a usage error"
