#!/bin/sh
# SPDX-License-Identifier: ISC
# The daemon on real components: a systemd-journald of its own, a private network and
# mount namespace, a veth pair as the rail's netdev, fabtunectl as root and as nobody.
# The rail is the Soft-RoCE fixture's rxe0/1 whose netdev v0 is linked to the live veth's
# sysfs directory, so carrier changes are real; rtnetlink events trigger the re-checks.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -n -m --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
raw="$top_builddir/tests/ctl_raw"
tmp=$(mktemp -d /tmp/fabtune-daemon.XXXXXX)
export TMPDIR="$tmp"

# journald, standalone (PID 1 here need not be systemd): a real systemd-journald on private
# /run/systemd and /run/log in this namespace.
mkdir -p /run/systemd /run/log
mount -t tmpfs tmpfs /run/systemd
mount -t tmpfs tmpfs /run/log
/lib/systemd/systemd-journald & jpid=$!
for _ in $(seq 100); do [ -S /run/systemd/journal/socket ] && break; sleep 0.05; done
[ -S /run/systemd/journal/socket ] && pass "journald is up" || fail "journald did not start"

# The netns's own view of /sys/class/net, and the rail.
live_veth_rail "$tmp"

cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 1}
checks: {interval: 1h, counters: {interval: 1s, sticky_window: 0s}}  # the window: link-memory-daemon.sh
tuning: {mode: off}
probes: {enabled: false}
control: {group: daemon}
EOP
sock="$tmp/run/fabtuned.sock"
unlimited_proc "$tmp/proc"
# Under ASan, a small quarantine: freed replies must not pass for a growing queue (no
# effect on other builds).
ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=16" \
"$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" --procfs-root "$tmp/proc" --state-dir "$tmp/state" \
    --runtime-dir "$tmp/run" --log-target journal & dpid=$!
cleanup() { kill "$dpid" "$jpid" 2>/dev/null; wait "$dpid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done

verdict() { "$ctl" -s "$sock" --json status | jq -r "$1"; }
# Polls fabtunectl until jq expression $1 prints $2, for at most $3 seconds.
wait_for() {
    i=0 n=$(awk -v s="$3" 'BEGIN { print int(s * 20) }')
    while [ "$i" -lt "$n" ]; do
        [ "$(verdict "$1" 2>/dev/null)" = "$2" ] && return 0
        sleep 0.05; i=$((i + 1))
    done
    return 1
}
wait_for .verdict READY 5 && pass "status: READY with the rail up" || fail "status: $(verdict .verdict)"
verdict '.rails[0] | "\(.name) \(.netdev.name) \(.verdict)"' > "$tmp/r"
expect_match '^rxe0/1 v0 READY$' "$tmp/r"
# The verdict says why (issue 27, item 14): READY counts its checks, in the text and JSON.
expect_rc 0 "$ctl" -s "$sock" status
expect_match '^verdict: READY: [1-9][0-9]* checks ok' "$LAST_OUT"
verdict .verdict_cause > "$tmp/cause"
expect_match '^[1-9][0-9]* checks ok' "$tmp/cause"
expect_rc 0 "$ctl" -s "$sock" health --timeout 10
expect_match '^fabtune: READY$' "$LAST_OUT"
expect_rc 0 "$ctl" -s "$sock" gids
expect_match '^rxe0  *1  *[0-9]  *0000:0000:0000:0000:0000:ffff:c000:0201 192.0.2.1  *v2  *v0  *pick$' "$LAST_OUT"
expect_rc 0 "$ctl" -s "$sock" -j gids
jq -r '.[0] | "\(.device) \(.netdev) \(.pick)"' "$LAST_OUT" > "$tmp/g"
expect_match '^rxe0 v0 [0-9]$' "$tmp/g"
[ -s "$tmp/run/nccl.env" ] && pass "nccl.env written" || fail "no nccl.env"
expect_grep 'NCCL_IB_HCA==rxe0:1' "$tmp/run/nccl.env"

# Carrier loss: the rail turns NOT_READY, and journald gets the alert with its MESSAGE_ID.
t0=$(date +%s%N)
ip link set v1 down
wait_for '.rails[0].verdict' NOT_READY 5 && pass "carrier lost: rail NOT_READY" || fail "rail did not turn NOT_READY"
t1=$(date +%s%N)
echo "# carrier loss to NOT_READY in status: $(( (t1 - t0) / 1000000 )) ms"
# ... and NOT_READY names the failing checks, once each.
expect_rc 0 "$ctl" -s "$sock" status
expect_match '^verdict: NOT_READY: [1-9][0-9]* errors\{0,1\} (netdev.oper, netdev.carrier' "$LAST_OUT"
# status says when the last check ran and when the next one is due (checks.interval 1h).
expect_match '^last check: [0-9]* s ago; next at [0-2][0-9]:[0-5][0-9]:[0-5][0-9] (in [0-9]* min)' "$LAST_OUT"
# checks shows each finding's expected, actual and hint in the text, filtered by check id
# or family and by rail or device (issue 27, item 15).
expect_rc 0 "$ctl" -s "$sock" checks --failed netdev.carrier
expect_match '^  error   netdev.carrier  *rxe0/1 ' "$LAST_OUT"
expect_match '^          expected 1, actual 0$' "$LAST_OUT"
expect_match '^          hint: ' "$LAST_OUT"
[ "$(grep -c '^  [a-z]' "$LAST_OUT")" = 1 ] && pass "checks netdev.carrier: one finding" ||
    fail "checks netdev.carrier: $(cat "$LAST_OUT")"
expect_rc 0 "$ctl" -s "$sock" checks --failed --rail rxe0 netdev
grep '^  [a-z]' "$LAST_OUT" | awk '{ print $2, $3 }' | sort -u > "$tmp/fam"
grep -qx 'netdev.oper rxe0/1' "$tmp/fam" && grep -qx 'netdev.carrier rxe0/1' "$tmp/fam" &&
    ! grep -qv '^netdev\.[a-z_]* rxe0/1$' "$tmp/fam" && pass "checks --rail rxe0 netdev: the netdev.* findings of rxe0/1" ||
    fail "checks --rail rxe0 netdev: $(cat "$tmp/fam")"
# A rail the node does not have is a usage error that names the rails it has.
expect_rc 64 "$ctl" -s "$sock" checks --rail rxe9/1
expect_grep "fabtunectl: checks: no rail or device 'rxe9/1' on this node (rails: rxe0/1)" "$LAST_ERR"
expect_rc 0 "$ctl" -s "$sock" --failed checks --rail rxe0 port.state
expect_match '^  no failing finding of port.state on rxe0$' "$LAST_OUT"
expect_rc 0 "$ctl" -s "$sock" --json checks --failed netdev.carrier
jq -r 'length' "$LAST_OUT" > "$tmp/n"
expect_match '^1$' "$tmp/n"
expect_rc 64 "$ctl" -s "$sock" checks netdev.bogus
expect_grep "no check id or family 'netdev.bogus'" "$LAST_ERR"
netdev_id=4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a03
found=""
for _ in $(seq 100); do
    journalctl -o json --no-pager MESSAGE_ID=$netdev_id FABTUNE_CHECK=netdev.carrier \
        FABTUNE_STATE=raised > "$tmp/j" 2>/dev/null
    [ -s "$tmp/j" ] && { found=1; break; }
    sleep 0.05
done
[ -n "$found" ] && pass "journald: netdev.carrier raised with MESSAGE_ID $netdev_id" || fail "no alert in the journal"
t_alert=$(jq -r '.__REALTIME_TIMESTAMP' "$tmp/j" | head -1)
[ -n "$t_alert" ] && echo "# carrier loss to the journal alert: $(( (t_alert - t0 / 1000) / 1000 )) ms"
jq -r '"\(.FABTUNE_RAIL) \(.FABTUNE_EXPECTED) \(.FABTUNE_ACTUAL) \(.PRIORITY)"' "$tmp/j" | head -1 > "$tmp/f"
expect_match '^rxe0/1 1 0 3$' "$tmp/f"
expect_rc 1 "$ctl" -s "$sock" health --timeout 10 --format npd
expect_rc 1 "$ctl" -s "$sock" health --timeout 10
[ "$(awk '{ n += length($0) } END { print n }' "$LAST_OUT")" -le 80 ] && pass "npd: the line fits NPD's 80 bytes" \
    || fail "npd: $(wc -c < "$LAST_OUT") bytes: $(cat "$LAST_OUT")"
expect_rc 2 "$ctl" -s "$sock" health --format nagios
expect_match '^FABTUNE CRITICAL - NOT_READY: ' "$LAST_OUT"
expect_match ' | rails_ready=0;;;0;1 rails=1 findings_error=[1-9][0-9]*;;1;0 findings_warning=[0-9]*;1;;0 findings_unknown=[0-9]*;;;0$' "$LAST_OUT"
expect_rc 2 "$ctl" -s "$sock" health --format slurm
expect_match '^fabtune: NOT_READY netdev.oper rxe0/1, netdev.carrier rxe0/1' "$LAST_OUT"
expect_rc 1 "$ctl" -s "$sock" health --format nhc
expect_match '^ERROR: fabtune: ' "$LAST_OUT"
# --json is built by json-c, whatever the finding's message holds.
expect_rc 1 "$ctl" -s "$sock" --json health --timeout 10
jq -r '"\(.verdict) \(.first_failing | type)"' "$LAST_OUT" > "$tmp/hj" 2>&1
expect_match '^NOT_READY string$' "$tmp/hj"

ip link set v1 up
wait_for '.rails[0].verdict' READY 5 && pass "carrier back: rail READY" || fail "rail did not recover"
for _ in $(seq 100); do
    journalctl -o json --no-pager MESSAGE_ID=$netdev_id FABTUNE_STATE=cleared > "$tmp/j" 2>/dev/null
    [ -s "$tmp/j" ] && break; sleep 0.05
done
[ -s "$tmp/j" ] && pass "journald: the alert cleared" || fail "no cleared entry"

# SIGHUP with a broken policy: the old policy stays, status says so, the daemon serves on.
cp "$tmp/policy.yaml" "$tmp/good.yaml"
printf 'version: 1\nrails: {expect_count: many}\n' > "$tmp/policy.yaml"
kill -HUP "$dpid"
wait_for '.policy_error != null' true 5 && pass "a broken policy shows in status" || fail "no policy_error"
verdict .policy_error > "$tmp/pe"
expect_grep "policy.yaml:2:23: expected an integer for rails.expect_count, got 'many'" "$tmp/pe"
wait_for .verdict READY 2 && pass "still serving, old policy in force" || fail "not serving"
# A policy of raw bytes (invalid UTF-8, echoed in the error's source line): the reply stays
# valid UTF-8. A key holding an escape sequence: the terminal never gets the ESC byte.
printf '\377\376 version: 1\n' > "$tmp/policy.yaml"
kill -HUP "$dpid"
wait_for '.policy_error != null' true 5
"$ctl" -s "$sock" --json status > "$tmp/bin.json"
iconv -f UTF-8 -t UTF-8 "$tmp/bin.json" > /dev/null 2>&1 && pass "the reply to a binary policy is valid UTF-8" ||
    fail "the reply carries invalid UTF-8"
printf 'version: 1\n"\\e[31mzzz": 1\n' > "$tmp/policy.yaml"
kill -HUP "$dpid"
sleep 1
"$ctl" -s "$sock" status > "$tmp/bin.txt"
! grep -q "$(printf '\033')" "$tmp/bin.txt" && grep -qF "unknown key '?[31mzzz'" "$tmp/bin.txt" &&
    pass "the human status shows the key with '?' for its escape byte" ||
    { fail "control bytes reached the terminal"; cat -A "$tmp/bin.txt" | head -5; }
# fabtunectl reload of a broken policy: the error code ends the message's first line, not
# the caret line beneath the policy's source line.
printf 'version: 1\nrails: {expect_count: many}\n' > "$tmp/policy.yaml"
expect_rc 1 "$ctl" -s "$sock" reload
head -1 "$LAST_ERR" > "$tmp/re1"; tail -1 "$LAST_ERR" > "$tmp/re2"
expect_match '^fabtunectl: reload: the policy is invalid; the old one stays (EINVAL):$' "$tmp/re1"
expect_match '^ *\^' "$tmp/re2"
cp "$tmp/good.yaml" "$tmp/policy.yaml"
expect_rc 0 "$ctl" -s "$sock" reload
expect_match '^policy reloaded from .*policy.yaml; verdict [A-Z_]*$' "$LAST_OUT"
wait_for '.policy_error' null 5 && pass "a good reload clears the error" || fail "error stays"
# -j is --json; a --timeout that is not a positive number is a usage error, never "forever".
expect_rc 0 "$ctl" -s "$sock" -j status
jq -e .verdict "$LAST_OUT" > /dev/null && pass "-j gives JSON" || fail "-j is not JSON"
expect_rc 64 timeout 5 "$ctl" -s "$sock" wait-ready --timeout abc
expect_rc 64 timeout 5 "$ctl" -s "$sock" wait-ready --timeout -5

# Link flaps: v1 went down and up once above; the kernel counted two carrier changes on the
# real v0, and the daemon's carrier history holds them.
"$ctl" -s "$sock" --json checks | jq -r '.[] | select(.check == "netdev.flaps") | "\(.severity) \(.actual)"' > "$tmp/fl"
cat "$tmp/fl"
expect_match '^ok 2 in [0-9]*s$' "$tmp/fl"
# Counters: rxe's retry_exceeded_err jumps by 500 between two of the 1 s samples; the next
# check cycle judges the peak rate of the last check interval: counters.loss warns, the
# rail is DEGRADED, and another check seconds later (no new loss) still shows the burst.
echo 500 > "$root/class/infiniband/rxe0/ports/1/hw_counters/retry_exceeded_err"
sleep 2.5
expect_rc 0 "$ctl" -s "$sock" reload
wait_for '.rails[0].verdict' DEGRADED 5 && pass "a burst of retries: rail DEGRADED" || fail "no DEGRADED after the burst"
"$ctl" -s "$sock" --json checks | jq -r '.[] | select(.check == "counters.loss") | "\(.severity) \(.message)"' > "$tmp/loss"
cat "$tmp/loss"
expect_match '^warning loss at .*retry_exceeded_err' "$tmp/loss"
sleep 1.5
expect_rc 0 "$ctl" -s "$sock" reload
"$ctl" -s "$sock" --json checks | jq -r '.[] | select(.check == "counters.loss") | .severity' > "$tmp/loss"
expect_match '^warning$' "$tmp/loss"
# A policy that tolerates that rate makes the same burst ok.
sed 's/counters: {interval: 1s, sticky_window: 0s}/counters: {interval: 1s, sticky_window: 0s, loss: 100000}/' "$tmp/good.yaml" > "$tmp/policy.yaml"
cp "$tmp/policy.yaml" "$tmp/good.yaml"
expect_rc 0 "$ctl" -s "$sock" reload
wait_for '.rails[0].verdict' READY 5 && pass "loss: 100000 tolerates the burst: READY" || fail "still $(verdict .verdict)"

# Authorisation. The socket is 0660 root:daemon; nobody cannot even connect: permission
# denied (77, as fabtunectl(1) says), not a daemon that is down (69).
expect_rc 77 setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" -s "$sock" status
expect_grep "Permission denied (root or the control group of fabtune.yaml)" "$LAST_ERR"
expect_rc 69 "$ctl" -s "$tmp/run/absent.sock" status
expect_grep "(is fabtuned running?)" "$LAST_ERR"
# The socket from the environment, so that -s is not needed on every call; -s wins.
expect_rc 0 env FABTUNE_SOCKET="$sock" "$ctl" --json status
jq -r '.rails[0].name' "$LAST_OUT" > "$tmp/env-sock"
expect_match '^rxe0/1$' "$tmp/env-sock"
expect_rc 69 env FABTUNE_SOCKET="$sock" "$ctl" -s "$tmp/run/absent.sock" status
chmod 0755 "$tmp" "$tmp/run"
chmod 0666 "$sock"      # let the daemon's own SO_PEERCRED check decide
expect_rc 77 setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" -s "$sock" status
expect_grep "EACCES" "$LAST_ERR"
daemon_gid=$(getent group daemon | cut -d: -f3)
expect_rc 0 setpriv --reuid=65534 --regid="$daemon_gid" --clear-groups "$ctl" -s "$sock" status
expect_rc 77 setpriv --reuid=65534 --regid="$daemon_gid" --clear-groups "$ctl" -s "$sock" reload
expect_grep "EPERM" "$LAST_ERR"
expect_rc 77 setpriv --reuid=65534 --regid="$daemon_gid" --clear-groups "$ctl" -s "$sock" revert
# The group held only as a supplementary group counts (SO_PEERGROUPS), as it does for the
# socket file itself: nobody is in no group of /etc/group.
expect_rc 0 setpriv --reuid=65534 --regid=65534 --groups="$daemon_gid" "$ctl" -s "$sock" status
expect_rc 77 setpriv --reuid=65534 --regid=65534 --groups="$daemon_gid" "$ctl" -s "$sock" apply
expect_grep "EPERM" "$LAST_ERR"

# Clients that hang up before their replies (EPIPE on the daemon's side) never kill it:
# 30 of them, each with 20 pipelined "checks" requests left unread.
i=0
while [ $i -lt 30 ]; do
    yes '{"v":1,"cmd":"checks"}' | head -20 | "$raw" "$sock" --hangup
    i=$((i + 1))
done
kill -0 "$dpid" 2>/dev/null && pass "alive after 30 clients hung up on their replies" ||
    fail "the daemon died when clients hung up (SIGPIPE?)"
expect_rc 0 "$ctl" -s "$sock" health --timeout 10

# Garbage, oversized and slow clients get errors; the others are served meanwhile.
echo 'this is not json' | "$raw" "$sock" > "$tmp/g"; expect_grep '"code":"EINVAL"' "$tmp/g"
echo '{"v":2,"cmd":"status"}' | "$raw" "$sock" > "$tmp/g"; expect_grep '"code":"EPROTO"' "$tmp/g"
echo '{"v":1,"cmd":"format-disk"}' | "$raw" "$sock" > "$tmp/g"; expect_grep '"code":"ENOTSUP"' "$tmp/g"
"$raw" "$sock" 70000 > "$tmp/g"; expect_grep '"code":"E2BIG"' "$tmp/g"
# A slow client (half a request, then silence) and 20 idle ones hold connections; status
# is still served at once.
# "At once" is a ratio, not a clock (the machine may be loaded): within 10 times an
# unhindered status query measured just before, and never less than 1 s of slack.
t0=$(date +%s%N)
expect_rc 0 "$ctl" -s "$sock" status
t1=$(date +%s%N)
bound=$(( (t1 - t0) / 100000 ))
[ "$bound" -lt 1000 ] && bound=1000
(printf '{"v":1,"cmd":"sta'; sleep 8) | "$raw" "$sock" > /dev/null &
clients=$!
i=0; while [ $i -lt 20 ]; do "$raw" "$sock" 1 >/dev/null 2>&1 & clients="$clients $!"; i=$((i + 1)); done
sleep 0.5
t0=$(date +%s%N)
expect_rc 0 "$ctl" -s "$sock" status
t1=$(date +%s%N)
[ $(( (t1 - t0) / 1000000 )) -lt "$bound" ] &&
    pass "status took $(( (t1 - t0) / 1000000 )) ms beside 21 stuck clients (bound $bound ms)" ||
    fail "status took $(( (t1 - t0) / 1000000 )) ms beside stuck clients (bound $bound ms)"
# shellcheck disable=SC2086
wait $clients
# Past its slots, a user's newcomer is told so at once (EBUSY), never left hanging: one
# process of a member of the daemon group holds its uid's 16 idle connections and opens a
# 17th (a fast loop: the slots stay held well within the 5 s idle timeout, however loaded
# the machine). Three tries. Root's newcomer past the 64 slots takes the slot of the
# client idle the longest instead (below).
i=0; busy=no
while [ $i -lt 3 ] && [ $busy = no ]; do
    setpriv --reuid=65534 --regid="$daemon_gid" --clear-groups "$raw" "$sock" --slots 16 > "$tmp/newcomer" 2>&1
    grep -q '"code":"EBUSY"' "$tmp/newcomer" && busy=yes
    i=$((i + 1))
done
[ $busy = yes ] && pass "the 17th client of one user was told EBUSY (16 slots held; try $i)" ||
    fail "the 17th client of one user was not told EBUSY in 3 tries: '$(cat "$tmp/newcomer")'"
expect_rc 0 "$ctl" -s "$sock" health --timeout 10

# A client that half-closes after 400 pipelined requests gets all 400 replies, whole (they
# outgrow the socket buffer: the rest must be flushed after the EOF, not dropped).
yes '{"v":1,"cmd":"checks"}' | head -400 | "$raw" "$sock" --all > "$tmp/hc"
n=$(jq -c .ok "$tmp/hc" 2>/dev/null | grep -c true)
[ "$n" = 400 ] && pass "half-closed client: 400 of 400 replies ($(wc -c < "$tmp/hc") bytes), all valid JSON" ||
    fail "half-closed client: $n of 400 replies"
# A client that pipelines 20000 requests and never reads: reading from it stops at 1 MiB
# of queued replies; the daemon stays small and answers others meanwhile.
rss0=$(awk '/^VmRSS/ { print $2 }' /proc/$dpid/status)
{ yes '{"v":1,"cmd":"checks"}' | head -30000; sleep 4; } | timeout 8 "$raw" "$sock" --hangup &
flood=$!
sleep 3
t0=$(date +%s%N)
expect_rc_in "0 1" "$ctl" -s "$sock" health --timeout 10
t1=$(date +%s%N)
rss=$(awk '/^VmRSS/ { print $2 }' /proc/$dpid/status)
[ $((rss - rss0)) -lt 51200 ] && pass "RSS ${rss0} -> ${rss} KiB under a pipelining client that never reads" ||
    fail "RSS ${rss0} -> ${rss} KiB under a pipelining client (unbounded queue?)"
echo "# health beside the flood: $(( (t1 - t0) / 1000000 )) ms"
wait $flood 2>/dev/null
# A request trickled one byte a second loses its slot (a 2 s deadline for a whole line);
# 70 such clients of one uid (more than the 64 slots) hold at most 16, and root is served.
"$raw" "$sock" --trickle 12 > "$tmp/tr"; rc=$?
[ $rc = 0 ] && [ "$(cat "$tmp/tr")" -le 6 ] && pass "a trickling client was closed after $(cat "$tmp/tr") s" ||
    fail "a trickling client kept its slot (rc $rc, $(cat "$tmp/tr") s)"
slow=""
i=0; while [ $i -lt 70 ]; do
    setpriv --reuid=65534 --regid=65534 --clear-groups "$raw" "$sock" --trickle 8 > /dev/null 2>&1 & slow="$slow $!"
    i=$((i + 1))
done
sleep 1
ok=0; i=0
while [ $i -lt 20 ]; do "$ctl" -s "$sock" status > /dev/null 2>&1 && ok=$((ok + 1)); i=$((i + 1)); done
[ $ok = 20 ] && pass "root: 20 of 20 status queries beside 70 slow clients of one uid" ||
    fail "root: $ok of 20 status queries beside 70 slow clients"
# shellcheck disable=SC2086
wait $slow 2>/dev/null

# health is bounded even when the daemon cannot accept: stopped, its backlog full.
kill -STOP "$dpid"
stuck=""
i=0; while [ $i -lt 40 ]; do timeout 20 "$raw" "$sock" 1 > /dev/null 2>&1 & stuck="$stuck $!"; i=$((i + 1)); done
sleep 1
t0=$(date +%s%N)
expect_rc 2 timeout 10 "$ctl" -s "$sock" health
t1=$(date +%s%N)
kill -CONT "$dpid"
[ $(( (t1 - t0) / 1000000 )) -lt 2000 ] && pass "health gave up in $(( (t1 - t0) / 1000000 )) ms with the backlog full" ||
    fail "health took $(( (t1 - t0) / 1000000 )) ms with the backlog full"
expect_grep "not answering" "$LAST_OUT"
# shellcheck disable=SC2086
wait $stuck 2>/dev/null

# Out of descriptors: accept() fails with EMFILE while connections wait in the backlog. The
# listener pauses instead of spinning the loop, and the daemon serves again afterwards.
prlimit --pid "$dpid" --nofile=48:48
held=""
i=0; while [ $i -lt 60 ]; do sleep 4 | "$raw" "$sock" > /dev/null 2>&1 & held="$held $!"; i=$((i + 1)); done
sleep 1
cpu() { awk '{ print $14 + $15 }' /proc/$dpid/stat; }
echo "# daemon fds: $(ls /proc/$dpid/fd | wc -l), $(grep 'open files' /proc/$dpid/limits)"
c0=$(cpu); sleep 2; c1=$(cpu)
[ $((c1 - c0)) -lt 100 ] && pass "EMFILE: the daemon used $((c1 - c0)) ticks of CPU in 2 s (no spin)" ||
    fail "EMFILE: the daemon used $((c1 - c0)) ticks of CPU in 2 s: the listener spins"
# shellcheck disable=SC2086
wait $held 2>/dev/null
prlimit --pid "$dpid" --nofile=1024:1024
sleep 1
expect_rc 0 "$ctl" -s "$sock" status

# At a 64-descriptor limit, 56 of root's own clients connected and idle: root's status
# still answers at once (issue 41, item 10: about 4 s, until the idle ones timed out, as
# the per-client cap ignored RLIMIT_NOFILE); the longest idle gives its slot.
prlimit --pid "$dpid" --nofile=64:64
held=""
i=0; while [ $i -lt 56 ]; do sleep 6 | "$raw" "$sock" > /dev/null 2>&1 & held="$held $!"; i=$((i + 1)); done
sleep 1
t0=$(date +%s%N)
expect_rc 0 timeout 10 "$ctl" -s "$sock" status
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
# the idle clients' timeout is 5 s: an answer in under half of it came beside them
[ $ms -lt 2500 ] && pass "root's status in $ms ms beside 56 idle clients at 64 descriptors" ||
    fail "root's status took $ms ms beside 56 idle clients at 64 descriptors"
# shellcheck disable=SC2086
wait $held 2>/dev/null
prlimit --pid "$dpid" --nofile=1024:1024

# One instance: a second daemon on the same state and runtime dirs, and a revert beside
# the daemon, are refused with the holder's PID; the first keeps its socket and serves.
expect_rc 75 "$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" --procfs-root "$tmp/proc" \
    --state-dir "$tmp/state" --runtime-dir "$tmp/run" --log-target stderr
expect_grep "Another fabtuned (pid $dpid) holds the state directory" "$LAST_ERR"
expect_rc 75 "$fabtuned" --revert --procfs-root "$tmp/proc" --state-dir "$tmp/state" --log-target stderr
expect_grep "Another fabtuned (pid $dpid)" "$LAST_ERR"
[ -S "$sock" ] && pass "the first daemon's socket is still there" || fail "the socket is gone"
expect_rc 0 "$ctl" -s "$sock" status

# SIGTERM: a clean stop removes the socket.
kill -TERM "$dpid"; wait "$dpid"; rc=$?
[ "$rc" = 0 ] && pass "SIGTERM: exit 0" || fail "SIGTERM: exit $rc"
[ ! -e "$sock" ] && pass "socket removed" || fail "socket left behind"
finish
