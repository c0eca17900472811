#!/bin/sh
# SPDX-License-Identifier: ISC
# An output path the daemon could never write is refused when the policy loads, as
# fabtuned.service's sandbox makes it: ProtectSystem=strict is read-only bind mounts, and
# here a read-only bind mount in a private mount namespace stands where /etc or /opt is
# under the unit. At start: exit 78 naming the key. At reload: refused, the old policy
# kept, the daemon answering. A symlink out of the read-only tree into a writable one
# (/etc/nccl.conf -> /run/fabtune/nccl.conf, as tmpfiles.d makes it) is accepted.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -m -n --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
tmp=$(mktemp -d /tmp/fabtune-outputs.XXXXXX)
dpid=
trap 'kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; umount "$tmp/ro" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ro/etc" "$tmp/run"
ln -s "$tmp/run/nccl.conf" "$tmp/ro/etc/nccl.conf"
mount --bind "$tmp/ro" "$tmp/ro" && mount -o remount,bind,ro "$tmp/ro"
touch "$tmp/ro/x" 2>/dev/null && fail "the bind mount is writable" || pass "$tmp/ro is a read-only mount"

fx=$(shared_fixtures)
unlimited_proc "$tmp/proc"
# policy FILE TEXTFILE_PATH
policy() {
    printf 'version: 1\ntuning: {mode: off}\nprobes: {enabled: false}\nchecks: {interval: 1h}\noutputs: {nccl_conf: %s, prometheus_textfile: %s}\n' \
        "$tmp/ro/etc/nccl.conf" "$2" > "$1"
}
start() {
    ${exec_start:+exec} "$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$fx/mlx5_8rail/sys" --procfs-root "$tmp/proc" \
        --state-dir "$tmp/state" --runtime-dir "$tmp/run" --log-target stderr "$@"
}

policy "$tmp/policy.yaml" "$tmp/ro/node-exporter/fabtune.prom"
# Bounded: a daemon that does not refuse would run on.
(exec_start=1 start > "$tmp/out" 2> "$tmp/err") & spid=$!
(sleep 20; kill "$spid" 2>/dev/null) & wpid=$!
wait "$spid"; rc=$?
kill "$wpid" 2>/dev/null
[ $rc -eq 78 ] && pass "start refused: exit 78 (EX_CONFIG)" || fail "start: exit $rc"
expect_match "outputs.prometheus_textfile: $tmp/ro/node-exporter/fabtune.prom: cannot be written here: $tmp/ro: Read-only file system (read-only: under fabtuned.service" "$tmp/err"
expect_match "^$tmp/policy.yaml:5:[0-9]*: outputs.prometheus_textfile" "$tmp/err"

policy "$tmp/policy.yaml" "$tmp/run/fabtune.prom"
# exec: $! must be fabtuned itself, not a subshell running the function.
(exec_start=1 start 2> "$tmp/log") & dpid=$!
for _ in $(seq 200); do [ -s "$tmp/run/fabtune.prom" ] && break; sleep 0.05; done
[ -s "$tmp/run/fabtune.prom" ] && pass "a writable textfile path: started and written" || { fail "did not start"; cat "$tmp/log"; }
grep -q NCCL_IB_HCA "$tmp/run/nccl.conf" && pass "nccl_conf through the read-only tree's symlink lands in run/" \
    || fail "no nccl.conf in run/"

policy "$tmp/policy.yaml" "$tmp/ro/fabtune.prom"
expect_rc 1 "$ctl" -s "$tmp/run/fabtuned.sock" reload
expect_match "outputs.prometheus_textfile: $tmp/ro/fabtune.prom: cannot be written here" "$LAST_ERR"
expect_rc 0 "$ctl" -s "$tmp/run/fabtuned.sock" health
kill -0 "$dpid" && pass "the daemon keeps running on the old policy" || fail "the daemon died"
finish
