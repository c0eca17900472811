/* SPDX-License-Identifier: ISC */
/* IOMMU, cpufreq and interrupt affinity along each rail's path. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "macro.h"
#include "source_host_path.h"
#include "sysfs.h"

/* DEV's IOMMU group's type ("devices/.../iommu_group/type"); "" without a group. */
static void iommu_type(const char *root, const char *dev, char *buf, size_t len)
{
    buf[0] = '\0';
    if (dev[0] && sysfs_read_line(root, buf, len, "%s/iommu_group/type", dev) < 0)
        buf[0] = '\0';
}

/* DEV's local_cpulist; false when it has none (a software device) or it does not parse. */
static bool local_cpus(const char *root, const char *dev, struct cpuset *ret)
{
    char list[4096];
    return dev[0] && sysfs_read_line(root, list, sizeof(list), "%s/local_cpulist", dev) == 0 &&
           cpulist_parse(list, ret) == 0 && cpuset_first(ret) >= 0;
}

/* The governor of the first CPU local to the HCA (cpu0 without a local_cpulist). */
static void cpufreq(const char *root, const struct cpuset *local, struct host_path *h)
{
    int cpu = local ? cpuset_first(local) : 0;
    if (sysfs_read_line(root, h->governor, sizeof(h->governor),
                        "devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu) < 0) {
        h->governor[0] = '\0';
        snprintf(h->cpufreq_why, sizeof(h->cpufreq_why),
                 "no cpufreq for cpu%d (no frequency scaling driver: a VM, or fixed in firmware)", cpu);
        return;
    }
    (void)sysfs_read_line(root, h->cpufreq_driver, sizeof(h->cpufreq_driver),
                          "devices/system/cpu/cpu%d/cpufreq/scaling_driver", cpu);
}

static void irqs(const char *root, const char *procroot, const char *dev,
                 const struct cpuset *local, struct host_path *h)
{
    char aff[4096], **names = NULL;
    struct cpuset served;
    if (!procroot) {
        snprintf(h->irq_why, sizeof(h->irq_why), "no procfs was given with the captured tree (--procfs-root): /proc/irq unknown");
        return;
    }
    if (!local) {
        snprintf(h->irq_why, sizeof(h->irq_why), "the HCA has no local_cpulist");
        return;
    }
    if (sysfs_list(root, &names, NULL, "%s/msi_irqs", dev) < 0) {
        snprintf(h->irq_why, sizeof(h->irq_why), "the HCA lists no MSI-X vectors (msi_irqs/)");
        return;
    }
    for (char **n = names; *n; n++) {
        if (sysfs_read_line(procroot, aff, sizeof(aff), "irq/%s/effective_affinity_list", *n) < 0 &&
            sysfs_read_line(procroot, aff, sizeof(aff), "irq/%s/smp_affinity_list", *n) < 0)
            continue;
        if (cpulist_parse(aff, &served) < 0 || cpuset_first(&served) < 0)
            continue;
        h->irqs++;
        h->irqs_off_node += !cpuset_intersects(&served, local);
    }
    strv_free(names);
    h->irq_known = h->irqs > 0;
    if (!h->irq_known)
        snprintf(h->irq_why, sizeof(h->irq_why), "no affinity readable for the HCA's MSI-X vectors");
}

void source_host_path_scan(const char *root, const char *procroot, struct inventory *inv)
{
    char **groups = NULL;
    size_t n = 0;
    inv->iommu_groups = sysfs_list(root, &groups, &n, "kernel/iommu_groups") == 0 && n > 0;
    strv_free(groups);
    if (procroot) {
        char cmdline[4096], *save = NULL;
        if (sysfs_read_line(procroot, cmdline, sizeof(cmdline), "cmdline") == 0) {
            size_t w = 0;
            for (char *t = strtok_r(cmdline, " ", &save); t; t = strtok_r(NULL, " ", &save))
                if (strstr(t, "iommu") && w < sizeof(inv->iommu_cmdline))
                    w += (size_t)snprintf(inv->iommu_cmdline + w, sizeof(inv->iommu_cmdline) - w,
                                          "%s%s", w ? " " : "", t);
        }
    }
    for (size_t i = 0; i < inv->n_gpus; i++)
        iommu_type(root, inv->gpus[i].path, inv->gpus[i].iommu_type, sizeof(inv->gpus[i].iommu_type));
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        iommu_type(root, r->pci_path, r->host.iommu_type, sizeof(r->host.iommu_type));
        struct cpuset local;
        bool have_local = local_cpus(root, r->pci_path, &local);
        cpufreq(root, have_local ? &local : NULL, &r->host);
        irqs(root, procroot, r->pci_path, have_local ? &local : NULL, &r->host);
    }
    /* A GPU node whose NICs are not up yet is still judged on what it has. */
    if (inv->n_rails == 0)
        cpufreq(root, NULL, &inv->node_host);
}
