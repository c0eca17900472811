#!/bin/bash
# SPDX-License-Identifier: ISC
# The daemon's figures: status query latency at a fixed rate from several clients while
# probes run back to back; idle CPU and RSS over 60 s. (Carrier loss to alert is measured
# by tests/daemon.sh, which prints it.)
#   bench/daemon.sh BUILDDIR [IDLE_SECONDS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
idle=${2:-60}
work=$(mktemp -d)
trap 'kill $dpid 2>/dev/null; rm -rf "$work"' EXIT
cc -O2 -I"$builddir" -o "$work/status_load" "$top/bench/status_load.c"
mkdir -p "$work/sys"    # no rails: the probes run on the loopback

start() {   # start POLICY [SYSFS_ROOT]
    "$builddir/src/daemon/fabtuned" -c "$1" --sysfs-root "${2:-$work/sys}" --state-dir "$work/state" \
        --runtime-dir "$work/run" --log-target stderr 2>/dev/null & dpid=$!
    for _ in $(seq 100); do [ -S "$work/run/fabtuned.sock" ] && break; sleep 0.05; done
}

# Probes every second (a TCP run takes ~0.2 s of streaming plus the ping-pong).
printf 'version: 1\ntuning: {mode: off}\nprobes: {interval: 1s}\n' > "$work/busy.yaml"
start "$work/busy.yaml"
echo "status latency while probes run (4 clients x 50 req/s, 10 s):"
"$work/status_load" "$work/run/fabtuned.sock" 4 50 10
echo "status latency while probes run (16 clients x 125 req/s = 2000 req/s, 10 s):"
"$work/status_load" "$work/run/fabtuned.sock" 16 125 10
kill $dpid; wait $dpid 2>/dev/null || true

# Health while checks run every second on 72 RDMA devices (a ConnectX port each, 4 GIDs in
# use, its netdev): the passes run in the worker, the loop answers from the last report.
# Then the same with each pass 2 s longer (FABTUNE_TEST_SLOW_CHECK_MS, a DCB netlink
# timeout's worth): a pass is then always going.
. "$top/tests/fixtures/sysfs-lib.sh"
many="$work/many/sys"
for n in $(seq 0 71); do
    addr=$(printf "0000:%02x:00.0" $((16 + n)))
    pci_dev "$many" "$addr" 0 mlx5_core 0x15b3 0x1021 0x020000 "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16
    ib_dev "$many" "mlx5_$n" "$addr" 28.39.1002 "b83f:d203:00c1:$(printf %04x "$n")"
    ib_port "$many" "mlx5_$n" 1 Ethernet "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" 256 yes
    for i in 0 1 2 3; do
        gid "$many" "mlx5_$n" 1 "$i" "$(v4gid "10.$n.0.1")" "$([ $((i % 2)) = 0 ] && echo "IB/RoCE v1" || echo "RoCE v2")" "eth$n"
    done
    netdev "$many" "pci0000:00/$addr" "eth$n" up 1 9000 1 $((10 + n)) > /dev/null
done
printf 'version: 1\nchecks: {interval: 1s}\ntuning: {mode: off}\nprobes: {enabled: false}\n' > "$work/many.yaml"
t0=$(date +%s%N)
for _ in 1 2 3 4 5; do
    "$builddir/src/daemon/fabtuned" --once --no-probes -c "$work/many.yaml" --sysfs-root "$many" \
        --state-dir "$work/state-once" > /dev/null 2>&1 || true
done
echo "one pass on 72 devices (fabtuned --once, mean of 5): $(( ($(date +%s%N) - t0) / 5000000 )) ms"
# The socket listens before the first check, which runs before the loop: start after it.
start "$work/many.yaml" "$many"; sleep 1
echo "health latency, checks every 1 s on 72 devices (4 clients x 50 req/s, 10 s):"
"$work/status_load" "$work/run/fabtuned.sock" 4 50 10 health
echo "metrics latency, checks every 1 s on 72 devices (4 clients x 50 req/s, 10 s):"
"$work/status_load" "$work/run/fabtuned.sock" 4 50 10 metrics
echo "checks latency, checks every 1 s on 72 devices (4 clients x 50 req/s, 10 s):"
"$work/status_load" "$work/run/fabtuned.sock" 4 50 10 checks
kill $dpid; wait $dpid 2>/dev/null || true
export FABTUNE_TEST_SLOW_CHECK_MS=2000
start "$work/many.yaml" "$many"; sleep 1
echo "health latency, each pass 2 s longer, so one is always going (4 x 50 req/s, 10 s):"
"$work/status_load" "$work/run/fabtuned.sock" 4 50 10 health
kill $dpid; wait $dpid 2>/dev/null || true
unset FABTUNE_TEST_SLOW_CHECK_MS

printf 'version: 1\ntuning: {mode: verify}\nprobes: {enabled: false}\n' > "$work/idle.yaml"
start "$work/idle.yaml"
sleep 2
ticks() { awk '{ print $14 + $15 }' "/proc/$dpid/stat"; }
t0=$(ticks)
sleep "$idle"
t1=$(ticks)
hz=$(getconf CLK_TCK)
rss=$(awk '/VmRSS/ { print $2 }' "/proc/$dpid/status")
awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$idle" -v rss="$rss" 'BEGIN {
    printf "idle over %d s (checks every 30 s, probes off): CPU %.3f s (%.4f%%), RSS %d KiB\n",
           s, (b - a) / hz, (b - a) / hz / s * 100, rss }'
