#!/bin/sh
# SPDX-License-Identifier: ISC
# The control socket under attack (hardening issue, item 3): 64 slowloris clients trickling
# a request one byte a second, and 1000 connection attempts, all as nobody, while root asks
# for status 20 times a second on a fresh connection each. Prints the share of root's
# queries answered and their latency. Needs root (setpriv) and a build with tests/ctl_raw.
#   bench/slowloris.sh BUILDDIR [SECONDS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
seconds=${2:-20}
work=$(mktemp -d)
chmod 0755 "$work"
raw="$builddir/tests/ctl_raw"
cc -O2 -I"$builddir" -o "$work/status_load" "$top/bench/status_load.c"
mkdir -p "$work/sys"
printf 'version: 1\ntuning: {mode: off}\nprobes: {enabled: false}\ncontrol: {group: daemon}\n' > "$work/p.yaml"
"$builddir/src/daemon/fabtuned" -c "$work/p.yaml" --sysfs-root "$work/sys" --state-dir "$work/state" \
    --runtime-dir "$work/run" --log-target stderr 2>/dev/null & dpid=$!
pids=""
trap 'kill $dpid $pids 2>/dev/null; rm -rf "$work"' EXIT
sock="$work/run/fabtuned.sock"
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
chmod 0755 "$work/run"; chmod 0666 "$sock"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
for _ in $(seq 64); do
    nobody "$raw" "$sock" --trickle $((seconds + 5)) > /dev/null 2>&1 & pids="$pids $!"
done
( for _ in $(seq 1000); do nobody "$raw" "$sock" --hangup < /dev/null > /dev/null 2>&1; done ) & pids="$pids $!"
sleep 1
echo "root's status, a connection each, beside 64 slowloris clients and 1000 connection attempts:"
"$work/status_load" "$sock" 1 20 "$seconds" status fresh
