/* SPDX-License-Identifier: ISC */
/* The parser of one raw ETHTOOL_MSG_FEC_GET answer (snapshot/kernel_module.h,
 * kernel_fec_get): the reply's modes, active mode and statistics into a fec_info, or the
 * NLMSG_ERROR's errno and extended-ack message as a reason. Any bytes in. */
#pragma once

#include <stddef.h>

#include "fec.h"

/* 0 with INFO filled; -errno with WHY set: the kernel's error (EOPNOTSUPP: the driver
 * reports no FEC), or -EBADMSG for bytes that are not a well-formed answer. */
int fec_reply_parse(const unsigned char *buf, size_t len, struct fec_info *info, char *why,
                    size_t whylen);
