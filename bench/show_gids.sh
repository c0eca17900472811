#!/bin/bash
# SPDX-License-Identifier: ISC
# The show_gids scan (the script Mellanox OFED ships to list RoCE GIDs), reduced to its
# loop and made to honour a sysfs root: for every device, port and GID slot it reads the
# GID, its type and its netdev with one process each, the way operators scan by hand.
#   show_gids.sh SYSFS_ROOT
root=${1:-/sys}
printf "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n"
for d in "$root"/class/infiniband/*; do
    dev=$(basename "$d")
    for p in "$d"/ports/*; do
        port=$(basename "$p")
        for g in "$p"/gids/*; do
            idx=$(basename "$g")
            gid=$(cat "$g")
            [ "$gid" = 0000:0000:0000:0000:0000:0000:0000:0000 ] && continue
            [ "$gid" = fe80:0000:0000:0000:0000:0000:0000:0000 ] && continue
            ver=$(cat "$p/gid_attrs/types/$idx" 2>/dev/null)
            ndev=$(cat "$p/gid_attrs/ndevs/$idx" 2>/dev/null)
            ipv4=""
            case $gid in
                0000:0000:0000:0000:0000:ffff:*)
                    ipv4=$(printf "%d.%d.%d.%d" 0x${gid:30:2} 0x${gid:32:2} 0x${gid:35:2} 0x${gid:37:2}) ;;
            esac
            printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$dev" "$port" "$idx" "$gid" "$ipv4" "$ver" "$ndev"
        done
    done
done
