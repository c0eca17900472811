#!/bin/bash
# SPDX-License-Identifier: ISC
# Counts false probe.regression raises (issue 32, item 5): a daemon probing the loopback TCP
# path every second, in a private network namespace, for CYCLES probe cycles, beside a
# parallel build of fabtune itself (make -j$(nproc), rebuilt from clean in a loop), or beside
# nothing with LOAD=none. Nothing is wrong with the path, so every raise is a false alarm.
# Prints the cycles seen, the raises and clears, and the probe's p50/p99 spread.
#   bench/false-alarms.sh BUILDDIR [CYCLES]        (LOAD=build|none, default build)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
cycles=${2:-1000}
load=${LOAD:-build}
if [ -z "${FABTUNE_IN_NETNS:-}" ]; then
    FABTUNE_IN_NETNS=1 exec unshare -n "$0" "$@"
fi
ip link set lo up
work=$(mktemp -d)
loadpid=""
dpid=""
cleanup() {
    [ -n "$dpid" ] && kill "$dpid" 2>/dev/null
    [ -n "$loadpid" ] && kill -- -"$loadpid" 2>/dev/null
    wait 2>/dev/null
    [ -n "${KEEP:-}" ] && cp "$work/runs" "$KEEP"; rm -rf "$work"
}
trap cleanup EXIT

if [ "$load" = build ]; then
    # The load: this tree's own build, from clean, again and again, in its own process group.
    mkdir "$work/src"
    git -C "$top" archive --format=tar HEAD | tar -x -C "$work/src"
    (cd "$work/src" && autoreconf -fi >/dev/null 2>&1 && mkdir b && cd b &&
        ../configure >/dev/null 2>&1) || { echo "cannot configure the load build" >&2; exit 1; }
    setsid bash -c "cd '$work/src/b'; while :; do make -s clean >/dev/null 2>&1; \
        make -s -j$(nproc) >/dev/null 2>&1; done" & loadpid=$!
    sleep 5
fi

printf 'version: 1\ntuning: {mode: off}\nchecks: {interval: 1h}\nprobes: {interval: 1s}\n' > "$work/p.yaml"
"$builddir/src/daemon/fabtuned" -c "$work/p.yaml" --state-dir "$work/state" \
    --runtime-dir "$work/run" --log-target stderr 2> "$work/daemon.log" & dpid=$!
ctl="$builddir/src/client/fabtunectl"

# One line per probe cycle seen: measured_at p50 p99 (the ping-pong's, in microseconds), the
# seconds its threads waited for a CPU ("-": the kernel does not say) and whether fabtuned
# judged the run (false: over its bounds by no more than that wait could make; "-" learning).
seen=0 last="" t0=$(date +%s)
while [ "$seen" -lt "$cycles" ]; do
    line=$("$ctl" -s "$work/run/fabtuned.sock" --json probes 2>/dev/null |
        jq -r '(.baselines[0].last_judged // "-") as $judged |
               .last_run.targets[0].tcp_latency // empty |
               select(.latency_seconds != null) |
               "\(.measured_at) \(.latency_seconds.p50 * 1e6) \(.latency_seconds.p99 * 1e6) \(
                  .cost.cpu_wait_seconds // "-") \($judged)"' \
        2>/dev/null || true)
    if [ -n "$line" ] && [ "${line%% *}" != "$last" ]; then
        last=${line%% *}
        echo "$line" >> "$work/runs"
        seen=$((seen + 1))
    fi
    sleep 0.3
done
t1=$(date +%s)
raised=$(grep -c 'raised probe.regression' "$work/daemon.log" || true)
cleared=$(grep -c 'cleared probe.regression' "$work/daemon.log" || true)
echo "load: $load; cycles: $seen in $((t1 - t0)) s; probe.regression raised $raised, cleared $cleared"
grep 'probe.regression' "$work/daemon.log" | sed 's/ \[MESSAGE_ID.*//' | head -5
sort -n -k2 "$work/runs" | awk '{ p50[NR] = $2 } END {
    printf "per-cycle p50 (us): min %.1f median %.1f max %.1f\n", p50[1], p50[int((NR + 1) / 2)], p50[NR] }'
sort -n -k3 "$work/runs" | awk '{ p99[NR] = $3 } END {
    k = int(NR * 0.99); if (k < 1) k = 1
    printf "per-cycle p99 (us): min %.1f median %.1f p99 %.1f max %.1f\n", p99[1],
        p99[int((NR + 1) / 2)], p99[k], p99[NR] }'
# The runs a busy CPU kept waiting, and what fabtuned made of them.
awk '$4 != "-" { print $4 * 1e3 }' "$work/runs" | sort -n | awk '{ w[NR] = $1 } END {
    k = int(NR * 0.99); if (k < 1) k = 1
    if (NR) printf "CPU wait per run (ms): median %.1f, p99 %.1f, max %.1f\n", w[int((NR + 1) / 2)], w[k], w[NR] }'
awk '$5 == "false" { u++ } $3 > 500 { t++ } END {
    printf "runs with a p99 over 500 us: %d; runs not judged (their extra CPU wait accounts for them): %d\n", t, u }' "$work/runs"
