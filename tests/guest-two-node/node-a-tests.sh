#!/bin/sh
# SPDX-License-Identifier: ISC
# Node A's tests in the two-node stage (tests/guest-two-node/node.sh runs each, bounded
# in time):
#   peer_tcp         A measures B over the wire through B's responder, plausibly;
#   peer_rdma        the same over RDMA (RDMA CM, RC WRITE ping-pong and stream), and B's
#                    session leaves no QP behind; the ping-pongs' frames carry
#                    probes.light_dscp (26) on the wire both ways (tos_capture);
#   peer_regression  a netem delay on B's NIC makes A report the path regressed within
#                    K runs, and removing it clears it;
#   peer_refused     B, without A in its probes.peers, refuses A: a per-peer finding on A,
#                    counted on B;
#   peer_killed      B's daemon killed during A's RDMA ping-pong: a clean failure, no QP left;
#                    with B's daemon gone, A's RDMA probe says nothing listens there;
#   cm_*             tests/guest-two-node/cm_attack against B's RDMA CM side, with a 3 s
#                    session_limit: bad hellos refused (cm_hello), connects never completed
#                    (cm_no_rtu), a flood past max_sessions (cm_flood), a session that stalls
#                    mid ping-pong (cm_stall), a write outside the granted buffer
#                    (cm_oob_write); each refused or ended at the limit, B's QPs, CQs and
#                    MRs as before; then, B's limit 30 s again, a real probe succeeds
#                    (cm_after);
#   two_rails        both nodes gain a second rail on the same L2 and subnet (rails.sh):
#                    stock, fabtuned names the guests' real ARP and routing faults, and
#                    in two probe runs on flushed neighbours names the flux behind RDMA
#                    failures (figures printed per path and side); with the printed fix, all four paths carry RDMA and TCP on
#                    their own NICs at both ends; an ARP-fluxed neighbour entry on A, then
#                    one on B (the way back), makes rail 2's RDMA probe fail, and fabtuned
#                    says it is the flux, with the NIC that got the bytes (issue 29: the
#                    state tworail-vm measured behind its hangs);
#   node-a-tests.sh NAME      (environment: top_srcdir, builddir, shared, state)
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/guest-two-node/rails.sh"
fabtuned="$builddir/src/daemon/fabtuned"
a=10.77.0.1 b=10.77.0.2 port=18516
policy="$state/a.yaml"

# ask VERB [ARG]: B's answer (its text; its rc in asked_rc), within 60 s. Call it with a
# redirection, never in $(...): asked_rc must reach the caller.
ask() {
    n=$(($(cat "$state/seq" 2>/dev/null || echo 0) + 1))
    echo $n > "$state/seq"
    echo "$n $1 ${2:-}" > "$shared/cmd.tmp"; mv "$shared/cmd.tmp" "$shared/cmd"
    for _ in $(seq 600); do
        if [ -f "$shared/ack" ] && set -- $(cat "$shared/ack") && [ "${1:-}" = "$n" ]; then
            asked_rc=$2; shift 2; echo "$*"; return 0
        fi
        sleep 0.1
    done
    asked_rc=timeout
    return 1
}
# $1: TCP iterations, $2: the stream's length, $3: the regression ratio, $4: RDMA
# iterations (100 unless given)
write_policy() {
    set -- "$1" "$2" "$3" "${4:-100}"
    cat > "$policy" <<EOP
version: 1
rails: {expect_count: 1}
tuning: {mode: off}
probes:
  rdma: {iterations: $4, bandwidth: {duration: 10ms}}
  tcp: {iterations: $1, size: 64, bandwidth: {duration: $2}}
  regression: {baseline_runs: 3, ratio: $3, consecutive: 2}
  peers: {hosts: [$a, $b], k: 1, port: $port, unreachable_degraded: 1}
  light_dscp: ${light_dscp:-0}
EOP
}
# --apply: the baselines persist in the state directory from run to run (a plain --once
# only reads; tuning is off, so nothing else is written).
once() { run "$fabtuned" --once --apply --json -c "$policy" --state-dir "$1"; }
peer_finding() {
    jq -r '[.findings[] | select(.check == "probe.peer")][0] | "\(.severity) \(.rail) \(.message)"' "$LAST_OUT"
}

# The RDMA probe of the path: an RC connection through the RDMA CM from rxe0's RoCE v2
# address to B's responder, then the loopback probe's WRITE ping-pong and stream. B's
# session ends with A's disconnect: no QP of B's daemon is left.
test_peer_rdma() {
    # The ping-pongs in DSCP 26 (probes.light_dscp), counted on the wire: A's eth0 frames
    # by TOS byte, through an AF_PACKET socket (tos_capture).
    light_dscp=26; write_policy 200 100ms 1.5; light_dscp=0
    "$builddir/tests/guest-two-node/tos_capture" eth0 "$port" > "$state/tos" 2>&1 & cap=$!
    for _ in $(seq 50); do grep -q capturing "$state/tos" && break; sleep 0.1; done
    once "$state/s0"
    kill -TERM "$cap"; wait "$cap"
    cat "$state/tos"
    jq -r '.probes.peers[0] | "rdma \(.rdma_latency.traffic_class) tcp \(.tcp_latency.traffic_class)"' \
        "$LAST_OUT" > "$state/tc"
    expect_match '^rdma 104 tcp 104$' "$state/tc"
    # RoCE v2: the QP's packets carry 0x68 (DSCP 26) both ways, B's answers too (its QP
    # takes the class from A's connect request); the CM's own MADs may keep another class.
    # TCP: the echo session's packets carry it both ways (B's responder sets its own
    # light_dscp, 26 in node.sh); the stream's and the links session's keep 0.
    n=$(awk '$1 == "roce" && $2 == "out" && $3 == "0x68" { print $4 }' "$state/tos")
    [ "${n:-0}" -ge 100 ] && pass "A sent $n RoCE v2 frames in DSCP 26 (tos 0x68)" ||
        fail "A's RoCE v2 frames by TOS: $(grep '^roce out' "$state/tos" | tr '\n' ' ')"
    n=$(awk '$1 == "roce" && $2 == "in" && $3 == "0x68" { print $4 }' "$state/tos")
    [ "${n:-0}" -ge 100 ] && pass "B answered in $n RoCE v2 frames in DSCP 26" ||
        fail "B's RoCE v2 frames by TOS: $(grep '^roce in' "$state/tos" | tr '\n' ' ')"
    for dir in out in; do
        n=$(awk -v d=$dir '$1 == "tcp" && $2 == d && $3 == "0x68" { print $4 }' "$state/tos")
        [ "${n:-0}" -ge 200 ] && pass "TCP $dir: $n frames in DSCP 26 (the echo session)" ||
            fail "TCP $dir frames by TOS: $(grep "^tcp $dir" "$state/tos" | tr '\n' ' ')"
    done
    n=$(awk '$1 == "tcp" && $3 == "0x00" { s += $4 } END { print s + 0 }' "$state/tos")
    [ "$n" -ge 10 ] && pass "TCP: $n frames in class 0 (the stream and links sessions)" ||
        fail "no TCP frame in class 0: $(grep '^tcp' "$state/tos" | tr '\n' ' ')"
    p50=$(jq -r '.probes.peers[0].rdma_latency.latency_seconds.p50 // 0 | . * 1e6 | floor' "$LAST_OUT")
    p99=$(jq -r '.probes.peers[0].rdma_latency.latency_seconds.p99 // 0 | . * 1e6 | floor' "$LAST_OUT")
    mbit=$(jq -r '.probes.peers[0].rdma_bandwidth.bandwidth_bytes_per_second // 0 | . * 8 / 1e6 | floor' "$LAST_OUT")
    [ "$p50" -ge 1 ] && [ "$p50" -le "$p99" ] && [ "$p50" -lt 100000 ] &&
        pass "RDMA WRITE ping-pong A to B over rxe: p50 $p50 us, p99 $p99 us" ||
        fail "RDMA A to B: $(jq -c '.probes.peers[0].rdma_latency' "$LAST_OUT")"
    [ "$mbit" -gt 0 ] && pass "RDMA WRITE stream A to B: $mbit Mbit/s" ||
        fail "no RDMA stream: $(jq -c '.probes.peers[0].rdma_bandwidth' "$LAST_OUT")"
    peer_finding > "$state/f"
    expect_match "^ok rxe0/1 $b ($b): TCP p50 .*; RDMA p50 " "$state/f"
    ask qps > "$state/ans"; qps=$(cat "$state/ans")
    [ "$asked_rc" = 0 ] && [ "$qps" = 0 ] && pass "B's daemon holds no QP once A disconnected" ||
        fail "B's daemon QPs after the session: '$qps' (rc $asked_rc)"
}

test_peer_tcp() {
    write_policy 200 100ms 1.5
    once "$state/s1"
    jq -r '.probes.peers[0] | "\(.peer) \(.rail) \(.address)"' "$LAST_OUT" > "$state/f"
    expect_match "^$b rxe0/1 $b$" "$state/f"
    p50=$(jq -r '.probes.peers[0].tcp_latency.latency_seconds.p50 // 0 | . * 1e6 | floor' "$LAST_OUT")
    p99=$(jq -r '.probes.peers[0].tcp_latency.latency_seconds.p99 // 0 | . * 1e6 | floor' "$LAST_OUT")
    mbit=$(jq -r '.probes.peers[0].tcp_bandwidth.bandwidth_bytes_per_second // 0 | . * 8 / 1e6 | floor' "$LAST_OUT")
    [ "$p50" -ge 1 ] && [ "$p50" -le "$p99" ] && [ "$p50" -lt 100000 ] &&
        pass "A to B over the wire from rxe0/1's address: TCP p50 $p50 us, p99 $p99 us" ||
        fail "A to B: p50 '$p50', p99 '$p99': $(jq -c .probes.peers "$LAST_OUT")"
    [ "$mbit" -gt 0 ] && pass "TCP stream A to B: $mbit Mbit/s, as B counted it" ||
        fail "no stream: $(jq -c '.probes.peers[0].tcp_bandwidth' "$LAST_OUT")"
    peer_finding > "$state/f"
    expect_match "^ok rxe0/1 $b ($b): TCP p50" "$state/f"
    grep -q "^ok " "$state/f" || { ask log > "$state/ans"; echo "    B's log: $(cat "$state/ans")"; }
    ask listening > "$state/ans"
    [ "$(cat "$state/ans")" = "$b:$port" ] && pass "B's responder listens on its rail's address only ($b:$port)" ||
        fail "B's responder listens on: '$(cat "$state/ans")'"
    ask stats > "$state/ans"; stats=$(cat "$state/ans")
    [ "$(echo "$stats" | jq .sessions)" -ge 2 ] && pass "B served the sessions: $stats" ||
        fail "B's responder: $stats"
}

# The regression state machine on the path to B, with a real delay on B's NIC (netem on
# its egress: every round trip gains 200 ms, a one-way figure 100 ms). As in the one-node
# probe_regression test, the ratio is chosen from the learned baseline (ratio x p50 <= 50
# ms, at most 100; a loaded host's TCG baseline is noisy), and each run is judged from its
# own figures: warning from the 2nd bad run in a row, ok again from the 2nd good one.
test_peer_regression() {
    # The baseline state's key, and what the finding's message names it (check_probes.c).
    key="rxe0/1 tcp 64 @$b" said="tcp 64-byte ping-pong to $b"
    learn=0
    while :; do
        learn=$((learn + 1))
        rm -rf "$state/s2"
        write_policy 10 10ms 100 10
        for _ in 1 2 3; do once "$state/s2"; done
        b50=$(jq -r --arg k "$key" '.[$k].p50 // 0' "$state/s2/probe-baselines.json")
        ratio=$(jq -n --argjson b "$b50" 'if $b > 0 then [0.05 / $b | floor, 100] | min else 0 end')
        echo "    learning $learn: baseline p50 $(jq -n --argjson b "$b50" '$b * 1e6 | floor') us, ratio $ratio"
        [ "$ratio" -ge 5 ] || [ $learn -ge 3 ] && break
    done
    [ "$ratio" -ge 5 ] && pass "baseline of the path learned (ratio $ratio, $learn learnings)" ||
        { fail "no usable baseline in $learn learnings"; return; }
    write_policy 10 10ms "$ratio" 10
    # The TCP path's state (the RDMA path to B has its own baseline and state).
    state_of() {
        jq -r --arg p "$b" --arg k "$said" '[.findings[] | select(.check == "probe.regression" and
            .subject == $p and (.message | startswith($k))) | .severity][0]' "$LAST_OUT"
    }
    # The run's figures against the bounds its judgement used (the state file's) and the
    # pooled p99 of the last K runs: fabtuned(8), PROBES.
    judge() {
        jq -r --arg k "$key" --slurpfile st "$state/s2/probe-baselines.json" '.probes.peers[0].tcp_latency.latency_seconds as $l
            | $st[0][$k] as $b
            | if $l == null or $l.p50 == null then "none"
              elif ($l.p50 <= $b.bound_p50 and ($l.p99 <= $b.bound_p99 or $b.pooled_p99 <= $b.bound_p99)) then "good"
              else "bad" end' "$LAST_OUT"
    }
    ask netem-on 200 >/dev/null; [ "$asked_rc" = 0 ] || fail "B could not add netem ($asked_rc)"
    bad=0 runs=0 wrong=0 s=
    while [ $runs -lt 6 ]; do
        once "$state/s2"; runs=$((runs + 1))
        j=$(judge) s=$(state_of)
        case $j in bad) bad=$((bad + 1)) ;; good) bad=0 ;; esac
        [ $bad -ge 2 ] && want=warning || want=ok
        echo "    run $runs with the delay: p50 $(jq -r '.probes.peers[0].tcp_latency.latency_seconds.p50 // 0 | . * 1e6 | floor' "$LAST_OUT") us, $j, want $want, got $s"
        [ "$s" = "$want" ] || wrong=$((wrong + 1))
        [ "$want" = warning ] && break
    done
    [ "$s" = warning ] && [ $wrong = 0 ] &&
        pass "the path to B regressed after 2 bad runs (K=2), $runs runs, each judged as its figures say" ||
        fail "with the delay: '$s' after $runs runs, $wrong judged otherwise"
    jq -r --arg p "$b" '.findings[] | select(.check == "probe.regression" and .subject == $p) | .message' "$LAST_OUT" > "$state/f"
    expect_match "^$said regressed" "$state/f"
    ask netem-off >/dev/null
    streak=0 runs=0 wrong=0
    while [ $runs -lt 10 ]; do
        once "$state/s2"; runs=$((runs + 1))
        j=$(judge) s=$(state_of)
        case $j in good) streak=$((streak + 1)) ;; bad) streak=0 ;; esac
        [ $streak -ge 2 ] && want=ok || want=warning
        echo "    run $runs without the delay: $j, want $want, got $s"
        [ "$s" = "$want" ] || wrong=$((wrong + 1))
        [ "$want" = ok ] && break
    done
    [ "$s" = ok ] && [ $wrong = 0 ] && pass "cleared after 2 good runs in a row ($runs runs)" ||
        fail "without the delay: '$s' after $runs runs, $wrong judged otherwise"
}

test_peer_refused() {
    write_policy 50 10ms 1.5
    ask allow "$b, 10.77.0.9" > "$state/ans"; before=$(cat "$state/ans")
    once "$state/s3"
    peer_finding > "$state/f"
    expect_match "^unknown rxe0/1 $b ($b): its responder refused the session" "$state/f"
    jq -r '[.findings[] | select(.check == "probe.peers")][0] | "\(.severity) \(.message)"' "$LAST_OUT" > "$state/f"
    expect_match "^warning 1 of 1 peer unreachable ($b)" "$state/f"
    ask stats > "$state/ans"; after=$(cat "$state/ans")
    [ "$(echo "$after" | jq .refused)" -ge 1 ] && [ "$(echo "$after" | jq .sessions)" = "$(echo "$before" | jq .sessions)" ] &&
        pass "B refused A and served no session: $after" || fail "B: before $before, after $after"
    ask allow "$a, $b" >/dev/null
}

# A's daemon probes B; B's daemon is killed during the RDMA ping-pong (5000 round trips,
# seconds under TCG). A's run ends with a clean failure of that path, its daemon goes on,
# and no QP of it is left on rxe0 (a leak there would grow with every run).
test_peer_killed() {
    write_policy 50 10ms 1.5 5000
    sock="$state/run4/fabtuned.sock"
    "$fabtuned" -c "$policy" --state-dir "$state/s4" --runtime-dir "$state/run4" \
        --log-target stderr 2> "$state/a4.log" & adpid=$!
    ask kill-when-active first > "$state/ans"
    [ "$asked_rc" = 0 ] && pass "B's daemon was killed during A's RDMA session" ||
        fail "B saw no session of A's ($asked_rc)"
    for _ in $(seq 300); do
        "$builddir/src/client/fabtunectl" -s "$sock" --json probes 2>/dev/null |
            jq -e '.last_run.peers[0].rdma_latency.error' > "$state/err" 2>/dev/null && break
        sleep 0.1
    done
    [ -s "$state/err" ] && pass "A's RDMA path to B failed cleanly: $(cat "$state/err")" ||
        fail "A's run did not end with an RDMA failure: $("$builddir/src/client/fabtunectl" -s "$sock" --json probes | jq -c .last_run.peers)"
    # By command name: rdma's pid column is the creating thread's (the probe thread's, gone
    # by now), never the daemon's pid. A's daemon is the only fabtuned here now; idle, its
    # responder holds no QP. Bounded: the run's teardown may still be under way.
    for _ in $(seq 20); do
        qps=$(rdma resource show qp 2>/dev/null | grep -cE "comm fabtuned( |\$)")
        [ "$qps" = 0 ] && break
        sleep 0.5
    done
    [ "$qps" = 0 ] && pass "no QP of A's daemon left after the failed run" ||
        { fail "$qps QPs of A's daemon left"; rdma resource show qp; }
    kill -0 "$adpid" && pass "A's daemon is still running" || fail "A's daemon died"
    kill "$adpid"; wait "$adpid"
    # B's daemon is gone: its connection manager, not a responder, rejects A's request (no
    # listener, "invalid service id"), and A says so rather than blame B's allowlist.
    write_policy 10 10ms 1.5 10
    once "$state/s4b"
    jq -r '.probes.peers[0].rdma_latency.error // "none"' "$LAST_OUT" > "$state/f"
    expect_match "^nothing listens on its port (is fabtuned running there, with probes.peers?)" "$state/f"
    ask start > /dev/null
}

# The CM attacks. B's session_limit is 3 s; each attack's sessions must be over (B
# active 0) within the limit and a margin for TCG, with B's RDMA resources as before.
limit=3 margin=4
attack="$builddir/tests/guest-two-node/cm_attack"
resources() { ask res > "$state/res"; sed 's/ active.*//' "$state/res"; }
# res_back WHAT: waits (bounded) for B to hold what it held before the attacks, no session
# active; passes or fails with both counts and the seconds it took.
res_back() {
    t0=$(now) before=$(cat "$state/res-before")
    for _ in $(seq 20); do
        ask res > "$state/res"
        [ "$(cat "$state/res")" = "$before active 0" ] && break
        [ "$(awk "BEGIN { print ($(now) - $t0 > $limit + $margin) }")" = 1 ] && break
        sleep 0.5
    done
    after=$(cat "$state/res")
    [ "$after" = "$before active 0" ] &&
        pass "$1: B back to $before (before the attack: $before) after $(awk "BEGIN { printf \"%.1f\", $(now) - $t0 }") s" ||
        fail "$1: B holds '$after', before the attack '$before'"
}
now() { cut -d' ' -f1 /proc/uptime; }
# A real probe of B, $1 RDMA iterations (100 unless given): the first one registers B's
# session memory, the baseline of the counts.
real_probe() {
    write_policy 50 10ms 1.5 "${1:-100}"
    once "$state/s6"
    peer_finding > "$state/f"
    expect_match "^ok rxe0/1 $b ($b): TCP p50 .*; RDMA p50 " "$state/f"
}

test_cm_hello() {
    ask limit "${limit}s" > /dev/null
    [ "$asked_rc" = 0 ] && pass "B's session_limit is ${limit}s" || fail "B could not take the limit ($asked_rc)"
    real_probe 10       # short: each session of it ends at B's limit too
    # B tears the probe's last session down after A's --once has returned: wait (bounded,
    # B's limit and a margin) for its QP and CQ to go before taking the baseline.
    for _ in $(seq 40); do
        resources > "$state/res-before"
        grep -qE '^qp 0 cq 0 ' "$state/res-before" && break
        sleep 0.5
    done
    grep -qE '^qp 0 cq 0 mr [1-9]' "$state/res-before" &&
        pass "B's resources with no session: $(cat "$state/res-before") (its session memory seen)" ||
        fail "B's resources with no session: $(cat "$state/res-before")"
    ask stats > "$state/ans"; bad0=$(jq .bad_hello "$state/ans")
    for kind in empty truncated size rounds garbage; do
        "$attack" $b $port hello $kind > "$state/out" 2>&1
        expect_match "^hello $kind: rejected$" "$state/out"
    done
    ask stats > "$state/ans"; bad=$(jq .bad_hello "$state/ans")
    [ "$bad" -eq $((bad0 + 5)) ] && pass "B counted 5 bad hellos and served none: $(cat "$state/ans")" ||
        fail "B's bad hellos $bad0 -> $bad: $(cat "$state/ans")"
    res_back "bad hellos"
}

# Four connects that never complete: B accepts them (4 slots), sends its REP and never
# gets the RTU. They end at the limit, the attacker still holding them.
test_cm_no_rtu() {
    "$attack" $b $port no-rtu 4 60 > "$state/out" 2>&1 & apid=$!
    for _ in $(seq 60); do grep -q '^responses' "$state/out" && break; sleep 0.5; done
    cat "$state/out"
    expect_match "^responses 4, busy 0, other 0$" "$state/out"
    ask res > "$state/res"; echo "    B during the attack: $(cat "$state/res")"
    res_back "connects without RTU"
    kill $apid 2>/dev/null && pass "the attacker still held its connects" || fail "the attacker ended first"
    wait $apid
    res_back "connects without RTU, attacker gone"
}

# Six full connections, held silent: four are served, two refused busy; the four end at
# the limit (B disconnects them).
test_cm_flood() {
    "$attack" $b $port flood 6 $((limit + margin + 4)) > "$state/out" 2>&1
    cat "$state/out"
    expect_match "^established 4, busy 2, other 0$" "$state/out"
    secs=$(sed -n 's/^ended 4 of 4, the last \([0-9.]*\) s.*/\1/p' "$state/out")
    [ -n "$secs" ] && [ "$(awk "BEGIN { print ($secs >= $limit - 0.5 && $secs <= $limit + $margin) }")" = 1 ] &&
        pass "B ended the flood's 4 sessions at its limit: the last after $secs s (limit $limit s)" ||
        fail "the flood's sessions: '$(tail -1 "$state/out")' (limit $limit s)"
    res_back "flood"
}

# A session that answers 5 round trips of the 1000 its hello announced, then nothing.
test_cm_stall() {
    "$attack" $b $port stall 5 $((limit + margin + 4)) > "$state/out" 2>&1
    cat "$state/out"
    expect_match "^round trips 5 of 1000 (ok), then silence$" "$state/out"
    secs=$(sed -n 's/^ended 1 of 1, the last \([0-9.]*\) s.*/\1/p' "$state/out")
    [ -n "$secs" ] && [ "$(awk "BEGIN { print ($secs <= $limit + $margin) }")" = 1 ] &&
        pass "B ended the stalled session $secs s after its last answer (limit $limit s)" ||
        fail "the stalled session: '$(tail -1 "$state/out")' (limit $limit s)"
    res_back "stall"
}

# The accept grants 64 KiB of B's memory; a write past it, into another session's
# buffer, must fail with a remote access error.
test_cm_oob_write() {
    "$attack" $b $port oob-write > "$state/out" 2>&1
    cat "$state/out"
    expect_match "^write past the granted buffer: remote access error$" "$state/out"
    res_back "write past the buffer"
}

# B's usual limit again (its responder restarts: its session memory is registered anew by
# the first session), then a real probe, 100 RDMA round trips.
test_cm_after() {
    ask stats > "$state/ans"
    echo "    B's responder after the attacks: $(cat "$state/ans")"
    ask limit 30s > /dev/null
    real_probe
    res_back "after the attacks, a real probe"
}

# route.* findings of the report $REPORT, "CHECK RAIL SEVERITY" (and SUBJECT, for
# isolation). expect_rc and run overwrite LAST_OUT: each report is copied there first.
REPORT="$state/report.json"
routes_seen() {
    jq -r '.findings[] | select(.check | startswith("route.")) |
        "\(.check) \(.rail) \(.severity)\(if .check == "route.isolation" then " " + .subject else "" end)"' \
        "$REPORT" | sort
}
# One side of a path's leg: "NETDEV BYTES OTHER_NETDEV OTHER_BYTES VERDICT PAYLOAD COUNTER".
#   leg_side RAIL PEER TRANSPORT SIDE
leg_side() {
    jq -r --arg r "$1" --arg p "$2" --arg t "$3" --arg s "$4" '.probes.peers[] |
        select(.rail == $r and .peer == $p) | .isolation[$t] | . as $l | .[$s] |
        "\(.netdev) \(.bytes) \(.other_netdev // "-") \(.other_bytes // 0) \(.verdict) " +
        "\(if $s == "sent" or $s == "peer_received" then $l.out_bytes else $l.back_bytes end) \(.counter)"' "$REPORT"
}

# flux_judged LABEL ERROR_RE MESSAGE TCP_SIDE: the report $REPORT of a run with one
# fluxed neighbour entry on rail 2's path to $b2 names it: that path fails
# route.isolation and rail 1's to $b passes; the RDMA probe's error ("ERROR | WAY MAC
# NETDEV_OF_MAC") matches ERROR_RE, the finding holds MESSAGE, and the TCP leg's TCP_SIDE
# counted the bytes on eth0, not eth1.
flux_judged() {
    routes_seen > "$state/f"; sed "s/^/    $1: /" "$state/f"
    expect_match "^route.isolation rxe1/1 error $b2\$" "$state/f"
    expect_match "^route.isolation rxe0/1 ok $b\$" "$state/f"
    jq -r --arg p "$b2" '.probes.peers[] | select(.rail == "rxe1/1" and .peer == $p) | .isolation.arp_flux as $f |
        "\(.rdma_latency.error // "none") | \($f.way) \($f.neighbour_mac) \($f.peer_netdev_of_mac // $f.own_netdev_of_mac)"' \
        "$REPORT" > "$state/s"
    expect_match "$2" "$state/s"
    jq -r --arg p "$b2" '.findings[] | select(.check == "route.isolation" and .rail == "rxe1/1" and .subject == $p) |
        .message' "$REPORT" > "$state/m"
    expect_grep "$3" "$state/m"
    leg_side rxe1/1 "$b2" tcp "$4" > "$state/s"
    read -r nd bytes other obytes verdict payload counter < "$state/s"
    [ "$nd $other $verdict" = "eth1 eth0 elsewhere" ] && [ "$obytes" -ge "$payload" ] && [ "$payload" -gt 0 ] &&
        pass "$1: rail 2's TCP bytes ($4) counted on eth0 ($obytes B of $payload), not eth1 ($bytes B)" ||
        fail "$1: TCP $4: $(cat "$state/s")"
}

test_two_rails() {
    ask rail2 > "$state/ans"
    [ "$asked_rc" = 0 ] && pass "B's second rail and its responder: $(cat "$state/ans")" ||
        { fail "B's second rail: rc $asked_rc: $(cat "$state/ans")"; return; }
    rail_up eth1 "$a2" rxe1 && pass "A's second rail: $(rdma link show rxe1/1 | cut -d' ' -f2-4)" ||
        { fail "A's second rail did not come up"; return; }
    cat > "$policy" <<EOP
version: 1
rails: {expect_count: 2}
tuning: {mode: off}
probes:
  rdma: {iterations: 100, bandwidth: {duration: 10ms}}
  tcp: {iterations: 100, size: 64, bandwidth: {duration: 50ms}}
  peers: {hosts: [$b, $b2], k: 2, port: $port, unreachable_degraded: 0}
EOP
    # Stock: the guest kernel's own sysctls and routes, read by the routes source.
    run "$fabtuned" --once --json --no-probes -c "$policy" --state-dir "$state/s6"
    cp "$LAST_OUT" "$REPORT"
    routes_seen > "$state/f"; sed 's/^/    stock: /' "$state/f"
    for want in "route.arp rxe0/1 error" "route.arp rxe1/1 error" "route.subnets rxe0/1 error" \
                "route.subnets rxe1/1 error" "route.egress rxe0/1 ok" "route.egress rxe1/1 error"; do
        expect_match "^$want\$" "$state/f"
    done
    jq -r '.findings[] | select(.check == "route.egress" and .rail == "rxe1/1") | .message' "$REPORT" > "$state/m"
    expect_match "^packets from $a2 to 10\.77\.0\.[24] (and 1 more of 2) leave by eth0, not eth1" "$state/m"

    # Stock, probed: both nodes forget their neighbours, then all four paths; twice. The
    # flux is a race of two ARP answers, so a path fails or not as it falls. fabtuned reads
    # the rail's entry when the QP connects (a real HCA keeps that MAC for the QP's life)
    # and the peer's entry after the probe; rxe resolves the neighbour per packet, so an
    # entry that flips during a run and back before those readings fails the run unseen.
    # What must hold: a failure carries its error, and some failure is named the flux.
    failed=0 named=0
    for round in 1 2; do
        ask flush > /dev/null; ip neigh flush all
        once "$state/s6"
        cp "$LAST_OUT" "$REPORT"
        jq -r '.probes.peers[] | "\(.rail) \(.peer) " + ([.isolation.rdma // {} | .[]? |
            objects | .verdict] | map(select(. == "elsewhere")) | length | tostring) + " " +
            (.rdma_latency.error // "ok" | gsub(" "; "_"))' "$REPORT" > "$state/p"
        while read -r r p elsewhere err; do
            if [ "$err" = ok ]; then
                echo "    stock $round: $r to $p over RDMA passed"
                continue
            fi
            failed=$((failed + 1))
            if [ "${err#ARP_flux}" != "$err" ] || [ "$elsewhere" -gt 0 ]; then
                named=$((named + 1))
                echo "    stock $round: $r to $p over RDMA failed, named: $(echo "$err" | tr _ ' ' | cut -c1-90) ($elsewhere side(s) elsewhere)"
            else
                echo "    stock $round: $r to $p over RDMA failed, not named: $(echo "$err" | tr _ ' ')"
                echo "    A's neighbours: $(ip neigh | tr '\n' ';')"
                echo "    B's neighbours: $(ask neigh)"
            fi
        done < "$state/p"
        grep -c . "$state/p" > "$state/n"; expect_match '^4$' "$state/n"
        routes_seen | grep '^route.isolation' | sed "s/^/    stock $round: /"
        # Where each path's bytes went (netdev +bytes, busiest other +bytes; payload).
        jq -r '.probes.peers[] | . as $e | ["rdma", "tcp"][] as $t | $e.isolation[$t] // empty |
            . as $l | "    stock '"$round"': \($e.rail) \($e.peer) \($t) out \($l.out_bytes) back \($l.back_bytes): " +
            ([["sent", "peer_received", "peer_sent", "received"][] as $s | .[$s] // empty |
              "\($s) \(.netdev) +\(.bytes) (\(.other_netdev // "-") +\(.other_bytes // 0))"] | join(", "))' "$REPORT"
    done
    [ "$failed" = 0 ] || [ "$named" -gt 0 ] &&
        pass "stock: $failed of 8 RDMA probes failed, $named named as ARP flux" ||
        fail "stock: $failed of 8 RDMA probes failed, none named as ARP flux"

    # The fix on both nodes; then every path of the four, both transports.
    ask fix > "$state/ans"
    [ "$asked_rc" = 0 ] && rails_fix "$a" "$a2" && pass "the fix on both nodes (B: $(cat "$state/ans"))" ||
        { fail "the fix: B rc $asked_rc"; return; }
    once "$state/s6"
    cp "$LAST_OUT" "$REPORT"
    routes_seen > "$state/f"; sed 's/^/    fixed: /' "$state/f"
    expect_rc 1 grep -v " ok" "$state/f"
    grep -c "^route.isolation .* ok " "$state/f" > "$state/n"; expect_match '^4$' "$state/n"
    for path in rxe0/1:eth0:$b:eth0 rxe0/1:eth0:$b2:eth1 rxe1/1:eth1:$b:eth0 rxe1/1:eth1:$b2:eth1; do
        IFS=: read -r r own p theirs <<EOR
$path
EOR
        for side in sent:$own peer_received:$theirs peer_sent:$theirs received:$own; do
            leg_side "$r" "$p" rdma "${side%%:*}" > "$state/s"
            # rxe has no port counters (no counters/ under its port): the netdev counts RoCE.
            read -r nd bytes other obytes verdict payload counter < "$state/s"
            [ "$nd $verdict $counter" = "${side#*:} right netdev" ] && [ "$payload" -gt 0 ] && [ "$bytes" -ge "$payload" ] &&
                pass "fixed: $r to $p over RDMA, ${side%%:*}: ${side#*:} counted $bytes B of $payload (busiest other: $other $obytes B)" ||
                fail "fixed: $r to $p over RDMA, ${side%%:*}: $(cat "$state/s")"
        done
    done

    # ARP flux: A's eth1 entry for B's second address holds B's eth0 MAC, as the flux
    # leaves it when B's eth0 answers the ARP request first.
    b_eth0=52:54:00:fa:b0:0b
    ip neigh replace "$b2" lladdr "$b_eth0" dev eth1 nud permanent
    t0=$(cut -d' ' -f1 /proc/uptime)
    once "$state/s6"
    cp "$LAST_OUT" "$REPORT"
    echo "    the probe run with the flux took $(awk "BEGIN { print $(cut -d' ' -f1 /proc/uptime) - $t0 }") s"
    flux_judged flux "^ARP flux: eth1's entry for $b2 is the peer's eth0 MAC, not its eth1's .* | out $b_eth0 eth0\$" \
        "ARP flux: this node's neighbour entry for $b2 on eth1 holds $b_eth0, the MAC of the peer's eth0, not of its eth1" \
        peer_received
    ip neigh del "$b2" dev eth1

    # ARP flux on the way back: B's eth1 entry for A's second address holds A's eth0 MAC.
    # A's own entry is right; only B's links answer shows the fault.
    a_eth0=52:54:00:fa:b0:0a
    ask neigh-a2 "$a_eth0" > "$state/ans"
    [ "$asked_rc" = 0 ] && pass "B's eth1 entry for $a2: $(cat "$state/ans")" ||
        { fail "B's wrong entry: rc $asked_rc: $(cat "$state/ans")"; return; }
    once "$state/s6"
    cp "$LAST_OUT" "$REPORT"
    ask neigh-a2 > /dev/null
    flux_judged "flux back" "^ARP flux on the way back: the peer's eth1 entry for eth1's address is this node's eth0 MAC .* | back $a_eth0 eth0\$" \
        "ARP flux on the way back: the peer's neighbour entry on its eth1 for this node's eth1 address holds $a_eth0, the MAC of this node's eth0, not of its eth1" \
        received
}

bench() {
    write_policy 10 10ms 1.5 1000
    : > "$out/bench.fabtune"; : > "$out/bench.perftest"
    for run in 1 2 3 4 5; do
        once "$state/s5"
        jq -r '.probes.peers[0].rdma_latency.latency_seconds | "\(.p50 * 1e6) \(.p99 * 1e6)"' "$LAST_OUT" >> "$out/bench.fabtune"
        ask ibwl-server > /dev/null
        # columns: #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
        timeout 60 ib_write_lat -d rxe0 -x 1 -s 8 -n 1000 $b 2>&1 |
            awk '$1 == 8 && NF >= 9 { print $5, $8 }' >> "$out/bench.perftest"
    done
    median() { awk -v k="$2" '{ print $k }' "$1" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "none" }'; }
    echo "BENCH peer_rdma_latency_8B runs=5 fabtune_p50_us=$(median "$out/bench.fabtune" 1)" \
         "fabtune_p99_us=$(median "$out/bench.fabtune" 2)" \
         "ib_write_lat_t_typical_us=$(median "$out/bench.perftest" 1)" \
         "ib_write_lat_p99_us=$(median "$out/bench.perftest" 2)"
}

case $1 in
    bench) bench; exit 0 ;;
    peer_tcp) test_peer_tcp ;;
    peer_rdma) test_peer_rdma ;;
    peer_regression) test_peer_regression ;;
    peer_refused) test_peer_refused ;;
    peer_killed) test_peer_killed ;;
    cm_hello|cm_no_rtu|cm_flood|cm_stall|cm_oob_write|cm_after|two_rails) test_$1 ;;
    done) ask done >/dev/null; exit 0 ;;
    *) fail "no test $1" ;;
esac
finish
