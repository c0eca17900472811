#!/bin/sh
# SPDX-License-Identifier: ISC
# An error burst in a running daemon (issue 30, items 1 and 4): fabtuned samples a writable
# copy of the H100 NDR fixture (8 InfiniBand rails) every second, checks every 20 s and
# keeps a 30 s sticky window; the test raises mlx5_3's symbol_error three times, a second
# apart, then leaves it:
# - counters.link warns, naming the peak it holds for the check interval and the last rate;
# - counters.sticky warns, dated at the last sample that saw the burst (the held peak is no
#   burst going on), DEGRADED until 30 s after it;
# - fabtuned is restarted within the held peak: counters.link still holds it (the state
#   directory keeps it), and the burst keeps its date (not the new process's first sample);
# - the rail is never READY before that time, and is READY after it (bounded retries).
# Judged by the times the daemon itself prints, never by a tight window. Needs root
# ("fabtunectl reload" runs a check pass now).
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
[ "$(id -u)" = 0 ] || { echo "SKIP: reload needs root"; exit 77; }
daemon_scratch burst h100_ndr_ib
counter="$root/class/infiniband/mlx5_3/ports/1/counters/symbol_error"
cat > "$tmp/policy.yaml" <<EOP
version: 1
checks: {interval: 20s, counters: {interval: 1s, sticky_window: 30s}}
tuning: {mode: off}
probes: {enabled: false}
EOP
finding() {
    "$ctl" -s "$sock" --json checks |
        jq -r --arg c "$1" '.[] | select(.check == $c and .rail == "mlx5_3/1") | "\(.severity) \(.message)"'
}
verdict() { "$ctl" -s "$sock" --json status | jq -r '.rails[] | select(.name == "mlx5_3/1") | .verdict'; }
epoch() { date -u -d "$1" +%s; }

fabtuned_start
[ "$(verdict)" = READY ] && pass "READY before the burst" || fail "before the burst: $(verdict)"
[ "$(cat "$counter")" = 0 ] || fail "the fixture's symbol_error is not 0"
for n in 400 800 1200; do
    sleep 1
    echo "$n" > "$counter"
done
last_write=$(date -u +%s)
# The next samples see the last rise; a pass then judges it.
seen=""
for _ in $(seq 10); do
    sleep 1
    expect_rc 0 "$ctl" -s "$sock" reload
    observed=$(date -u +%s)
    finding counters.sticky > "$tmp/sticky"
    finding counters.link > "$tmp/link"
    grep -q 'at 2[^ ]*Z; DEGRADED until' "$tmp/sticky" && grep -q 'now 0/s' "$tmp/link" && { seen=1; break; }
done
cat "$tmp/link" "$tmp/sticky"
[ -n "$seen" ] && pass "the burst is a counters.link and a counters.sticky warning" ||
    fail "no held peak and sticky burst seen"
expect_match '^warning link at [0-9.e+]*/s (the peak of the last 20s; now 0/s), mostly symbol_error$' "$tmp/link"
expect_match '^warning the link had an error burst (symbol_error at [0-9]*/s) at [0-9T:-]*Z; DEGRADED until [0-9T:-]*Z (sticky window 30s)$' "$tmp/sticky"
at=$(sed -n 's/.* at \([0-9T:-]*Z\); DEGRADED until.*/\1/p' "$tmp/sticky")
until=$(sed -n 's/.*DEGRADED until \([0-9T:-]*Z\) .*/\1/p' "$tmp/sticky")
[ $(($(epoch "$until") - $(epoch "$at"))) -eq 30 ] && pass "the window is 30 s from the burst" ||
    fail "window $at .. $until"
# Dated when a sample last saw it: after the last write, and no later than the pass that
# showed it.
[ "$(epoch "$at")" -ge $((last_write - 1)) ] && [ "$(epoch "$at")" -le "$observed" ] &&
    pass "the burst is dated by its last sample ($at; last write $(date -u -d @"$last_write" +%T))" ||
    fail "burst dated $at, last write $(date -u -d @"$last_write" +%T)"

# A restart within the held peak (20 s from the burst's last sample; a restart takes a
# second or two): the new process holds the peak it saved, and the burst's date with it.
fabtuned_stop
fabtuned_start
expect_rc 0 "$ctl" -s "$sock" reload
finding counters.link > "$tmp/link"
finding counters.sticky > "$tmp/sticky"
cat "$tmp/link" "$tmp/sticky"
restarted=$(date -u +%s)
if [ "$restarted" -lt $(($(epoch "$at") + 18)) ]; then
    expect_match '^warning link at [0-9.e+]*/s (the peak of the last 20s; now 0/s), mostly symbol_error$' "$tmp/link"
else
    echo "note: the restart took until $(date -u -d @"$restarted" +%T); the peak's hold may be over"
fi
expect_match "^warning the link had an error burst (symbol_error at [0-9]*/s) at $at; DEGRADED until $until " "$tmp/sticky"

# The held peak expires (20 s), the window does not: the rail stays DEGRADED, and is
# READY only after the window's end. While the peak is held, every pass (a reload a
# second) keeps the burst's date: a held peak is no burst going on.
early="" ready="" moved=""
for _ in $(seq 60); do
    sleep 1
    expect_rc 0 "$ctl" -s "$sock" reload
    v=$(verdict)
    now=$(date -u +%s)
    if [ "$v" = READY ]; then
        [ "$now" -lt "$(epoch "$until")" ] && early="READY at $(date -u -d @"$now" +%T)"
        ready=1
        break
    fi
    finding counters.link > "$tmp/link"
    finding counters.sticky > "$tmp/sticky"
    grep -q '^warning ' "$tmp/sticky" &&
        ! grep -q "error burst (.*) at $at; DEGRADED until $until " "$tmp/sticky" &&
        moved="$(cat "$tmp/sticky")"
done
[ -z "$moved" ] && pass "the burst kept its date while the peak was held" || fail "moved: $moved"
[ -z "$early" ] && pass "not READY before $until" || fail "$early, before $until"
[ -n "$ready" ] && pass "READY once the window has passed" || fail "still $(verdict)"
expect_match '^ok link at 0/s$' "$tmp/link"
finding counters.sticky > "$tmp/sticky"
expect_match '^ok no flap, link down or error burst in the last 30s' "$tmp/sticky"
fabtuned_stop
finish
