/* SPDX-License-Identifier: ISC */
/* A PCI function's configuration space, as sysfs's "config" file holds it (the first 64
 * bytes to anyone, 256 or 4096 to root): the capability list and the extended capability
 * list, walked bounded and validated (PCIe Base Specification 6.0, 7.5 and 7.6; the
 * kernel's include/uapi/linux/pci_regs.h names every offset used here). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"   /* the ACS bits */

struct pci_config {
    bool header;                /* at least the 64-byte header */
    uint16_t vendor, device;
    bool pcie;                  /* a PCI Express capability was found */
    uint8_t pcie_type;          /* its device/port type (PCI_EXP_TYPE_*: 0 endpoint, 5
                                 * upstream port, 6 downstream port, 4 root port) */
    uint32_t max_read_request;  /* bytes, from Device Control; 0 without PCIe */
    uint32_t max_payload;       /* bytes, from Device Control */
    unsigned n_capabilities;    /* standard capabilities walked */
    bool extended;              /* the buffer reaches the extended space (4096 bytes) */
    unsigned n_extended;        /* extended capabilities walked (Null ones included) */
    bool acs;                   /* an ACS extended capability */
    uint16_t acs_cap, acs_ctrl; /* its Capability and Control registers */
};


/* Parses LEN bytes of config space. -EBADMSG for less than a header or an all-ones header
 * (a function gone); a malformed list ends the walk with what was found so far. */
int pci_config_parse(const uint8_t *buf, size_t len, struct pci_config *ret);
