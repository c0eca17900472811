#!/bin/bash
# SPDX-License-Identifier: ISC
# fabtune's TCP probe against sockperf ping-pong on the same path (127.0.0.1, 64-byte
# messages, TCP, one-way latency), RUNS interleaved runs of each (default 20), in two
# placements, each tool under the same one:
#   one-cpu   both ends of both tools on one CPU (taskset): each wakeup is a context switch
#             on that CPU, never an idle CPU's wakeup;
#   any-cpu   no pinning: the two ends may sit on two CPUs, and pay the wakeup of an idle
#             one (about 40 us in this VM when the CPU idles, about 2.5 us when busy).
# Both tools block in recv(): fabtune's loopback probe (tcp_io.c, a blocking socket) and
# sockperf by default; no spinning on either side. Per placement it prints each tool's
# per-run p50 and p99, their medians and both ratios (fabtune / sockperf). Runs whose p50
# fall into modes (a gap of 2x between sorted p50s) are reported per mode, never as one
# median across them. Then the cost of one fabtune probe cycle on the loopback: CPU time
# (user+sys, this node's threads), wall time and payload bytes, latency and bandwidth apart.
#   bench/tcp-vs-sockperf.sh BUILDDIR [RUNS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
runs=${2:-20}
fabtuned="$builddir/src/daemon/fabtuned"
work=$(mktemp -d)
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$work"' EXIT

mkdir -p "$work/state"    # no rails (none is InfiniBand here): the loopback address
printf 'version: 1\nrails: {link_layer: infiniband}\ntuning: {mode: off}\n' > "$work/policy"

col_median() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# summary FILE: "p50 p99" per line -> the runs' median p50 and p99, per mode: the runs
# sorted by p50 split where one p50 is 2x the one before (any-cpu, fabtune's runs sat at
# 6.8-8.6 and 19.9-28.0 us: a 2.3x gap).
summary() {
    sort -n "$1" | awk '{ if (NR > 1 && $1 >= 2 * last) m++; last = $1; print > (base "." (m + 0)) }
        END { print m + 1 }' base="$1" > "$1.modes"
    local m out=""
    for m in $(seq 0 $(($(cat "$1.modes") - 1))); do
        [ -n "$out" ] && out="$out; mode "
        out="$out$(wc -l < "$1.$m") runs: p50 $(printf %.2f "$(col_median "$1.$m" 1)") us, p99 $(printf %.2f "$(col_median "$1.$m" 2)") us"
        rm -f "$1.$m"
    done
    echo "$out"
}
for place in one-cpu any-cpu; do
    pin=()
    [ $place = one-cpu ] && pin=(taskset -c 0)
    : > "$work/fabtune.$place"; : > "$work/sockperf.$place"
    port=$((20000 + RANDOM % 20000))
    "${pin[@]}" sockperf server -i 127.0.0.1 -p "$port" --tcp >/dev/null 2>&1 &
    server=$!
    sleep 1
    for run in $(seq "$runs"); do
        "${pin[@]}" "$fabtuned" --once --json -c "$work/policy" --state-dir "$work/state" > "$work/f.json" || true
        jq -r '.probes.targets[0].tcp_latency.latency_seconds | "\(.p50 * 1e6) \(.p99 * 1e6)"' \
            "$work/f.json" >> "$work/fabtune.$place"
        jq -r '.probes.targets[0] | [.tcp_latency.cost, .tcp_bandwidth.cost]
               | map("\(.cpu_seconds) \(.wall_seconds) \(.bytes)") | join(" ")' \
            "$work/f.json" >> "$work/cost"
        "${pin[@]}" sockperf ping-pong -i 127.0.0.1 -p "$port" --tcp -m 64 -t 1 2>&1 |
            awk '/percentile 50.000 =/ { p50 = $NF } /percentile 99.000 =/ { p99 = $NF }
                 END { print p50, p99 }' >> "$work/sockperf.$place"
    done
    kill $server; wait $server 2>/dev/null || true; server=
    echo "== $place, $runs interleaved runs, both tools blocking in recv()"
    echo "fabtune  p50 (us): $(awk '{ printf "%.1f ", $1 }' "$work/fabtune.$place")"
    echo "fabtune  p99 (us): $(awk '{ printf "%.1f ", $2 }' "$work/fabtune.$place")"
    echo "sockperf p50 (us): $(awk '{ printf "%.1f ", $1 }' "$work/sockperf.$place")"
    echo "sockperf p99 (us): $(awk '{ printf "%.1f ", $2 }' "$work/sockperf.$place")"
    echo "fabtune:  $(summary "$work/fabtune.$place")"
    echo "sockperf: $(summary "$work/sockperf.$place")"
    f50=$(col_median "$work/fabtune.$place" 1) f99=$(col_median "$work/fabtune.$place" 2)
    s50=$(col_median "$work/sockperf.$place" 1) s99=$(col_median "$work/sockperf.$place" 2)
    awk -v a="$f50" -v b="$s50" -v c="$f99" -v d="$s99" \
        'BEGIN { printf "ratio fabtune / sockperf (medians of runs): p50 %.3f, p99 %.3f\n", a / b, c / d }'
done
echo "== one probe cycle on the loopback ($((runs * 2)) runs; medians)"
for k in 1:latency 4:bandwidth; do
    c=${k%%:*}
    printf '%-9s CPU %.4f s, wall %.4f s, %s bytes\n' "${k#*:}" "$(col_median "$work/cost" "$c")" \
        "$(col_median "$work/cost" $((c + 1)))" "$(col_median "$work/cost" $((c + 2)))"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
