#!/bin/sh
# SPDX-License-Identifier: ISC
# The port error counters in a running daemon (issue 30): fabtuned samples a writable copy
# of the H100 NDR fixture (--sysfs-root; 8 InfiniBand rails, mlx5_1 holding link_downed
# 255) every second, and the test writes the counter files between samples as the kernel
# would change them:
# - at start, mlx5_1's saturated link_downed is a line (unknown, its total, the reset's
#   hint), not an alarm: the node is READY;
# - symbol_error raised by 500 on mlx5_0: counters.link warns (DEGRADED); link_downed 0 -> 1
#   on mlx5_2: counters.link_down is an error (NOT_READY);
# - mlx5_3's symbol_error reset (60000 -> 0, as perfquery -R does) gives no finding: it
#   stays READY; mlx5_4's 32-bit hw_counters/out_of_sequence wrapping (4294967290 -> 5)
#   rose by the 5 it holds at least, a rise seen (issue 41, item 10), never a negative
#   or a huge one;
# - fabtune_rail_class_events_total carries the class totals (1 link down on mlx5_2).
# Judged by severities, never by a rate's exact value: the samples' spacing is the loaded
# machine's. Needs root ("fabtunectl reload" runs a check pass now).
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
[ "$(id -u)" = 0 ] || { echo "SKIP: reload needs root"; exit 77; }
tmp=$(mktemp -d /tmp/fabtune-counters.XXXXXX)
cp -a "$(shared_fixtures)/h100_ndr_ib" "$tmp/fx"
root="$tmp/fx/sys"
ib="$root/class/infiniband"
# Where the reset and the wrap start from: already there at the daemon's first sample.
echo 60000 > "$ib/mlx5_3/ports/1/counters/symbol_error"
echo 4294967290 > "$ib/mlx5_4/ports/1/hw_counters/out_of_sequence"
cat > "$tmp/policy.yaml" <<EOP
version: 1
checks: {interval: 1h, counters: {interval: 1s}}
tuning: {mode: off}
probes: {enabled: false}
EOP
unlimited_proc "$tmp/proc"
sock="$tmp/run/fabtuned.sock"
"$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" --procfs-root "$tmp/proc" --state-dir "$tmp/state" \
    --runtime-dir "$tmp/run" --log-target stderr 2> "$tmp/log" & dpid=$!
trap 'kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
st() { "$ctl" -s "$sock" --json status | jq -r "$1"; }
# "CHECK RAIL" -> "severity actual message | hint" of that finding
finding() {
    "$ctl" -s "$sock" --json checks |
        jq -r --arg c "$1" --arg r "$2" '.[] | select(.check == $c and .rail == $r) | "\(.severity) \(.actual) \(.message) | \(.hint)"'
}
rail_verdict() { st ".rails[] | select(.name == \"$1\") | .verdict"; }
# Counter samples since now: the counters timer folds one a second; the state file is
# rewritten at each check pass only, so wait on the clock, a bounded while.
samples() { sleep "$1"; }

[ "$(st .verdict)" = READY ] && pass "READY at start: the capture's link_downed 255 is no alarm" ||
    fail "verdict at start: $(st .verdict)"
finding counters.link_down mlx5_1/1 > "$tmp/f"
expect_match '^unknown null first sample; rates need two; since the last reset: link_downed 255 (saturated, 8-bit) | .*perfquery -R' "$tmp/f"

# Two samples or more of the start values, then the rises, the reset and the wrap.
samples 2.5
echo 500 > "$ib/mlx5_0/ports/1/counters/symbol_error"
echo 1 > "$ib/mlx5_2/ports/1/counters/link_downed"
echo 0 > "$ib/mlx5_3/ports/1/counters/symbol_error"
echo 5 > "$ib/mlx5_4/ports/1/hw_counters/out_of_sequence"
# A check pass once a sample has seen them: retried a few times, a second apart, in case
# the timer ran late on a loaded machine.
seen=""
for _ in $(seq 10); do
    samples 1.5
    expect_rc 0 "$ctl" -s "$sock" reload
    finding counters.link mlx5_0/1 > "$tmp/link"
    finding counters.link_down mlx5_2/1 > "$tmp/down"
    grep -q '^warning ' "$tmp/link" && grep -q '^error ' "$tmp/down" && { seen=1; break; }
done
cat "$tmp/link" "$tmp/down"
[ -n "$seen" ] && pass "the rises are findings" || fail "no finding for the rises"
expect_match '^warning [0-9.e+]*/s link at .*, mostly symbol_error | .*cable' "$tmp/link"
expect_match '^error [0-9.e+]*/s link_down at .*, mostly link_downed | .*link went down' "$tmp/down"
[ "$(rail_verdict mlx5_0/1)" = DEGRADED ] && pass "mlx5_0 DEGRADED" || fail "mlx5_0: $(rail_verdict mlx5_0/1)"
[ "$(rail_verdict mlx5_2/1)" = NOT_READY ] && pass "mlx5_2 NOT_READY" || fail "mlx5_2: $(rail_verdict mlx5_2/1)"
[ "$(st .verdict)" = NOT_READY ] && pass "the node NOT_READY" || fail "node: $(st .verdict)"

# The reset and the wrap, in the same samples: no false alarm, and the wrap's rise seen
# (5 in about a second: over the loss limit of 1/s), no negative or huge rate.
finding counters.link mlx5_3/1 > "$tmp/reset"
finding counters.loss mlx5_4/1 > "$tmp/wrap"
cat "$tmp/reset" "$tmp/wrap"
expect_match '^ok 0/s link at 0/s' "$tmp/reset"
expect_match '^warning [0-9.]*/s loss at ' "$tmp/wrap"
rate=$(cut -d/ -f1 "$tmp/wrap" | cut -d' ' -f2)
# (a check pass samples too, so the interval may be under the timer's second)
awk -v r="$rate" 'BEGIN { exit !(r > 0 && r < 1000) }' && pass "the wrap's rate ($rate/s): its 5 over the interval" ||
    fail "the wrap's rate: $rate"
[ "$(rail_verdict mlx5_3/1)" = READY ] && pass "the reset leaves mlx5_3 READY" ||
    fail "mlx5_3 $(rail_verdict mlx5_3/1)"
# The class totals as Prometheus reads them: mlx5_2's one link down, mlx5_1's 255, mlx5_0's
# 500 symbol errors, mlx5_3's 0 since its reset; promtool (where installed) finds them clean.
"$ctl" -s "$sock" metrics > "$tmp/m"
expect_match '^fabtune_rail_class_events_total{device="mlx5_2",port="1",netdev="ibp65s0",class="link_down"} 1$' "$tmp/m"
expect_match '^fabtune_rail_class_events_total{device="mlx5_1",port="1",netdev="ibp42s0",class="link_down"} 255$' "$tmp/m"
expect_match '^fabtune_rail_class_events_total{device="mlx5_0",port="1",netdev="ibp24s0",class="link"} 500$' "$tmp/m"
expect_match '^fabtune_rail_class_events_total{device="mlx5_3",port="1",netdev="ibp88s0",class="link"} 0$' "$tmp/m"
if command -v promtool > /dev/null; then
    promtool check metrics < "$tmp/m" > "$tmp/promtool" 2>&1 && [ ! -s "$tmp/promtool" ] &&
        pass "promtool check metrics: clean" || { fail "promtool:"; cat "$tmp/promtool"; }
fi
# The saturated counter still is a line, never a rate.
finding counters.link_down mlx5_1/1 > "$tmp/f"
expect_match '^unknown null link_down rate unknown: link_downed stopped at its 8-bit maximum' "$tmp/f"
[ "$(rail_verdict mlx5_1/1)" = READY ] && pass "mlx5_1 READY" || fail "mlx5_1: $(rail_verdict mlx5_1/1)"
kill -TERM "$dpid"; wait "$dpid"
finish
