#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtunectl diff, the golden-node comparison: two snapshots (or one and this node live),
# each judged by the real fabtuned, compared field by field under the check that judges
# it. Each kind of difference the issue names is made by one real change to a real tree.
. "${top_srcdir:-.}/tests/lib.sh"

ctl="$top_builddir/src/client/fabtunectl"
FABTUNED="$top_builddir/src/daemon/fabtuned"; export FABTUNED
rails_only="$top_srcdir/tests/rails-only.policy"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx=$(shared_fixtures)
own="$tmp/own"; mkdir "$own"    # the trees this test changes: copies
snap() { tar -C "${2:-$fx}/$1" -cf "$tmp/$1.tar" . ; }
# The rows of the last --json diff: "check subject field a b".
rows() { jq -r '.differences[] | "\(.check) \(.subject) \(.field) \(.a|tojson) \(.b|tojson)"' "$LAST_OUT" > "$tmp/rows"; }

for f in mlx5_8rail mlx5_8rail_mtu1500 mlx5_8rail_rail_down mlx5_8rail_mrrs512 mlx5_8rail_gid_shift; do snap "$f"; done

# A node against itself: the same, exit 0.
expect_rc 0 "$ctl" -c "$rails_only" diff "$tmp/mlx5_8rail.tar" "$tmp/mlx5_8rail.tar"
expect_grep "the same in everything fabtune judges" "$LAST_OUT"
# An MTU: the one difference, under netdev.mtu, exit 1; and the rail's verdict, which the
# odd MTU among its siblings makes DEGRADED (rails.uniform).
expect_rc 1 "$ctl" -c "$rails_only" --json diff "$tmp/mlx5_8rail.tar" "$tmp/mlx5_8rail_mtu1500.tar"
rows; jq -r '.same' "$LAST_OUT" > "$tmp/same"; expect_match '^false$' "$tmp/same"
wc -l < "$tmp/rows" > "$tmp/n"; expect_match '^2$' "$tmp/n"
expect_match '^netdev.mtu mlx5_6/1 netdev.mtu_bytes 9000 1500$' "$tmp/rows"
expect_match '^verdict mlx5_6/1 verdict "READY" "DEGRADED"$' "$tmp/rows"
# A rail down: the port's state, its netdev, its verdict.
expect_rc 1 "$ctl" -c "$rails_only" --json diff "$tmp/mlx5_8rail.tar" "$tmp/mlx5_8rail_rail_down.tar"
rows
expect_match '^port.state mlx5_3/1 state "ACTIVE" "DOWN"$' "$tmp/rows"
expect_match '^netdev.carrier mlx5_3/1 netdev.carrier true false$' "$tmp/rows"
# PCIe: a Max Read Request left at 512.
expect_rc 1 "$ctl" -c "$rails_only" --json diff "$tmp/mlx5_8rail.tar" "$tmp/mlx5_8rail_mrrs512.tar"
rows; expect_match '^pcie.mrrs mlx5_6/1 pcie.max_read_request_bytes 4096 512$' "$tmp/rows"
# GID indexes: rail 5's RoCE v2 IPv4 entry moved from 3 to 5, and so the NCCL contract.
expect_rc 1 "$ctl" -c "$rails_only" --json diff "$tmp/mlx5_8rail.tar" "$tmp/mlx5_8rail_gid_shift.tar"
rows; expect_match '^gid.nccl mlx5_5/1 gid_index 3 5$' "$tmp/rows"
expect_match '^nccl.contract NCCL_IB_GID_INDEX value "3"' "$tmp/rows"
# Firmware and a PCIe link trained narrow: one file each in a copy of the tree.
cp -a "$fx/mlx5_8rail" "$own/fw"
echo 28.40.1000 > "$own/fw/sys/class/infiniband/mlx5_1/fw_ver"
echo 8 > "$(readlink -f "$own/fw/sys/class/infiniband/mlx5_1/device")/current_link_width"
snap fw "$own"
expect_rc 1 "$ctl" -c "$rails_only" --json diff "$tmp/mlx5_8rail.tar" "$tmp/fw.tar"
rows
expect_match '^rails.firmware mlx5_1/1 fw_ver "28.39.1002" "28.40.1000"$' "$tmp/rows"
expect_match '^pcie.link mlx5_1/1 pcie.width 16 8$' "$tmp/rows"
# QoS: rail 2 with PFC on priority 3 against one without (the DCB replies a snapshot keeps).
cp -a "$fx/mlx5_8rail_snapshot" "$own/qos"
cp "$own/qos/fabtune/net/enp26s0f0np0/dcb_ieee" "$own/qos/fabtune/net/enp77s0f0np0/dcb_ieee"
snap qos "$own"; snap mlx5_8rail_snapshot
expect_rc 1 "$ctl" -c "$rails_only" --json diff "$tmp/qos.tar" "$tmp/mlx5_8rail_snapshot.tar"
rows
expect_match '^qos.pfc mlx5_2/1 qos.pfc_priorities \[3\] \[\]$' "$tmp/rows"
expect_match '^qos.trust mlx5_2/1 qos.trust "dscp" "pcp"$' "$tmp/rows"
# Modules (the MODULE_EEPROM_GET answers a snapshot keeps, tests/module_replies from the
# spec-built fixtures): rail 0 an SR4 optic on one node, a DAC on the other, and link.module
# names the type, media, vendor and part that differ; readings and serials are not compared.
cp -a "$fx/mlx5_8rail_snapshot" "$own/sr4"; cp -a "$fx/mlx5_8rail_snapshot" "$own/dac"
"$top_builddir/tests/module_replies" "$top_srcdir/tests/fixtures/module/qsfp28-sr4.pages" \
    enp26s0f0np0 "$own/sr4/fabtune/net/enp26s0f0np0"
"$top_builddir/tests/module_replies" "$top_srcdir/tests/fixtures/module/qsfp28-dac.pages" \
    enp26s0f0np0 "$own/dac/fabtune/net/enp26s0f0np0"
snap sr4 "$own"; snap dac "$own"
expect_rc 0 "$ctl" -c "$rails_only" diff "$tmp/sr4.tar" "$tmp/sr4.tar"
expect_rc 1 "$ctl" -c "$rails_only" --json diff "$tmp/sr4.tar" "$tmp/dac.tar"
rows
expect_match '^link.module mlx5_0/1 link.module.media "optical" "DAC"$' "$tmp/rows"
expect_match '^link.module mlx5_0/1 link.module.vendor "FABTUNE OPTICS" "FABTUNE CABLES"$' "$tmp/rows"
expect_match '^link.module mlx5_0/1 link.module.part "QSFP28-SR4-100G" "QSFP28-DAC-1M"$' "$tmp/rows"
grep -c '^link.module ' "$tmp/rows" > "$tmp/n"; expect_match '^3$' "$tmp/n"
# A snapshot's report has no link memory: the link object says so.
"$FABTUNED" --once --json --no-probes -c "$rails_only" --snapshot "$tmp/sr4.tar" > "$tmp/sr4.json"
jq -r '.rails[0].link | "\(.link_downs_24h) \(.events) \(.memory_unknown_reason) \(.module.type)"' \
    "$tmp/sr4.json" > "$tmp/link"
expect_match '^null null the snapshot kept no link memory (no daemon state it could read) QSFP28$' "$tmp/link"
# The neighbours a snapshot keeps (fabtune/net/IF/lldp): rail 2 on leaf-r7, whose port
# advertises a 1518-byte frame and VLAN 200, against the tree as built (leaf-r2, 9216,
# VLAN 100). The ports (swpN+1) and ages are not compared: they differ on any two nodes.
cp -a "$fx/mlx5_8rail_snapshot" "$own/lldp"
sed -i 's/^sysname leaf-r2$/sysname leaf-r7/; s/^mfs 9216$/mfs 1518/; s/^vlan 100$/vlan 200/; s/^pvid 100$/pvid 200/; s/^age .*/age 5/' \
    "$own/lldp/fabtune/net/enp77s0f0np0/lldp"
snap lldp "$own"
expect_rc 1 "$ctl" -c "$rails_only" --json diff "$tmp/mlx5_8rail_snapshot.tar" "$tmp/lldp.tar"
rows
expect_match '^fabric.cabling mlx5_2/1 neighbors.list.0.system_name "leaf-r2" "leaf-r7"$' "$tmp/rows"
expect_match '^fabric.mtu mlx5_2/1 neighbors.list.0.max_frame_size 9216 1518$' "$tmp/rows"
expect_match '^fabric.vlan mlx5_2/1 neighbors.list.0.vlans \[100\] \[200\]$' "$tmp/rows"
expect_match '^fabric.vlan mlx5_2/1 neighbors.list.0.pvid 100 200$' "$tmp/rows"
grep -c '^fabric\.' "$tmp/rows" > "$tmp/n"; expect_match '^4$' "$tmp/n"
# A rail only one node has.
rm -rf "$own/qos/sys/class/infiniband/mlx5_7"
snap qos "$own"
expect_rc 1 "$ctl" -c "$rails_only" --json diff "$tmp/qos.tar" "$tmp/mlx5_8rail_snapshot.tar"
rows; expect_match '^rails.count mlx5_7/1 rail null "present"$' "$tmp/rows"

# Sysctls, with the default policy: this host's snapshot against itself with one key
# changed; and the snapshot against this node live (nothing changed in between).
expect_rc 0 "$ctl" snapshot "$tmp/host.tar"
mkdir "$tmp/host" && tar -C "$tmp/host" -xf "$tmp/host.tar"
echo 1234567 > "$tmp/host/proc/sys/net/core/rmem_max"
echo 1234 > "$tmp/host/proc/sys/net/core/netdev_max_backlog"
tar -C "$tmp/host" -cf "$tmp/host2.tar" .
expect_rc 1 "$ctl" --json diff "$tmp/host.tar" "$tmp/host2.tar"
rows; expect_match "^tuning.drift net.core.rmem_max live \"$(cat /proc/sys/net/core/rmem_max)\" \"1234567\"\$" "$tmp/rows"
# The text table's columns are as wide as their cells: FIELD, A and B start where their
# headers do, on the row of the longest key too (net.core.netdev_max_backlog).
expect_rc 1 "$ctl" diff "$tmp/host.tar" "$tmp/host2.tar"
awk '/^  CHECK / { f = index($0, " FIELD "); a = index($0, " A "); b = index($0, " B") }
     / net\.core\.(netdev_max_backlog|rmem_max) / {
         n++
         if (index($0, " live ") != f || substr($0, a, 1) != " " || substr($0, a + 1, 1) == " " ||
             substr($0, b, 1) != " " || substr($0, b + 1, 1) == " ") bad++
     }
     END { print n + 0, bad + 0 }' "$LAST_OUT" > "$tmp/cols"
expect_match '^2 0$' "$tmp/cols"
expect_rc 0 "$ctl" diff "$tmp/host.tar"
expect_grep "B: live" "$LAST_OUT"

# Without $FABTUNED, the fabtuned beside fabtunectl: the build tree's ../daemon/fabtuned,
# or one in fabtunectl's own directory (an installed pair), before SBINDIR's.
expect_rc 0 env -u FABTUNED "$ctl" -c "$rails_only" diff "$tmp/mlx5_8rail.tar" "$tmp/mlx5_8rail.tar"
expect_grep "the same in everything fabtune judges" "$LAST_OUT"
mkdir "$tmp/bin" && cp "$ctl" "$tmp/bin/fabtunectl"
printf '#!/bin/sh\necho "the sibling ran: $*" >&2\nexit 3\n' > "$tmp/bin/fabtuned"
chmod +x "$tmp/bin/fabtuned"
expect_rc 66 env -u FABTUNED "$tmp/bin/fabtunectl" diff "$tmp/mlx5_8rail.tar"
expect_grep "the sibling ran: --once --json --no-probes --snapshot $tmp/mlx5_8rail.tar" "$LAST_ERR"
expect_grep "no report from $tmp/bin/fabtuned" "$LAST_ERR"

# What cannot be compared says so.
echo "not a tar" > "$tmp/bad.tar"
expect_rc 66 "$ctl" diff "$tmp/bad.tar" "$tmp/host.tar"
expect_grep "cannot read the snapshot" "$LAST_ERR"
expect_rc 64 "$ctl" diff
expect_grep "fabtunectl: diff needs A.tar [B.tar] (usage: fabtunectl diff [-c POLICY] A.tar [B.tar])" "$LAST_ERR"
expect_rc 64 "$ctl" diff a b c
expect_grep "fabtunectl: diff: unexpected argument 'c'" "$LAST_ERR"
finish
