/* SPDX-License-Identifier: ISC */
/* The configuration space walk: every pointer is checked against the buffer, aligned, and
 * the walks are bounded (48 standard capabilities, 960 extended ones: as many as fit), so a
 * loop or a pointer out of range in a device's (or a file's) bytes ends the walk. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "pci_config.h"

#define PCI_STATUS 0x06
#define PCI_STATUS_CAP_LIST 0x10
#define PCI_CAPABILITY_LIST 0x34
#define PCI_CAP_ID_EXP 0x10
#define PCI_EXP_FLAGS 0x02
#define PCI_EXP_DEVCTL 0x08
#define PCI_EXT_CAP_ID_ACS 0x0d
#define PCI_CFG_SPACE_SIZE 256
#define PCI_CFG_SPACE_EXP_SIZE 4096

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void pcie_capability(const uint8_t *buf, size_t len, size_t at, struct pci_config *c)
{
    if (at + PCI_EXP_DEVCTL + 2 > len)
        return;
    uint16_t flags = le16(buf + at + PCI_EXP_FLAGS), ctl = le16(buf + at + PCI_EXP_DEVCTL);
    c->pcie = true;
    c->pcie_type = (uint8_t)((flags >> 4) & 0xf);
    c->max_payload = 128u << ((ctl >> 5) & 7);
    c->max_read_request = 128u << ((ctl >> 12) & 7);
}

static void standard_capabilities(const uint8_t *buf, size_t len, struct pci_config *c)
{
    if (!(le16(buf + PCI_STATUS) & PCI_STATUS_CAP_LIST))
        return;
    size_t at = buf[PCI_CAPABILITY_LIST] & ~3u;
    for (int hops = 0; hops < 48 && at >= 0x40 && at + 2 <= len && at < PCI_CFG_SPACE_SIZE; hops++) {
        if (buf[at] == 0xff)
            break;
        c->n_capabilities++;
        if (buf[at] == PCI_CAP_ID_EXP && !c->pcie)
            pcie_capability(buf, len, at, c);
        at = buf[at + 1] & ~3u;
    }
}

static void extended_capabilities(const uint8_t *buf, size_t len, struct pci_config *c)
{
    if (len < PCI_CFG_SPACE_EXP_SIZE)
        return;
    c->extended = true;
    size_t at = PCI_CFG_SPACE_SIZE;
    for (int hops = 0; hops < (PCI_CFG_SPACE_EXP_SIZE - PCI_CFG_SPACE_SIZE) / 4; hops++) {
        uint32_t header = le32(buf + at);
        if (header == 0 || header == 0xffffffff)
            break;
        c->n_extended++;
        if ((header & 0xffff) == PCI_EXT_CAP_ID_ACS && !c->acs && at + 8 <= len) {
            c->acs = true;
            c->acs_cap = le16(buf + at + 4);
            c->acs_ctrl = le16(buf + at + 6);
        }
        size_t next = (header >> 20) & ~3u;
        if (next < PCI_CFG_SPACE_SIZE || next + 4 > len)
            break;
        at = next;
    }
}

int pci_config_parse(const uint8_t *buf, size_t len, struct pci_config *c)
{
    memset(c, 0, sizeof(*c));
    if (len < 64 || le32(buf) == 0xffffffff)
        return -EBADMSG;
    c->header = true;
    c->vendor = le16(buf);
    c->device = le16(buf + 2);
    standard_capabilities(buf, len, c);
    extended_capabilities(buf, len, c);
    return 0;
}
