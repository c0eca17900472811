#!/bin/sh
# SPDX-License-Identifier: ISC
# probes.defer on a live rail (a veth in a private netns, tests/lib.sh's live_veth_rail):
#  1. a background load on the rail (UDP datagrams out of v0, to a static neighbour) defers
#     the TCP stream, "rail busy N Gbit/s", while the TCP ping-pong goes on;
#  2. probe-now forces the stream; the next run keeps that figure, stale, with its age;
#  3. the load stops: the stream runs again once the rail has been quiet for the hold time;
#  4. a Slurm job in the cgroup tree defers it ("job 1234 running"), and its end lets it run.
#     The tree is a fixture under the rail's sysfs root, laid out as Slurm's cgroup/v2
#     plugin makes it: fs/cgroup/system.slice/slurmstepd.scope/job_<id>/step_<id>. Then a
#     fixture slurmstepd process under --procfs-root ("slurmstepd: [5678.batch]"), as
#     without Slurm's cgroups; tests/fleet-slurm.sh does it with a real srun.
#  5. probes.defer.jobs: false ignores the job.
#  6. probes.defer.light_bytes: under the load, a TCP ping-pong over the budget (1000 x 1 KiB
#     x 2: 2 MB, over 1 MiB) waits as the stream does, keeping its figure, stale, and ageing;
#     probe-now forces it; the light one (100 x 64 B) runs on the same busy rail.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -n -m --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
udp_send="$top_builddir/tests/udp_send"
tmp=$(mktemp -d)
dpid= lpid=
cleanup() {
    for p in $lpid $dpid; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
live_veth_rail "$tmp"
# Datagrams to a static neighbour leave through v0 (its tx_bytes), without an ARP.
ip neigh add 192.0.2.9 lladdr 02:00:00:00:00:09 dev v0 nud permanent
load_start() { "$udp_send" 192.0.2.1 192.0.2.9 v0 2000000000 > /dev/null 2>&1 & lpid=$!; }
load_stop() { kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null; lpid=; }

# $1: probes.defer.jobs; $2: the TCP ping-pong's iterations and $3 its size (100 x 64 B,
# 12.8 kB, unless given)
policy() {
    cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 1}
checks: {interval: 1h, counters: {interval: 1s}}
tuning: {mode: off}
probes:
  interval: 1s
  rdma: {iterations: 10}
  tcp: {iterations: ${2:-100}, size: ${3:-64}, bandwidth: {duration: 50ms}}
  defer: {busy_gbps: 0.01, hold: 3s, jobs: $1}
EOP
}
policy true
unlimited_proc "$tmp/proc"
sock="$tmp/run/fabtuned.sock"
load_start
"$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" --procfs-root "$tmp/proc" --state-dir "$tmp/state" \
    --runtime-dir "$tmp/run" --log-target stderr 2> "$tmp/log" & dpid=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
# The target's TCP results, as one line: the stream's deferral, staleness and figure; the
# ping-pong's samples and age.
tcp() {
    "$ctl" -s "$sock" --json probes 2>/dev/null | jq -r '.last_run.targets[0] |
        "\(.tcp_bandwidth.deferred) stale=\(.tcp_bandwidth.stale) bw=\((.tcp_bandwidth.bandwidth_bytes_per_second // 0) > 0) lat=\(.tcp_latency.latency_seconds.samples) age=\(.tcp_latency.age_seconds // 99 | floor)"'
}
# Polls (0.25 s apart, at most $2 tries) until tcp's line matches the regex $1.
wait_tcp() {
    for _ in $(seq "$2"); do
        tcp > "$tmp/tcp"
        grep -q -- "$1" "$tmp/tcp" && return 0
        sleep 0.25
    done
    return 1
}
# The TCP ping-pong's own line: its deferral, staleness, samples and age.
tcp_lat() {
    "$ctl" -s "$sock" --json probes 2>/dev/null | jq -r '.last_run.targets[0].tcp_latency |
        "\(.deferred) stale=\(.stale) lat=\(.latency_seconds.samples) age=\(.age_seconds // 99 | floor)"'
}
wait_tcp_lat() {
    for _ in $(seq "$2"); do
        tcp_lat > "$tmp/lat"
        grep -Eq -- "$1" "$tmp/lat" && return 0
        sleep 0.25
    done
    return 1
}

# 1. Busy: the stream waits, the ping-pong runs.
wait_tcp '^rail busy [0-9.]* Gbit/s stale=false bw=false lat=100 age=[0-2]$' 80 &&
    pass "under load: $(cat "$tmp/tcp")" || { fail "no deferral under load: $(cat "$tmp/tcp")"; tail "$tmp/log"; }
"$ctl" -s "$sock" probes > "$tmp/text"
expect_match '^rxe0/1 *tcp .* deferred: rail busy [0-9.]* Gbit/s$' "$tmp/text"
"$ctl" -s "$sock" status > "$tmp/status"
# (the ping-pong's and the stream's waits for one reason, with no figure yet, are one line)
expect_match '^  rxe0/1 \(rdma+\)\{0,1\}tcp  deferred: rail busy [0-9.]* Gbit/s$' "$tmp/status"

# 2. probe-now streams all the same; the timer's next run keeps its figure, stale. (The
# rail was busy since before the daemon started: any figure is the forced run's. Its fresh
# result may last less than a poll, before the next timer run.)
# (A timer's run going answers EBUSY: try again.) Up to 3 forced runs: on a loaded ASan
# pass, the flood out of v0 once starved the forced stream ("the server received nothing").
forced=0
for try in 1 2 3; do
    for _ in $(seq 50); do "$ctl" -s "$sock" probe-now > /dev/null 2>&1 && break; sleep 0.1; done
    wait_tcp 'bw=true lat=100' 40 && { forced=$try; break; }
    echo "    forced run $try: $(cat "$tmp/tcp"): $("$ctl" -s "$sock" --json probes | jq -r '.. | objects | select(.error? != null) | .error' | head -3 | tr '\n' ';')"
done
[ "$forced" != 0 ] && pass "probe-now forces the stream (run $forced): $(cat "$tmp/tcp")" ||
    fail "probe-now: $(cat "$tmp/tcp")"
wait_tcp '^rail busy [0-9.]* Gbit/s stale=true bw=true lat=100' 40 &&
    pass "the forced figure, stale: $(cat "$tmp/tcp")" || fail "no stale figure: $(cat "$tmp/tcp")"
"$ctl" -s "$sock" status > "$tmp/status"
expect_match '^  rxe0/1 tcp [0-9.]* Gb/s  stale, [0-9]* s old; deferred: rail busy ' "$tmp/status"
"$ctl" -s "$sock" probes > "$tmp/text"
expect_match '^rxe0/1 *tcp .* [0-9][0-9.]*  stale, [0-9]* s old; deferred: rail busy ' "$tmp/text"
# The metrics say so too: deferred, and the bandwidth figure's age.
"$ctl" -s "$sock" metrics > "$tmp/prom"
expect_match '^fabtune_probe_deferred{.*netdev="v0",probe="tcp"} 1$' "$tmp/prom"
expect_match '^fabtune_probe_age_seconds{.*netdev="v0",probe="tcp",test="bandwidth"} [0-9]' "$tmp/prom"
if command -v promtool > /dev/null; then
    promtool check metrics < "$tmp/prom" > "$tmp/promtool.out" 2>&1 && [ ! -s "$tmp/promtool.out" ] &&
        pass "promtool check metrics: clean" || { fail "promtool"; sed 's/^/    /' "$tmp/promtool.out"; }
fi

# 3. Quiet again: the stream resumes after the hold time (3 s), not before.
t0=$(date +%s%3N)
load_stop
if wait_tcp '^null stale=false bw=true lat=100' 120; then
    ms=$(( $(date +%s%3N) - t0 ))
    [ "$ms" -ge 2000 ] && pass "the stream resumed ${ms} ms after the load stopped (hold 3 s)" ||
        fail "the stream resumed after ${ms} ms, before the hold time"
else
    fail "the stream did not resume: $(cat "$tmp/tcp")"
fi

# 4. A Slurm job holds the node: deferred, with the last figure kept; its end lifts that.
job="$root/fs/cgroup/system.slice/slurmstepd.scope/job_1234"
mkdir -p "$job/step_0" "$job/step_batch"
wait_tcp '^job 1234 running stale=true bw=true lat=100 age=[0-2]$' 40 &&
    pass "a job runs: $(cat "$tmp/tcp")" || fail "no deferral for the job: $(cat "$tmp/tcp")"
rm -rf "$root/fs/cgroup/system.slice/slurmstepd.scope/job_1234"
wait_tcp '^null stale=false bw=true lat=100' 40 && pass "the job ended: $(cat "$tmp/tcp")" ||
    fail "not resumed after the job: $(cat "$tmp/tcp")"

# Without Slurm's cgroups (cgroup v1, proctrack/pgid): a slurmstepd among the processes
# (--procfs-root), its step in its title as slurmstepd sets it.
mkdir -p "$tmp/proc/4242"
echo slurmstepd > "$tmp/proc/4242/comm"
printf 'slurmstepd: [5678.batch]\0\0\0' > "$tmp/proc/4242/cmdline"
mkdir -p "$tmp/proc/4243"
echo sh > "$tmp/proc/4243/comm"
printf 'slurmstepd: [9999.0]\0' > "$tmp/proc/4243/cmdline"      # not a slurmstepd
wait_tcp '^job 5678 running stale=true bw=true lat=100 age=[0-2]$' 40 &&
    pass "a slurmstepd runs: $(cat "$tmp/tcp")" || fail "no deferral for the slurmstepd: $(cat "$tmp/tcp")"
rm -rf "$tmp/proc/4242"
wait_tcp '^null stale=false bw=true lat=100' 40 && pass "the slurmstepd ended: $(cat "$tmp/tcp")" ||
    fail "not resumed after the slurmstepd: $(cat "$tmp/tcp")"

# 5. probes.defer.jobs: false: a job defers nothing.
policy false
kill -HUP "$dpid"
sleep 0.5
mkdir -p "$job/step_0"
sleep 2.5
wait_tcp '^null stale=false bw=true lat=100 age=[0-1]$' 20 && pass "jobs: false: $(cat "$tmp/tcp")" ||
    fail "jobs: false still defers: $(cat "$tmp/tcp")"

# 6. probes.defer.light_bytes (default 1 MiB). Under the load, a TCP ping-pong of 1000 x
# 1 KiB (2 MB both ways) is intensive: it waits with the stream, for the same reason. The
# figure it keeps is one of its own size (1000 samples, from a run before the load rose),
# going stale, or none: never the 64-byte one of before the reload (issue 41 item 10: it
# was carried, stale, under the new size, as "lat=100").
rm -rf "$job"
load_start
policy false 1000 1024
kill -HUP "$dpid"
wait_tcp_lat '^rail busy [0-9.]* Gbit/s (stale=true lat=1000 age=([4-9]|[1-9][0-9])|stale=false lat=null age=99)$' 80 &&
    pass "an intensive ping-pong waits under load, with no figure of another size: $(cat "$tmp/lat")" ||
    { fail "the intensive ping-pong ran under load: $(cat "$tmp/lat")"; tail "$tmp/log"; }
wait_tcp '^rail busy [0-9.]* Gbit/s stale=true ' 4 && pass "its stream waits too: $(cat "$tmp/tcp")" ||
    fail "the stream of an intensive ping-pong: $(cat "$tmp/tcp")"
"$ctl" -s "$sock" status > "$tmp/status"
expect_match '^  rxe0/1 tcp  *.*deferred: rail busy ' "$tmp/status"
# probe-now forces it (up to 3 forced runs, as in 2.): a fresh figure of 1000 samples.
forced=0
for try in 1 2 3; do
    for _ in $(seq 50); do "$ctl" -s "$sock" probe-now > /dev/null 2>&1 && break; sleep 0.1; done
    wait_tcp_lat 'lat=1000 age=[0-2]$' 40 && { forced=$try; break; }
done
[ "$forced" != 0 ] && pass "probe-now forces the intensive ping-pong (run $forced): $(cat "$tmp/lat")" ||
    fail "probe-now did not run the intensive ping-pong: $(cat "$tmp/lat")"
# The light ping-pong (100 x 64 B) on the same busy rail: it runs, fresh, at each timer run.
policy false
kill -HUP "$dpid"
wait_tcp_lat '^null stale=false lat=100 age=[0-1]$' 40 && wait_tcp '^rail busy [0-9.]* Gbit/s ' 4 &&
    pass "a light ping-pong runs under the same load: $(cat "$tmp/lat"); stream: $(cat "$tmp/tcp")" ||
    fail "the light ping-pong under load: $(cat "$tmp/lat"); stream: $(cat "$tmp/tcp")"
load_stop
finish
