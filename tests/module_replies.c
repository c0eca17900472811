/* SPDX-License-Identifier: ISC */
/* Writes a module fixture (a tests/fixtures/module file) as the answers fabtunectl snapshot
 * keeps of a netdev's module (src/snapshot/snapshot_layout.h): module_lower and
 * module_page_PP in DIR, each an ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY as the kernel sends it
 * (Documentation/netlink/specs/ethtool.yaml, module-eeprom-get: nlmsghdr, genlmsghdr, the
 * ETHTOOL_A_MODULE_EEPROM_HEADER nest naming the device, then ETHTOOL_A_MODULE_EEPROM_DATA
 * with the 128 bytes asked for). A page the fixture lists no byte of is not written: the
 * snapshot holds no answer for it, as for a page the module lacks. The bytes a fixture
 * leaves out are sent as 0, as a module that implements them would.
 *   tests/module_replies FILE.pages IFNAME DIR */
#include "config.h"

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>

#include "module_eeprom.h"
#include "module_pages.h"

static size_t put_attr(unsigned char *b, size_t at, uint16_t type, const void *data, size_t len)
{
    struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };
    memcpy(b + at, &a, sizeof(a));
    memcpy(b + at + NLA_HDRLEN, data, len);
    return at + NLA_ALIGN(a.nla_len);
}

static int write_reply(const char *dir, const char *name, const char *ifname, const uint8_t *data)
{
    unsigned char b[512] = { 0 }, dev[64] = { 0 };
    char path[4096];
    size_t n = strlen(ifname) + 1;
    /* The header nest: ETHTOOL_A_HEADER_DEV_NAME (2), the name NUL-terminated. */
    size_t d = put_attr(dev, 0, ETHTOOL_A_HEADER_DEV_NAME, ifname, n);
    struct genlmsghdr g = { .cmd = ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY, .version = 1 };
    memcpy(b + NLMSG_HDRLEN, &g, sizeof(g));
    size_t at = NLMSG_HDRLEN + GENL_HDRLEN;
    at = put_attr(b, at, ETHTOOL_A_MODULE_EEPROM_HEADER | NLA_F_NESTED, dev, d);
    at = put_attr(b, at, ETHTOOL_A_MODULE_EEPROM_DATA, data, MODULE_PAGE_SIZE);
    /* The ethtool family's id is dynamic; the parser does not judge it. */
    struct nlmsghdr h = { .nlmsg_len = (uint32_t)at, .nlmsg_type = GENL_ID_CTRL + 1 };
    memcpy(b, &h, sizeof(h));
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, at, f) != at || fclose(f) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const unsigned pages[MODULE_SLOTS] = { 0, 0x00, 0x01, 0x02, 0x03, 0x11 };
    struct module_eeprom m;
    int bad;
    if (argc != 4 || strlen(argv[2]) > 15) {
        fprintf(stderr, "usage: %s FILE.pages IFNAME DIR\n", argv[0]);
        return 2;
    }
    if (module_pages_read(argv[1], &m, &bad) < 0) {
        fprintf(stderr, "%s: %s%d\n", argv[1], bad ? "bad line " : "cannot open ", bad);
        return 1;
    }
    for (int s = 0; s < MODULE_SLOTS; s++) {
        bool any = false;
        for (size_t i = 0; i < sizeof(m.have[s]); i++)
            any |= m.have[s][i] != 0;
        char name[32];
        if (s == MODULE_SLOT_LOWER)
            snprintf(name, sizeof(name), "module_lower");
        else
            snprintf(name, sizeof(name), "module_page_%02x", pages[s]);
        if (any && write_reply(argv[3], name, argv[2], m.bytes[s]) < 0)
            return 1;
    }
    return 0;
}
