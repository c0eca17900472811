#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtunectl snapshot keeps what the qos.cc* checks read (issue 46), and fabtuned --once
# --snapshot judges it as the node, root: in a private mount namespace a tmpfs over /sys
# holds the DCQCN fixture tree (mlx5_8rail_cc: MLNX_OFED ecn/ files, DCQCN on every
# priority) with the upstream debugfs cc_params/ of rail 0 (mlx5_debugfs_cc's layout), and
# a stand-in mstconfig on PATH answers each function as the fixture's mlxconfig answers
# do (rail 7's fails as mstconfig does: exit 3). Asserted:
# - the tarball holds ecn/roce_rp/enable/N (deeper than the netdev copy goes), debugfs
#   cc_params/ and each function's fw_config (rail 7's as fw_config.errno and .why);
# - --once --snapshot: rail 5's driver defaults warned where roceOptimized v26.7 is wanted,
#   rail 3's pending next boot, rail 7's tool failure as unknown, the reaction point's
#   priorities read from the copied enable bits.
. "${top_srcdir:-.}/tests/lib.sh"
in_private_mounts "$0"
ctl="$top_builddir/src/client/fabtunectl"
fabtuned="$top_builddir/src/daemon/fabtuned"
tmp=$(mktemp -d /tmp/fabtune-ccsnap.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fx="$(shared_fixtures)/mlx5_8rail_cc"
. "$top_srcdir/tests/fixtures/sysfs-lib.sh"
mkdir -p "$tmp/bin" "$tmp/answers"
for d in "$fx"/fabtune/net/*; do
    addr=$(basename "$(dirname "$(dirname "$(readlink -f "$fx/sys/class/net/$(basename "$d")")")")")
    [ -f "$d/fw_config" ] && cp "$d/fw_config" "$tmp/answers/$addr"
done
cat > "$tmp/bin/mstconfig" <<EOS
#!/bin/sh
[ "\$1 \$3 \$4" = "-d -e query" ] || { echo "-E- usage"; exit 2; }
[ -f "$tmp/answers/\$2" ] || { echo "-E- Failed to open the device"; exit 3; }
exec /bin/cat "$tmp/answers/\$2"
EOS
chmod +x "$tmp/bin/mstconfig"
mount -t tmpfs none /sys || { echo "SKIP: cannot mount a tmpfs over /sys"; exit 77; }
cp -a "$fx/sys/." /sys/
mlx5_debugfs_cc /sys 0000:1a:00.0 "rpg_gd=9"

expect_rc 0 env PATH="$tmp/bin:/usr/bin:/bin" "$ctl" snapshot "$tmp/cc.tar"
umount /sys
tar -tf "$tmp/cc.tar" > "$tmp/list"
expect_match '^sys/devices/pci0000:00/0000:1a:00\.0/net/enp26s0f0np0/ecn/roce_rp/enable/3$' "$tmp/list"
expect_match '^sys/devices/pci0000:00/0000:1a:00\.0/net/enp26s0f0np0/ecn/roce_rp/rpg_ai_rate$' "$tmp/list"
expect_match '^sys/kernel/debug/mlx5/0000:1a:00\.0/cc_params/rp_gd$' "$tmp/list"
expect_match '^fabtune/net/enp94s0f0np0/fw_config$' "$tmp/list"
expect_match '^fabtune/net/enp222s0f0np0/fw_config\.why$' "$tmp/list"

printf 'version: 1\nrails:\n  cc: {profile: roce-optimized-v26.7}\n' > "$tmp/cc.yaml"
expect_rc_in "0 1 2 3" "$fabtuned" --once --json --no-probes -c "$tmp/cc.yaml" --snapshot "$tmp/cc.tar"
jq -r '.findings[] | select(.check | startswith("qos.cc")) | "\(.check) \(.rail) \(.severity) \(.message)"' \
    "$LAST_OUT" > "$tmp/f"
expect_grep "qos.cc mlx5_5/1 warning enp188s0f0np0: 1 DCQCN parameter differs from profile roce-optimized-v26.7: cnp_dscp 48 (wants 4)" "$tmp/f"
expect_grep "qos.cc_next_boot mlx5_3/1 warning enp94s0f0np0: a reboot changes DCQCN (mstconfig): brings the firmware's pending cnp_dscp 4 -> 26" "$tmp/f"
expect_grep "qos.cc_next_boot mlx5_7/1 unknown enp222s0f0np0: the firmware's next-boot values are unknown: when the snapshot was taken: mstconfig -d 0000:de:00.0: exit status 3: -E- Failed to open the device" "$tmp/f"
expect_grep "qos.cc mlx5_0/1 ok" "$tmp/f"
jq -r '.rails[] | select(.name == "mlx5_0/1") | .cc | "\(.running.rp_priority_mask) \(.running.np_enabled) \(.running.rpg_gd)"' \
    "$LAST_OUT" > "$tmp/cc"
expect_match '^255 1 11$' "$tmp/cc"
finish
