#!/bin/sh
# SPDX-License-Identifier: ISC
# The shell test library itself: a test that asserts nothing fails, and expect_grep takes
# its text as a fixed string while expect_match takes a regex.
. "${top_srcdir:-.}/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib="$top_srcdir/tests/lib.sh"

sh -c ". '$lib'; finish" > "$tmp/out" 2>&1
rc=$?
[ $rc -ne 0 ] && pass "finish with zero assertions fails (exit $rc)" || fail "finish with zero assertions passed"
expect_grep "no assertion ran" "$tmp/out"

echo "portXstate warning" > "$tmp/f"
sh -c ". '$lib'; expect_grep 'port.state' '$tmp/f'; finish" > "$tmp/out" 2>&1
[ $? -ne 0 ] && pass "expect_grep 'port.state' does not match 'portXstate'" ||
    fail "expect_grep took 'port.state' as a regex"
sh -c ". '$lib'; expect_match '^port.state' '$tmp/f'; finish" > "$tmp/out" 2>&1
[ $? -eq 0 ] && pass "expect_match '^port.state' matches 'portXstate'" || fail "expect_match is not a regex"
sh -c ". '$lib'; expect_grep 'X' '$tmp/f'; fail 'one'; finish" > "$tmp/out" 2>&1
[ $? -ne 0 ] && expect_grep "1 passed, 1 failed" "$tmp/out"
finish
