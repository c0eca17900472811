#!/bin/bash
# SPDX-License-Identifier: ISC
# fabtune's peer RDMA probe against perftest's ib_write_lat between the two Soft-RoCE
# guests of the two-node stage (tests/guest-two-node), in one run: node A interleaves
# five runs of each against node B, 8-byte RDMA WRITE ping-pong, 1000 iterations
# (fabtune through B's responder and the RDMA CM; ib_write_lat against its own server on
# B). Prints the medians of p50 and p99 and their ratios.
#   bench/peer-rdma-vs-ib_write_lat.sh BUILDDIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
FABTUNE_VM_BENCH=1 make -C "$builddir" check TESTS=tests/guest-two-node/run.sh >/dev/null || true
line=$(grep '^BENCH peer_rdma_latency_8B' "$builddir/tests/guest-two-node/a/results")
echo "$line"
echo "fabtune p50/p99 per run (us):  $(tr '\n' ' ' < "$builddir/tests/guest-two-node/a/bench.fabtune")"
echo "ib_write_lat typical/99% (us): $(tr '\n' ' ' < "$builddir/tests/guest-two-node/a/bench.perftest")"
echo "$line" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
    END { printf "ratio fabtune / ib_write_lat: p50 %.3f, p99 %.3f\n",
                 v["fabtune_p50_us"] / v["ib_write_lat_t_typical_us"], v["fabtune_p99_us"] / v["ib_write_lat_p99_us"] }'
