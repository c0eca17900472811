#!/bin/sh
# SPDX-License-Identifier: ISC
# make check's systemd stage: boots Debian's kernel under qemu (TCG) with Debian's systemd
# 252 as PID 1 on an overlay of the host's root, installs fabtune as an operator does (the
# Debian package with dpkg -i, or this build's make install tree), and runs the operator's
# sequence of guest/test.sh against a live Soft-RoCE rail. Every expected test must report
# PASS; a missing one fails the stage, as does a guest that does not finish.
#
# Environment: the guest stages' own (tests/guest/lib.sh: FABTUNE_VM_CACHE,
# FABTUNE_VM_TIMEOUT, default 1500 s here: 443 s alone, past 900 on a loaded host;
# FABTUNE_SKIP_VM), and
#   FABTUNE_DEB          the fabtune_*.deb to install (scripts/build-deb.sh; CI sets it);
#                        without it, make install DESTDIR= of this build tree
. "${top_srcdir:-.}/tests/guest/lib.sh"

# The guest's tests, by id: each must report PASS (guest/test.sh writes them).
EXPECTED="boot.pid1 rail.rxe0 install.deb install.started install.group install.dirs
  install.nccl_link install.catalog install.conffile install.disabled policy.valid
  unit.active unit.notify unit.socket ctl.root ctl.member ctl.supplementary ctl.outsider
  ctl.member_reload sandbox.sysctl sandbox.nccl_env sandbox.nccl_conf sandbox.textfile
  sandbox.state sandbox.rdma_probe sandbox.jobs memlock.systemd memlock.limits_d unit.ready metrics.promtool alert.raised
  alert.catalog alert.status_text ready.waits ready.starts ready.sticky sandbox.kernel_log ready.security reload.good
  reload.bad reload.sandbox watchdog.restart watchdog.jobs_kept socket.alone socket.activation stop.revert
  stop.clean start_limit.hit purge.files purge.units"

guest_skip_rule "the systemd guest stage"
guest_need_tools "the systemd guest"
here="$top_srcdir/tests/guest-systemd"
work="$top_builddir/tests/guest-systemd"
case "$top_srcdir$top_builddir${FABTUNE_DEB:-}" in
    *[[:space:],]*) fail "the guest cannot take paths with spaces or commas"; finish; exit 1 ;;
esac
now() { date +%s.%N; }
t_start=$(now)

cache=${FABTUNE_VM_CACHE:-$top_srcdir/.cache/vm}
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache=$HOME/.cache/fabtune/vm
mkdir -p "$cache"
set -- $("$top_srcdir/tests/guest/fetch-kernel.sh" "$cache")
[ $# -eq 2 ] || { fail "cannot fetch the guest kernel"; finish; exit 1; }
kroot=$1 kver=$2
key=$(cd "$here" && cat init build-initramfs.sh masked-units guest/* | md5sum | cut -c1-12)
initrd="$cache/svm-initramfs-$kver-$key.cpio.gz"
[ -f "$initrd" ] || "$here/build-initramfs.sh" "$kroot" "$kver" "$initrd" ||
    { fail "cannot build the initramfs"; finish; exit 1; }

# What the guest installs: the package, or this build's make install tree.
fab="$work/fab"
rm -rf "$fab" "$work/out"
mkdir -p "$fab" "$work/out"
if [ -n "${FABTUNE_DEB:-}" ]; then
    [ -f "$FABTUNE_DEB" ] || { fail "FABTUNE_DEB=$FABTUNE_DEB is not a file"; finish; exit 1; }
    cp "$FABTUNE_DEB" "$fab/"
    echo "installing the package $(basename "$FABTUNE_DEB")"
else
    make -s -C "$top_builddir" install DESTDIR="$(cd "$fab" && pwd)" \
        systemdsystemunitdir=/lib/systemd/system catalogdir=/usr/lib/systemd/catalog \
        sysusersdir=/usr/lib/sysusers.d tmpfilesdir=/usr/lib/tmpfiles.d > "$work/install.log" 2>&1 ||
        { fail "make install for the guest failed"; cat "$work/install.log"; finish; exit 1; }
    mkdir -p "$fab/var/cache/fabtune-vm"
    d=$(find "$fab" -name fabtuned -type f | head -1); c=$(find "$fab" -name fabtunectl -type f | head -1)
    echo "${d%/*}:${c%/*}" | sed "s|$fab||g" > "$fab/var/cache/fabtune-vm/path"
    echo "installing the make install tree (no FABTUNE_DEB)"
fi

out="$work/out"
console="$work/console.log"
rcfile="$work/qemu.rc"
GUEST_CONSOLE_STRIP=1      # systemd's status lines carry terminal escapes
t_qemu=$(now)
guest_qemu "${FABTUNE_SVM_TIMEOUT:-${FABTUNE_VM_TIMEOUT:-1500}}" "$rcfile" "$console" -m 2048 -smp 2 \
    -kernel "$kroot/boot/vmlinuz-$kver" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 quiet systemd.unit=fabtune-vm.target systemd.show_status=0 SYSTEMD_COLORS=0" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs "local,path=$fab,mount_tag=fab,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$kroot/lib/modules/$kver,mount_tag=modules,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$out,mount_tag=results,security_model=none"
rc=$(cat "$rcfile")
t_end=$(now)
grep -a -E '@@SVM|PASS|FAIL|INFO|TIME|Welcome|Reached target.*Basic' "$console" | head -200

at() { grep -a -m1 -e "$1" "$console" | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p'; }
echo "timing (host seconds since qemu started): /init $(at '@@SVM init '), switch_root $(at '@@SVM switch-root'), " \
     "test start $(at '@@SVM test-start'), fabtuned READY $(at '@@SVM fabtuned-ready'), done $(at '@@SVM test-done');" \
     "guest run $(awk "BEGIN { printf \"%.1f\", $t_end - $t_qemu }") s, whole stage $(awk "BEGIN { printf \"%.1f\", $t_end - $t_start }") s"
sed -n 's/^TIME /time: /p' "$out/results" 2>/dev/null

if [ ! -s "$out/results" ]; then
    [ "$rc" = 124 ] && fail "the systemd guest timed out" || fail "the systemd guest did not boot or ran no test (qemu exit $rc)"
    finish; exit 1
fi
for id in $EXPECTED; do
    line=$(grep -m1 -E "^(PASS|FAIL) $id " "$out/results")
    case $line in
        PASS*) pass "systemd guest: ${line#PASS }" ;;
        FAIL*) fail "systemd guest: ${line#FAIL }" ;;
        *) fail "systemd guest: $id did not report (the sequence stopped before it?)" ;;
    esac
done
grep -E '^(PASS|FAIL) ' "$out/results" | awk '{ print $2 }' | while read -r id; do
    case " $(echo $EXPECTED) " in *" $id "*) ;; *) echo "note: unlisted guest test $id" ;; esac
done
grep -q '@@SVM test-done' "$console" || fail "the guest sequence did not finish (qemu exit $rc)"
finish
