#!/bin/sh
# SPDX-License-Identifier: ISC
# fabtuned --once without --apply only reads (issue 41, item 5): live, in a private network
# namespace (its own sysctls and loopback, for the TCP probe) and mount namespace (an
# empty /var/lib, so that the default state directory's creation shows), it leaves a state
# directory byte-identical (every file's sha256, mode, size and mtime), alone and while
# another process holds the state lock, and creates none; fabtunectl diff neither. As the
# user nobody, --once and --once --no-probes give a verdict (0..3, not 78 over
# /run/fabtune's outputs, which --once never writes) and say what they could not read.
. "${top_srcdir:-.}/tests/lib.sh"
if [ -z "${FABTUNE_IN_NS:-}" ]; then
    FABTUNE_IN_NS=1 exec unshare -n -m --propagation private sh "$0"
fi
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
tmp=$(mktemp -d /tmp/ft.XXXXXX)
holder=""
trap 'kill $holder 2>/dev/null; wait $holder 2>/dev/null; umount /var/lib 2>/dev/null; rm -rf "$tmp"' EXIT
ip link set lo up
mount -t tmpfs -o mode=0755 tmpfs /var/lib
# nobody reads the policy and the state directory's root-owned 0755 files, as on a node.
chmod 0755 "$tmp"
state="$tmp/state"
mkdir -m 0755 "$state"
# The default outputs (/run/fabtune/nccl.env and nccl.conf): --once writes neither.
cat > "$tmp/policy.yaml" <<EOP
version: 1
rails: {expect_count: 0}
tuning: {mode: verify, sysctl: {net.core.somaxconn: 8192}}
checks: {interval: 1h}
EOP
chmod 0644 "$tmp/policy.yaml"
once() { "$fabtuned" --once -c "$tmp/policy.yaml" --state-dir "$state" "$@"; }
# Every entry of the state directory: name, type, mode, owner, size, mtime (ns) and the
# sha256 of each file.
listing() {
    (cd "$1" && find . -print0 | sort -z | xargs -0 stat -c '%n %F %a %u %s %.9Y' &&
        find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

# A state directory as a node has it: --apply writes the sysctl originals (0600) and,
# probing, the baselines; a second run the counters' and baselines' next state.
expect_rc_in "0 1 2 3" once --apply
expect_rc_in "0 1 2 3" once --apply
[ -s "$state/sysctl-originals.json" ] && [ -s "$state/probe-baselines.json" ] \
    && pass "--once --apply wrote the originals and the probe baselines" \
    || fail "the state directory after --apply: $(ls -l "$state")"
echo 4096 > /proc/sys/net/core/somaxconn    # drift, for the verdicts below
listing "$state" > "$tmp/before"

# (a) --once, with and without probes: nothing written, the baselines learned in memory.
sleep 0.05      # an mtime rewritten now differs from --apply's, on any clock granularity
expect_rc 1 once -v     # -v: each finding's own words (probe.regression's "N of M")
expect_grep "verdict: DEGRADED" "$LAST_OUT"
# The run folded into the two --apply runs' baseline: its third run, in memory.
learned=$(grep -o 'learning the baseline ([0-9]* of' "$LAST_OUT")
[ "$learned" = "learning the baseline (3 of" ] && pass "--once learned its run in memory: $learned" \
    || fail "--once: '$learned', wanted the third run"
listing "$state" > "$tmp/after"; expect_same "$tmp/before" "$tmp/after"
expect_rc 1 once --no-probes --json
listing "$state" > "$tmp/after"; expect_same "$tmp/before" "$tmp/after"
# A second --once starts from the same baselines: it learned nothing on disk.
expect_rc 1 once -v
expect_grep "$learned" "$LAST_OUT"
listing "$state" > "$tmp/after"; expect_same "$tmp/before" "$tmp/after"

# ... while another process holds the state lock (as a running daemon does): --once
# --apply is refused (75), --once reads beside it and writes nothing.
flock "$state/fabtuned.lock" sleep 60 & holder=$!
for _ in $(seq 100); do flock -n "$state/fabtuned.lock" true || break; sleep 0.05; done
listing "$state" > "$tmp/before-held"
expect_rc 75 once --apply
expect_rc 1 once
expect_grep "verdict: DEGRADED" "$LAST_OUT"
expect_rc 1 once --no-probes
listing "$state" > "$tmp/after"; expect_same "$tmp/before-held" "$tmp/after"
kill "$holder"; wait "$holder" 2>/dev/null; holder=""

# A state directory that does not exist is not created, the default one neither.
expect_rc 1 "$fabtuned" --once -c "$tmp/policy.yaml" --state-dir "$tmp/none"
[ ! -e "$tmp/none" ] && pass "--once created no state directory" || fail "--once created $tmp/none"
expect_rc 1 "$fabtuned" --once -c "$tmp/policy.yaml"
[ ! -e /var/lib/fabtune ] && pass "--once created no /var/lib/fabtune" \
    || fail "--once created /var/lib/fabtune: $(ls -la /var/lib/fabtune)"
# fabtunectl diff against this node live (issue 41, item 5): no /var/lib/fabtune either.
rm -rf /var/lib/fabtune
expect_rc 0 "$ctl" snapshot "$tmp/host.tar"
expect_rc_in "0 1" "$ctl" -c "$tmp/policy.yaml" diff "$tmp/host.tar"
[ ! -e /var/lib/fabtune ] && pass "fabtunectl diff created no /var/lib/fabtune" \
    || fail "fabtunectl diff created /var/lib/fabtune"

# (b) As nobody: a verdict (the drift, 1), not 78 over /run/fabtune/nccl.conf; the
# originals, root's 0600 file, are said to be unread, in the text and the JSON.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
for probes in --no-probes ""; do
    expect_rc 1 as_nobody "$fabtuned" --once $probes -c "$tmp/policy.yaml" --state-dir "$state"
    expect_grep "verdict: DEGRADED: 1 warning (tuning.drift)" "$LAST_OUT"
    ! grep -q "nccl.conf\|nccl.env" "$LAST_ERR" && pass "as nobody: no word of /run/fabtune's outputs" \
        || fail "as nobody --once $probes: $(cat "$LAST_ERR")"
    expect_grep "could not read (as this user; root reads them):" "$LAST_OUT"
    expect_grep "$state/sysctl-originals.json: Permission denied; the sysctls' ORIGINAL is unknown" "$LAST_OUT"
done
expect_rc 1 as_nobody "$fabtuned" --once --json --no-probes -c "$tmp/policy.yaml" --state-dir "$state"
jq -r '.unread[]' "$LAST_OUT" > "$tmp/unread"
expect_match "^$state/sysctl-originals.json: Permission denied" "$tmp/unread"
jq -r '.tuning[] | "\(.key) \(.state) \(.live)"' "$LAST_OUT" > "$tmp/t"
expect_match '^net.core.somaxconn drift 4096$' "$tmp/t"
# The default policy (its outputs under /run/fabtune), as an operator tries it first: a
# verdict, whatever it is here.
for probes in --no-probes ""; do
    expect_rc_in "0 1 2 3" as_nobody "$fabtuned" --once $probes --state-dir "$state"
    expect_match "^verdict: " "$LAST_OUT"
done
listing "$state" > "$tmp/after"; expect_same "$tmp/before" "$tmp/after"
finish
