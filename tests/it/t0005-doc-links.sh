# The manual's links: every relative link in README.md, docs/*.md,
# tests/README.md and bench/README.md names a file that exists and, into a
# Markdown page, a heading of it; README.md links every docs/ page. Broken
# links planted in a scratch copy must be found, so the check is known to work.
. "$(dirname "$0")/lib.sh"
python3 "$ROOT/tests/tools/doc_links.py" "$ROOT" >"$T/links" || { cat "$T/links" >&2; fail "broken links in the manual"; }
note "$(tail -1 "$T/links")"
mkdir -p "$T/r/docs" "$T/r/tests"
cp "$ROOT/README.md" "$T/r/" && cp "$ROOT"/docs/*.md "$T/r/docs/" && cp "$ROOT/tests/README.md" "$T/r/tests/"
for d in include examples bench src; do ln -s "$ROOT/$d" "$T/r/$d"; done
python3 "$ROOT/tests/tools/doc_links.py" "$T/r" >/dev/null || fail "the scratch copy's links do not resolve: $(python3 "$ROOT/tests/tools/doc_links.py" "$T/r")"
printf '\nSee [nowhere](missing.md) and [a heading](options.md#no-such-heading).\n' >>"$T/r/docs/formats.md"
printf '# Orphan\n' >"$T/r/docs/orphan.md"
! python3 "$ROOT/tests/tools/doc_links.py" "$T/r" >"$T/planted" || fail "planted broken links were not found"
grep -qx "docs/formats.md: missing.md: no such file" "$T/planted" &&
    grep -qx "docs/formats.md: options.md#no-such-heading: no heading #no-such-heading in docs/options.md" "$T/planted" &&
    grep -qx "README.md: no link to docs/orphan.md" "$T/planted" || fail "the planted links are not named: $(cat "$T/planted")"
echo "t0005 ok"
