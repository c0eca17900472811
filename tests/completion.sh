#!/bin/sh
# SPDX-License-Identifier: ISC
# The bash completions, in a real bash: each completion function is called as bash calls
# it (COMP_WORDS, COMP_CWORD) and its COMPREPLY checked; and their lists name exactly the
# commands and options the programs' --help gives.
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
# fabtunectl's help.
tmp=$(mktemp -d)
"$top_builddir/src/client/fabtunectl" --help > "$tmp/ctl" 2>&1 || true
"$top_builddir/src/daemon/fabtuned" --help > "$tmp/d" 2>&1 || true
all_ctl=$(comp "$dir/fabtunectl" _fabtunectl fabtunectl '')
missing=""
for w in $(grep -o -- '--[a-z][a-z-]*' "$tmp/ctl" | sort -u); do
    case " $all_ctl $(comp "$dir/fabtunectl" _fabtunectl fabtunectl checks '') \
          $(comp "$dir/fabtunectl" _fabtunectl fabtunectl nccl-env '') \
          $(comp "$dir/fabtunectl" _fabtunectl fabtunectl health '') " in
        *" $w "*) ;; *) missing="$missing $w" ;;
    esac
done
for w in status checks probes tuning nccl-env metrics health wait-ready reload probe-now apply revert snapshot; do
    grep -q -- "$w" "$tmp/ctl" || missing="$missing (help lacks $w)"
    case " $all_ctl " in *" $w "*) ;; *) missing="$missing $w" ;; esac
done
[ -z "$missing" ] && pass "fabtunectl: every command and option of --help completes" ||
    fail "fabtunectl completion misses:$missing"
all_d=$(comp "$dir/fabtuned" _fabtuned fabtuned '')
missing=""
for w in $(grep -o -- '--[a-z][a-z-]*' "$tmp/d" | sort -u); do
    case " $all_d " in *" $w "*) ;; *) missing="$missing $w" ;; esac
done
[ -z "$missing" ] && pass "fabtuned: every option of --help completes" || fail "fabtuned completion misses:$missing"
rm -rf "$tmp"
finish
