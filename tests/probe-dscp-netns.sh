#!/bin/sh
# SPDX-License-Identifier: ISC
# probes.light_dscp on a live rail (a veth in a private netns, tests/lib.sh's live_veth_rail),
# as the kernel holds it: ss --tos (INET_DIAG_TOS) on the rail's TCP connections while the
# probes run. With light_dscp 26 the ping-pong's connection has TOS 0x68 (26 << 2) at both
# ends, the prober's socket and the server's fabtune runs; the stream's connection keeps
# the socket's own 0. The report gives the ping-pong's class too (dscp 26).
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -n -m --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
tmp=$(mktemp -d)
dpid=
cleanup() {
    [ -n "$dpid" ] && { kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; }
    rm -rf "$tmp"
}
trap cleanup EXIT
live_veth_rail "$tmp"
# A ping-pong of 100000 round trips (seconds long, so ss sees it; kept light by the
# budget) and a stream of up to 10 s (it ends once its rate settles, after 2.5 s at least).
cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 1}
checks: {interval: 1h}
tuning: {mode: off}
probes:
  interval: 1h
  rdma: {iterations: 10}
  tcp: {iterations: 100000, bandwidth: {duration: 10s}}
  defer: {light_bytes: 1000000000000, busy_gbps: 0, jobs: false}
  light_dscp: 26
EOP
unlimited_proc "$tmp/proc"
sock="$tmp/run/fabtuned.sock"
fabtuned_start
# Every established TCP socket on the rail's address, as "LOCAL PEER TOS", until both a
# connection at 0x68 at both ends and one at 0 at both ends were seen: at most 180 s, as
# the ping-pong's 100000 round trips come first and take far longer on a loaded machine
# (the probe threads are niced).
seen() {
    awk -v want="$1" '$3 == want { end[$1 " " $2] = 1 }
        END { for (k in end) { split(k, a, " "); if ((a[2] " " a[1]) in end) n++ } print n + 0 }' "$tmp/ss"
}
: > "$tmp/ss"
deadline=$(( $(date +%s) + 180 ))
while [ "$(date +%s)" -lt "$deadline" ]; do
    ss -tnH --tos state established src 192.0.2.1 |
        sed -n 's/^ *[0-9]* *[0-9]* *\([^ ]*\) *\([^ ]*\) .*tos:\([0-9a-fx]*\).*/\1 \2 \3/p' >> "$tmp/ss"
    [ "$(seen 0x68)" -ge 2 ] && [ "$(seen 0)" -ge 2 ] && break
    sleep 0.1
done
sort -u "$tmp/ss" > "$tmp/ss.u"
mv "$tmp/ss.u" "$tmp/ss"
[ "$(seen 0x68)" -ge 2 ] && pass "the ping-pong's connection: TOS 0x68 (DSCP 26) at both ends" ||
    { fail "no connection at TOS 0x68 at both ends:"; sed 's/^/    /' "$tmp/ss"; tail -5 "$tmp/log"; }
[ "$(seen 0)" -ge 2 ] && pass "the stream's connection: TOS 0 (the socket's own)" ||
    { fail "no stream connection at TOS 0:"; sed 's/^/    /' "$tmp/ss"; }
# The report: the class the kernel held for the ping-pong's socket.
for _ in $(seq 200); do
    "$ctl" -s "$sock" --json probes 2>/dev/null |
        jq -r '.last_run.targets[0].tcp_latency | "\(.dscp) \(.traffic_class)"' > "$tmp/dscp"
    grep -q '^26 104$' "$tmp/dscp" && break
    sleep 0.25
done
expect_match '^26 104$' "$tmp/dscp"
finish
