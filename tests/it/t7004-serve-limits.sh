# jvmprof serve's limits and time-outs: many idle connections from one
# address do not lock a JVM out (--max-per-peer, 64 by default); with
# --timeout, a connection that sends nothing (before or after its hello) or
# stops in the middle of a frame is closed after that many seconds, while a
# JVM that has nothing to send for longer stays connected (its agent pings)
# and keeps all its files; bad values of the options, one line each.
. "$(dirname "$0")/lib.sh"
JVMPROF="$ROOT/build/jvmprof"
# serve runs under ASan+UBSan when make test built that jvmprof (and it is not older than the plain one)
SERVE="$ROOT/build/asan/jvmprof"
[ -x "$SERVE" ] && ! [ "$JVMPROF" -nt "$SERVE" ] || SERVE=$JVMPROF
SPID="" HPID=""
trap 'exec 2>/dev/null; [ -n "$HPID" ] && kill -9 "$HPID"; [ -n "$SPID" ] && kill -9 "$SPID"; rm -rf "$T"' EXIT

# start_serve ARGS...: jvmprof serve on a free port of 127.0.0.1 writing to a new $T/srv; its pid in SPID, its
# port in PORT, its stderr in $T/serve.log
start_serve() {
    if [ -n "$SPID" ]; then kill "$SPID"; wait "$SPID"; fi
    rm -rf "$T/srv" && mkdir "$T/srv"
    serve_up "$SERVE" "$T/srv" "$@"
}
net_lost() { sed -n "s/^net=127\.0\.0\.1:$PORT: bytes lost (front end slow, gone or never there) \([0-9]*\)$/\1/p" "$1"; }
# hog N [KINDS]: N connections from 127.0.0.2 (another address of the loopback), held open in the background
# (pid in HPID); each "idle" (sends nothing), "hello" (a hello, then nothing) or "half" (a hello and half a
# frame), as KINDS says in turn (idle only if not given). Writes to $T/hog.log, for each connection that
# serve closed, the seconds it was open; "ready N" once N are connected.
hog() {
    python3 - "$PORT" "$1" "${2:-idle}" >"$T/hog.log" 2>&1 <<'PY' &
import select, socket, struct, sys, time
port, n, kinds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
socks = {}
for i in range(n):
    s = socket.socket()
    s.bind(("127.0.0.2", 0))
    s.connect(("127.0.0.1", port))
    kind = kinds[i % len(kinds)]
    hello = b"JPNET 2\n" + struct.pack("<BII", 1, 0, 12) + b"%05d\0hog\0x\0" % i
    if kind == "hello":
        s.sendall(hello)
    elif kind == "half":
        s.sendall(hello + struct.pack("<BII", 2, 1, 10) + b"Ah")
    socks[s] = (kind, time.monotonic())
print("ready", n, flush=True)
while socks:
    r, _, _ = select.select(list(socks), [], [], 60)
    if not r:
        break
    for s in r:
        try:
            if s.recv(4096, socket.MSG_DONTWAIT):
                continue  # an ack
        except BlockingIOError:
            continue
        except ConnectionResetError:
            pass
        kind, t0 = socks.pop(s)
        print("closed", kind, "%.1f" % (time.monotonic() - t0), flush=True)
PY
    HPID=$!
    for _ in $(seq 200); do
        grep -q "^ready" "$T/hog.log" && return 0
        sleep 0.05
    done
    fail "the connections were not made: $(cat "$T/hog.log")"
}

# 1. default limits: 100 idle connections from one address, and a JVM still gets through
start_serve
hog 100
sleep 0.5
run_java "cpu=samples,interval=5,file=$T/a.txt,net=127.0.0.1:$PORT" HotLoop 1
expect_rc 0
[ "$(net_lost "$T/a.txt")" = 0 ] || fail "the JVM lost bytes: $(grep '^net=' "$T/a.txt"); $(cat "$T/serve.log")"
d=$(sed -n 's/^jvmprof serve: .* pid [0-9]* (127\.0\.0\.1): connected, writing to //p' "$T/serve.log")
cmp "$T/a.txt" "$d/a.txt" >&2 || fail "serve's report differs: $(cat "$T/serve.log")"
grep -q "^jvmprof serve: 127.0.0.2: 64 connections from this address already (--max-per-peer 64): refused" \
    "$T/serve.log" || fail "serve did not say it refused: $(cat "$T/serve.log")"
[ "$(grep -c '^closed' "$T/hog.log")" = 36 ] || fail "not 36 of 100 refused: $(cat "$T/hog.log")"
kill "$HPID"
wait "$HPID" 2>/dev/null
HPID=""
note "100 idle connections from 127.0.0.2: 64 held, 36 refused, the JVM's files whole"

# 2. --timeout 3: silent connections and half frames closed after 3 s; a JVM silent for longer (cpu=samples for
# 6 s, its report at the end) pings and keeps its stream
start_serve --timeout 3 --max-conns 8 --max-per-peer 4
hog 6 idle,hello,half,idle,hello,half
run_java "cpu=samples,interval=5,file=$T/b.txt,net=127.0.0.1:$PORT" HotLoop 6
expect_rc 0
[ "$(net_lost "$T/b.txt")" = 0 ] || fail "the JVM lost bytes: $(grep '^net=' "$T/b.txt"); $(cat "$T/serve.log")"
d=$(sed -n 's/^jvmprof serve: .* pid [0-9]* (127\.0\.0\.1): connected, writing to //p' "$T/serve.log" | grep -v /hog-)
cmp "$T/b.txt" "$d/b.txt" >&2 || fail "serve's report differs: $(cat "$T/serve.log")"
for _ in $(seq 100); do
    [ "$(grep -c '^closed' "$T/hog.log")" = 6 ] && break
    sleep 0.1
done
[ "$(grep -c '^closed' "$T/hog.log")" = 6 ] || fail "not all closed: $(cat "$T/hog.log")"
# 4 held (--max-per-peer 4), 2 refused at once; the held ones closed after 3 s (a busy machine: less than 30 s)
awk '$1 == "closed" { n[$3 < 2 ? "refused" : ($3 >= 2.9 && $3 < 30) ? "timed out" : "other"]++ }
     END { exit !(n["refused"] == 2 && n["timed out"] == 4 && !n["other"]) }' "$T/hog.log" ||
    fail "not 2 refused and 4 timed out after 3 s: $(cat "$T/hog.log")"
grep -q "^jvmprof serve: 127.0.0.2: sent nothing for 3 s (--timeout 3): closed" "$T/serve.log" ||
    fail "serve did not say it closed an idle connection: $(cat "$T/serve.log")"
grep -q "^jvmprof serve: hog pid 0000[0-9] (127.0.0.2): sent nothing for 3 s (--timeout 3): closed" "$T/serve.log" ||
    fail "serve did not say it closed a silent one after its hello: $(cat "$T/serve.log")"
grep -q "^jvmprof serve: hog pid 0000[0-9] (127.0.0.2): the rest of a frame did not come for 3 s (--timeout 3): closed" \
    "$T/serve.log" || fail "serve did not say it closed a half frame: $(cat "$T/serve.log")"
grep -q "4 connections from this address already (--max-per-peer 4): refused" "$T/serve.log" ||
    fail "serve did not refuse the fifth: $(cat "$T/serve.log")"
note "--timeout 3: $(awk '$1 == "closed" && $3 >= 2 {printf "%s %ss, ", $2, $3}' "$T/hog.log")the JVM silent for 6 s kept"

# 3. bad values, one line each
"$JVMPROF" serve --listen 0 --timeout 1 2>"$T/e"; [ $? = 2 ] || fail "--timeout 1: not a usage error"
[ "$(cat "$T/e")" = "jvmprof: serve: --timeout 1: expected a whole number from 2 to 86400" ] || fail "$(cat "$T/e")"
"$JVMPROF" serve --listen 0 --max-conns 0 2>"$T/e"; [ $? = 2 ] || fail "--max-conns 0: not a usage error"
[ "$(cat "$T/e")" = "jvmprof: serve: --max-conns 0: expected a whole number from 1 to 4096" ] || fail "$(cat "$T/e")"
"$JVMPROF" serve --listen 0 --max-conns 4 --max-per-peer 5 2>"$T/e"; [ $? = 2 ] || fail "5 of 4: not a usage error"
[ "$(cat "$T/e")" = "jvmprof: serve: --max-per-peer 5: more than --max-conns 4" ] || fail "$(cat "$T/e")"

# serve itself (under ASan+UBSan when built so) stops cleanly, having reported no error
kill "$SPID"
wait "$SPID" || fail "serve ended with $?: $(tail -20 "$T/serve.log")"
SPID=""
! grep -E "Sanitizer|runtime error" "$T/serve.log" >&2 || fail "serve: a sanitizer's report"
note "serve: $SERVE"
