/* SPDX-License-Identifier: ISC */
/* The kernel's raw replies to ETHTOOL_MSG_MODULE_EEPROM_GET (ethtool generic netlink,
 * Documentation/networking/ethtool-netlink.rst "MODULE_EEPROM_GET"): one page read of a
 * netdev's pluggable module; and to ETHTOOL_MSG_FEC_GET: its port's FEC. fabtuned's
 * module and FEC sources ask for them live and parse them (sources/module_reply,
 * sources/fec_reply); kept raw so that a snapshot can hold the same bytes. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Reads LEN bytes at OFFSET of PAGE (bank 0, I2C address 0x50). Returns the first netlink
 * message the kernel answered (the reply, or its NLMSG_ERROR with any extended ack) with
 * its length, malloc'd in *RET; -errno with WHY set when no answer came at all. */
int kernel_module_eeprom_get(const char *ifname, uint8_t page, uint32_t offset, uint32_t len,
                             unsigned char **ret, char *why, size_t whylen);

/* ETHTOOL_MSG_FEC_GET (ethtool-netlink.rst "FEC_GET") with ETHTOOL_FLAG_STATS and compact
 * bit sets: the configured and active FEC modes and the FEC statistics (corrected and
 * uncorrectable blocks, corrected bits, per lane). The same contract as above; a driver
 * without FEC (veth, virtio, rxe) answers an NLMSG_ERROR of EOPNOTSUPP. */
int kernel_fec_get(const char *ifname, unsigned char **ret, char *why, size_t whylen);
