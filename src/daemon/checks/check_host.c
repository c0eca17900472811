/* SPDX-License-Identifier: ISC */
/* pcie.link, pcie.mrrs, pcie.acs, host.iommu, host.irq_affinity, host.cpufreq,
 * gpudirect.affinity, gpudirect.peermem and host.memlock. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "topology.h"
#include "macro.h"
#include "strutil.h"

/* The PCIe path above a rail: the bridges between its root complex and the card, root
 * first (pci_path "devices/pci0000:00/0000:00:01.0/0000:16:00.0/.../0000:18:00.0"), those
 * whose link is known. The card's parent port reports the card's own link (the one link,
 * seen from above), so it is judged as the card's, never as the path's. */
struct pcie_path {
    const struct pci_bridge *bridge[16];
    size_t n;
    double cap_speed;           /* the least max_link_speed on it, the card's included */
    uint32_t cap_width;
    const struct pci_bridge *capped_by;     /* the bridge nearest the card below its maximum */
    const struct pci_bridge *slowest, *slowest_below;   /* the first link above the card's
                                                         * trained down: its two ends */
};

static void path_of(const struct inventory *inv, const struct rail *r, struct pcie_path *ret)
{
    char copy[sizeof(r->pci_path)], *save = NULL, *parts[32];
    size_t n = 0;
    const struct pcie_link *card = &r->pcie;
    *ret = (struct pcie_path){ .cap_speed = card->max_speed_gts, .cap_width = card->max_width };
    strscpy(copy, r->pci_path, sizeof(copy));
    for (char *c = strtok_r(copy, "/", &save); c && n < ARRAY_SIZE(parts); c = strtok_r(NULL, "/", &save))
        parts[n++] = c;
    const char *parent = n >= 2 ? parts[n - 2] : "";
    bool parent_known = false;
    for (size_t i = 0; i + 1 < n && ret->n < ARRAY_SIZE(ret->bridge); i++) {
        const struct pci_bridge *b = inventory_find_bridge(inv, parts[i]);
        if (b && b->link.known && b->link.max_speed_gts > 0 && b->link.max_width) {
            ret->bridge[ret->n++] = b;
            parent_known = streq(parts[i], parent);
        }
    }
    for (size_t i = 0; i < ret->n; i++) {
        const struct pcie_link *l = &ret->bridge[i]->link;
        if (l->max_speed_gts < card->max_speed_gts || l->max_width < card->max_width)
            ret->capped_by = ret->bridge[i];
        if (l->max_speed_gts < ret->cap_speed)
            ret->cap_speed = l->max_speed_gts;
        if (l->max_width < ret->cap_width)
            ret->cap_width = l->max_width;
    }
    /* A link above the card's, below what both its ends can: its other end is the next
     * bridge down. */
    size_t above = parent_known ? ret->n - 1 : ret->n;
    for (size_t i = 0; i + 1 < ret->n && i < above && !ret->slowest; i++) {
        const struct pcie_link *l = &ret->bridge[i]->link, *next = &ret->bridge[i + 1]->link;
        double can_speed = l->max_speed_gts < next->max_speed_gts ? l->max_speed_gts
                                                                  : next->max_speed_gts;
        uint32_t can_width = l->max_width < next->max_width ? l->max_width : next->max_width;
        if (l->speed_gts < can_speed || l->width < can_width) {
            ret->slowest = ret->bridge[i];
            ret->slowest_below = ret->bridge[i + 1];
        }
    }
}

/* pcie.link: the card's link against what its path can carry (the least maximum on it,
 * where a Gen6 card behind a Gen5 switch runs at Gen5 by design), a link above it trained
 * below what its two ends can (named: the card is not the cause), and the policy's bound. */
static void check_link(const struct inventory *inv, const struct rail *r, const struct policy *p,
                       struct findings *out)
{
    char want[48], got[48], can[48], note[160] = "";
    const struct pcie_link *l = &r->pcie;
    if (!l->known) {
        findings_add(out, "pcie.link", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL, "%s",
                     r->pci_addr[0] ? "the PCI function shows no link speed or width"
                                    : rail_no_pci_why(r));
        return;
    }
    struct pcie_path path;
    path_of(inv, r, &path);
    bool policy_set = p->rails.pcie.min_width || p->rails.pcie.min_speed_gts > 0;
    uint32_t min_w = p->rails.pcie.min_width ? p->rails.pcie.min_width : path.cap_width;
    double min_s = p->rails.pcie.min_speed_gts > 0 ? p->rails.pcie.min_speed_gts : path.cap_speed;
    snprintf(want, sizeof(want), "x%u %g GT/s", min_w, min_s);
    snprintf(got, sizeof(got), "x%u %g GT/s", l->width, l->speed_gts);
    snprintf(can, sizeof(can), "x%u %g GT/s", l->max_width, l->max_speed_gts);
    if (path.capped_by)
        snprintf(note, sizeof(note), "; the card can %s, its path %s (limited at %s)", can,
                 want, path.capped_by->addr);
    if (path.slowest) {
        const struct pcie_link *s = &path.slowest->link;
        char slow[48];
        snprintf(slow, sizeof(slow), "x%u %g GT/s", s->width, s->speed_gts);
        findings_add(out, "pcie.link", policy_set && (s->width < min_w || s->speed_gts < min_s)
                                       ? SEVERITY_ERROR : SEVERITY_WARNING, r->name, want, slow,
                     "a link between two bridges trained below what both ends can: the card is "
                     "not the cause; check the switch or riser at that port (a BIOS link speed "
                     "setting, a riser cable, the switch's firmware)",
                     "PCIe path: the link between %s and %s trained at %s, below the %s the path "
                     "can carry (the card: %s)", path.slowest->addr, path.slowest_below->addr,
                     slow, want, got);
        return;
    }
    if (l->width >= min_w && l->speed_gts >= min_s)
        findings_add(out, "pcie.link", SEVERITY_OK, r->name, want, got, NULL, "PCIe %s%s", got,
                     note);
    else
        findings_add(out, "pcie.link", policy_set ? SEVERITY_ERROR : SEVERITY_WARNING, r->name,
                     want, got, "a link trained below its maximum: reseat the card, check the "
                     "riser and the slot; the NIC cannot reach its rate",
                     "PCIe %s, below %s%s%s", got, want,
                     policy_set ? " (policy)" : path.capped_by ? " (what its path can carry)"
                                                               : " (device max)", note);
}

/* Max Read Request Size: a ConnectX reading GPU memory for the wire issues reads of at most
 * this size; mlnx_tune recommends 4096 for ConnectX (mlx5), the default minimum here. */
static void check_mrrs(const struct rail *r, const struct policy *p, struct findings *out)
{
    char want[32], got[32], hint[192];
    uint32_t min = p->rails.pcie.min_mrrs ? p->rails.pcie.min_mrrs
                   : streq(r->driver, "mlx5_core") ? 4096 : 0;
    const struct pcie_link *l = &r->pcie;
    if (!r->pci_addr[0] || !l->max_read_request) {
        findings_add(out, "pcie.mrrs", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL, "%s",
                     !r->pci_addr[0] ? rail_no_pci_why(r)
                     : l->config_why[0] ? l->config_why : "config space not read");
        return;
    }
    snprintf(want, sizeof(want), min ? ">= %u bytes" : "any", min);
    snprintf(got, sizeof(got), "%u bytes", l->max_read_request);
    if (l->max_read_request >= min)
        findings_add(out, "pcie.mrrs", SEVERITY_OK, r->name, want, got, NULL,
                     "PCIe Max Read Request %s", got);
    else {
        /* Device Control bits 14:12 = log2(size / 128): 5 is 4096 bytes. */
        unsigned code = 0;
        while (code < 5 && (128u << code) < min)
            code++;
        snprintf(hint, sizeof(hint), "setpci -s %s CAP_EXP+08.w=%x000:7000 (or the BIOS or mlnx_tune): "
                 "the HCA's reads of GPU memory come in pieces this small", r->pci_addr, code);
        findings_add(out, "pcie.mrrs", p->rails.pcie.min_mrrs ? SEVERITY_ERROR : SEVERITY_WARNING,
                     r->name, want, got, hint,
                     "PCIe Max Read Request %s, below %u%s", got, min,
                     p->rails.pcie.min_mrrs ? " (policy)" : " (mlnx_tune's recommendation for mlx5)");
    }
}

/* ACS on a switch port between the HCA and its GPU sends their peer-to-peer traffic up
 * to the root complex: NCCL's troubleshooting guide has it disabled. */
static void check_acs(const struct inventory *inv, const struct rail *r, const struct policy *p,
                      struct findings *out)
{
    const char *dist = NULL;
    const struct gpu *g = topology_nearest_gpu(inv, r, &dist);
    if (!g) {
        findings_add(out, "pcie.acs", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL, "%s",
                     r->pci_path[0] ? "no GPU found" : rail_no_pci_why(r));
        return;
    }
    if (!streq(dist, "PXB")) {
        findings_add(out, "pcie.acs", SEVERITY_OK, r->name, NULL, dist, NULL,
                     "no PCIe switch between the HCA and GPU %s (%s): ACS routes none of their traffic",
                     g->pci_addr, dist);
        return;
    }
    char between[TOPOLOGY_MAX_BRIDGES][16], on[160] = "", hint[512] = "";
    size_t n = topology_bridges_between(r->pci_path, g->path, between, TOPOLOGY_MAX_BRIDGES);
    size_t w = 0, h = 0;
    for (size_t i = 0; i < n; i++) {
        const struct pci_bridge *b = inventory_find_bridge(inv, between[i]);
        if (!b || !b->read) {
            findings_add(out, "pcie.acs", SEVERITY_UNKNOWN, r->name, "P2P redirect off", NULL, NULL,
                         "switch port %s: %s", between[i], b ? b->why : "not read");
            return;
        }
        if (b->acs && (b->acs_ctrl & PCI_ACS_P2P_REDIRECT)) {
            w += (size_t)snprintf(on + w, w < sizeof(on) ? sizeof(on) - w : 0, "%s%s (0x%04x)",
                                  w ? ", " : "", b->addr, b->acs_ctrl);
            h += (size_t)snprintf(hint + h, h < sizeof(hint) ? sizeof(hint) - h : 0,
                                  "%ssetpci -s %s ECAP_ACS+0x6.w=0000", h ? "; " : "", b->addr);
        }
    }
    if (!w) {
        findings_add(out, "pcie.acs", SEVERITY_OK, r->name, "P2P redirect off", "off", NULL,
                     "no ACS P2P redirect between the HCA and GPU %s (%zu switch ports)", g->pci_addr, n);
        return;
    }
    bool error = p->rails.pcie.acs == REQ_REQUIRED || p->rails.gpudirect == REQ_REQUIRED;
    if (strlen(hint) + 80 < sizeof(hint))
        strcat(hint, " (as root; or in the BIOS, or pci=disable_acs_redir= on the kernel command line)");
    findings_add(out, "pcie.acs", error ? SEVERITY_ERROR : SEVERITY_WARNING, r->name, "P2P redirect off",
                 on, hint, "ACS redirects peer-to-peer traffic between the HCA and GPU %s up "
                 "through the root complex: on %s", g->pci_addr, on);
}

static bool translated(const char *type)
{
    return strncmp(type, "DMA", 3) == 0;
}

/* host.iommu: a translating IOMMU in front of the HCA or its GPU costs every DMA a lookup
 * (and IOTLB misses under GPUDirect); HPC nodes run iommu=pt. */
static void check_iommu(const struct inventory *inv, const struct rail *r, const struct policy *p,
                        struct findings *out)
{
    char got[96];
    if (!r->pci_path[0]) {
        findings_add(out, "host.iommu", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL, "%s",
                     rail_no_pci_why(r));
        return;
    }
    if (!inv->iommu_groups || !r->host.iommu_type[0]) {
        findings_add(out, "host.iommu", SEVERITY_UNKNOWN, r->name, "identity", NULL, NULL,
                     "%s%s%s%s", inv->iommu_groups ? "the HCA is in no IOMMU group"
                     : "no IOMMU groups (/sys/kernel/iommu_groups): the IOMMU is off or absent",
                     inv->iommu_cmdline[0] ? " (kernel command line: " : "", inv->iommu_cmdline,
                     inv->iommu_cmdline[0] ? ")" : "");
        return;
    }
    const char *dist = NULL;
    const struct gpu *g = topology_nearest_gpu(inv, r, &dist);
    const char *gtype = g && g->iommu_type[0] ? g->iommu_type : NULL;
    snprintf(got, sizeof(got), "HCA %s%s%s", r->host.iommu_type, gtype ? ", GPU " : "", gtype ? gtype : "");
    if (!translated(r->host.iommu_type) && !(gtype && translated(gtype))) {
        findings_add(out, "host.iommu", SEVERITY_OK, r->name, "identity", got, NULL,
                     "IOMMU groups: %s", got);
        return;
    }
    findings_add(out, "host.iommu", p->host.iommu == REQ_REQUIRED ? SEVERITY_ERROR : SEVERITY_WARNING,
                 r->name, "identity", got,
                 "iommu=pt on the kernel command line (intel_iommu=on iommu=pt, or amd_iommu=on "
                 "iommu=pt), or echo identity > /sys/kernel/iommu_groups/N/type with the device unbound",
                 "the IOMMU translates DMA of the %s (%s)%s%s", translated(r->host.iommu_type)
                 ? "HCA" : "GPU", got, inv->iommu_cmdline[0] ? "; kernel command line: " : "",
                 inv->iommu_cmdline);
}

/* host.cpufreq: a powersave or ondemand governor stretches every wake-up the probes and
 * the jobs' progress threads take. RAIL NULL: the node's cpu0, on a node without rails,
 * where it is worth knowing but degrades no fabric. */
static void check_cpufreq(const struct host_path *h, const char *rail, const struct policy *p,
                          struct findings *out)
{
    const char *whose = rail ? "the HCA's CPUs run" : "cpu0 runs";
    if (!h->governor[0]) {
        findings_add(out, "host.cpufreq", SEVERITY_UNKNOWN, rail, p->host.cpufreq, NULL, NULL,
                     "%s", h->cpufreq_why[0] ? h->cpufreq_why : "no cpufreq");
        return;
    }
    if (streq(h->governor, p->host.cpufreq))
        findings_add(out, "host.cpufreq", SEVERITY_OK, rail, p->host.cpufreq, h->governor, NULL,
                     "%s the %s governor (%s)", whose, h->governor,
                     h->cpufreq_driver[0] ? h->cpufreq_driver : "driver unknown");
    else
        findings_add(out, "host.cpufreq", rail ? SEVERITY_WARNING : SEVERITY_UNKNOWN, rail,
                     p->host.cpufreq, h->governor,
                     "cpupower frequency-set -g performance (or tuned's latency-performance "
                     "profile; host.cpufreq: any to skip)",
                     "%s the %s governor (%s), not %s%s", whose, h->governor,
                     h->cpufreq_driver[0] ? h->cpufreq_driver : "driver unknown", p->host.cpufreq,
                     rail ? "" : " (no RDMA rail: nothing degraded yet)");
}

/* host.irq_affinity: completions served across the socket add a cross-node wake-up to
 * every message. */
static void check_irqs(const struct rail *r, const struct policy *p, struct findings *out)
{
    const struct host_path *h = &r->host;
    char got[48];
    if (!h->irq_known) {
        findings_add(out, "host.irq_affinity", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL, "%s",
                     !r->pci_path[0] ? rail_no_pci_why(r)
                     : h->irq_why[0] ? h->irq_why : "no interrupts read");
        return;
    }
    snprintf(got, sizeof(got), "%u of %u off-node", h->irqs_off_node, h->irqs);
    if (h->irqs_off_node * 2 <= h->irqs)
        findings_add(out, "host.irq_affinity", SEVERITY_OK, r->name, "on the HCA's node", got, NULL,
                     "%u of %u MSI-X vectors served on the HCA's NUMA node", h->irqs - h->irqs_off_node,
                     h->irqs);
    else
        findings_add(out, "host.irq_affinity", p->host.irq_affinity == REQ_REQUIRED ? SEVERITY_ERROR
                     : SEVERITY_WARNING, r->name, "on the HCA's node", got,
                     "set_irq_affinity_bynode.sh NODE NETDEV (mlnx-tools), or stop irqbalance from "
                     "moving them: most completions cross the socket",
                     "%u of the HCA's %u MSI-X vectors are served off its NUMA node",
                     h->irqs_off_node, h->irqs);
}

static void check_affinity(const struct inventory *inv, const struct rail *r,
                           const struct policy *p, struct findings *out)
{
    if (inv->n_gpus == 0) {
        findings_add(out, "gpudirect.affinity", SEVERITY_UNKNOWN, r->name, NULL, "no GPUs", NULL,
                     "no GPU found (PCI vendor 0x10de or 0x1002, display class)");
        return;
    }
    if (!r->pci_path[0]) {
        findings_add(out, "gpudirect.affinity", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                     "the rail is not a PCI function");
        return;
    }
    const char *dist = NULL;
    const struct gpu *best = topology_nearest_gpu(inv, r, &dist);
    char got[64];
    snprintf(got, sizeof(got), "%s to GPU %s", dist, best->pci_addr);
    if (streq(dist, "PXB"))
        findings_add(out, "gpudirect.affinity", SEVERITY_OK, r->name, "PXB", got, NULL,
                     "nearest GPU %s behind the same PCIe switch", best->pci_addr);
    else
        findings_add(out, "gpudirect.affinity",
                     p->rails.gpudirect == REQ_REQUIRED ? SEVERITY_ERROR : SEVERITY_WARNING,
                     r->name, "PXB", got, "GPUDirect RDMA through the host bridge or across "
                     "sockets is slow; NCCL disables it beyond NCCL_NET_GDR_LEVEL",
                     "nearest GPU %s is %s, not behind the same PCIe switch", best->pci_addr, dist);
}

static void check_peermem(const struct inventory *inv, const struct policy *p,
                          struct findings *out)
{
    if (inv->n_gpus == 0) {
        findings_add(out, "gpudirect.peermem", SEVERITY_UNKNOWN, NULL, NULL, "no GPUs", NULL,
                     "no GPU found: GPUDirect RDMA does not apply");
        return;
    }
    if (inv->peermem_loaded)
        findings_add(out, "gpudirect.peermem", SEVERITY_OK, NULL, "loaded", "loaded", NULL,
                     "nvidia_peermem is loaded");
    else
        findings_add(out, "gpudirect.peermem", inv->n_rails == 0 ? SEVERITY_UNKNOWN :
                     p->rails.gpudirect == REQ_REQUIRED ? SEVERITY_ERROR : SEVERITY_WARNING,
                     NULL, "loaded", "absent", "modprobe nvidia_peermem (and list it in "
                     "/etc/modules-load.d), or use dma-buf with NVIDIA's open kernel module",
                     "%zu GPU%s but no nvidia_peermem: GPUDirect RDMA needs it or dma-buf",
                     inv->n_gpus, inv->n_gpus == 1 ? "" : "s");
}

static void check_memlock(const struct inventory *inv, struct findings *out)
{
    char got[32];
    if (!inv->memlock_known) {
        findings_add(out, "host.memlock", SEVERITY_UNKNOWN, NULL, "unlimited", NULL, NULL,
                     "no memlock limit that jobs get is readable");
        return;
    }
    if (inv->memlock_soft == UINT64_MAX) {
        findings_add(out, "host.memlock", SEVERITY_OK, NULL, "unlimited", "unlimited", NULL,
                     "locked memory is unlimited, from %s", inv->memlock_source);
        return;
    }
    snprintf(got, sizeof(got), "%llu bytes", (unsigned long long)inv->memlock_soft);
    /* Without rails nothing here registers RDMA memory: worth knowing, not degrading. */
    findings_add(out, "host.memlock", inv->n_rails ? SEVERITY_WARNING : SEVERITY_UNKNOWN,
                 NULL, "unlimited", got,
                 "RDMA registers pinned memory: give jobs memlock unlimited (slurmd's unit "
                 "LimitMEMLOCK=infinity, DefaultLimitMEMLOCK= in system.conf, limits.conf)",
                 "jobs' locked memory is limited to %llu bytes, from %s",
                 (unsigned long long)inv->memlock_soft, inv->memlock_source);
}

/* No rails (a GPU node whose NICs are not up, or not seen): the host path is judged on what
 * the node has, once, without a rail; nothing here can degrade a fabric that is not there. */
static void check_host_node(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    const char *no_rail = "no RDMA rail: nothing to measure until an HCA appears";
    findings_add(out, "pcie.mrrs", SEVERITY_UNKNOWN, NULL, NULL, NULL, NULL, "%s", no_rail);
    if (p->rails.pcie.acs != REQ_IGNORE) {
        size_t acs_on = 0;
        for (size_t i = 0; i < inv->n_bridges; i++)
            acs_on += inv->bridges[i].read && inv->bridges[i].acs &&
                      (inv->bridges[i].acs_ctrl & PCI_ACS_P2P_REDIRECT);
        if (!inv->n_gpus || !inv->n_bridges)
            findings_add(out, "pcie.acs", SEVERITY_UNKNOWN, NULL, "P2P redirect off", NULL, NULL,
                         "no RDMA rail, and %s", !inv->n_gpus ? "no GPU"
                         : "no PCIe bridge above the GPUs (a flat bus): no switch port to redirect");
        else
            findings_add(out, "pcie.acs", SEVERITY_UNKNOWN, NULL, "P2P redirect off", NULL, NULL,
                         "no RDMA rail; %zu of the %zu PCIe bridges above the GPUs redirect "
                         "peer-to-peer traffic (ACS)", acs_on, inv->n_bridges);
    }
    if (p->host.iommu != REQ_IGNORE) {
        size_t translating = 0, grouped = 0;
        for (size_t i = 0; i < inv->n_gpus; i++) {
            grouped += inv->gpus[i].iommu_type[0] != '\0';
            translating += translated(inv->gpus[i].iommu_type);
        }
        if (!inv->iommu_groups || !grouped)
            findings_add(out, "host.iommu", SEVERITY_UNKNOWN, NULL, "identity", NULL, NULL,
                         "%s%s%s%s", !inv->iommu_groups
                         ? "no IOMMU groups (/sys/kernel/iommu_groups): the IOMMU is off or absent"
                         : inv->n_gpus ? "no GPU is in an IOMMU group" : "no RDMA rail and no GPU",
                         inv->iommu_cmdline[0] ? " (kernel command line: " : "", inv->iommu_cmdline,
                         inv->iommu_cmdline[0] ? ")" : "");
        else
            findings_add(out, "host.iommu",
                         translating ? SEVERITY_UNKNOWN : SEVERITY_OK, NULL, "identity",
                         translating ? "DMA" : "identity", NULL,
                         "%zu of %zu GPUs behind a translating IOMMU%s", translating, grouped,
                         translating ? " (no RDMA rail: nothing degraded yet)" : "");
    }
    if (p->host.irq_affinity != REQ_IGNORE)
        findings_add(out, "host.irq_affinity", SEVERITY_UNKNOWN, NULL, NULL, NULL, NULL, "%s", no_rail);
    if (p->host.cpufreq && !streq(p->host.cpufreq, "any"))
        check_cpufreq(&inv->node_host, NULL, p, out);
}

void check_host(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    if (inv->n_rails == 0)
        check_host_node(inv, p, out);
    for (size_t i = 0; i < inv->n_rails; i++) {
        check_link(inv, &inv->rails[i], p, out);
        check_mrrs(&inv->rails[i], p, out);
        if (p->rails.pcie.acs != REQ_IGNORE)
            check_acs(inv, &inv->rails[i], p, out);
        if (p->host.iommu != REQ_IGNORE)
            check_iommu(inv, &inv->rails[i], p, out);
        if (p->host.irq_affinity != REQ_IGNORE)
            check_irqs(&inv->rails[i], p, out);
        if (p->host.cpufreq && !streq(p->host.cpufreq, "any"))
            check_cpufreq(&inv->rails[i].host, inv->rails[i].name, p, out);
        if (p->rails.gpudirect != REQ_IGNORE)
            check_affinity(inv, &inv->rails[i], p, out);
    }
    if (p->rails.gpudirect != REQ_IGNORE)
        check_peermem(inv, p, out);
    check_memlock(inv, out);
}
