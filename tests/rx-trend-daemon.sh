#!/bin/sh
# SPDX-License-Identifier: ISC
# A module's Rx power trend in a running daemon (issue 30, item 3: "a lane whose RX power
# falls over time is a warning before it fails"). fabtuned samples a writable copy of the
# 8-rail mlx5 snapshot tree (--sysfs-root), whose rail 0 netdev holds module answers made
# by tests/module_replies from tests/fixtures/module/qsfp28-sr4.pages (SFF-8636 pages
# built from the spec), under a policy whose trend window is 30 s instead of a day. The
# test rewrites lane 2's Rx power (lower page bytes 36-37) before each pass as a function
# of the time since it began, falling 0.1 dB a second (3 dB per window), the other lanes
# steady at 0.8 mW:
# - at first link.module is ok: too few samples make no trend, and the readings are all
#   within the module's thresholds;
# - within bounded retries (a pass a second) link.module warns "lane 2 Rx power fell",
#   while every reading is still inside the thresholds, and fabtunectl links --json gives
#   lane 2's fit, falling more than 1 dB per window; the table shows it;
# - STATE_DIR/links.json holds the samples; after a restart the new process has them: its
#   first pass shows a fit of 8 samples or more, which one pass of its own cannot make;
# - with rx_power_fall 0 (off) the same samples give ok.
# Judged by severities and by the fit's sign and size, never by exact timing. Needs root
# ("fabtunectl reload" runs a check pass now).
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
replies="$top_builddir/tests/module_replies"
[ "$(id -u)" = 0 ] || { echo "SKIP: reload needs root"; exit 77; }
daemon_scratch rxtrend mlx5_8rail_snapshot
net="$tmp/fx/fabtune/net"
mods="$top_srcdir/tests/fixtures/module"
policy() {
    cat > "$tmp/policy.yaml" <<EOP
version: 1
checks: {interval: 1h, counters: {interval: 1h, sticky_window: 0s},
         module: {rx_power_window: 30s, rx_power_fall: $1}}
tuning: {mode: off}
probes: {enabled: false}
EOP
}
policy 1.0
t0=$(date +%s.%N)
# Lane 2 at 0.8 mW minus 0.1 dB per second since t0; lane 3 healed (0.8 mW, no latched
# flag): only the trend can warn.
module() {
    hex=$(awk -v t0="$t0" -v now="$(date +%s.%N)" 'BEGIN {
        raw = int(8000 * 10 ^ (-0.1 * (now - t0) / 10) + 0.5); printf "%02X %02X", int(raw / 256), raw % 256 }')
    sed -e "s/^1F 40 1F 40 02 58 1F 40 /1F 40 $hex 1F 40 1F 40 /" -e 's/^10          # byte 10/00          # byte 10/' \
        "$mods/qsfp28-sr4.pages" > "$tmp/sr4.pages"
    "$replies" "$tmp/sr4.pages" enp26s0f0np0 "$net/enp26s0f0np0"
}
module
grep -q '^1F 40 [0-9A-F][0-9A-F] [0-9A-F][0-9A-F] 1F 40 1F 40 ' "$tmp/sr4.pages" &&
    pass "the pages carry lane 2's reading" || fail "the Rx power line was not rewritten"
finding() {
    "$ctl" -s "$sock" --json checks |
        jq -r '.[] | select(.check == "link.module" and .rail == "mlx5_0/1") | "\(.severity) \(.message)"'
}
trend() {
    "$ctl" -s "$sock" --json links |
        jq -r '.[] | select(.rail == "mlx5_0/1") | .rx_power_trend | if . == null then "null" else "\(.lane) \(.db_per_window) \(.samples) \(.window_seconds)" end'
}

fabtuned_start
finding > "$tmp/f"
expect_match '^ok .*every reading within the module.s thresholds' "$tmp/f"
seen=""
for _ in $(seq 90); do
    sleep 1
    module
    expect_rc 0 "$ctl" -s "$sock" reload
    finding > "$tmp/f"
    grep -q '^warning ' "$tmp/f" && { seen=1; break; }
done
cat "$tmp/f"
[ -n "$seen" ] && pass "link.module warns on the falling lane" || fail "no trend warning in 90 passes"
expect_match '^warning QSFP28 FABTUNE OPTICS QSFP28-SR4-100G (optical): lane 2 Rx power fell [0-9.]* dB in [0-9]* s (-[0-9.]* dB per 30s over [0-9]* samples), now -[0-9.]* dBm$' "$tmp/f"
trend > "$tmp/t"
cat "$tmp/t"
read -r lane rate samples window < "$tmp/t"
[ "$lane" = 2 ] && pass "the steepest lane is lane 2" || fail "steepest lane: $lane"
awk -v r="$rate" 'BEGIN { exit !(r < -1.0 && r > -10) }' && pass "lane 2 falls $rate dB per window" ||
    fail "lane 2's fit: $rate dB per window"
[ "$samples" -ge 8 ] && [ "$window" = 30 ] && pass "$samples samples over a 30 s window" ||
    fail "samples $samples, window $window"
expect_rc 0 "$ctl" -s "$sock" links
expect_match '^RAIL  *NETDEV .* WEAKEST RX  *RX TREND$' "$LAST_OUT"
expect_match '^mlx5_0/1  *enp26s0f0np0 .* lane 2 -[0-9.]* dB/30s ([0-9]* samples)$' "$LAST_OUT"
expect_match '^mlx5_2/1 .*  -$' "$LAST_OUT"
jq -r '.rails[] | select(.rail == "mlx5_0/1") | .rx_power | "\(.serial) \(.samples | length) \(.samples[-1].rx | length)"' \
    "$tmp/state/links.json" > "$tmp/saved"
expect_match '^SR4SERIAL0000001 [0-9]* 8$' "$tmp/saved"

# A restart: the samples come back from the state file; the first pass shows the trend.
fabtuned_stop
fabtuned_start
trend > "$tmp/t2"
read -r lane2 rate2 samples2 _ < "$tmp/t2"
[ "$lane2" = 2 ] && [ "$samples2" -ge 8 ] &&
    pass "after a restart the trend is there at once ($samples2 samples)" ||
    fail "after a restart: $(cat "$tmp/t2")"

# Off: the same memory, no warning.
policy 0
expect_rc 0 "$ctl" -s "$sock" reload
finding > "$tmp/f"
expect_match '^ok ' "$tmp/f"
fabtuned_stop
finish
