#!/bin/bash
# SPDX-License-Identifier: ISC
# Times fabtune's full inventory and checks (fabtuned --once --no-probes --sysfs-root) on
# the 8-rail fixture and on a synthetic 16-port x 256-GID tree, beside a show_gids-style
# shell scan of the same trees. Prints mean wall times and the ratio, measured side by side.
#   bench/inventory.sh BUILDDIR [RUNS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
runs=${2:-20}
fabtuned="$builddir/src/daemon/fabtuned"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$top/tests/fixtures/make-fixtures.sh" "$work/fx" >/dev/null
. "$top/tests/fixtures/sysfs-lib.sh"
# 16 ConnectX ports, every one of the 256 GID slots in use (IPv4 v1/v2 pairs).
big="$work/big/sys"
for n in $(seq 0 15); do
    addr=$(printf "0000:%02x:00.0" $((16 + n)))
    pci_dev "$big" "$addr" 0 mlx5_core 0x15b3 0x1021 0x020000 "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16
    ib_dev "$big" "mlx5_$n" "$addr" 28.39.1002 "b83f:d203:00c1:$(printf %04x "$n")"
    ib_port "$big" "mlx5_$n" 1 Ethernet "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" 256 yes
    p="$big/class/infiniband/mlx5_$n/ports/1"
    for i in $(seq 0 255); do
        v4gid "10.$n.$((i / 2)).1" > "$p/gids/$i"
        [ $((i % 2)) = 0 ] && echo "IB/RoCE v1" > "$p/gid_attrs/types/$i" || echo "RoCE v2" > "$p/gid_attrs/types/$i"
        echo "eth$n" > "$p/gid_attrs/ndevs/$i"
    done
    netdev "$big" "pci0000:00/$addr" "eth$n" up 1 9000 1 $((10 + n))
done

# Mean wall seconds of RUNS runs of a command.
mean() {
    local n=$1; shift
    local t0 t1
    t0=$(date +%s.%N)
    for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 || true; done
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "%.6f", (b - a) / n }'
}

printf "%-26s %12s %14s %8s\n" tree "fabtune (ms)" "show_gids (ms)" ratio
for tree in mlx5_8rail:"$work/fx/mlx5_8rail/sys" 16x256:"$big"; do
    name=${tree%%:*} root=${tree#*:}
    f=$(mean "$runs" "$fabtuned" --once --no-probes --sysfs-root "$root")
    s=$(mean 3 bash "$top/bench/show_gids.sh" "$root")
    awk -v n="$name" -v f="$f" -v s="$s" \
        'BEGIN { printf "%-26s %12.2f %14.2f %7.1fx\n", n, f * 1000, s * 1000, s / f }'
done
