#!/bin/bash
# SPDX-License-Identifier: ISC
# fabtune's RDMA probe against perftest's ib_write_lat on rxe0 (Soft-RoCE) in one guest
# run: the guest suite interleaves five runs of each, 8-byte RDMA WRITE ping-pong, 1000
# iterations (tests/guest-rxe/guest-suite.sh). Prints both medians and their ratio, with
# the cost of one clock_gettime in the guest and its clocksource.
#   bench/rdma-vs-ib_write_lat.sh BUILDDIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
FABTUNE_VM_BENCH=1 make -C "$builddir" check TESTS=tests/guest-rxe/run.sh >/dev/null || true
line=$(grep '^BENCH rdma_latency_8B' "$builddir/tests/guest-rxe/results.txt")
echo "$line"
echo "fabtune p50 per run (us):      $(awk '{ print $1 }' "$builddir/tests/guest-rxe/out/bench.fabtune" | tr '\n' ' ')"
echo "ib_write_lat t_typical (us):   $(awk '{ print $1 }' "$builddir/tests/guest-rxe/out/bench.perftest" | tr '\n' ' ')"
echo "$line" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
    END { printf "ratio fabtune / ib_write_lat: %.3f\n", v["fabtune_p50_us"] / v["ib_write_lat_t_typical_us"] }'
