#!/bin/sh
# SPDX-License-Identifier: ISC
# Gone devices in a running daemon (issue 45, item 5): fabtuned on a writable copy of the
# H100 NDR fixture (--sysfs-root; 8 InfiniBand rails, each an mlx5 PCI function listed
# under bus/pci/devices), and the test takes rails' class/infiniband entries away under it:
# - at start rails.gone is one ok finding for the node;
# - mlx5_5's class/infiniband entry goes (its PCI function stays listed: the driver let it
#   go): the pass that the next reload runs has rails.gone an error on mlx5_5/1, saying that
#   its function 0000:ab:00.0 is still listed and its last state (ACTIVE/LinkUp), and the
#   node is NOT_READY;
# - 'fabtunectl forget' of a rail the memory lacks is refused (ENOENT), of a present rail
#   too (EEXIST); 'fabtunectl forget mlx5_5/1' makes it ok ("forgotten") in the check it
#   waits for, and the daemon's links.json keeps it;
# - mlx5_6 goes with its PCI function (bus/pci/devices/0000:c0:00.0): an error that says
#   the bus lost it; its return clears it (no rails.gone finding on it);
# - mlx5_7 goes: an error, until a reload whose policy's rails.expect_count (6) the rails
#   there are meet: ok, saying so;
# - every rail goes (a node whose one rail is deleted): each is an error still.
# Needs root ("reload" and "forget" are root's).
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
[ "$(id -u)" = 0 ] || { echo "SKIP: reload and forget need root"; exit 77; }
daemon_scratch gone h100_ndr_ib
ib="$root/class/infiniband"
pci="$root/bus/pci/devices"
policy() {
    cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: $1}
checks: {interval: 1h}
tuning: {mode: off}
probes: {enabled: false}
EOP
}
policy null
st() { "$ctl" -s "$sock" --json status | jq -r "$1"; }
# "CHECK RAIL" -> "severity actual message" of that finding (RAIL "-": the node's)
finding() {
    "$ctl" -s "$sock" --json checks |
        jq -r --arg c "$1" --arg r "$2" '.[] | select(.check == $c and (.rail // "-") == $r) | "\(.severity) \(.actual) \(.message)"'
}
stamp='[0-9-]*T[0-9:]*Z'

fabtuned_start
finding rails.gone - > "$tmp/f"
expect_match '^ok none no rail has left the inventory$' "$tmp/f"

# Gone, its PCI function still listed: an error from the first pass without it.
mv "$ib/mlx5_5" "$tmp/mlx5_5.gone"
expect_rc 0 "$ctl" -s "$sock" reload
finding rails.gone mlx5_5/1 > "$tmp/f"
cat "$tmp/f"
expect_match "^error gone rail mlx5_5/1 left the inventory at $stamp: its PCI function 0000:ab:00.0 is still listed under /sys/bus/pci/devices (the driver let it go); its last state ACTIVE/LinkUp$" "$tmp/f"
[ "$(st .verdict)" = NOT_READY ] && pass "NOT_READY with mlx5_5 gone" || fail "verdict with mlx5_5 gone: $(st .verdict)"

# The operator forgets it; what cannot be forgotten is refused.
expect_rc 1 "$ctl" -s "$sock" forget mlx5_9/1
expect_grep 'no rail mlx5_9/1 in the link memory' "$LAST_ERR"
expect_rc 1 "$ctl" -s "$sock" forget mlx5_0/1
expect_grep 'rail mlx5_0/1 is in the inventory: only a gone rail can be forgotten' "$LAST_ERR"
expect_rc 0 "$ctl" -s "$sock" forget mlx5_5/1
expect_match '^forgot mlx5_5/1; verdict ' "$LAST_OUT"
finding rails.gone mlx5_5/1 > "$tmp/f"
expect_match "^ok forgotten rail mlx5_5/1 left the inventory at $stamp; an operator forgot it (fabtunectl forget)$" "$tmp/f"
[ "$(jq -r '.rails[] | select(.rail == "mlx5_5/1") | .forgotten' "$tmp/state/links.json")" = true ] &&
    pass "links.json keeps mlx5_5/1 forgotten" || fail "links.json: $(cat "$tmp/state/links.json")"

# Gone with its PCI function (off the bus); back, it is cleared.
mv "$ib/mlx5_6" "$tmp/mlx5_6.gone"
mv "$pci/0000:c0:00.0" "$tmp/c0.gone"
expect_rc 0 "$ctl" -s "$sock" reload
finding rails.gone mlx5_6/1 > "$tmp/f"
cat "$tmp/f"
expect_match "^error off the bus rail mlx5_6/1 left the inventory at $stamp: its PCI function 0000:c0:00.0 is gone from /sys/bus/pci/devices (the bus lost it); its last state ACTIVE/LinkUp$" "$tmp/f"
mv "$tmp/c0.gone" "$pci/0000:c0:00.0"
mv "$tmp/mlx5_6.gone" "$ib/mlx5_6"
expect_rc 0 "$ctl" -s "$sock" reload
finding rails.gone mlx5_6/1 > "$tmp/f"
[ ! -s "$tmp/f" ] && pass "mlx5_6 back: no rails.gone finding on it" || fail "mlx5_6 back: $(cat "$tmp/f")"

# Gone, until a reload whose policy's count is met by the rails there are.
mv "$ib/mlx5_7" "$tmp/mlx5_7.gone"
expect_rc 0 "$ctl" -s "$sock" reload
finding rails.gone mlx5_7/1 > "$tmp/f"
expect_match '^error gone rail mlx5_7/1 ' "$tmp/f"
policy 6
expect_rc 0 "$ctl" -s "$sock" reload
finding rails.gone mlx5_7/1 > "$tmp/f"
cat "$tmp/f"
expect_match "^ok not expected rail mlx5_7/1 left the inventory at $stamp; the policy's count is met (6 of rails.expect_count 6)$" "$tmp/f"

# Every rail gone (a node of one rail whose device is deleted): each is still named.
mkdir "$tmp/all.gone"
mv "$ib"/* "$tmp/all.gone/"
expect_rc 0 "$ctl" -s "$sock" reload
finding rails.gone mlx5_0/1 > "$tmp/f"
cat "$tmp/f"
expect_match "^error gone rail mlx5_0/1 left the inventory at $stamp: its PCI function 0000:18:00.0 is still listed" "$tmp/f"
fabtuned_stop
finish
