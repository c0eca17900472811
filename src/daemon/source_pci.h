/* The PCI source: the HCAs' PCIe links, the GPUs, GPUDirect's kernel modules, memlock. */
#pragma once

#include "inventory.h"

/* Fills each rail's PCIe link and topology path, the GPU list, the nvidia/nvidia_peermem
 * modules (sysroot) and the memlock limit (procroot's self/limits). */
void source_pci_scan(const char *sysroot, const char *procroot, struct inventory *inv);
