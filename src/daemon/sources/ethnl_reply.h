/* SPDX-License-Identifier: ISC */
/* The framing every raw ethtool genetlink answer shares (MODULE_EEPROM_GET, FEC_GET), as
 * the kernel sends it and a snapshot keeps it: the netlink header, an NLMSG_ERROR with its
 * extended ack, the genetlink header and the attributes. Any bytes in. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The payload of the first attribute of TYPE in [P, P+LEN) (its length in *RET_LEN), or
 * NULL; a malformed attribute ends the walk. */
const unsigned char *nl_attr_find(const unsigned char *p, size_t len, uint16_t type,
                                  size_t *ret_len);
/* An NLMSG_ERROR answer of LEN bytes (its header checked by the caller): its -errno, WHY
 * the extended ack's message, else UNSUPPORTED for EOPNOTSUPP or REFUSED, each with the
 * errno's text; -EBADMSG for one without an errno. */
int nl_reply_error(const unsigned char *buf, size_t len, const char *unsupported,
                   const char *refused, char *why, size_t whylen);
/* One answer of LEN bytes to the ethtool request whose reply command is CMD (NAME, as
 * "FEC_GET", in WHY's texts): 0 with its attributes in *ATTRS and *ATTRS_LEN; the
 * NLMSG_ERROR's -errno with WHY (nl_reply_error, UNSUPPORTED and REFUSED); -EBADMSG with
 * WHY for bytes that are not such an answer. */
int ethnl_reply_attrs(const unsigned char *buf, size_t len, uint8_t cmd, const char *name,
                      const char *unsupported, const char *refused,
                      const unsigned char **attrs, size_t *attrs_len, char *why, size_t whylen);
