#!/bin/sh
# SPDX-License-Identifier: ISC
# The bash completions, in a real bash: each completion function is called as bash calls
# it (COMP_WORDS, COMP_CWORD) and its COMPREPLY checked; and their lists name exactly the
# commands and options the programs' --help gives, each command's options as fabtunectl's
# option table gives them (the global ones too, where --help says which commands lack them).
. "${top_srcdir:-.}/tests/lib.sh"
dir="$top_srcdir/shell-completion/bash"
# comp FILE FUNCTION WORDS...: the completions for the last word, sorted, on one line.
comp() {
    file=$1 fn=$2; shift 2
    bash -c '. "$1"; fn=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); $fn
             printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' bash "$file" "$fn" "$@"
}
[ "$(comp "$dir/fabtunectl" _fabtunectl fabtunectl st)" = "status " ] && pass "fabtunectl st -> status" ||
    fail "fabtunectl st -> '$(comp "$dir/fabtunectl" _fabtunectl fabtunectl st)'"
[ "$(comp "$dir/fabtunectl" _fabtunectl fabtunectl health --format '')" = "nagios nhc npd slurm " ] &&
    pass "health --format -> npd nagios nhc slurm" || fail "health --format: '$(comp "$dir/fabtunectl" _fabtunectl fabtunectl health --format '')'"
[ "$(comp "$dir/fabtunectl" _fabtunectl fabtunectl -s /run/x.sock checks --f)" = "--failed " ] &&
    pass "after -s PATH, checks --f -> --failed" || fail "checks --f: '$(comp "$dir/fabtunectl" _fabtunectl fabtunectl -s /run/x.sock checks --f)'"
[ "$(comp "$dir/fabtuned" _fabtuned fabtuned --log-target '')" = "auto journal stderr " ] &&
    pass "fabtuned --log-target -> auto journal stderr" || fail "--log-target"
[ "$(comp "$dir/fabtuned" _fabtuned fabtuned --on)" = "--once " ] && pass "fabtuned --on -> --once" || fail "--on"
# The lists against --help: every long option there is completed, and every command of
# fabtunectl's help, each with its own options.
tmp=$(mktemp -d)
"$top_builddir/src/client/fabtunectl" --help > "$tmp/ctl" 2>&1 || true
"$top_builddir/src/daemon/fabtuned" --help > "$tmp/d" 2>&1 || true
all_ctl=$(comp "$dir/fabtunectl" _fabtunectl fabtunectl '')
# fabtunectl's command table, as --help prints it: "  NAME [OPTIONS] [ARGS]" up to the
# first blank line, and the global options after it.
sed -n '4,/^$/p' "$tmp/ctl" | grep '^  [a-z]' | sed 's/^  //; s/  .*//' > "$tmp/table"
cut -d' ' -f1 "$tmp/table" | sort > "$tmp/help-cmds"
printf '%s\n' $all_ctl | grep -v '^-' | sort > "$tmp/comp-cmds"
cmp -s "$tmp/help-cmds" "$tmp/comp-cmds" && pass "fabtunectl: the completion's commands are --help's" ||
    fail "fabtunectl commands: --help has $(tr '\n' ' ' < "$tmp/help-cmds"), the completion $(tr '\n' ' ' < "$tmp/comp-cmds")"
# The global options after it, a record each (its continuation lines joined): the names,
# and "not for A, B and C", the commands that do not take it.
sed -n '/^$/,$p' "$tmp/ctl" | awk '/^  -/ { if (r) print r; r = $0; next } { r = r " " $0 } END { print r }' \
    > "$tmp/globals"
# globals_of CMD: the global options CMD takes.
globals_of() {
    while read -r rec; do
        case " $(echo "$rec" | sed -n 's/.*not for //p' | sed 's/,/ /g; s/ and / /g') " in
            *" $1 "*) continue ;;
        esac
        echo "$rec" | grep -o -- '^-[a-zA-Z], --[a-z-]*' | tr -d ','
    done < "$tmp/globals"
}
# Each command completes its own options (-c also as --config) and the global ones it takes,
# and no other: -c only after diff, --timeout only after wait-ready and reload, no -s after
# snapshot, diff or explain.
bad=""
while read -r name rest; do
    want=$( (printf '%s\n' $(globals_of "$name"); echo "$rest" | grep -o -- '-[a-z-]*' | sed 's/^-c$/-c\n--config/') | sort -u | tr '\n' ' ')
    got=$(comp "$dir/fabtunectl" _fabtunectl fabtunectl "$name" -)
    [ "$want" = "$got" ] || bad="$bad
    $name: --help says '$want', the completion '$got'"
done < "$tmp/table"
[ -z "$bad" ] && pass "fabtunectl: each command completes the options --help gives it, no others" ||
    fail "fabtunectl options per command:$bad"
[ -z "$(comp "$dir/fabtunectl" _fabtunectl fabtunectl status --t | tr -d ' ')" ] && pass "no --timeout after status" ||
    fail "status --t completes '$(comp "$dir/fabtunectl" _fabtunectl fabtunectl status --t)'"
[ -z "$(comp "$dir/fabtunectl" _fabtunectl fabtunectl snapshot --so | tr -d ' ')" ] && pass "no --socket after snapshot" ||
    fail "snapshot --so completes '$(comp "$dir/fabtunectl" _fabtunectl fabtunectl snapshot --so)'"
# The check ids after explain and checks, as fabtunectl explain lists them.
[ "$(PATH="$top_builddir/src/client:$PATH" comp "$dir/fabtunectl" _fabtunectl fabtunectl explain route.a)" = "route.arp " ] &&
    pass "explain route.a -> route.arp" ||
    fail "explain route.a completes '$(PATH="$top_builddir/src/client:$PATH" comp "$dir/fabtunectl" _fabtunectl fabtunectl explain route.a)'"
[ "$(PATH="$top_builddir/src/client:$PATH" comp "$dir/fabtunectl" _fabtunectl fabtunectl checks --failed gid.n)" = "gid.nccl gid.nccl_legacy " ] &&
    pass "checks --failed gid.n -> gid.nccl gid.nccl_legacy" ||
    fail "checks gid.n completes '$(PATH="$top_builddir/src/client:$PATH" comp "$dir/fabtunectl" _fabtunectl fabtunectl checks --failed gid.n)'"
# Files where the table asks for one: snapshot's and diff's tarballs, by the suffixes the
# snapshot writer knows.
mkdir "$tmp/f" && touch "$tmp/f/a.tar" "$tmp/f/b.tar.xz" "$tmp/f/c.tar.zst" "$tmp/f/d.txt"
[ "$(comp "$dir/fabtunectl" _fabtunectl fabtunectl diff "$tmp/f/")" = "$tmp/f/a.tar $tmp/f/b.tar.xz $tmp/f/c.tar.zst " ] &&
    pass "diff completes tarballs" || fail "diff completes '$(comp "$dir/fabtunectl" _fabtunectl fabtunectl diff "$tmp/f/")'"
all_d=$(comp "$dir/fabtuned" _fabtuned fabtuned '')
missing=""
for w in $(grep -o -- '--[a-z][a-z-]*' "$tmp/d" | sort -u); do
    case " $all_d " in *" $w "*) ;; *) missing="$missing $w" ;; esac
done
[ -z "$missing" ] && pass "fabtuned: every option of --help completes" || fail "fabtuned completion misses:$missing"
extra=""
for w in $all_d; do grep -q -- "$w\b" "$tmp/d" || extra="$extra $w"; done
[ -z "$extra" ] && pass "fabtuned: the completion offers no option --help lacks" || fail "fabtuned completion offers:$extra"
# -d: the categories --help lists, which are the ones the code logs under.
help_cats=$(sed -n '/--debug/,/^  -/p' "$tmp/d" | grep -o 'all,[a-z,]*' | tr ',' '\n' | sort | tr '\n' ' ')
[ "$(comp "$dir/fabtuned" _fabtuned fabtuned -d '')" = "$help_cats" ] && pass "fabtuned -d completes $help_cats" ||
    fail "fabtuned -d: --help lists '$help_cats', the completion '$(comp "$dir/fabtuned" _fabtuned fabtuned -d '')'"
code_cats=$( (echo all; grep -rhoE 'log_debug(_enabled)?\("[a-z]+"' "$top_srcdir/src" | sed 's/.*("//; s/"//') | sort -u | tr '\n' ' ')
[ "$code_cats" = "$help_cats" ] && pass "every -d category logs in the code, and no other is used" ||
    fail "-d categories: --help '$help_cats', the code '$code_cats'"
rm -rf "$tmp"
finish
