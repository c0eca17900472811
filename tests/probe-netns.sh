#!/bin/sh
# SPDX-License-Identifier: ISC
# The TCP probe live in a private network namespace, bound to a rail's address on a veth.
# (The netem regression test runs in the Soft-RoCE guest: tests/guest-rxe/probe-regression.sh,
# since the CI kernel here is built without sch_netem.)
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
if [ -z "${FABTUNE_IN_NETNS:-}" ]; then
    FABTUNE_IN_NETNS=1 exec unshare -n sh "$0"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ip link set lo up

# The probe bound to a rail's address: the Soft-RoCE fixture's rail is 192.0.2.1 on v0.
fx=$(shared_fixtures)
ip link add v0 type veth peer name v1
ip addr add 192.0.2.1/24 dev v0
ip link set v0 up; ip link set v1 up
printf 'version: 1\ntuning: {mode: off}\nchecks: {interval: 1h}\n' > "$tmp/policy"
# The daemon probes the rails of its tree (a --sysfs-root is its test seam; an offline
# --once analysis of a snapshot never probes this machine).
"$fabtuned" -c "$tmp/policy" --sysfs-root "$fx/soft_roce/sys" --state-dir "$tmp/state" \
    --runtime-dir "$tmp/run" --log-target stderr 2> "$tmp/daemon.log" & dpid=$!
ctl="$top_builddir/src/client/fabtunectl"
i=0; while [ ! -S "$tmp/run/fabtuned.sock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
# The probe threads run at nice 19 (field 19 of /proc/PID/task/TID/stat, counted from the
# last ')'), read while the run goes. A run lasts a few tenths of a second, and a loaded
# machine (ASan, CI's other pass) can let one pass between two readings: bounded retries,
# a new probe-now each. The loop runs at the nice the test runs at (make check may run
# under nice).
base=$(nice)
nices=""
for _ in 1 2 3 4 5; do
    "$ctl" -s "$tmp/run/fabtuned.sock" probe-now > /dev/null 2>&1
    for _ in $(seq 200); do
        nices=$(for f in /proc/"$dpid"/task/*/stat; do sed 's/.*) //' "$f" 2>/dev/null | awk '{ print $17 }'; done | sort -n | tr '\n' ' ')
        case " $nices" in *" 19 "*) break ;; esac
        sleep 0.01
    done
    case " $nices" in *" 19 "*) break ;; esac
done
case " $nices" in
    *" $base "*"19 "*) pass "the loop at nice $base, the probe threads at nice 19 ($nices)" ;;
    *) fail "thread nice values during the probe run: '$nices' (want $base and 19)" ;;
esac
i=0
while [ $i -lt 60 ]; do
    "$ctl" -s "$tmp/run/fabtuned.sock" --json probes > "$tmp/p" 2>/dev/null &&
        jq -e '.last_run.targets[0].tcp_latency' "$tmp/p" > /dev/null 2>&1 && break
    sleep 0.5; i=$((i + 1))
done
kill "$dpid"; wait "$dpid" 2>/dev/null
jq -c '.last_run.targets[0] | {target, tcp: .tcp_latency.latency_seconds.samples,
       bw: (.tcp_bandwidth.bandwidth_bytes_per_second > 0)}' "$tmp/p" > "$tmp/t"
cat "$tmp/t"
expect_grep '{"target":"rxe0/1","tcp":1000,"bw":true}' "$tmp/t"
# No rxe0 on this machine: the RDMA probe fails, and says why, without a crash (this
# kernel has no verbs at all: ibv_get_device_list fails with ENOSYS).
jq -r '.last_run.targets[0].rdma_latency.error' "$tmp/p" > "$tmp/e"
expect_grep 'cannot open rxe0: verbs ' "$tmp/e"

# What each probe cost: the ping-pong's payload is 2 x (100 warm-up + 1000) x 64 bytes,
# the stream's what the server received; CPU and wall time each its own, both above 0.
jq -r '.last_run.targets[0] | [.tcp_latency.cost, .tcp_bandwidth.cost]
       | map("\(.bytes) \(.cpu_seconds > 0) \(.wall_seconds > 0)") | join(" ")' "$tmp/p" > "$tmp/c"
cat "$tmp/c"
expect_match '^140800 true true [1-9][0-9]* true true$' "$tmp/c"
# The run's CPU time is its probes' (the failed RDMA one's setup too).
jq -r '.last_run | (.cpu_seconds - ([.targets[0][] | objects | .cost.cpu_seconds // 0] | add)
       | fabs < 1e-9)' "$tmp/p" > "$tmp/sum"
expect_match '^true$' "$tmp/sum"

finish
