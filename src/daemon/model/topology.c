/* SPDX-License-Identifier: ISC */
/* PCI distance from the sysfs devices/ paths: the components two paths share. */
#include "config.h"

#include <string.h>

#include "macro.h"
#include "strutil.h"
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

const struct rail *topology_nearest_rail(const struct inventory *inv, const struct gpu *g,
                                         const char **dist)
{
    const struct rail *best = NULL;
    size_t best_depth = 0;
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        size_t depth = r->pci_path[0] ? common_depth(r->pci_path, g->path) : 0;
        if (r->pci_path[0] && (!best || depth > best_depth)) {
            best = r;
            best_depth = depth;
        }
    }
    if (best)
        *dist = distance(best, g, best_depth);
    return best;
}

/* Splits a devices/ path into its components, in place; returns how many. */
static size_t components(char *path, char **out, size_t max)
{
    size_t n = 0;
    for (char *save = NULL, *c = strtok_r(path, "/", &save); c && n < max; c = strtok_r(NULL, "/", &save))
        out[n++] = c;
    return n;
}

size_t topology_bridges_between(const char *a, const char *b, char out[][16], size_t max)
{
    char pa[256], pb[256], *ca[32], *cb[32];
    size_t n = 0;
    strscpy(pa, a, sizeof(pa));
    strscpy(pb, b, sizeof(pb));
    size_t na = components(pa, ca, 32), nb = components(pb, cb, 32), k = 0;
    while (k < na && k < nb && streq(ca[k], cb[k]))
        k++;
    for (size_t i = k; i + 1 < na && n < max; i++)
        strscpy(out[n++], ca[i], 16);
    for (size_t i = k; i + 1 < nb && n < max; i++)
        strscpy(out[n++], cb[i], 16);
    return n;
}
