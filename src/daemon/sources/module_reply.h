/* SPDX-License-Identifier: ISC */
/* The parser of one raw ETHTOOL_MSG_MODULE_EEPROM_GET answer (snapshot/kernel_module.h):
 * the reply's ETHTOOL_A_MODULE_EEPROM_DATA into the module's pages, or the NLMSG_ERROR's
 * errno and extended-ack message as a reason. Any bytes in. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "module_eeprom.h"

/* 0 with the data put at PAGE/OFFSET (as requested); -errno with WHY set: the kernel's
 * error, or -EBADMSG for bytes that are not a well-formed answer. */
int module_reply_parse(const unsigned char *buf, size_t len, uint8_t page, uint32_t offset,
                       struct module_eeprom *m, char *why, size_t whylen);
