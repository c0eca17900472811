#!/bin/sh
# SPDX-License-Identifier: ISC
# node-problem-detector's custom-plugin contract, with the shipped plugin config: its
# command line (path and args as the JSON gives them) run against a daemon on a READY
# fixture (exit 0), on one with a rail down (exit 1), and with no daemon (exit 2), each
# line within the config's max_output_length and NPD's default of 80. The config must
# not read healthy before the plugin ran (skip_initial_status) and must time out before
# the next invocation. Also NHC's check_fabtune and the DaemonSet example's host mounts.
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
jq -r '.conditions[0].reason' "$plugin" > "$tmp/reason"
expect_match '^RDMAFabricUnchecked$' "$tmp/reason"
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

# The DaemonSet example mounts what fabtuned reads and writes, at the paths of its defaults.
ds="$top_srcdir/contrib/kubernetes/fabtune-daemonset.yaml"
for path in /sys /dev/infiniband /run/fabtune /var/lib/fabtune /etc/fabtune /var/lib/prometheus/node-exporter; do
    grep -q "mountPath: $path[,}]" "$ds" && pass "DaemonSet mounts $path" || fail "DaemonSet lacks $path"
done
finish
