#!/bin/sh
# SPDX-License-Identifier: ISC
# The systemd units as built, judged offline by systemd's own tools: systemd-analyze verify
# and the hardening score of systemd-analyze security. tests/guest-systemd/ starts them under
# a real systemd as PID 1; this catches a regression in seconds.
. "${top_srcdir:-.}/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for u in fabtuned.service fabtune-wait-ready.service; do
    [ -f "$top_builddir/systemd/$u" ] || make -C "$top_builddir" "systemd/$u" > /dev/null
    # verify checks that ExecStart= exists: point it at the built binaries.
    sed -e "s|^ExecStart=[^ ]*/fabtuned|ExecStart=$top_builddir/src/daemon/fabtuned|" \
        -e "s|^ExecStart=[^ ]*/fabtunectl|ExecStart=$top_builddir/src/client/fabtunectl|" \
        "$top_builddir/systemd/$u" > "$tmp/$u"
done
cp "$top_srcdir/systemd/fabtuned.socket" "$top_srcdir/systemd/fabtune-ready.target" "$tmp/"

expect_rc 0 systemd-analyze verify --man=no "$tmp/fabtuned.service" "$tmp/fabtuned.socket" \
    "$tmp/fabtune-wait-ready.service" "$tmp/fabtune-ready.target"
[ ! -s "$LAST_ERR" ] && pass "systemd-analyze verify: no complaint" ||
    { fail "systemd-analyze verify complains:"; sed 's/^/    /' "$LAST_ERR"; }

score() { systemd-analyze security --offline=true "$tmp/$1" 2>/dev/null |
          sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'; }
# fabtuned's 3.3: CAP_SYS_PTRACE, which the jobs watch needs to see other users' NCCL
# processes under ProtectProc=invisible and read their maps and environ (fabtuned.service's
# comment; ptrace itself stays filtered by @debug), costs 0.3 over the 3.0 it had without.
for pair in fabtuned.service:3.3 fabtune-wait-ready.service:2.0; do
    u=${pair%:*} max=${pair#*:} s=$(score "${pair%:*}")
    [ -n "$s" ] && awk "BEGIN { exit !($s <= $max) }" &&
        pass "systemd-analyze security $u: $s (at most $max)" ||
        fail "systemd-analyze security $u: '${s:-no score}', wanted at most $max"
done

# What only a real systemd showed (tests/guest-systemd): a missing ReadWritePaths= path is
# fatal (226/NAMESPACE) unless it is optional; readiness must not restart what follows it.
sed -n 's/^ReadWritePaths=//p' "$tmp/fabtuned.service" | tr ' ' '\n' |
    grep -v -e '^-' -e '^/proc/sys/net$' -e '^/proc/sys/vm$' > "$tmp/required-paths"
[ ! -s "$tmp/required-paths" ] && pass "every ReadWritePaths= outside /proc/sys is optional" ||
    fail "required ReadWritePaths=: $(tr '\n' ' ' < "$tmp/required-paths")"
grep -q '^Requires=fabtuned.socket$' "$tmp/fabtuned.service" && grep -q '^Also=fabtuned.socket$' "$tmp/fabtuned.service" &&
    pass "the service pulls in and installs its socket" || fail "fabtuned.service does not bring fabtuned.socket"
! grep -q '^Requires=' "$tmp/fabtune-wait-ready.service" && ! grep -q '^Before=slurmd' "$tmp/fabtune-wait-ready.service" &&
    pass "wait-ready: no Requires= to pass restarts on, no hard-coded scheduler" ||
    fail "wait-ready has Requires= or a hard-coded Before="
t=$(sed -n 's/^TimeoutStartSec=//p' "$tmp/fabtune-wait-ready.service")
[ -n "$t" ] && [ "$t" -le 180 ] && pass "wait-ready gives up within $t s" || fail "wait-ready timeout '$t'"
finish
