# rewriter: the JDK's own classes, rewritten with entry/exit and newArray
# calls (and objectInit in java.lang.Object), check out against their
# originals in tests/tools/cf_roundtrip (an independent reader: call counts
# per method, every offset remapped, fields and attributes untouched, the
# output rewritable again). A fixed sample of ~3000 classes; all of them with
# JP_FULL=1 (make test-full). The classes are extracted once into
# build/jdk-classes-N, N the JDK's feature version (again when it changes).
. "$(dirname "$0")/lib.sh"
RT="$ROOT/build/tools/cf_roundtrip"
[ -x "$RT" ] || make -C "$ROOT" -s build/tools/cf_roundtrip >&2 || fail "cannot build $RT"

JDKC=$("$ROOT/tools/jdk-classes.sh") || fail "jimage extract failed"

if [ "${JP_FULL:-0}" = 1 ]; then
    sample=()
else
    sample=(--sample 3000 --seed "${JP_SEED:-1}")
fi
RC=0
"$RT" "${sample[@]}" "$JDKC" >"$T/out" 2>"$T/err" || RC=$?
cat "$T/out" >&2
[ "$RC" = 0 ] || { head -20 "$T/err" >&2; fail "cf_roundtrip exited with $RC"; }
summary=$(grep '^cf_roundtrip: ' "$T/out") || fail "no summary line"
field() { sed -n "s/.* $1 \([0-9.]*\).*/\1/p" <<<"$summary"; }
[ "$(field failures)" = 0 ] || fail "failures in the summary"
classes=$(field classes) methods=$(field methods) entries=$(field entries)
[ "$classes" -ge 2500 ] || fail "only $classes classes checked"
[ "$methods" -ge $((classes * 4)) ] || fail "only $methods methods in $classes classes"
# every method with code gets an entry call unless the rewriter had to leave it
[ "$((entries + $(field unchanged)))" = "$methods" ] || fail "entries + unchanged != methods"
[ "$(field exits)" -ge "$entries" ] || fail "fewer exits than entries"
[ "$(field newarrays)" -gt 0 ] || fail "no newArray calls"
note "$(field 'rewrite') us per class on average"
