#!/bin/sh
# SPDX-License-Identifier: ISC
# The FEC_GET answer parser (sources/fec_reply.c) beside ethtool 6.1's, on the same bytes:
# each raw answer through ethtool's unmodified netlink/fec.c and netlink/bitset.c (the
# reply handler "ethtool --show-fec --json" runs; bench/fec_vs_ethtool.c stands in for its
# socket) and through fabtune's parser, both printed as "field value" lines and compared.
#   bench/fec-vs-ethtool.sh ETHTOOL_SRC [BUILDDIR] [DIR...]
# ETHTOOL_SRC: Debian's ethtool source (a deb-src entry, then 'apt-get source ethtool');
# needs libmnl-dev and jq. The answers: tests/fec_fixtures.h's (tests/fec_replies, built
# from the kernel's ethtool netlink spec), then every file of each DIR, for example a
# corpus fuzz_fec grew. Where both read an answer they should say the same; an answer one
# refuses and the other reads is listed. Exit 1 when they disagree on a fixture answer
# (the kernel's shape); disagreements on DIR's answers are listed, for reading (on a
# fuzz_fec corpus they come from attributes the kernel never sends malformed: ethtool
# reads a 1-byte ETHTOOL_A_FEC_ACTIVE as a u32 with its padding, and names a verbose
# bit set's bit by its NAME where fabtune takes its INDEX).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
eth=$(cd "$1" && pwd)
builddir=$(cd "${2:-$top/build}" && pwd)
[ $# -ge 2 ] && shift 2 || shift $#
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#define PACKAGE "ethtool"\n#define VERSION "6.1"\n' > "$work/ethtool-config.h"
cc -w -O0 -ffunction-sections -fdata-sections -Wl,--gc-sections -DETHTOOL_ENABLE_NETLINK=1 -I"$work" \
    -I"$eth" -I"$eth/uapi" -I"$builddir" -I"$top/src/daemon/model" -I"$top/src/daemon/sources" \
    -I"$top/src/shared" -o "$work/cmp" "$top/bench/fec_vs_ethtool.c" "$eth/netlink/fec.c" \
    "$eth/netlink/bitset.c" "$eth/json_print.c" "$eth/json_writer.c" \
    "$top/src/daemon/sources/fec_reply.c" "$top/src/daemon/sources/ethnl_reply.c" \
    "$top/src/daemon/model/fec.c" -lmnl -lm
mkdir "$work/in"
fixtures="rs400 rs400v off100 eopnotsupp"
for k in $fixtures; do
    "$builddir/tests/fec_replies" "$k" eth0 "$work/in/$k"
done
for d in "$@"; do cp "$d"/* "$work/in/" 2>/dev/null || true; done
# ethtool's JSON in fabtune's shape.
to_lines='.[0] | "auto \(if (.config | index("Auto")) then 1 else 0 end)",
  "configured" + ([.config[] | select(. != "Auto" and . != "None") | ascii_downcase | " " + .] | join("")),
  "active " + (.active[0] | ascii_downcase),
  (.statistics | to_entries[] | "\(.key) \(.value.total)" + ((.value.lanes // []) | map(" \(.)") | join("")))'
same=0 differ=0 fab_only=0 eth_only=0 both_refuse=0 fixture_differs=0
for f in "$work"/in/*; do
    n=$(basename "$f")
    e=""; x=""
    if "$work/cmp" e "$f" > "$work/e.json" 2> /dev/null; then
        if [ "$(head -c 5 "$work/e.json")" = "error" ]; then e=$(cat "$work/e.json")
        else e=$(jq -r "$to_lines" "$work/e.json" 2> /dev/null) || e=""; fi
    fi
    x=$("$work/cmp" f "$f")
    case $x in error*) fab_ok=no ;; *) fab_ok=yes ;; esac
    case $e in ""|error*) eth_ok=no ;; *) eth_ok=yes ;; esac
    if [ $fab_ok = yes ] && [ $eth_ok = yes ]; then
        if [ "$e" = "$x" ]; then same=$((same + 1))
        else differ=$((differ + 1)); echo "DIFFER $n"; echo "$e" > "$work/a"; echo "$x" > "$work/b"
             case " $fixtures " in *" $n "*) fixture_differs=$((fixture_differs + 1)) ;; esac
             diff "$work/a" "$work/b" | sed 's/^/    /' || true
        fi
    elif [ $fab_ok = yes ]; then fab_only=$((fab_only + 1)); echo "only fabtune reads $n"
    elif [ $eth_ok = yes ]; then eth_only=$((eth_only + 1)); echo "only ethtool reads $n"
    else both_refuse=$((both_refuse + 1)); fi
done
echo "answers: $(ls "$work/in" | wc -l); the same: $same; different: $differ;" \
     "only fabtune reads: $fab_only; only ethtool reads: $eth_only; both refuse: $both_refuse"
[ "$fixture_differs" = 0 ]
