#!/bin/sh
# SPDX-License-Identifier: ISC
# The module EEPROM decoder (model/module_eeprom) beside ethtool 6.1's, on the same bytes:
# every tests/fixtures/module/*.pages through ethtool's unmodified cmis.c, qsfp.c and
# sff-common.c (their netlink path, which alone reads CMIS pages 02h and 11h; the harness
# answers nl_get_eeprom_page from the fixture) and through fabtune's decoder.
#   bench/module-vs-ethtool.sh ETHTOOL_SRC [BUILDDIR]
# ETHTOOL_SRC: Debian's ethtool source (a deb-src entry, then 'apt-get source ethtool').
# Where they disagree, the spec wins (/work/shared/TESTING.md lists ethtool 6.1's faults;
# tests/fixtures/module/README the differences on these fixtures).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
eth=$(cd "$1" && pwd)
builddir=$(cd "${2:-$top/build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#define PACKAGE "ethtool"\n#define VERSION "6.1"\n' > "$work/ethtool-config.h"
cc -w -O0 -DETHTOOL_ENABLE_NETLINK=1 -I"$work" -I"$eth" -I"$eth/uapi" -I"$builddir" \
    -I"$top/src/daemon/model" -I"$top/tests" -o "$work/cmp" "$top/bench/module_vs_ethtool.c" \
    "$eth/cmis.c" "$eth/qsfp.c" "$eth/sff-common.c" "$top/src/daemon/model/module_eeprom.c" -lm
for f in "$top"/tests/fixtures/module/*.pages; do
    echo "######## $(basename "$f")"
    "$work/cmp" "$f"
done
