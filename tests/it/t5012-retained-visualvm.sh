# `jvmprof heap --retained` against VisualVM's heap library on a real dump: javac's live heap at the
# end of compiling the JDK's java.time, java.text and java.math sources (about 140 files, as t3103;
# tests/programs/JavacHeap, about 690,000 objects on JDK 17). For each of jvmprof's 1000 biggest
# objects, tests/tools/RetainedRef.java (reading the dump with the library) computes its retained
# size by definition: what is no longer reachable from the GC roots once the object is taken away,
# one breadth-first walk per object on its own graph of the dump, with jvmprof's edges (every
# reference retains, referents too; an instance keeps its class, a class its superclass, loader and
# statics; an array not its class) and the library's shallow sizes. Each row must equal it, or
# differ by the class-object rule alone, checked object by object: RetainedRef also sums the class
# objects in the retained set by both rules (the library's java.lang.Class fields, jvmprof's 16-byte
# header + statics), and ours must then equal the instances' bytes + jvmprof's class sum. Shallow
# sizes of the instances and arrays must be the library's Instance.getSize(). How many rows equal
# the library's own getRetainedSize() (whose rules differ: referents' holders and garbage referrers
# do not retain, tests/tools/RetainedRef.java's header) is printed, not asserted. The reference takes
# 30-45 s here for 1000 rows (the library's retained sizes about 20 s, the walks 12-18 s).
# Skipped in one line only when VisualVM's jar is missing and cannot be installed.
. "$(dirname "$0")/lib.sh"
TOP=1000
"$ROOT/tools/deps.sh" visualvm >/dev/null 2>&1 || true
if ! ls /usr/share/visualvm/*/modules/org-graalvm-visualvm-lib-jfluid-heap.jar >/dev/null 2>&1 && [ -z "${HEAPVERIFY_JAR:-}" ]; then
    echo "skipped: t5012 needs VisualVM's heap library (Debian package visualvm), which tools/deps.sh visualvm could not install"
    exit 0
fi
# javac compiles the sources of the JDK it runs on (they patch its java.base)
JAVA_HOME=$JAVA_HOME "$ROOT/tests/tools/javac_sources.sh" "$T" || fail "no JDK sources for javac to compile"
timeout -k 10 300 "$JAVA" -Xmx1g -cp "$CLASSES" JavacHeap "$T/javac.hprof" "$T/files" \
    -nowarn -XDsuppressNotes --patch-module "java.base=$T/java.base" -d "$T/javac-out" >"$T/javac.out" 2>&1 ||
    { tail -5 "$T/javac.out" >&2; fail "JavacHeap failed"; }
grep -q '^classes .* dumped' "$T/javac.out" || fail "JavacHeap wrote no dump: $(tail -3 "$T/javac.out")"

"$JVMPROF" heap "$T/javac.hprof" --retained --tsv --top $TOP >"$T/ours.tsv" 2>"$T/e" || { cat "$T/e" >&2; fail "--retained --tsv failed"; }
grep "$(printf '^object\t')" "$T/ours.tsv" >"$T/ids.tsv"
[ "$(wc -l <"$T/ids.tsv")" = $TOP ] || fail "not $TOP object rows: $(wc -l <"$T/ids.tsv")"
grep -qx "$(printf 'shallow\tcompressed-references')" "$T/ours.tsv" || fail "not the compressed-references layout: $(sed -n 2p "$T/ours.tsv")"

start=$(date +%s)
"$ROOT/tests/tools/retainedref.sh" "$T/javac.hprof" --ids "$T/ids.tsv" --definition >"$T/ref.tsv" 2>"$T/ref.err" ||
    { cat "$T/ref.err" >&2; fail "tests/tools/retainedref.sh failed"; }
secs=$(($(date +%s) - start))
objects=$(sed -n 's/^# instances=\([0-9]*\) .*/\1/p' "$T/ref.tsv")
[ "${objects:-0}" -ge 300000 ] || fail "javac's dump holds ${objects:-no} instances: expected hundreds of thousands"
note "the reference: $secs s for $TOP rows on $objects instances ($(sed -n 's/^RetainedRef: seconds: //p' "$T/ref.err" | tr '\n' ';'))"

# ours: object ID CLASS SHALLOW RETAINED; the reference: ID CLASS SHALLOW LIBRARY INSTANCES NCLASSES
# LIBRARY_CLASS_BYTES JVMPROF_CLASS_BYTES, a class object's row followed by "# ID is class NAME"
awk -F'\t' -v top=$TOP '
    FNR == NR {
        if ($0 ~ /^# 0x[0-9a-f]+ is class /) { split($0, w, " "); cls[w[2]] = substr($0, index($0, " is class ") + 10); next }
        if ($1 ~ /^0x/) { rclass[$1] = $2; rshallow[$1] = $3; lib[$1] = $4; inst[$1] = $5; ncl[$1] = $6; lcl[$1] = $7; jcl[$1] = $8 }
        next
    }
    {
        id = $2; r = $5
        if (!(id in rclass) || rclass[id] == "-") { print "FAIL: " id " (" $3 "): not in the dump by the library"; bad++; next }
        want = (id in cls) ? "class " cls[id] : rclass[id]
        if ($3 != want) { print "FAIL: " id ": class " $3 ", the library says " want; bad++; next }
        if (!(id in cls) && $4 != rshallow[id]) { print "FAIL: " id " (" $3 "): shallow " $4 ", the library " rshallow[id]; bad++; next }
        if (r == lib[id]) library++
        if (r == inst[id] + lcl[id]) { same++; next }
        if (r == inst[id] + jcl[id]) {
            explained++
            printf "  %s (%s): %d, by definition %d: %+d = %d class object(s) counted %d bytes, not %d\n", id, $3, r,
                inst[id] + lcl[id], r - inst[id] - lcl[id], ncl[id], jcl[id], lcl[id]
            next
        }
        printf "FAIL: %s (%s): retained %d, by definition %d (instances %d + %d class objects: %d by the library, %d by jvmprof)\n",
            id, $3, r, inst[id] + lcl[id], inst[id], ncl[id], lcl[id], jcl[id]
        bad++
    }
    END {
        printf "  %d of %d equal by definition, %d differ by the class-object rule alone, %d unexplained; %d equal the library getRetainedSize()\n",
            same, top, explained, bad, library
        exit bad > 0 || same + explained != top
    }' "$T/ref.tsv" "$T/ids.tsv" >"$T/cmp.txt" 2>&1
rc=$?
cat "$T/cmp.txt" >&2
[ $rc = 0 ] || fail "$(grep -c '^FAIL' "$T/cmp.txt") of the $TOP biggest objects differ from the reference's retained size by definition"
exit 0
