/* SPDX-License-Identifier: ISC */
/* The parser of a netdev's routing conversation (snapshot/kernel_routes.h): raw netlink
 * messages in, struct rail_routes out. The live source and a snapshot's fabtune/net/IF/routes
 * go through this same code. */
#pragma once

#include <stddef.h>

#include "routes.h"

/* Parses BUF (LEN bytes, 4-byte aligned): RTM_NEWLINK (ifindex, MAC), RTM_NEWADDR,
 * RTM_NEWRULE, RTM_NEWROUTE (a dump's routes through the netdev, or the answer to the
 * RTM_GETROUTE request just before it), RTM_NEWNEIGH and NLMSG_ERROR (a refused lookup).
 * Fills RR's tables (malloc'd; rail_routes_done frees them) and sets RR->known. Returns 0,
 * or -EBADMSG for a stream that is not netlink messages (RR->why says where); what was read
 * before stays. */
int route_parse_stream(const void *buf, size_t len, struct rail_routes *rr);
