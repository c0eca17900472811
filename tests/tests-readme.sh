#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/README keeps in step with Makefile.am (issue 42, item 8): every test that make check
# runs (TESTS: the guest stages, check_suites, test_scripts, in either branch of
# ENABLE_SANITIZERS) and every libFuzzer target (fuzz_targets) has an entry there, a line
# that starts with two spaces and the test's path under tests/ (check_qos, daemon.sh,
# guest-rxe/run.sh, fuzz/fuzz_dcb); and every such entry of a test or fuzz target names one
# that Makefile.am has. Reads the files only: no build needed.
. "${top_srcdir:-.}/tests/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk="$top_srcdir/Makefile.am"
readme="$top_srcdir/tests/README"

# make_words VAR...: the words assigned to each VAR (= and +=, continuation lines joined)
# in Makefile.am, one a line, $(check_suites) and $(test_scripts) expanded.
make_words() {
    awk -v vars=" $* " '
        { line = $0; while (line ~ /\\$/ && (getline next_line) > 0) line = substr(line, 1, length(line) - 1) " " next_line
          if (match(line, /^[A-Za-z_]+ *\+?= */)) {
              name = line; sub(/ *\+?=.*/, "", name)
              if (index(vars, " " name " ")) { rest = substr(line, RLENGTH + 1); n = split(rest, w, /[ \t]+/)
                  for (i = 1; i <= n; i++) if (w[i] != "") print w[i] } } }' "$mk"
}
{ make_words TESTS fuzz_targets | grep -v '^\$('; make_words check_suites test_scripts; } |
    sed 's|^tests/||' | sort -u > "$tmp/make"
[ "$(grep -c . "$tmp/make")" -ge 50 ] && pass "Makefile.am names $(wc -l < "$tmp/make") tests and fuzz targets" ||
    fail "Makefile.am's tests not read: $(tr '\n' ' ' < "$tmp/make")"
for want in guest-rxe/run.sh check_policy layers.sh fuzz/fuzz_policy; do
    grep -qxF "$want" "$tmp/make" && pass "read from Makefile.am: $want" || fail "not read from Makefile.am: $want"
done

# The entries of tests/README: a line's first word after two spaces.
sed -n 's/^  \([^ ]\{1,\}\).*/\1/p' "$readme" | sort -u > "$tmp/entries"
# ... those that name a test or fuzz target (guest/ and other folders are not tests).
grep -E '^(check_[a-z_]+|[a-z0-9-]+\.sh|guest-[a-z-]+/run\.sh|fuzz/fuzz_[a-z_]+)$' "$tmp/entries" > "$tmp/named"

missing=$(comm -23 "$tmp/make" "$tmp/entries")
[ -z "$missing" ] && pass "every test and fuzz target of Makefile.am has its entry in tests/README" ||
    fail "tests/README has no entry for: $(echo $missing)"
stale=$(comm -13 "$tmp/make" "$tmp/named")
[ -z "$stale" ] && pass "every test tests/README names is in Makefile.am" ||
    fail "tests/README names what Makefile.am does not run: $(echo $stale)"
finish
