#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtunectl diff of two snapshots whose DCQCN parameters differ (issue 46): the 8-rail
# MLNX_OFED tree with its DCQCN files and mlxconfig answers (fixtures: mlx5_8rail_cc),
# against a copy where rail 2's cnp_dscp was set to 26 and its rpg_gd to 10 at run time
# (the firmware's answer unchanged). Each parameter is its own row under qos.cc, named
# cc.running.NAME; the same snapshot twice is the same; --once --json carries rails[].cc.
. "${top_srcdir:-.}/tests/lib.sh"

ctl="$top_builddir/src/client/fabtunectl"
FABTUNED="$top_builddir/src/daemon/fabtuned"; export FABTUNED
tmp=$(mktemp -d /tmp/fabtune-ccdiff.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp -a "$(shared_fixtures)/mlx5_8rail_cc" "$tmp/a"
cp -a "$tmp/a" "$tmp/b"
echo 26 > "$tmp/b/sys/class/net/enp77s0f0np0/ecn/roce_np/cnp_dscp"
echo 10 > "$tmp/b/sys/class/net/enp77s0f0np0/ecn/roce_rp/rpg_gd"
printf 'version: 1\nrails:\n  cc: {profile: roce-optimized-v26.7}\n' > "$tmp/cc.yaml"
tar -C "$tmp/a" -cf "$tmp/a.tar" .
tar -C "$tmp/b" -cf "$tmp/b.tar" .

expect_rc 0 "$ctl" -c "$tmp/cc.yaml" diff "$tmp/a.tar" "$tmp/a.tar"
expect_grep "the same in everything fabtune judges" "$LAST_OUT"

expect_rc 1 "$ctl" -c "$tmp/cc.yaml" --json diff "$tmp/a.tar" "$tmp/b.tar"
jq -r '.differences[] | "\(.check) \(.subject) \(.field) \(.a|tojson) \(.b|tojson)"' "$LAST_OUT" > "$tmp/rows"
expect_match '^qos.cc mlx5_2/1 cc.running.rpg_gd 11 10$' "$tmp/rows"
expect_match '^qos.cc mlx5_2/1 cc.running.cnp_dscp 4 26$' "$tmp/rows"
expect_match '^qos.cnp mlx5_2/1 qos.cnp_dscp 4 26$' "$tmp/rows"
grep -c '^qos.cc ' "$tmp/rows" > "$tmp/n"; expect_match '^2$' "$tmp/n"
# The table a person reads names them too.
expect_rc 1 "$ctl" -c "$tmp/cc.yaml" diff "$tmp/a.tar" "$tmp/b.tar"
expect_match 'qos.cc *mlx5_2/1 *cc.running.cnp_dscp *4 *26' "$LAST_OUT"

expect_rc_in "0 1 2 3" "$FABTUNED" --once --json --no-probes -c "$tmp/cc.yaml" --snapshot "$tmp/b.tar"
jq -r '.rails[] | select(.name == "mlx5_2/1") | .cc | "\(.source) \(.running.cnp_dscp) \(.next_boot.cnp_dscp) \(.digest|length)"' \
    "$LAST_OUT" > "$tmp/cc"
expect_match '^sysfs 26 4 16$' "$tmp/cc"
finish
