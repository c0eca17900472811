#!/bin/sh
# SPDX-License-Identifier: ISC
# The include rule of src/daemon/README, over every #include line. Each file's layer is its
# folder, and the table below says which layers' headers a layer may include: a .c or .h in
# a folder the table does not name fails, so no module can sit outside the rule. Also: only
# the service files that drive the manager include manager.h; no two modules include each
# other, even through others; every .c has a header of its own or its family's.
. "${top_srcdir:-.}/tests/lib.sh"
src="${LAYERS_SRC:-$top_srcdir/src}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# LAYER: the layers whose headers it may include (its own always). Sources, state files and
# the wire are the three ways to the system; checks see only the model.
cat > "$tmp/rule" <<'EOF'
shared:
snapshot: shared
model: shared
sources: shared snapshot model
state: shared model
wire: shared model
checks: shared model
probes: shared model sources state wire
responder: shared model sources wire
tuning: shared model sources state
outputs: shared model sources state probes tuning
pass: shared model sources state wire checks probes responder tuning outputs
service: shared model sources state wire checks probes responder tuning outputs pass
client: shared snapshot
EOF
echo "# the include rule (layer: the layers it may include besides its own)"
sed 's/^/#   /' "$tmp/rule"

# layer_of PATH: the layer a file under src/ sits in ("" if none).
layer_of() {
    rel=${1#"$src"/}
    case $rel in
    shared/*) echo shared ;;
    snapshot/*) echo snapshot ;;
    client/*) echo client ;;
    daemon/*/*) d=${rel#daemon/}; d=${d%%/*}; grep -q "^$d:" "$tmp/rule" && echo "$d" ;;
    esac
}
files=$(find "$src" -name '*.[ch]' | sort)
for f in $files; do
    l=$(layer_of "$f")
    if [ -z "$l" ]; then echo "${f#"$src"/}"; else echo "$(basename "$f") $l" >> "$tmp/header-layer"; fi
done > "$tmp/unplaced"
expect_none() {
    if [ -s "$2" ]; then fail "$1:"; sed 's/^/    /' "$2"; else pass "$1"; fi
}
expect_none "every file sits in a layer's folder ($(echo "$files" | wc -l) files)" "$tmp/unplaced"

includes() { sed -n 's/^#include "\([^"]*\)".*/\1/p' "$1" | grep -v '^config\.h$'; }

# Every include of a project header goes to the includer's own layer or one it may include.
for f in $files; do
    l=$(layer_of "$f"); [ -n "$l" ] || continue
    allowed=" $l $(sed -n "s/^$l: //p" "$tmp/rule") "
    for h in $(includes "$f"); do
        hl=$(awk -v h="$h" '$1 == h { print $2; exit }' "$tmp/header-layer")
        [ -n "$hl" ] || continue          # generated or test-only
        case $allowed in *" $hl "*) ;; *) echo "${f#"$src"/} ($l): $h ($hl)" ;; esac
    done
done > "$tmp/v1"
expect_none "every include goes to its own layer or one below it" "$tmp/v1"

for f in $files; do
    case ${f##*/} in manager.[ch]|commands.c|fabtuned.c) continue ;; esac
    includes "$f" | grep -qx manager.h && echo "${f#"$src"/}: manager.h"
done > "$tmp/v2"
expect_none "only manager.c, commands.c and fabtuned.c include manager.h" "$tmp/v2"

# No include cycle between modules (NAME.c with its NAME.h): a module's .c or .h including
# another's header is an edge, and tsort finds any loop. policy_*.[ch] are the policy
# module's own files (policy_schema.h its private header, policy.h its interface).
module() { m=${1##*/}; m=${m%.[ch]}; case $m in policy_*) m=policy ;; esac; echo "$m"; }
for f in $files; do
    case $f in "$src"/client/*) continue ;; esac
    m=$(module "$f")
    for h in $(includes "$f"); do
        h=$(module "$h")
        [ "$h" = "$m" ] || echo "$m $h"
    done
done > "$tmp/edges"
tsort "$tmp/edges" > /dev/null 2> "$tmp/v3"
sed -i 's/^tsort: //' "$tmp/v3"
expect_none "no include cycle between modules ($(wc -l < "$tmp/edges") edges)" "$tmp/v3"

# Every .c has a header of its own, or implements its family's one interface (and
# includes it): src/daemon/README lists the families.
family_header() {
    case $1 in
    check_*.c) echo checks.h ;;
    policy_*.c) echo policy.h ;;
    source_dcb.c|source_ethtool.c|source_qos_sysfs.c) echo source_qos.h ;;
    fabtunectl.c|fabtuned_locate.c|health.c|neighbors.c|render.c|request_send.c|snapshot.c|diff.c|checks.c|explain.c|jobs.c|links.c)
        echo client.h ;;
    main.c) echo fabtuned.h ;;
    esac
}
for f in $files; do
    case $f in *.c) ;; *) continue ;; esac
    [ -f "${f%.c}.h" ] && continue
    fh=$(family_header "${f##*/}")
    if [ -z "$fh" ]; then echo "${f#"$src"/}: no header of its own, and no family"
    elif ! grep -q "^#include \"$fh\"" "$f"; then echo "${f#"$src"/}: does not include its family's $fh"
    fi
done > "$tmp/v4"
expect_none "every .c has its own header or its family's" "$tmp/v4"

# The daemon's top folder holds only the README and the layer folders.
find "$src/daemon" -maxdepth 1 -type f ! -name README > "$tmp/v5"
expect_none "src/daemon holds folders, one per layer, and no source file" "$tmp/v5"

# The rule holds for files yet to come: a copy of the tree with a module in no layer's
# folder, and one with a check that reads a source, each fail it.
if [ -z "${LAYERS_SRC:-}" ]; then
    # The last two: fabtunectl reaching into the daemon's sources again, and the snapshot
    # library into the model.
    for bad in daemon/stray.c daemon/newlayer/thing.c daemon/checks/check_bad.c \
               client/snapshot.c snapshot/snapshot_write.c; do
        rm -rf "$tmp/copy"; cp -r "$src" "$tmp/copy"
        case $bad in
        */check_bad.c) printf '#include "checks.h"\n#include "sysfs.h"\n' > "$tmp/copy/$bad" ;;
        client/*) echo '#include "sysfs.h"' >> "$tmp/copy/$bad" ;;
        snapshot/*) echo '#include "inventory.h"' >> "$tmp/copy/$bad" ;;
        *) mkdir -p "$(dirname "$tmp/copy/$bad")"; printf '#include "log.h"\n' > "$tmp/copy/$bad" ;;
        esac
        if LAYERS_SRC="$tmp/copy" sh "$0" > "$tmp/selftest.out" 2>&1; then
            fail "a tree with a bad src/$bad passes the rule"
        else
            pass "a tree with a bad src/$bad fails the rule"
        fi
    done
fi
finish
