/* SPDX-License-Identifier: ISC */
/* What a snapshot keeps that is not a file: each netdev's DCB netlink reply (RTM_GETDCB /
 * DCB_CMD_IEEE_GET, the netlink message as the kernel sent it), and its ethtool replies
 * (ETHTOOL_GPAUSEPARAM's struct ethtool_pauseparam, ETHTOOL_GSTRINGS' and ETHTOOL_GSTATS'
 * structs with their data), as raw bytes in fabtune/net/IFNAME/{dcb_ieee, ethtool_pause,
 * ethtool_strings, ethtool_stats} beside the snapshot's sys/ and proc/, and its routing
 * conversation (kernel_routes.h: each rtnetlink request with the kernel's replies, as
 * netlink messages one after another) in fabtune/net/IFNAME/routes, and its module EEPROM
 * (ETHTOOL_MSG_MODULE_EEPROM_GET's answer as the kernel sent it, reply or NLMSG_ERROR with
 * its extended ack) in module_lower (page 0, bytes 0-127) and module_page_PP (upper page
 * PP in hex: 00, 01, 02, 03, 11; bytes 128-255), and its FEC (ETHTOOL_MSG_FEC_GET's
 * answer with ETHTOOL_FLAG_STATS, as the kernel sent it) in fec, and its LLDP neighbours as lldpd told
 * them (lldp_capture.h's text) in fabtune/net/IFNAME/lldp, and an mlx5 netdev's firmware
 * configuration as mstconfig or mlxconfig printed it (fw_config.h) in fw_config, with the
 * tool's name in fw_config.tool and, when it failed, its reason in fw_config.why beside
 * fw_config.errno (cc_capture.h). A request the
 * kernel refused is kept as its errno (NAME.errno, decimal), so that the offline analysis
 * says what the live one said. snapshot_write.h writes them; fabtuned's sources read them
 * back (snapshot_read.h) and parse them as they parse the live replies.
 *
 * Beside them, what the node remembered: fabtune/state/links.json, the daemon's link
 * memory (state/link_store.c's file, copied as it was), and fabtune/taken, when the
 * snapshot was taken: "WALL_USEC BOOTTIME_USEC\n" (CLOCK_REALTIME, CLOCK_BOOTTIME), the
 * "now" that memory is judged at offline. */
#pragma once

#define SNAPSHOT_REPLIES_DIR "fabtune/net"
#define SNAPSHOT_STATE_DIR "fabtune/state"
#define SNAPSHOT_TAKEN "fabtune/taken"
