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
#   change), its verdict line last;
# - its commands run as written where they can here (below), and the status it shows is
#   fabtunectl status's of a daemon on that tree.
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

# shown_block CMD: the README's block that follows its line "    # CMD", unindented, the
# trailing blank lines dropped.
shown_block() {
    awk -v cmd="    # $1" '$0 == cmd { on = 1; next } on && /^    / { print substr($0, 5); next }
        on && /^$/ { print; next } on { exit }' "$readme" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# same_block WHAT SHOWN REAL: each line of SHOWN ("[...]" marks a cut) is one of REAL, as
# it prints it, except within the findings (report) or the failing list (status), where
# each error or warning shown must be a row of that severity and check id on that rail
# (how findings fold may change), and the times of "last check:"; status's header lines
# are of its shape (their times, paths and digest are the daemon's of the day).
same_block() {
    what=$1 shown=$2 real=$3 bad=0 loose=no
    while IFS= read -r line; do
        case $line in
            "[...]"|""|"last check: "*) continue ;;
            findings:*|failing:) loose=yes ;;
            verdict:*|"rails: "*) loose=no ;;
            "fabtuned "*", up since "*)
                grep -qE '^fabtuned [0-9.]+, up since [0-9-]+ [0-9:]+ \([^)]*\); (not reloaded|reloaded .*)$' "$real" &&
                    continue ;;
            "policy: "*" (sha256 "*)
                grep -qE '^policy: .* \(sha256 [0-9a-f]{12}\), tuning mode (off|verify|enforce)$' "$real" && continue ;;
        esac
        if [ $loose = yes ]; then
            case $line in
                "  error "*|"  warning "*)
                    # shellcheck disable=SC2086
                    set -- $line
                    grep -qE "^  $1 +$2 +(on )?${3%:}" "$real" && continue ;;
                *) continue ;;
            esac
        else
            grep -qxF -- "$line" "$real" && continue
        fi
        fail "the README shows a line that $what does not print: '$line'"; bad=1
    done < "$shown"
    [ $bad = 0 ] && pass "the README's $what is real: $(grep -c . "$shown") lines shown, each as it prints"
}

# The report: the README's "# fabtuned --once ..." line names the fixture tree (under
# /tmp/fx, as tests/fixtures/README makes them); its block is fabtuned's output today, the
# verdict line its last.
fx=$(shared_fixtures)
cmd=$(sed -n 's/^    # \(fabtuned --once [^#]*\)$/\1/p' "$readme" | head -1)
shown_block "$cmd" > "$tmp/shown"
if [ -z "$cmd" ] || ! grep -q '^verdict: ' "$tmp/shown"; then
    fail "the README shows no '# fabtuned --once ...' report with a verdict line"
elif [ ! -x "$fabtuned" ]; then
    fail "no fabtuned built at $fabtuned"
else
    # shellcheck disable=SC2046
    "$fabtuned" $(echo "$cmd" | sed "s|^fabtuned ||; s|/tmp/fx/|$fx/|g") > "$tmp/report" 2> "$tmp/err"
    rc=$?
    same_block "report ('$cmd', exit $rc)" "$tmp/shown" "$tmp/report"
    [ "$(tail -1 "$tmp/shown")" = "$(tail -1 "$tmp/report")" ] &&
        pass "the README's report ends as fabtuned's does: $(tail -1 "$tmp/report")" ||
        fail "the README's report ends '$(tail -1 "$tmp/shown")', fabtuned's '$(tail -1 "$tmp/report")'"
fi

# The README's command lines (indented, starting with a program the operator types; a
# trailing "# ..." is a comment) run as written where they can run here, each with the
# exit code and output it must give, fabtunectl's against a daemon on the report's tree
# (probes and tuning off, as the README says), whose status is the README's "# fabtunectl
# status" block. A command this test does not know fails it: a new one gets a line here.
# Root: the daemon's socket is root's, and fabtunectl snapshot reads the live node as root.
commands() {
    # (not status's header line, "fabtuned 0.1.0, up since ...")
    sed -n 's/^    \(\(\.\/scripts\/\|apt \|editor \|fabtuned \|fabtunectl \|systemctl \).*\)/\1/p' "$readme" |
        grep -v '^fabtuned [0-9][0-9.]*, ' | sed 's/  *# .*//; s/ *$//'
}
# expectation LINE: "RCS PATTERN" (the exit codes it may give, a line of its output to match
# or "-"), or "skip REASON"; empty for a command this test does not know.
expectation() {
    case $1 in
        ./scripts/run-once.sh) echo "skip it installs packages and builds in the source tree (the lead runs it on a fresh machine)" ;;
        ./scripts/test.sh) echo "skip it is the whole suite, this test among it (.ci/run calls it)" ;;
        ./scripts/build-deb.sh) echo "skip CI builds the package (scripts/test.sh --deb)" ;;
        "apt install ./build-deb/fabtune_"*) echo "skip it installs on this host (tests/guest-systemd installs the package in a guest)" ;;
        "editor "*) echo "skip an editor is interactive" ;;
        "systemctl "*) echo "skip it needs systemd as PID 1 (tests/guest-systemd/run.sh)" ;;
        "fabtuned --check-config -c /etc/fabtune/fabtune.yaml") echo "0 fabtune.yaml: valid" ;;
        "fabtunectl status") echo "0 ^verdict: NOT_READY" ;;
        "fabtunectl checks --failed --rail mlx5_0 gid") echo "0 -" ;;
        "fabtunectl links") echo "0 ^mlx5_3/1" ;;
        "fabtunectl neighbors") echo "0 -" ;;
        "fabtunectl health") echo "1 ^fabtune: NOT_READY" ;;
        "fabtunectl wait-ready --timeout 300") echo "skip on this NOT_READY tree it waits its 300 s (tests/fabtunectl-usage.sh and the systemd guest test wait-ready)" ;;
        "fabtunectl snapshot golden.tar.xz") echo "0 -" ;;
        "fabtuned --once --snapshot node17.tar.xz -c site.yaml") echo "0,1,2,3 ^verdict: " ;;
        "fabtunectl diff golden.tar.xz node17.tar.xz") echo "0 -" ;;
        "fabtunectl diff golden.tar.xz") echo "0,1 -" ;;
    esac
}
commands > "$tmp/commands"
[ "$(wc -l < "$tmp/commands")" -ge 15 ] && pass "the README has $(wc -l < "$tmp/commands") command lines" ||
    fail "the README's command lines: $(tr '\n' '|' < "$tmp/commands")"
if [ "$(id -u)" != 0 ]; then
    echo "skip: the README's commands: the daemon's socket and fabtunectl snapshot need root"
else
    ctl="$top_builddir/src/client/fabtunectl"
    bin=$(cd "$top_builddir" && pwd)
    PATH="$bin/src/daemon:$bin/src/client:$PATH"
    export PATH
    root="$fx/mlx5_8rail_rail_down/sys"
    unlimited_proc "$tmp/proc"
    sock="$tmp/run/fabtuned.sock"
    printf 'version: 1\ntuning: {mode: off}\nprobes: {enabled: false}\n' > "$tmp/policy.yaml"
    trap 'kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; rm -rf "$tmp"' EXIT
    fabtuned_start
    # Its first pass judged (health's npd code 2 is UNKNOWN), bounded: an ASan build on a
    # loaded machine may take longer than fabtuned_start waits.
    for _ in $(seq 300); do
        "$ctl" -s "$sock" health > /dev/null 2>&1; [ $? -ne 2 ] && break; sleep 0.2
    done
    FABTUNE_SOCKET="$sock"
    export FABTUNE_SOCKET
    # The shipped policy where the README edits it, for --check-config: a scratch /etc/fabtune
    # where this host has none (the command names the path; sh runs it with that one).
    mkdir -p "$tmp/ex" "$tmp/etc"
    cp "$top_srcdir/conf/fabtune.yaml" "$tmp/etc/fabtune.yaml"
    while IFS= read -r line; do
        want=$(expectation "$line")
        case $want in
            "") fail "a command of the README no line of this test knows: '$line'"; continue ;;
            skip*) echo "skip: '$line': ${want#skip }"; continue ;;
        esac
        run_line=$line
        [ -e /etc/fabtune/fabtune.yaml ] || run_line=$(echo "$line" | sed "s|/etc/fabtune/|$tmp/etc/|")
        (cd "$tmp/ex" && sh -c "$run_line") > "$LAST_OUT" 2> "$LAST_ERR" < /dev/null
        rc=$?
        rcs=${want%% *} pattern=${want#* }
        case ",$rcs," in
            *",$rc,"*) if [ "$pattern" = - ] || grep -q -- "$pattern" "$LAST_OUT"; then pass "'$line' (exit $rc)"
                       else fail "'$line': no line matches '$pattern':"; sed 's/^/    /' "$LAST_OUT" "$LAST_ERR" | head -10; fi ;;
            *) fail "'$line': exit $rc, wanted $rcs:"; sed 's/^/    /' "$LAST_ERR" | head -10 ;;
        esac
        case $line in
            "fabtunectl status") shown_block "fabtunectl status" > "$tmp/shown-status"
                                 if grep -q '^verdict: ' "$tmp/shown-status"; then
                                     same_block "status" "$tmp/shown-status" "$LAST_OUT"
                                 else fail "the README shows no '# fabtunectl status' block"; fi ;;
            "fabtunectl snapshot golden.tar.xz") cp "$tmp/ex/golden.tar.xz" "$tmp/ex/node17.tar.xz" &&
                                                 cp "$top_srcdir/conf/fabtune.yaml" "$tmp/ex/site.yaml" ;;
        esac
    done < "$tmp/commands"
    fabtuned_stop
fi
finish
