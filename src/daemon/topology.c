/* SPDX-License-Identifier: ISC */
/* PCI distance from the sysfs devices/ paths: the components two paths share. */
#include "config.h"

#include "topology.h"

/* Components of a devices/ path in common ("devices", "pci0000:00", bridges...). */
static size_t common_depth(const char *a, const char *b)
{
    size_t depth = 0, i = 0;
    for (;; i++) {
        if (a[i] != b[i])
            return depth;
        if (a[i] == '/' || a[i] == '\0') {
            if (a[i] == '\0')
                return depth;   /* the same device: not a pair */
            depth++;
        }
    }
}

static const char *distance(const struct rail *r, const struct gpu *g, size_t depth)
{
    if (depth >= 4)     /* devices / pci0000:xx / root port / switch port... */
        return "PXB";
    if (depth >= 2)
        return "PHB";
    if (r->numa_node >= 0 && r->numa_node == g->numa_node)
        return "NODE";
    return "SYS";
}

const struct gpu *topology_nearest_gpu(const struct inventory *inv, const struct rail *r,
                                       const char **dist)
{
    const struct gpu *best = NULL;
    size_t best_depth = 0;
    if (!r->pci_path[0])
        return NULL;
    for (size_t i = 0; i < inv->n_gpus; i++) {
        size_t depth = common_depth(r->pci_path, inv->gpus[i].path);
        if (!best || depth > best_depth) {
            best = &inv->gpus[i];
            best_depth = depth;
        }
    }
    if (best)
        *dist = distance(r, best, best_depth);
    return best;
}
