#!/bin/sh
# SPDX-License-Identifier: ISC
# The state and runtime directories: one directory for both, a lock holder that has not
# written its PID, a directory others can write, a symlink planted where a state file goes,
# and a full or read-only state directory, on a small tmpfs and a read-only bind mount of
# this private mount namespace.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -m --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
tmp=$(mktemp -d /tmp/fabtune-state.XXXXXX)
dpid=""
cleanup() {
    [ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
    umount "$tmp/full" "$tmp/ro" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
root="$(shared_fixtures)/soft_roce/sys"
unlimited_proc "$tmp/proc"
mkdir -p "$tmp/proc/sys/net/core"
echo 212992 > "$tmp/proc/sys/net/core/rmem_max"
cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 1}
checks: {interval: 1s}
tuning: {mode: verify, sysctl: {net.core.rmem_max: "16777216"}}
probes: {enabled: false}
control: {group: daemon}
EOP
once() { "$fabtuned" --once --no-probes -c "$tmp/policy.yaml" --sysfs-root "$root" \
             --procfs-root "$tmp/proc" "$@"; }

# Starts the daemon with state dir $1 and runtime dir $2; waits for its socket.
start_daemon() {
    "$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" --procfs-root "$tmp/proc" \
        --state-dir "$1" --runtime-dir "$2" > "$tmp/daemon.out" 2> "$tmp/daemon.err" & dpid=$!
    sock="$2/fabtuned.sock"
    for _ in $(seq 100); do [ -S "$sock" ] && return 0; sleep 0.05; done
    return 1
}
stop_daemon() { kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; dpid=""; }
# Polls status until jq expression $1 prints $2, for at most 5 s.
wait_status() {
    for _ in $(seq 100); do
        [ "$("$ctl" -s "$sock" --json status 2>/dev/null | jq -r "$1")" = "$2" ] && return 0
        sleep 0.05
    done
    return 1
}

# One directory for both state and runtime (as run-once.sh does): one lock, the daemon starts.
if start_daemon "$tmp/both" "$tmp/both"; then
    pass "one directory for --state-dir and --runtime-dir: the daemon starts"
    expect_rc 0 "$ctl" -s "$sock" status
    # A drifted sysctl's hint names the command that works: in the daemon's findings (it
    # applies to its --procfs-root), 'fabtunectl apply'; --once on that captured tree only
    # reads it, and says to apply on the node it was captured on (issue 41, item 4: it
    # named 'fabtuned --once --apply', which reads only there).
    expect_rc 0 "$ctl" -s "$sock" --json checks
    expect_grep "'fabtunectl apply' applies it once" "$LAST_OUT"
    expect_rc_in "0 1 2 3" once --json --state-dir "$tmp/both"
    expect_grep "apply it on the node this tree was captured on" "$LAST_OUT"
    expect_rc 75 once --apply --state-dir "$tmp/both"
    expect_grep "Another fabtuned (pid $dpid) holds the state directory" "$LAST_ERR"
else
    fail "one directory for both: $(cat "$tmp/daemon.err")"
fi
stop_daemon
expect_rc_in "0 1 2 3" once --json --state-dir "$tmp/both"
expect_grep "apply it on the node this tree was captured on" "$LAST_OUT"
! grep -q "fabtuned --once --apply" "$LAST_OUT" && pass "no '--once --apply' for a captured tree" ||
    fail "'fabtuned --once --apply' named for a captured tree"

# A holder that has locked but not yet written its PID is still named (/proc/locks).
mkdir -m 0755 "$tmp/held"
: > "$tmp/held/fabtuned.lock"
flock "$tmp/held/fabtuned.lock" sleep 5 & holder=$!
sleep 0.3
expect_rc 75 once --apply --state-dir "$tmp/held"
expect_grep "Another fabtuned (pid $holder) holds the state directory" "$LAST_ERR"
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
# Two --once --apply at once, 20 times: the loser never says "pid 0".
mkdir -m 0755 "$tmp/race"
zero=0
for i in $(seq 20); do
    rm -f "$tmp/race/fabtuned.lock"
    once --apply --state-dir "$tmp/race" > /dev/null 2> "$tmp/race1" & a=$!
    once --apply --state-dir "$tmp/race" > /dev/null 2> "$tmp/race2"
    wait "$a"
    grep -q "pid 0)" "$tmp/race1" "$tmp/race2" && zero=$((zero + 1))
done
[ "$zero" -eq 0 ] && pass "20 races: no 'pid 0'" || fail "$zero of 20 races said 'pid 0'"

# A state directory that others can write is refused, named with its mode.
mkdir -m 1777 "$tmp/open"
chmod 1777 "$tmp/open"
expect_rc 78 once --apply --state-dir "$tmp/open"
expect_grep "Refusing the state directory $tmp/open has mode 1777: others can write in it" "$LAST_ERR"
# Bounded: a daemon that does not refuse would run on.
expect_rc 78 timeout 10 "$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" \
    --procfs-root "$tmp/proc" --state-dir "$tmp/open" --runtime-dir "$tmp/run-open"
expect_grep "mode 1777" "$LAST_ERR"
mkdir -m 0755 "$tmp/notroot"
chown 65534 "$tmp/notroot"
expect_rc 78 once --apply --state-dir "$tmp/notroot"
expect_grep "$tmp/notroot is owned by uid 65534, not root" "$LAST_ERR"

# A symlink planted where a state file goes (counters.json) or a runtime file (nccl.env) is
# replaced, never followed: its target, a root-owned 0600 file, keeps its content and mode.
mkdir -m 0755 "$tmp/links" "$tmp/links-run"
echo "root's secret" > "$tmp/secret"
chmod 0600 "$tmp/secret"
ln -s "$tmp/secret" "$tmp/links/counters.json"
ln -s "$tmp/secret" "$tmp/links-run/nccl.env"
if start_daemon "$tmp/links" "$tmp/links-run"; then
    wait_status .checks_done 2 || fail "no second check"
    expect_match "^root's secret\$" "$tmp/secret"
    [ "$(stat -c %a "$tmp/secret")" = 600 ] && pass "the links' target keeps mode 0600" \
        || fail "the links' target is now mode $(stat -c %a "$tmp/secret")"
    [ -f "$tmp/links/counters.json" ] && [ ! -L "$tmp/links/counters.json" ] \
        && pass "counters.json is a file of its own now" || fail "counters.json is still a link"
    [ -f "$tmp/links-run/nccl.env" ] && [ ! -L "$tmp/links-run/nccl.env" ] \
        && pass "nccl.env is a file of its own now" || fail "nccl.env is still a link"
else
    fail "daemon with links in its directories: $(cat "$tmp/daemon.err")"
fi
stop_daemon

# A full state directory: the daemon starts, judges from memory, reports host.state_dir and
# says so in status; when space returns, the finding clears.
mkdir "$tmp/full"
mount -t tmpfs -o size=64k,mode=0755 tmpfs "$tmp/full"
dd if=/dev/zero of="$tmp/full/filler" bs=4k 2>/dev/null
if start_daemon "$tmp/full" "$tmp/run-full"; then
    pass "a full state directory: the daemon starts"
    wait_status '[.failing[] | select(.check == "host.state_dir") | .severity] | join(",")' error \
        && pass "host.state_dir: an error" || fail "host.state_dir is not an error"
    expect_rc_in "0 1 2" "$ctl" -s "$sock" status
    expect_match "^state directory: $tmp/full: cannot .*No space left on device; judging from memory, nothing will persist" "$LAST_OUT"
    rm "$tmp/full/filler"
    wait_status '.state_dir_error' null && pass "space returned: host.state_dir clears" \
        || fail "host.state_dir did not clear: $("$ctl" -s "$sock" status)"
    [ -s "$tmp/full/counters.json" ] && pass "the counter state is written again" \
        || fail "no counters.json after space returned"
    grep -qx "$dpid" "$tmp/full/fabtuned.lock" && pass "the lock names the daemon again" \
        || fail "fabtuned.lock: $(cat "$tmp/full/fabtuned.lock")"
else
    fail "a full state directory stops the daemon: $(cat "$tmp/daemon.err")"
fi
stop_daemon

# A read-only state directory: the same, until it is writable again.
mkdir -m 0755 "$tmp/ro"
mount --bind "$tmp/ro" "$tmp/ro"
mount -o remount,bind,ro "$tmp/ro"
if start_daemon "$tmp/ro" "$tmp/run-ro"; then
    pass "a read-only state directory: the daemon starts"
    wait_status '.state_dir_error | test("Read-only file system")' true \
        && pass "status: the state directory is read-only" || fail "status: $("$ctl" -s "$sock" status)"
    mount -o remount,bind,rw "$tmp/ro"
    wait_status '.state_dir_error' null && pass "writable again: host.state_dir clears" \
        || fail "host.state_dir did not clear: $("$ctl" -s "$sock" status)"
else
    fail "a read-only state directory stops the daemon: $(cat "$tmp/daemon.err")"
fi
stop_daemon
finish
