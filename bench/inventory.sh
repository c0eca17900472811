#!/bin/bash
# SPDX-License-Identifier: ISC
# Times fabtune's full inventory and checks (fabtuned --once --no-probes --sysfs-root) on
# the 8-rail fixture and on a synthetic 16-port x 256-GID tree, beside a show_gids-style
# shell scan of the same trees. Prints mean wall times and the ratio, measured side by side,
# and under them the floor: fabtuned's start alone (--version), and read_floor.c's time for
# only the files no inventory can skip (every port's gids/, counters/, hw_counters/), read
# as fabtune reads them, by one thread and by two (median and fastest of RUNS passes).
#   bench/inventory.sh BUILDDIR [RUNS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
runs=${2:-20}
fabtuned="$builddir/src/daemon/fabtuned"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$top/tests/fixtures/make-fixtures.sh" "$work/fx" >/dev/null
cc -O2 -pthread -o "$work/read_floor" "$top/bench/read_floor.c"
. "$top/bench/big-tree.sh"
big="$work/big/sys"
make_big_tree "$big"

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

printf "\nfloor: fabtuned --version %.2f ms (the process's start, in every figure above)\n" \
    "$(awk -v s="$(mean "$runs" "$fabtuned" --version)" 'BEGIN { print s * 1000 }')"
printf "%-26s %8s %18s %18s\n" tree files "1 thread p50/min" "2 threads p50/min"
for tree in mlx5_8rail:"$work/fx/mlx5_8rail/sys" 16x256:"$big"; do
    name=${tree%%:*} root=${tree#*:}
    read -r n one1 one0 <<<"$("$work/read_floor" "$root" "$runs" 1)"
    read -r _ two1 two0 <<<"$("$work/read_floor" "$root" "$runs" 2)"
    printf "%-26s %8s %11s/%-6s %11s/%-6s\n" "$name" "$n" "$one1" "$one0" "$two1" "$two0"
done
