#!/bin/sh
# SPDX-License-Identifier: ISC
# Fetches Debian's plain -amd64 kernel (it ships rdma_rxe; -cloud-amd64 does not) into the
# download cache, unpacks it and builds its modules.dep. Prints the unpacked root.
#   fetch-kernel.sh CACHE_DIR
# Re-running with a warm cache downloads nothing.
set -eu
cache=$1
mkdir -p "$cache"

# The kernel linux-image-amd64 points at, unless FABTUNE_VM_KERNEL names one.
pkg=${FABTUNE_VM_KERNEL:-}
if [ -z "$pkg" ]; then
    pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
          awk '/Depends: linux-image-[0-9].*-amd64$/ { print $2; exit }')
fi
if [ -z "$pkg" ]; then
    apt-get update -q >/dev/null
    pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9].*-amd64$/ { print $2; exit }')
fi
case $pkg in
    *cloud*) echo "fetch-kernel: $pkg is a -cloud kernel, which has no rdma_rxe" >&2; exit 1 ;;
    linux-image-*-amd64) ;;
    *) echo "fetch-kernel: cannot find Debian's -amd64 kernel package" >&2; exit 1 ;;
esac
kver=${pkg#linux-image-}
root="$cache/kernel-$kver"

# The Soft-RoCE and systemd guest stages share the cache and start together (make check
# -j2): one unpacks while the other waits, or the second's rm -rf pulls the tree from
# under the first's dpkg -x.
exec 9>"$cache/.fetch.lock"
flock 9
if [ ! -f "$root/.complete" ]; then
    if ! ls "$cache/${pkg}_"*.deb >/dev/null 2>&1; then
        (cd "$cache" && { apt-get download "$pkg" >/dev/null 2>&1 ||
                          { apt-get update -q >/dev/null && apt-get download "$pkg" >/dev/null; }; })
    fi
    rm -rf "$root"
    mkdir -p "$root"
    dpkg -x "$cache/${pkg}_"*.deb "$root"
    depmod -b "$root" "$kver"       # the deb ships no modules.dep; its postinst makes it
    touch "$root/.complete"
fi
echo "$root $kver"
