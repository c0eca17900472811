/* SPDX-License-Identifier: ISC */
/* What a snapshot keeps that is not a file: each netdev's DCB netlink reply (RTM_GETDCB /
 * DCB_CMD_IEEE_GET, the netlink message as the kernel sent it), and its ethtool replies
 * (ETHTOOL_GPAUSEPARAM's struct ethtool_pauseparam, ETHTOOL_GSTRINGS' and ETHTOOL_GSTATS'
 * structs with their data), as raw bytes in fabtune/net/IFNAME/{dcb_ieee, ethtool_pause,
 * ethtool_strings, ethtool_stats} beside the snapshot's sys/ and proc/. A request the
 * kernel refused is kept as its errno (NAME.errno, decimal), so that the offline analysis
 * says what the live one said. capture_replies.h writes them; the offline inventory reads
 * them here and parses them as it parses the live replies. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define CAPTURED_REPLIES_DIR "fabtune/net"

/* Whether the snapshot whose sys/ is SYSROOT kept anything for IFNAME. */
bool captured_replies_present(const char *sysroot, const char *ifname);
/* Reply NAME of IFNAME: 1 with its bytes (malloc'd, NUL-terminated, in *BUF), 0 with the
 * refused request's errno (negative) in *ERR, -ENOENT when the snapshot holds neither. */
int captured_reply(const char *sysroot, const char *ifname, const char *name, char **buf,
                   size_t *len, int *err);
