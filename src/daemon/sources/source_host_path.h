/* SPDX-License-Identifier: ISC */
/* The host along each rail's path: IOMMU groups (/sys/kernel/iommu_groups, each PCI
 * function's iommu_group link, the kernel command line), the cpufreq governor of the HCA's
 * local CPUs (devices/system/cpu/cpuN/cpufreq), and its MSI-X interrupts' affinity
 * (msi_irqs/, /proc/irq/N/effective_affinity_list or smp_affinity_list). */
#pragma once

#include "inventory.h"

/* PROCROOT may be NULL (a snapshot without its procfs): interrupts and the command line
 * stay unknown. */
void source_host_path_scan(const char *sysroot, const char *procroot, struct inventory *inv);
