# Classes unloading while sampling every 1 ms: no crash, no hang, a report.
. "$(dirname "$0")/lib.sh"
RC=0
timeout -k 10 120 "$JAVA" "-agentpath:$AGENT=cpu=samples,interval=1,depth=8,file=$T/u.txt" -Xlog:class+unload=info:file="$T/unload.log" \
    -cp "$CLASSES" ClassUnload 300 >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0
expect_grep "rounds 300 ok true" "$T/out"
n=$(grep -c 'ClassUnload\$Victim' "$T/unload.log" || true)
note "$n Victim classes unloaded"
[ "$n" -gt 10 ] || fail "classes did not unload ($n), the test tests nothing"
expect_grep "CPU SAMPLES END" "$T/u.txt"
expect_grep "Victim.spin" "$T/u.txt"
