# One session context (docs/ARCHITECTURE.md, "A profiling session"): no
# collector or output reads agent_opts (only core/session.c and core/agent.c
# name it) nor a trace_session_ variable outside tracing/trace_session.c; the
# mutable file-scope variables of src/agent are at most 119 (a third of the
# 359 that issue 37 counted; tests/tools/agent_globals.py counted 422 by its
# own rule before the change), each commented with why it must be global.
# Violations planted in a scratch copy must be found, so the check itself is
# known to work.
. "$(dirname "$0")/lib.sh"
MAX=119
python3 "$ROOT/tests/tools/agent_globals.py" --max $MAX "$ROOT/src/agent" >"$T/globals" ||
    { cat "$T/globals" >&2; fail "src/agent: see the FAIL lines above"; }
note "$(head -1 "$T/globals")"
cp -r "$ROOT/src/agent" "$T/agent"
# an uncommented variable, a collector reading agent_opts, a trace_session_ variable read elsewhere
printf '\nstatic unsigned asy_planted_count;\nunsigned asy_planted(void) { return asy_planted_count + agent_opts->depth; }\n' \
    >>"$T/agent/sampling/async_sampler.c"
printf '\nunsigned tr_planted(void) { return trace_session_planted; }\n' >>"$T/agent/tracing/collect_trace.c"
if python3 "$ROOT/tests/tools/agent_globals.py" --max $MAX "$T/agent" >"$T/globals2"; then
    fail "planted violations were not found: $(cat "$T/globals2")"
fi
grep -q "FAIL: .*sampling/async_sampler.c:[0-9]* asy_planted_count: a mutable file-scope variable with no comment" "$T/globals2" &&
    grep -q "FAIL: .*sampling/async_sampler.c reads agent_opts" "$T/globals2" &&
    grep -q "FAIL: .*tracing/collect_trace.c reads trace_session_planted" "$T/globals2" ||
    fail "the planted violations are not each named: $(cat "$T/globals2")"
# the limit: as many more commented variables as the margin allows, plus one
n=$(sed -n 's/^\([0-9]*\) mutable.*/\1/p' "$T/globals")
cp -r "$ROOT/src/agent" "$T/agent2"
for ((i = n; i <= MAX; i++)); do printf 'static int asy_extra%d; /* planted */\n' "$i"; done >>"$T/agent2/sampling/async_sampler.c"
python3 "$ROOT/tests/tools/agent_globals.py" --max $MAX "$T/agent2" >"$T/globals3" &&
    fail "$((MAX + 1)) variables passed the limit of $MAX: $(tail -3 "$T/globals3")"
grep -q "^FAIL: $((MAX + 1)) mutable file-scope variables" "$T/globals3" ||
    fail "the limit's failure does not say $((MAX + 1)): $(cat "$T/globals3")"
echo "t0006 ok"
