#!/bin/sh
# SPDX-License-Identifier: ISC
# FEC and BER offline (issue 30 item 2): fabtuned --once --json --sysfs-root on a copy of
# the 8-rail mlx5 snapshot tree whose netdevs hold FEC_GET answers made by
# tests/fec_replies from tests/fec_fixtures.h (built from include/uapi/linux/
# ethtool_netlink.h and ethtool-netlink.rst "FEC_GET"): rail 0 RS-FEC on its 400G port
# (4X NDR: 100G PAM4 lanes), rail 1 FEC off on a 400G port, rail 2 FEC off on a port made
# 100G (4X EDR: 25G lanes), rail 3 a driver without FEC (veth's EOPNOTSUPP), rail 4's
# request refused when the snapshot was taken (fec.errno), rails 5-7 none kept.
# - link.fec: ok, error, warning, unknown "the driver reports no FEC", unknown with the
#   snapshot's errno; no finding where nothing was kept;
# - link.ber: one sample, so unknown with the totals since the counters' reset;
# - rails[].link: fec_mode, the fec object (configured, active, totals and lanes), the BER
#   null with its reason.
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
replies="$top_builddir/tests/fec_replies"
tmp=$(mktemp -d /tmp/fabtune-fec.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp -a "$(shared_fixtures)/mlx5_8rail_snapshot" "$tmp/fx"
net="$tmp/fx/fabtune/net"
"$replies" rs400 enp26s0f0np0 "$net/enp26s0f0np0/fec"
"$replies" off100 enp60s0f0np0 "$net/enp60s0f0np0/fec"
"$replies" off100 enp77s0f0np0 "$net/enp77s0f0np0/fec"
echo "100 Gb/sec (4X EDR)" > "$tmp/fx/sys/class/infiniband/mlx5_2/ports/1/rate"
"$replies" eopnotsupp enp94s0f0np0 "$net/enp94s0f0np0/fec"
echo 95 > "$net/enp154s0f0np0/fec.errno"

expect_rc_in "0 1 2 3" "$fabtuned" --once --json -c "$top_srcdir/tests/rails-only.policy" \
    --sysfs-root "$tmp/fx/sys"
cp "$LAST_OUT" "$tmp/out.json"
# CHECK RAIL -> "severity | actual | message"
f() {
    jq -r --arg c "$1" --arg r "$2" \
        '[.findings[] | select(.check == $c and .rail == $r)] | if length == 1 then .[0] |
         "\(.severity) | \(.actual) | \(.message)" else "\(length) findings" end' "$tmp/out.json"
}
out() { printf '%s\n' "$1" > "$tmp/v"; expect_match "$2" "$tmp/v"; }

out "$(f link.fec mlx5_0/1)" \
    '^ok | rs | enp26s0f0np0: FEC rs on 100 Gb/s lanes (RS(544,514) (IEEE 802.3 clause 134, PAM4 lanes) needed)$'
out "$(f link.fec mlx5_1/1)" \
    '^error | off | enp60s0f0np0: FEC off on 100 Gb/s lanes, which need RS(544,514) (IEEE 802.3 clause 134, PAM4 lanes)$'
out "$(f link.fec mlx5_2/1)" \
    '^warning | off | enp77s0f0np0: FEC off on 25 Gb/s lanes, which need RS(528,514) (IEEE 802.3 clause 91, 25G lanes)$'
out "$(f link.fec mlx5_3/1)" \
    '^unknown | null | enp94s0f0np0: FEC unknown: the driver reports no FEC (Operation not supported)$'
out "$(f link.fec mlx5_4/1)" \
    '^unknown | null | enp154s0f0np0: FEC unknown: no answer to FEC_GET when the snapshot was taken (Operation not supported)$'
out "$(f link.fec mlx5_5/1)" '^0 findings$'
out "$(f link.ber mlx5_0/1)" \
    '^unknown | null | enp26s0f0np0: BER unknown: a captured tree is a single sample; rates need two; since the counters. reset: 691234567 corrected bits, 3 uncorrectable blocks$'
out "$(f link.ber mlx5_1/1)" \
    '^unknown | null | enp60s0f0np0: no FEC or PHY error counts: the driver gives no corrected bits or symbol errors$'
out "$(f link.ber mlx5_3/1)" \
    '^unknown | null | enp94s0f0np0: no FEC or PHY error counts: the driver reports no FEC (Operation not supported)$'

# rails[].link
l() { jq -r --arg r "$1" ".rails[] | select(.name == \$r) | .link | $2" "$tmp/out.json"; }
out "$(l mlx5_0/1 '"\(.fec_mode) \(.pre_fec_ber) \(.post_fec_ber) \(.fec_unknown_reason)"')" \
    '^rs null null null$'
out "$(l mlx5_0/1 '.ber_unknown_reason')" \
    '^a rate needs two samples of the counters (one so far, or a reset between)$'
out "$(l mlx5_0/1 '.fec | "\(.configured) \(.auto) \(.active) \(.corrected_bits.total) \(.corrected_bits.lanes) \(.corrected_blocks.total) \(.uncorrectable_blocks.total) \(.uncorrectable_blocks.lanes)"')" \
    '^\["rs"\] false rs 691234567 \[172801234,168402345,176503456,173527532\] 652001234 3 \[\]$'
out "$(l mlx5_1/1 '"\(.fec_mode) \(.fec.configured) \(.fec.corrected_bits)"')" '^off \["off"\] null$'
out "$(l mlx5_3/1 '"\(.fec_mode) \(.fec) \(.fec_unknown_reason)"')" \
    '^null null the driver reports no FEC (Operation not supported)$'
out "$(l mlx5_5/1 '"\(.fec_mode) \(.fec_unknown_reason)"')" '^null the snapshot kept no FEC_GET answer$'
finish
