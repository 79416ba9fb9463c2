# One private prefix per file in src/ (docs/ARCHITECTURE.md): the file-scope
# statics of a .c file carry a prefix that no other file uses for its statics,
# so a private name leads to one file. tests/tools/prefixes.py lists the
# prefixes that two files share; a collision planted in a scratch copy must be
# found, so the check itself is known to work.
. "$(dirname "$0")/lib.sh"
python3 "$ROOT/tests/tools/prefixes.py" "$ROOT/src" >"$T/prefixes" || { cat "$T/prefixes" >&2; fail "private prefixes shared in src/"; }
note "$(tail -1 "$T/prefixes")"
cp -r "$ROOT/src" "$T/src"
printf '\nstatic unsigned asy_planted;\nunsigned model_planted(void) { return asy_planted; }\n' >>"$T/src/model/model.c"
if python3 "$ROOT/tests/tools/prefixes.py" "$T/src" >"$T/prefixes2"; then
    fail "a planted collision (asy_ in model/model.c and agent/async_sampler.c) was not found"
fi
grep -q "^prefix asy_ " "$T/prefixes2" && grep -q "model/model.c: asy_planted" "$T/prefixes2" \
    && grep -q "agent/async_sampler.c: " "$T/prefixes2" || fail "the planted collision is not named: $(cat "$T/prefixes2")"
echo "t0003 ok"
