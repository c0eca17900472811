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

start() {
    "$builddir/src/daemon/fabtuned" -c "$1" --sysfs-root "$work/sys" --state-dir "$work/state" \
        --runtime-dir "$work/run" --log-target stderr 2>/dev/null & dpid=$!
    for _ in $(seq 100); do [ -S "$work/run/fabtuned.sock" ] && break; sleep 0.05; done
}

# Probes every second (a TCP run takes ~0.2 s of streaming plus the ping-pong).
printf 'version: 1\ntuning: {mode: off}\nprobes: {interval: 1s}\n' > "$work/busy.yaml"
start "$work/busy.yaml"
echo "status latency while probes run (4 clients x 50 req/s, 10 s):"
"$work/status_load" "$work/run/fabtuned.sock" 4 50 10
kill $dpid; wait $dpid 2>/dev/null || true

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
