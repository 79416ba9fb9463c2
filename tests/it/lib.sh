# lib.sh — shared by the integration tests (tests/it/tNNNN-*.sh): where the
# JDK, the agent and the compiled test programs are, and small assertions.
# Each test runs in its own scratch directory ($T) and exits non-zero on failure.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
JAVA_HOME=${JAVA_HOME:-$("$ROOT/tools/java-home.sh")}
JAVA="$JAVA_HOME/bin/java"
# the JDK's feature version (17, 25 ...): tests/run.sh runs the JVM tests on JDK 17 and again on JDK 25
JDK_FEATURE=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null)
JDK_FEATURE=${JDK_FEATURE:-0}
AGENT="$ROOT/build/libjvmprof.so"
JVMPROF="$ROOT/build/jvmprof"
# the test programs, compiled by the JDK that runs them: one directory per JDK feature version
CLASSES="$ROOT/build/it/classes-$JDK_FEATURE"
T=$(mktemp -d "${TMPDIR:-/tmp}/jvmprof-it.XXXXXX")
# KEEP_T=1 keeps the test's temporary directory, to look at what a failing test saw. The processes a
# test starts in the background and lists in PIDS (PIDS+=("$!")) are killed when it ends.
PIDS=()
trap 'exec 2>/dev/null; for p in "${PIDS[@]}"; do kill -9 "$p"; done; [ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT

# Compile the test programs once per build (tests/run.sh does it up front too).
if [ ! -f "$CLASSES/.stamp" ] || [ -n "$(find "$ROOT/tests/programs" -newer "$CLASSES/.stamp" -name '*.java')" ]; then
    mkdir -p "$CLASSES"
    "$JAVA_HOME/bin/javac" -d "$CLASSES" -cp "$ROOT/build/jvmprof.jar" "$ROOT"/tests/programs/*.java && touch "$CLASSES/.stamp"
fi

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "  $*" >&2; }

# run_java OPTIONS CLASS ARGS... : runs a test program with the agent (OPTIONS
# empty = no agent); stdout in $T/out, stderr in $T/err, exit code in $RC.
run_java() {
    local opts=$1; shift
    local agent=()
    if [ -n "$opts" ]; then agent=("-agentpath:$AGENT=$opts"); fi
    RC=0
    timeout -k 10 120 "$JAVA" "${agent[@]}" -cp "$CLASSES" "$@" >"$T/out" 2>"$T/err" || RC=$?
}

expect_rc() { [ "$RC" = "$1" ] || { cat "$T/err" >&2; fail "exit code $RC, expected $1"; }; }
expect_grep() { grep -q -- "$1" "$2" || { echo "--- $2:" >&2; head -60 "$2" >&2; fail "no '$1' in $2"; }; }
expect_no_grep() { ! grep -q -- "$1" "$2" || fail "unexpected '$1' in $2"; }

# expect_refused OPTIONS TEXT: the agent refuses OPTIONS (given to Hello) in one line holding TEXT
expect_refused() {
    run_java "$1" Hello
    [ "$RC" != 0 ] || fail "$1: accepted"
    [ "$(wc -l <"$T/err")" = 1 ] || fail "$1: not one line: $(cat "$T/err")"
    grep -q -- "$2" "$T/err" || fail "$1: no '$2' in: $(cat "$T/err")"
}

# cpu_rows FILE: the CPU SAMPLES rows as "rank self% count trace method"
cpu_rows() { sed -n '/^CPU SAMPLES BEGIN/,/^CPU SAMPLES END/p' "$1" | grep -E '^ *[0-9]+ ' ; }
# trace_of FILE SERIAL: the frames of TRACE SERIAL
trace_of() { awk -v s="TRACE $2:" 'index($0, s) == 1 {on=1; next} /^[A-Z]/ {on=0} on' "$1"; }
# site_objs FILE CLASS [REGEX]: objects allocated at the SITES rows of CLASS (all, or those whose
# trace's first frame matches the extended REGEX); sampled-caller lines are not rows
site_objs() {
    local f=$1 c=$2 re=${3:-} t s=0 n
    for t in $(awk -v c="$c" '$1 ~ /^[0-9]+$/ && $9 == c {print $8}' "$f" | sort -u); do
        [ -z "$re" ] || trace_of "$f" "$t" | head -1 | grep -Eq -- "$re" || continue
        n=$(awk -v c="$c" -v t="$t" '$1 ~ /^[0-9]+$/ && $9 == c && $8 == t {s += $7} END {print s + 0}' "$f")
        s=$((s + n))
    done
    echo $s
}
# src_line FILE TEXT: the number of the first line of FILE holding TEXT
# wait_line FILE PATTERN: waits (90 s at most) for a line of FILE that PATTERN (grep's) matches
wait_line() {
    for _ in $(seq 900); do
        grep -q -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    fail "no line '$2' in $1: $(cat "$1" 2>/dev/null)"
}
src_line() { grep -nF -- "$2" "$1" | head -1 | cut -d: -f1; }
# allockinds_arrays FILE: AllocKinds' arrays in FILE's SITES rows, exactly as the program made them:
# each primitive array kind 20000 times at its line, int[2][3] 5000 times with its 10000 rows
allockinds_arrays() {
    local f=$1 src="$ROOT/tests/programs/AllocKinds.java" c n want
    _ak_at() { site_objs "$f" "$1" "^\s*AllocKinds\.main\(AllocKinds\.java:$(src_line "$src" "$2")\)"; }
    for want in 'boolean 4' 'byte 4' 'char 4' 'short 4' 'int 4' 'float 4' 'long 2' 'double 2'; do
        c=${want% *} n=$(_ak_at "${want% *}[]" "new $c[${want#* }]")
        [ "$n" = 20000 ] || fail "$f: $c[] at 'new $c[${want#* }]': $n, not 20000"
    done
    n=$(_ak_at 'int[][]' 'new int[2][3]')
    [ "$n" = 5000 ] || fail "$f: int[][]: $n, not 5000"
    n=$(_ak_at 'int[]' 'new int[2][3]')
    [ "$n" = 10000 ] || fail "$f: int[] rows of int[2][3]: $n, not 10000"
}

# serve_up COMMAND DIR [ARGS...]: COMMAND serve --listen 0 --dir DIR ARGS in the background, its pid in SPID,
# the port it took in PORT, its stderr in $T/serve.log
serve_up() {
    local cmd=$1 dir=$2
    shift 2
    "$cmd" serve --listen 0 --dir "$dir" "$@" 2>"$T/serve.log" &
    SPID=$!
    for _ in $(seq 100); do
        PORT=$(sed -n 's/^jvmprof serve: listening on 127\.0\.0\.1:\([0-9]*\), .*/\1/p' "$T/serve.log")
        [ -n "$PORT" ] && return 0
        sleep 0.05
    done
    fail "serve did not start: $(cat "$T/serve.log")"
}
# serve_said ERE [COUNT]: until serve's log has COUNT (1) lines matching ERE, 60 s at most. A JVM may end
# before serve has acted on all it sent (the agent waits 1 s for the last acks, then closes), so a test reads
# serve's files only once serve said it is done with the connection.
serve_said() {
    local n=${2:-1}
    for _ in $(seq 600); do
        [ "$(grep -cE "$1" "$T/serve.log")" -ge "$n" ] && return 0
        sleep 0.1
    done
    fail "serve did not say $n x '$1' in 60 s: $(cat "$T/serve.log")"
}
# proc_cpu_ticks PID: the CPU the process has used (user + system), in clock ticks
proc_cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'; }
# wait_cpu PID SECONDS: until the process has used SECONDS more of CPU (a minute of wall time at most), so
# that a busy machine makes a test wait longer, not see fewer samples
wait_cpu() {
    local hz start now
    hz=$(getconf CLK_TCK)
    start=$(proc_cpu_ticks "$1")
    [ -n "$start" ] || fail "wait_cpu: no process $1"
    for _ in $(seq 1200); do
        now=$(proc_cpu_ticks "$1")
        [ -n "$now" ] || fail "wait_cpu: process $1 ended"
        awk -v a="$start" -v b="$now" -v hz="$hz" -v s="$2" 'BEGIN { exit !((b - a) / hz >= s) }' && return 0
        sleep 0.05
    done
    fail "process $1 did not use $2 s of CPU in a minute"
}
# wait_ready PID: until the JVM handles SIGQUIT (its attach listener can be woken)
wait_ready() {
    for _ in $(seq 400); do
        sig=$(sed -n 's/^SigCgt:\t//p' "/proc/$1/status" 2>/dev/null)
        [ -n "$sig" ] && (( (16#$sig >> 2) & 1 )) && return 0
        sleep 0.05
    done
    fail "process $1 never handled SIGQUIT"
}
# AWK_THREAD_START: an awk rule (prepend it to a program) that reads an ASCII report's THREAD START
# lines into name[id], group[id] and carrier[id] (a virtual thread's carrier's id; "" for others)
AWK_THREAD_START='
    /^THREAD START/ {
        id = $0; sub(/.*id = /, "", id); sub(/,.*/, "", id)
        nm = $0; sub(/.*name="/, "", nm); sub(/".*/, "", nm)
        gr = $0; sub(/.*group="/, "", gr); sub(/".*/, "", gr)
        ca = ""; if ($0 ~ /carrier=/) { ca = $0; sub(/.*carrier=/, "", ca); sub(/\).*/, "", ca) }
        name[id] = nm; group[id] = gr; carrier[id] = ca
    }
'
