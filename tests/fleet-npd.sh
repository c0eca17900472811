#!/bin/sh
# SPDX-License-Identifier: ISC
# node-problem-detector's custom-plugin contract, with the shipped plugin config: its
# command line (path and args as the JSON gives them) run against a daemon on a READY
# fixture (exit 0), on one with a rail down (exit 1), and with no daemon (exit 2), each
# line within the config's max_output_length and NPD's default of 80. The config must
# not read healthy before the plugin ran (skip_initial_status) and must time out before
# the next invocation. Also NHC's check_fabtune and the DaemonSet example's host mounts.
# The condition clears itself and none is left behind (issue 41): the config has one
# condition for the node, never one per rail, and its default (what NPD's custom plugin
# monitor sets again when the plugin exits 0 after a problem) is the healthy one; a daemon
# whose down rail is renamed names the new rail (NPD updates the message), and READY once
# the rail is back or gone. node-problem-detector itself is not packaged in Debian: its
# side is read from the config it would load, not run.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -n sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
plugin="$top_srcdir/conf/node-problem-detector/fabtune-plugin.json"
tmp=$(mktemp -d /tmp/fabtune-npd.XXXXXX)
dpid=
trap 'kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; rm -rf "$tmp"' EXIT

seconds() { awk -v t="$1" 'BEGIN { if (t ~ /ms$/) print (t + 0) / 1000; else if (t ~ /m$/) print (t + 0) * 60; else print t + 0 }'; }
max=$(jq -r '.pluginConfig.max_output_length' "$plugin")
[ "$max" -le 80 ] && pass "max_output_length $max <= 80" || fail "max_output_length $max"
[ "$(jq -r '.pluginConfig.skip_initial_status' "$plugin")" = true ] \
    && pass "skip_initial_status: no healthy condition before the first run" || fail "skip_initial_status is not true"
jq -r '.conditions[0] | "\(.reason) \(.message)"' "$plugin" > "$tmp/reason"
expect_match '^RDMAFabricReady fabtune: READY$' "$tmp/reason"
[ "$(jq '.conditions | length' "$plugin")" = 1 ] && pass "one condition for the node" || fail "conditions: $(jq -c .conditions "$plugin")"
jq -r '.rules[] | "\(.type) \(.condition) \(.reason)"' "$plugin" | sort -u > "$tmp/rules"
[ "$(cat "$tmp/rules")" = "permanent RDMAFabricNotReady RDMAFabricNotReady" ] \
    && pass "every rule sets that one condition, by a fixed name (none per rail)" || fail "rules: $(cat "$tmp/rules")"
interval=$(jq -r '.pluginConfig.invoke_interval' "$plugin")
timeout=$(jq -r '.rules[0].timeout' "$plugin")
awk -v a="$(seconds "$timeout")" -v b="$(seconds "$interval")" 'BEGIN { exit !(a > 0 && a < b) }' \
    && pass "the rule's timeout $timeout < invoke_interval $interval" || fail "timeout $timeout, interval $interval"
[ "$(jq -r '.rules[0].path' "$plugin")" = /usr/bin/fabtunectl ] && pass "the plugin runs /usr/bin/fabtunectl" \
    || fail "path: $(jq -r '.rules[0].path' "$plugin")"

# The plugin's command line, with this build's fabtunectl and the test's socket.
set -- $(jq -r '.rules[0].args[]' "$plugin")
plugin_run() { "$ctl" -s "$tmp/run/fabtuned.sock" "$@"; }
# contract NAME RC: the plugin's exit code and a line within max_output_length.
contract() {
    plugin_run "$@" > "$tmp/out"; rc=$?
    len=$(head -c 4096 "$tmp/out" | tr -d '\n' | wc -c)
    [ "$rc" -eq "$want" ] && pass "$name: exit $rc" || fail "$name: exit $rc, want $want: $(cat "$tmp/out")"
    [ "$len" -le "$max" ] && pass "$name: $len bytes" || fail "$name: $len bytes > $max: $(cat "$tmp/out")"
}

fx=$(shared_fixtures)
unlimited_proc "$tmp/proc"
printf 'version: 1\ntuning: {mode: off}\nprobes: {enabled: false}\nchecks: {interval: 1h}\n' > "$tmp/policy.yaml"
daemon_on() {
    kill $dpid 2>/dev/null; wait $dpid 2>/dev/null
    rm -rf "$tmp/run"
    "$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$fx/$1/sys" --procfs-root "$tmp/proc" \
        --state-dir "$tmp/state-$1" --runtime-dir "$tmp/run" --log-target stderr 2> "$tmp/log" & dpid=$!
    for _ in $(seq 200); do "$ctl" -s "$tmp/run/fabtuned.sock" health > /dev/null 2>&1; [ $? -ne 2 ] && break; sleep 0.05; done
}
# LBNL NHC's check (contrib/nhc/fabtune.nhc): NHC is not packaged in Debian, so its die
# is a stand-in that prints what NHC would put in the drain reason.
nhc_check() {
    FABTUNECTL="$ctl" bash -c '. "$1"; die() { printf "die %s %s\n" "$1" "$2"; }; check_fabtune -s "$2"' \
        nhc "$top_srcdir/contrib/nhc/fabtune.nhc" "$tmp/run/fabtuned.sock"
}
daemon_on mlx5_8rail
name="8 rails READY" want=0 contract "$@"
nhc_check > "$tmp/nhc"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/nhc" ] && pass "check_fabtune passes on READY, silently" || fail "check_fabtune READY: rc $rc $(cat "$tmp/nhc")"
daemon_on mlx5_8rail_rail_down
name="a rail down" want=1 contract "$@"
expect_match '^fabtune: NOT_READY: ' "$tmp/out"
nhc_check > "$tmp/nhc"; rc=$?
[ $rc -eq 1 ] && pass "check_fabtune fails on NOT_READY" || fail "check_fabtune: rc $rc"
expect_match '^die 1 fabtune: port.state mlx5_3/1: port is DOWN$' "$tmp/nhc"
# A first failing finding of 150 bytes (the GID index per rail) is cut, not dropped.
daemon_on mlx5_8rail_gid_shift
name="a long finding" want=1 contract "$@"
expect_match '^fabtune: [A-Z_]*: gid.consistent: the GID index differs.*\.\.\.$' "$tmp/out"
kill $dpid; wait $dpid 2>/dev/null; dpid=
name="no daemon" want=2 contract "$@"
expect_match '^fabtune: UNKNOWN: fabtuned not answering' "$tmp/out"

# A rail down, renamed (re-enumerated), back, gone, forgotten: the plugin's line follows, and READY
# (exit 0) clears the condition. A writable copy of the tree, judged every second.
cp -a "$fx/mlx5_8rail_rail_down" "$tmp/live"
r="$tmp/live/sys"
printf 'version: 1\ntuning: {mode: off}\nprobes: {enabled: false}\nchecks: {interval: 1s}\n' > "$tmp/live.yaml"
rm -rf "$tmp/run"
"$fabtuned" -c "$tmp/live.yaml" --sysfs-root "$r" --procfs-root "$tmp/proc" --state-dir "$tmp/state-live" \
    --runtime-dir "$tmp/run" --log-target stderr 2> "$tmp/log" & dpid=$!
# plugin_until REGEX: the plugin's line matches REGEX within 15 s (a pass a second).
plugin_until() {
    for _ in $(seq 75); do plugin_run "$@" > "$tmp/out" 2>&1; rc=$?; grep -q "$want_line" "$tmp/out" && return 0; sleep 0.2; done
    return 1
}
want_line='mlx5_3/1: port is DOWN$'
plugin_until "$@" && [ "$rc" -eq 1 ] && pass "rail down: exit 1, $(cat "$tmp/out")" || fail "rail down: exit $rc, $(cat "$tmp/out")"
dev=$(readlink "$r/class/infiniband/mlx5_3")
mv "$r/class/infiniband/$dev" "$r/class/infiniband/${dev%mlx5_3}mlx5_9"
rm "$r/class/infiniband/mlx5_3"
ln -s "${dev%mlx5_3}mlx5_9" "$r/class/infiniband/mlx5_9"
want_line='port.state mlx5_9/1: port is DOWN$'
plugin_until "$@" && [ "$rc" -eq 1 ] && pass "renamed mlx5_9: exit 1, the message names the new rail" || fail "renamed: exit $rc, $(cat "$tmp/out")"
if grep -q mlx5_3 "$tmp/out"; then fail "the old name is left: $(cat "$tmp/out")"; else pass "no word of mlx5_3 left"; fi
port="$r/class/infiniband/mlx5_9/ports/1"
net=$(ls "$r/class/infiniband/mlx5_9/device/net")
cp "$r/class/infiniband/mlx5_0/ports/1/state" "$r/class/infiniband/mlx5_0/ports/1/phys_state" "$port/"
cp "$r/class/net/enp26s0f0np0/operstate" "$r/class/net/enp26s0f0np0/carrier" "$r/class/net/$net/"
want_line='^fabtune: READY$'
plugin_until "$@" && [ "$rc" -eq 0 ] && pass "rail back: exit 0 'fabtune: READY': the condition clears" || fail "rail back: exit $rc, $(cat "$tmp/out")"
# Gone (issue 45, item 5): an error naming the rail (rails.gone) until an operator forgets
# it, and then READY: the condition clears, none is left behind.
rm "$r/class/infiniband/mlx5_9"
want_line='rails.gone mlx5_9/1: rail mlx5_9/1 left the inventory'
plugin_until "$@" && [ "$rc" -eq 1 ] && pass "rail gone: exit 1, $(cat "$tmp/out")" || fail "rail gone: exit $rc, $(cat "$tmp/out")"
"$ctl" -s "$tmp/run/fabtuned.sock" forget mlx5_9/1 > "$tmp/forget" 2>&1 || fail "forget: $(cat "$tmp/forget")"
want_line='^fabtune: READY$'
plugin_until "$@" && [ "$rc" -eq 0 ] && pass "forgotten: exit 0 'fabtune: READY': the condition clears" || fail "forgotten: exit $rc, $(cat "$tmp/out")"
kill $dpid; wait $dpid 2>/dev/null; dpid=

# The DaemonSet example mounts what fabtuned reads and writes, at the paths of its defaults.
ds="$top_srcdir/contrib/kubernetes/fabtune-daemonset.yaml"
for path in /sys /dev/infiniband /run/fabtune /var/lib/fabtune /etc/fabtune /var/lib/prometheus/node-exporter; do
    grep -q "mountPath: $path[,}]" "$ds" && pass "DaemonSet mounts $path" || fail "DaemonSet lacks $path"
done
finish
