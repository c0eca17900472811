#!/bin/sh
# SPDX-License-Identifier: ISC
# The link's memory in a running daemon (issue 30, item 4): fabtuned samples a writable copy
# of the H100 NDR fixture (--sysfs-root; 8 InfiniBand rails) under a policy whose sticky
# window is 20 s, and the test changes the kernel's files between passes:
# - at start every rail's counters.sticky is ok: a first reading is a baseline, never an event;
# - link_downed 0 -> 1 on mlx5_2 and carrier_changes 1 -> 3 on mlx5_0's netdev (a down and
#   an up): counters.sticky warns on both, naming the event and when the window ends, and
#   STATE_DIR/links.json holds the events;
# - the daemon is restarted: its first pass sees no rise (counters.link_down is ok, against
#   the saved sample, or unknown) but mlx5_2 is still DEGRADED by counters.sticky, not
#   READY: the window survives the restart;
# - once the window has passed (bounded retries, a second apart), both rails are READY;
# - mlx5_5's device leaves the tree for a pass and comes back: its return is a sticky
#   "came back" event, the rail DEGRADED.
# Judged by severities and by what the window names, never by exact timing. Needs root
# ("fabtunectl reload" runs a check pass now).
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
[ "$(id -u)" = 0 ] || { echo "SKIP: reload needs root"; exit 77; }
daemon_scratch links h100_ndr_ib
ib="$root/class/infiniband"
cat > "$tmp/policy.yaml" <<EOP
version: 1
checks: {interval: 1h, counters: {interval: 1s, sticky_window: 20s}}
tuning: {mode: off}
probes: {enabled: false}
EOP
st() { "$ctl" -s "$sock" --json status | jq -r "$1"; }
# "CHECK RAIL" -> "severity actual message | hint" of that finding
finding() {
    "$ctl" -s "$sock" --json checks |
        jq -r --arg c "$1" --arg r "$2" '.[] | select(.check == $c and .rail == $r) | "\(.severity) \(.actual) \(.message) | \(.hint)"'
}
rail_verdict() { st ".rails[] | select(.name == \"$1\") | .verdict"; }

fabtuned_start
finding counters.sticky mlx5_2/1 > "$tmp/f"
expect_match '^ok none no flap, link down or error burst in the last 20s' "$tmp/f"
[ "$(st .verdict)" = READY ] && pass "READY at start: a first reading is no event" ||
    fail "verdict at start: $(st .verdict)"

echo 1 > "$ib/mlx5_2/ports/1/counters/link_downed"
echo 3 > "$root/class/net/ibp24s0/carrier_changes"
seen=""
for _ in $(seq 10); do
    sleep 1
    expect_rc 0 "$ctl" -s "$sock" reload
    finding counters.sticky mlx5_2/1 > "$tmp/down"
    finding counters.sticky mlx5_0/1 > "$tmp/flap"
    grep -q '^warning ' "$tmp/down" && grep -q '^warning ' "$tmp/flap" && { seen=1; break; }
done
cat "$tmp/down" "$tmp/flap"
[ -n "$seen" ] && pass "the link down and the flap are sticky findings" || fail "no sticky finding"
stamp='[0-9-]*T[0-9:]*Z'
expect_match "^warning link_down at $stamp the link went down (link_downed +1) at $stamp; DEGRADED until $stamp (sticky window 20s) | .*sticky_window" "$tmp/down"
expect_match "^warning flap at $stamp the link flapped (2 carrier changes on ibp24s0) at $stamp; DEGRADED until" "$tmp/flap"
jq -r '.rails[] | select(.rail == "mlx5_2/1") | .events[] | "\(.kind) \(.count) \(.what) \(.boot_id)"' \
    "$tmp/state/links.json" > "$tmp/events"
expect_grep 'link_down 1 link_downed 3f1c8e2a-5b7d-4c6e-9a0b-1d2e3f4a5b6c' "$tmp/events"

# The restart: a new process, whose rates see no rise since; the window goes on.
fabtuned_stop
fabtuned_start
finding counters.link_down mlx5_2/1 > "$tmp/rate"
finding counters.sticky mlx5_2/1 > "$tmp/after"
cat "$tmp/rate" "$tmp/after"
expect_match '^\(ok\|unknown\) ' "$tmp/rate"
expect_match '^warning link_down at .* the link went down (link_downed +1)' "$tmp/after"
v=$(rail_verdict mlx5_2/1)
[ "$v" = DEGRADED ] && pass "mlx5_2 DEGRADED after the restart (sticky)" || fail "mlx5_2 after the restart: $v"

# The window ends: READY again, within a bounded while.
cleared=""
for _ in $(seq 60); do
    sleep 1
    expect_rc 0 "$ctl" -s "$sock" reload
    [ "$(rail_verdict mlx5_2/1)" = READY ] && [ "$(rail_verdict mlx5_0/1)" = READY ] && { cleared=1; break; }
done
[ -n "$cleared" ] && pass "READY once the sticky window has passed" ||
    fail "still $(rail_verdict mlx5_2/1) / $(rail_verdict mlx5_0/1)"
finding counters.sticky mlx5_2/1 > "$tmp/f"
expect_match '^ok none no flap, link down or error burst in the last 20s' "$tmp/f"

# A device off the bus and back (an HCA reset, a driver reload): mlx5_5 leaves the
# inventory for a pass, and its return is sticky.
mv "$ib/mlx5_5" "$tmp/mlx5_5.gone"
expect_rc 0 "$ctl" -s "$sock" reload
[ "$(st '[.rails[] | select(.name == "mlx5_5/1")] | length')" = 0 ] &&
    pass "mlx5_5 gone from the inventory" || fail "mlx5_5 still listed"
sleep 1
mv "$tmp/mlx5_5.gone" "$ib/mlx5_5"
expect_rc 0 "$ctl" -s "$sock" reload
finding counters.sticky mlx5_5/1 > "$tmp/back"
cat "$tmp/back"
expect_match "^warning gone at $stamp the link came back (its rail was gone from the inventory for [0-9]* s: a device reset, a driver reload) at $stamp; DEGRADED until $stamp (sticky window 20s)" "$tmp/back"
v=$(rail_verdict mlx5_5/1)
[ "$v" = DEGRADED ] && pass "mlx5_5 DEGRADED after its return (sticky)" || fail "mlx5_5 after its return: $v"
fabtuned_stop
finish
