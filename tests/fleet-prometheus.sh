#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtune's exposition read by the real consumers: `promtool check metrics` (Debian's
# prometheus package) on `fabtunectl metrics` and on outputs.prometheus_textfile, and
# Debian's prometheus-node-exporter serving the textfile on loopback. Twice: the daemon on
# the 8-rail mlx5 fixture (its RDMA probes fail here: failure series), and on a live netns
# veth rail whose TCP probe really runs.
# Then every shipped alert rule on the real exposition of healthy nodes of each kind (issue
# 41, item 3): a TCP-only node (rails.expect_count 0, no rails), the 8-rail RoCE fixture and
# the 8-rail NDR InfiniBand fixture, each a daemon whose `fabtunectl metrics` becomes promtool
# input series (three nodes of each kind; TCP-only ones in every cluster, as login and
# storage nodes are): no rule fires. Then one fault per rule, made in those series: that
# rule fires, on the node or cluster of the fault, and no other does.
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
    daemon_dir "$1" "checks: {interval: 1h}
tuning: {mode: off}
probes: {enabled: $3, interval: 1h, rdma: {iterations: 200}, tcp: {iterations: 200}}
outputs: {nccl_env: $tmp/$1/nccl.env, nccl_conf: $tmp/$1/nccl.conf, prometheus_textfile: $tmp/$1/tf/fabtune.prom}"
    mkdir -p "$d/tf"
    run_daemon "$d" "$2" "$tmp/proc"
}
# daemon_dir NAME POLICY: $d, a directory of its own holding policy.yaml: version 1, POLICY.
daemon_dir() {
    d="$tmp/$1"
    mkdir -p "$d"
    printf 'version: 1\n%s\n' "$2" > "$d/policy.yaml"
}
# run_daemon DIR TREE PROCFS: fabtuned under DIR/policy.yaml on TREE; sets dpid and sock.
run_daemon() {
    "$fabtuned" -c "$1/policy.yaml" --sysfs-root "$2" --procfs-root "$3" --state-dir "$1/state" \
        --runtime-dir "$1/run" --log-target stderr 2> "$1/log" & dpid=$!
    sock="$1/run/fabtuned.sock"
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
expect_match "SUCCESS: 19 rules found" "$LAST_OUT"
(cd "$rules" && promtool test rules fabtune-rules.test.yml) > "$tmp/rules.out" 2>&1 \
    && pass "promtool test rules: $(grep -c 'eval_time' "$rules/fabtune-rules.test.yml") evaluations pass" \
    || { fail "promtool test rules"; sed 's/^/    /' "$tmp/rules.out"; }
cat "$tmp/rail8/tf/fabtune.prom" "$tmp/live/tf/fabtune.prom" > "$tmp/all.prom"
unknown=$(grep -o 'fabtune_[a-z0-9_]*' "$rules/fabtune-rules.yml" | sort -u | while read -r m; do
    grep -q "^# TYPE $m " "$tmp/all.prom" || echo "$m"; done)
[ -z "$unknown" ] && pass "the rules use only exported families" || fail "the rules use unexported: $unknown"
# --- Every rule silent on healthy nodes of every kind; one fault each makes it fire. ---
# healthy_exposition NAME TREE RAILS_LINE: `fabtunectl metrics` of a daemon on the fixture
# TREE (or a path) after its second check (the counter rates need two samples), its sysctls
# verified and holding but for net.core.rmem_max, which this procfs root lacks (unknown),
# and its verdict READY.
cp -a "$tmp/proc" "$tmp/hproc"
mkdir -p "$tmp/hproc/sys/net/core" "$tmp/hproc/sys/vm"
echo 4096 > "$tmp/hproc/sys/net/core/somaxconn"
echo 0 > "$tmp/hproc/sys/vm/zone_reclaim_mode"
healthy_exposition() {
    daemon_dir "h-$1" "$3
checks: {interval: 1s}
tuning: {mode: verify, sysctl: {net.core.somaxconn: 4096, vm.zone_reclaim_mode: 0, net.core.rmem_max: 1048576}}
probes: {enabled: false}"
    case $2 in /*) tree=$2 ;; *) tree="$fx/$2/sys" ;; esac
    run_daemon "$d" "$tree" "$tmp/hproc"
    for _ in $(seq 300); do
        n=$("$ctl" -s "$sock" --json status 2>/dev/null | jq -r '.checks_done // 0' 2>/dev/null)
        [ "${n:-0}" -ge 2 ] && break
        sleep 0.1
    done
    "$ctl" -s "$sock" metrics > "$tmp/$1.prom"
    "$ctl" -s "$sock" health --format slurm > "$d/health"
    stop_daemon
    expect_match '^fabtune: READY$' "$d/health"
    promtool_clean "the healthy $1 node" "$tmp/$1.prom"
}
healthy_exposition tcp no_rdma 'rails: {expect_count: 0}'
healthy_exposition roce mlx5_8rail ''
healthy_exposition ib h100_ndr_ib ''
expect_series "$tmp/roce.prom" '^fabtune_rail_class_events_per_second\{.*class="loss"\} 0$' "RoCE: the loss rate is known, and 0"
expect_series "$tmp/tcp.prom" '^fabtune_tuning_drift\{key="net.core.somaxconn"\} 0$' "TCP-only: the sysctls hold"
# An unknown is no 0: a sysctl this kernel lacks has no drift series, a rail whose rate
# cannot be read no rate series.
if grep -q 'fabtune_tuning_drift{key="net.core.rmem_max"}' "$tmp/tcp.prom"; then
    fail "a missing sysctl: $(grep 'fabtune_tuning_drift{key="net.core.rmem_max"}' "$tmp/tcp.prom")"
else pass "a sysctl this kernel lacks: no drift series (unknown, not 0)"; fi
cp -a "$fx/mlx5_8rail" "$tmp/norate"
rm "$tmp/norate/sys/class/infiniband/mlx5_7/ports/1/rate"
healthy_exposition norate "$tmp/norate/sys" ''
if grep -q '^fabtune_rail_rate_bytes_per_second{device="mlx5_7"' "$tmp/norate.prom"; then
    fail "an unread rate: $(grep '^fabtune_rail_rate_bytes_per_second{device="mlx5_7"' "$tmp/norate.prom")"
else pass "a rail whose rate is unknown: no rate series (not 0)"; fi
expect_series "$tmp/norate.prom" '^fabtune_rail_rate_bytes_per_second\{device="mlx5_6",port="1",netdev="[^"]*"\} 5e\+10$' \
    "the other rails' rates stay"
if grep -q '^fabtune_nccl_contract_complete' "$tmp/tcp.prom"; then
    fail "TCP-only: $(grep '^fabtune_nccl_contract_complete' "$tmp/tcp.prom") (no contract is due)"
else pass "TCP-only: no fabtune_nccl_contract_complete (no contract is due)"; fi

# series CLUSTER INSTANCE FILE: FILE's samples as promtool input series of one node (with
# node_exporter's up), 40 minutes of one sample a minute; the time of the last check
# advances a minute a minute.
series() {
    awk -v cluster="$1" -v instance="$2" -v q="'" '
        /^#/ || NF < 2 { next }
        {
            value = $NF; name = $0; sub(/ [^ ]*$/, "", name)
            extra = "cluster=\"" cluster "\",instance=\"" instance "\",job=\"node\""
            if (index(name, "{")) sub(/\{/, "{" extra ",", name); else name = name "{" extra "}"
            gsub(q, q q, name)
            values = name ~ /^fabtune_last_check_timestamp_seconds/ ? "0+60x40" : value "x40"
            printf "      - series: %s%s%s\n        values: %s%s%s\n", q, name, q, q, values, q
        }' "$3"
    printf "      - series: 'up{cluster=\"%s\",instance=\"%s\",job=\"node\"}'\n        values: '1x40'\n" "$1" "$2"
}
# The fleet, a node a line (cluster, instance, kind): clusters roce (three 8-rail nodes and
# two TCP-only ones), ib (three IB, two TCP-only) and tcp (three TCP-only).
printf '%s\n' "roce roce-1 roce" "roce roce-2 roce" "roce roce-3 roce" "roce login-1 tcp" \
    "roce storage-1 tcp" "ib ib-1 ib" "ib ib-2 ib" "ib ib-3 ib" "ib login-2 tcp" "ib storage-2 tcp" \
    "tcp cpu-1 tcp" "tcp cpu-2 tcp" "tcp cpu-3 tcp" > "$tmp/fleet"
while read -r cluster instance kind; do series "$cluster" "$instance" "$tmp/$kind.prom"; done < "$tmp/fleet" \
    > "$tmp/fleet.series"
alerts=$(sed -n 's/^ *- alert: //p' "$rules/fabtune-rules.yml")
# rules_test NAME EDIT: a promtool test of the fleet's series through EDIT (a sed script;
# "" for none) and the lines of $tmp/append, every rule expected silent at 20 and 35
# minutes; promtool's answer in $tmp/rt-NAME.out.
rules_test() {
    {
        echo "rule_files: ['$rules/fabtune-rules.yml']"
        echo "evaluation_interval: 1m"
        echo "tests:"
        echo "  - interval: 1m"
        echo "    input_series:"
        sed -e "${2:-}" "$tmp/fleet.series"
        cat "$tmp/append"
        echo "    alert_rule_test:"
        for t in 20m 35m; do
            for a in $alerts; do printf '      - eval_time: %s\n        alertname: %s\n        exp_alerts: []\n' "$t" "$a"; done
        done
    } > "$tmp/rt-$1.yml"
    promtool test rules "$tmp/rt-$1.yml" > "$tmp/rt-$1.out" 2>&1
}
: > "$tmp/append"
if rules_test healthy ""; then
    pass "promtool: all $(echo "$alerts" | wc -w) rules silent at 20 and 35 minutes on 13 healthy nodes (TCP-only, 8-rail RoCE, NDR InfiniBand)"
else
    fail "promtool: rules fire on healthy nodes: $(sed -n 's/^ *alertname: \([A-Za-z]*\),.*/\1/p' "$tmp/rt-healthy.out" | sort -u | tr '\n' ' ')"
    sed 's/^/    /' "$tmp/rt-healthy.out" | head -40
fi

# fault NAME WANT WHO EDIT [SERIES...]: with EDIT made and SERIES added, the rules that fire
# at 35 minutes are WANT (space-separated), and the first of them names WHO (an instance,
# cluster=C, or - for an alert of no node).
fault() {
    name=$1 want=$2 who=$3 edit=$4; shift 4
    : > "$tmp/append"
    [ $# -gt 0 ] && printf '%s\n' "$@" > "$tmp/append"
    rules_test "$name" "$edit"
    fired=$(sed -n 's/^ *alertname: \([A-Za-z]*\), time: 35m,.*/\1/p' "$tmp/rt-$name.out" | sort -u | tr '\n' ' ')
    # shellcheck disable=SC2086
    if [ "$fired" = "$(printf '%s\n' $want | sort -u | tr '\n' ' ')" ]; then pass "$name: $fired fired"
    else fail "$name: fired '$fired', want '$want'"; sed 's/^/    /' "$tmp/rt-$name.out" | head -30; fi
    grep -A 200 "alertname: ${want%% *}, time: 35m" "$tmp/rt-$name.out" | grep -m 1 'Labels:{' > "$tmp/labels"
    case $who in
    -) ;;
    cluster=*) expect_grep "cluster=\"${who#cluster=}\"" "$tmp/labels" ;;
    *) expect_grep "instance=\"$who\"" "$tmp/labels" ;;
    esac
}
# rail N DEVICE: the labels of roce-N's rail on DEVICE as its series carry them.
rail() {
    grep -o "device=\"$2\",port=\"1\",netdev=\"[^\"]*\"" "$tmp/roce.prom" | head -n 1 |
        sed "s/^/cluster=\"roce\",instance=\"roce-$1\",job=\"node\",/"
}
one() { printf "      - series: '%s'\n        values: '%s'" "$1" "$2"; }
# on_roce METRIC DEVICE VALUES LABELS...: a series of METRIC on roce-N's rail DEVICE for the
# Nth LABELS (its further labels), N from 1.
on_roce() {
    metric=$1 dev=$2 values=$3 n=1
    shift 3
    for labels; do one "$metric{$(rail "$n" "$dev"),$labels}" "$values"; echo; n=$((n + 1)); done
}
# set_value SERIES_REGEX VALUES: the sed script that gives the matching series VALUES.
set_value() { printf '/%s/{n;s/values: .*/values: '"'"'%s'"'"'/}' "$1" "$2"; }
verdict() { set_value "fabtune_node_verdict{cluster=\"roce\",instance=\"roce-2\",job=\"node\",verdict=\"$1\"}" "$2"; }
fault not_ready FabtuneNodeNotReady roce-2 "$(verdict READY 0x40);$(verdict NOT_READY 1x40)"
fault unknown FabtuneNodeUnknown roce-2 "$(verdict READY 0x40);$(verdict UNKNOWN 1x40)"
fault degraded FabtuneNodeDegraded roce-2 "$(verdict READY 0x40);$(verdict DEGRADED 1x40)"
fault loss FabtuneCounterLoss roce-2 \
    "$(set_value 'fabtune_rail_class_events_per_second{cluster="roce",instance="roce-2",.*device="mlx5_3".*class="loss"}' 0.5x40)"
fault drift FabtuneSysctlDrift storage-2 \
    "$(set_value 'fabtune_tuning_drift{cluster="ib",instance="storage-2",job="node",key="net.core.somaxconn"}' 1x40)"
fault regressed FabtuneProbeRegressed roce-1 "" \
    "$(one "fabtune_probe_regressed{$(rail 1 mlx5_0),probe=\"rdma\",size=\"8\"}" 1x40)"
fault gid_index FabtuneGidIndexDiffers cluster=roce \
    "$(set_value 'fabtune_rail_gid_index{cluster="roce",instance="roce-3",.*device="mlx5_5"' 1x40)"
fault subnet FabtuneRailSubnetDiffers roce-3 "" "$(on_roce fabtune_rail_info mlx5_1 1x40 \
    'subnet="10.0.1.0/24"' 'subnet="10.0.1.0/24"' 'subnet="10.0.9.0/24"')"
fault cc_digest FabtuneCcDigestDiffers roce-3 "" "$(on_roce fabtune_rail_cc_info mlx5_4 1x40 \
    'profile="default",digest="0a1b2c3d4e5f6071"' 'profile="default",digest="0a1b2c3d4e5f6071"' \
    'profile="default",digest="ffeeddccbbaa9988"')"
fault contract_differs FabtuneNcclContractDiffers cluster=ib \
    '/fabtune_nccl_variable_info{cluster="ib",instance="ib-3",job="node",variable="NCCL_IB_HCA"/s/value="[^"]*"/value="mlx5_0:1"/'
fault contract_incomplete FabtuneNcclContractIncomplete ib-1 \
    "$(set_value 'fabtune_nccl_contract_complete{cluster="ib",instance="ib-1"' 0x40)"
fault straggler FabtuneProbeStraggler roce-3 "" \
    "$(on_roce fabtune_probe_latency_p50_seconds mlx5_0 0.000004x40 'probe="rdma"' 'probe="rdma"')" \
    "$(one "fabtune_probe_latency_p50_seconds{$(rail 3 mlx5_0),probe=\"rdma\"}" 0.000012x40)"
fault switch FabtuneRailSwitchDiffers roce-3 "" "$(on_roce fabtune_rail_neighbor_info mlx5_2 1x40 \
    'switch="leaf-2",switch_port="Ethernet1"' 'switch="leaf-2",switch_port="Ethernet2"' \
    'switch="leaf-5",switch_port="Ethernet3"')"
fault claimed FabtuneSwitchPortClaimedTwice roce-1 "" "$(on_roce fabtune_rail_neighbor_info mlx5_2 1x40 \
    'switch="leaf-2",switch_port="Ethernet1"' 'switch="leaf-2",switch_port="Ethernet1"')"
fault neighbor_changed FabtuneRailNeighborChanged roce-2 "" \
    "$(one "fabtune_rail_neighbor_info{$(rail 2 mlx5_2),switch=\"leaf-2\",switch_port=\"Ethernet1\"}" '1x20 _x20')" \
    "$(one "fabtune_rail_neighbor_info{$(rail 2 mlx5_2),switch=\"leaf-2\",switch_port=\"Ethernet9\"}" '_x20 1x20')"
# roce-2's ranks lag in two jobs (the suspect), roce-1's in one (not named).
fault jobs FabtuneNodeLagsInJobs roce-2 "" \
    "$(one 'fabtune_job_ranks_failing{cluster="roce",instance="roce-2",job="node",job_id="10"}' 1x40)" \
    "$(one 'fabtune_job_ranks_failing{cluster="roce",instance="roce-2",job="node",job_id="11"}' 1x40)" \
    "$(one 'fabtune_job_ranks_failing{cluster="roce",instance="roce-1",job="node",job_id="10"}' 1x40)"
fault not_reporting FabtuneNotReporting cpu-2 '/series: .fabtune_[a-z_]*{cluster="tcp",instance="cpu-2"/{N;d}'
fault stale FabtuneStale roce-1 \
    "$(set_value 'fabtune_last_check_timestamp_seconds{cluster="roce",instance="roce-1"' 0x40)"
# No fabtune series anywhere: absent, and every node not reporting.
fault absent "FabtuneAbsent FabtuneNotReporting" -  '/series: .fabtune_/{N;d}'
grep -h 'alertname: [A-Za-z]*, time: 35m' "$tmp"/rt-*.out | sed 's/.*alertname: \([A-Za-z]*\),.*/\1/' | sort -u > "$tmp/fired"
for a in $alerts; do grep -qx "$a" "$tmp/fired" || fail "$a: no fault made it fire"; done
finish
