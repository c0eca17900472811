#!/bin/sh
# SPDX-License-Identifier: ISC
# The README is for operators, and stays short and true (issue 43, item 4):
# - at most 150 lines;
# - it starts with the two commands of a fresh Debian 12 machine: its first two command
#   lines (indented by four spaces) are ./scripts/run-once.sh and ./scripts/test.sh, within
#   its first 10 lines; both scripts are there, executable and parse under sh -n (CI calls
#   the second: .ci/run);
# - every man page of fabtune's it names, fabtune*(N), is in man/ or built there
#   (Makefile.am); every file of the tree it names (scripts/, conf/, contrib/, man/,
#   systemd/, tests/, ...) is there (or its .in, or the .c a program is built from; a glob
#   matches a file; a NAME placeholder is skipped); every installed file of fabtune's it
#   names (/usr/share/fabtune/..., /usr/libexec/fabtune/...) is one that Makefile.am
#   installs; a source file named bare (read_floor.c) is some file of the tree; the same
#   for HACKING;
# - the report it shows is fabtuned's today, run here on the build's fixture tree that the
#   README names: its lines, its errors and warnings (by check and rail: how they fold may
#   change), its verdict line last.
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
readme="$top_srcdir/README"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=$(wc -l < "$readme")
[ "$n" -le 150 ] && pass "README is $n lines (at most 150)" || fail "README is $n lines, over 150"

# The command lines: indented by four spaces, before the first line that is not (the
# first block of the README).
grep -n '^    [^ ]' "$readme" | head -2 > "$tmp/first"
[ "$(cut -d: -f2- "$tmp/first" | tr '\n' '|')" = "    ./scripts/run-once.sh|    ./scripts/test.sh|" ] &&
    pass "the README's first two commands are ./scripts/run-once.sh and ./scripts/test.sh" ||
    fail "the README's first two command lines: $(cut -d: -f2- "$tmp/first" | tr '\n' '|')"
[ "$(tail -1 "$tmp/first" | cut -d: -f1)" -le 10 ] 2>/dev/null &&
    pass "the two commands are within the README's first 10 lines" ||
    fail "the two commands come late: lines $(cut -d: -f1 "$tmp/first" | tr '\n' ' ')"
for script in scripts/run-once.sh scripts/test.sh; do
    if [ -x "$top_srcdir/$script" ] && sh -n "$top_srcdir/$script"; then
        pass "$script is executable and parses"
    else
        fail "$script is not there, not executable, or does not parse"
    fi
done
# .ci/ stays out of the tarball (scripts/test.sh --distcheck): there, nothing to check.
if [ -d "$top_srcdir/.ci" ]; then
    grep -q 'scripts/test\.sh' "$top_srcdir/.ci/run" && pass "CI runs the README's test command" ||
        fail ".ci/run does not call scripts/test.sh"
else
    echo "skip: no .ci/ in this tree (a tarball): CI's call of scripts/test.sh not checked"
fi

# names DOC: what DOC names, one a line: "man NAME.N", "file PATH", "installed PATH".
names() {
    grep -o 'fabtune[a-z.-]*([1-8])' "$1" | sed 's/^\(.*\)(\([1-8]\))$/man \1.\2/'
    grep -oE '(^|[ `(])(\./)?(scripts|conf|contrib|man|systemd|tests|src|bench|debian|shell-completion|build-aux)/[A-Za-z0-9_./*-]*[A-Za-z0-9_/*-]' "$1" |
        sed -E 's/^[ `(]//; s|^\./||; s/^/file /'
    grep -oE '(^|[ `(])(HACKING|LICENSE|Makefile\.am|configure\.ac|\.ci/run)\b' "$1" | sed -E 's/^[ `(]//; s/^/file /'
    grep -oE '/usr/(share|libexec)/fabtune/[A-Za-z0-9_./-]*[A-Za-z0-9_-]' "$1" | sed 's/^/installed /'
    # A bare source file's name (read_floor.c in a table of bench/): some file of the tree.
    grep -oE '(^|[ `(,])[a-z0-9_-]+\.(sh|c|h)\b' "$1" | sed -E 's/^[ `(,]//; s/^/source /'
}
find "$top_srcdir" -path "$top_srcdir/build*" -prune -o -type f -print | sed 's|.*/||' | sort -u > "$tmp/basenames"
for doc in README HACKING; do
    names "$top_srcdir/$doc" | sort -u > "$tmp/names"
    [ "$(grep -c '^man ' "$tmp/names")" -ge 3 ] && [ "$(grep -c '^file ' "$tmp/names")" -ge 3 ] &&
        pass "$doc names $(grep -c '^man ' "$tmp/names") man pages and $(grep -c -v '^man ' "$tmp/names") files" ||
        fail "$doc's names not read: $(tr '\n' ' ' < "$tmp/names")"
    bad=""
    while read -r kind name; do
        case $kind in
            man) [ -f "$top_srcdir/man/$name" ] || grep -q "man/$name" "$top_srcdir/Makefile.am" ;;
            file) case $name in
                      *NAME*) true ;;
                      .ci/*) [ ! -d "$top_srcdir/.ci" ] || [ -e "$top_srcdir/$name" ] ;;
                      *'*'*) # shellcheck disable=SC2086
                             [ -n "$(cd "$top_srcdir" && ls -d $name 2>/dev/null)" ] ;;
                      *) [ -e "$top_srcdir/$name" ] || [ -e "$top_srcdir/$name.in" ] ||
                             [ -e "$top_srcdir/$name.c" ] ;;
                  esac ;;
            installed) grep -q "/$(basename "$name")\b" "$top_srcdir/Makefile.am" ;;
            source) grep -qxF "$name" "$tmp/basenames" || grep -qxF "$name.in" "$tmp/basenames" ;;
        esac || bad="$bad $kind:$name"
    done < "$tmp/names"
    [ -z "$bad" ] && pass "every man page, file and installed path $doc names is there" ||
        fail "$doc names what is not there:$bad"
done

# The report: the README's "# fabtuned --once ..." line names the fixture tree (under
# /tmp/fx, as tests/fixtures/README makes them), and its block (the indented lines after it,
# "[...]" marking a cut) is fabtuned's output today: each line outside the findings as it
# prints it, each error or warning shown as a row of that severity and check id on that
# rail (how the findings fold may change), and the verdict line its last.
cmd=$(sed -n 's/^    # \(fabtuned --once [^#]*\)$/\1/p' "$readme" | head -1)
awk -v cmd="    # $cmd" '$0 == cmd { on = 1; next } on && /^    / { print substr($0, 5); next }
    on && /^$/ { print; next } on { exit }' "$readme" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$tmp/shown"
if [ -z "$cmd" ] || ! grep -q '^verdict: ' "$tmp/shown"; then
    fail "the README shows no '# fabtuned --once ...' report with a verdict line"
elif [ ! -x "$fabtuned" ]; then
    fail "no fabtuned built at $fabtuned"
else
    fx=$(shared_fixtures)
    # shellcheck disable=SC2046
    set -- $(echo "$cmd" | sed "s|^fabtuned ||; s|/tmp/fx/|$fx/|g")
    "$fabtuned" "$@" > "$tmp/report" 2> "$tmp/err"
    rc=$?
    bad=0 in_findings=no
    while IFS= read -r line; do
        case $line in
            "[...]"|"") continue ;;
            findings:) in_findings=yes ;;
            verdict:*) in_findings=no ;;
        esac
        if [ $in_findings = yes ]; then
            case $line in
                "  error "*|"  warning "*)
                    # shellcheck disable=SC2086
                    set -- $line
                    grep -qE "^  $1 +$2 +(on )?${3%:}" "$tmp/report" && continue ;;
                *) continue ;;
            esac
        else
            grep -qxF -- "$line" "$tmp/report" && continue
        fi
        fail "the README's report shows a line '$cmd' does not print: '$line'"; bad=1
    done < "$tmp/shown"
    [ $bad = 0 ] && pass "the README's report is fabtuned's (exit $rc): $(grep -c . "$tmp/shown") lines shown"
    [ "$(tail -1 "$tmp/shown")" = "$(tail -1 "$tmp/report")" ] &&
        pass "the README's report ends as fabtuned's does: $(tail -1 "$tmp/report")" ||
        fail "the README's report ends '$(tail -1 "$tmp/shown")', fabtuned's '$(tail -1 "$tmp/report")'"
fi
finish
