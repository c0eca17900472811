#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtunectl checks as an operator reads it (issue 43, item 8), on a daemon over the 8-rail
# fixture whose probes fail (no verbs, no rail address here) and whose policy wants a ninth
# rail, so that errors, unknowns and oks of the node and of rails and rail pairs mix:
# - the findings come sorted: errors, warnings, unknowns, oks; within each, the node's own
#   first, then the rails in device order (mlx5_0/1, its pair mlx5_0/1<>mlx5_1/1, mlx5_1/1,
#   ...), as in --json;
# - the message column starts at one place on every row, probe.* rows and others alike, and
#   at the same place in checks, checks --failed and status's failing list, with the probes'
#   pairs of rails among the failing findings and without (no probes: the node's finding
#   alone fails);
# - on a node without rails, probe.regression's message does not repeat its rail
#   ("loopback loopback tcp 64" read so).
# Needs root: the daemon's socket is root's and its group's.
. "${top_srcdir:-.}/tests/lib.sh"
ctl="$top_builddir/src/client/fabtunectl"
fabtuned="$top_builddir/src/daemon/fabtuned"
[ "$(id -u)" = 0 ] || { echo "SKIP: the daemon's socket is root's"; exit 77; }
daemon_scratch checks mlx5_8rail
printf 'version: 1\nrails: {expect_count: 9}\ntuning: {mode: off}\n' > "$tmp/policy.yaml"
fabtuned_start
# until_probed: polls, bounded, until the findings hold probe.* rows.
until_probed() {
    for _ in $(seq 120); do
        "$ctl" -s "$sock" --json checks > "$tmp/c.json" 2>/dev/null &&
            jq -e 'any(.[]; .check | startswith("probe.rdma"))' "$tmp/c.json" > /dev/null && return 0
        sleep 0.5
    done
    return 1
}
until_probed && pass "the probes' findings are in" || fail "no probe finding after 60 s"

# The order: severity rank, then the node's findings (0) before the rails' (1), then the
# rail in device order, as sort -V orders names with numbers; stable, so ties keep the
# pass's order.
jq -r '.[] | "\({"error": 0, "warning": 1, "unknown": 2, "ok": 3}[.severity]) \(if .rail then "1 \(.rail)" else "0 -" end)"' \
    "$tmp/c.json" > "$tmp/order"
sort -s -k1,1n -k2,2n -k3,3V "$tmp/order" > "$tmp/sorted"
expect_same "$tmp/sorted" "$tmp/order"
[ "$(head -1 "$tmp/order")" = "0 0 -" ] && pass "the node's error (rails.count) comes first" ||
    fail "first: $(head -1 "$tmp/order")"
for want in "0 1 mlx5_0/1" "0 1 mlx5_0/1<>mlx5_1/1" "2 1 mlx5_7/1" "3 0 -"; do
    grep -qxF "$want" "$tmp/order" && pass "a row of '$want'" || fail "no row of '$want'"
done
[ "$(cut -d' ' -f1 "$tmp/order" | uniq | tr '\n' ' ')" = "0 2 3 " ] &&
    pass "errors, then unknowns, then oks" || fail "severities: $(cut -d' ' -f1 "$tmp/order" | uniq | tr '\n' ' ')"

# message_columns TEXT JSON: where each finding's message starts in the text rows (those
# that are not the details beneath), one column a line.
message_columns() {
    jq -r '.[].message' "$2" > "$tmp/messages"
    grep -v '^          ' "$1" | grep '^  [a-z]' > "$tmp/rows"
    awk 'NR == FNR { m[FNR] = $0; next } { print index($0, m[FNR]) }' "$tmp/messages" "$tmp/rows"
}
# same_columns: the message column of checks, of checks --failed and of status's failing
# list, each one place, and the same place.
same_columns() {
    "$ctl" -s "$sock" --json checks > "$tmp/c.json"
    expect_rc 0 "$ctl" -s "$sock" checks -v
    cp "$LAST_OUT" "$tmp/all.txt"
    message_columns "$tmp/all.txt" "$tmp/c.json" | sort -u > "$tmp/cols"
    [ "$(wc -l < "$tmp/cols")" = 1 ] && [ "$(cat "$tmp/cols")" -gt 30 ] &&
        pass "checks: every message starts at column $(cat "$tmp/cols")" ||
        fail "checks: messages start at columns $(tr '\n' ' ' < "$tmp/cols")"
    expect_rc 0 "$ctl" -s "$sock" checks --failed -v
    cp "$LAST_OUT" "$tmp/failed.txt"
    "$ctl" -s "$sock" --json checks --failed > "$tmp/failed.json"
    jq -e 'length > 0 and all(.[]; .severity == "error" or .severity == "warning")' "$tmp/failed.json" > /dev/null &&
        pass "--failed keeps the errors and warnings" || fail "--failed: $(jq -c '[.[].severity] | unique' "$tmp/failed.json")"
    message_columns "$tmp/failed.txt" "$tmp/failed.json" | sort -u > "$tmp/fcols"
    expect_same "$tmp/cols" "$tmp/fcols"
    expect_rc 0 "$ctl" -s "$sock" status -v
    sed -n '/^failing:$/,$p' "$LAST_OUT" | sed 1d > "$tmp/failing.txt"
    # -v: a row each, in the order of checks --failed --json (severity, node, device order)
    "$ctl" -s "$sock" --json checks --failed > "$tmp/failing.json"
    message_columns "$tmp/failing.txt" "$tmp/failing.json" | sort -u > "$tmp/scols"
    expect_same "$tmp/cols" "$tmp/scols"
}
same_columns
grep -q '^  error   probe.rdma.latency     mlx5_0/1<>mlx5_1/1 ' "$tmp/all.txt" &&
    grep -q '^  error   rails.count                               8 of 9 expected rails' "$tmp/all.txt" &&
    pass "a pair's probe row and the node's row align" || fail "rows: $(head -3 "$tmp/all.txt")"
# Folded (issue 43, item 1): without -v, the probes' failures on every rail and pair are one
# row per check naming the rails and counting the pairs, the rail's device out of the
# words; status fits in 40 lines; the deferred streams are one line.
expect_rc 0 "$ctl" -s "$sock" status
cp "$LAST_OUT" "$tmp/status.txt"
echo "# status on the 8-rail fixture: $(wc -l < "$tmp/status.txt") lines"
[ "$(wc -l < "$tmp/status.txt")" -le 40 ] && pass "status: $(wc -l < "$tmp/status.txt") lines (at most 40)" ||
    fail "status: $(wc -l < "$tmp/status.txt") lines"
expect_match '^  error   probe\.rdma\.latency  *mlx5_0\.\.7/1, 8 pairs cannot open <dev>: verbs lists no device' "$tmp/status.txt"
[ "$(grep -c '^  error   probe\.rdma\.latency ' "$tmp/status.txt")" = 1 ] && pass "status: probe.rdma.latency one row" ||
    fail "status: $(grep -c '^  error   probe\.rdma\.latency ' "$tmp/status.txt") probe.rdma.latency rows"
if grep -q '^streams deferred:$' "$tmp/status.txt"; then
    [ "$(sed -n '/^streams deferred:$/,/^[a-z]/p' "$tmp/status.txt" | grep -c '^  ')" = 1 ] &&
        pass "status: the deferred streams one line" || fail "deferred: $(sed -n '/^streams deferred:$/,/^failing/p' "$tmp/status.txt")"
fi
# What runs (issue 43, item 2): status starts with the header (the daemon's version, since
# when, not reloaded yet; the policy with its sha256 as sha256sum prints it and its tuning
# mode; the directories), --json carries it whole, the journal's first line says the same,
# and a reload adds a line and the reload's time.
digest=$(sha256sum "$tmp/policy.yaml" | cut -d' ' -f1)
short=$(echo "$digest" | cut -c1-12)
head -3 "$tmp/status.txt" > "$tmp/header"
expect_match '^fabtuned [0-9][0-9.]*, up since [0-9-]* [0-9:]* ([0-9]* [a-z]*); not reloaded$' "$tmp/header"
expect_match "^policy: $tmp/policy.yaml (sha256 $short), tuning mode off\$" "$tmp/header"
expect_match "^directories: state $tmp/state, runtime $tmp/run\$" "$tmp/header"
[ "$(head -1 "$tmp/status.txt" | cut -c1-9)" = "fabtuned " ] && pass "status starts with the header" ||
    fail "status starts: $(head -1 "$tmp/status.txt")"
"$ctl" -s "$sock" --json status | jq -r '.daemon | "\(.policy_sha256) \(.tuning_mode) \(.state_dir) \(.runtime_dir) \(.started_usec > 0) \(.last_reload_usec)"' > "$tmp/daemon"
expect_match "^$digest off $tmp/state $tmp/run true null\$" "$tmp/daemon"
grep -v '^fabtuned: debug' "$tmp/log" | head -1 > "$tmp/first"
expect_match "^fabtuned: Started: fabtuned [0-9.]*, policy $tmp/policy.yaml (sha256 $digest), tuning mode off, checks every [0-9]* s, state directory $tmp/state, runtime directory $tmp/run\$" "$tmp/first"
kill -HUP "$dpid"
for _ in $(seq 100); do grep -q '^fabtuned: Policy reloaded: ' "$tmp/log" && break; sleep 0.1; done
expect_match "^fabtuned: Policy reloaded: fabtuned [0-9.]*, policy $tmp/policy.yaml (sha256 $digest), tuning mode off" "$tmp/log"
expect_rc 0 "$ctl" -s "$sock" status
expect_match '^fabtuned [0-9.]*, up since .*; reloaded [0-9-]* [0-9:]* ([0-9]* [a-z]* ago)$' "$LAST_OUT"
expect_rc 0 "$ctl" -s "$sock" checks --failed probe.rdma.latency
[ "$(grep -c '^  error ' "$LAST_OUT")" = 1 ] && pass "checks: probe.rdma.latency folded into one row" ||
    fail "checks: $(grep -c '^  error ' "$LAST_OUT") rows"
expect_rc 0 "$ctl" -s "$sock" checks --failed -v probe.rdma.latency
[ "$(grep -c '^  error ' "$LAST_OUT")" = 16 ] && pass "checks -v: a row per rail and pair (16)" ||
    fail "checks -v: $(grep -c '^  error ' "$LAST_OUT") rows"
fabtuned_stop

# Without probes the one failing finding is the node's (no rail): its message still starts
# where the rails' rows' do.
printf 'version: 1\nrails: {expect_count: 9}\ntuning: {mode: off}\nprobes: {enabled: false}\n' > "$tmp/policy.yaml"
fabtuned_start
same_columns
fabtuned_stop

# No rails: the loopback probes run, and probe.regression learns under the rail "loopback".
printf 'version: 1\nrails: {expect_count: 0}\ntuning: {mode: off}\n' > "$tmp/policy.yaml"
rm -rf "$tmp/fx" "$tmp/state" && cp -a "$(shared_fixtures)/no_rdma" "$tmp/fx"
fabtuned_start
for _ in $(seq 120); do
    "$ctl" -s "$sock" checks probe.regression > "$tmp/reg.txt" 2>&1 && grep -q loopback "$tmp/reg.txt" && break
    sleep 0.5
done
expect_match '^  unknown probe.regression       loopback           tcp 64-byte ping-pong: learning the baseline' "$tmp/reg.txt"
finish
