#!/bin/sh
# SPDX-License-Identifier: ISC
# Builds the guest's initramfs: busybox-static, the rdma_rxe/veth/virtio_net/9p module closure of the
# unpacked Debian kernel, and tests/guest/init. No userland libraries: the guest chroots into
# the host's root over 9p (see init).
#   build-initramfs.sh KERNEL_ROOT KVER INIT OUTPUT
set -eu
kroot=$1 kver=$2 init=$3 out=$4
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/bin" "$stage/sbin" "$stage/proc" "$stage/sys" "$stage/dev"
cp /bin/busybox "$stage/bin/busybox"
for a in sh mount umount insmod mkdir cat cut tr echo poweroff chroot sync sleep; do
    ln -s busybox "$stage/bin/$a"
done

# Soft-RoCE and what the harness needs, in dependency order (modprobe's own resolution);
# crc32 is a soft dependency of rdma_rxe that modprobe does not list.
: > "$stage/modules.load"
for m in virtio_pci 9pnet_virtio 9p veth virtio_net crc32_generic rdma_rxe ib_uverbs rdma_ucm sch_netem; do
    modprobe -d "$kroot" -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r path; do
    rel=${path#"$kroot"/}
    mkdir -p "$stage/$(dirname "$rel")"
    case $rel in
        *.ko.xz) rel=${rel%.xz}; xz -dc "$path" > "$stage/$rel" ;;
        *) cp "$path" "$stage/$rel" ;;
    esac
    echo "/$rel" >> "$stage/modules.load"
done
grep -q rdma_rxe "$stage/modules.load" || { echo "build-initramfs: no rdma_rxe in $kver" >&2; exit 1; }

cp "$init" "$stage/init"
chmod +x "$stage/init"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) |
    gzip -6 > "$out.tmp"
mv "$out.tmp" "$out"
