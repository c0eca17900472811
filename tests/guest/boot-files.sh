#!/bin/sh
# SPDX-License-Identifier: ISC
# The Soft-RoCE guests' kernel and initramfs, shared by the one-node (tests/guest-rxe)
# and two-node (tests/guest-two-node) stages: one cache (FABTUNE_VM_CACHE, default
# .cache/vm in the source tree, or ~/.cache/fabtune/vm when that is read-only), the
# kernel fetched once, the initramfs built once per change of init or builder, under a
# lock (the stages may run at the same moment under make check -j). Prints
# "KERNEL_ROOT KVER INITRD".
#   boot-files.sh SRCDIR
set -u
top_srcdir=$1
cache=${FABTUNE_VM_CACHE:-$top_srcdir/.cache/vm}
mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ] || cache=$HOME/.cache/fabtune/vm
mkdir -p "$cache" || exit 1
set -- $("$top_srcdir/tests/guest/fetch-kernel.sh" "$cache")
[ $# -eq 2 ] || { echo "boot-files: cannot fetch the guest kernel" >&2; exit 1; }
kroot=$1 kver=$2
key=$(cat "$top_srcdir/tests/guest/init" "$top_srcdir/tests/guest/build-initramfs.sh" | md5sum | cut -c1-12)
initrd="$cache/initramfs-$kver-$key.cpio.gz"
( flock 9; [ -f "$initrd" ] || "$top_srcdir/tests/guest/build-initramfs.sh" "$kroot" "$kver" \
    "$top_srcdir/tests/guest/init" "$initrd" >&2 ) 9> "$cache/initramfs.lock" ||
    { echo "boot-files: cannot build the initramfs" >&2; exit 1; }
echo "$kroot $kver $initrd"
