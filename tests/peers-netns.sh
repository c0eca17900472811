#!/bin/sh
# SPDX-License-Identifier: ISC
# Peer probes between two nodes: two network namespaces joined by a veth pair, node B a
# fabtuned daemon whose responder serves its probes.peers, node A fabtuned --once probing
# its neighbour B over real TCP. Asserts:
# - A measures B (TCP ping-pong and stream through B's responder), plausibly;
# - B refuses a node outside its allowlist: a reset before anything is allocated, counted
#   and logged; A reports it as that peer's finding (unknown), and probe.peers degrades the
#   node only as probes.peers.unreachable_degraded says;
# - at max_sessions, B turns a further prober away (busy), and a session that goes silent
#   after its hello ends at session_limit;
# - B's daemon killed in the middle of A's stream: A ends with a clean per-peer failure;
# - two daemons, each the other's neighbour: each measures the other, fabtunectl probes
#   lists the path, and the metrics carry the peer label and pass promtool.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -n -m --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
tmp=$(mktemp -d /tmp/fabtune-peers.XXXXXX)
a=198.51.100.1 b=198.51.100.2 port=18516

# Node B: a network namespace of its own, held by a sleeping process.
ip link set lo up
unshare -n sleep 600 & holder=$!
bpid=
trap 'kill $bpid $holder 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ "$(readlink /proc/$holder/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break; sleep 0.02; done
ip link add v0 type veth peer name v1
ip link set v1 netns "$holder"
ip addr add "$a/24" dev v0
ip link set v0 up
inb() { nsenter -t "$holder" -n "$@"; }
inb ip link set lo up
inb ip addr add "$b/24" dev v1
inb ip link set v1 up

# $1: B's hosts (its allowlist), $2: max_sessions, $3: session_limit
policy_b() {
    cat > "$tmp/b.yaml" <<EOP
version: 1
rails: {expect_count: 0}
checks: {interval: 1h}
tuning: {mode: off}
probes:
  interval: 24h
  peers: {hosts: [$1], port: $port, max_sessions: $2, session_limit: $3}
EOP
}
# $1: unreachable_degraded, $2: the stream's duration
policy_a() {
    cat > "$tmp/a.yaml" <<EOP
version: 1
rails: {expect_count: 0}
tuning: {mode: off}
probes:
  tcp: {iterations: 200, size: 64, bandwidth: {duration: $2}}
  peers: {hosts: [$a, $b], k: 1, port: $port, unreachable_degraded: $1}
EOP
}
start_b() {
    # nsenter execs the daemon, so $! is its pid (a shell function would be a subshell).
    nsenter -t "$holder" -n "$fabtuned" -c "$tmp/b.yaml" --state-dir "$tmp/bstate" --runtime-dir "$tmp/brun" \
        --log-target stderr 2>> "$tmp/b.log" & bpid=$!
    for _ in $(seq 200); do [ -S "$tmp/brun/fabtuned.sock" ] && inb "$ctl" -s "$tmp/brun/fabtuned.sock" --json probes > "$tmp/bprobes" 2>/dev/null && jq -e .responder "$tmp/bprobes" >/dev/null && return 0; sleep 0.05; done
    return 1
}
b_stat() { inb "$ctl" -s "$tmp/brun/fabtuned.sock" --json probes | jq -r ".responder.$1"; }
# --apply: the baselines learned persist in astate (a plain --once only reads; tuning is off).
once_a() { run "$fabtuned" --once --apply --json -c "$tmp/a.yaml" --state-dir "$tmp/astate"; }
peer() { jq -r "$1" "$LAST_OUT"; }
finding() { jq -r "[.findings[] | select(.check == \"$1\")][0] | \"\(.severity) \(.message)\"" "$LAST_OUT"; }

policy_b "$a, $b" 4 5s
start_b && pass "B's responder is up ($(b_stat allowed_addresses) allowed addresses)" || fail "B did not start: $(cat "$tmp/b.log")"

# 1. A probes its one neighbour (k: 1, the next after A in the sorted list: B).
policy_a 1 200ms
once_a
[ "$(peer '.probes.peers | length')" = 1 ] && [ "$(peer '.probes.peers[0].peer')" = "$b" ] &&
    pass "A plans one path, to its neighbour B" || fail "A's plan: $(peer -c .probes.peers)"
p50=$(peer '.probes.peers[0].tcp_latency.latency_seconds.p50 * 1e6 | floor')
p99=$(peer '.probes.peers[0].tcp_latency.latency_seconds.p99 * 1e6 | floor')
gbit=$(peer '.probes.peers[0].tcp_bandwidth.bandwidth_bytes_per_second * 8 / 1e9 * 100 | floor')
[ "${p50:-0}" -ge 1 ] 2>/dev/null && [ "$p50" -le "$p99" ] && [ "$p50" -lt 50000 ] &&
    pass "TCP to B: p50 $p50 us, p99 $p99 us (ordered, under 50 ms)" ||
    fail "TCP to B: p50 '$p50' p99 '$p99': $(peer -c .probes.peers[0].tcp_latency)"
[ "${gbit:-0}" -gt 0 ] 2>/dev/null && pass "TCP stream to B: $gbit/100 Gbit/s, as B counted it" ||
    fail "no bandwidth: $(peer -c .probes.peers[0].tcp_bandwidth)"
expect_match "^ok $b (198.51.100.2): TCP p50" "$(finding probe.peer > "$tmp/f"; echo "$tmp/f")"
expect_match "^ok 0 of 1 peer unreachable" "$(finding probe.peers > "$tmp/f"; echo "$tmp/f")"
[ "$(b_stat sessions)" -ge 2 ] && pass "B served $(b_stat sessions) sessions (echo and stream)" ||
    fail "B's sessions: $(b_stat sessions)"
once_a; once_a
jq -r 'keys[]' "$tmp/astate/probe-baselines.json" > "$tmp/keys"
expect_grep "host tcp 64 @$b" "$tmp/keys"

# 1b. A neighbour whose name does not resolve: DNS, said with the name and the resolver's
# error, never "is fabtuned running on the peer" (issue 41, item 4). The resolver is one
# that answers nothing (this namespace's loopback), so no lookup leaves the test.
echo "nameserver 127.0.0.1" > "$tmp/resolv.conf"
mount --bind "$tmp/resolv.conf" /etc/resolv.conf
cat > "$tmp/dns.yaml" <<EOP
version: 1
rails: {expect_count: 0}
tuning: {mode: off}
probes:
  tcp: {iterations: 200, size: 64, bandwidth: {duration: 50ms}}
  peers: {hosts: [$a, no-such-node.invalid], k: 1, port: $port, unreachable_degraded: 1}
EOP
run "$fabtuned" --once --json -c "$tmp/dns.yaml" --state-dir "$tmp/dnsstate"
jq -r '[.findings[] | select(.check == "probe.peer")][0] | "\(.severity) \(.message)|\(.hint)"' "$LAST_OUT" > "$tmp/f"
expect_match "^unknown no-such-node.invalid: cannot resolve no-such-node.invalid: [A-Za-z].*|the peer's name did not resolve on this node: check DNS" "$tmp/f"
! grep -q "fabtuned running" "$tmp/f" && pass "a name that does not resolve is not blamed on the peer's fabtuned" ||
    fail "a DNS failure sent to the peer's fabtuned: $(cat "$tmp/f")"
umount /etc/resolv.conf

# 2. B's allowlist without A: refused (a reset, no session), counted and logged on B.
policy_b "$b, 198.51.100.9" 4 5s
kill -HUP "$bpid"
for _ in $(seq 100); do [ "$(b_stat allowed_addresses)" = 2 ] && break; sleep 0.05; done
sessions=$(b_stat sessions)
once_a
expect_match "^unknown $b (198.51.100.2): its responder refused the session" "$(finding probe.peer > "$tmp/f"; echo "$tmp/f")"
expect_match "^warning 1 of 1 peer unreachable ($b)" "$(finding probe.peers > "$tmp/f"; echo "$tmp/f")"
[ "$LAST_RC" = 1 ] && [ "$(peer .verdict)" = DEGRADED ] && pass "unreachable_degraded 1: A is DEGRADED (exit 1)" ||
    fail "exit $LAST_RC, $(peer .verdict)"
[ "$(b_stat refused)" -ge 1 ] && [ "$(b_stat sessions)" = "$sessions" ] &&
    pass "B refused A ($(b_stat refused)) and served no session" ||
    fail "B: refused $(b_stat refused), sessions $(b_stat sessions) (were $sessions)"
expect_grep "refused a probe session from ::ffff:$a: not one of probes.peers" "$tmp/b.log"
policy_a 0 200ms
once_a
expect_match "^ok 1 of 1 peer unreachable ($b)" "$(finding probe.peers > "$tmp/f"; echo "$tmp/f")"
[ "$(peer '[.findings[] | select(.check | startswith("probe.peer")) | select(.severity == "warning" or .severity == "error")] | length')" = 0 ] &&
    pass "unreachable_degraded 0: an unreachable peer is its own finding, never the node's warning" ||
    fail "a peer finding above unknown"

# 3. max_sessions 1: a session that holds the one slot (a valid echo hello, then silence)
# turns A away, and ends at session_limit. The limit is 4 s, wide enough for A's --once to
# start and reach B on a loaded machine (a 1 s limit, with a silent hello ending at it, was
# over before A's probe came, then and again under CI's load).
policy_b "$a, $b" 1 4s
kill -HUP "$bpid"
for _ in $(seq 100); do [ "$(b_stat allowed_addresses)" = 2 ] && break; sleep 0.05; done
served=$(b_stat sessions)
bash -c "exec 3<>/dev/tcp/$b/$port; printf 'FTP1\001\001\000\000\000\000\000\001' >&3; sleep 12" & hold=$!
for _ in $(seq 100); do [ "$(b_stat active)" = 1 ] && break; sleep 0.02; done
policy_a 1 200ms
once_a
expect_match "its responder serves its maximum of sessions" "$(finding probe.peer > "$tmp/f"; echo "$tmp/f")"
[ "$(b_stat busy)" -ge 1 ] && pass "B counted A as busy" || fail "busy: $(b_stat busy)"
for _ in $(seq 500); do [ "$(b_stat active)" = 0 ] && break; sleep 0.02; done
[ "$(b_stat active)" = 0 ] && [ "$(b_stat sessions)" -gt "$served" ] && kill -0 $hold 2>/dev/null &&
    pass "the silent session ended at session_limit, before its client closed" ||
    fail "active $(b_stat active), sessions $(b_stat sessions) (were $served)"
kill $hold 2>/dev/null; wait $hold 2>/dev/null

# 4. B killed during A's 5 s stream: A's run ends soon after, with the peer's stream failed.
policy_b "$a, $b" 4 30s
kill -HUP "$bpid"
for _ in $(seq 100); do [ "$(b_stat allowed_addresses)" = 2 ] && break; sleep 0.05; done
policy_a 1 5s
"$fabtuned" --once --json -c "$tmp/a.yaml" --state-dir "$tmp/astate" > "$tmp/killed.json" 2>/dev/null & apid=$!
streaming=0
for _ in $(seq 250); do
    [ "$(b_stat active)" = 1 ] && [ "$(b_stat sessions)" -ge 1 ] && { streaming=1; break; }
    sleep 0.02
done
sleep 0.5
t0=$(date +%s%N)
kill -9 "$bpid"; wait "$bpid" 2>/dev/null; bpid=
wait "$apid"; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $streaming = 1 ] && pass "A was streaming to B when B was killed" || fail "A's stream was never seen on B"
jq -r '[.findings[] | select(.check == "probe.peer")][0] | "\(.severity) \(.message)"' "$tmp/killed.json" > "$tmp/f"
expect_match "^unknown $b (198.51.100.2): TCP stream to the peer: " "$tmp/f"
[ "$rc" = 1 ] && [ $ms -lt 5000 ] && pass "A ended $ms ms after the kill (exit $rc), before its stream's 5 s" ||
    fail "A: exit $rc, $ms ms after the kill"

# 5. Both nodes run the daemon: each probes the other through the other's responder.
policy_b "$a, $b" 4 30s
start_b || fail "B did not start again"
policy_a 1 50ms
"$fabtuned" -c "$tmp/a.yaml" --state-dir "$tmp/astate2" --runtime-dir "$tmp/arun" \
    --log-target stderr 2> "$tmp/a.log" & adpid=$!
trap 'kill $bpid $adpid $holder 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
actl() { "$ctl" -s "$tmp/arun/fabtuned.sock" "$@"; }
bctl() { inb "$ctl" -s "$tmp/brun/fabtuned.sock" "$@"; }
# Each daemon's first probe run may come before the other's responder is up (a refused
# path, until the next interval): once both answer, probe-now on both, until both have
# measured the other (a bounded number of rounds).
measured() { "$@" --json probes 2>/dev/null | jq -e '.last_run.peers[0].tcp_latency.latency_seconds.p50' >/dev/null; }
for _ in $(seq 200); do actl --json probes 2>/dev/null | jq -e .responder >/dev/null && break; sleep 0.05; done
rounds=0
while [ $rounds -lt 10 ] && ! { measured actl && measured bctl; }; do
    rounds=$((rounds + 1))
    measured actl || actl probe-now >/dev/null 2>&1
    measured bctl || bctl probe-now >/dev/null 2>&1
    for _ in $(seq 50); do measured actl && measured bctl && break; sleep 0.1; done
done
measured actl && measured bctl && pass "A and B measured each other ($rounds probe-now rounds)" ||
    fail "A and B did not both measure the other in $rounds rounds"
actl probes > "$tmp/aprobes" 2>&1
# Without rails, status shows the loopback probe's figures as the probes table's rows.
actl status > "$tmp/astatus" 2>&1
expect_match '^rails: 0 (' "$tmp/astatus"
expect_match '^TARGET  *PROBE  *MIN us  *P50 us  *P99 us  *Gb/s$' "$tmp/astatus"
expect_match '^loopback  *tcp  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*$' "$tmp/astatus"
expect_match "^$b  *host  *tcp  *[0-9.]*  *[0-9.]*" "$tmp/aprobes"
expect_match "^responder: [0-9]* sessions served, 0 refused" "$tmp/aprobes"
# A learning baseline shows no base and no ratio ("-"), not "0.0/..." (issue 27 item 16).
expect_match "^host tcp 64 @$b  *learning  *-  *-/[0-9.]*  *-/[0-9.]*\$" "$tmp/aprobes"
actl --json probes | jq -r --arg k "host tcp 64 @$b" '.baselines[] | select(.key == $k) |
    "\(.state) \(.baseline_p50_seconds) \(.last_ratio) \(.regressed) \(.last_p50_seconds > 0)"' > "$tmp/f"
expect_match '^learning null null false true$' "$tmp/f"
actl metrics > "$tmp/a.prom"
if command -v promtool >/dev/null; then
    promtool check metrics < "$tmp/a.prom" > "$tmp/promtool.out" 2>&1 && [ ! -s "$tmp/promtool.out" ] &&
        pass "promtool check metrics: A's metrics are clean" ||
        { fail "promtool on A's metrics"; sed 's/^/    /' "$tmp/promtool.out"; }
else
    fail "promtool is missing (run scripts/deps-debian.sh)"
fi
expect_match "^fabtune_probe_latency_p50_seconds{target=\"host\",probe=\"tcp\",peer=\"$b\"} [0-9]" "$tmp/a.prom"
expect_match "^fabtune_probe_success{target=\"host\",probe=\"tcp\",peer=\"$b\",test=\"bandwidth\"} 1" "$tmp/a.prom"
bctl --json probes | jq -r '.last_run.peers[0] | "\(.peer) \(.tcp_latency.latency_seconds.p50 > 0)"' > "$tmp/f"
expect_match "^$a true$" "$tmp/f"
finish
