#!/bin/sh
# SPDX-License-Identifier: ISC
# The operator's sequence, run by fabtune-vm-test.service with systemd 252 as PID 1 on an
# overlay of the host's root, on a live Soft-RoCE rail (rxe0 on a veth pair): install the
# package (or the make-install tree), enable --now, status as root and as group members,
# the sandbox's writes and RDMA probe, alerts, wait-ready ordering, reload, the watchdog,
# socket activation, revert on stop, the start limit, and purge.
# Writes "PASS id text", "FAIL id text", "TIME key=value" and "INFO text" lines to
# $R/results (tests/guest-systemd/run.sh checks every expected id), evidence to $R/evidence/.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export SYSTEMD_PAGER= SYSTEMD_COLORS=0 LC_ALL=C DEBIAN_FRONTEND=noninteractive
# A make-install tree under another prefix (distcheck's) says where its programs are.
[ -f /var/cache/fabtune-vm/path ] && PATH=$(cat /var/cache/fabtune-vm/path):$PATH
R=/mnt/results
mkdir -p $R/evidence
res=$R/results
: > $res
U=fabtuned.service
ADDR=192.0.2.1
POLICY=/etc/fabtune/fabtune.yaml
M_PORT=4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a02

up() { cut -d' ' -f1 /proc/uptime; }
con() { echo "$*" > /dev/console; }
mark() { con "@@SVM $* uptime=$(up)"; }
rec() { con "$*"; echo "$*" >> $res; }
pass() { id=$1; shift; rec "PASS $id $*"; }
fail() { id=$1; shift; rec "FAIL $id $*"; }
info() { rec "INFO $*"; }
# check ID TEXT CMD...: PASS or FAIL on CMD's exit status
check() { id_=$1 t_=$2; shift 2; if "$@" > /dev/null 2>&1; then pass "$id_" "$t_"; else fail "$id_" "$t_"; fi; }
ev() { f=$R/evidence/$1; shift; "$@" > "$f" 2>&1; }
# has PATTERN TEXT: TEXT (any quotes in it) matches the basic regex PATTERN
has() { printf '%s\n' "$2" | grep -q -- "$1"; }
prop() { systemctl show -p "$1" --value "$2"; }
secs() { awk "BEGIN { printf \"%.2f\", ($1) / 1000000 }"; }
since() { awk "BEGIN { printf \"%.1f\", $(up) - $1 }"; }
cursor() { journalctl -n 0 --show-cursor 2>/dev/null | sed -n 's/^-- cursor: //p'; }
jafter() { journalctl --sync 2>/dev/null; c_=$1; shift; journalctl --after-cursor="$c_" -o short-monotonic --no-pager "$@"; }
# waitfor SECONDS CMD...: CMD every half second until it succeeds or SECONDS (guest clock) pass
waitfor() {
    end=$(($(cut -d. -f1 /proc/uptime) + $1)); shift
    while :; do
        "$@" > /dev/null 2>&1 && return 0
        [ "$(cut -d. -f1 /proc/uptime)" -ge $end ] && return 1
        sleep 0.5
    done
}
active() { [ "$(systemctl is-active "$1")" = active ]; }
summary() { systemctl show -p ActiveState,SubState,Result,NRestarts,MainPID,StatusText "$1" | tr '\n' ' '; }
dropin() {   # dropin UNIT NAME TEXT: a runtime drop-in, then daemon-reload
    mkdir -p "/run/systemd/system/$1.d"
    printf '%s\n' "$3" > "/run/systemd/system/$1.d/$2.conf"
    systemctl daemon-reload
}
# Under TCG the socket can stay unanswered for seconds while a probe runs: fabtunectl is
# retried on a time-out, never on a refusal.
ctl() {
    for i_ in 1 2 3 4; do
        out_=$("$@" 2>&1); rc_=$?
        case $out_ in *"timed out"*) sleep 1; continue ;; esac
        printf '%s\n' "$out_"; return $rc_
    done
    printf '%s\n' "$out_"; return $rc_
}
verdict() { ctl fabtunectl --json status | jq -r .verdict; }
finding() { ctl fabtunectl --json checks | jq -r ".[] | select(.check == \"$1\") | \"\(.severity) \(.message)\""; }
probe_now() {
    ctl fabtunectl probe-now > /dev/null
    sleep 1
    waitfor 120 sh -c '! fabtunectl --json probes | jq -e .running'
}

mark test-start
# ---- 0. the init system --------------------------------------------------------------------
check boot.pid1 "PID 1 is systemd ($(systemctl --version | head -1))" [ "$(cat /proc/1/comm)" = systemd ]
waitfor 60 sh -c '[ "$(systemctl is-system-running)" != starting ]'
rec "TIME boot_to_pid1_s=$(secs "$(systemctl show -p UserspaceTimestampMonotonic --value)") (guest clock, kernel start to systemd)"
rec "TIME boot_to_basic_target_s=$(secs "$(prop ActiveEnterTimestampMonotonic basic.target)") (guest clock)"
ev boot-failed-units systemctl list-units --failed --no-legend --plain
[ -s $R/evidence/boot-failed-units ] && info "units failed at boot: $(awk '{ print $1 }' $R/evidence/boot-failed-units | tr '\n' ' ')"

# ---- 1. the rail: rxe0 on a veth pair, before fabtune arrives ---------------------------------
ip link add v0 type veth peer name v1
ip addr add $ADDR/24 dev v0
ip link set v0 up
ip link set v1 up
rdma link add rxe0 type rxe netdev v0
waitfor 20 grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state
check rail.rxe0 "rxe0 on v0 is ACTIVE" grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state

# ---- 2. install: the Debian package with dpkg, or the make-install tree ------------------------
deb=$(ls /var/cache/fabtune-vm/fabtune_*.deb 2>/dev/null | head -1)
rm -f /var/lib/man-db/auto-update       # no man-db trigger run over 9p under TCG
mark install
t0=$(up)
if [ -n "$deb" ]; then
    INSTALL=deb
    ev dpkg-install dpkg -i "$deb"
    check install.deb "dpkg -i $(basename "$deb") (rc in evidence/dpkg-install)" dpkg -s fabtune
    rec "TIME dpkg_install_s=$(since $t0)"
    # Debian starts a service it installs: postinst enabled and started the socket and daemon.
    waitfor 60 active $U
    check install.started "postinst enabled and started fabtuned (and its socket): $(summary $U)" \
        sh -c "systemctl is-enabled $U && systemctl is-enabled fabtuned.socket && systemctl is-active $U"
else
    INSTALL=make-install
    info "no .deb given: the make install tree, set up as the README says"
    systemd-sysusers > /dev/null 2>&1; systemd-tmpfiles --create > /dev/null 2>&1
    journalctl --update-catalog > /dev/null 2>&1; systemctl daemon-reload
    pass install.deb "make install tree copied in; sysusers, tmpfiles and the catalog run by hand"
    pass install.started "(make install: nothing is started at install)"
fi
g=$(getent group fabtune)
check install.group "group fabtune exists ($g)" [ -n "$g" ]
check install.dirs "/run/fabtune and /var/lib/fabtune exist" test -d /run/fabtune -a -d /var/lib/fabtune
check install.nccl_link "/etc/nccl.conf -> $(readlink /etc/nccl.conf)" [ "$(readlink /etc/nccl.conf)" = /run/fabtune/nccl.conf ]
n=$(journalctl --list-catalog 2>/dev/null | grep -c 4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a0)
check install.catalog "the journal catalog knows $n fabtune MESSAGE_IDs" [ "$n" -ge 9 ]
if [ "$INSTALL" = deb ]; then
    check install.conffile "the policy is a conffile in verify mode" \
        sh -c "grep -qx $POLICY /var/lib/dpkg/info/fabtune.conffiles && grep -q '^  mode: verify' $POLICY"
else
    pass install.conffile "(make install: no conffile; the built-in policy applies)"
fi
systemctl disable --now $U fabtuned.socket > /dev/null 2>&1
check install.disabled "disable --now stops both" sh -c "! systemctl is-active -q $U && ! systemctl is-active -q fabtuned.socket"

# ---- 3. a one-rail policy: enforce with revert_on_stop, every output --------------------------
mkdir -p /etc/fabtune
cat > $POLICY <<EOP
version: 1
rails:
  link_layer: ethernet
  expect_count: 1
  roce: {version: 2, address_family: ipv4, gid_index: auto, subnet: 192.0.2.0/24}
# rxe under TCG retries its own RC traffic (completer_retry_err at 1-20/s): not a loss here.
# A flap keeps the rail DEGRADED for 30 s after the link returns (section 9 waits it out).
checks: {interval: 5s, counters: {loss: 1000000, sticky_window: 30s}}
tuning:
  mode: enforce
  revert_on_stop: true
  sysctl: {net.core.rmem_max: 134217728, net.core.wmem_max: 134217728, vm.zone_reclaim_mode: 0}
probes: {enabled: true, interval: 10m}
outputs:
  nccl_env: /run/fabtune/nccl.env
  nccl_conf: /etc/nccl.conf
  prometheus_textfile: /var/lib/prometheus/node-exporter/fabtune.prom
EOP
check policy.valid "fabtuned --check-config" fabtuned --check-config -c $POLICY
rmem_before=$(sysctl -n net.core.rmem_max)
mkdir -p /var/lib/prometheus/node-exporter

# ---- 4. systemctl enable --now fabtuned ----------------------------------------------------------
mark enable-now
c=$(cursor)
t0=$(up)
ev enable-now systemctl enable --now $U
rc=$?
rec "TIME enable_now_s=$(since $t0) (rc $rc; includes systemd's daemon-reload)"
s=$(prop ExecMainStartTimestampMonotonic $U) a=$(prop ActiveEnterTimestampMonotonic $U)
[ "$a" -gt 0 ] && rec "TIME fabtuned_exec_to_ready_s=$(secs "$a - $s")"
mark fabtuned-ready
ev show-after-start systemctl show -p ActiveState,SubState,StatusText,NRestarts $U
check unit.active "enable --now: $(tr '\n' ' ' < $R/evidence/show-after-start)" \
    grep -qx ActiveState=active $R/evidence/show-after-start
check unit.notify "Type=notify: running with StatusText and no restart" \
    sh -c "grep -qx SubState=running $R/evidence/show-after-start && grep -q '^StatusText=.*1 rail' $R/evidence/show-after-start && grep -qx NRestarts=0 $R/evidence/show-after-start"
check unit.socket "Also=: fabtuned.socket enabled and active, and the daemon took it from systemd" \
    sh -c "journalctl --sync; systemctl is-enabled -q fabtuned.socket && systemctl is-active -q fabtuned.socket && journalctl --after-cursor='$c' -u $U | grep -q 'Control socket from systemd'"

# ---- 5. status as root, as members of group fabtune, as anyone else -----------------------------
check ctl.root "fabtunectl status as root" ctl fabtunectl status
useradd -M -N -s /usr/sbin/nologin -G fabtune fabmember 2>/dev/null
useradd -M -N -s /usr/sbin/nologin outsider 2>/dev/null
gid=$(getent group fabtune | cut -d: -f3)
check ctl.member "a member of group fabtune (supplementary, from /etc/group)" \
    ctl setpriv --reuid=fabmember --regid=users --init-groups fabtunectl status
check ctl.supplementary "nobody holding group fabtune only as a supplementary group (SO_PEERGROUPS)" \
    ctl setpriv --reuid=nobody --regid=nogroup --groups="$gid" fabtunectl status
out=$(ctl setpriv --reuid=outsider --regid=users --init-groups fabtunectl status); rc=$?
check ctl.outsider "a non-member is refused (rc $rc: $out)" [ $rc -ne 0 ]
out=$(ctl setpriv --reuid=fabmember --regid=users --init-groups fabtunectl reload)
check ctl.member_reload "reload by a non-root member is refused: $out" has 'needs root' "$out"

# ---- 6. what the sandbox lets it write ----------------------------------------------------------
check sandbox.sysctl "tuning enforce under ProtectSystem=strict: net.core.rmem_max $rmem_before -> $(sysctl -n net.core.rmem_max)" \
    [ "$(sysctl -n net.core.rmem_max)" = 134217728 ]
check sandbox.nccl_env "/run/fabtune/nccl.env: $(grep -v '^#' /run/fabtune/nccl.env 2>/dev/null | tr '\n' ' ')" \
    grep -q NCCL_IB_HCA=.*rxe0 /run/fabtune/nccl.env
check sandbox.nccl_conf "outputs.nccl_conf /etc/nccl.conf, written through its link into /run/fabtune: $(grep -v '^#' /etc/nccl.conf 2>/dev/null | tr '\n' ' ')" \
    sh -c "[ -L /etc/nccl.conf ] && grep -q NCCL_IB_GID_INDEX /run/fabtune/nccl.conf"
check sandbox.textfile "the Prometheus textfile" [ -s /var/lib/prometheus/node-exporter/fabtune.prom ]
check sandbox.state "StateDirectory: $(ls /var/lib/fabtune | tr '\n' ' ')" [ -s /var/lib/fabtune/sysctl-originals.json ]

# ---- 7. the RDMA probe inside the sandbox, and what jobs may lock ---------------------------------
probe_now
ctl fabtunectl --json probes > $R/evidence/probes.json
p=$(jq -r '.last_run.targets[]? | select(.target == "rxe0/1") | .rdma_latency.error // "p50 \(.rdma_latency.latency_seconds.p50 * 1e6 | floor) us"' $R/evidence/probes.json)
check sandbox.rdma_probe "RDMA probe on rxe0/1 under DevicePolicy=closed: $p" has '^p50 [0-9]* us' "$p"
m=$(finding host.memlock)
check memlock.systemd "host.memlock judges what jobs get, not the unit's LimitMEMLOCK=infinity: $m" \
    has "^warning .*8388608 bytes, from systemd's DefaultLimitMEMLOCK" "$m"
# The operator's fix: memlock unlimited for every login session, as rdma-core suggests.
printf '* soft memlock unlimited\n* hard memlock unlimited\n' > /etc/security/limits.d/90-rdma.conf
waitfor 30 sh -c "fabtunectl --json checks | jq -e '.[] | select(.check == \"host.memlock\" and .severity == \"ok\")'"
m=$(finding host.memlock)
check memlock.limits_d "after limits.d/90-rdma.conf: $m" has '^ok .*90-rdma.conf:1' "$m"
waitfor 60 sh -c '[ "$(fabtunectl --json status | jq -r .verdict)" = READY ]'
ctl fabtunectl --json status | jq -r '.failing[]? | "\(.check) \(.message)"' > $R/evidence/failing
check unit.ready "verdict READY on rxe0 under the unit ($(tr '\n' ';' < $R/evidence/failing))" [ "$(verdict)" = READY ]
# The textfile the unit wrote, with the RDMA probe's series, as promtool reads it.
waitfor 30 grep -q '^fabtune_probe_latency_p50_seconds{device="rxe0".*probe="rdma"' /var/lib/prometheus/node-exporter/fabtune.prom
ev promtool promtool check metrics < /var/lib/prometheus/node-exporter/fabtune.prom
check metrics.promtool "promtool check metrics on the unit's textfile ($(grep -vc '^#' /var/lib/prometheus/node-exporter/fabtune.prom) samples, RDMA p50 $(sed -n 's/^fabtune_probe_latency_p50_seconds{device="rxe0".*probe="rdma"} //p' /var/lib/prometheus/node-exporter/fabtune.prom) s): $(head -c 200 $R/evidence/promtool)" \
    sh -c "promtool check metrics < /var/lib/prometheus/node-exporter/fabtune.prom && [ ! -s $R/evidence/promtool ] && grep -q '^fabtune_probe_latency_p50_seconds{device=\"rxe0\".*probe=\"rdma\"}' /var/lib/prometheus/node-exporter/fabtune.prom"

# ---- 7b. another user's NCCL job, seen through the sandbox: under ProtectProc=invisible root
# sees, and reads the maps and environ of, only the processes CAP_SYS_PTRACE lets it (the
# ptrace calls themselves stay filtered, @debug) --------------------------------------------------
mkdir -p /run/fabtune-vm-job
head -c 65536 /dev/zero > /run/fabtune-vm-job/libnccl.so.2
chmod 755 /run/fabtune-vm-job; chmod 644 /run/fabtune-vm-job/libnccl.so.2
setpriv --reuid=nobody --regid=nogroup --clear-groups env NCCL_IB_HCA=mlx5_99 NCCL_RAS_ENABLE=0 \
    setsid python3 -c 'import mmap, sys, time
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
time.sleep(600)' /run/fabtune-vm-job/libnccl.so.2 &
jpid=$!
waitfor 40 sh -c "fabtunectl --json checks | jq -e '.[] | select(.check == \"job.nccl_env\" and .subject == \"job $jpid\")'"
ev jobs fabtunectl jobs
j=$(fabtunectl --json checks | jq -r ".[] | select(.check == \"job.nccl_env\" and .subject == \"job $jpid\") | \"\(.severity) \(.message)\"")
check sandbox.jobs "nobody's NCCL process, under the unit: $j" has "^error session $jpid (python3): NCCL_IB_HCA names mlx5_99, which is no rail of this node" "$j"
kill $jpid; wait $jpid 2>/dev/null
waitfor 40 sh -c "! fabtunectl --json checks | jq -e '.[] | select(.check | startswith(\"job.\"))'"

# ---- 8. a rail goes down: journald alerts with the catalog's MESSAGE_IDs ---------------------------
c=$(cursor)
mark rail-down
t0=$(up)
ip link set v1 down
waitfor 30 sh -c "journalctl --sync; journalctl --after-cursor='$c' -o json MESSAGE_ID=$M_PORT | grep -q raised"
rec "TIME rail_down_to_alert_s=$(since $t0)"
journalctl --after-cursor="$c" -o json MESSAGE_ID=$M_PORT |
    jq -r '"\(._SYSTEMD_UNIT) PRIORITY=\(.PRIORITY) \(.FABTUNE_CHECK) \(.FABTUNE_RAIL) \(.FABTUNE_STATE)"' > $R/evidence/alert-down
check alert.raised "rail down: $(head -1 $R/evidence/alert-down)" \
    grep -q "^fabtuned.service PRIORITY=3 port\..* rxe0/1 raised" $R/evidence/alert-down
journalctl -x --after-cursor="$c" MESSAGE_ID=$M_PORT --no-pager > $R/evidence/alert-catalog 2>&1
check alert.catalog "journalctl -x: $(grep -m1 'Subject:' $R/evidence/alert-catalog | sed 's/^.*Subject: //')" \
    grep -q "Subject: fabtune: an RDMA port changed state" $R/evidence/alert-catalog
waitfor 20 sh -c "systemctl show -p StatusText --value $U | grep -q NOT_READY"
check alert.status_text "StatusText: $(prop StatusText $U)" sh -c "systemctl show -p StatusText --value $U | grep -q NOT_READY"

# ---- 9. jobs ordered after readiness wait for READY ----------------------------------------------
systemctl start --no-block fabtune-vm-consumer.service fabtune-vm-scheduler.service
sleep 3
ev jobs-while-down systemctl list-jobs --no-legend
check ready.waits "rail down: wait-ready $(systemctl is-active fabtune-wait-ready.service), the Requires= job $(systemctl is-active fabtune-vm-consumer.service), the fabtune-ready.target job $(systemctl is-active fabtune-vm-scheduler.service)" \
    sh -c "[ \"\$(systemctl is-active fabtune-wait-ready.service)\" = activating ] && ! systemctl is-active -q fabtune-vm-consumer.service && ! systemctl is-active -q fabtune-vm-scheduler.service"
mark rail-up
t0=$(up)
ip link set v1 up
waitfor 150 sh -c "systemctl is-active -q fabtune-vm-consumer.service && systemctl is-active -q fabtune-vm-scheduler.service"
up_to_jobs=$(since $t0)
rec "TIME rail_up_to_jobs_s=$up_to_jobs"
# The link's memory: the jobs wait out the sticky window (30 s from the flap the daemon saw
# after the link came back), never less, however loaded the machine.
check ready.sticky "rail up: the jobs started ${up_to_jobs} s later (sticky window 30 s)" \
    awk -v s="$up_to_jobs" 'BEGIN { exit !(s >= 29) }'
# Type=exec: a job is active once its script runs, before it has asked fabtune (up to 10
# tries a second apart) and written what it heard.
waitfor 30 sh -c "[ -s /run/fabtune-vm-consumer ] && [ -s /run/fabtune-vm-scheduler ]"
check ready.starts "rail up: both jobs started; they saw: $(cat /run/fabtune-vm-consumer 2>&1) / $(cat /run/fabtune-vm-scheduler 2>&1)" \
    sh -c "grep -q '^fabtune: READY' /run/fabtune-vm-consumer && grep -q '^fabtune: READY' /run/fabtune-vm-scheduler"
# The kernel log under the unit's ProtectKernelLogs=yes: read through the journal (a
# "journal:" cursor), which holds rdma_rxe's "set down" of the rail going down above: a
# notice on nic.link, counted, never a warning.
fabtunectl reload > /dev/null 2>&1
nic=$(fabtunectl --json checks | jq -r '.[] | select(.check == "nic.link" and .rail == "rxe0/1") | "\(.severity) \(.actual)"')
kcursor=$(jq -r '.kernel_cursor // ""' /var/lib/fabtune/links.json)
check sandbox.kernel_log "the kernel log through the journal: cursor ${kcursor%%;*}; nic.link rxe0/1: $nic" \
    sh -c "case '${kcursor%%;*}' in journal:*) ;; *) exit 1 ;; esac && echo '$nic' | grep -q '^ok [1-9][0-9]* messages*, the last at'"
check ready.security "fabtune-wait-ready: $(systemd-analyze security fabtune-wait-ready.service 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: //p')" \
    sh -c "systemd-analyze security fabtune-wait-ready.service | grep -q 'exposure level.*: [01]\.'"

# ---- 10. reload: a good policy, then a bad one ---------------------------------------------------
c=$(cursor); pid=$(prop MainPID $U)
systemctl reload $U
waitfor 30 sh -c "journalctl --sync; journalctl --after-cursor='$c' -u $U | grep -q 'Policy reloaded'"
check reload.good "systemctl reload: 'Policy reloaded', same MainPID" \
    sh -c "journalctl --after-cursor='$c' -u $U | grep -q 'Policy reloaded' && [ \"\$(systemctl show -p MainPID --value $U)\" = $pid ]"
cp $POLICY $POLICY.good
echo "rails: {expect_cont: 1}" >> $POLICY
systemctl reload $U
waitfor 30 sh -c "systemctl show -p StatusText --value $U | grep -q 'policy reload failed'"
check reload.bad "a broken policy keeps the old one: StatusText='$(prop StatusText $U)'" \
    sh -c "systemctl show -p StatusText --value $U | grep -q 'policy reload failed' && systemctl is-active -q $U"
# An output outside ReadWritePaths= is refused at load, not failed at every write.
cp $POLICY.good $POLICY
sed -i 's|prometheus_textfile: .*|prometheus_textfile: /opt/fabtune.prom|' $POLICY
c=$(cursor)
out=$(ctl fabtunectl reload)
check reload.sandbox "a textfile under /opt is refused under ProtectSystem=strict: $(printf '%s' "$out" | head -c 200)" \
    has 'outputs.prometheus_textfile: /opt/fabtune.prom: cannot be written here: /opt: Read-only file system' "$out"
mv $POLICY.good $POLICY
systemctl reload $U

# ---- 11. the watchdog restarts a hung daemon; the jobs after readiness keep running --------------
dropin $U 60-watchdog "$(printf '[Service]\nWatchdogSec=6s\nTimeoutAbortSec=3s')"
systemctl restart $U
waitfor 60 sh -c '[ "$(fabtunectl --json status | jq -r .verdict)" = READY ]'
cpid=$(prop MainPID fabtune-vm-consumer.service); spid=$(prop MainPID fabtune-vm-scheduler.service)
wr=$(prop ActiveEnterTimestampMonotonic fabtune-wait-ready.service)
n0=$(prop NRestarts $U); pid=$(prop MainPID $U); c=$(cursor)
mark watchdog-stop
t0=$(up)
systemctl kill -s SIGSTOP $U
waitfor 90 sh -c "[ \"\$(systemctl show -p NRestarts --value $U)\" != '$n0' ] && systemctl is-active -q $U"
rec "TIME watchdog_sigstop_to_active_s=$(since $t0) (WatchdogSec=6s, RestartSec=5s)"
jafter "$c" | grep -a -E "fabtune|watchdog" > $R/evidence/watchdog
check watchdog.restart "SIGSTOP: 'Watchdog timeout', restarted (NRestarts $n0 -> $(prop NRestarts $U))" \
    sh -c "grep -q 'fabtuned.service: Watchdog timeout' $R/evidence/watchdog && systemctl is-active -q $U && [ \"\$(systemctl show -p MainPID --value $U)\" != $pid ]"
check watchdog.jobs_kept "the jobs after readiness kept running (MainPID $cpid and $spid), wait-ready not restarted" \
    sh -c "[ \"\$(systemctl show -p MainPID --value fabtune-vm-consumer.service)\" = $cpid ] && [ \"\$(systemctl show -p MainPID --value fabtune-vm-scheduler.service)\" = $spid ] && [ \"\$(systemctl show -p ActiveEnterTimestampMonotonic --value fabtune-wait-ready.service)\" = $wr ]"
rm -rf /run/systemd/system/$U.d
systemctl daemon-reload
systemctl stop fabtune-vm-consumer.service fabtune-vm-scheduler.service

# ---- 12. socket activation: the socket alone, then the first query starts the daemon ------------
systemctl stop $U fabtuned.socket
systemctl start fabtuned.socket
check socket.alone "the socket alone: socket $(systemctl is-active fabtuned.socket), service $(systemctl is-active $U)" \
    sh -c "systemctl is-active -q fabtuned.socket && ! systemctl is-active -q $U"
c=$(cursor)
mark socket-activation
t0=$(up)
ctl fabtunectl status > $R/evidence/status-activated; rc=$?
rec "TIME socket_activation_s=$(since $t0) (rc $rc)"
waitfor 30 active $U
check socket.activation "the first fabtunectl status started the service, which took systemd's socket" \
    sh -c "journalctl --sync; systemctl is-active -q $U && journalctl --after-cursor='$c' -u $U | grep -q 'Control socket from systemd (socket activation)'"

# ---- 13. revert_on_stop: systemctl stop restores the sysctls -----------------------------------------
waitfor 30 sh -c '[ "$(sysctl -n net.core.rmem_max)" = 134217728 ]'
systemctl stop $U fabtuned.socket
check stop.revert "revert_on_stop: net.core.rmem_max back to $rmem_before (now $(sysctl -n net.core.rmem_max))" \
    [ "$(sysctl -n net.core.rmem_max)" = "$rmem_before" ]
check stop.clean "stopped: Result=$(prop Result $U), the socket node gone" \
    sh -c "[ \"\$(systemctl show -p Result --value $U)\" = success ] && [ ! -e /run/fabtune/fabtuned.sock ]"

# ---- 14. a unit that cannot start stops retrying: the start limit is reached -----------------------
dropin $U 70-broken "$(printf '[Service]\nExecStart=\nExecStart=%s -c /nonexistent/fabtune.yaml' "$(command -v fabtuned)")"
c=$(cursor)
t0=$(up)
systemctl start $U > /dev/null 2>&1
waitfor 90 sh -c "journalctl --sync; journalctl --after-cursor='$c' | grep -q 'fabtuned.service: Start request repeated too quickly'"
t1=$(since $t0)
n=$(prop NRestarts $U)
sleep 8      # RestartSec=5s: one more retry would show by now
check start_limit.hit "a daemon that exits at once: 'Start request repeated too quickly' after $t1 s, then $(summary $U)" \
    sh -c "journalctl --after-cursor='$c' | grep -q 'fabtuned.service: Start request repeated too quickly' && [ \"\$(systemctl show -p ActiveState --value $U)\" = failed ] && [ \"\$(systemctl show -p NRestarts --value $U)\" = $n ]"
rm -rf /run/systemd/system/$U.d
systemctl daemon-reload
systemctl reset-failed $U fabtuned.socket

# ---- 15. dpkg --purge leaves nothing behind ----------------------------------------------------------
journalctl -b -o short-monotonic --no-pager > $R/journal.txt 2>&1
if [ "$INSTALL" = deb ]; then
    dpkg -L fabtune | while read -r f; do [ -f "$f" ] && echo "$f"; done > $R/evidence/package-files
    systemctl start $U      # purge a running install, as an operator would
    ev dpkg-purge dpkg --purge fabtune
    left=$(while read -r f; do [ -e "$f" ] && echo "$f"; done < $R/evidence/package-files)
    for f in /var/lib/fabtune /run/fabtune /etc/nccl.conf /etc/fabtune/fabtune.yaml \
             /var/lib/prometheus/node-exporter/fabtune.prom; do
        [ -e "$f" ] || [ -L "$f" ] && left="$left $f"
    done
    check purge.files "dpkg --purge: no file left (left: ${left:-none})" [ -z "$left" ]
    units="fabtuned.service fabtuned.socket fabtune-wait-ready.service fabtune-ready.target"
    check purge.units "no fabtune unit or process left: $(systemctl list-units --no-legend $units | tr '\n' ' ')$(pgrep -l fabtuned)" \
        sh -c "[ -z \"\$(systemctl list-units --no-legend --state=active,activating $units)\" ] && ! pgrep -x fabtuned"
else
    pass purge.files "(make install: no package to purge)"
    pass purge.units "(make install: no package to purge)"
fi
mark test-done
rec "TIME test_done_s=$(up) (guest clock)"
