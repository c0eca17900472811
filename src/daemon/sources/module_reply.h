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
/* The payload of the first attribute of TYPE in [P, P+LEN) (its length in *RET_LEN), or
 * NULL; a malformed attribute ends the walk. */
const unsigned char *nl_attr_find(const unsigned char *p, size_t len, uint16_t type,
                                  size_t *ret_len);
/* An NLMSG_ERROR answer of LEN bytes (its header checked by the caller): its -errno, WHY
 * the extended ack's message, else UNSUPPORTED for EOPNOTSUPP or REFUSED, each with the
 * errno's text; -EBADMSG for one without an errno. */
int nl_reply_error(const unsigned char *buf, size_t len, const char *unsupported,
                   const char *refused, char *why, size_t whylen);

int module_reply_parse(const unsigned char *buf, size_t len, uint8_t page, uint32_t offset,
                       struct module_eeprom *m, char *why, size_t whylen);
