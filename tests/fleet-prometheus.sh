#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtune's exposition read by the real consumers: `promtool check metrics` (Debian's
# prometheus package) on `fabtunectl metrics` and on outputs.prometheus_textfile, and
# Debian's prometheus-node-exporter serving the textfile on loopback. Twice: the daemon on
# the 8-rail mlx5 fixture (its RDMA probes fail here: failure series), and on a live netns
# veth rail whose TCP probe really runs.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -n -m --propagation private sh "$0"
fi
for tool in promtool prometheus-node-exporter curl; do
    command -v "$tool" > /dev/null || { echo "FAIL: $tool is not installed (scripts/deps-debian.sh)"; exit 1; }
done
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
tmp=$(mktemp -d /tmp/fabtune-fleet.XXXXXX)
dpid= npid=
cleanup() {
    for p in $dpid $npid; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
ip link set lo up
unlimited_proc "$tmp/proc"

# start_daemon NAME SYSFS_ROOT PROBES: a daemon whose textfile goes to $tmp/NAME/tf.
start_daemon() {
    d="$tmp/$1"
    mkdir -p "$d/tf"
    cat > "$d/policy.yaml" <<EOP
version: 1
checks: {interval: 1h}
tuning: {mode: off}
probes: {enabled: $3, interval: 1h, rdma: {iterations: 200}, tcp: {iterations: 200}}
outputs: {nccl_env: $d/nccl.env, nccl_conf: $d/nccl.conf, prometheus_textfile: $d/tf/fabtune.prom}
EOP
    "$fabtuned" -c "$d/policy.yaml" --sysfs-root "$2" --procfs-root "$tmp/proc" --state-dir "$d/state" \
        --runtime-dir "$d/run" --log-target stderr 2> "$d/log" & dpid=$!
    sock="$d/run/fabtuned.sock"
}
stop_daemon() { kill "$dpid"; wait "$dpid" 2>/dev/null; dpid=; }

# wait_for_series FILE REGEX SECONDS: the textfile shows a line matching REGEX.
wait_for_series() {
    i=0
    while [ "$i" -lt $(($3 * 10)) ]; do
        grep -Eq "$2" "$1" 2>/dev/null && return 0
        sleep 0.1; i=$((i + 1))
    done
    return 1
}

# promtool_clean NAME FILE: promtool exits 0 and has nothing to say (lint included).
promtool_clean() {
    promtool check metrics < "$2" > "$tmp/promtool.out" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && [ ! -s "$tmp/promtool.out" ]; then
        pass "promtool check metrics: $1 is clean ($(grep -vc '^#' "$2") samples)"
    else
        fail "promtool check metrics: $1: rc=$rc"; sed 's/^/    /' "$tmp/promtool.out"
    fi
}

# scrape FILE_DIR: node_exporter's textfile collector on a free loopback port; the
# scrape lands in $tmp/scrape.
scrape() {
    for _ in 1 2 3 4 5; do
        port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
        prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
            --collector.textfile --collector.textfile.directory="$1" 2> "$tmp/ne.log" & npid=$!
        i=0
        while [ "$i" -lt 50 ]; do
            curl -sf "http://127.0.0.1:$port/metrics" > "$tmp/scrape" 2>/dev/null && break
            kill -0 "$npid" 2>/dev/null || break
            sleep 0.1; i=$((i + 1))
        done
        if [ -s "$tmp/scrape" ]; then
            kill "$npid"; wait "$npid" 2>/dev/null; npid=
            return 0
        fi
        kill "$npid" 2>/dev/null; wait "$npid" 2>/dev/null; npid=
    done
    return 1
}

expect_series() {   # expect_series FILE REGEX WHAT
    if grep -Eq "$2" "$1"; then pass "$3"; else fail "$3: no line matches $2"; fi
}

# --- The 8-rail ConnectX-7 fixture. No verbs device here: the RDMA probes fail. ---
fx=$(shared_fixtures)
start_daemon rail8 "$fx/mlx5_8rail/sys" true
tf="$tmp/rail8/tf/fabtune.prom"
wait_for_series "$tf" '^fabtune_probe_success' 60 && pass "8 rails: the textfile has the probe results" \
    || { fail "8 rails: no probe series in the textfile"; cat "$tmp/rail8/log"; }
promtool_clean "the 8-rail textfile" "$tf"
"$ctl" -s "$sock" metrics > "$tmp/ctl.prom"
promtool_clean "fabtunectl metrics on 8 rails" "$tmp/ctl.prom"
expect_series "$tf" '^fabtune_rails 8$' "8 rails counted"
expect_series "$tf" '^fabtune_rail_ready\{device="mlx5_0",port="1",netdev="enp26s0f0np0"\} 0$' \
    "rail series carry node_exporter's device and port labels, and netdev (not ready: its probes fail)"
expect_series "$tf" '^fabtune_rail_rate_bytes_per_second\{device="mlx5_7",port="1",netdev="enp222s0f0np0"\} 5e\+10$' \
    "400 Gb/s is 5e10 bytes per second"
expect_series "$tf" '^fabtune_rail_gid_index\{device="mlx5_3",port="1",netdev="enp94s0f0np0"\} 3$' \
    "the chosen GID index (3: RoCE v2 IPv4) per rail"
expect_series "$tf" '^fabtune_nccl_contract_complete 1$' "the NCCL contract is complete"
expect_series "$tf" '^fabtune_nccl_variable_info\{variable="NCCL_IB_GID_INDEX",value="3"\} 1$' \
    "the contract's variables, with their values"
expect_series "$tf" '^fabtune_check_severity\{check="port.state",device="mlx5_5",port="1",netdev="enp188s0f0np0"\} 0$' \
    "one severity series per check and rail"
expect_series "$tf" '^fabtune_probe_success\{device="mlx5_0",port="1",netdev="enp26s0f0np0",probe="rdma",test="latency"\} 0$' \
    "a failed RDMA probe is a failure series"
expect_series "$tf" '^fabtune_check_severity\{check="probe.rdma.latency",device="mlx5_2",port="1",netdev="enp77s0f0np0"\} 3$' \
    "the failed probe's check is an error (3)"
expect_series "$tf" '^fabtune_rail_class_events_per_second\{device="mlx5_4",port="1",netdev="enp154s0f0np0",class="loss"\} 0$' \
    "counter-class rates per rail"
# The class totals: the sums of the fixture's counters (mlx5_counters in sysfs-lib.sh: the
# named hw_counters at 0, the others at 7, port_xmit_wait 123456789): qp_error is
# resp/req_cqe_error and resp/req_cqe_flush_error, 4 x 7; loss has duplicate_request,
# roce_adp_retrans, roce_slow_restart{,_cnps,_trans} and rx_icrc_encapsulated, 6 x 7.
expect_series "$tf" '^fabtune_rail_class_events_total\{device="mlx5_4",port="1",netdev="enp154s0f0np0",class="qp_error"\} 28$' \
    "class totals per rail: qp_error 28"
expect_series "$tf" '^fabtune_rail_class_events_total\{device="mlx5_4",port="1",netdev="enp154s0f0np0",class="loss"\} 42$' \
    "class totals per rail: loss 42"
expect_series "$tf" '^fabtune_rail_class_events_total\{device="mlx5_4",port="1",netdev="enp154s0f0np0",class="link_down"\} 0$' \
    "class totals per rail: link_down 0"
expect_series "$tf" '^fabtune_rail_class_events_total\{device="mlx5_4",port="1",netdev="enp154s0f0np0",class="congestion"\} 123456789$' \
    "class totals per rail: congestion, port_xmit_wait's ticks"
expect_series "$tf" '^# TYPE fabtune_rail_class_events_total counter$' "the class totals are a counter"
expect_series "$tf" '^fabtune_build_info\{version="[^"]+"\} 1$' "build info"
if grep -q '^fabtune_rail_info' "$tf"; then fail "a subnet without the netdevs' addresses"
else pass "no fabtune_rail_info where no netdev address is known (a --sysfs-root tree; the series: check_rail_subnet)"; fi
expect_series "$tf" '^fabtune_last_check_timestamp_seconds [0-9]{10}\.[0-9]{6}$' "the time of the last check, to the microsecond"
if grep -q 'quantile=' "$tf"; then fail "no quantile label outside a summary"; else pass "no quantile label"; fi

# Every family is documented in fabtuned(8) METRICS.
undocumented=$(sed -n 's/^# TYPE \([a-z_0-9]*\) .*/\1/p' "$tf" | while read -r m; do
    grep -q "^\.B[R]* $m\( \|{\|\$\)" "$top_srcdir/man/fabtuned.8" || \
        grep -q "^\.BR.* $m " "$top_srcdir/man/fabtuned.8" || echo "$m"; done)
[ -z "$undocumented" ] && pass "every family is in fabtuned(8) METRICS" || fail "undocumented: $undocumented"
scrape "$tmp/rail8/tf" && pass "node_exporter answered" || { fail "node_exporter did not answer"; cat "$tmp/ne.log"; }
expect_series "$tmp/scrape" '^node_textfile_scrape_error 0$' "node_exporter: node_textfile_scrape_error 0"
expect_series "$tmp/scrape" '^fabtune_rail_ready\{device="mlx5_6",netdev="enp205s0f0np0",port="1"\} 0$' \
    "node_exporter serves fabtune's rail series"
expect_series "$tmp/scrape" '^fabtune_node_verdict\{verdict="NOT_READY"\} [01]$' "node_exporter serves the verdict"
expect_series "$tmp/scrape" '^fabtune_rail_class_events_total\{class="link",device="mlx5_6",netdev="enp205s0f0np0",port="1"\} 0$' \
    "node_exporter serves the class totals"
stop_daemon

# --- A live veth rail in this netns: the TCP probe runs on 192.0.2.1. ---
live_veth_rail "$tmp/live"
start_daemon live "$root" true
tf="$tmp/live/tf/fabtune.prom"
wait_for_series "$tf" '^fabtune_probe_latency_p50_seconds\{.*probe="tcp"' 60 \
    && pass "live rail: the TCP probe's p50 is exported" || { fail "live rail: no TCP latency"; cat "$tmp/live/log"; }
promtool_clean "the live rail's textfile" "$tf"
"$ctl" -s "$sock" metrics > "$tmp/ctl.prom"
promtool_clean "fabtunectl metrics on the live rail" "$tmp/ctl.prom"
expect_series "$tf" '^fabtune_probe_latency_p99_seconds\{device="rxe0",port="1",netdev="v0",probe="tcp"\} [0-9.e-]+$' \
    "the TCP probe's p99, with the rail's labels"
expect_series "$tf" '^fabtune_probe_success\{device="rxe0",port="1",netdev="v0",probe="tcp",test="latency"\} 1$' \
    "a TCP probe that ran is a success series"
expect_series "$tf" '^fabtune_rail_carrier_changes_total\{device="rxe0",port="1",netdev="v0"\} [0-9]+$' \
    "the netdev's carrier changes, a counter ending in _total"
scrape "$tmp/live/tf" && pass "node_exporter answered (live)" || fail "node_exporter did not answer (live)"
expect_series "$tmp/scrape" '^node_textfile_scrape_error 0$' "node_exporter (live): node_textfile_scrape_error 0"
expect_series "$tmp/scrape" '^fabtune_probe_latency_p50_seconds\{device="rxe0",netdev="v0",port="1",probe="tcp"\} ' \
    "node_exporter serves the live TCP probe"
stop_daemon

# --- The shipped alerting rules: valid, their unit tests pass, and every fabtune_* name
# they use is one the daemon exports (a rename would silence them). ---
rules="$top_srcdir/conf/prometheus"
expect_rc 0 promtool check rules "$rules/fabtune-rules.yml"
expect_match "SUCCESS: 18 rules found" "$LAST_OUT"
(cd "$rules" && promtool test rules fabtune-rules.test.yml) > "$tmp/rules.out" 2>&1 \
    && pass "promtool test rules: $(grep -c 'eval_time' "$rules/fabtune-rules.test.yml") evaluations pass" \
    || { fail "promtool test rules"; sed 's/^/    /' "$tmp/rules.out"; }
cat "$tmp/rail8/tf/fabtune.prom" "$tmp/live/tf/fabtune.prom" > "$tmp/all.prom"
unknown=$(grep -o 'fabtune_[a-z0-9_]*' "$rules/fabtune-rules.yml" | sort -u | while read -r m; do
    grep -q "^# TYPE $m " "$tmp/all.prom" || echo "$m"; done)
[ -z "$unknown" ] && pass "the rules use only exported families" || fail "the rules use unexported: $unknown"
finish
