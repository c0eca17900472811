/* SPDX-License-Identifier: ISC */
/* The PCI source: the HCAs' PCIe links, the GPUs, GPUDirect's kernel modules. */
#pragma once

#include "inventory.h"

/* Fills each rail's PCIe link and topology path, the GPU list and the nvidia/nvidia_peermem
 * modules, from sysroot. */
void source_pci_scan(const char *sysroot, struct inventory *inv);
