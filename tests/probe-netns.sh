#!/bin/sh
# SPDX-License-Identifier: ISC
# The TCP probe live in a private network namespace, bound to a rail's address on a veth.
# (The netem regression test runs in the Soft-RoCE guest: tests/vm/probe-regression.sh,
# since the CI kernel here is built without sch_netem.)
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
if [ -z "${FABTUNE_IN_NETNS:-}" ]; then
    FABTUNE_IN_NETNS=1 exec unshare -n sh "$0"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ip link set lo up

# The probe bound to a rail's address: the Soft-RoCE fixture's rail is 192.0.2.1 on v0.
"$top_srcdir/tests/fixtures/make-fixtures.sh" "$tmp/fx"
ip link add v0 type veth peer name v1
ip addr add 192.0.2.1/24 dev v0
ip link set v0 up; ip link set v1 up
printf 'version: 1\ntuning: {mode: off}\n' > "$tmp/policy"
run "$fabtuned" --once --json -c "$tmp/policy" \
    --sysfs-root "$tmp/fx/soft_roce/sys" --state-dir "$tmp"
jq -c '.probes.targets[0] | {target, tcp: .tcp_latency.latency_seconds.samples,
       bw: (.tcp_bandwidth.bandwidth_bytes_per_second > 0)}' "$LAST_OUT" > "$tmp/t"
cat "$tmp/t"
expect_grep '{"target":"rxe0/1","tcp":1000,"bw":true}' "$tmp/t"
# No rxe0 on this machine: the RDMA probe fails, and says why, without a crash (this
# kernel has no verbs at all: ibv_get_device_list fails with ENOSYS).
jq -r '.probes.targets[0].rdma_latency.error' "$LAST_OUT" > "$tmp/e"
expect_grep 'cannot open rxe0: verbs ' "$tmp/e"

finish
