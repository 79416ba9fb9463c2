# `jvmprof heap --retained` on real dumps of RetainedShape, whose retained sizes are known by hand,
# for both layouts of a 64-bit HotSpot. With compressed references (the default; the dump's system
# properties say so: java.vm.compressedOopsMode), headers of 12 bytes, references of 4:
#   Item[1000]   16 + 1000 x 4 = 4016; each Item (one reference) 12 + 4 = 16 and its byte[1000]
#                16 + 1000 = 1016: retained 4016 + 1000 x (16 + 1016) = 1036016
#   HashMap of 100 Integer -> long[10]: the map 12 + 4 refs + 4 ints = 44 -> 48; its Node[256] (100
#                entries resize it 16 -> 256) 16 + 1024 = 1040; each Node (int + 3 refs) 12 + 16 = 28
#                -> 32, Integer 12 + 4 = 16, long[10] 16 + 80 = 96: 48 + 1040 + 100 x 144 = 15488
#   500 Links (ref + int: 12 + 8 = 20 -> 24): class retained 12000 (MAT's rule: the head only), the
#                head's 12000
#   SoftReference (Reference's 4 refs + a long: 12 + 24 = 36 -> 40) -> Blob (16) -> byte[5000] (5016):
#                5072 retained by every reference; with --ignore-weak 40, and the Blob (5032)
#                weakly reachable
# Without (-XX:-UseCompressedOops), headers of 16 bytes, references of 8, arrays' headers 20:
#   Item[1000]   20 + 1000 x 8 = 8020 -> 8024; each Item 16 + 8 = 24 and its byte[1000]
#                20 + 1000 -> 1024: retained 8024 + 1000 x (24 + 1024) = 1056024
#   HashMap: the map 16 + 4 refs + 4 ints = 64; Node[256] 20 + 2048 -> 2072; each Node 16 + 28
#                -> 48, Integer 16 + 4 -> 24, long[10] 20 + 80 -> 104: 64 + 2072 + 100 x 176 = 19736
#   500 Links (16 + 12 -> 32): 16000
#   SoftReference (16 + 40 = 56) -> Blob (24) -> byte[5000] (5024): 5104; --ignore-weak 56, Blob 5048
# in four dumps: jcmd GC.heap_dump (live objects), the agent's heap=dump,dumper=jvmti at exit
# (its own ids), the same jcmd dump of a JVM without compressed references, and jcmd GC.heap_dump
# -all=true taken first, which holds the 2000 garbage pairs of Islands: unreachable. Also the text
# output's header, rule and layout lines, --top, --sort shallow and instances (the class rows'
# order), and one-line errors.
. "$(dirname "$0")/lib.sh"
cd "$T"
JCMD="$JAVA_HOME/bin/jcmd"
"$JAVA" -XX:+UseSerialGC -Xmn256m -XX:SoftRefLRUPolicyMSPerMB=1000000 -cp "$CLASSES" RetainedShape "$T/stop" \
    >"$T/out" 2>"$T/err" &
PID=$!
trap 'touch "$T/stop"; kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 1 300); do
    grep -q '^ready$' "$T/out" 2>/dev/null && break
    kill -0 $PID 2>/dev/null || { cat "$T/err" >&2; fail "RetainedShape exited early"; }
    sleep 0.1
done
grep -q '^ready$' "$T/out" || fail "RetainedShape did not get ready"
"$JCMD" $PID GC.heap_dump -all=true "$T/all.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd -all failed"; }
"$JCMD" $PID GC.heap_dump "$T/live.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd GC.heap_dump failed"; }
touch "$T/stop"
wait $PID || fail "RetainedShape failed"
grep -q '^6599$' "$T/out" || fail "RetainedShape lost its SoftReference's Blob: $(cat "$T/out")"
run_java "heap=dump,dumper=jvmti,file=$T/jvmti.hprof" -XX:SoftRefLRUPolicyMSPerMB=1000000 RetainedShape "$T/stop"
expect_rc 0
# the same program without compressed references: a live dump by jcmd
rm -f "$T/stop" "$T/out"
"$JAVA" -XX:-UseCompressedOops -XX:+UseSerialGC -Xmn256m -XX:SoftRefLRUPolicyMSPerMB=1000000 -cp "$CLASSES" \
    RetainedShape "$T/stop" >"$T/out" 2>"$T/err" &
PID=$!
for _ in $(seq 1 300); do
    grep -q '^ready$' "$T/out" 2>/dev/null && break
    kill -0 $PID 2>/dev/null || { cat "$T/err" >&2; fail "RetainedShape (-XX:-UseCompressedOops) exited early"; }
    sleep 0.1
done
"$JCMD" $PID GC.heap_dump "$T/plain.hprof" >"$T/jcmd.out" 2>&1 || { cat "$T/jcmd.out" >&2; fail "jcmd GC.heap_dump (-XX:-UseCompressedOops) failed"; }
touch "$T/stop"
wait $PID || fail "RetainedShape (-XX:-UseCompressedOops) failed"

# tsv_field FILE KIND NAME COLUMN: the column of the first row of that kind and name (class rows by
# name, object rows by class)
cls() { awk -F'\t' -v n="$2" -v c="$3" '$1 == "class" && $2 == n { print $c; exit }' "$1"; }
obj() { awk -F'\t' -v n="$2" -v c="$3" '$1 == "object" && $3 == n { print $c; exit }' "$1"; }
# every object row of a class, its retained column
objs() { awk -F'\t' -v n="$2" '$1 == "object" && $3 == n { print $5 }' "$1"; }
want() { [ "$1" = "$2" ] || fail "$3: got '$1', expected $2"; }

for d in live jvmti plain; do
    if [ $d = plain ]; then
        layout=dumped-layout ITEMS_SH=8024 ITEMS=1056024 ITEM=1048 MAP=19736 LINK=32 SOFT=5104 SOFT_ALONE=56 BLOB=5048
    else
        layout=compressed-references ITEMS_SH=4016 ITEMS=1036016 ITEM=1032 MAP=15488 LINK=24 SOFT=5072 SOFT_ALONE=40 BLOB=5032
    fi
    "$JVMPROF" heap "$T/$d.hprof" --retained --tsv --top 0 >"$T/$d.tsv" 2>"$T/e" || { cat "$T/e" >&2; fail "$d: --retained --tsv failed"; }
    [ ! -s "$T/e" ] || fail "$d: a short run wrote to stderr: $(cat "$T/e")"
    want "$(head -1 "$T/$d.tsv")" "$(printf 'rule\tevery-reference')" "$d: the rule row"
    want "$(sed -n 2p "$T/$d.tsv")" "$(printf 'shallow\t%s' $layout)" "$d: the layout row"
    want "$(obj "$T/$d.tsv" 'RetainedShape$Item[]' 4)" $ITEMS_SH "$d: Item[] shallow"
    want "$(obj "$T/$d.tsv" 'RetainedShape$Item[]' 5)" $ITEMS "$d: Item[] retained"
    want "$(cls "$T/$d.tsv" 'RetainedShape$Item' 3)" 1000 "$d: Items"
    want "$(cls "$T/$d.tsv" 'RetainedShape$Item' 5)" $((1000 * ITEM)) "$d: Item class retained"
    objs "$T/$d.tsv" java.util.HashMap | grep -qx $MAP || fail "$d: no HashMap retaining $MAP bytes"
    want "$(cls "$T/$d.tsv" 'RetainedShape$Link' 3)" 500 "$d: Links"
    want "$(cls "$T/$d.tsv" 'RetainedShape$Link' 5)" $((500 * LINK)) "$d: Link class retained (the head only)"
    want "$(objs "$T/$d.tsv" 'RetainedShape$Link' | sort -n | tail -1)" $((500 * LINK)) "$d: the head Link's retained"
    want "$(cls "$T/$d.tsv" 'RetainedShape$Blob' 5)" $BLOB "$d: Blob retained"
    objs "$T/$d.tsv" java.lang.ref.SoftReference | grep -qx $SOFT || fail "$d: no SoftReference retaining $SOFT"
    # the class RetainedShape holds all of it (its statics), and the Item[] is the largest object besides
    holder=$(obj "$T/$d.tsv" 'class RetainedShape' 5)
    [ -n "$holder" ] && [ "$holder" -ge $((ITEMS + MAP + 500 * LINK + SOFT)) ] || fail "$d: class RetainedShape retains $holder"
    first=$(awk -F'\t' '$1 == "object" && $3 !~ /^class / { print $3; exit }' "$T/$d.tsv")
    want "$first" 'RetainedShape$Item[]' "$d: the top object that is not a class"
    # --top 0: every reachable object, rows sorted by retained
    awk -F'\t' '$1 == "object" { if (prev != "" && $5 > prev) bad = 1; prev = $5 } END { exit bad }' "$T/$d.tsv" ||
        fail "$d: object rows not sorted by retained size"
    awk -F'\t' '$1 == "class" { if (prev != "" && $5 > prev) bad = 1; prev = $5 } END { exit bad }' "$T/$d.tsv" ||
        fail "$d: class rows not sorted by retained size"

    # --sort shallow and --sort instances: the class rows in that order, ties by retained size. Four
    # classes by hand: Item[] (1 instance, ITEMS_SH shallow, ITEMS retained), Item (1000, 1000 x 16
    # or 24, 1000 x ITEM), Link (500, 500 x LINK, 500 x LINK), Blob (1, 16 or 24, BLOB): by retained
    # Item[] Item Link Blob; by shallow Item Link Item[] Blob; by instances Item Link, then Item[] and
    # Blob tie on 1 and go by retained (Item[] first, though "Blob" comes first by name)
    four() { awk -F'\t' '$1 == "class" && $2 ~ /^RetainedShape\$(Item\[\]|Item|Link|Blob)$/ { printf "%s ", $2 }' "$1"; }
    want "$(four "$T/$d.tsv")" 'RetainedShape$Item[] RetainedShape$Item RetainedShape$Link RetainedShape$Blob ' "$d: classes by retained size"
    for by in shallow instances; do
        "$JVMPROF" heap "$T/$d.hprof" --retained --sort $by --tsv --top 0 >"$T/$d-$by.tsv" 2>"$T/e" ||
            { cat "$T/e" >&2; fail "$d: --sort $by failed"; }
        want "$(four "$T/$d-$by.tsv")" 'RetainedShape$Item RetainedShape$Link RetainedShape$Item[] RetainedShape$Blob ' \
            "$d: classes by $by"
        col=$(if [ $by = shallow ]; then echo 4; else echo 3; fi)
        awk -F'\t' -v c=$col '$1 == "class" { if (n++ && ($c > prev || ($c == prev && $5 > pret))) bad = 1; prev = $c; pret = $5 } END { exit bad }' \
            "$T/$d-$by.tsv" || fail "$d: --sort $by: class rows not sorted by column $col, then retained"
        want "$(grep -c '^class' "$T/$d-$by.tsv")" "$(grep -c '^class' "$T/$d.tsv")" "$d: --sort $by: class rows"
        want "$(grep '^object' "$T/$d-$by.tsv" | md5sum)" "$(grep '^object' "$T/$d.tsv" | md5sum)" "$d: --sort $by: the object rows (by retained, as ever)"
    done
    # Item[] before Blob by instances is the tie: Item[] and Blob both one instance
    want "$(cls "$T/$d-instances.tsv" 'RetainedShape$Item[]' 3) $(cls "$T/$d-instances.tsv" 'RetainedShape$Blob' 3)" "1 1" "$d: one Item[] and one Blob"
    "$JVMPROF" heap "$T/$d.hprof" --retained --sort instances --top 3 | grep -q '^classes by instances ' ||
        fail "$d: --sort instances: the class table's title"

    # --ignore-weak: the SoftReference keeps its own bytes, the Blob is weakly reachable
    "$JVMPROF" heap "$T/$d.hprof" --retained --ignore-weak --tsv --top 0 >"$T/$d-weak.tsv" || fail "$d: --ignore-weak failed"
    want "$(head -1 "$T/$d-weak.tsv")" "$(printf 'rule\tignore-weak')" "$d: the ignore-weak rule row"
    objs "$T/$d-weak.tsv" java.lang.ref.SoftReference | grep -qx $SOFT && fail "$d: --ignore-weak: a SoftReference still retains its Blob"
    objs "$T/$d-weak.tsv" java.lang.ref.SoftReference | grep -qx $SOFT_ALONE || fail "$d: --ignore-weak: no SoftReference retaining $SOFT_ALONE"
    want "$(obj "$T/$d-weak.tsv" 'RetainedShape$Blob' 5)" $BLOB "$d: --ignore-weak: the Blob"
    want "$(obj "$T/$d-weak.tsv" 'RetainedShape$Item[]' 5)" $ITEMS "$d: --ignore-weak: Item[]"
    weakholder=$(obj "$T/$d-weak.tsv" 'class RetainedShape' 5)
    want "$weakholder" $((holder - BLOB)) "$d: --ignore-weak: class RetainedShape without the Blob"

    # the text output: header, rule line, --top
    "$JVMPROF" heap "$T/$d.hprof" --retained --top 5 >"$T/$d.txt" || fail "$d: --retained failed"
    head -1 "$T/$d.txt" | grep -qE "^$T/$d.hprof: HPROF 1.0.2 heap dump, 8-byte ids: [0-9]+ objects \([0-9]+ bytes\), [0-9]+ reachable \([0-9]+ bytes\), [0-9]+ unreachable \([0-9]+ bytes\), [0-9]+ references, [0-9]+ unresolved references, 0 unresolved GC roots$" ||
        fail "$d: header: $(head -1 "$T/$d.txt")"
    sed -n 2p "$T/$d.txt" | grep -q "^rule: every reference retains" || fail "$d: rule line: $(sed -n 2p "$T/$d.txt")"
    if [ $d = plain ]; then shallow_line="^shallow sizes: the dumped layout"; else shallow_line="^shallow sizes: references compressed to 4 bytes"; fi
    sed -n 3p "$T/$d.txt" | grep -q "$shallow_line" || fail "$d: layout line: $(sed -n 3p "$T/$d.txt")"
    "$JVMPROF" heap "$T/$d.hprof" --retained --ignore-weak --top 5 | sed -n 2p | grep -q "^rule: --ignore-weak: .* [1-9][0-9]* objects ([1-9][0-9]* bytes) reachable only through referents" ||
        fail "$d: --ignore-weak rule line"
    [ "$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+  ' "$T/$d.txt")" = 5 ] || fail "$d: --top 5: not 5 class rows"
    [ "$(grep -cE '^ +[0-9]+ 0x[0-9a-f]+ +[0-9]+ +[0-9]+  ' "$T/$d.txt")" = 5 ] || fail "$d: --top 5: not 5 object rows"
    note "$d: $(head -1 "$T/$d.txt" | sed 's/.*ids: //')"
done
# the 2000 pairs of Islands the program dropped: in the -all dump, unreachable
"$JVMPROF" heap "$T/all.hprof" --retained --top 1 >"$T/all.txt" || fail "all: --retained failed"
un=$(head -1 "$T/all.txt" | sed 's/.*reachable ([0-9]* bytes), \([0-9]*\) unreachable (\([0-9]*\) bytes).*/\1 \2/')
set -- $un
[ "$1" -ge 4000 ] && [ "$2" -ge $((4000 * 16)) ] || fail "all: unreachable $un, expected at least 4000 objects, 64000 bytes"
note "-all dump: $1 unreachable objects, $2 bytes"

# errors: one line each
size=$(stat -c %s "$T/live.hprof")
for cut in 100 $((size / 2)) $((size - 1)); do
    head -c $cut "$T/live.hprof" >"$T/cut.hprof"
    if "$JVMPROF" heap "$T/cut.hprof" --retained >"$T/o" 2>"$T/e"; then fail "file cut at $cut bytes accepted"; fi
    [ "$(wc -l <"$T/e")" = 1 ] && grep -qE "^jvmprof: .*cut.hprof: .*(truncated|not closed)" "$T/e" ||
        { cat "$T/e" >&2; fail "no one-line truncation error (cut at $cut)"; }
done
RC=0; "$JVMPROF" heap "$T/live.hprof" --tsv 2>"$T/e" || RC=$?
[ "$RC" = 2 ] && grep -q "^jvmprof: heap: --tsv goes with --retained" "$T/e" || fail "--tsv without --retained: $RC $(cat "$T/e")"
for args in "--retained --sort size" "--retained --sort" "--sort shallow" "--diff $T/live.hprof --sort shallow"; do
    RC=0; "$JVMPROF" heap "$T/live.hprof" $args >"$T/o" 2>"$T/e" || RC=$?
    [ "$RC" = 2 ] && [ "$(wc -l <"$T/e")" = 1 ] && [ ! -s "$T/o" ] || fail "heap $args: rc $RC, $(cat "$T/e")"
    case "$args" in
    *size) grep -q "^jvmprof: heap: bad --sort 'size': retained, shallow or instances$" "$T/e" ;;
    *sort) grep -q "^jvmprof: heap: --sort needs an order, retained, shallow or instances" "$T/e" ;;
    *) grep -q "^jvmprof: heap: --sort orders the classes of --retained" "$T/e" ;;
    esac || fail "heap $args: $(cat "$T/e")"
done
RC=0; "$JVMPROF" heap "$T/live.hprof" --retained --fix 2>"$T/e" || RC=$?
[ "$RC" = 2 ] || fail "--retained --fix accepted"
exit 0
