#!/bin/sh
# SPDX-License-Identifier: ISC
# What conf/fabtune.yaml (and fabtune.yaml(5)) say each socket key of the built-in profile
# does, asked of the real kernel in a private network namespace (issue 41, item 12):
# - a TCP socket starts at tcp_rmem/tcp_wmem's middle field, whatever rmem_default and
#   wmem_default say (so they do not serve NCCL's socket transport, which is TCP);
# - a UDP socket that sets no buffer starts at rmem_default/wmem_default;
# - rmem_max caps what setsockopt(SO_RCVBUF) may ask (the kernel doubles the value);
# - a new namespace's tcp_rmem middle field, the kernel's own default, is 131072: the
#   profile's 87380 is below it.
# rmem_default, wmem_default and rmem_max are the host's: read-only in a namespace on
# Linux 6.18, absent from it on older kernels (those parts are then skipped, said).
. "${top_srcdir:-.}/tests/lib.sh"
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
if [ -z "${FABTUNE_IN_NETNS:-}" ]; then
    [ "$(id -u)" = 0 ] || { echo "SKIP: unshare needs root"; exit 77; }
    FABTUNE_IN_NETNS=1 exec unshare -n sh "$0"
fi
set_key() { echo "$2" > "/proc/sys/$(echo "$1" | tr . /)"; }
# "tcp|udp" -> the SO_RCVBUF and SO_SNDBUF a new socket of that kind starts with
buffers() {
    python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM if sys.argv[1] == "tcp" else socket.SOCK_DGRAM)
print(s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF), s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF))' "$1"
}
out() { printf '%s\n' "$1" > "$_scratch/v"; expect_match "$2" "$_scratch/v"; }

# The profile's own values (conf/fabtune.yaml), so the test follows the file.
profile() { awk -v k="    $1:" 'index($0, k) == 1 { sub(/^[^:]*: */, ""); gsub(/"/, ""); sub(/ *#.*/, ""); print }' \
    "$top_srcdir/conf/fabtune.yaml"; }
rmem=$(profile net.ipv4.tcp_rmem) wmem=$(profile net.ipv4.tcp_wmem)
out "$rmem|$wmem" '^4096 87380 134217728|4096 65536 134217728$'
out "$(cut -f2 /proc/sys/net/ipv4/tcp_rmem)" '^131072$'
[ "$(echo "$rmem" | cut -d' ' -f2)" -lt 131072 ] && pass "the profile's initial TCP receive buffer is below the kernel's" ||
    fail "the profile's initial TCP receive buffer is not below the kernel's"
set_key net.ipv4.tcp_rmem "$rmem"
set_key net.ipv4.tcp_wmem "$wmem"
# rmem_default and the rest are the host's (read-only here from Linux 6.18, absent from
# a namespace before): read, never written.
core() { cat "/proc/sys/net/core/$1" 2>/dev/null; }
out "$(buffers tcp)" "^$(echo "$rmem" | cut -d' ' -f2) $(echo "$wmem" | cut -d' ' -f2)\$"
if [ -n "$(core rmem_default)" ] && [ -n "$(core wmem_default)" ]; then
    [ "$(core rmem_default)" != 87380 ] || fail "rmem_default equals tcp_rmem's: nothing told apart"
    out "$(buffers udp)" "^$(core rmem_default) $(core wmem_default)\$"
else
    echo "ok: SKIP rmem_default: not visible in this namespace on this kernel ($(uname -r))"
fi
if [ -n "$(core rmem_max)" ]; then
    out "$(python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
print(s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))')" "^$((2 * $(core rmem_max)))\$"
else
    echo "ok: SKIP rmem_max: not visible in this namespace on this kernel ($(uname -r))"
fi
set_key net.ipv4.tcp_rmem "4096 131072 134217728"
out "$(buffers tcp | cut -d' ' -f1)" '^131072$'
finish
