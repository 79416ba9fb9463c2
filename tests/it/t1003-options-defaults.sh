# options: each default is spelled once, in src/options/options_table.c (the
# parser starts from the table's defaults, parsed as the user's text is). No
# code assigns an option's field its default by hand any more, as
# options_parse_list did (interval_ms = 10, depth = 4, ...), and the cutoff
# default 0.0001 is written nowhere else. docs/options.md's option table is checked
# against the options table by tests/unit/test_options.c (test_readme_table).
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
TABLE=src/options/options_table.c
# known: the HPROF binary reader's report_opts starts from cutoff 0.0001 (the CLI
# overrides it with --cutoff, whose default comes from the table); left to the outputs work
KNOWN='^src/format/hprof_bin_read\.c:.*report_opts\)\{ 0\.0001,'

F='(->|\.)[[:space:]]*'
BY_HAND="${F}(interval_ms[[:space:]]*=[[:space:]]*10\b|depth[[:space:]]*=[[:space:]]*4\b|tiny[[:space:]]*=[[:space:]]*12\b"
BY_HAND="$BY_HAND|cutoff[[:space:]]*=[[:space:]]*0?\.0001|alloc_interval[[:space:]]*=[[:space:]]*(512[uU]?|524288)\b"
BY_HAND="$BY_HAND|format[[:space:]]*=[[:space:]]*'a'|dumper[[:space:]]*=[[:space:]]*'h'|alloc_hook[[:space:]]*=[[:space:]]*'s'"
BY_HAND="$BY_HAND|cpu[[:space:]]*=[[:space:]]*OPTIONS_CPU_SAMPLES\b|sampler[[:space:]]*=[[:space:]]*OPTIONS_SAMPLER_ASYNC\b"
BY_HAND="$BY_HAND|(lineno|doe|force|verbose)[[:space:]]*=[^;=]*(=[^;=]*)*\btrue[[:space:]]*;"
BY_HAND="$BY_HAND|(thread|monitor|lifetimes)[[:space:]]*=[[:space:]]*false[[:space:]]*;)"
grep -rnE "$BY_HAND" src --include='*.c' --include='*.h' | grep -v "^$TABLE:" >"$T/by_hand" || true
[ ! -s "$T/by_hand" ] || { cat "$T/by_hand" >&2; fail "an option's default assigned by hand outside $TABLE"; }

grep -rnE '0\.0001\b' src --include='*.c' --include='*.h' | grep -v "^$TABLE:" | grep -Ev "$KNOWN" >"$T/cutoff" || true
[ ! -s "$T/cutoff" ] || { cat "$T/cutoff" >&2; fail "the cutoff default spelled outside $TABLE"; }

# the table does hold them, and help shows them
grep -q '"interval", OPTIONS_KIND_UINT, "1..60000", "10"' "$TABLE" || fail "$TABLE lacks interval='s default"
"$JVMPROF" options >"$T/help" || fail "jvmprof options failed"
grep -Eq '^interval=1\.\.60000 +sample interval in ms \(event=: in events, 1\.\.1e9\) +10$' "$T/help" || fail "help lacks interval='s default"
grep -Eq '^cutoff=0\.\.1 .* 0\.0001$' "$T/help" || fail "help lacks cutoff='s default"
