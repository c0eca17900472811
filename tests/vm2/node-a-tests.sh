#!/bin/sh
# SPDX-License-Identifier: ISC
# Node A's tests in the two-node stage (tests/vm2/node.sh runs each, bounded in time):
#   peer_tcp         A measures B over the wire through B's responder, plausibly;
#   peer_regression  a netem delay on B's NIC makes A report the path regressed within
#                    K runs, and removing it clears it;
#   peer_refused     B, without A in its probes.peers, refuses A: a per-peer finding on A,
#                    counted on B;
#   peer_killed      B's daemon killed during A's stream: a clean per-peer failure on A.
#   node-a-tests.sh NAME      (environment: top_srcdir, builddir, shared, state)
. "$top_srcdir/tests/lib.sh"
fabtuned="$builddir/src/daemon/fabtuned"
a=10.77.0.1 b=10.77.0.2 port=18516
policy="$state/a.yaml"

# ask VERB [ARG]: B's answer (its text; its rc in asked_rc), within 60 s.
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
# $1: TCP iterations, $2: the stream's length, $3: the regression ratio
write_policy() {
    cat > "$policy" <<EOP
version: 1
rails: {expect_count: 1}
tuning: {mode: off}
probes:
  rdma: {iterations: 100, bandwidth: {duration: 10ms}}
  tcp: {iterations: $1, size: 64, bandwidth: {duration: $2}}
  regression: {baseline_runs: 3, ratio: $3, consecutive: 2}
  peers: {hosts: [$a, $b], k: 1, port: $port, unreachable_degraded: 1}
EOP
}
once() { run "$fabtuned" --once --json -c "$policy" --state-dir "$1"; }
peer_finding() {
    jq -r '[.findings[] | select(.check == "probe.peer")][0] | "\(.severity) \(.rail) \(.message)"' "$LAST_OUT"
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
    stats=$(ask stats)
    [ "$(echo "$stats" | jq .sessions)" -ge 2 ] && pass "B served the sessions: $stats" ||
        fail "B's responder: $stats"
}

# The regression state machine on the path to B, with a real delay on B's NIC (netem on
# its egress: every round trip gains 200 ms, a one-way figure 100 ms). As in the one-node
# probe_regression test, the ratio is chosen from the learned baseline (ratio x p50 <= 50
# ms, at most 100; a loaded host's TCG baseline is noisy), and each run is judged from its
# own figures: warning from the 2nd bad run in a row, ok again from the 2nd good one.
test_peer_regression() {
    key="rxe0/1 tcp 64 @$b"
    learn=0
    while :; do
        learn=$((learn + 1))
        rm -rf "$state/s2"
        write_policy 10 10ms 100
        for _ in 1 2 3; do once "$state/s2"; done
        b50=$(jq -r --arg k "$key" '.[$k].p50 // 0' "$state/s2/probe-baselines.json")
        b99=$(jq -r --arg k "$key" '.[$k].p99 // 0' "$state/s2/probe-baselines.json")
        ratio=$(jq -n --argjson b "$b50" 'if $b > 0 then [0.05 / $b | floor, 100] | min else 0 end')
        echo "    learning $learn: baseline p50 $(jq -n --argjson b "$b50" '$b * 1e6 | floor') us, ratio $ratio"
        [ "$ratio" -ge 5 ] || [ $learn -ge 3 ] && break
    done
    [ "$ratio" -ge 5 ] && pass "baseline of the path learned (ratio $ratio, $learn learnings)" ||
        { fail "no usable baseline in $learn learnings"; return; }
    write_policy 10 10ms "$ratio"
    state_of() {
        jq -r --arg p "$b" '[.findings[] | select(.check == "probe.regression" and .subject == $p) | .severity][0]' "$LAST_OUT"
    }
    judge() {
        jq -r --argjson b50 "$b50" --argjson b99 "$b99" --argjson k "$ratio" '.probes.peers[0].tcp_latency.latency_seconds
            | if . == null or .p50 == null then "none"
              elif (.p50 <= $b50 * $k and .p99 <= $b99 * $k) then "good" else "bad" end' "$LAST_OUT"
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
    jq -r --arg p "$b" '[.findings[] | select(.check == "probe.regression" and .subject == $p)][0].message' "$LAST_OUT" > "$state/f"
    expect_match "^$key regressed" "$state/f"
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
    before=$(ask allow "$b, 10.77.0.9")
    once "$state/s3"
    peer_finding > "$state/f"
    expect_match "^unknown rxe0/1 $b ($b): its responder refused the session" "$state/f"
    jq -r '[.findings[] | select(.check == "probe.peers")][0] | "\(.severity) \(.message)"' "$LAST_OUT" > "$state/f"
    expect_match "^warning 1 of 1 peers unreachable ($b)" "$state/f"
    after=$(ask stats)
    [ "$(echo "$after" | jq .refused)" -ge 1 ] && [ "$(echo "$after" | jq .sessions)" = "$(echo "$before" | jq .sessions)" ] &&
        pass "B refused A and served no session: $after" || fail "B: before $before, after $after"
    ask allow "$a, $b" >/dev/null
}

test_peer_killed() {
    write_policy 50 5s 1.5
    "$fabtuned" --once --json -c "$policy" --state-dir "$state/s4" > "$state/killed.json" 2>/dev/null & apid=$!
    ask kill-when-active > /dev/null
    [ "$asked_rc" = 0 ] && pass "B's daemon was killed during a session of A's" || fail "B saw no session of A's ($asked_rc)"
    t0=$(cut -d' ' -f1 /proc/uptime)
    wait $apid; rc=$?
    secs=$(awk "BEGIN { printf \"%.1f\", $(cut -d' ' -f1 /proc/uptime) - $t0 }")
    jq -r '[.findings[] | select(.check == "probe.peer")][0] | "\(.severity) \(.message)"' "$state/killed.json" > "$state/f"
    expect_match "^unknown $b ($b): TCP stream to the peer: " "$state/f"
    [ "$rc" = 1 ] && pass "A ended $secs s after the kill (exit 1: unreachable_degraded 1)" || fail "A: exit $rc, $secs s after"
    ask start >/dev/null
}

case $1 in
    peer_tcp) test_peer_tcp ;;
    peer_regression) test_peer_regression ;;
    peer_refused) test_peer_refused ;;
    peer_killed) test_peer_killed ;;
    done) ask done >/dev/null; exit 0 ;;
    *) fail "no test $1" ;;
esac
finish
