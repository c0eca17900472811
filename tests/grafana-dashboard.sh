#!/bin/sh
# SPDX-License-Identifier: ISC
# root: contrib/grafana/fabtune.json against a real fleet (issue 31, item 4). Grafana itself
# is not packaged in Debian 12, so no Grafana renders the dashboard here: the test checks
# the JSON against the keys of Grafana's dashboard model with jq, and runs every panel's
# query through a real Prometheus.
# - Three nodes, each a fabtuned daemon in a network and mount namespace of its own, on a
#   copy of the Soft-RoCE fixture whose rxe0 netdev is a live veth (v0, 192.0.2.1), so the
#   TCP probe really runs; each node's LLDP neighbour and module answers are snapshot
#   replies beside the fixture (fabtune/net/v0), its port counters sysfs files, its sysctls
#   a procfs root of its own. node-a and node-b are cabled as planned (leaf-r0, a QSFP28
#   SR4), node-c is the faulty one: its rail reaches leaf-r1 (the policy's leaf-r{index}
#   says leaf-r0), 36 symbol errors and 2 link downs, a hot OSFP (72.25 C), two flaps
#   more, net.ipv4.tcp_fin_timeout drifted (60, the profile wants 37) and rails.qos.dscp 24
#   where the others have 26 (NCCL_IB_TC 98, not 106).
# - One Debian prometheus-node-exporter per node serves its textfile; one Debian
#   prometheus (scrape and rule evaluation every second, its own storage in a temp dir, a
#   free loopback port) scrapes all three with labels instance=node-X, cluster=fleet,
#   su=su1, and loads conf/prometheus/fabtune-rules.yml, so ALERTS exist (pending: their
#   `for` is minutes).
# - Every panel's every target (jq over the JSON, $cluster -> fleet, $su -> .*) through
#   /api/v1/query: each returns series, and the fault panels name node-c (and only node-c
#   where the panel lists offenders). The per-panel table is printed in the log.
# Here every rail is NOT READY on every node: no verbs device exists on this host, so the
# RDMA loopback probe fails everywhere (probe.rdma.*, an error). The fault panels are
# asserted on what only node-c has. No straggler is made (no netem on this kernel): the
# straggler panel is asserted to return one ratio per node.
. "${top_srcdir:-.}/tests/lib.sh"
fabtuned="$top_builddir/src/daemon/fabtuned"
dash="$top_srcdir/contrib/grafana/fabtune.json"

# --- One node: run in its own network and mount namespace by the test below. ---
if [ -n "${FABTUNE_GRAFANA_NODE:-}" ]; then
    d=$FABTUNE_GRAFANA_NODE
    live_veth_rail "$d"           # sets $root, the fixture's sys
    net="$d/fx/soft_roce/fabtune/net/v0"
    mkdir -p "$net" "$d/tf" "$d/proc/sys/net/ipv4"
    unlimited_proc "$d/proc"
    sed -e "s/@N@/$NODE_LEAF/g" -e "s/@P@/$NODE_PORT/g" "$top_srcdir/tests/fixtures/lldp/leaf.txt" > "$net/lldp"
    "$top_builddir/tests/module_replies" "$top_srcdir/tests/fixtures/module/$NODE_MODULE.pages" v0 "$net" ||
        exit 1
    # The PMA port counters of an HCA (counters/), which rxe lacks; rxe's hw_counters/
    # link_downed goes, so that no two counters share a name.
    c="$root/devices/virtual/infiniband/rxe0/ports/1/counters"
    mkdir -p "$c"
    rm -f "$root/devices/virtual/infiniband/rxe0/ports/1/hw_counters/link_downed"
    echo "$NODE_SYMBOL_ERRORS" > "$c/symbol_error"
    echo "$NODE_LINK_DOWNS" > "$c/link_downed"
    echo "$NODE_FIN_TIMEOUT" > "$d/proc/sys/net/ipv4/tcp_fin_timeout"
    for _ in $(seq "$NODE_FLAPS"); do ip link set v1 down; ip link set v1 up; done
    cat > "$d/policy.yaml" <<EOP
version: 1
rails:
  topology: distinct_switches
  qos: {dscp: $NODE_DSCP}
  neighbors: {switch: "leaf-r{index}"}
checks: {interval: 1h}
tuning: {mode: verify, sysctl: {net.ipv4.tcp_fin_timeout: 37}}
probes: {enabled: true, interval: 1h, rdma: {iterations: 100}, tcp: {iterations: 500}}
outputs: {nccl_env: $d/nccl.env, nccl_conf: null, prometheus_textfile: $d/tf/fabtune.prom}
EOP
    exec "$fabtuned" -c "$d/policy.yaml" --sysfs-root "$root" --procfs-root "$d/proc" \
        --state-dir "$d/state" --runtime-dir "$d/run" --log-target stderr
fi

if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -n -m --propagation private sh "$0"
fi
for tool in prometheus prometheus-node-exporter promtool curl jq; do
    command -v "$tool" > /dev/null || { echo "FAIL: $tool is not installed (scripts/deps-debian.sh)"; exit 1; }
done
tmp=$(mktemp -d /tmp/fabtune-grafana.XXXXXX)
pids=
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
ip link set lo up

# --- The dashboard model: the keys Grafana's dashboard JSON model requires. ---
jq -e . "$dash" > /dev/null && pass "fabtune.json is JSON" || fail "fabtune.json does not parse"
check_model() {   # check_model JQ-EXPRESSION WHAT: the expression is true of the dashboard
    if jq -e "$1" "$dash" > /dev/null 2>&1; then pass "model: $2"; else fail "model: $2 ($1)"; fi
}
check_model '(.title | type == "string" and length > 0) and (.uid | type == "string" and test("^[A-Za-z0-9_-]{1,40}$"))' \
    "a title and a uid of at most 40 characters [A-Za-z0-9_-]"
check_model '.schemaVersion | type == "number" and . >= 36' "schemaVersion 36 or later (Grafana 9+; this one: $(jq .schemaVersion "$dash"))"
check_model '.panels | type == "array" and length > 0' "panels[] is a non-empty array"
check_model '[.panels[] | .id] | (length == (unique | length)) and all(type == "number")' "every panel has a numeric id, unique"
check_model 'all(.panels[]; (.type | type == "string") and (.title | type == "string" and length > 0))' "every panel has a type and a title"
check_model 'all(.panels[]; .gridPos | (.h, .w, .x, .y) | type == "number")' "every panel has gridPos h, w, x, y"
check_model 'all(.panels[]; .gridPos.x >= 0 and .gridPos.w >= 1 and .gridPos.x + .gridPos.w <= 24 and .gridPos.h >= 1)' \
    "every panel fits the 24-column grid"
check_model '[.panels[] | .gridPos as $g | range($g.x; $g.x + $g.w) as $x | range($g.y; $g.y + $g.h) as $y | [$x, $y]] |
    length == (unique | length)' "no two panels overlap on the grid"
check_model 'all(.panels[] | select(.type == "table"); (.targets | length) == 1 or any(.transformations[]?; .id == "merge"))' \
    "a table of several queries merges them into one"
check_model 'all(.panels[] | select(.type != "row"); (.targets | type == "array" and length > 0) and
    all(.targets[]; (.expr | type == "string" and length > 0) and (.refId | type == "string" and length > 0)))' \
    "every panel that is not a row has targets, each with an expr and a refId"
check_model 'all(.panels[] | select(.type != "row"); [.targets[].refId] | length == (unique | length))' "refIds are unique within a panel"
check_model 'all(.panels[] | select(.type != "row"); .datasource.uid == "${datasource}" and all(.targets[]; .datasource.uid == "${datasource}"))' \
    "every panel and target takes the datasource variable"
check_model '.templating.list | type == "array"' "templating.list is an array"
check_model '[.templating.list[] | select(.type == "datasource" and .query == "prometheus") | .name] == ["datasource"]' \
    "a datasource variable of type prometheus"
check_model '[.templating.list[] | select(.type == "query") | .name] == ["cluster", "su"]' "query variables cluster and su"
check_model '[.panels[] | select(.type != "row") | .targets[].expr | scan("\\$[A-Za-z_]+") ] - ["$cluster", "$su"] == []' \
    "the queries use no variable but \$cluster and \$su"
check_model 'all(.panels[]; .type | IN("row", "table", "timeseries", "stat", "bargauge", "piechart", "gauge"))' \
    "every panel type is a core Grafana panel"
# Each panel queries only families the daemon exports (fabtuned(8) METRICS documents them
# all; fleet-prometheus.sh checks that), and ALERTS only for the shipped rules.
unknown=$(jq -r '.panels[].targets[]?.expr' "$dash" | grep -o 'fabtune_[a-z0-9_]*' | sort -u | while read -r m; do
    grep -q "\"$m\"" "$top_srcdir/src/daemon/outputs/metrics.c" || echo "$m"; done)
[ -z "$unknown" ] && pass "every fabtune_* name in the panels is one metrics.c writes" || fail "not exported: $unknown"
alerts=$(jq -r '.panels[].targets[]?.expr' "$dash" | grep -o 'alertname=~"[^"]*"' | sed 's/^alertname=~"//; s/"$//' | tr '|' '\n')
missing=$(for a in $alerts; do grep -q "alert: $a\$" "$top_srcdir/conf/prometheus/fabtune-rules.yml" || echo "$a"; done)
[ -n "$alerts" ] && [ -z "$missing" ] && pass "the ALERTS the panels name are the shipped rules'" || fail "no such rule: $missing"

# --- The fleet: three nodes, node-c faulty. ---
shared_fixtures > /dev/null     # generated once, before three nodes copy from them
# node NAME LEAF PORT MODULE SYMBOL_ERRORS LINK_DOWNS FIN_TIMEOUT FLAPS DSCP
node() {
    mkdir -p "$tmp/$1"
    FABTUNE_GRAFANA_NODE="$tmp/$1" NODE_LEAF=$2 NODE_PORT=$3 NODE_MODULE=$4 NODE_SYMBOL_ERRORS=$5 \
        NODE_LINK_DOWNS=$6 NODE_FIN_TIMEOUT=$7 NODE_FLAPS=$8 NODE_DSCP=$9 \
        unshare -n -m --propagation private sh "$0" > "$tmp/$1.log" 2>&1 &
    pids="$pids $!"
}
node node-a 0 1 qsfp28-sr4 0 0 37 0 26
node node-b 0 2 qsfp28-sr4 0 0 37 0 26
node node-c 1 3 osfp-2xdr4 36 2 60 2 24
for n in node-a node-b node-c; do
    i=0
    while [ "$i" -lt 600 ] && ! grep -q '^fabtune_probe_latency_p99_seconds' "$tmp/$n/tf/fabtune.prom" 2>/dev/null; do
        sleep 0.1; i=$((i + 1))
    done
    grep -q '^fabtune_probe_latency_p99_seconds' "$tmp/$n/tf/fabtune.prom" 2>/dev/null &&
        pass "$n: fabtuned wrote its textfile, with the TCP probe's latency" ||
        { fail "$n: no probe latency in its textfile in 60 s"; tail -20 "$tmp/$n.log"; }
done

# serve NAME URL-PATH FUNCTION: FUNCTION execs a server on 127.0.0.1:$port; serve picks a
# random port and waits, at most 30 s, until the server answers URL-PATH there (a port
# taken already: another one, 5 tries). $port is the server's.
serve() {
    for _ in 1 2 3 4 5; do
        port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
        "$3" > "$tmp/$1.out" 2>&1 &
        spid=$!
        i=0
        while [ "$i" -lt 300 ]; do
            if curl -sf "http://127.0.0.1:$port$2" > /dev/null 2>&1; then
                pids="$pids $spid"; return 0
            fi
            kill -0 "$spid" 2>/dev/null || break
            sleep 0.1; i=$((i + 1))
        done
        kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
    done
    return 1
}
exporter() {
    exec prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
        --collector.textfile --collector.textfile.directory="$tmp/$n/tf"
}
prometheus_server() {
    exec prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
        --web.listen-address="127.0.0.1:$port"
}
targets=
for n in node-a node-b node-c; do
    serve "ne-$n" /metrics exporter && pass "$n: node_exporter on 127.0.0.1:$port" ||
        { fail "$n: node_exporter did not start"; cat "$tmp/ne-$n.out"; }
    targets="$targets
      - targets: ['127.0.0.1:$port']
        labels: {instance: $n, cluster: fleet, su: su1}"
done
cp "$top_srcdir/conf/prometheus/fabtune-rules.yml" "$tmp/rules.yml"
cat > "$tmp/prometheus.yml" <<EOC
global: {scrape_interval: 1s, scrape_timeout: 1s, evaluation_interval: 1s}
rule_files: ['$tmp/rules.yml']
scrape_configs:
  - job_name: node
    static_configs:$targets
EOC
promtool check config "$tmp/prometheus.yml" > "$tmp/config.out" 2>&1 && pass "promtool check config" ||
    { fail "promtool check config"; cat "$tmp/config.out"; }
serve prometheus /-/ready prometheus_server &&
    pass "prometheus ready on 127.0.0.1:$port" || { fail "prometheus did not start"; tail -20 "$tmp/prometheus.out"; }
api="http://127.0.0.1:$port/api/v1"
query() { curl -sfG --data-urlencode "query=$1" "$api/query"; }   # query EXPR: the JSON reply

# Wait, bounded, for every target up with fabtune's series and for the rules' evaluation.
ready=
for _ in $(seq 120); do
    n=$(query 'count(fabtune_build_info{cluster="fleet"})' | jq -r '.data.result[0].value[1] // 0')
    a=$(query 'count(ALERTS{alertname=~"FabtuneRailSwitchDiffers|FabtuneSysctlDrift"})' | jq -r '.data.result[0].value[1] // 0')
    [ "$n" = 3 ] && [ "$a" = 2 ] && { ready=1; break; }
    sleep 0.5
done
[ -n "$ready" ] && pass "Prometheus has the three nodes' series and the rules' ALERTS" ||
    { fail "Prometheus: $n nodes, $a of the alerts after 60 s"; query up | jq -c '.data.result[]'; }
curl -sf "$api/rules" | jq -r '[.data.groups[].name] | sort | join(" ")' > "$tmp/groups"
expect_match '^fabtune-cabling fabtune-cluster fabtune-jobs fabtune-node fabtune-reporting$' "$tmp/groups"

# --- Every panel's every target through the HTTP API. ---
mkdir "$tmp/res"
jq -r '.panels[] | select(.type != "row") | .title as $t | .targets[] | [$t, .refId, .expr] | @tsv' "$dash" > "$tmp/targets"
k=0
echo "# panel | refId | series | instances | query, then its series (at most 12)"
while IFS="$(printf '\t')" read -r title ref expr; do
    k=$((k + 1))
    q=$(printf '%s' "$expr" | sed 's/\$cluster/fleet/g; s/\$su/.*/g')
    printf '%s\t%s\n' "$title" "$ref" > "$tmp/res/$k.id"
    if query "$q" > "$tmp/res/$k.json" && [ "$(jq -r .status "$tmp/res/$k.json")" = success ]; then
        jq '.data.result' "$tmp/res/$k.json" > "$tmp/res/$k.r"
        count=$(jq length "$tmp/res/$k.r")
        who=$(jq -r '[.[].metric.instance // empty] | unique | join(",")' "$tmp/res/$k.r")
        echo "# $title | $ref | $count | ${who:--} | $q"
        jq -r '.[] | "#     \(.metric.instance // "-") \(.metric | del(.__name__, .cluster, .su, .job, .instance) |
            to_entries | map("\(.key)=\(.value)") | join(" ")) = \(.value[1])"' "$tmp/res/$k.r" | head -12
        [ "$count" -gt 0 ] && pass "'$title' $ref: $count series" || fail "'$title' $ref: no series: $q"
    else
        fail "'$title' $ref: the query failed: $q"; cat "$tmp/res/$k.json"
        echo '[]' > "$tmp/res/$k.r"
    fi
done < "$tmp/targets"
[ "$k" = "$(jq '[.panels[].targets[]?] | length' "$dash")" ] && [ "$k" -ge 20 ] && pass "all $k targets queried" ||
    fail "$k targets queried"

# panel TITLE REFID JQ WHAT: the result of that target (the API's .data.result) makes JQ true.
panel() {
    f=$(grep -lxF "$(printf '%s\t%s' "$1" "$2")" "$tmp/res/"*.id | head -1)
    r=${f%.id}.r
    if [ -n "$f" ] && jq -e "$3" "$r" > /dev/null 2>&1; then pass "'$1' $2: $4"
    else fail "'$1' $2: $4 ($3)"; jq -c '.[] | [.metric, .value[1]]' "$r" 2>/dev/null | head -10; fi
}
inst='([.[].metric.instance] | unique)'
val='(.value[1] | tonumber)'
# by_node: {instance: value}, for results of one series per node
by_node='map({(.metric.instance): (.value[1] | tonumber)}) | add'
panel "Nodes by verdict" A 'any(.[]; .metric.verdict == "NOT_READY" and (.value[1] | tonumber) == 3)' \
    "3 nodes NOT_READY (the RDMA probe cannot run here)"
panel "Node verdicts" A "$inst == [\"node-a\",\"node-b\",\"node-c\"]" "one verdict per node"
panel "Node verdicts" B "$by_node | .[\"node-c\"] > .[\"node-a\"] and .[\"node-c\"] > .[\"node-b\"]" \
    "node-c has the most errors"
panel "Rails not READY, and why" A '[.[] | select(.metric.check == "fabric.cabling") | .metric.instance] == ["node-c"]' \
    "fabric.cabling keeps node-c's rail from READY, and only node-c's"
panel "Rails not READY, and why" A '[.[] | select(.metric.check == "probe.rdma.latency") | .metric.instance] | length == 3' \
    "probe.rdma.latency on every node (no verbs device here)"
panel "Probe latency p50 per path" A "$inst == [\"node-a\",\"node-b\",\"node-c\"] and all(.[]; .metric.probe == \"tcp\" and $val > 0)" \
    "the TCP probe's p50 on every node"
panel "Probe latency p99 per path" A "all(.[]; $val > 0 and $val < 1)" "p99s in seconds"
panel "Stragglers: p50 against the cluster's median" A "length == 3 and ([.[] | $val] | sort | .[1]) == 1" \
    "one ratio per node, the median node at 1"
panel "Symbol errors and link downs per rail" A '[.[] | select((.value[1] | tonumber) > 0) | "\(.metric.instance) \(.metric.class) \(.value[1])"] | sort == ["node-c link 36", "node-c link_down 2"]' \
    "node-c's 36 symbol errors and 2 link downs, no other node's"
panel "Carrier changes per rail" A "$by_node | .[\"node-c\"] == .[\"node-a\"] + 4 and .[\"node-a\"] == .[\"node-b\"]" \
    "node-c's carrier changed 4 times more (two flaps)"
panel "Link events per second" A "length == 6 and all(.[]; $val == 0)" \
    "two link classes on each of 3 rails, at 0: no counter moved in the daemons' life"
panel "Modules" A '[.[] | "\(.metric.instance) \(.metric.identifier) \(.metric.media)"] | sort | .[2] | startswith("node-c OSFP")' \
    "node-c's OSFP module"
panel "Modules" B "$by_node | .[\"node-c\"] == 72.25 and .[\"node-a\"] < 70" "node-c's module at 72.25 C, over its 70 C warning"
panel "Module temperature" A "max_by($val) | .metric.instance == \"node-c\"" "the hottest module is node-c's"
panel "Optics: RX power per lane" A "all(.[]; $val < 10 and $val > -40) and (min_by($val) | .metric.instance == \"node-c\" and .metric.lane == \"6\" and ((.value[1] | tonumber) * 100 | round) == -1301)" \
    "RX power in dBm; the weakest lane is node-c's lane 6, at -13.01 dBm"
panel "Neighbours" A '[.[] | "\(.metric.instance) \(.metric.switch) \(.metric.switch_port)"] | sort == ["node-a leaf-r0 swp1", "node-b leaf-r0 swp2", "node-c leaf-r1 swp3"]' \
    "each node's rail and its switch port; node-c on leaf-r1"
panel "Cabling offenders" A '[.[] | "\(.metric.alertname) \(.metric.instance) \(.metric.switch)"] == ["FabtuneRailSwitchDiffers node-c leaf-r1"]' \
    "FabtuneRailSwitchDiffers names node-c, alone"
panel "Sysctl drift" A '[.[] | "\(.metric.instance) \(.metric.key)"] == ["node-c net.ipv4.tcp_fin_timeout"]' \
    "node-c's tcp_fin_timeout, alone"
panel "NCCL contract: variables that differ" A '[.[] | "\(.metric.instance) \(.metric.variable)=\(.metric.value)"] | sort == ["node-a NCCL_IB_TC=106", "node-b NCCL_IB_TC=106", "node-c NCCL_IB_TC=98"]' \
    "NCCL_IB_TC on each node: 106, 106, 98"
panel "NCCL contract: the odd ones out" A '[.[] | "\(.metric.instance) \(.metric.variable)=\(.metric.value)"] == ["node-c NCCL_IB_TC=98"]' \
    "node-c's NCCL_IB_TC=98, alone"
finish
