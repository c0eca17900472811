# SPDX-License-Identifier: ISC
# Sourced by bench/: make_big_tree DIR writes a synthetic sysfs tree of 16 ConnectX ports,
# every one of the 256 GID slots in use (IPv4 v1/v2 pairs), in the layout of
# tests/fixtures/sysfs-lib.sh (the kernel's /sys/class/infiniband and /sys/class/net).
. "$top/tests/fixtures/sysfs-lib.sh"
make_big_tree() {
    local big=$1 n addr p i
    for n in $(seq 0 15); do
        addr=$(printf "0000:%02x:00.0" $((16 + n)))
        pci_dev "$big" "$addr" 0 mlx5_core 0x15b3 0x1021 0x020000 "32.0 GT/s PCIe" 16 "32.0 GT/s PCIe" 16
        ib_dev "$big" "mlx5_$n" "$addr" 28.39.1002 "b83f:d203:00c1:$(printf %04x "$n")"
        ib_port "$big" "mlx5_$n" 1 Ethernet "4: ACTIVE" "5: LinkUp" "400 Gb/sec (4X NDR)" 256 yes
        p="$big/class/infiniband/mlx5_$n/ports/1"
        for i in $(seq 0 255); do
            v4gid "10.$n.$((i / 2)).1" > "$p/gids/$i"
            [ $((i % 2)) = 0 ] && echo "IB/RoCE v1" > "$p/gid_attrs/types/$i" || echo "RoCE v2" > "$p/gid_attrs/types/$i"
            echo "eth$n" > "$p/gid_attrs/ndevs/$i"
        done
        netdev "$big" "pci0000:00/$addr" "eth$n" up 1 9000 1 $((10 + n))
    done
}
