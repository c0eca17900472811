/* SPDX-License-Identifier: ISC */
/* PCI distance between a rail and the GPUs, in NVIDIA's topology words (nvidia-smi topo,
 * NCCL_NET_GDR_LEVEL): PXB (a PCIe switch in common), PHB (only the host bridge), NODE
 * (only the NUMA node), SYS (across sockets). */
#pragma once

#include "inventory.h"

/* The GPU nearest R in the PCI tree, or NULL without GPUs or for a non-PCI rail; *DIST
 * gets its distance word. */
const struct gpu *topology_nearest_gpu(const struct inventory *inv, const struct rail *r,
                                       const char **dist);

/* The rail nearest GPU G in the PCI tree (the first of the nearest), or NULL without rails
 * of a PCI function; *DIST gets its distance word. The rail a job's rank on G uses. */
const struct rail *topology_nearest_rail(const struct inventory *inv, const struct gpu *g,
                                         const char **dist);

#define TOPOLOGY_MAX_BRIDGES 16

/* The PCI functions between two devices/ paths: the components below their common
 * ancestor on either side, the two endpoints left out (a switch's downstream ports for a
 * GPU and an HCA behind one switch). Returns how many went into OUT. */
size_t topology_bridges_between(const char *a, const char *b, char out[][16], size_t max);
