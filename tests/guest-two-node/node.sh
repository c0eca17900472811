#!/bin/sh
# SPDX-License-Identifier: ISC
# One node of the two-node stage (tests/guest-two-node/run.sh), chrooted into the host's root in its
# guest. Both nodes: the virtio NIC eth0 with 10.77.0.1 (A) or .2 (B), rxe0 on it, and
# fabtuned. B serves: its daemon's responder answers A, and it carries out A's requests
# (netem on its NIC, a policy without A or with a short session_limit, a kill, a count
# of its RDMA resources, its second rail and its routes' fix) through SHARED/cmd and
# SHARED/ack. A drives the tests and writes "PASS|FAIL name seconds" to OUTDIR/results.
# The second NIC, eth1, stays down until the last test (tests/guest-two-node/rails.sh).
#   node.sh OUTDIR SRCDIR BUILDDIR ROLE [BENCH]
set -u
out=$1 srcdir=$2 builddir=$3 role=$4 bench=${5:-0}
shared=/tmp/vm-shared
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
ulimit -l unlimited
fabtuned="$builddir/src/daemon/fabtuned" ctl="$builddir/src/client/fabtunectl"
a=10.77.0.1 b=10.77.0.2 port=18516
. "$srcdir/tests/guest-two-node/rails.sh"
now() { cut -d' ' -f1 /proc/uptime; }

case $role in a) me=$a ;; b) me=$b ;; *) echo "node.sh: role a or b, not '$role'"; exit 2 ;; esac
ip link set lo up
ip addr add "$me/24" dev eth0
ip link set eth0 up
rdma link add rxe0 type rxe netdev eth0
for _ in $(seq 100); do
    [ "$(cat /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null)" = "4: ACTIVE" ] && break
    sleep 0.1
done
echo "node $role: $(rdma link show rxe0/1), $(ip -br addr show eth0)"
tmp=$(mktemp -d)

if [ "$role" = b ]; then
    # $1: the allowlist, $2: session_limit (30s unless given), $3: the rails (1 unless given)
    policy() {
        cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: ${3:-1}}
checks: {interval: 1h}
tuning: {mode: off}
probes:
  interval: 24h
  peers: {hosts: [$1], port: $port, max_sessions: 4, session_limit: ${2:-30s}}
  light_dscp: 26        # the responder's echo answers (A's peer_rdma counts them)
EOP
    }
    policy "$a, $b"
    sock="$tmp/run/fabtuned.sock"
    start() {
        "$fabtuned" -c "$tmp/policy.yaml" --state-dir "$tmp/state" --runtime-dir "$tmp/run" \
            --log-target stderr 2>> "$out/fabtuned-b.log" & dpid=$!
        for _ in $(seq 300); do "$ctl" -s "$sock" --json probes 2>/dev/null | jq -e .responder >/dev/null && return 0; sleep 0.1; done
        return 1
    }
    # The RDMA resources of fabtuned (RDMA netlink) by its name: the pid that "rdma
    # resource" shows is the creating thread's, not the daemon's. Each listing also goes to
    # OUTDIR/rdma-resources.log.
    held() {
        rdma resource show "$1" 2>/dev/null | tee -a "$out/rdma-resources.log" | grep -cE "comm fabtuned( |\$)"
    }
    resources() {
        for kind in qp cq mr; do printf '%s %s ' $kind "$(held $kind)"; done
        printf 'active %s' "$("$ctl" -s "$sock" --json probes | jq .responder.active)"
    }
    start || { echo "node b: fabtuned did not start"; cat "$out/fabtuned-b.log"; }
    touch "$shared/b-ready"
    last=0
    # A's requests, one at a time: "ID VERB ARG" in cmd, answered "ID RC TEXT" in ack.
    for _ in $(seq 6000); do
        [ -f "$shared/cmd" ] || { sleep 0.1; continue; }
        set -- $(cat "$shared/cmd")
        [ "${1:-0}" -gt "$last" ] 2>/dev/null || { sleep 0.1; continue; }
        last=$1 verb=$2 arg=${3:-} rc=0 text=
        case $verb in
            netem-on) tc qdisc add dev eth0 root netem delay "${arg}ms"; rc=$? ;;
            netem-off) tc qdisc del dev eth0 root; rc=$? ;;
            allow) policy "$arg"; kill -HUP "$dpid"; sleep 1
                   text=$("$ctl" -s "$sock" --json probes | jq -c .responder) ;;
            limit) policy "$a, $b" "$arg"; kill -HUP "$dpid"; sleep 1
                   text=$("$ctl" -s "$sock" --json probes | jq -c .responder) ;;
            res) sleep 0.5  # sessions that just ended, reaped by the responder
                 text=$(resources) ;;
            stats) text=$("$ctl" -s "$sock" --json probes | jq -c .responder) ;;
            log) text=$(tail -n 12 "$out/fabtuned-b.log" | tr '\n' '|') ;;
            listening) text=$(ss -Hltn "sport = :$port" | awk '{ print $4 }' | sort | tr '\n' ' ') ;;
            qps) sleep 0.5   # the session's end, reaped by the responder
                 text=$(held qp) ;;
            kill-when-active)
                # A's echo session served (one more session) and its stream going.
                # "first": any session (A's RDMA one comes first in a run).
                rc=1 s0=$("$ctl" -s "$sock" --json probes | jq .responder.sessions)
                [ "$arg" = first ] && s0=-1
                for _ in $(seq 600); do
                    "$ctl" -s "$sock" --json probes | jq -e --argjson s0 "$s0" \
                        '.responder | .sessions > $s0 and .active >= 1' >/dev/null && { rc=0; break; }
                    sleep 0.05
                done
                sleep 0.3
                kill -9 "$dpid"; wait "$dpid" 2>/dev/null
                text=killed ;;
            start) start; rc=$? ;;
            rail2)  # the second rail, and the daemon restarted so that it answers on both
                if rail_up eth1 "$b2" rxe1 && policy "$a, $b, $a2, $b2" 30s 2; then
                    kill "$dpid"; wait "$dpid" 2>/dev/null; start; rc=$?
                else
                    rc=1
                fi
                text="$(rdma link show rxe1/1 | cut -d' ' -f2-4) $(ss -Hltn "sport = :$port" | awk '{ print $4 }' | sort | tr '\n' ' ')" ;;
            flush) ip neigh flush all; rc=$?; text=flushed ;;
            neigh) text=$(ip neigh | tr '\n' ';') ;;
            # ARP flux on B's side: its eth1 entry for A's second address holds the MAC
            # ARG (A's eth0's), or, without ARG, the entry is gone again.
            neigh-a2) if [ -n "$arg" ]; then ip neigh replace "$a2" lladdr "$arg" dev eth1 nud permanent
                      else ip neigh del "$a2" dev eth1; fi; rc=$?
                      text=$(ip neigh show "$a2" dev eth1) ;;
            fix) rails_fix "$b" "$b2"; rc=$?
                 text=$(ip rule | tr -s '\t ' ' ' | tr '\n' ';') ;;
            ibwl-server)    # perftest's server for A's client, side by side with fabtune
                timeout 60 ib_write_lat -d rxe0 -x 1 -s 8 -n 1000 > "$out/ib_write_lat.server" 2>&1 &
                sleep 1 ;;
            done) echo "$last 0 bye" > "$shared/ack.tmp"; mv "$shared/ack.tmp" "$shared/ack"; break ;;
            *) rc=2 text="unknown request $verb" ;;
        esac
        echo "$last $rc $text" > "$shared/ack.tmp"
        mv "$shared/ack.tmp" "$shared/ack"
    done
    kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null
    exit 0
fi

# Node A: each test is tests/guest-two-node/node-a-tests.sh NAME, bounded in time.
results="$out/results"
: > "$results"
failed=0
run_test() {
    name=$1
    t0=$(now)
    echo "=== $name"
    if timeout 300 env top_srcdir="$srcdir" builddir="$builddir" shared="$shared" state="$tmp" \
        sh "$srcdir/tests/guest-two-node/node-a-tests.sh" "$name" > "$out/$name.log" 2>&1; then
        verdict=PASS
    else
        verdict=FAIL failed=1
    fi
    sed 's/^/    /' "$out/$name.log"
    echo "$verdict $name $(awk "BEGIN { printf \"%.1f\", $(now) - $t0 }")" | tee -a "$results"
}
for _ in $(seq 1200); do [ -f "$shared/b-ready" ] && break; sleep 0.1; done
[ -f "$shared/b-ready" ] || echo "node a: B never became ready"
for t in peer_tcp peer_rdma peer_regression peer_refused peer_killed \
         cm_hello cm_no_rtu cm_flood cm_stall cm_oob_write cm_after; do run_test $t; done
# The peer RDMA probe and perftest's ib_write_lat between the same two guests, interleaved
# five times, 8-byte WRITE ping-pong, 1000 iterations; bench/ divides the medians. On
# request only (FABTUNE_VM2_BENCH=1): a measurement, not a test.
if [ "$bench" = 1 ]; then
    env top_srcdir="$srcdir" builddir="$builddir" shared="$shared" state="$tmp" out="$out" \
        sh "$srcdir/tests/guest-two-node/node-a-tests.sh" bench | tee -a "$results"
fi
# Last: it leaves both nodes with two rails and their routes changed.
run_test two_rails
env top_srcdir="$srcdir" builddir="$builddir" shared="$shared" state="$tmp" \
    sh "$srcdir/tests/guest-two-node/node-a-tests.sh" done
echo "suite done"
exit $failed
