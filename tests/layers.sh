#!/bin/sh
# SPDX-License-Identifier: ISC
# The include rule of src/daemon/README, over every #include line: a layer never includes
# a layer above it; checks/ never include a source (they read no system); only the service
# files include manager.h; src/shared includes nothing of the daemon or the client.
. "${top_srcdir:-.}/tests/lib.sh"
src="$top_srcdir/src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

headers_of() { (cd "$1" && ls ./*.h 2>/dev/null | sed 's|^\./||'); }
headers_of "$src/daemon/sources" > "$tmp/sources"
headers_of "$src/daemon/checks" > "$tmp/checks"
printf '%s\n' manager.h control.h commands.h events.h once.h fabtuned.h options.h > "$tmp/service"
printf '%s\n' rails.h pipeline.h check_job.h probes.h nccl.h report.h metrics.h alerts.h instance.h request.h > "$tmp/pass"
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
    case ${f##*/} in manager.[ch]|control.c|commands.c|events.c|fabtuned.c) continue ;; esac
    violations "$tmp/manager" "$f"
done > "$tmp/v4"
expect_none "only manager.c, control.c, commands.c, events.c and fabtuned.c include manager.h" "$tmp/v4"

cat "$tmp/daemon" "$tmp/sources" "$tmp/checks" "$tmp/client" > "$tmp/above-shared"
violations "$tmp/above-shared" "$src"/shared/*.[ch] > "$tmp/v5"
expect_none "src/shared includes nothing of the daemon or the client" "$tmp/v5"
finish
