# SPDX-License-Identifier: ISC
# Helpers for fabtune's shell tests: run a command, assert on its exit code and output.
# Each assertion prints one "ok"/"FAIL" line; finish prints "N passed, N failed".
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
_passed=0
_failed=0
_scratch=$(mktemp -d)
LAST_OUT="$_scratch/out"
LAST_ERR="$_scratch/err"
LAST_RC=0

pass() { _passed=$((_passed + 1)); echo "ok: $*"; }
fail() { _failed=$((_failed + 1)); echo "FAIL: $*"; }

run() { "$@" >"$LAST_OUT" 2>"$LAST_ERR"; LAST_RC=$?; }

expect_rc() {
    want=$1; shift
    run "$@"
    if [ "$LAST_RC" = "$want" ]; then pass "exit $want: $*"
    else fail "exit $LAST_RC, wanted $want: $*"; sed 's/^/    /' "$LAST_ERR" | head -20; fi
}

expect_rc_in() {
    want=$1; shift
    run "$@"
    for w in $want; do
        [ "$LAST_RC" = "$w" ] && { pass "exit $LAST_RC in {$want}: $*"; return; }
    done
    fail "exit $LAST_RC, wanted one of {$want}: $*"; sed 's/^/    /' "$LAST_ERR" | head -20
}

# expect_grep TEXT FILE: FILE holds TEXT, as a fixed string ("port.state" is no regex).
expect_grep() {
    if grep -qF -- "$1" "$2" 2>/dev/null; then pass "found '$1'"
    else fail "'$1' not in $2:"; sed 's/^/    /' "$2" | head -20; fi
}

# expect_match REGEX FILE: a line of FILE matches the basic regular expression REGEX.
expect_match() {
    if grep -q -- "$1" "$2" 2>/dev/null; then pass "matched '$1'"
    else fail "no line of $2 matches '$1':"; sed 's/^/    /' "$2" | head -20; fi
}

expect_same() {
    if cmp -s "$1" "$2"; then pass "$1 and $2 are identical"
    else fail "$1 and $2 differ"; diff "$1" "$2" | head -20; fi
}

# A procfs root whose self/limits allows unlimited locked memory, for tests that judge the
# rails, not this machine's memlock (a container here cannot raise its 8 MiB hard limit).
unlimited_proc() {
    mkdir -p "$1/self"
    echo "Max locked memory         unlimited            unlimited            bytes" > "$1/self/limits"
}

# In a private network and mount namespace: this netns's sysfs, a veth pair v0/v1 (v0 up
# with 192.0.2.1/24), and the Soft-RoCE fixture under DIR/fx whose rxe0 netdev v0 is the
# live veth's sysfs directory, so carrier changes are real. Sets root to the fixture's sys.
live_veth_rail() {
    mount -t sysfs sysfs /sys
    ip link set lo up
    ip link add v0 type veth peer name v1
    ip addr add 192.0.2.1/24 dev v0
    ip link set v0 up; ip link set v1 up
    mkdir -p "$1/fx"
    cp -a "$(shared_fixtures)/soft_roce" "$1/fx/"
    root="$1/fx/soft_roce/sys"
    rm -rf "$root/devices/virtual/net/v0"
    ln -s /sys/devices/virtual/net/v0 "$root/devices/virtual/net/v0"
}

# fabtuned on the tree at $root under $tmp/policy.yaml, with procfs $tmp/proc, its state
# and runtime directories under $tmp and its log appended to $tmp/log; sets dpid. Waits,
# bounded, for its socket $sock and its first judged pass (health's npd code 2 is UNKNOWN).
# Uses the test's $fabtuned and $ctl.
# The scratch world of a test that runs fabtuned on a --sysfs-root tree: $tmp (fabtune-NAME)
# holding a writable copy of the shared FIXTURE at $tmp/fx (root=$tmp/fx/sys), a procfs root
# with unlimited limits and a fixed boot id, $sock, and a trap that stops the daemon ($dpid)
# and removes $tmp on exit.
daemon_scratch() {
    tmp=$(mktemp -d "/tmp/fabtune-$1.XXXXXX")
    dpid=""
    trap 'kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; rm -rf "$tmp"' EXIT
    cp -a "$(shared_fixtures)/$2" "$tmp/fx"
    root="$tmp/fx/sys"
    unlimited_proc "$tmp/proc"
    mkdir -p "$tmp/proc/sys/kernel/random"
    echo 3f1c8e2a-5b7d-4c6e-9a0b-1d2e3f4a5b6c > "$tmp/proc/sys/kernel/random/boot_id"
    sock="$tmp/run/fabtuned.sock"
}

fabtuned_start() {
    "$fabtuned" -c "$tmp/policy.yaml" --sysfs-root "$root" --procfs-root "$tmp/proc" \
        --state-dir "$tmp/state" --runtime-dir "$tmp/run" --log-target stderr 2>> "$tmp/log" &
    dpid=$!
    for _ in $(seq 200); do [ -S "$sock" ] && break; sleep 0.05; done
    for _ in $(seq 200); do
        "$ctl" -s "$sock" health > /dev/null 2>&1; [ $? -ne 2 ] && break; sleep 0.05
    done
}
fabtuned_stop() { kill -TERM "$dpid"; wait "$dpid"; rm -f "$sock"; }

# The build tree's fixture trees (tests/fixtures/shared-fixtures.sh), generated once for
# every test: read them in place; copy one before changing it.
shared_fixtures() {
    sh "$top_srcdir/tests/fixtures/shared-fixtures.sh" "$top_builddir"
}

# in_private_mounts "$0": runs the calling test again as root in a private mount namespace
# (what it mounts vanishes with it), or skips it (77) where that cannot be.
in_private_mounts() {
    [ -n "${FABTUNE_IN_MNTNS:-}" ] && return 0
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
    unshare -m --propagation private true 2>/dev/null || { echo "SKIP: cannot unshare"; exit 77; }
    FABTUNE_IN_MNTNS=1 exec unshare -m --propagation private sh "$1"
}

# A test that asserted nothing has proven nothing: it fails.
finish() {
    rm -rf "$_scratch"
    if [ $((_passed + _failed)) -eq 0 ]; then
        echo "FAIL: no assertion ran"
        _failed=1
    fi
    echo "$_passed passed, $_failed failed"
    [ "$_failed" -eq 0 ]
}
