#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtunectl links (issue 30, item 4) on a running daemon: fabtuned samples a writable copy
# of the 8-rail mlx5 snapshot tree (--sysfs-root), whose netdevs hold module answers made
# by tests/module_replies from tests/fixtures/module (SFF-8636 and CMIS pages built from
# the specs): rail 0 qsfp28-sr4, rail 1 qsfp28-dac, rail 2 osfp-2xdr4, rail 3 qsfp28-aoc,
# rail 4 a driver that refused MODULE_EEPROM_GET (EOPNOTSUPP), rail 6 qsfp28-sr4 with no
# light on lane 3 (0 mW: under its low warning, never "no threshold"), rails 5 and 7 none
# kept; rail 0's FEC_GET answer from tests/fec_replies (RS-FEC 400G, tests/fec_fixtures.h).
# - the modules read as their bytes say: rail 0's lane 3 at 0.06 mW (-12.22 dBm), 2.22 dB
#   under its 0.1 mW low warning, 35.5 C; rail 2 at 72.25 C (warning 70), lane 6 at
#   -13.01 dBm; the DAC "not monitored"; rail 4 unknown with the kernel's reason; rail 0's
#   FEC mode rs, its BER unknown from one sample (null in --json, "-" in the table), the
#   other rails' FEC unknown: the snapshot kept no answer;
# - symbol_error +36 on mlx5_0 (and mlx5_1's stopped at its 16-bit maximum: "saturated",
#   no rate), link_downed 0 -> 2 on mlx5_2 and carrier_changes 2 -> 4 on
#   mlx5_0's netdev between two passes: 36 symbol errors over the interval between the
#   passes (per hour x interval / 3600 = 36), 2 link downs in 24 h, and the events with
#   their times, newest first, in --json and the text table;
# - rail 0's corrected bits +4,000,000 and uncorrectable blocks +10 in its FEC_GET answer
#   between the passes: pre-FEC BER x 400 Gb/s x the interval = 4,000,000, post-FEC = 10;
#   all on lane 0: its own BER x 100 Gb/s x the interval = 4,000,000, the others 0;
# - the memory in a snapshot: fabtunectl snapshot --state-dir keeps the daemon's links.json
#   and when it was taken; fabtuned --once --snapshot on the node's tree with them shows the
#   link downs and events and judges counters.sticky at that time; a copy saved in the boot
#   before the snapshot's is aged on the wall clock (its boot times mean nothing in the new
#   boot); a damaged copy is left out with a warning.
# Only the check passes sample (counters.interval 1h), so the rate is the one between
# them. Needs root ("fabtunectl reload" runs a check pass now).
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
replies="$top_builddir/tests/module_replies"
[ "$(id -u)" = 0 ] || { echo "SKIP: reload needs root"; exit 77; }
daemon_scratch links-ctl mlx5_8rail_snapshot
net="$tmp/fx/fabtune/net"
mods="$top_srcdir/tests/fixtures/module"
"$replies" "$mods/qsfp28-sr4.pages" enp26s0f0np0 "$net/enp26s0f0np0"
"$replies" "$mods/qsfp28-dac.pages" enp60s0f0np0 "$net/enp60s0f0np0"
"$replies" "$mods/osfp-2xdr4.pages" enp77s0f0np0 "$net/enp77s0f0np0"
"$replies" "$mods/qsfp28-aoc.pages" enp94s0f0np0 "$net/enp94s0f0np0"
# Rail 6: the SR4 with no light on lane 3 (Rx power 0: loss of signal).
sed 's/^1F 40 1F 40 02 58 1F 40 /1F 40 1F 40 00 00 1F 40 /' "$mods/qsfp28-sr4.pages" > "$tmp/los.pages"
"$replies" "$tmp/los.pages" enp205s0f0np0 "$net/enp205s0f0np0"
"$top_builddir/tests/fec_replies" rs400 enp26s0f0np0 "$net/enp26s0f0np0/fec"
echo 95 > "$net/enp154s0f0np0/module_lower.errno"
cat > "$tmp/policy.yaml" <<EOP
version: 1
checks: {interval: 1h, counters: {interval: 1h, sticky_window: 0s}}
tuning: {mode: off}
probes: {enabled: false}
EOP
"$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" --procfs-root "$tmp/proc" \
    --state-dir "$tmp/state" --runtime-dir "$tmp/run" --log-target stderr 2>> "$tmp/log" &
dpid=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
for _ in $(seq 200); do
    "$ctl" -s "$sock" health > /dev/null 2>&1; [ $? -ne 2 ] && break; sleep 0.05
done
# "RAIL" -> that rail's --json row, one line
row() { "$ctl" -s "$sock" --json links | jq -c --arg r "$1" '.[] | select(.rail == $r)'; }
q() { row "$1" | jq -r "$2"; }
out() { printf '%s\n' "$1" > "$tmp/v"; expect_match "$2" "$tmp/v"; }

out "$(q mlx5_0/1 '"\(.netdev) \(.fec_mode) \(.pre_fec_ber) \(.post_fec_ber) \(.fec_unknown_reason)"')" \
    '^enp26s0f0np0 rs null null null$'
out "$(q mlx5_1/1 '"\(.fec_mode) \(.fec_unknown_reason)"')" '^null the snapshot kept no FEC_GET answer$'
out "$(q mlx5_0/1 '.module | "\(.type) \(.media) \(.vendor) \(.part) \(.monitored) \(.temperature_celsius) \(.temperature_high_warning_celsius)"')" \
    '^QSFP28 optical FABTUNE OPTICS QSFP28-SR4-100G true 35.5 70$'
out "$(q mlx5_0/1 '.module.rx_power_weakest | "\(.lane) \(.dbm*100|round) \(.low_warning_dbm*100|round) \(.margin_db*100|round) \(.low_alarm_watts*1e7|round)"')" \
    '^3 -1222 -1000 -222 500$'
out "$(q mlx5_2/1 '.module | "\(.type) \(.temperature_celsius) \(.temperature_high_warning_celsius) \(.rx_power_weakest.lane) \(.rx_power_weakest.dbm*100|round)"')" \
    '^OSFP 72.25 70 6 -1301$'
out "$(q mlx5_1/1 '.module | "\(.media) \(.monitored) \(.temperature_celsius) \(.rx_power_weakest)"')" '^DAC false null null$'
out "$(q mlx5_3/1 '.module.rx_power_weakest | "\(.lane) \(.low_warning_watts) \(.margin_db)"')" '^1 null null$'
out "$(q mlx5_4/1 '.module | "\(.known) \(.unknown_reason)"')" \
    '^false no answer to MODULE_EEPROM_GET when the snapshot was taken (Operation not supported)$'
out "$(q mlx5_5/1 '.module')" '^null$'
out "$(q mlx5_0/1 '"\(.symbol_errors_total) \(.link_downs_24h) \(.carrier_changes_24h) \(.events)"')" '^0 0 0 \[\]$'

expect_rc 0 "$ctl" -s "$sock" links
expect_match '^RAIL  *NETDEV  *FEC  *PRE-FEC BER  *POST-FEC BER  *SYMBOL ERR/H  *DOWNS 24H  *MODULE  *TEMPERATURE  *WEAKEST RX  *RX TREND$' "$LAST_OUT"
expect_match '^mlx5_0/1  *enp26s0f0np0  *rs  *-  *-  *[0-9-]*  *0  *QSFP28 optical FABTUNE OPTICS QSFP28-SR4-100G  *35.5 C (warn 70.0)  *lane 3 -12.22 dBm (warn -10.00, -2.22 dB)  *-$' "$LAST_OUT"
expect_match '^mlx5_1/1  *enp60s0f0np0 .* QSFP28 DAC FABTUNE CABLES QSFP28-DAC-1M  *not monitored  *not monitored  *-$' "$LAST_OUT"
expect_match '^mlx5_4/1  *enp154s0f0np0 .* unknown  *-  *-  *-$' "$LAST_OUT"
# A dark lane is under its module's low warning, not without a threshold.
out "$(q mlx5_6/1 '.module.rx_power_weakest | "\(.lane) \(.watts) \(.dbm) \(.low_warning_dbm) \(.margin_db)"')" \
    '^3 0 null -10 null$'
expect_match '^mlx5_6/1  *enp205s0f0np0 .* lane 3 0 mW (warn -10.00, no light)  *-$' "$LAST_OUT"
expect_match '^mlx5_4/1: module unknown: no answer to MODULE_EEPROM_GET when the snapshot was taken (Operation not supported)$' "$LAST_OUT"
expect_match '^  no flap, link down or error burst kept$' "$LAST_OUT"
# Every rail's reason reaches the table, each said once after the rails that have it
# (issue 41, item 8: rows kept pointers into a ring of 8 buffers that later rows overwrote,
# and five of the eight rails' FEC reasons were lost).
expect_match '^mlx5_1/1, mlx5_2/1, mlx5_3/1, mlx5_4/1, mlx5_5/1, mlx5_6/1, mlx5_7/1: FEC unknown: the snapshot kept no FEC_GET answer$' "$LAST_OUT"
cp "$LAST_OUT" "$tmp/links.txt"
for rail in $("$ctl" -s "$sock" --json links | jq -r '.[].rail'); do
    for what in "module .module.unknown_reason" "FEC .fec_unknown_reason" "BER .ber_unknown_reason"; do
        why=$(q "$rail" "${what#* } // empty")
        [ -n "$why" ] || continue
        if grep -F ": ${what%% *} unknown: $why" "$tmp/links.txt" | cut -d: -f1 | tr -d ' ' |
            tr ',' '\n' | grep -qxF "$rail"; then
            pass "$rail's ${what%% *} reason is in the table"
        else
            fail "$rail's ${what%% *} reason ($why) is not in the table"
        fi
    done
done

ib="$root/class/infiniband"
echo 36 > "$ib/mlx5_0/ports/1/counters/symbol_error"
echo 65535 > "$ib/mlx5_1/ports/1/counters/symbol_error"
echo 2 > "$ib/mlx5_2/ports/1/counters/link_downed"
echo 4 > "$root/class/net/enp26s0f0np0/carrier_changes"
"$top_builddir/tests/fec_replies" rs400 enp26s0f0np0 "$net/enp26s0f0np0/fec" 4000000 10
expect_rc 0 "$ctl" -s "$sock" reload
out "$(q mlx5_0/1 '"\(.pre_fec_ber * 400e9 * .symbol_errors_interval_seconds | round) \(.post_fec_ber * 400e9 * .symbol_errors_interval_seconds | round) \(.ber_unknown_reason)"')" \
    '^4000000 10 null$'
out "$(q mlx5_0/1 '.fec.corrected_bits.total')" '^695234567$'
# All 4,000,000 on lane 0 (tests/fec_replies raises lane 0): its BER at 100 Gb/s a lane.
out "$(q mlx5_0/1 '"\(.pre_fec_ber_lanes | length) \(.pre_fec_ber_lanes[0] * 100e9 * .symbol_errors_interval_seconds | round) \(.pre_fec_ber_lanes[1:])"')" \
    '^4 4000000 \[0,0,0\]$'
out "$(q mlx5_0/1 '"\(.symbol_errors_total) \(.symbol_errors_per_hour * .symbol_errors_interval_seconds / 3600 * 1000 | round)"')" '^36 36000$'
out "$(q mlx5_0/1 '.symbol_errors_interval_seconds > 0')" '^true$'
# A symbol_error stopped at its 16-bit maximum sees no rise: no rate, said, not 0 an hour.
out "$(q mlx5_1/1 '"\(.symbol_errors_total) \(.symbol_errors_per_hour) \(.symbol_errors_saturated)"')" \
    '^65535 null true$'
out "$(q mlx5_0/1 '.symbol_errors_saturated')" '^false$'
stamp='[0-9-]*T[0-9:]*Z'
out "$(q mlx5_2/1 '"\(.link_downs_24h) \(.events | length) \(.events[0] | "\(.kind) \(.count) \(.what) \(.at)")"')" \
    "^2 1 link_down 2 link_downed $stamp\$"
out "$(q mlx5_0/1 '"\(.carrier_changes_24h) \(.events[0] | "\(.kind) \(.count) \(.what)")"')" '^2 flap 2 enp26s0f0np0$'
expect_rc 0 "$ctl" -s "$sock" links
expect_match "^  mlx5_0/1  *$stamp  *flap  *2 carrier changes on enp26s0f0np0\$" "$LAST_OUT"
expect_match "^  mlx5_2/1  *$stamp  *link_down  *link_downed +2\$" "$LAST_OUT"
expect_match '^mlx5_0/1  *enp26s0f0np0  *rs  *[0-9]\.[0-9]e-[0-9]*  *[0-9]\.[0-9]e-[0-9]*  ' "$LAST_OUT"
expect_match '^mlx5_2/1  *enp77s0f0np0  *-  *-  *-  *[0-9]*  *2  *OSFP ' "$LAST_OUT"
expect_match '^mlx5_1/1  *enp60s0f0np0  *-  *-  *-  *saturated  *0  *QSFP28 DAC ' "$LAST_OUT"

# The memory in a snapshot. fabtunectl snapshot on this host keeps the daemon's links.json
# as it was and when it was taken (this host has no RDMA rails: only those two files are
# asserted here) ...
expect_rc 0 "$ctl" snapshot --state-dir "$tmp/state" "$tmp/host.tar"
tar -xOf "$tmp/host.tar" ./fabtune/state/links.json > "$tmp/kept.json" 2>/dev/null ||
    tar -xOf "$tmp/host.tar" fabtune/state/links.json > "$tmp/kept.json"
cmp -s "$tmp/kept.json" "$tmp/state/links.json" && pass "the snapshot keeps the daemon's links.json" ||
    fail "the snapshot's links.json differs from the daemon's"
tar -xOf "$tmp/host.tar" ./fabtune/taken > "$tmp/taken" 2>/dev/null ||
    tar -xOf "$tmp/host.tar" fabtune/taken > "$tmp/taken"
expect_match '^[0-9]\{16\} [0-9]\{1,\}$' "$tmp/taken"
# ... and fabtuned reads them back from a snapshot of the 8-rail node (its tree with the
# two files): mlx5_2's link downs and events as the daemon showed them, judged at the time
# the snapshot was taken (counters.sticky under a 1 h window).
mkdir -p "$tmp/fx/fabtune/state"
cp "$tmp/kept.json" "$tmp/fx/fabtune/state/links.json"
cp "$tmp/taken" "$tmp/fx/fabtune/taken"
tar -C "$tmp/fx" -cf "$tmp/node.tar" .
sed 's/sticky_window: 0s/sticky_window: 1h/' "$tmp/policy.yaml" > "$tmp/sticky.yaml"
"$fabtuned" --once --json --no-probes -c "$tmp/sticky.yaml" --snapshot "$tmp/node.tar" > "$tmp/node.json" 2>> "$tmp/log"
jq -r '.rails[] | select(.name == "mlx5_2/1") | .link | "\(.link_downs_24h) \(.memory_unknown_reason) \(.events[0].kind) \(.events[0].what)"' \
    "$tmp/node.json" > "$tmp/v"
expect_match '^2 null link_down link_downed$' "$tmp/v"
jq -r '.findings[] | select(.check == "counters.sticky" and .rail == "mlx5_2/1") | "\(.severity) \(.message)"' \
    "$tmp/node.json" > "$tmp/v"
expect_match '^warning the link went down (link_downed +2) at [0-9-]*T[0-9:]*Z; DEGRADED until' "$tmp/v"
# A snapshot taken after a reboot, before the daemon's first pass of the new boot: its
# links.json is of the old boot, whose boot times mean nothing now. The link down, two
# hours before the snapshot on the wall clock, is past the 1 h window (on boot times it
# would read as just now: the new boot is a minute old).
kept_boot=$(jq -r .boot_id "$tmp/kept.json")
mkdir -p "$tmp/fx/proc/sys/kernel/random"
echo 5e0d1c2b-7a8f-4e3d-b2a1-0f9e8d7c6b5a > "$tmp/fx/proc/sys/kernel/random/boot_id"
[ "$kept_boot" != 5e0d1c2b-7a8f-4e3d-b2a1-0f9e8d7c6b5a ] || fail "the kept memory is of the new boot"
echo "$(($(cut -d' ' -f1 "$tmp/taken") + 7200 * 1000000)) 60000000" > "$tmp/fx/fabtune/taken"
tar -C "$tmp/fx" -cf "$tmp/rebooted.tar" .
"$fabtuned" --once --json --no-probes -c "$tmp/sticky.yaml" --snapshot "$tmp/rebooted.tar" > "$tmp/rebooted.json" 2>> "$tmp/log"
jq -r '.findings[] | select(.check == "counters.sticky" and .rail == "mlx5_2/1") | "\(.severity) \(.message)"' \
    "$tmp/rebooted.json" > "$tmp/v"
expect_match '^ok no flap, link down or error burst in the last 1h' "$tmp/v"
jq -r '.rails[] | select(.name == "mlx5_2/1") | .link | "\(.events[0].kind) \(.events[0].boot_id)"' \
    "$tmp/rebooted.json" > "$tmp/v"
expect_match "^link_down $kept_boot\$" "$tmp/v"
rm -r "$tmp/fx/proc/sys/kernel/random"
cp "$tmp/taken" "$tmp/fx/fabtune/taken"
# A damaged copy is left out, said, and the rest of the report stands.
echo '{"boot_id":7}' > "$tmp/fx/fabtune/state/links.json"
tar -C "$tmp/fx" -cf "$tmp/bad.tar" .
"$fabtuned" --once --json --no-probes -c "$tmp/sticky.yaml" --snapshot "$tmp/bad.tar" > "$tmp/bad.json" 2> "$tmp/bad.err"
jq -r '.rails[] | select(.name == "mlx5_2/1") | .link | "\(.link_downs_24h) \(.module.type)"' "$tmp/bad.json" > "$tmp/v"
expect_match '^null OSFP$' "$tmp/v"
expect_grep "The snapshot's link memory (links.json) is damaged" "$tmp/bad.err"
finish
