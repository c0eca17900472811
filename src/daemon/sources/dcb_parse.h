/* SPDX-License-Identifier: ISC */
/* The parser of DCB netlink replies: raw message bytes in, struct dcb_state out. The live
 * source and the captured fixtures go through this same code. */
#pragma once

#include <stddef.h>

#include "qos.h"

/* Parses one netlink message: an RTM_GETDCB reply to DCB_CMD_IEEE_GET, or an NLMSG_ERROR.
 * Returns 0 with D->known set; -errno from an NLMSG_ERROR (D->why says what the kernel
 * refused); -EBADMSG for a malformed message (D->why says where). */
int dcb_parse_ieee_reply(const void *buf, size_t len, struct dcb_state *d);
/* D as nothing known, with WHY (may be ""). */
void dcb_state_unknown(struct dcb_state *d, const char *why);
/* "ieee,lld_managed" style text for DCB_CAP_DCBX_* bits. */
void dcb_dcbx_format(int dcbx, char *buf, size_t len);
