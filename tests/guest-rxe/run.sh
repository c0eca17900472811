#!/bin/sh
# SPDX-License-Identifier: ISC
# make check's Soft-RoCE stage: boots Debian's kernel under qemu (TCG), creates rxe0 on a
# veth in the guest, runs the in-guest suite against it and reports one line per test.
# Fails when a guest test fails, when the guest does not boot, or on a timeout.
#
# Environment: the guest stages' own (tests/guest/lib.sh: FABTUNE_VM_CACHE,
# FABTUNE_VM_TIMEOUT, default 900 s here, FABTUNE_SKIP_VM), and
#   FABTUNE_VM_BREAK    "gid": give the in-guest test a wrong expectation (it must fail)
#   FABTUNE_VM_BENCH=1  also run fabtune's RDMA probe and ib_write_lat side by side
#                       (bench/rdma-vs-ib_write_lat.sh sets it)
. "${top_srcdir:-.}/tests/guest/lib.sh"

# The in-guest tests (guest-suite.sh): each must report PASS, and the suite must exit 0.
EXPECTED="rxe_port_events fabtuned_once daemon kernel_log devnode probe_rdma probe_regression"

# FABTUNE_VM_ONLY=ID runs that one test (repeated trials, such as the loaded-host runs of
# probe_regression); CI runs them all.
if [ -n "${FABTUNE_VM_ONLY:-}" ]; then
    if [ "${CI:-}" = true ]; then
        fail "FABTUNE_VM_ONLY is not allowed in CI"; finish; exit 1
    fi
    EXPECTED=$FABTUNE_VM_ONLY
fi
guest_skip_rule "the Soft-RoCE guest stage"
guest_need_tools "the Soft-RoCE guest"

t_start=$(date +%s.%N)
set -- $(sh "$top_srcdir/tests/guest/boot-files.sh" "$top_srcdir")
[ $# -eq 3 ] || { fail "cannot fetch the guest kernel or build its initramfs"; finish; exit 1; }
kroot=$1 kver=$2 initrd=$3

out="$top_builddir/tests/guest-rxe/out"
rm -rf "$out"
mkdir -p "$out"
console="$top_builddir/tests/guest-rxe/console.log"
case "$top_srcdir$top_builddir" in
    *[[:space:]]*) fail "the guest cannot take paths with spaces: $top_srcdir $top_builddir"
                   finish; exit 1 ;;
esac

t_qemu=$(date +%s.%N)
rcfile="$top_builddir/tests/guest-rxe/qemu.rc"
guest_qemu "${FABTUNE_VM_TIMEOUT:-900}" "$rcfile" "$console" -m 1536 -smp 2 \
    -kernel "$kroot/boot/vmlinuz-$kver" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 quiet fabtune.src=$top_srcdir fabtune.build=$top_builddir fabtune.break=${FABTUNE_VM_BREAK:-none} fabtune.bench=${FABTUNE_VM_BENCH:-0} fabtune.only=${FABTUNE_VM_ONLY:-all}" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs "local,path=$top_srcdir,mount_tag=src,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$top_builddir,mount_tag=build,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$out,mount_tag=results,security_model=none"
rc=$(cat "$rcfile")
t_end=$(date +%s.%N)
cat "$console"

boot=$(guest_boot_seconds "$console")
echo "timing: qemu start to guest /init ${boot:-never} s," \
     "guest run $(awk "BEGIN { printf \"%.1f\", $t_end - $t_qemu }") s," \
     "whole stage $(awk "BEGIN { printf \"%.1f\", $t_end - $t_start }") s"

if [ ! -s "$out/results" ]; then
    [ "$rc" = 124 ] && fail "the guest timed out" || fail "the guest did not boot or ran no test (qemu exit $rc)"
    finish; exit 1
fi
guest_report_results "$out/results" "guest" " (the suite stopped before it?)"
suite_rc=$(sed -n 's/.*@@FABTUNE-VM suite end rc=\([0-9]*\).*/\1/p' "$console" | head -1)
case $suite_rc in
    0) pass "the guest suite exited 0" ;;
    '') fail "the guest suite did not finish (qemu exit $rc)" ;;
    *) fail "the guest suite exited $suite_rc" ;;
esac
cp "$out/results" "$top_builddir/tests/guest-rxe/results.txt"
[ -f "$out/soft-roce-snapshot.tar" ] && cp "$out/soft-roce-snapshot.tar" "$top_builddir/tests/guest-rxe/"
finish
