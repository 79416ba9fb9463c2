# The async sampler under stress, at its fastest rate (interval=1, wall=1):
# 200 threads starting and ending, a thread 5000 frames deep, classes loading
# and unloading, a report on SIGQUIT while signals fly. No crash, the
# program's output unchanged, deep stacks kept to 2048 frames in the flame
# outputs, and every sample AsyncGetCallTrace could not walk counted by reason.
. "$(dirname "$0")/lib.sh"
run_java "" SamplerStress 200 3
expect_rc 0
cp "$T/out" "$T/expected"

run_java "cpu=samples,interval=1,thread=y,file=$T/c.txt,collapsed=$T/c.col,flame=$T/c.html" SamplerStress 200 3
expect_rc 0
cmp -s "$T/out" "$T/expected" || fail "output changed under cpu=samples,interval=1"
expect_grep "^CPU SAMPLES END" "$T/c.txt"
expect_grep "cpu sampler: [0-9]* signals: [0-9]* stacks recorded ([0-9]* samples" "$T/err"
grep 'cpu sampler:' "$T/err" >&2
samples=$(grep -o 'stacks recorded ([0-9]* samples' "$T/err" | grep -o '[0-9][0-9]*')
[ "$samples" -ge 1000 ] || fail "only $samples samples at interval=1"
deepest=$(awk '{ n = split($0, a, ";"); if (n > m) m = n } END { print m }' "$T/c.col")
note "deepest collapsed stack: $deepest frames (2048 + the thread's root frame)"
[ "$deepest" -eq 2049 ] || fail "deepest stack $deepest frames, expected 2048 + 1"
grep -q '^\[deep\];.*SamplerStress.recurse' "$T/c.col" || fail "no stack of the deep thread"
threads=$(grep -o '^\[worker-[0-9]*\]' "$T/c.col" | sort -u | wc -l)
note "$threads worker threads sampled"
[ -s "$T/c.html" ] || fail "no flame graph"

run_java "wall=1,file=$T/w.txt,collapsed=$T/w.col" SamplerStress 200 3
expect_rc 0
cmp -s "$T/out" "$T/expected" || fail "output changed under wall=1"
expect_grep "^WALL SAMPLES END" "$T/w.txt"
grep 'wall sampler:' "$T/err" >&2
grep -q 'SamplerStress.recurse' "$T/w.col" || fail "wall=1 saw no recursion"

timeout -k 10 60 "$JAVA" "-agentpath:$AGENT=cpu=samples,interval=1,file=$T/q.txt,collapsed=$T/q.col" -cp "$CLASSES" \
    SamplerStress 200 4 >"$T/out" 2>"$T/err" &
pid=$!
sleep 2
kill -QUIT $pid
for _ in $(seq 1 50); do [ -f "$T/q.col" ] && break; sleep 0.1; done
[ -f "$T/q.txt" ] && [ -f "$T/q.col" ] || fail "no report after SIGQUIT"
wait $pid || fail "program exit code $?"
# (the JVM itself prints a thread dump on SIGQUIT to stdout; the program's line must be there)
grep -qxF "$(cat "$T/expected")" "$T/out" || fail "output changed with a SIGQUIT dump"
expect_grep "^CPU SAMPLES END" "$T/q.txt"
