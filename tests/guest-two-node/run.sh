#!/bin/sh
# SPDX-License-Identifier: ISC
# make check's two-node stage: two qemu guests (TCG) of Debian's kernel, each with two
# virtio NICs, all four members of one qemu multicast-socket hub on the host's loopback
# (one L2 and nothing else on it, as ../shared/reference/tworail-vm measured), each guest
# with rdma_rxe on its first NIC and fabtuned running; the second NICs carry a second
# rail for the last test (tests/guest-two-node/rails.sh).
# Node A probes node B through B's responder (tests/guest-two-node/node.sh holds both
# roles; they meet in a shared 9p directory). Reports one line per test, the boot and
# stage times.
#
# Environment: the guest stages' own (tests/guest/lib.sh: FABTUNE_VM_CACHE,
# FABTUNE_VM_TIMEOUT, default 900 s here, FABTUNE_SKIP_VM); FABTUNE_VM_BENCH=1 also runs
# the peer RDMA probe and ib_write_lat between the guests side by side
# (bench/peer-rdma-vs-ib_write_lat.sh sets it).
. "${top_srcdir:-.}/tests/guest/lib.sh"

# The tests node A reports; each must PASS.
EXPECTED="peer_tcp peer_rdma peer_regression peer_refused peer_killed
    cm_hello cm_no_rtu cm_flood cm_stall cm_oob_write cm_after two_rails"

guest_skip_rule "the two-node guest stage"
guest_need_tools "the two-node stage"
case "$top_srcdir$top_builddir" in
    *[[:space:]]*) fail "the guests cannot take paths with spaces"; finish; exit 1 ;;
esac

# The same kernel and initramfs as the one-node stage (one cache for both).
t_start=$(date +%s.%N)
set -- $(sh "$top_srcdir/tests/guest/boot-files.sh" "$top_srcdir")
[ $# -eq 3 ] || { fail "cannot fetch the guest kernel or build its initramfs"; finish; exit 1; }
kroot=$1 kver=$2 initrd=$3

base="$top_builddir/tests/guest-two-node"
rm -rf "$base/a" "$base/b" "$base/shared"
mkdir -p "$base/a" "$base/b" "$base/shared"
# The hub: a multicast group and port on the host's loopback, one per run (a concurrent
# run of the stage has its own). Every member gets every frame; each NIC's MAC filter
# keeps its own unicasts and the broadcasts, as a switch port would.
hub="230.0.$(($$ % 250)).$((1 + $$ / 250 % 250)):$((20000 + $$ % 40000))"

timeout_s=${FABTUNE_VM2_TIMEOUT:-${FABTUNE_VM_TIMEOUT:-900}}
bench=${FABTUNE_VM2_BENCH:-${FABTUNE_VM_BENCH:-0}}
t_qemu=$(date +%s.%N)
boot() {    # boot ROLE MAC_BYTE
    guest_qemu "$timeout_s" "$base/$1.rc" "$base/$1.console" -m 1024 -smp 1 \
        -netdev "socket,id=rail1,mcast=$hub,localaddr=127.0.0.1" \
        -device "virtio-net-pci,netdev=rail1,mac=52:54:00:fa:b0:$2" \
        -netdev "socket,id=rail2,mcast=$hub,localaddr=127.0.0.1" \
        -device "virtio-net-pci,netdev=rail2,mac=52:54:00:fa:b1:$2" \
        -kernel "$kroot/boot/vmlinuz-$kver" -initrd "$initrd" \
        -append "console=ttyS0 panic=-1 quiet fabtune.src=$top_srcdir fabtune.build=$top_builddir fabtune.suite=tests/guest-two-node/node.sh fabtune.role=$1 fabtune.bench=$bench" \
        -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
        -virtfs "local,path=$top_srcdir,mount_tag=src,security_model=none,readonly=on,multidevs=remap" \
        -virtfs "local,path=$top_builddir,mount_tag=build,security_model=none,readonly=on,multidevs=remap" \
        -virtfs "local,path=$base/$1,mount_tag=results,security_model=none" \
        -virtfs "local,path=$base/shared,mount_tag=shared,security_model=none"
}
boot a 0a & qa=$!
boot b 0b & qb=$!
wait $qa; wait $qb
t_end=$(date +%s.%N)
for n in a b; do echo "--- node $n"; cat "$base/$n.console"; done

boot_a=$(guest_boot_seconds "$base/a.console")
boot_b=$(guest_boot_seconds "$base/b.console")
echo "timing: qemu start to guest /init A ${boot_a:-never} s, B ${boot_b:-never} s," \
     "guests $(awk "BEGIN { printf \"%.1f\", $t_end - $t_qemu }") s," \
     "whole stage $(awk "BEGIN { printf \"%.1f\", $t_end - $t_start }") s"

if [ ! -s "$base/a/results" ]; then
    fail "node A did not boot or ran no test (qemu exit $(cat "$base/a.rc"))"
    finish; exit 1
fi
guest_report_results "$base/a/results" "two nodes"
for n in a b; do
    rc=$(sed -n 's/.*@@FABTUNE-VM suite end rc=\([0-9]*\).*/\1/p' "$base/$n.console" | head -1)
    [ "$rc" = 0 ] && pass "node $n's script exited 0" || fail "node $n's script exited '${rc:-never}'"
done
finish
