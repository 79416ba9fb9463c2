# help: the option table on stderr, exit 0, nothing on stdout; every option listed.
. "$(dirname "$0")/lib.sh"
run_java help Hello
expect_rc 0
[ ! -s "$T/out" ] || fail "help wrote to stdout"
for o in help cpu= monitor= format= file= depth= interval= cutoff= lineno= thread= doe= force= verbose= sampler= wall= flame= collapsed= include= exclude= tiny=; do
    expect_grep "$o" "$T/err"
done
"$JVMPROF" options >"$T/cli" || fail "jvmprof options failed"
grep -q "interval=1..60000" "$T/cli" || fail "jvmprof options lacks the option table"
"$JVMPROF" --help | grep -q "report FILE" || fail "jvmprof --help lacks report"
"$JVMPROF" version | grep -Eq '^jvmprof [0-9]+\.[0-9]+' || fail "jvmprof version"
