# net=HOST:PORT and jvmprof serve: the files serve writes are those the
# agent writes locally (report, flame graph, trace), for two JVMs at once;
# serve killed mid-run: the program finishes as it would and its report says
# what was lost; a front end never there: the same; serve survives a client
# that stops in the middle of a frame or speaks something else; bad
# arguments to serve.
. "$(dirname "$0")/lib.sh"
JVMPROF="$ROOT/build/jvmprof"
SPID=""
trap 'exec 2>/dev/null; [ -n "$SPID" ] && kill -9 "$SPID"; rm -rf "$T"' EXIT

# start_serve: jvmprof serve on a free port of 127.0.0.1; its pid in SPID, its port in PORT
start_serve() {
    mkdir -p "$T/srv"
    serve_up "$JVMPROF" "$T/srv"
}
net_count() { sed -n "s/^net=127\.0\.0\.1:$PORT: $2 \([0-9]*\)$/\1/p" "$1"; }

# two JVMs at once: each one's files, the same bytes there as here
start_serve
for n in 1 2; do
    mkdir -p "$T/l$n"
    "$JAVA" "-agentpath:$AGENT=cpu=samples,interval=5,trace=exec+thread,include=HotLoop,tracefile=$T/l$n/h.trace,file=$T/l$n/h.txt,flame=$T/l$n/h.html,net=127.0.0.1:$PORT" \
        -cp "$CLASSES" HotLoop 2 >"$T/l$n/out" 2>"$T/l$n/err" &
    eval "J$n=\$!"
done
wait "$J1" || fail "JVM 1 ended with $?: $(cat "$T/l1/err")"
wait "$J2" || fail "JVM 2 ended with $?: $(cat "$T/l2/err")"
serve_said ': done \(' 2
for n in 1 2; do
    jp=$(eval echo "\$J$n")
    [ "$(cat "$T/l$n/out")" = done ] || fail "JVM $n's output changed: $(cat "$T/l$n/out")"
    d=$(ls -d "$T"/srv/*-"$jp" 2>/dev/null)
    [ -d "$d" ] || fail "serve has no directory for pid $jp: $(ls "$T/srv"); $(cat "$T/serve.log")"
    for f in h.txt h.html h.trace; do
        cmp "$T/l$n/$f" "$d/$f" >&2 || fail "JVM $n: serve's $f differs from the local one"
    done
    [ "$(net_count "$T/l$n/h.txt" "bytes lost (front end slow, gone or never there)")" = 0 ] ||
        fail "JVM $n lost bytes: $(grep '^net=' "$T/l$n/h.txt")"
    grep -q "pid $jp (127.0.0.1): done (files 3, bytes dropped 0)" "$T/serve.log" || fail "serve: $(cat "$T/serve.log")"
done
"$JVMPROF" trace "$T/srv"/*-"$J1"/h.trace >/dev/null 2>"$T/e" || fail "serve's trace is not readable: $(cat "$T/e")"
note "two JVMs: report, flame graph and trace the same there as here ($(stat -c %s "$T/l1/h.trace") trace bytes)"

# a client that stops in the middle of a frame, and one that is not a jvmprof agent: serve goes on
python3 - "$PORT" <<'PY' || fail "the raw clients could not connect"
import socket, struct, sys
port = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", port))
hello = b"31337\0rawhost\0x\0"
s.sendall(b"JPNET 2\n" + struct.pack("<BII", 1, 0, len(hello)) + hello)
s.sendall(struct.pack("<BII", 2, 1, 6) + b"Ahalf")            # a begin cut short
s.close()
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"GET / HTTP/1.0\r\n\r\n")
s.close()
PY
sleep 0.5
grep -q "rawhost pid 31337 (127.0.0.1): the connection ended in the middle of a frame" "$T/serve.log" ||
    fail "serve said nothing of the cut frame: $(cat "$T/serve.log")"
grep -q "not the jvmprof net protocol" "$T/serve.log" || fail "serve said nothing of the stranger: $(cat "$T/serve.log")"
kill -0 "$SPID" || fail "serve died"

# serve killed mid-run: the program finishes as it would, its report says what was lost
mkdir -p "$T/k"
"$JAVA" "-agentpath:$AGENT=cpu=samples,trace=exec+thread,include=HotLoop,tracefile=$T/k/h.trace,file=$T/k/h.txt,net=127.0.0.1:$PORT" \
    -cp "$CLASSES" HotLoop 3 >"$T/k/out" 2>"$T/k/err" &
JP=$!
sleep 1.5
kill -9 "$SPID"
wait "$SPID" 2>/dev/null
SPID=""
wait "$JP" || fail "the JVM whose front end was killed ended with $?: $(cat "$T/k/err")"
[ "$(cat "$T/k/out")" = done ] || fail "the program's output changed"
lost=$(net_count "$T/k/h.txt" "bytes lost (front end slow, gone or never there)")
[ "${lost:-0}" -gt 0 ] || fail "the report does not say what was lost: $(grep '^net=' "$T/k/h.txt")"
grep -q "^net=127.0.0.1:$PORT: stream broken at this second of the session (connection lost: " "$T/k/h.txt" ||
    fail "the report does not say the stream broke: $(grep '^net=' "$T/k/h.txt")"
"$JVMPROF" trace "$T/k/h.trace" >/dev/null || fail "the local trace is not whole"
note "serve killed mid-run: $lost bytes lost, said in the report; the local files whole"

# a front end never there
RC=0
run_java "cpu=samples,file=$T/n.txt,net=127.0.0.1:1" HotLoop 1
expect_rc 0
grep -q "^net=127.0.0.1:1: stream broken at this second of the session (could not connect: Connection refused) 0$" "$T/n.txt" ||
    fail "never there: $(grep '^net=' "$T/n.txt")"
expect_grep "^jvmprof: net=127.0.0.1:1: could not connect (Connection refused): the outputs are written here only$" "$T/err"

# bad arguments, one line each
"$JVMPROF" serve --listen abc 2>"$T/e"; [ $? = 2 ] || fail "--listen abc: not a usage error"
grep -q "expected \[HOST:\]PORT" "$T/e" || fail "--listen abc: $(cat "$T/e")"
"$JVMPROF" serve --listen 0 --dir "$T/nonexistent" 2>"$T/e"; [ $? = 2 ] || fail "--dir missing: not a usage error"
[ "$(cat "$T/e")" = "jvmprof: serve: --dir $T/nonexistent: not a directory" ] || fail "--dir: $(cat "$T/e")"
run_java "cpu=samples,net=localhost" HotLoop 1
[ "$RC" != 0 ] || fail "net=localhost was accepted"
expect_grep "net=localhost: expected net=HOST:PORT" "$T/err"
