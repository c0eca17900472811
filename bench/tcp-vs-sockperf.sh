#!/bin/bash
# SPDX-License-Identifier: ISC
# fabtune's TCP probe against sockperf ping-pong on the same path (127.0.0.1, 64-byte
# messages, TCP), interleaved RUNS times in one run; prints both medians of the one-way
# p50, their ratio, and the CPU time of one fabtune probe cycle.
#   bench/tcp-vs-sockperf.sh BUILDDIR [RUNS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
runs=${2:-5}
fabtuned="$builddir/src/daemon/fabtuned"
work=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT

mkdir -p "$work/state"    # no rails (none is InfiniBand here): the loopback address
printf 'version: 1\nrails: {link_layer: infiniband}\ntuning: {mode: off}\n' > "$work/policy"
sockperf server -i 127.0.0.1 -p "$port" --tcp >/dev/null 2>&1 &
server=$!
sleep 1
for run in $(seq "$runs"); do
    "$fabtuned" --once --json -c "$work/policy" --state-dir "$work/state" > "$work/f.json" || true
    jq -r '.probes.targets[0].tcp_latency.latency_seconds.p50 * 1e6' "$work/f.json" >> "$work/fabtune"
    jq -r '.probes.cpu_seconds' "$work/f.json" >> "$work/cpu"
    sockperf ping-pong -i 127.0.0.1 -p "$port" --tcp -m 64 -t 1 2>&1 |
        awk '/percentile 50.000 =/ { print $NF }' >> "$work/sockperf"
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
f=$(median "$work/fabtune") s=$(median "$work/sockperf") c=$(median "$work/cpu")
echo "fabtune TCP probe p50 (us):   $(tr '\n' ' ' < "$work/fabtune")-> median $f"
echo "sockperf ping-pong p50 (us):  $(tr '\n' ' ' < "$work/sockperf")-> median $s"
awk -v f="$f" -v s="$s" 'BEGIN { printf "ratio fabtune / sockperf: %.3f\n", f / s }'
echo "CPU time of one probe cycle (TCP ping-pong 1000 x 64 B + 200 ms stream): ${c} s"
