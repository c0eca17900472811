#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtune drains and resumes a node of a real Slurm (Debian's slurmctld, slurmd and munge,
# on loopback in a private netns: a one-host cluster that needs neither cgroups nor
# systemd, set up below). The HealthCheckProgram is the
# shipped contrib/slurm/slurm-health; the daemon watches the live veth rail of
# live_veth_rail, so the rail goes NOT_READY when the peer's link goes down, for real.
# Also (issue 41): a slow answer, and one missed answer, drain nothing; a drain is lifted
# only after RESUME_AFTER seconds of a healthy verdict; an admin's drain is never lifted
# nor overwritten; fabtuned down drains (fail safe) after UNKNOWN_HOLD calls without an
# answer, until it has answered READY for the window; a dry run changes nothing.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -n -m --propagation private sh "$0"
fi
for tool in munged mungekey slurmctld slurmd scontrol sinfo srun squeue scancel; do
    command -v "$tool" > /dev/null || { echo "FAIL: $tool is not installed (scripts/deps-debian.sh)"; exit 1; }
done
builddir=$(cd "$top_builddir" && pwd)
fabtuned="$builddir/src/daemon/fabtuned"
ctl="$builddir/src/client/fabtunectl"
health="$builddir/contrib/slurm/slurm-health"
tmp=$(mktemp -d /tmp/fabtune-slurm.XXXXXX)
dpid= mpid= cpid= spid= ppid_= srpid= proxy= cg=/nonexistent
cleanup() {
    for p in $proxy $srpid $ppid_ $spid $cpid $dpid $mpid; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    # Never rm -rf through a cgroup mount.
    umount -R /sys/fs/cgroup 2>/dev/null; umount -R "$cg" 2>/dev/null && rmdir "$cg"
    rm -rf "$tmp"
}
trap cleanup EXIT
ip link set lo up
# live_veth_rail mounts this netns's sysfs over /sys, which hides the cgroup tree slurmd
# looks at (it uses none with proctrack/pgid and task/none, but fails without one): keep
# the host's, and put it back on top.
cg=$(mktemp -d /tmp/fabtune-slurm-cg.XXXXXX)
mount --rbind /sys/fs/cgroup "$cg"
live_veth_rail "$tmp"
mount --rbind "$cg" /sys/fs/cgroup
node=$(hostname -s)

# --- fabtuned on the live rail ---
cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 1}
checks: {interval: 1h, flaps: {max: 1000}}
tuning: {mode: off}
probes: {enabled: false}
EOP
unlimited_proc "$tmp/proc"
sock="$tmp/run/fabtuned.sock"
start_fabtuned() {
    "$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" --procfs-root "$tmp/proc" --state-dir "$tmp/state" \
        --runtime-dir "$tmp/run" --log-target stderr 2>> "$tmp/fabtuned.log" & dpid=$!
    for _ in $(seq 200); do "$ctl" -s "$sock" health > /dev/null 2>&1 && return 0; sleep 0.05; done
    return 1
}
start_fabtuned && pass "fabtuned READY on the live rail" || { fail "fabtuned: $("$ctl" -s "$sock" health)"; cat "$tmp/fabtuned.log"; }

# --- munge and Slurm, private to this test ---
mungekey --create --keyfile="$tmp/munge.key" 2> "$tmp/mungekey.log"
munged -F --force --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
    --log-file="$tmp/munged.log" --seed-file="$tmp/munge.seed" 2> "$tmp/munged.err" & mpid=$!
mkdir -p "$tmp/slurm/state" "$tmp/slurm/spool"
p=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
# settings [SOCKET [MORE]]: slurm-health's settings file, read by each run.
resume_after=10
settings() {
    cat > "$tmp/slurm-health.conf" <<EOC
FABTUNECTL=$ctl
SOCKET=${1:-$sock}
NODE=$node
STATE_DIR=$tmp/hstate
RESUME_AFTER=$resume_after
TIMEOUT=3
${2:-}
EOC
}
settings
# Slurm runs the health program with an environment of its own: a wrapper names the
# test's settings and slurm.conf, and counts the runs.
cat > "$tmp/health-wrapper" <<EOW
#!/bin/sh
echo run >> "$tmp/health.runs"
FABTUNE_SLURM_HEALTH_CONF="$tmp/slurm-health.conf" SLURM_CONF="$tmp/slurm.conf" exec sh "$health"
EOW
chmod +x "$tmp/health-wrapper"
cat > "$tmp/slurm.conf" <<EOS
ClusterName=fabtune
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$p
SlurmdPort=$((p + 1))
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/slurm/state
SlurmdSpoolDir=$tmp/slurm/spool
SlurmctldPidFile=$tmp/slurm/slurmctld.pid
SlurmdPidFile=$tmp/slurm/slurmd.pid
SlurmctldLogFile=$tmp/slurm/slurmctld.log
SlurmdLogFile=$tmp/slurm/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MailProg=/bin/true
HealthCheckProgram=$tmp/health-wrapper
HealthCheckInterval=3
HealthCheckNodeState=ANY
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOS
export SLURM_CONF="$tmp/slurm.conf"
for _ in $(seq 100); do [ -S "$tmp/munge.sock" ] && break; sleep 0.05; done
slurmctld -D -i > "$tmp/slurmctld.out" 2>&1 & cpid=$!
slurmd -D -N "$node" > "$tmp/slurmd.out" 2>&1 & spid=$!

node_state() { sinfo -h -N -n "$node" -o '%T' 2>/dev/null | head -n 1; }
node_reason() { sinfo -h -N -n "$node" -o '%E' 2>/dev/null | head -n 1; }
# wait_state REGEX SECONDS: the node's state matches REGEX; sets waited (seconds).
wait_state() {
    start=$(date +%s)
    i=0
    while [ "$i" -lt $(($2 * 5)) ]; do
        node_state | grep -Eqx "$1" && { waited=$(($(date +%s) - start)); return 0; }
        sleep 0.2; i=$((i + 1))
    done
    return 1
}
runs() { wc -l < "$tmp/health.runs" 2>/dev/null || echo 0; }
# wait_runs N: N more health runs have finished (bounded: 60 s).
wait_runs() {
    target=$(($(runs) + $1 + 1))  # the run going now may have read the old state
    i=0
    while [ "$(runs)" -lt "$target" ] && [ "$i" -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
    sleep 1     # the last run's scontrol
}
dump() { for f in "$tmp"/slurm/*.log "$tmp/slurmctld.out" "$tmp/slurmd.out"; do echo "== $f"; tail -n 15 "$f"; done; }

if wait_state idle 60; then
    pass "Slurm: the node is idle with fabtune READY (${waited} s)"
else
    fail "Slurm: node state '$(node_state)', reason '$(node_reason)'"; dump
    finish; exit
fi
timeout 60 srun -N1 -w "$node" sh -c 'echo job ran' > "$tmp/srun.out" 2>&1
expect_match '^job ran$' "$tmp/srun.out"

# --- A job holds the node: a second fabtuned, probing, defers its streams (probes.defer). ---
# slurmd runs with proctrack/pgid (no cgroups): the job shows as its slurmstepd among the
# real /proc's processes, "slurmstepd: [<job>.<step>]". Only the job rule: busy_gbps 0.
cat > "$tmp/probe.yaml" <<EOP
version: 1
checks: {interval: 1h, flaps: {max: 1000}}
tuning: {mode: off}
probes:
  interval: 1s
  rdma: {iterations: 10}
  tcp: {iterations: 100, bandwidth: {duration: 20ms}}
  defer: {busy_gbps: 0, jobs: true}
EOP
psock="$tmp/prun/fabtuned.sock"
"$fabtuned" -c "$tmp/probe.yaml" --sysfs-root "$root" --procfs-root /proc --state-dir "$tmp/pstate" \
    --runtime-dir "$tmp/prun" --log-target stderr 2>> "$tmp/probe.log" & ppid_=$!
ptcp() {
    "$ctl" -s "$psock" --json probes 2>/dev/null |
        jq -r '.last_run.targets[0] | "\(.tcp_bandwidth.deferred) lat=\(.tcp_latency.latency_seconds.samples)"'
}
# wait_ptcp REGEX: the second daemon's TCP results match, within 30 s.
wait_ptcp() {
    for _ in $(seq 120); do ptcp > "$tmp/ptcp"; grep -q -- "$1" "$tmp/ptcp" && return 0; sleep 0.25; done
    return 1
}
wait_ptcp '^null lat=100$' && pass "no job: the stream runs ($(cat "$tmp/ptcp"))" ||
    fail "no job, no stream: $(cat "$tmp/ptcp")"
timeout 90 srun -N1 -w "$node" sleep 60 > "$tmp/srun-sleep.out" 2>&1 & srpid=$!
for _ in $(seq 100); do jid=$(squeue -h -w "$node" -t R -o %i 2>/dev/null | head -n 1); [ -n "$jid" ] && break; sleep 0.2; done
wait_ptcp "^job $jid running lat=100\$" && pass "srun sleep (job $jid) defers the stream: $(cat "$tmp/ptcp")" ||
    fail "job '$jid': $(cat "$tmp/ptcp")"
scancel "$jid" 2>/dev/null; kill "$srpid" 2>/dev/null; wait "$srpid" 2>/dev/null
wait_ptcp '^null lat=100$' && pass "the job ended: the stream runs again" ||
    fail "after the job: $(cat "$tmp/ptcp")"
kill "$ppid_"; wait "$ppid_" 2>/dev/null

# The health runs' state file, and the node's states seen while waiting for runs.
state_file="$tmp/hstate/$node.state"
held() { sed -n "s/^$1=//p" "$state_file" 2>/dev/null; }
# watch_runs N: wait_runs N, noting in $tmp/seen every state the node took meanwhile.
watch_runs() {
    target=$(($(runs) + $1 + 1))
    i=0
    : > "$tmp/seen"
    while [ "$(runs)" -lt "$target" ] && [ "$i" -lt 300 ]; do node_state >> "$tmp/seen"; sleep 0.2; i=$((i + 1)); done
    sleep 1; node_state >> "$tmp/seen"
}
never_drained() { if grep -q drain "$tmp/seen"; then fail "$1: the node was drained ($(sort -u "$tmp/seen" | tr '\n' ' '))"; else pass "$1: never drained ($(sort -u "$tmp/seen" | tr '\n' ' '))"; fi; }
# wait_healthy: fabtuned's verdict no longer drains (READY, or DEGRADED).
wait_healthy() {
    for _ in $(seq 200); do
        case $("$ctl" -s "$sock" health --format slurm) in "fabtune: READY" | "fabtune: DEGRADED"*) break ;; esac
        sleep 0.05
    done
}
# resumed_after_window WHAT: the node goes idle, no sooner than RESUME_AFTER after
# $t_healthy, taken just before the change that makes the verdict healthy (no healthy
# verdict can be seen before it).
resumed_after_window() {
    if wait_state idle 90; then
        took=$(($(date +%s) - t_healthy))
        [ "$took" -ge $((resume_after - 1)) ] && pass "$1: resumed ${took} s after the verdict was healthy (window ${resume_after} s)" \
            || fail "$1: resumed after ${took} s, before the ${resume_after} s window"
    else
        fail "$1: state '$(node_state)', reason '$(node_reason)'"; dump
    fi
}

# --- A slow answer drains nothing: 1 s a request, within fabtunectl's budget. ---
"$top_builddir/tests/slow_proxy" "$tmp/slow.sock" "$sock" 1000 & proxy=$!
for _ in $(seq 100); do [ -S "$tmp/slow.sock" ] && break; sleep 0.05; done
settings "$tmp/slow.sock"
watch_runs 3
never_drained "fabtuned answering in 1 s, 3 runs"
[ "$(held unknown_count)" = 0 ] && pass "no UNKNOWN counted" || fail "unknown_count $(held unknown_count)"
kill "$proxy"; wait "$proxy" 2>/dev/null; proxy=
settings
# --- One missed answer (fabtuned stopped beyond the budget for one run) drains nothing. ---
kill -STOP "$dpid"
: > "$tmp/seen.stopped"
for _ in $(seq 150); do [ "$(held unknown_count)" = 1 ] && break; node_state >> "$tmp/seen.stopped"; sleep 0.2; done
kill -CONT "$dpid"
[ "$(held unknown_count)" = 1 ] && pass "one run without an answer: counted (1 of 2)" || fail "unknown_count '$(held unknown_count)'"
watch_runs 2
cat "$tmp/seen.stopped" >> "$tmp/seen"
never_drained "one missed answer, then READY"
[ "$(held unknown_count)" = 0 ] && pass "an answer resets the count" || fail "unknown_count $(held unknown_count)"

# --- The rail goes down: fabtune drains the node with its reason, at once. ---
ip link set v1 down
wait_state 'drained|draining' 60 && pass "rail down: drained in ${waited} s" \
    || { fail "rail down: state '$(node_state)', reason '$(node_reason)'"; dump; }
node_reason > "$tmp/reason"
# The carrier loss is a flap too: counters.sticky (a warning) follows the two errors. Back up,
# the rail is DEGRADED for the sticky window, which slurm-health leaves undrained by default
# (DRAIN_DEGRADED=no): resumed.
expect_match '^fabtune: NOT_READY netdev\.oper rxe0/1, netdev\.carrier rxe0/1, counters\.sticky rxe0/1$' "$tmp/reason"
timeout 60 srun -N1 -w "$node" --immediate=3 true > "$tmp/srun.out" 2>&1 \
    && fail "a job ran on the drained node" || pass "no job lands on the drained node"

# --- The rail comes back: fabtune lifts its own drain after the stable window. ---
t_healthy=$(date +%s)
ip link set v1 up
resumed_after_window "rail up"
[ "$(node_reason)" = none ] && pass "no reason left" || fail "reason left: $(node_reason)"

# --- An admin's drain stands: neither lifted when READY nor overwritten when NOT_READY. ---
scontrol update nodename="$node" state=drain reason="admin: DIMM replacement"
wait_runs 2
[ "$(node_reason)" = "admin: DIMM replacement" ] && pass "READY: the admin's drain stays ($(node_state))" \
    || fail "READY: reason now '$(node_reason)', state $(node_state)"
ip link set v1 down
for _ in $(seq 100); do [ "$("$ctl" -s "$sock" health)" != "fabtune: READY" ] && break; sleep 0.05; done
wait_runs 2
[ "$(node_reason)" = "admin: DIMM replacement" ] && pass "NOT_READY: the admin's reason is not overwritten" \
    || fail "NOT_READY: reason now '$(node_reason)'"
ip link set v1 up
wait_healthy
wait_runs $((resume_after / 3 + 2))
node_state | grep -Eqx 'drained|draining' && [ "$(node_reason)" = "admin: DIMM replacement" ] \
    && pass "healthy past the window: still the admin's drain" || fail "healthy again: $(node_state) '$(node_reason)'"
scontrol update nodename="$node" state=resume
wait_state idle 60 && pass "the admin resumed the node" || fail "admin resume: $(node_state)"

# --- fabtuned down: UNKNOWN drains after the hold (2 runs, fail safe); back and READY for
# the window: resumed. ---
kill "$dpid"; wait "$dpid" 2>/dev/null; dpid=
for _ in $(seq 150); do [ "$(held unknown_count)" = 1 ] && break; sleep 0.2; done
[ "$(held unknown_count)" = 1 ] && node_state | grep -Eqx 'idle|mixed|allocated' \
    && pass "fabtuned down, one run: held, not drained ($(node_state))" || fail "one run: $(node_state), count $(held unknown_count)"
wait_state 'drained|draining' 60 && pass "fabtuned down: drained after the hold" \
    || { fail "fabtuned down: state '$(node_state)', reason '$(node_reason)'"; dump; }
[ "$(held unknown_count)" -ge 2 ] && pass "drained at $(held unknown_count) runs without an answer" || fail "count $(held unknown_count)"
node_reason > "$tmp/reason"
expect_match '^fabtune: UNKNOWN fabtuned not answering' "$tmp/reason"
# Slurm kills a health program after 60 s: with fabtuned down it must still end well within.
t0=$(date +%s%N); "$tmp/health-wrapper"; t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
[ "$ms" -lt 30000 ] && pass "a health run with fabtuned down took $ms ms (Slurm kills at 60 s)" || fail "a health run took $ms ms"
t_healthy=$(date +%s)
start_fabtuned
resumed_after_window "fabtuned back"

# --- A dry run changes nothing: the rail down would drain, and does not. ---
settings "$sock" DRY_RUN=yes
ip link set v1 down
for _ in $(seq 100); do [ "$("$ctl" -s "$sock" health)" != "fabtune: READY" ] && break; sleep 0.05; done
cp "$state_file" "$tmp/state.before"
watch_runs 2
never_drained "DRY_RUN=yes, NOT_READY for 2 runs"
expect_same "$tmp/state.before" "$state_file"
FABTUNE_SLURM_HEALTH_CONF="$tmp/slurm-health.conf" sh "$health" --dry-run > "$tmp/dry" 2>&1
expect_match "^$node: would run: scontrol update nodename=$node state=drain reason=fabtune: NOT_READY netdev.oper rxe0/1" "$tmp/dry"
expect_match "^$node: state (not written): unknown_count=0 healthy_since=0$" "$tmp/dry"
expect_same "$tmp/state.before" "$state_file"
settings
wait_state 'drained|draining' 60 && pass "DRY_RUN off: drained" || fail "DRY_RUN off: $(node_state)"
FABTUNE_SLURM_HEALTH_CONF="$tmp/slurm-health.conf" sh "$health" --dry-run > "$tmp/dry" 2>&1
expect_match "^$node: no change: drained already (fabtune: NOT_READY " "$tmp/dry"
if grep -q "would run: .*state=resume" "$tmp/dry"; then fail "dry run would resume a NOT_READY node"; else pass "dry run: no resume while NOT_READY"; fi
echo "# health runs: $(runs); HealthCheckInterval=3"
finish
