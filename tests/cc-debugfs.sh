#!/bin/sh
# SPDX-License-Identifier: ISC
# The DCQCN source's debugfs reader against a real debugfs (issue 46), root: in a private
# mount namespace, debugfs mounted at kernel/debug of a copy of the 8-rail mlx5 tree (no
# MLNX_OFED ecn/ files), so fabtuned --once --sysfs-root reads the kernel's own debugfs:
# - debugfs refuses a directory made by hand (its directories have no mkdir), so the
#   present case cannot be built in it: tests/check_cc reads the same layout from
#   fixtures (mlx5_debugfs_cc); this is the absent and the refused case for real;
# - as root: qos.cc is unknown, "debugfs holds no mlx5 directory" (this host has no mlx5);
# - as nobody: debugfs is mode 0700, so "debugfs is readable by root only";
# - neither is an error, and fabtuned exits with a verdict.
. "${top_srcdir:-.}/tests/lib.sh"
in_private_mounts "$0"
fabtuned="$top_builddir/src/daemon/fabtuned"
tmp=$(mktemp -d /tmp/fabtune-ccdbg.XXXXXX)
trap 'umount "$tmp/fx/sys/kernel/debug" 2>/dev/null; rm -rf "$tmp"' EXIT
cp -a "$(shared_fixtures)/mlx5_8rail" "$tmp/fx"
mkdir -p "$tmp/fx/sys/kernel/debug"
chmod -R a+rX "$tmp"
printf 'version: 1\nrails:\n  cc: {profile: driver-defaults}\n' > "$tmp/cc.yaml"
chmod 644 "$tmp/cc.yaml"
if ! mount -t debugfs none "$tmp/fx/sys/kernel/debug"; then
    echo "SKIP: cannot mount debugfs"; exit 77
fi
run mkdir "$tmp/fx/sys/kernel/debug/mlx5"
if [ "$LAST_RC" != 0 ] && [ ! -d "$tmp/fx/sys/kernel/debug/mlx5" ]; then
    pass "debugfs refuses mkdir: the present case is a fixture"
else
    fail "debugfs took a directory made by hand"
fi

expect_rc_in "0 1 2 3" "$fabtuned" --once --json --no-probes -c "$tmp/cc.yaml" --sysfs-root "$tmp/fx/sys"
jq -r '.findings[] | select(.check == "qos.cc" and .rail == "mlx5_0/1") | "\(.severity) \(.message)"' \
    "$LAST_OUT" > "$tmp/root.txt"
expect_grep "unknown enp26s0f0np0: DCQCN parameters unknown: no ecn/roce_rp parameters (MLNX_OFED's sysfs), and debugfs holds no mlx5 directory" "$tmp/root.txt"

expect_rc_in "0 1 2 3" setpriv --reuid=nobody --regid=nogroup --clear-groups "$fabtuned" --once \
    --json --no-probes -c "$tmp/cc.yaml" --sysfs-root "$tmp/fx/sys" --state-dir "$tmp/state-nobody"
jq -r '.findings[] | select(.check == "qos.cc" and .rail == "mlx5_0/1") | "\(.severity) \(.message)"' \
    "$LAST_OUT" > "$tmp/nobody.txt"
expect_grep "unknown enp26s0f0np0: DCQCN parameters unknown: no ecn/roce_rp parameters (MLNX_OFED's sysfs), and debugfs is readable by root only" "$tmp/nobody.txt"
jq -r '.findings[] | select(.severity == "error") | .check' "$LAST_OUT" | grep -q '^qos\.cc' &&
    fail "a qos.cc* error" || pass "no qos.cc* error"
finish
