# A lambda's frame has the same name in every run: its hidden class's JVM name
# ends in the class's address (LambdaHot$$Lambda$14/0x0000000800c02a00), which
# the reports leave out, as other profilers do (symbols_class_name). JDK 21+
# names it without the counter (LambdaHot$$Lambda/0x000071c3c8003000).
. "$(dirname "$0")/lib.sh"
for i in 1 2; do
    run_java "cpu=samples,depth=4,file=$T/r$i.txt" LambdaHot 800
    expect_rc 0
    grep -o 'LambdaHot\$\$Lambda[$.][^ (]*' "$T/r$i.txt" | sort -u >"$T/names$i"
    [ -s "$T/names$i" ] || { cat "$T/r$i.txt" >&2; fail "run $i: no lambda frame in the report"; }
done
expect_no_grep '0x[0-9a-f]\{8,\}' "$T/r1.txt"
cmp -s "$T/names1" "$T/names2" || fail "lambda frames differ between runs: $(cat "$T/names1") / $(cat "$T/names2")"
note "lambda frame: $(head -1 "$T/names1")"
echo "t2005 ok"
