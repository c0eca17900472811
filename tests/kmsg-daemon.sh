#!/bin/sh
# SPDX-License-Identifier: ISC
# The kernel-log source in a running daemon (issue 45, item 1), on this machine's real
# kernel log: fabtuned samples the H100 NDR fixture (--sysfs-root; mlx5_0 at 0000:18:00.0)
# with this host's boot id, so the log it reads is the one the kernel keeps now.
# - No journald: the daemon reads /dev/kmsg; nic.* is judged (ok) on every rail and
#   links.json holds a "kmsg:BOOT:SEQ" cursor.
# - A process writes mlx5's fatal "health compromised" line about 0000:18:00.0 to
#   /dev/kmsg: the kernel keeps it with facility LOG_USER (kernel/printk/printk.c,
#   devkmsg_write), the daemon reads past it (the cursor moves beyond its sequence number)
#   and nic.firmware stays ok: a process cannot forge a driver's message.
# - A restart keeps the cursor: the next pass starts after it.
# - With a systemd-journald of its own (private /run, it reads /dev/kmsg as on a real node):
#   the daemon reads the journal's kernel transport from this boot's start, moves its cursor
#   to a "journal:" one, and the same forged line, which journald keeps under
#   _TRANSPORT=kernel with SYSLOG_FACILITY=1, is still no finding.
# Needs root (writing /dev/kmsg, "fabtunectl reload", the private mounts).
. "${top_srcdir:-.}/tests/lib.sh"
in_private_mounts "$0"
fabtuned="$top_builddir/src/daemon/fabtuned"
ctl="$top_builddir/src/client/fabtunectl"
[ -w /dev/kmsg ] || { echo "SKIP: /dev/kmsg is not writable"; exit 77; }
daemon_scratch kmsg h100_ndr_ib
cat /proc/sys/kernel/random/boot_id > "$tmp/proc/sys/kernel/random/boot_id"
boot=$(cat "$tmp/proc/sys/kernel/random/boot_id")
cat > "$tmp/policy.yaml" <<EOP
version: 1
checks: {interval: 1h}
tuning: {mode: off}
probes: {enabled: false}
EOP
# "CHECK RAIL" -> "severity actual message" of that finding
finding() {
    "$ctl" -s "$sock" --json checks |
        jq -r --arg c "$1" --arg r "$2" '.[] | select(.check == $c and .rail == $r) | "\(.severity) \(.actual) \(.message)"'
}
cursor() { jq -r '.kernel_cursor // ""' "$tmp/state/links.json"; }
# The sequence number of the /dev/kmsg record holding $1 (dmesg -r's raw form has none:
# read /dev/kmsg itself).
kmsg_seq() {
    timeout 5 dd if=/dev/kmsg iflag=nonblock bs=8192 2>/dev/null | tr -d '\000' |
        grep -a -- "$1" | head -1 | cut -d, -f1,2
}

[ ! -S /run/systemd/journal/socket ] || umount /run/systemd 2>/dev/null || true
fabtuned_start
finding nic.firmware mlx5_0/1 > "$tmp/f"
expect_match '^ok none the kernel said nothing' "$tmp/f"
c=$(cursor)
case "$c" in "kmsg:$boot:"*) pass "the kmsg cursor: $c" ;; *) fail "cursor '$c'" ;; esac

mark="fabtune-kmsg-daemon-$$"
echo "<3>mlx5_core 0000:18:00.0: poll_health:852:(pid 0): device's health compromised - reached miss count $mark" > /dev/kmsg
rec=$(kmsg_seq "$mark")
[ "${rec%%,*}" = 11 ] && pass "the kernel kept the process's line as LOG_USER|err (11)" ||
    fail "the forged record's prio,seq: '$rec'"
seq=${rec#*,}
moved=""
for _ in $(seq 20); do
    expect_rc 0 "$ctl" -s "$sock" reload
    c=$(cursor)
    [ "${c##*:}" -ge "$seq" ] 2>/dev/null && { moved=1; break; }
    sleep 0.5
done
[ -n "$moved" ] && pass "the cursor moved past the forged record ($c >= $seq)" || fail "cursor '$c', record $seq"
finding nic.firmware mlx5_0/1 > "$tmp/f"
expect_match '^ok none' "$tmp/f"
jq -e '[.rails[] | .nic // [] | length] | add == 0' "$tmp/state/links.json" > /dev/null &&
    pass "no kernel message kept" || fail "links.json keeps a message"

fabtuned_stop
saved=$(cursor)
fabtuned_start
c=$(cursor)
[ "${c##*:}" -ge "${saved##*:}" ] && pass "the cursor survives the restart ($saved -> $c)" ||
    fail "cursor after the restart: '$c' (was '$saved')"
finding nic.firmware mlx5_0/1 > "$tmp/f"
expect_match '^ok none' "$tmp/f"
fabtuned_stop

# journald of its own: the daemon reads the journal instead.
mkdir -p /run/systemd /run/log
mount -t tmpfs tmpfs /run/systemd
mount -t tmpfs tmpfs /run/log
/lib/systemd/systemd-journald & jpid=$!
trap 'kill "$dpid" "$jpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -S /run/systemd/journal/socket ] && break; sleep 0.05; done
echo "<3>mlx5_core 0000:18:00.0: poll_health:852:(pid 0): device's health compromised - reached miss count $mark-j" > /dev/kmsg
kept=""
for _ in $(seq 40); do
    journalctl --no-pager -o json _TRANSPORT=kernel 2>/dev/null | grep -q -- "$mark-j" && { kept=1; break; }
    sleep 0.25
done
if [ -z "$kept" ]; then
    echo "journald here does not read /dev/kmsg: the journal part is not run"
else
    journalctl --no-pager -o json _TRANSPORT=kernel | grep -- "$mark-j" |
        jq -r '"\(.SYSLOG_FACILITY) \(._TRANSPORT)"' > "$tmp/j"
    expect_match '^1 kernel$' "$tmp/j"
    fabtuned_start
    c=$(cursor)
    case "$c" in journal:*) pass "the journal cursor: ${c%%;*}..." ;; *) fail "cursor '$c' with journald" ;; esac
    finding nic.firmware mlx5_0/1 > "$tmp/f"
    expect_match '^ok none' "$tmp/f"
    fabtuned_stop
    fabtuned_start
    c2=$(cursor)
    case "$c2" in journal:*) pass "the journal cursor after a restart" ;; *) fail "cursor '$c2'" ;; esac
    fabtuned_stop
fi
kill "$jpid"; wait "$jpid" 2>/dev/null
finish
