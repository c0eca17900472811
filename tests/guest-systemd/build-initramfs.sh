#!/bin/sh
# SPDX-License-Identifier: ISC
# Builds the systemd guest's initramfs: busybox-static with all its applets, the module
# closure the guest needs (virtio + 9p + overlay for the root; veth + rdma_rxe + uverbs,
# ucm, umad for Soft-RoCE; autofs4 and configfs, which systemd asks for), init, the test
# payload (guest/) and the list of masked units. No userland libraries: the guest's root is
# the host's own over 9p, under a tmpfs overlay.
#   build-initramfs.sh KERNEL_ROOT KVER OUTPUT
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kroot=$1 kver=$2 out=$3
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/bin" "$stage/sbin" "$stage/proc" "$stage/sys" "$stage/dev" "$stage/tmp"
cp /bin/busybox "$stage/bin/busybox"
for a in $("$stage/bin/busybox" --list); do
    [ "$a" = busybox ] || ln -s busybox "$stage/bin/$a"
done

: > "$stage/modules.load"
for m in virtio_pci 9pnet_virtio 9p overlay veth crc32_generic rdma_rxe ib_uverbs rdma_ucm \
         ib_umad autofs4 configfs; do
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
for m in rdma_rxe overlay 9p; do
    grep -q "/$m.ko" "$stage/modules.load" || { echo "build-initramfs: no $m in $kver" >&2; exit 1; }
done

cp "$here/init" "$stage/init"
chmod +x "$stage/init"
mkdir -p "$stage/payload/etc/systemd/system" "$stage/payload/usr/local/lib/fabtune-vm"
cp "$here"/guest/*.service "$here"/guest/*.target "$stage/payload/etc/systemd/system/"
cp "$here"/guest/*.sh "$stage/payload/usr/local/lib/fabtune-vm/"
chmod +x "$stage"/payload/usr/local/lib/fabtune-vm/*.sh
cp "$here/masked-units" "$stage/masked-units"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet -R 0:0) |
    gzip -6 > "$out.tmp"
mv "$out.tmp" "$out"
