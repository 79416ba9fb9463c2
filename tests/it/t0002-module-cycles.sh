# No cycles between the modules of src/ (docs/ARCHITECTURE.md): a module (x.c,
# x.h, x_internal.h) may use another only if that one never uses it back,
# directly or through others. tests/tools/include_cycles.py builds the graph
# from the #include lines and prints any cycle; a cycle planted in a scratch
# copy must be found, so the check itself is known to work.
. "$(dirname "$0")/lib.sh"
python3 "$ROOT/tests/tools/include_cycles.py" "$ROOT/src" >"$T/graph" || { cat "$T/graph" >&2; fail "module cycles in src/"; }
note "$(tail -1 "$T/graph")"
cp -r "$ROOT/src" "$T/src"
echo '#include "../agent/core/profiler.h"' >>"$T/src/model/model.h"
if python3 "$ROOT/tests/tools/include_cycles.py" "$T/src" >"$T/graph2"; then
    fail "a planted cycle (model -> agent/core/profiler) was not found"
fi
grep -q "model/model" "$T/graph2" || fail "the planted cycle is not named: $(cat "$T/graph2")"
echo "t0002 ok"
