/* SPDX-License-Identifier: ISC */
/* One MODULE_EEPROM_GET answer (module_reply.h); its framing is ethnl_reply.h's. The
 * layout: Documentation/networking/ethtool-netlink.rst, "MODULE_EEPROM_GET". */
#include "config.h"

#include "module_reply.h"

#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <stdio.h>

#include "ethnl_reply.h"

int module_reply_parse(const unsigned char *buf, size_t len, uint8_t page, uint32_t offset,
                       struct module_eeprom *m, char *why, size_t whylen)
{
    const unsigned char *p;
    size_t plen;
    int r = ethnl_reply_attrs(buf, len, ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY, "MODULE_EEPROM_GET",
                              "the driver gives no module EEPROM",
                              "the kernel refused the module EEPROM read", &p, &plen, why, whylen);
    if (r < 0)
        return r;
    size_t dlen;
    const unsigned char *data = nl_attr_find(p, plen, ETHTOOL_A_MODULE_EEPROM_DATA, &dlen);
    if (!data) {
        snprintf(why, whylen, "a MODULE_EEPROM_GET reply without data");
        return -EBADMSG;
    }
    r = module_eeprom_put(m, page, offset, data, dlen);
    if (r < 0)
        snprintf(why, whylen, "%zu bytes at page %02xh offset %u do not fit a page", dlen,
                 page, offset);
    return r;
}
