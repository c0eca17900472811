#!/bin/bash
# SPDX-License-Identifier: ISC
# fabtune's RDMA probe against perftest's ib_write_lat on rxe0 (Soft-RoCE) in one guest
# run: the guest suite interleaves five runs of each, 8-byte RDMA WRITE ping-pong, 1000
# iterations (tests/guest-rxe/guest-suite.sh); RUNS interleaved runs of each (default 5).
# Prints each run's p50 and p99 of both, the medians' p50 and p99 ratios, the spread of the
# ratios of the runs side by side (run i against run i), the cost of one clock_gettime in the
# guest and its clocksource (the probe reads it once every few milliseconds, for its deadline),
# the cost of one read of the cycle counter (the probe's timestamp per round trip, as
# ib_write_lat's), the counter's rate as the probe calibrated it beside the guest's
# /proc/cpuinfo figure (which ib_write_lat uses), and what one RDMA probe cycle costs (CPU,
# wall, payload bytes). Both sides
# spin on their completion queue (ib_write_lat polls; so does the probe), and neither pins
# its two pollers to CPUs of their own: the guest's two vCPUs are free to both. Runs whose
# p50 falls into two modes are also reported per mode.
#   bench/rdma-vs-ib_write_lat.sh BUILDDIR [RUNS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)
runs=${2:-5}
FABTUNE_VM_BENCH=$runs make -C "$builddir" check TESTS=tests/guest-rxe/run.sh >/dev/null || true
line=$(grep '^BENCH rdma_latency_8B' "$builddir/tests/guest-rxe/results.txt")
echo "$line"
b=$builddir/tests/guest-rxe/out
echo "fabtune p50 per run (us):      $(awk '{ print $1 }' "$b/bench.fabtune" | tr '\n' ' ')"
echo "fabtune p99 per run (us):      $(awk '{ print $2 }' "$b/bench.fabtune" | tr '\n' ' ')"
echo "ib_write_lat t_typical (us):   $(awk '{ print $1 }' "$b/bench.perftest" | tr '\n' ' ')"
echo "ib_write_lat 99% (us):         $(awk '{ print $2 }' "$b/bench.perftest" | tr '\n' ' ')"
echo "$line" | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
    END { printf "ratio fabtune / ib_write_lat: p50 %.3f, p99 %.3f\n",
                 v["fabtune_p50_us"] / v["ib_write_lat_t_typical_us"], v["fabtune_p99_us"] / v["ib_write_lat_p99_us"]
          printf "clock_gettime %s ns (%s); cycle counter read %s ns; counter rate %s MHz calibrated, %s MHz in /proc/cpuinfo\n",
                 v["clock_read_ns"], v["clocksource"], v["counter_read_ns"], v["counter_mhz"], v["cpuinfo_mhz"]
          printf "one RDMA loopback cycle: latency CPU %s s, wall %s s, %s bytes; bandwidth (200 ms) CPU %s s, wall %s s, %s bytes\n",
                 v["latency_cpu_s"], v["latency_wall_s"], v["latency_bytes"],
                 v["bandwidth_cpu_s"], v["bandwidth_wall_s"], v["bandwidth_bytes"] }'
# Run i of each tool ran back to back: the spread of their ratios says how far the medians'
# ratio can be trusted on this machine.
# (ib_write_lat's two columns are the last two of each pasted line.)
paste "$b/bench.fabtune" "$b/bench.perftest" | awk '{ print $1 / $(NF - 1), $2 / $NF }' > "$b/bench.pairs"
for c in 1 2; do
    sort -n -k$c "$b/bench.pairs" | awk -v c=$c '{ v[NR] = $c } END {
        printf "run-by-run %s ratio: min %.3f, median %.3f, max %.3f (%d pairs)\n",
               c == 1 ? "p50" : "p99", v[1], v[int((NR + 1) / 2)], v[NR], NR }'
done
# Modes: a run is in the fast mode when its p50 is within 30 % of its tool's fastest run.
# mode_stats TOOL: fast-runs fast-p50 fast-p99 slow-runs slow-min-p50 slow-max-p50 (medians)
mode_stats() {
    sort -n -k1 "$b/bench.$1" | awk 'NR == 1 { lo = $1 } {
        if ($1 <= 1.3 * lo) { f50[++nf] = $1; f99[nf] = $2 } else { s50[++ns] = $1 } }
        END { for (i = 2; i <= nf; i++) { x = f99[i]; for (j = i - 1; j >= 1 && f99[j] > x; j--) f99[j + 1] = f99[j]; f99[j + 1] = x }
              m = int((nf + 1) / 2); print nf, f50[m], f99[m], ns + 0, (ns ? s50[1] : 0), (ns ? s50[ns] : 0) }'
}
read -r fn f50 f99 fs flo fhi <<EOF_F
$(mode_stats fabtune)
EOF_F
read -r pn p50 p99 ps plo phi <<EOF_P
$(mode_stats perftest)
EOF_P
echo "fabtune fast mode: $fn runs, p50 $f50 us, p99 $f99 us; slow mode: $fs runs (p50 $flo to $fhi us)"
echo "ib_write_lat fast mode: $pn runs, p50 $p50 us, p99 $p99 us; slow mode: $ps runs (p50 $plo to $phi us)"
awk -v a="$f50" -v b="$p50" -v c="$f99" -v d="$p99" \
    'BEGIN { printf "fast-mode ratio fabtune / ib_write_lat: p50 %.3f, p99 %.3f\n", a / b, c / d }'
