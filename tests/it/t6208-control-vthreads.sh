# jvmprof.Control with virtual threads (JDK 25; VThreadControl): 200
# virtual threads wait while Control stops the session given at load and
# starts trace=exec+user at run time (so they began before it, and are
# registered when they are next mounted); each then calls work() and
# Control.userEvent three times: every user event is named by the virtual
# thread that made it, @ a named carrier, and each one's work() calls
# balance.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/jdk25.sh"
N=200
run_java25 "cpu=samples,file=$T/p.txt" VThreadControl $N "$T/c.trace"
expect_rc 0
[ "$(cat "$T/out")" = "$(printf 'stop true\nstart true\nstop true')" ] || fail "Control said: $(cat "$T/out")"
"$JVMPROF" trace "$T/c.trace" >"$T/c.txt" || fail "jvmprof trace failed"
awk -v n=$N '
    $3 == "user" { split($2, w, "@"); if (w[1] != $4) wrong++; if (w[2] !~ /^ForkJoinPool-/) uncarried++; users[w[1]]++ }
    $3 == "enter" && $4 ~ /VThreadControl.work/ { split($2, w, "@"); en[w[1]]++ }
    $3 == "exit" && $4 ~ /VThreadControl.work/ { split($2, w, "@"); ex[w[1]]++ }
    END {
        for (v in users) { k++; if (users[v] != 3 || en[v] != 3 || ex[v] != 3) off++ }
        printf "threads %d off %d wrong %d uncarried %d\n", k, off, wrong, uncarried
    }' "$T/c.txt" >"$T/sum"
cat "$T/sum" >&2
[ "$(cat "$T/sum")" = "threads $N off 0 wrong 0 uncarried 0" ] ||
    fail "expected each of $N virtual threads to name its 3 user events and 3 balanced work() calls"
exit 0
