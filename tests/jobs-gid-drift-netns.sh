#!/bin/sh
# SPDX-License-Identifier: ISC
# job.gid_drift in a running daemon (issue 44, item 5), on a live rail: a veth in a private
# netns (tests/lib.sh's live_veth_rail) under the Soft-RoCE fixture, its GID table a
# fixture (no rdma_rxe here: the guest test has the kernel's own), and a real process of
# this host's /proc that maps a file named libnccl.so.2 with NCCL_IB_HCA=rxe0 and
# NCCL_IB_GID_INDEX=1, the rail's RoCE v2 IPv4 GID (192.0.2.1). Then, as the kernel does
# after a port flap: the rail's address goes (a real RTM_DELADDR), another address takes
# the lowest free slot, and 192.0.2.1 comes back behind it (the test writes the GID table
# as the kernel would re-register it, and makes the real address changes on v0). The
# address events alone (checks.interval is an hour) have the daemon judge again:
# job.gid_drift is an error that names the job, the rail and the move from index 1 to 2.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
    FABTUNE_IN_NS=1 exec unshare -n -m --propagation private sh "$0"
fi
command -v python3 > /dev/null || { echo "SKIP: no python3 (the job's process)"; exit 77; }
command -v jq > /dev/null || { echo "SKIP: no jq"; exit 77; }
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
tmp=$(mktemp -d /tmp/ft.XXXXXX)
dpid= job=
cleanup() {
    for p in $job $dpid; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
live_veth_rail "$tmp"
port="$root/devices/virtual/infiniband/rxe0/ports/1"
[ "$(cat "$port/gids/1")" = 0000:0000:0000:0000:0000:ffff:c000:0201 ] ||
    { fail "the fixture's GID 1 is not 192.0.2.1"; finish; }
cat > "$tmp/policy.yaml" <<EOP
version: 1
checks: {interval: 1h}
tuning: {mode: off}
probes: {enabled: false}
jobs: {ras: {interval: 1s, timeout: 1s}}
EOP
mkdir -p "$tmp/lib"
head -c 65536 /dev/zero > "$tmp/lib/libnccl.so.2"
NCCL_IB_HCA=rxe0 NCCL_IB_GID_INDEX=1 NCCL_RAS_ENABLE=0 setsid python3 -c 'import mmap, sys, time
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
time.sleep(300)' "$tmp/lib/libnccl.so.2" &
job=$!
for _ in $(seq 100); do grep -q libnccl "/proc/$job/maps" 2>/dev/null && break; sleep 0.05; done
sock="$tmp/run/fabtuned.sock"
"$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" --procfs-root /proc --state-dir "$tmp/state" \
    --runtime-dir "$tmp/run" --log-target stderr 2> "$tmp/log" &
dpid=$!
for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
drift() {
    "$ctl" -s "$sock" --json checks 2>/dev/null |
        jq -r --arg s "job $job" '.[] | select(.check == "job.gid_drift" and .subject == $s) | "\(.severity) \(.rail) \(.message)"'
}
until_drift() {
    for _ in $(seq 40); do drift > "$tmp/drift"; grep -q "$1" "$tmp/drift" && return 0; sleep 0.5; done
    return 1
}
until_drift '^ok' && pass "the job is seen and its GID recorded at its first pass" ||
    { fail "no job.gid_drift for job $job: $(cat "$tmp/drift")"; sed 's/^/    /' "$tmp/log" | tail -20; }
expect_match "^ok null session $job (python3): the GID it started with holds on each of its 1 RoCE rail$" "$tmp/drift"
checks0=$("$ctl" -s "$sock" --json status | jq -r .checks_done)

# The flap: 192.0.2.1 goes; 198.51.100.1 comes first and takes slot 1; 192.0.2.1 comes back
# at slot 2 (types and ndevs as the kernel's gid_attrs show them).
ip addr del 192.0.2.1/24 dev v0
echo 0000:0000:0000:0000:0000:0000:0000:0000 > "$port/gids/1"
ip addr add 198.51.100.1/24 dev v0
echo 0000:0000:0000:0000:0000:ffff:c633:6401 > "$port/gids/1"
echo 0000:0000:0000:0000:0000:ffff:c000:0201 > "$port/gids/2"
echo "RoCE v2" > "$port/gid_attrs/types/2"
echo v0 > "$port/gid_attrs/ndevs/2"
ip addr add 192.0.2.1/24 dev v0
# A pass between the events may see the slot empty ("that GID is gone"), a true error of
# its moment: the one after the last event sees the move.
until_drift '^error .* that GID is at index 2 now' && pass "the address events alone: job.gid_drift is an error" ||
    fail "no drift: $(cat "$tmp/drift")"
expect_match "^error rxe0/1 session $job (python3) started with GID index 1 (192\\.0\\.2\\.1) on rxe0/1; that GID is at index 2 now and index 1 holds 198\\.51\\.100\\.1: the job's NCCL traffic on this rail fails$" "$tmp/drift"
checks1=$("$ctl" -s "$sock" --json status | jq -r .checks_done)
[ "$checks1" -gt "$checks0" ] && pass "the events ran passes ($checks0 -> $checks1; the timer is an hour)" ||
    fail "no pass after the events ($checks0 -> $checks1)"
grep 'raised job.gid_drift' "$tmp/log" > "$tmp/alert"
expect_match "FABTUNE_CHECK=job.gid_drift FABTUNE_RAIL=rxe0/1 FABTUNE_SUBJECT=job $job " "$tmp/alert"
# The job ends: said once, then no job, no finding (a pass follows the round at once).
kill "$job"; wait "$job" 2>/dev/null; job_was=$job job=
for _ in $(seq 20); do grep -q "NCCL job ended" "$tmp/log" && break; sleep 0.5; done
expect_match "NCCL job ended: session $job_was (python3)" "$tmp/log"
gone=""
for _ in $(seq 40); do
    "$ctl" -s "$sock" --json checks > "$tmp/checks.json" &&
        ! jq -e --arg s "job $job_was" 'any(.[]; .subject == $s)' "$tmp/checks.json" > /dev/null &&
        { gone=1; break; }
    sleep 0.5
done
[ -n "$gone" ] && pass "an ended job has no job.* finding" ||
    fail "the ended job still has: $(jq -c --arg s "job $job_was" '.[] | select(.subject == $s)' "$tmp/checks.json")"
finish
