#!/bin/bash
# SPDX-License-Identifier: ISC
# fabtune at scale (issue 32, item 6): a node of 16 rails x 256 GIDs (bench/big-tree.sh)
# whose policy names a peers file of 10,000 hosts (k = 2). Prints one check pass's wall
# time and peak RSS (fabtuned --once --no-probes, RUNS runs, median), the Prometheus
# series the node exports, and what the ring asks of each node: the peer paths it probes,
# the responder sessions it serves, and the bytes a cycle moves at the default policy.
#   bench/scale.sh BUILDDIR [RUNS] [HOSTS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
runs=${2:-5}
hosts=${3:-10000}
fabtuned="$builddir/src/daemon/fabtuned"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$top/bench/big-tree.sh"
make_big_tree "$work/big/sys"
# The cluster's peers file: this node among HOSTS names, one a line, as a cluster tool writes.
{ hostname; seq -f 'node%05g' 1 $((hosts - 1)); } > "$work/peers"
cat > "$work/policy" <<EOP
version: 1
rails: {expect_count: 16}
tuning: {mode: off}
probes: {peers: {file: $work/peers, k: 2}}
EOP
for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o "$work/t" "$fabtuned" --once --json --no-probes \
        -c "$work/policy" --sysfs-root "$work/big/sys" --state-dir "$work/state" \
        > "$work/report.json" 2>/dev/null || true
    cat "$work/t" >> "$work/times"
done
# The daemon's own view: its metrics once its first pass is in, and its peak RSS.
"$fabtuned" -c "$work/policy" --sysfs-root "$work/big/sys" --state-dir "$work/state" \
    --runtime-dir "$work/run" --log-target stderr 2> "$work/daemon.log" &
daemon=$!
for _ in $(seq 300); do
    "$builddir/src/client/fabtunectl" -s "$work/run/fabtuned.sock" metrics > "$work/fabtune.prom" 2>/dev/null &&
        grep -q '^fabtune_node_verdict' "$work/fabtune.prom" && break
    sleep 0.2
done
daemon_rss=$(awk '/^VmHWM/ { print $2 }' "/proc/$daemon/status")
kill "$daemon"; wait "$daemon" 2>/dev/null || true
med() { awk -v c="$1" '{ print $c }' "$work/times" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rails=$(jq '.rails | length' "$work/report.json")
echo "node: $rails rails x 256 GIDs, a peers file of $hosts hosts, k = 2"
echo "one check pass (fabtuned --once --no-probes, median of $runs): $(med 1) s wall, peak RSS $(med 2) KiB"
echo "Prometheus series this node exports: $(grep -vc '^#' "$work/fabtune.prom")" \
     "($(grep -c '^# TYPE' "$work/fabtune.prom") families)"
echo "findings: $(jq '.findings | length' "$work/report.json"); the daemon's peak RSS after its first pass: $daemon_rss KiB"
# The ring: each node probes the k hosts after it on each rail, and is probed by the k
# before it: k x rails paths out and in, whatever the cluster's size.
k=2
echo "peer paths a node probes a cycle: $((k * rails)) (RDMA and TCP each); responder" \
     "sessions it serves a cycle: $((k * rails)) of each, at most max_sessions (4) at once"
echo "a cycle's peer streams at 200 ms on 400 Gb/s rails, full length: $((k * rails * 10)) GB" \
     "RDMA out of this node; a quarter once the rate settles"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
