# One private prefix per file in src/ (docs/ARCHITECTURE.md): the file-scope
# statics of a .c file carry a prefix that no other file uses for its statics,
# so a private name leads to one file; a static without one (no underscore)
# fails unless a header declares it. tests/tools/prefixes.py lists the
# prefixes that two files share and the names without a prefix; violations
# planted in a scratch copy must be found, and a name a header declares must
# stay exempt, so the check itself is known to work.
. "$(dirname "$0")/lib.sh"
python3 "$ROOT/tests/tools/prefixes.py" "$ROOT/src" >"$T/prefixes" || { cat "$T/prefixes" >&2; fail "private prefixes shared or missing in src/"; }
note "$(tail -1 "$T/prefixes")"
cp -r "$ROOT/src" "$T/src"
printf '\nstatic unsigned asy_planted;\nunsigned model_planted(void) { return asy_planted; }\n' >>"$T/src/model/model.c"
# no prefix: `planted`; `load`, which collector.h spells only as a struct
# member (no declaration); `plantedhelper`, which a header declares (exempt)
printf 'static unsigned planted;\nstatic int load;\nstatic void plantedhelper(void) { }\n' >>"$T/src/model/model.c"
printf '\nstatic void plantedhelper(void);\n' >>"$T/src/model/model.h"
if python3 "$ROOT/tests/tools/prefixes.py" "$T/src" >"$T/prefixes2"; then
    fail "planted violations (asy_ in model/model.c and agent/sampling/async_sampler.c, names without a prefix) were not found"
fi
grep -q "^prefix asy_ " "$T/prefixes2" && grep -q "model/model.c: asy_planted" "$T/prefixes2" \
    && grep -q "agent/sampling/async_sampler.c: " "$T/prefixes2" || fail "the planted collision is not named: $(cat "$T/prefixes2")"
grep -qx "no prefix: model/model.c: load planted" "$T/prefixes2" \
    || fail "the planted names without a prefix are not named as 'load planted' (plantedhelper exempt): $(cat "$T/prefixes2")"
echo "t0003 ok"
