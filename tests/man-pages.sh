#!/bin/sh
# SPDX-License-Identifier: ISC
# The man pages as a reader sees them (the three written ones, and fabtune-checks(7) as the
# build generates it): groff renders each without a warning; the rendered text has no glued
# run that roff makes of a misplaced macro argument (".BR STATUS= . One pass" renders
# "STATUS=.Onepassrunsatatime"; "N\(mulk" renders "N×lk"); and no .TP tag goes on past its
# one input line into the body (a tag ".BR checks " [" \-\-rail" followed by ".IR RAIL ]"
# renders the tag "checks [--rail" and "RAIL ]" as the body's first words): each tag, rendered
# alone, closes every bracket and parenthesis it opens. mandoc -Tlint catches none of them.
# Each written page has an EXAMPLES section (fabtune.yaml(5): EXAMPLE).
. "${top_srcdir:-.}/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# open_tags PAGE: each .TP tag of PAGE that, rendered alone, leaves a bracket or parenthesis
# open; one a line.
open_tags() {
    awk 'BEGIN { print ".TH T 1"; print ".SH X"; print "@@" }
         prev == ".TP" { print ".TP"; print; print "@@" }
         { prev = $1 }' "$1" |
        groff -man -Tutf8 -rHY=0 -rLL=250n 2>/dev/null | sed 's/.\x08//g; s/\x1b\[[0-9;]*m//g' |
        tr '\n' ' ' | sed 's/@@/\n/g' |
        awk '{ t = $0; gsub(/^ +| +$/, "", t)
               if (gsub(/\[/, "[", t) != gsub(/\]/, "]", t) || gsub(/\(/, "(", t) != gsub(/\)/, ")", t))
                   print t }'
}

for page in fabtuned.8 fabtunectl.1 fabtune.yaml.5 fabtune-checks.7; do
    src="$top_srcdir/man/$page"
    [ "$page" = fabtune-checks.7 ] && src="$top_builddir/man/$page"
    # -ww: every warning; -rHY=0: no hyphenation, so a glued run stays one word.
    groff -man -Tutf8 -ww -rHY=0 -rLL=80n "$src" > "$tmp/$page.txt" 2> "$tmp/$page.warn"
    expect_none_file() {
        if [ -s "$2" ]; then fail "$1:"; sed 's/^/    /' "$2" | head -10; else pass "$1"; fi
    }
    expect_none_file "groff renders $page without a warning" "$tmp/$page.warn"
    # Strip the overstrike and SGR sequences of bold and underlined text first.
    sed 's/.\x08//g; s/\x1b\[[0-9;]*m//g' "$tmp/$page.txt" > "$tmp/$page.plain"
    # A sentence glued to the word before it, a word of 30 letters, a sign glued to two letters.
    grep -nE '[a-z0-9=]\.[A-Z][a-z]+[a-z]|[A-Za-z]{30,}|×[a-z]{2}' "$tmp/$page.plain" \
        > "$tmp/$page.glued"
    expect_none_file "no glued run in the rendered $page" "$tmp/$page.glued"
    open_tags "$src" > "$tmp/$page.tags"
    expect_none_file "every .TP tag of $page ends on its own line" "$tmp/$page.tags"
    [ "$page" = fabtune-checks.7 ] || expect_match '^EXAMPLES*$' "$tmp/$page.plain"
done
# fabtune-checks(7) is the table's: one entry per id (tests/check_check_ids holds which).
[ "$(grep -c '^\.TP$' "$top_builddir/man/fabtune-checks.7")" -ge 60 ] &&
    pass "fabtune-checks(7) has an entry per check id" || fail "fabtune-checks(7) is short"

# The checker catches what it is for: a page with both faults fails it.
printf '.TH T 1\n.SH NAME\nt\n.PP\nsends\n.BR STATUS= . One pass runs at a time\nN\\(mulk paths\n' > "$tmp/bad.1"
groff -man -Tutf8 -rHY=0 "$tmp/bad.1" 2>/dev/null | sed 's/.\x08//g; s/\x1b\[[0-9;]*m//g' > "$tmp/bad.plain"
if [ "$(grep -oE '[a-z0-9=]\.[A-Z][a-z]+[a-z]|[A-Za-z]{30,}|×[a-z]{2}' "$tmp/bad.plain" | wc -l)" -ge 2 ]; then
    pass "a page with a glued STATUS= and N×lk fails the check"
else
    fail "the glued-run check misses a known bad page:"; sed 's/^/    /' "$tmp/bad.plain"
fi
# And a tag that goes on over two input lines, as fabtunectl(1)'s checks tag did.
printf '.TH T 1\n.SH C\n.TP\n.BR checks " [" \\-\\-rail\n.IR RAIL ]\nEvery finding.\n' > "$tmp/tag.1"
if [ "$(open_tags "$tmp/tag.1")" = "checks [--rail" ]; then
    pass "a tag broken over two lines fails the check"
else
    fail "the tag check misses a known broken tag: '$(open_tags "$tmp/tag.1")'"
fi
finish
