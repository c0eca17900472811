#!/bin/sh
# SPDX-License-Identifier: ISC
# The include rule of src/daemon/README, over every #include line: a layer never includes
# a layer above it; checks/ never include a source (they read no system); only the service
# files that drive the manager include manager.h; no two modules include each other, even
# through others; src/shared includes nothing of the daemon or the client.
. "${top_srcdir:-.}/tests/lib.sh"
src="$top_srcdir/src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

headers_of() { (cd "$1" && ls ./*.h 2>/dev/null | sed 's|^\./||'); }
headers_of "$src/daemon/sources" > "$tmp/sources"
headers_of "$src/daemon/checks" > "$tmp/checks"
printf '%s\n' manager.h control.h commands.h events.h once.h fabtuned.h options.h > "$tmp/service"
printf '%s\n' inventory_take.h pipeline.h check_job.h outputs.h probes.h nccl.h report.h findings_text.h metrics.h gid_table.h alerts.h instance.h request.h > "$tmp/pass"
headers_of "$src/daemon" > "$tmp/daemon"; headers_of "$src/client" > "$tmp/client"

# violations FILES... -- FORBIDDEN_LIST: lines "file: header" for each forbidden include
violations() {
    list=$1; shift
    for f in "$@"; do
        [ -f "$f" ] || continue
        sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r h; do
            grep -qx "$h" "$list" && echo "${f#"$src"/}: $h"
        done
    done
}
expect_none() {
    if [ -s "$2" ]; then fail "$1:"; sed 's/^/    /' "$2"; else pass "$1"; fi
}

cat "$tmp/pass" "$tmp/service" "$tmp/checks" > "$tmp/above-sources"
violations "$tmp/above-sources" "$src"/daemon/sources/*.[ch] > "$tmp/v1"
expect_none "sources/ include no check, pass or service header" "$tmp/v1"

cat "$tmp/sources" "$tmp/pass" "$tmp/service" > "$tmp/above-checks"
violations "$tmp/above-checks" "$src"/daemon/checks/*.[ch] > "$tmp/v2"
expect_none "checks/ include no source (no sysfs.h), pass or service header" "$tmp/v2"

cat "$tmp/service" > "$tmp/above-pass"
for h in $(cat "$tmp/pass"); do violations "$tmp/above-pass" "$src/daemon/${h%.h}.c" "$src/daemon/$h"; done > "$tmp/v3"
expect_none "the pass includes no service header" "$tmp/v3"

printf 'manager.h\n' > "$tmp/manager"
for f in "$src"/daemon/*.[ch] "$src"/daemon/*/*.[ch]; do
    case ${f##*/} in manager.[ch]|commands.c|fabtuned.c) continue ;; esac
    violations "$tmp/manager" "$f"
done > "$tmp/v4"
expect_none "only manager.c, commands.c and fabtuned.c include manager.h" "$tmp/v4"

# No include cycle between modules (NAME.c with its NAME.h): a module's .c or .h including
# another's header is an edge, and tsort finds any loop. policy_*.[ch] are the policy
# module's own files (policy_schema.h its private header, policy.h its interface).
module() { m=${1##*/}; m=${m%.[ch]}; case $m in policy_*) m=policy ;; esac; echo "$m"; }
for f in "$src"/daemon/*.[ch] "$src"/daemon/*/*.[ch] "$src"/shared/*.[ch]; do
    m=$(module "$f")
    sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r h; do
        h=$(module "$h")
        [ "$h" = "$m" ] || echo "$m $h"
    done
done > "$tmp/edges"
tsort "$tmp/edges" > /dev/null 2> "$tmp/v6"
sed -i 's/^tsort: //' "$tmp/v6"
expect_none "no include cycle between modules ($(wc -l < "$tmp/edges") edges)" "$tmp/v6"

# Every .c has a header of its own, or implements its family's one interface (and
# includes it): src/daemon/README lists the families.
family_header() {
    case $1 in
    check_*.c) echo checks.h ;;
    policy_*.c) echo policy.h ;;
    counters_store.c) echo counters.h ;;
    source_dcb.c|source_ethtool.c|source_qos_sysfs.c) echo source_qos.h ;;
    fabtunectl.c|render.c|request.c|snapshot.c|diff.c) echo client.h ;;
    main.c) echo fabtuned.h ;;
    esac
}
for f in "$src"/daemon/*.c "$src"/daemon/*/*.c "$src"/shared/*.c "$src"/client/*.c; do
    [ -f "${f%.c}.h" ] && continue
    fh=$(family_header "${f##*/}")
    if [ -z "$fh" ]; then echo "${f#"$src"/}: no header of its own, and no family"
    elif ! grep -q "^#include \"$fh\"" "$f"; then echo "${f#"$src"/}: does not include its family's $fh"
    fi
done > "$tmp/v7"
expect_none "every .c has its own header or its family's" "$tmp/v7"

cat "$tmp/daemon" "$tmp/sources" "$tmp/checks" "$tmp/client" > "$tmp/above-shared"
violations "$tmp/above-shared" "$src"/shared/*.[ch] > "$tmp/v5"
expect_none "src/shared includes nothing of the daemon or the client" "$tmp/v5"
finish
