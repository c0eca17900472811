#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtuned's command line, run as an operator would: --check-config, --dump-policy, --once.
. "${top_srcdir:-.}/tests/lib.sh"

fabtuned="$top_builddir/src/daemon/fabtuned"
rails_only="$top_srcdir/tests/rails-only.policy"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The shipped default policy is valid; so is the example. Their comments name no file the
# tree does not have (the example pointed at a SPEC.md that is not shipped).
expect_rc 0 "$fabtuned" --check-config -c "$top_srcdir/conf/fabtune.yaml"
expect_rc 0 "$fabtuned" --check-config -c "$top_srcdir/conf/examples/roce-8rail.yaml"
missing=""
for f in $(grep -ho '[A-Za-z0-9_./-]*\.\(md\|txt\|yaml\|sh\)\b' "$top_srcdir"/conf/fabtune.yaml \
               "$top_srcdir"/conf/examples/*.yaml | grep -v '^/\|^fabtune\.yaml$' | sort -u); do
    [ -e "$top_srcdir/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && pass "the shipped policies name no missing file" || fail "they name:$missing"

# A bad policy: exit 1 and FILE:LINE:COL on stderr, with the source line and caret.
printf 'version: 1\nrails:\n  qos:\n    pfc_prio: 3\n' > "$tmp/bad.yaml"
expect_rc 1 "$fabtuned" --check-config -c "$tmp/bad.yaml"
expect_grep "$tmp/bad.yaml:4:5: unknown key 'pfc_prio' in rails.qos (did you mean 'pfc_priority'?)" "$LAST_ERR"
expect_match "^    pfc_prio: 3\$" "$LAST_ERR"
expect_match "^    ^\$" "$LAST_ERR"

# A control.group this host does not have would leave the socket root's alone: refused at
# its node, by --check-config (1) and at start (78).
printf 'version: 1\ncontrol: {group: no-such-group}\n' > "$tmp/group.yaml"
expect_rc 1 "$fabtuned" --check-config -c "$tmp/group.yaml"
expect_grep "$tmp/group.yaml:2:18: control.group: no group 'no-such-group' on this host" "$LAST_ERR"
expect_rc 78 "$fabtuned" -c "$tmp/group.yaml" --state-dir "$tmp/g-state" --runtime-dir "$tmp/g-run"
expect_grep "$tmp/group.yaml:2:18: control.group" "$LAST_ERR"
printf 'version: 1\ncontrol: {group: daemon}\n' > "$tmp/group-ok.yaml"
expect_rc 0 "$fabtuned" --check-config -c "$tmp/group-ok.yaml"

# An output path under /proc or /sys, or in a directory that does not exist: refused at its
# node, by --check-config (1) and at start (78), as fabtune.yaml(5) says.
printf 'version: 1\noutputs:\n  prometheus_textfile: /proc/fabtune.prom\n' > "$tmp/proc-out.yaml"
expect_rc 1 "$fabtuned" --check-config -c "$tmp/proc-out.yaml"
expect_grep "$tmp/proc-out.yaml:3:24: outputs.prometheus_textfile: /proc/fabtune.prom: under /proc, a kernel file system" "$LAST_ERR"
expect_rc 78 "$fabtuned" -c "$tmp/proc-out.yaml" --state-dir "$tmp/p-state" --runtime-dir "$tmp/p-run"
expect_grep "$tmp/proc-out.yaml:3:24: outputs.prometheus_textfile" "$LAST_ERR"
printf 'version: 1\noutputs: {nccl_env: /sys/fabtune.env}\n' > "$tmp/sys-out.yaml"
expect_rc 1 "$fabtuned" --check-config -c "$tmp/sys-out.yaml"
expect_grep "outputs.nccl_env: /sys/fabtune.env: under /sys" "$LAST_ERR"
printf 'version: 1\noutputs: {nccl_conf: %s/no-such-dir/nccl.conf}\n' "$tmp" > "$tmp/nodir.yaml"
expect_rc 1 "$fabtuned" --check-config -c "$tmp/nodir.yaml"
expect_grep "outputs.nccl_conf: $tmp/no-such-dir/nccl.conf: its directory $tmp/no-such-dir: No such file or directory" "$LAST_ERR"

# Every key has a default, the version too: an empty file is as valid as one without
# version, and dumps as "version: 1" does.
: > "$tmp/empty.yaml"
expect_rc 0 "$fabtuned" --check-config -c "$tmp/empty.yaml"
expect_grep "$tmp/empty.yaml: valid" "$LAST_OUT"
printf 'rails: {expect_count: 0}\n' > "$tmp/noversion.yaml"
expect_rc 0 "$fabtuned" --check-config -c "$tmp/noversion.yaml"
expect_rc 0 "$fabtuned" --dump-policy -c "$tmp/empty.yaml"
cp "$LAST_OUT" "$tmp/empty.dump"
printf 'version: 1\n' > "$tmp/v1.yaml"
expect_rc 0 "$fabtuned" --dump-policy -c "$tmp/v1.yaml"
expect_same "$tmp/empty.dump" "$LAST_OUT"

# Issue 41, item 6: --check-config flags every sysctl key the host (its --procfs-root)
# does not have, at its node, with the nearest key it has; a per-rail key is checked as
# the kernel's "default" interface has it. At run time such a key is a warning, never
# READY. A key of the host's network namespace alone, looked at from another, is not
# checked (said), not refused.
hp="$tmp/host-proc/sys"
mkdir -p "$hp/net/core" "$hp/net/ipv4/conf/default" "$hp/vm" "$hp/kernel/random"
for k in net/core/somaxconn net/core/netdev_max_backlog net/core/rmem_max vm/zone_reclaim_mode \
    net/ipv4/conf/default/rp_filter net/ipv4/conf/default/arp_ignore; do echo 1 > "$hp/$k"; done
echo 11111111-2222-3333-4444-555555555555 > "$hp/kernel/random/boot_id"
printf 'version: 1\nrails: {expect_count: 0}\nprobes: {enabled: false}\ntuning:\n  mode: verify\n  sysctl:\n%s\n%s\n%s\n%s\n%s\n' \
    '    net.core.rmem_maxx: 134217728' '    net.ipv4.conf.@multirail.rp_filtr: 2' \
    '    net.core.rmem_max: 1' '    net.ipv4.conf.@rail.arp_ignore: 1' '    net.bridge.nothing_here: 1' > "$tmp/typo.yaml"
expect_rc 1 "$fabtuned" --check-config -c "$tmp/typo.yaml" --procfs-root "$tmp/host-proc"
expect_grep "$tmp/typo.yaml:7:5: sysctl key 'net.core.rmem_maxx' does not exist in $tmp/host-proc/sys (did you mean 'net.core.rmem_max'?)" "$LAST_ERR"
expect_grep "$tmp/typo.yaml:8:5: sysctl key 'net.ipv4.conf.@multirail.rp_filtr' does not exist in $tmp/host-proc/sys (did you mean 'net.ipv4.conf.@multirail.rp_filter'?)" "$LAST_ERR"
expect_grep "$tmp/typo.yaml:11:5: sysctl key 'net.bridge.nothing_here' does not exist in $tmp/host-proc/sys (a typo, or a module that is not loaded)" "$LAST_ERR"
expect_match "^    net.core.rmem_maxx: 134217728\$" "$LAST_ERR"
! grep -q "key 'net.core.rmem_max'\|arp_ignore' does not" "$LAST_ERR" && pass "the keys the host has pass" ||
    fail "a key the host has was refused"
sed '/maxx\|rp_filtr\|nothing_here/d' "$tmp/typo.yaml" > "$tmp/typo-fixed.yaml"
expect_rc 0 "$fabtuned" --check-config -c "$tmp/typo-fixed.yaml" --procfs-root "$tmp/host-proc"
# The daemon and --once load it all the same (the key may come with a module) and warn.
expect_rc 1 "$fabtuned" --once --json -c "$tmp/typo.yaml" --procfs-root "$tmp/host-proc" --state-dir "$tmp/typo-state"
jq -r '.findings[] | select(.check == "tuning.drift" and (.message | contains("rmem_maxx"))) | "\(.severity) \(.hint)"' "$LAST_OUT" > "$tmp/v"
expect_match "^warning a typo? this kernel has net.core.rmem_max; " "$tmp/v"
jq -r .verdict "$LAST_OUT" > "$tmp/v"
expect_match '^DEGRADED$' "$tmp/v"
# A pod's namespace: somaxconn without netdev_max_backlog. Its net keys are not checked.
rm "$hp/net/core/netdev_max_backlog"
printf 'version: 1\ntuning:\n  sysctl: {net.core.netdev_max_backlog: 1, vm.zone_reclaim_mode: 0}\n' > "$tmp/pod.yaml"
expect_rc 0 "$fabtuned" --check-config -c "$tmp/pod.yaml" --procfs-root "$tmp/host-proc"
expect_grep "net.core.netdev_max_backlog is not visible in this network namespace" "$LAST_ERR"

# An explicit -c that does not exist is an error, never the built-in policy.
expect_rc 1 "$fabtuned" --check-config -c "$tmp/missing.yaml"
expect_grep "cannot read policy: No such file or directory" "$LAST_ERR"

# --dump-policy: what it prints loads back and dumps identically.
expect_rc 0 "$fabtuned" --dump-policy -c "$top_srcdir/conf/examples/roce-8rail.yaml"
cp "$LAST_OUT" "$tmp/dump1.yaml"
expect_rc 0 "$fabtuned" --dump-policy -c "$tmp/dump1.yaml"
expect_same "$tmp/dump1.yaml" "$LAST_OUT"
expect_grep "expect_count: 8" "$tmp/dump1.yaml"

# --once with a bad policy: a config error, not a verdict.
expect_rc 78 "$fabtuned" --once -c "$tmp/bad.yaml"

# --once --json is JSON with a verdict and its exit code (fabtuned(8), EXIT STATUS).
expect_rc_in "0 1 2 3" "$fabtuned" --once --json --no-probes -c "$top_srcdir/conf/fabtune.yaml"
verdict=$(jq -r .verdict "$LAST_OUT")
case "$verdict:$LAST_RC" in
    READY:0|DEGRADED:1|NOT_READY:2|UNKNOWN:3) pass "verdict $verdict matches exit $LAST_RC" ;;
    *) fail "verdict $verdict does not match exit code $LAST_RC" ;;
esac

# Offline analysis of a captured tree: the 8-rail fixture with rail 3 down.
fx=$(shared_fixtures)
expect_rc 2 "$fabtuned" --once --json --no-probes --sysfs-root "$fx/mlx5_8rail_rail_down/sys" \
    -c "$top_srcdir/conf/examples/roce-8rail.yaml"
expect_grep '"verdict":"NOT_READY"' "$(jq -c '{verdict}' "$LAST_OUT" > "$tmp/v.json"; echo "$tmp/v.json")"
jq -c '[.rails[] | select(.verdict == "NOT_READY") | .name]' "$LAST_OUT" > "$tmp/bad.json"
expect_match '^\["mlx5_3/1"\]$' "$tmp/bad.json"
jq -c '[.rails[].gid_index] | unique' "$LAST_OUT" > "$tmp/gids.json"
expect_match '^\[3\]$' "$tmp/gids.json"
jq -r '.nccl.NCCL_IB_HCA' "$LAST_OUT" > "$tmp/hca"
expect_match '^=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1$' "$tmp/hca"
unlimited_proc "$tmp/proc"
expect_rc 0 "$fabtuned" --once --no-probes --sysfs-root "$fx/soft_roce/sys" -c "$rails_only" \
    --procfs-root "$tmp/proc"
expect_grep "rxe0/1       v0               ACTIVE   10G       1500/-      1 192.0.2.1" "$LAST_OUT"
expect_grep "NCCL_IB_GID_INDEX=1" "$LAST_OUT"

# A host without RDMA: rails 0, and why. Without rails.expect_count (null: at least one
# rail) it is NOT_READY, rails.count's error naming the TCP-only setting (issue 27 item 13:
# it was READY); with expect_count: 0, a TCP-only node, READY. The GPUs show beside.
mkdir -p "$tmp/empty/sys"
expect_rc 2 "$fabtuned" --once --json --no-probes --sysfs-root "$tmp/empty/sys" -c "$rails_only" \
    --procfs-root "$tmp/proc"
jq -r .why_no_rails "$LAST_OUT" > "$tmp/why"
expect_grep "class/infiniband does not exist" "$tmp/why"
jq -r '"\(.verdict) " + ([.findings[] | select(.check == "rails.count") | "\(.severity) \(.hint)"] | join(";"))' \
    "$LAST_OUT" > "$tmp/nr"
expect_match "^NOT_READY error .*set 'rails: {expect_count: 0}'" "$tmp/nr"
expect_rc 2 "$fabtuned" --once --no-probes --sysfs-root "$tmp/empty/sys" -c "$rails_only" --procfs-root "$tmp/proc"
expect_match '^gpus: 0 (' "$LAST_OUT"
expect_match '^verdict: NOT_READY: 1 error (rails.count)$' "$LAST_OUT"
printf 'version: 1\ntuning: {mode: off}\nprobes: {enabled: false}\nrails: {expect_count: 0}\n' > "$tmp/tcp-only.yaml"
expect_rc 0 "$fabtuned" --once --json --no-probes --sysfs-root "$tmp/empty/sys" -c "$tmp/tcp-only.yaml" \
    --procfs-root "$tmp/proc"
jq -r '"\(.verdict) " + ([.findings[] | select(.check == "rails.count") | .severity] | join(";"))' \
    "$LAST_OUT" > "$tmp/nr"
expect_match '^READY ok$' "$tmp/nr"
# expect_count: 0 where a rail exists: a warning, DEGRADED.
expect_rc 1 "$fabtuned" --once --json --no-probes --sysfs-root "$fx/soft_roce/sys" -c "$tmp/tcp-only.yaml" \
    --procfs-root "$tmp/proc"
jq -r '"\(.verdict) " + ([.findings[] | select(.check == "rails.count") | .severity] | join(";"))' \
    "$LAST_OUT" > "$tmp/nr"
expect_match '^DEGRADED warning$' "$tmp/nr"
expect_rc_in "0 1 2 3" "$fabtuned" --once --no-probes --sysfs-root "$fx/gpu_node_peermem/sys" -c "$rails_only" \
    --procfs-root "$tmp/proc"
expect_match '^gpus: 2 (0000:18:00.0 numa 0, 0000:b2:00.0 numa 1), nvidia_peermem loaded$' "$LAST_OUT"

# fabtunectl snapshot works without the daemon, and fabtuned analyses what it took.
expect_rc 0 "$top_builddir/src/client/fabtunectl" snapshot "$tmp/snap.tar"
mkdir "$tmp/snap" && tar -C "$tmp/snap" -xf "$tmp/snap.tar"
[ -f "$tmp/snap/proc/sys/kernel/random/boot_id" ] && pass "snapshot has the boot id" || fail "no boot id in the snapshot"
expect_rc_in "0 1 2 3" "$fabtuned" --once --json --no-probes --sysfs-root "$tmp/snap/sys" \
    --procfs-root "$tmp/snap/proc" --state-dir "$tmp"
jq -r '.tuning[] | select(.key == "net.core.somaxconn" or .key == "net.core.rmem_max") | .live' "$LAST_OUT" > "$tmp/live"
expect_match "^$(cat /proc/sys/net/core/rmem_max)\$" "$tmp/live"
# The report names the snapshot's host and kernel, read from the snapshot.
jq -r '"\(.hostname) \(.kernel)"' "$LAST_OUT" > "$tmp/snap-id"
expect_grep "$(cat /proc/sys/kernel/hostname) $(uname -r)" "$tmp/snap-id"
# Issue 27, item 31: offline, a key that matches "matches" (nothing was written) and one
# the snapshot lacks is "not in the snapshot".
printf 'version: 1\ntuning:\n  mode: verify\n  sysctl:\n    net.core.rmem_max: %s\n    net.core.wmem_max: 1234\n' \
    "$(cat "$tmp/snap/proc/sys/net/core/rmem_max")" > "$tmp/offline-tuning.yaml"
cp -a "$tmp/snap" "$tmp/snap-short" && rm "$tmp/snap-short/proc/sys/net/core/wmem_max"
expect_rc_in "0 1 2 3" "$fabtuned" --once --json --no-probes --sysfs-root "$tmp/snap-short/sys" \
    --procfs-root "$tmp/snap-short/proc" --state-dir "$tmp" -c "$tmp/offline-tuning.yaml"
jq -r '.tuning[] | select(.key == "net.core.rmem_max" or .key == "net.core.wmem_max") | "\(.key) \(.state)"' "$LAST_OUT" > "$tmp/offline-states"
expect_match '^net.core.rmem_max matches$' "$tmp/offline-states"
expect_match '^net.core.wmem_max missing$' "$tmp/offline-states"
jq -r '.findings[] | select(.check == "tuning.drift") | .message' "$LAST_OUT" > "$tmp/offline-drift"
expect_match '^net.core.wmem_max is not in the captured tree$' "$tmp/offline-drift"

# The snapshot is compressed as its name says, and fabtuned reads it so; a name that says
# no compression fabtune knows is refused before anything is captured.
expect_rc 0 "$top_builddir/src/client/fabtunectl" snapshot "$tmp/c.tar.xz"
expect_rc 0 xz -t "$tmp/c.tar.xz"
expect_rc_in "0 1 2 3" "$fabtuned" --once --json --no-probes --snapshot "$tmp/c.tar.xz"
jq -r .hostname "$LAST_OUT" > "$tmp/c-host"
expect_match "^$(cat /proc/sys/kernel/hostname)\$" "$tmp/c-host"
expect_rc 0 "$top_builddir/src/client/fabtunectl" snapshot "$tmp/c.tgz"
expect_rc 0 gzip -t "$tmp/c.tgz"
expect_rc 64 "$top_builddir/src/client/fabtunectl" snapshot "$tmp/c.zip"
expect_grep "'$tmp/c.zip' does not say how to compress it: name it .tar, .tar.gz, .tgz, .tar.xz or .tar.zst" "$LAST_ERR"
[ ! -e "$tmp/c.zip" ] && pass "no c.zip written" || fail "c.zip written"
# A tarball it cannot write says why, with the errno (issue 43, item 7: "Failed to open"
# alone): a directory that is not there before anything is captured, a tarball that is a
# directory after.
expect_rc 1 "$top_builddir/src/client/fabtunectl" snapshot "$tmp/nonexist/d.tar"
expect_grep "fabtunectl: snapshot: cannot write $tmp/nonexist/d.tar: $tmp/nonexist: No such file or directory" "$LAST_ERR"
mkdir "$tmp/dir.tar"
expect_rc 1 "$top_builddir/src/client/fabtunectl" snapshot "$tmp/dir.tar"
expect_grep "fabtunectl: cannot write $tmp/dir.tar: Failed to open '$tmp/dir.tar': Is a directory" "$LAST_ERR"

# fabtunectl diff against this node writes no state: its live side is judged with a scratch
# state directory, removed after (issue 41, item 5: it made /var/lib/fabtune). A tmpfs on
# /var/lib, in a mount namespace of its own, shows what it would have made; a snapshot that
# is not there is a usage error.
mkdir "$tmp/dscr"
if unshare -m sh -c "mount -t tmpfs tmpfs /var/lib && FABTUNED='$fabtuned' TMPDIR='$tmp/dscr' \
        '$top_builddir/src/client/fabtunectl' diff '$tmp/snap.tar' > '$tmp/diff-live.txt' 2>&1;
        echo \$? > '$tmp/diff-rc'; ls -A /var/lib > '$tmp/varlib'"; then
    expect_match '^[01]$' "$tmp/diff-rc"
    expect_grep "B: live" "$tmp/diff-live.txt"
    [ ! -s "$tmp/varlib" ] && pass "diff made nothing in /var/lib" || fail "diff made /var/lib/$(cat "$tmp/varlib")"
    [ -z "$(ls -A "$tmp/dscr")" ] && pass "diff removed its scratch state directory" ||
        fail "diff left $(ls "$tmp/dscr")"
else
    fail "cannot mount a tmpfs on /var/lib in a new mount namespace (unshare -m)"
fi
# A signal to diff ends the fabtuned it runs, then diff by the same signal, with nothing
# left behind (retried if diff was done before the signal came).
for _ in 1 2 3; do
    TMPDIR="$tmp/dscr" FABTUNED="$fabtuned" "$top_builddir/src/client/fabtunectl" diff "$tmp/snap.tar" \
        > /dev/null 2>&1 &
    dpid=$!
    for _ in $(seq 200); do ls -d "$tmp/dscr"/fabtunectl-diff.* > /dev/null 2>&1 && break; sleep 0.01; done
    kill -TERM "$dpid"; wait "$dpid"; drc=$?
    [ "$drc" -eq 143 ] && break
done
[ "$drc" -eq 143 ] && pass "SIGTERM to diff: it died by it (143)" || fail "SIGTERM to diff: exit $drc, wanted 143"
[ -z "$(ls -A "$tmp/dscr")" ] && pass "SIGTERM to diff: nothing left" || fail "SIGTERM to diff left $(ls "$tmp/dscr")"
expect_rc 64 "$top_builddir/src/client/fabtunectl" diff "$tmp/absent.tar"
expect_grep "fabtunectl: diff: $tmp/absent.tar: No such file or directory" "$LAST_ERR"

# --snapshot FILE unpacks the tarball into a private directory and judges it as the tree
# unpacked by tar: this host's snapshot, and the 8-rail, GPU-switch and Soft-RoCE trees
# tarred (their class/ links resolved inside the tree). The report names no scratch path:
# what the unpacked tree's report says of its root ($2) the snapshot's must say of nothing.
same_report() {   # $1: label; $LAST_OUT of the unpacked run saved in $tmp/unpacked.json
    sed "s|$2|ROOT/|g" "$tmp/unpacked.json" | jq -S 'del(.timestamp)' > "$tmp/u.json"
    jq -S 'del(.timestamp)' "$LAST_OUT" > "$tmp/s.json"
    if cmp -s "$tmp/u.json" "$tmp/s.json"; then pass "$1: --snapshot reports as the unpacked tree"
    else fail "$1: --snapshot differs from the unpacked tree"; diff "$tmp/u.json" "$tmp/s.json" | head -20; fi
}
expect_rc_in "0 1 2 3" "$fabtuned" --once --json --no-probes --sysfs-root "$tmp/snap/sys" \
    --procfs-root "$tmp/snap/proc"
cp "$LAST_OUT" "$tmp/unpacked.json"
expect_rc_in "0 1 2 3" "$fabtuned" --once --json --no-probes --snapshot "$tmp/snap.tar"
same_report "this host" "$tmp/snap/"
for f in mlx5_8rail gpu_node_acs soft_roce; do
    cp -a "$fx/$f" "$tmp/$f" && mkdir -p "$tmp/$f/proc"
    tar -C "$tmp/$f" -czf "$tmp/$f.tar.gz" .
    expect_rc_in "0 1 2" "$fabtuned" --once --json --no-probes -c "$rails_only" \
        --sysfs-root "$tmp/$f/sys" --procfs-root "$tmp/$f/proc"
    cp "$LAST_OUT" "$tmp/unpacked.json"
    expect_rc_in "0 1 2" "$fabtuned" --once --json --no-probes -c "$rails_only" --snapshot "$tmp/$f.tar.gz"
    same_report "$f" "$tmp/$f/"
done
jq -r '.rails | length' "$LAST_OUT" > "$tmp/n"
expect_match '^1$' "$tmp/n"
# Not a tarball, a symlink loop in one, and --snapshot with what it excludes: clear errors,
# libarchive's "Invalid or incomplete multibyte or wide character" for a file that is no
# tarball said in words (issue 43, item 7).
echo "not a tar" > "$tmp/bad.tar"
expect_rc 66 "$fabtuned" --once --snapshot "$tmp/bad.tar"
expect_grep "fabtuned: cannot read the snapshot $tmp/bad.tar: not a tar archive (plain, or compressed with gzip, bzip2, xz or zstd)" "$LAST_ERR"
gzip -c "$tmp/bad.tar" > "$tmp/bad.tar.gz"
expect_rc 66 "$fabtuned" --once --snapshot "$tmp/bad.tar.gz"
expect_grep "cannot read the snapshot $tmp/bad.tar.gz: not a tar archive" "$LAST_ERR"
# A tarball with no sys/ is no snapshot; one that is not there, or a directory, and a
# --sysfs-root or --procfs-root that is not there, are usage errors, not a node without
# RDMA (issue 41, item 5).
tar -C "$tmp" -cf "$tmp/nosys.tar" bad.tar
expect_rc 66 "$fabtuned" --once --snapshot "$tmp/nosys.tar"
expect_grep "cannot read the snapshot $tmp/nosys.tar: not a fabtune snapshot: it holds no sys/ directory" "$LAST_ERR"
expect_rc 64 "$fabtuned" --once --snapshot "$tmp/absent.tar"
expect_grep "fabtuned: --snapshot $tmp/absent.tar: No such file or directory" "$LAST_ERR"
expect_rc 64 "$fabtuned" --once --snapshot "$tmp"
expect_grep "fabtuned: --snapshot $tmp: a directory, not a tarball (an unpacked snapshot is read with --sysfs-root DIR/sys --procfs-root DIR/proc)" "$LAST_ERR"
expect_rc 64 "$fabtuned" --once --no-probes --sysfs-root "$tmp/absent"
expect_grep "fabtuned: --sysfs-root $tmp/absent: No such file or directory" "$LAST_ERR"
expect_rc 64 "$fabtuned" --once --no-probes --sysfs-root "$tmp/bad.tar"
expect_grep "fabtuned: --sysfs-root $tmp/bad.tar: not a directory" "$LAST_ERR"
expect_rc 64 "$fabtuned" --once --no-probes --sysfs-root "$fx/mlx5_8rail/sys" --procfs-root "$tmp/absent"
expect_grep "fabtuned: --procfs-root $tmp/absent: No such file or directory" "$LAST_ERR"
expect_rc 64 timeout 20 "$fabtuned" --sysfs-root "$tmp/absent" --state-dir "$tmp/absent-state" \
    --runtime-dir "$tmp/absent-run"
[ ! -e "$tmp/absent-state" ] && pass "the daemon refused the missing root before making its state directory" ||
    fail "the daemon made $tmp/absent-state for a missing root"
mkdir -p "$tmp/loop/sys/class" && ln -s ../class/infiniband "$tmp/loop/sys/class/infiniband"
tar -C "$tmp/loop" -cf "$tmp/loop.tar" .
expect_rc 0 "$fabtuned" --once --json --no-probes -c "$tmp/tcp-only.yaml" --snapshot "$tmp/loop.tar"
jq -r .why_no_rails "$LAST_OUT" > "$tmp/why"
expect_match '^no RDMA devices: class/infiniband cannot be listed in the captured tree (Too many levels of symbolic links)$' "$tmp/why"
expect_rc 64 "$fabtuned" --once --apply --snapshot "$tmp/snap.tar"
expect_rc 64 "$fabtuned" --snapshot "$tmp/snap.tar"

# The snapshot keeps what is not a file: each netdev's DCB netlink and ethtool replies, as
# raw bytes. The 8-rail node with mlx5's replies is judged on QoS as the live node would be
# (PFC on priority 3, rail 2 without it, global pause off), where the bare tree says unknown.
tar -C "$fx/mlx5_8rail_snapshot" -czf "$tmp/8rail-replies.tar.gz" sys fabtune
expect_rc 2 "$fabtuned" --once --json --no-probes -c "$rails_only" --snapshot "$tmp/8rail-replies.tar.gz"
jq -r '.findings[] | select(.check == "qos.pfc" or .check == "qos.global_pause") | "\(.check) \(.severity) \(.rail)"' \
    "$LAST_OUT" | sort > "$tmp/qos8"
grep -c '^qos.pfc ok ' "$tmp/qos8" > "$tmp/n"; expect_match '^7$' "$tmp/n"
expect_grep 'qos.pfc error mlx5_2/1' "$tmp/qos8"
grep -c '^qos.global_pause ok ' "$tmp/qos8" > "$tmp/n"; expect_match '^8$' "$tmp/n"
# ... and each rail's LLDP neighbour it kept (fabtune/net/IF/lldp: rail N on leaf-rN, port
# swpN+1, MFS 9216 for MTU 9000): fabric.neighbor, cabling and mtu ok on all 8.
jq -r '.findings[] | select(.check | startswith("fabric.")) | "\(.check) \(.severity) \(.rail): \(.message)"' \
    "$LAST_OUT" > "$tmp/fabric8"
expect_match '^fabric.neighbor ok mlx5_5/1: leaf-r5 port swp6 ' "$tmp/fabric8"
grep -c '^fabric.cabling ok ' "$tmp/fabric8" > "$tmp/n"; expect_match '^8$' "$tmp/n"
grep -c '^fabric.mtu ok ' "$tmp/fabric8" > "$tmp/n"; expect_match '^8$' "$tmp/n"
expect_rc 0 "$fabtuned" --once --json --no-probes -c "$rails_only" --sysfs-root "$fx/mlx5_8rail/sys"
jq -r '.findings[] | select(.check == "qos.pfc") | "\(.severity) \(.message)"' "$LAST_OUT" > "$tmp/qos-bare"
expect_match '^unknown .*a captured tree holds no DCB netlink state' "$tmp/qos-bare"
# A real capture: fabtunectl snapshot in a namespace (its own sysfs) with a veth pair keeps the kernel's
# own replies for v0 (its DCB NLMSG_ERROR, ethtool's EOPNOTSUPP for pause, its statistics).
# Given to rail 5 of the 8-rail tree, offline says what a live veth says.
if unshare -nm sh -c "mount -t sysfs sysfs /sys && ip link add v0 type veth peer name v1 &&
        '$top_builddir/src/client/fabtunectl' snapshot '$tmp/veth-snap.tar'" > /dev/null 2>&1; then
    mkdir "$tmp/veth-snap" && tar -C "$tmp/veth-snap" -xf "$tmp/veth-snap.tar"
    ls "$tmp/veth-snap/fabtune/net/v0" > "$tmp/v0-files"
    expect_match '^dcb_ieee$' "$tmp/v0-files"
    expect_match '^ethtool_pause.errno$' "$tmp/v0-files"
    expect_match '^ethtool_stats$' "$tmp/v0-files"
    expect_match '^lldp' "$tmp/v0-files"    # lldpd's text, or its errno without lldpd
    cp -a "$fx/mlx5_8rail_snapshot" "$tmp/8rail-veth"
    rm -rf "$tmp/8rail-veth/fabtune/net/enp188s0f0np0"
    cp -a "$tmp/veth-snap/fabtune/net/v0" "$tmp/8rail-veth/fabtune/net/enp188s0f0np0"
    expect_rc_in "0 1 2" "$fabtuned" --once --json --no-probes -c "$rails_only" --sysfs-root "$tmp/8rail-veth/sys"
    jq -r '.findings[] | select((.check == "qos.pfc" or .check == "qos.global_pause") and .rail == "mlx5_5/1")
           | "\(.check) \(.severity) \(.message)"' "$LAST_OUT" > "$tmp/qos-veth"
    expect_match '^qos.pfc unknown .*dcbnl_ops' "$tmp/qos-veth"
    expect_match '^qos.global_pause unknown .*the driver reports no pause parameters' "$tmp/qos-veth"
    if [ -f "$tmp/veth-snap/fabtune/net/v0/lldp.errno" ]; then    # no lldpd on this host
        jq -r '.findings[] | select(.check == "fabric.neighbor" and .rail == "mlx5_5/1") | "\(.severity) \(.message)"' \
            "$LAST_OUT" > "$tmp/lldp-veth"
        expect_match '^unknown lldpd did not answer when the snapshot was taken .*install and enable it' "$tmp/lldp-veth"
    fi
else
    fail "cannot make a veth pair in a new network and mount namespace (unshare -nm)"
fi
# The Soft-RoCE guest's own snapshot (tests/fixtures/README), read compressed and in place:
# its rail, and QoS judged from the kernel's replies it kept (rxe0's veth answers neither
# DCB netlink nor ethtool pause), as the guest's live run said.
expect_rc 0 "$fabtuned" --once --json --no-probes -c "$rails_only" \
    --snapshot "$top_srcdir/tests/fixtures/soft-roce-guest-snapshot.tar.xz"
jq -r '"\(.kernel) \(.rails[0].name) \(.rails[0].state) \(.rails[0].roce_address)",
       (.findings[] | select(.check == "qos.pfc" or .check == "qos.global_pause") | "\(.check) \(.severity) \(.message)")' \
    "$LAST_OUT" > "$tmp/guest-snap"
expect_match '^6.1.0-57-amd64 rxe0/1 ACTIVE 192.0.2.1$' "$tmp/guest-snap"
expect_match '^qos.pfc unknown v0: .*(no dcbnl_ops)$' "$tmp/guest-snap"
expect_match '^qos.global_pause unknown v0: global pause unknown: the driver reports no pause parameters$' "$tmp/guest-snap"

# A real GPU host's snapshot (an H200 VM): GPU discovery by PCI vendor and class.
mkdir "$tmp/h200" && xz -dc "$top_srcdir/tests/fixtures/h200-vm-snapshot.tar.xz" | tar -C "$tmp/h200" -xf -
# A GPU without any rail, and no rails.expect_count: NOT_READY, and the error says so.
expect_rc 2 "$fabtuned" --once --json --no-probes -c "$rails_only" --sysfs-root "$tmp/h200/sys" \
    --procfs-root "$tmp/h200/proc"
jq -c '[.gpus[] | {pci_address, vendor}]' "$LAST_OUT" > "$tmp/gpus"
expect_match '^\[{"pci_address":"0000:00:06.0","vendor":"0x10de"}\]$' "$tmp/gpus"
jq -r '"\(.verdict) " + ([.findings[] | select(.check == "rails.count") | "\(.severity) \(.message)"] | join(";"))' \
    "$LAST_OUT" > "$tmp/nr"
expect_match '^NOT_READY error no rails (1 GPU on this node): no RDMA devices' "$tmp/nr"
# No RDMA device on that host: the missing nvidia_peermem is reported, without degrading.
jq -r '.findings[] | select(.check == "gpudirect.peermem") | "\(.severity) \(.actual)"' "$LAST_OUT" > "$tmp/pm"
expect_match '^unknown absent$' "$tmp/pm"
# Its host path without a rail (fabtuned --once said the same on that host): each check
# unknown with the reason that host gives: a flat virtual bus, no IOMMU groups, no cpufreq.
jq -r '.findings[] | select(.check | test("^(host\\.(iommu|cpufreq|irq_affinity)|pcie\\.(acs|mrrs))$"))
       | "\(.check) \(.severity) \(.message)"' "$LAST_OUT" | sort > "$tmp/hostpath"
cat > "$tmp/hostpath.want" <<'EOF'
host.cpufreq unknown no cpufreq for cpu0 (no frequency scaling driver: a VM, or fixed in firmware)
host.iommu unknown no IOMMU groups (/sys/kernel/iommu_groups): the IOMMU is off or absent
host.irq_affinity unknown no RDMA rail: nothing to measure until an HCA appears
pcie.acs unknown no RDMA rail, and no PCIe bridge above the GPUs (a flat bus): no switch port to redirect
pcie.mrrs unknown no RDMA rail: nothing to measure until an HCA appears
EOF
if diff -u "$tmp/hostpath.want" "$tmp/hostpath"; then pass "H200 snapshot: host path unknown with its reasons"
else fail "H200 snapshot: host path findings differ"; fi

# host.memlock judges what jobs get: a running slurmd's own limit (jobs inherit it), read
# live from its /proc/PID/limits, not fabtuned's own. Real processes named slurmd stand in
# for Slurm's daemon: one with 8 MiB, one with 64 KiB; where several run (and
# fleet-slurm.sh's real slurmd may run beside this test), the tightest is what jobs can get.
cp "$(command -v sleep)" "$tmp/slurmd"
prlimit --memlock=8388608:8388608 "$tmp/slurmd" 60 &
loose_pid=$!
prlimit --memlock=65536:65536 "$tmp/slurmd" 60 &
slurmd_pid=$!
sleep 0.2
expect_rc_in "0 1 2 3" "$fabtuned" --once --no-probes --json --state-dir "$tmp/state-memlock"
jq -r '.findings[] | select(.check == "host.memlock") | "\(.actual) \(.message)"' "$LAST_OUT" > "$tmp/memlock"
expect_grep "65536 bytes jobs' locked memory is limited to 65536 bytes, from slurmd (pid $slurmd_pid)" "$tmp/memlock"
kill "$slurmd_pid" "$loose_pid"; wait "$slurmd_pid" "$loose_pid" 2>/dev/null

# Offline analysis is of the snapshot alone: no probe of this machine, no state written,
# no limits or host name of the analysing host (none given: unknown).
mkdir -p "$tmp/offline-state"
expect_rc_in "0 1 2 3" "$fabtuned" --once --json --sysfs-root "$fx/mlx5_8rail/sys" \
    --state-dir "$tmp/offline-state" -c "$top_srcdir/tests/rails-only.policy"
jq -r '"\(.probes // "none") \(.hostname)"' "$LAST_OUT" > "$tmp/off"
expect_grep "none unknown (a captured tree)" "$tmp/off"
jq -r '.findings[] | select(.check == "host.memlock") | .severity' "$LAST_OUT" > "$tmp/off-ml"
expect_grep "unknown" "$tmp/off-ml"
[ -z "$(ls -A "$tmp/offline-state")" ] && pass "offline analysis wrote no state" ||
    fail "offline analysis wrote: $(ls "$tmp/offline-state")"

# Usage errors.
expect_rc 64 "$fabtuned" --once --check-config
# Debug categories: an unknown one is refused, naming the real ones; each real one logs
# in its area (tests/completion.sh holds the list to the code): --help's own example,
# tuning, says what it reads of each key.
expect_rc 64 "$fabtuned" -d bogus --once
expect_grep "fabtuned: --debug 'bogus': the categories are all,control,events,jobs,manager,policy,probe,tuning,verbs" "$LAST_ERR"
expect_grep "Try 'fabtuned --help'." "$LAST_ERR"
expect_rc 64 "$fabtuned" -d policy,,tuning --once
expect_rc_in "0 1 2 3" "$fabtuned" --once --no-probes -d tuning --log-target stderr --state-dir "$tmp/dbg" \
    -c "$top_srcdir/conf/fabtune.yaml"
expect_match "^fabtuned: net.core.rmem_max: live '[0-9]*', wanted '[0-9]*': " "$LAST_ERR"
expect_rc_in "0 1 2 3" "$fabtuned" --once --no-probes -d policy --log-target stderr --state-dir "$tmp/dbg" \
    -c "$top_srcdir/conf/fabtune.yaml"
expect_grep "policy from $top_srcdir/conf/fabtune.yaml" "$LAST_ERR"
if grep -q "net.core.rmem_max: live" "$LAST_ERR"; then fail "-d policy logs tuning"; else pass "-d policy logs no tuning"; fi

# fabtunectl's usage errors say what the command needs, in its table's words.
ctl="$top_builddir/src/client/fabtunectl"
expect_rc 64 "$ctl" snapshot
expect_grep "fabtunectl: snapshot needs FILE.tar (usage: fabtunectl snapshot [--state-dir DIR] FILE.tar)" "$LAST_ERR"
expect_rc 64 "$ctl" status extra
expect_grep "fabtunectl: status: unexpected argument 'extra' (usage: fabtunectl status [-v])" "$LAST_ERR"
expect_rc 64 "$ctl" checks tuning.drift port.state
expect_grep "fabtunectl: checks: unexpected argument 'port.state' (usage: fabtunectl checks [--failed] [--rail RAIL] [-v] [CHECK])" "$LAST_ERR"
# An id no check has is refused before the daemon is asked (none runs here).
expect_rc 64 "$ctl" -s /nonexistent.sock checks tuning.drfit
expect_grep "fabtunectl: checks: no check id or family 'tuning.drfit'" "$LAST_ERR"
expect_rc 64 "$ctl" --bogus status
expect_grep "Try 'fabtunectl --help'." "$LAST_ERR"
expect_rc 64 "$ctl" frob
expect_grep "fabtunectl: unknown command 'frob'" "$LAST_ERR"
expect_rc 64 "$ctl"
expect_grep "fabtunectl: no command given" "$LAST_ERR"
expect_rc 64 "$fabtuned" --json
expect_rc 64 "$fabtuned" --log-target syslog --once
expect_rc 0 "$fabtuned" --help
expect_grep "sysfs-root" "$LAST_OUT"
# --once's exit codes as fabtuned(8) gives them, one per verdict.
expect_match '^ *and exit with the health code (0 READY, 1 DEGRADED,$' "$LAST_OUT"
expect_match '^ *2 NOT_READY, 3 UNKNOWN)$' "$LAST_OUT"
# --snapshot takes every compression fabtunectl snapshot writes (issue 43, item 7).
expect_match '^      --snapshot FILE     with --once: judge a fabtunectl snapshot, FILE.tar,$' "$LAST_OUT"
expect_match '^ *\.tar\.gz/\.tgz, \.tar\.xz or \.tar\.zst, unpacked into a$' "$LAST_OUT"
expect_rc 0 "$fabtuned" --version

# Issue 41, item 4 (and 43, item 1): a sysfs tree that no fabtunectl took is "a captured
# tree", never "the snapshot ... taken by an older fabtunectl"; a tree given without its
# procfs (none beside it) says so, not that it holds none.
mkdir -p "$tmp/bare" && cp -a "$fx/mlx5_8rail/sys" "$tmp/bare/sys"
"$fabtuned" --once --json --no-probes --sysfs-root "$tmp/bare/sys" -c "$rails_only" > "$tmp/tree.json"
jq -r '.findings[] | select(.rail == "mlx5_0/1") | select(.check | test("^(fabric.neighbor|route.egress|route.arp)$")) | "\(.check) \(.message)"' \
    "$tmp/tree.json" | sort > "$tmp/v"
expect_match '^fabric.neighbor a captured tree holds no LLDP neighbours for enp26s0f0np0 (lldpd.s answers come with a fabtunectl snapshot)$' "$tmp/v"
expect_match '^route.egress a captured tree holds no routes for enp26s0f0np0 (they come with a fabtunectl snapshot)$' "$tmp/v"
expect_match '^route.arp no procfs was given with the captured tree (--procfs-root): its interface sysctls are not read$' "$tmp/v"
! grep -q "older fabtunectl\|the snapshot" "$tmp/v" && pass "no snapshot claimed of a captured tree" ||
    fail "a captured tree called a snapshot"
# Issue 41, item 10: route.arp's reason and verdict are the same for a tree given as
# --sysfs-root DIR/sys and for its tarball given as --snapshot: both read the proc/ beside
# sys/ (the interface sysctls, proc/sys/net/ipv4/conf/IF/, as the kernel lays them out);
# --sysfs-root says that it does. Rail 0's netdev answers ARP for the others (arp_ignore
# 0), the others do not (1 and 2); "all" holds 0.
cp -a "$fx/mlx5_8rail" "$tmp/arp"
for dev in $(ls "$tmp/arp/sys/class/net"); do
    d="$tmp/arp/proc/sys/net/ipv4/conf/$dev"
    mkdir -p "$d"
    case $dev in enp26s0f0np0) ign=0 ann=0 ;; *) ign=1 ann=2 ;; esac
    echo "$ign" > "$d/arp_ignore"; echo "$ann" > "$d/arp_announce"
    echo 2 > "$d/rp_filter"; echo 0 > "$d/accept_local"
done
d="$tmp/arp/proc/sys/net/ipv4/conf/all"
mkdir -p "$d" && for k in arp_ignore arp_announce rp_filter accept_local; do echo 0 > "$d/$k"; done
tar -C "$tmp/arp" -cf "$tmp/arp.tar" .
arp_findings() { jq -r '.findings[] | select(.check == "route.arp") | "\(.rail) \(.severity) \(.message)"' "$1" | sort; }
"$fabtuned" --once --json --no-probes -c "$rails_only" --sysfs-root "$tmp/arp/sys" > "$tmp/arp-tree.json" 2> "$tmp/arp-tree.err"
"$fabtuned" --once --json --no-probes -c "$rails_only" --snapshot "$tmp/arp.tar" > "$tmp/arp-snap.json"
arp_findings "$tmp/arp-tree.json" > "$tmp/arp-tree"
arp_findings "$tmp/arp-snap.json" > "$tmp/arp-snap"
cat "$tmp/arp-tree"
[ -s "$tmp/arp-tree" ] && cmp -s "$tmp/arp-tree" "$tmp/arp-snap" &&
    pass "route.arp: the same findings for the tree and its tarball" ||
    { fail "route.arp differs between --sysfs-root and --snapshot"; diff "$tmp/arp-tree" "$tmp/arp-snap"; }
expect_match '^mlx5_0/1 error answers ARP for the other rails. addresses and asks ARP from any local address: ' "$tmp/arp-tree"
expect_match '^mlx5_7/1 ok [^ ]* answers and announces only its own address$' "$tmp/arp-tree"
! grep -q "not read\|not given" "$tmp/arp-tree" && pass "no rail's sysctls called not given" ||
    fail "a rail's sysctls called not given"
expect_grep "fabtuned: --sysfs-root $tmp/arp/sys: reading the capture's procfs beside it, $tmp/arp/proc, as --snapshot does (--procfs-root names another)" "$tmp/arp-tree.err"
# --procfs-root still chooses: another (empty) one is taken, and nothing is said.
mkdir -p "$tmp/noproc"
"$fabtuned" --once --json --no-probes -c "$rails_only" --sysfs-root "$tmp/arp/sys" --procfs-root "$tmp/noproc" > "$tmp/arp-other.json" 2> "$tmp/arp-other.err"
arp_findings "$tmp/arp-other.json" > "$tmp/v"
expect_match '^mlx5_0/1 unknown no net.ipv4.conf.[^ ]*.rp_filter under the procfs root$' "$tmp/v"
! grep -q "beside it" "$tmp/arp-other.err" && pass "no sibling procfs named with --procfs-root" ||
    fail "a sibling procfs named with --procfs-root"
# A fabtunectl snapshot's tree (fabtune/ beside sys/) keeps its own words.
"$fabtuned" --once --json --no-probes --sysfs-root "$fx/mlx5_8rail_snapshot/sys" -c "$rails_only" > "$tmp/tree.json"
jq -r '.findings[] | select(.rail == "mlx5_0/1" and .check == "route.egress") | .message' "$tmp/tree.json" > "$tmp/v"
expect_match '^the snapshot holds no routes for enp26s0f0np0$' "$tmp/v"

# Issue 41, item 10: a capture without class/net says nothing of the netdevs: a RoCE port
# there is unknown, not NOT_READY; an iWARP device without a visible netdev is not "the
# RoCE port", and not judged (port.link_layer says so).
cp -a "$fx/mlx5_8rail/sys" "$tmp/nonet"
rm -r "$tmp/nonet/class/net"
find "$tmp/nonet/devices" -name net -type d -prune -exec rm -r {} +
"$fabtuned" --once --json --no-probes --sysfs-root "$tmp/nonet" -c "$rails_only" > "$tmp/nonet.json"
jq -r '.findings[] | select(.check == "netdev.oper" and .rail == "mlx5_0/1") | "\(.severity) \(.message)"' "$tmp/nonet.json" > "$tmp/v"
expect_match '^unknown the captured tree holds no netdev (no class/net)$' "$tmp/v"
jq -r '.verdict' "$tmp/nonet.json" > "$tmp/v"
expect_match '^READY$' "$tmp/v"
# No netdev MTU known: "-", never 0 ("0/-"), in --once's table and in status's.
expect_rc 0 "$fabtuned" --once --no-probes --sysfs-root "$tmp/nonet" -c "$rails_only"
expect_match '^  mlx5_0/1  *enp26s0f0np0  *ACTIVE  *400G  *-/-  ' "$LAST_OUT"
"$fabtuned" -c "$rails_only" --sysfs-root "$tmp/nonet" --state-dir "$tmp/nonet-state" \
    --runtime-dir "$tmp/nonet-run" --log-target stderr 2> /dev/null & nonet_pid=$!
for _ in $(seq 200); do "$top_builddir/src/client/fabtunectl" -s "$tmp/nonet-run/fabtuned.sock" health > /dev/null 2>&1; [ $? -lt 2 ] && break; sleep 0.05; done
expect_rc 0 "$top_builddir/src/client/fabtunectl" -s "$tmp/nonet-run/fabtuned.sock" status
expect_match '^mlx5_0/1  *enp26s0f0np0  *ACTIVE  *400G  *- ' "$LAST_OUT"
kill $nonet_pid; wait $nonet_pid 2>/dev/null
cp -a "$fx/iwarp/sys" "$tmp/iw"
rm -r "$tmp/iw/class/net/enp65s0f4" "$tmp/iw/devices/pci0000:00/0000:41:00.4/net"
"$fabtuned" --once --json --no-probes --sysfs-root "$tmp/iw" -c "$rails_only" > "$tmp/iw.json"
jq -r '.findings[] | select(.check == "netdev.oper") | "\(.severity) \(.message)"' "$tmp/iw.json" > "$tmp/v"
expect_match "^unknown the iWARP device's netdev.* is not visible; fabtune judges InfiniBand and RoCE rails only\$" "$tmp/v"
! grep -q "RoCE port" "$tmp/v" && pass "an iWARP rail is not called the RoCE port" || fail "an iWARP rail called the RoCE port"
jq -r '.verdict' "$tmp/iw.json" > "$tmp/v"
expect_match '^READY$' "$tmp/v"

# --once --gids: the GID table as show_gids prints it, NCCL's pick, and a word for each
# entry it skips. The issue's case: an IPv6 address on mlx5_5 moves the pick from 3 to 5.
expect_rc 0 "$fabtuned" --once --gids --sysfs-root "$fx/mlx5_8rail_gid_shift/sys" -c "$rails_only"
expect_match '^DEV  *PORT INDEX GID  *IPv4  *VER NETDEV  *NCCL$' "$LAST_OUT"
# IPv4 is blank where the GID holds none, as show_gids leaves it (issue 27, item 21).
expect_match '^mlx5_5  *1  *3  *fd00:0000:0000:0005:0000:0000:0000:0001  *v2  *enp188s0f0np0  *family$' "$LAST_OUT"
! grep -q '^mlx5_5  *1  *3  *fd00:[0-9a-f:]* -' "$LAST_OUT" && pass "no '-' in the IPv4 column" || fail "IPv4 shown as '-'"
expect_match '^mlx5_5  *1  *4  *0000:0000:0000:0000:0000:ffff:0a00:0501 10.0.5.1  *v1  *enp188s0f0np0  *version$' "$LAST_OUT"
expect_match '^mlx5_5  *1  *5  *0000:0000:0000:0000:0000:ffff:0a00:0501 10.0.5.1  *v2  *enp188s0f0np0  *pick$' "$LAST_OUT"
expect_match '^mlx5_0  *1  *0  *fe80:.* link-local$' "$LAST_OUT"
expect_match '^mlx5_0/1: NCCL picks index 3; 252 empty slots$' "$LAST_OUT"
expect_rc 0 "$fabtuned" --once --gids --json --sysfs-root "$fx/gid_holes/sys" -c "$rails_only"
jq -r '.[0] | "\(.pick) \(.nccl_fails) \(.fails_at) " + ([.entries[] | "\(.index)=\(.nccl)"] | join(" "))' "$LAST_OUT" > "$tmp/gj"
# Issue 41, item 9: where gid.nccl says NCCL fails, the table picks nothing either.
expect_match '^null true 6 0=link-local 1=link-local 4=version 5=null 6=fails$' "$tmp/gj"
# Issue 27, item 33: no gid_attrs/types/6 file, which NCCL's selection fails on.
expect_rc 0 "$fabtuned" --once --gids --sysfs-root "$fx/gid_holes/sys" -c "$rails_only"
expect_match '^mlx5_0/1: NCCL fails: its GID selection cannot open gid_attrs/types/6 (index 6) and returns an error, so no index is picked; 251 empty slots$' "$LAST_OUT"
expect_match '^mlx5_0  *1  *6  *0000:0000:0000:0000:0000:ffff:0a00:000a 10.0.0.10  *-  *enp26s0f0np0  *fails$' "$LAST_OUT"
! grep -q ' pick$' "$LAST_OUT" && pass "no pick where NCCL fails" || fail "a pick where NCCL fails"
"$fabtuned" --once --json --no-probes --sysfs-root "$fx/gid_holes/sys" -c "$rails_only" > "$tmp/gn.json"
jq -r '.findings[] | select(.check == "gid.nccl") | .severity' "$tmp/gn.json" > "$tmp/gj"
expect_match '^error$' "$tmp/gj"
# Item 23: InfiniBand takes index 0 (or the routable FLID index), never "none".
expect_rc 0 "$fabtuned" --once --gids --sysfs-root "$fx/infiniband/sys" -c "$rails_only"
# Issue 41, item 10: the kernel gives an IB port's GIDs no netdev; the column names the
# port's IPoIB netdev, not "-".
expect_match '^mlx5_0  *1  *0  *fe80:0000:0000:0000:b83f:d203:00b1:2b30  *v1  *ibp26s0  *pick$' "$LAST_OUT"
expect_match '^mlx5_0/1: NCCL picks index 0 (InfiniBand: index 0, or the routable FLID index 1 when its GID has a FLID); 127 empty slots$' "$LAST_OUT"
# Item 28: a port without gids/ says so.
expect_rc 0 "$fabtuned" --once --gids --sysfs-root "$fx/capture_gaps/sys" -c "$rails_only"
expect_match '^mlx5_3/1: no GID table (ports/1/gids/ is absent): NCCL has nothing to pick$' "$LAST_OUT"
printf 'version: 1\nrails: {roce: {subnet: 10.0.7.0/24}}\n' > "$tmp/subnet.yaml"
expect_rc 0 "$fabtuned" --once --gids --json --sysfs-root "$fx/mlx5_8rail/sys" -c "$tmp/subnet.yaml"
jq -r '.[] | select(.device == "mlx5_6" or .device == "mlx5_7") | "\(.device) " + ([.entries[] | select(.index == 3) | .nccl] | join(""))' "$LAST_OUT" > "$tmp/gs"
expect_match '^mlx5_6 subnet$' "$tmp/gs"
expect_match '^mlx5_7 pick$' "$tmp/gs"
expect_rc 64 "$fabtuned" --gids
# Issue 30: one sample of the H100 NDR fixture (mlx5_1: link_downed 255, port_rcv_errors
# 14) has no rate, so the port error classes are unknown, and say the totals since the
# last reset, the saturated counter as such, with the reset's hint; the rail stays READY.
expect_rc 0 "$fabtuned" --once --json --no-probes --sysfs-root "$fx/h100_ndr_ib/sys" -c "$rails_only"
jq -r '.findings[] | select(.rail == "mlx5_1/1" and (.check == "counters.link" or .check == "counters.link_down")) | "\(.check) \(.severity) \(.actual) \(.message) | \(.hint)"' "$LAST_OUT" > "$tmp/h100"
expect_match '^counters.link_down unknown null .*since the last reset: link_downed 255 (saturated, 8-bit) | .*perfquery -R' "$tmp/h100"
expect_match '^counters.link unknown null .*since the last reset: .*port_rcv_errors 14' "$tmp/h100"
expect_rc 0 "$fabtuned" --once --no-probes -v --sysfs-root "$fx/h100_ndr_ib/sys" -c "$rails_only"
expect_match '^  unknown counters.link_down  *mlx5_1/1  *.*link_downed 255 (saturated, 8-bit)$' "$LAST_OUT"
# The report folded by cause (issue 43, item 1), as the issue ran it: a healthy 8-rail tree
# with the built-in policy is at most 40 lines; its unknowns are one paragraph by cause and
# its oks a count per family; -v lists every finding, oks included, one row each.
expect_rc 0 "$fabtuned" --once --no-probes --sysfs-root "$fx/mlx5_8rail/sys"
lines=$(wc -l < "$LAST_OUT")
echo "# healthy 8-rail report: $lines lines"
[ "$lines" -le 40 ] && pass "healthy 8-rail report: $lines lines (at most 40)" || fail "healthy 8-rail report: $lines lines"
expect_match '^findings: 0 errors, 0 warnings, [1-9][0-9]* unknown, [1-9][0-9]* ok$' "$LAST_OUT"
expect_match "^  [1-9][0-9]* unknown, by cause ('-v' lists each): " "$LAST_OUT"
expect_match '^  [1-9][0-9]* ok: .*port [1-9]' "$LAST_OUT"
# (the paragraph wraps: its words joined again)
tr '\n' ' ' < "$LAST_OUT" | tr -s ' ' | grep -q 'a captured tree holds no routes (4 checks)' &&
    pass "route.* unknown for one cause: no routes (4 checks)" || fail "no cause 'no routes (4 checks)'"
! grep -q '^  unknown ' "$LAST_OUT" && pass "no unknown row unless -v" || fail "unknown rows: $(grep -c '^  unknown ' "$LAST_OUT")"
"$fabtuned" --once --json --no-probes --sysfs-root "$fx/mlx5_8rail/sys" > "$tmp/h8.json" 2>/dev/null
expect_rc 0 "$fabtuned" --once --no-probes -v --sysfs-root "$fx/mlx5_8rail/sys"
all=$(jq '.findings | length' "$tmp/h8.json")
rows=$(grep -cE '^  (error|warning|unknown|ok) ' "$LAST_OUT")
[ "$rows" = "$all" ] && pass "-v: a row per finding ($rows)" || fail "-v: $rows rows for $all findings"
# ... and in device order: fabric.neighbor's rows run mlx5_0/1 .. mlx5_7/1 (their netdevs
# sort enp154 before enp26).
grep '^  unknown fabric.neighbor ' "$LAST_OUT" | awk '{ print $3 }' > "$tmp/order"
printf 'mlx5_%d/1\n' 0 1 2 3 4 5 6 7 > "$tmp/want"
expect_same "$tmp/want" "$tmp/order"
# One fault (rail 3 down) shows within the report's first 15 lines: the findings come
# before the tables.
expect_rc 2 "$fabtuned" --once --no-probes --sysfs-root "$fx/mlx5_8rail_rail_down/sys"
first=$(grep -n '^  error   port.state  *mlx5_3/1 ' "$LAST_OUT" | cut -d: -f1)
[ -n "$first" ] && [ "$first" -le 15 ] && pass "rail 3 down: port.state's error on line $first" ||
    fail "rail 3 down: port.state's error on line '${first:-none}': $(head -20 "$LAST_OUT")"
# A fault on three rails (mlx5_0, mlx5_3 and mlx5_7 trust pcp) is one error row naming
# exactly those rails, its netdev taken out of the words; every error and warning of the
# JSON is on a row with its rail; -v gives each its own row.
rm -rf "$tmp/trust" && cp -a "$fx/mlx5_8rail_ofed_qos" "$tmp/trust"
for nd in enp26s0f0np0 enp94s0f0np0; do
    echo pcp > "$(find "$tmp/trust/sys/devices" -path "*/net/$nd/qos/trust")"
done
expect_rc 2 "$fabtuned" --once --no-probes --sysfs-root "$tmp/trust/sys" -c "$rails_only"
cp "$LAST_OUT" "$tmp/trust.txt"
expect_match '^  error   qos.trust  *mlx5_0/1, mlx5_3/1, mlx5_7/1 <netdev> trusts pcp, not dscp (from qos/trust)$' "$tmp/trust.txt"
[ "$(grep -c '^  error   qos.trust ' "$tmp/trust.txt")" = 1 ] && pass "qos.trust: one row for three rails" ||
    fail "qos.trust: $(grep -c '^  error   qos.trust ' "$tmp/trust.txt") rows"
[ "$(grep -c '^          expected dscp, actual pcp$' "$tmp/trust.txt")" = 1 ] && pass "its details once" ||
    fail "details: $(grep -c 'expected dscp, actual pcp' "$tmp/trust.txt")"
awk '/^  (error|warning) /{ if (u) bad = 1 } /^  [0-9]+ unknown/{ u = 1 } END { exit bad }' "$tmp/trust.txt" \
    && pass "errors and warnings before the unknown" || fail "an error or warning after the unknown"
"$fabtuned" --once --json --no-probes --sysfs-root "$tmp/trust/sys" -c "$rails_only" > "$tmp/trust.json" 2>/dev/null
jq -r '.findings[] | select(.severity == "error" or .severity == "warning") | "\(.severity) \(.check) \(.rail // "-")"' \
    "$tmp/trust.json" | sort -u > "$tmp/failing"
missing=0
while read -r sev check rail; do
    # The row of that check, whose rail column names the rail (alone, in a list or a run).
    grep "^  $sev *$check " "$tmp/trust.txt" | awk -v rail="$rail" '
        { line = substr($0, 34); n = split(line, w, " "); found = 0
          for (i = 1; i <= n; i++) { t = w[i]; sub(/,$/, "", t)
              if (t == rail) found = 1
              else if (match(t, /^[a-z0-9_]*[a-z_]([0-9]+)\.\.([0-9]+)\/[0-9]+$/)) {
                  p = t; sub(/[0-9]+\.\.[0-9]+\/.*$/, "", p); port = t; sub(/^.*\//, "", port)
                  lo = t; sub(/^[a-z0-9_]*[a-z_]/, "", lo); hi = lo; sub(/\.\..*$/, "", lo); sub(/^.*\.\./, "", hi); sub(/\/.*$/, "", hi)
                  for (k = lo + 0; k <= hi + 0; k++) if (p k "/" port == rail) found = 1 }
              if (w[i] !~ /,$/ && i > 1) break }
          if (rail == "-" || found) ok = 1 }
        END { exit !ok }' || { missing=$((missing + 1)); echo "# no row for $sev $check $rail"; }
done < "$tmp/failing"
[ "$missing" = 0 ] && [ -s "$tmp/failing" ] && pass "every error and warning on a row with its rail ($(wc -l < "$tmp/failing"))" ||
    fail "$missing errors or warnings without their row"
expect_rc 2 "$fabtuned" --once --no-probes -v --sysfs-root "$tmp/trust/sys" -c "$rails_only"
[ "$(grep -c '^  error   qos.trust ' "$LAST_OUT")" = 3 ] && pass "-v: qos.trust a row per rail" ||
    fail "-v: $(grep -c '^  error   qos.trust ' "$LAST_OUT") qos.trust rows"
expect_match '^  error   qos.trust  *mlx5_3/1  *enp94s0f0np0 trusts pcp, not dscp' "$LAST_OUT"
[ "$(grep -c '^  unknown qos.pfc  ' "$LAST_OUT")" -eq 8 ] && pass "-v: qos.pfc once per rail" \
    || fail "-v: $(grep -c '^  unknown qos.pfc  ' "$LAST_OUT") qos.pfc lines"
expect_match '^  unknown qos.pfc  *mlx5_3/1  *enp94s0f0np0: PFC state unknown' "$LAST_OUT"
# --once --gids and fabtunectl gids on a node without rails say why, as status does (issue 27
# item 19: only the headers were printed).
expect_rc 1 "$fabtuned" --once --gids --sysfs-root "$fx/no_rdma/sys" -c "$rails_only"
expect_match '^rails: 0 (no RDMA devices' "$LAST_OUT"
"$fabtuned" -c "$rails_only" --sysfs-root "$fx/no_rdma/sys" --state-dir "$tmp/gids-state" \
    --runtime-dir "$tmp/gids-run" --log-target stderr 2> /dev/null & gids_pid=$!
for _ in $(seq 200); do "$ctl" -s "$tmp/gids-run/fabtuned.sock" status > /dev/null 2>&1 && break; sleep 0.05; done
expect_rc 0 "$ctl" -s "$tmp/gids-run/fabtuned.sock" gids
expect_match '^rails: 0 (no RDMA devices' "$LAST_OUT"
# status: NOT_READY for want of a rail (rails.expect_count unset), the GPUs beside.
expect_rc 0 "$ctl" -s "$tmp/gids-run/fabtuned.sock" status
expect_match '^verdict: NOT_READY: 1 error (rails.count)$' "$LAST_OUT"
expect_match '^gpus: 0$' "$LAST_OUT"
expect_match '^  error   rails\.count  *no rails: no RDMA devices' "$LAST_OUT"
kill $gids_pid; wait $gids_pid 2>/dev/null
# One rail is "1 rail" (issue 27 item 21: "1 rails").
printf 'version: 1\nrails: {expect_count: 1}\n' > "$tmp/one.yaml"
"$fabtuned" --once --json --no-probes --sysfs-root "$fx/soft_roce/sys" -c "$tmp/one.yaml" > "$tmp/one.json" 2>/dev/null
jq -r '.findings[] | select(.check == "rails.count") | .message' "$tmp/one.json" > "$tmp/one"
expect_match '^1 rail$' "$tmp/one"
# Probes not run say why: the policy, --no-probes, or a captured tree (issue 27 item 18:
# each said "--no-probes").
printf 'version: 1\nprobes: {enabled: false}\n' > "$tmp/noprobe.yaml"
"$fabtuned" --once --sysfs-root /sys -c "$tmp/noprobe.yaml" --state-dir "$tmp/noprobe-state" > "$tmp/np.txt" 2>/dev/null
expect_grep 'probes: not run (probes.enabled is false in the policy)' "$tmp/np.txt"
"$fabtuned" --once --no-probes -c "$tmp/noprobe.yaml" --state-dir "$tmp/noprobe-state" > "$tmp/np.txt" 2>/dev/null
expect_grep 'probes: not run (probes.enabled is false in the policy)' "$tmp/np.txt"
"$fabtuned" --once --no-probes --state-dir "$tmp/noprobe-state" > "$tmp/np.txt" 2>/dev/null
expect_grep 'probes: not run (--no-probes)' "$tmp/np.txt"
"$fabtuned" --once --sysfs-root "$fx/soft_roce/sys" -c "$rails_only" > "$tmp/np.txt" 2>/dev/null
expect_grep "probes: not run (a captured tree: this machine's probes say nothing of it)" "$tmp/np.txt"
finish
