/* SPDX-License-Identifier: ISC */
/* The PCI source (drivers/pci/pci-sysfs.c): current_link_speed "32.0 GT/s PCIe",
 * current_link_width "16" and their max_ twins; GPUs by vendor and class under
 * bus/pci/devices; module/nvidia_peermem. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "macro.h"
#include "pci_config.h"
#include "source_pci.h"
#include "fileio.h"
#include "strutil.h"
#include "sysfs.h"

/* The path of a PCI device under devices/, from a symlink to it ("../../../0000:1a:00.0"
 * from class/infiniband/DEV/device, or bus/pci/devices/ADDR). */
static bool device_path(const char *root, const char *link, char *buf, size_t len)
{
    char real[PATH_MAX];
    if (!sysfs_resolve(root, link, real, sizeof(real)) || strncmp(real, "devices/", 8) != 0)
        return false;
    strscpy(buf, real, len);            /* "devices/pci0000:00/0000:00:01.0/0000:1a:00.0" */
    return true;
}

static void read_link(const char *root, const char *dev, struct pcie_link *l)
{
    char buf[64];
    uint64_t v;
    if (sysfs_read_line(root, buf, sizeof(buf), "%s/current_link_speed", dev) == 0)
        l->speed_gts = strtod(buf, NULL);
    if (sysfs_read_line(root, buf, sizeof(buf), "%s/max_link_speed", dev) == 0)
        l->max_speed_gts = strtod(buf, NULL);
    if (sysfs_read_u64(root, &v, "%s/current_link_width", dev) == 0)
        l->width = (uint32_t)v;
    if (sysfs_read_u64(root, &v, "%s/max_link_width", dev) == 0)
        l->max_width = (uint32_t)v;
    l->known = l->speed_gts > 0 && l->width > 0;
}

/* The Max Read Request Size from the function's config space. Only root reads past the
 * 64-byte header (the kernel gives others that much), where the capabilities are. */
static int read_config_space(const char *root, const char *dev, struct pci_config *c, char *why,
                             size_t why_len)
{
    char path[PATH_MAX];
    _cleanup_free_ char *buf = NULL;
    size_t len = 0;
    snprintf(path, sizeof(path), "%s/%s/config", root, dev);
    int r = read_file_full(path, 4096, &buf, &len);
    if (r < 0) {
        snprintf(why, why_len, "config space not readable: %s", errno_text(-r));
        return r;
    }
    if (pci_config_parse((const uint8_t *)buf, len, c) < 0) {
        snprintf(why, why_len, "config space of %zu bytes has no valid header", len);
        return -EBADMSG;
    }
    if (!c->pcie) {
        snprintf(why, why_len, len <= 64
                 ? "only the 64-byte config header is readable (root reads the capabilities)"
                 : "no PCI Express capability in config space");
        return -ENODATA;
    }
    return 0;
}

static void read_config(const char *root, const char *dev, struct pcie_link *l)
{
    struct pci_config c;
    if (read_config_space(root, dev, &c, l->config_why, sizeof(l->config_why)) == 0)
        l->max_read_request = c.max_read_request;
}

/* Every bridge on PATH (a devices/ path; the last component is the device itself, the
 * first two "devices" and the root "pci0000:xx"), read once. -EFBIG past
 * INVENTORY_MAX_BRIDGES; -ENOMEM. */
static int scan_bridges_on(const char *root, const char *path, struct inventory *inv)
{
    char copy[PATH_MAX], prefix[PATH_MAX] = "";
    char *parts[32], *save = NULL;
    size_t n = 0;
    strscpy(copy, path, sizeof(copy));
    for (char *c = strtok_r(copy, "/", &save); c && n < ARRAY_SIZE(parts); c = strtok_r(NULL, "/", &save))
        parts[n++] = c;
    for (size_t i = 0; i + 1 < n; i++) {
        size_t len = strlen(prefix);
        snprintf(prefix + len, sizeof(prefix) - len, "%s%s", i ? "/" : "", parts[i]);
        if (i < 2 || inventory_find_bridge(inv, parts[i]))
            continue;       /* "devices", the root complex "pci0000:xx"; one read each */
        int r = GROW_ARRAY(inv->bridges, inv->cap_bridges, inv->n_bridges + 1, INVENTORY_MAX_BRIDGES);
        if (r < 0)
            return r;
        struct pci_bridge *b = &inv->bridges[inv->n_bridges++];
        memset(b, 0, sizeof(*b));
        strscpy(b->addr, parts[i], sizeof(b->addr));
        read_link(root, prefix, &b->link);
        struct pci_config c;
        if (read_config_space(root, prefix, &c, b->why, sizeof(b->why)) == 0) {
            b->read = true;
            b->acs = c.acs;
            b->acs_ctrl = c.acs_ctrl;
        }
    }
    return 0;
}

static void scan_gpus(const char *root, struct inventory *inv)
{
    char **names = NULL;
    if (sysfs_list(root, &names, NULL, "bus/pci/devices") < 0)
        return;
    for (char **n = names; *n; n++) {
        char vendor[16] = "", cls[16] = "";
        int64_t numa = -1;
        (void)sysfs_read_line(root, vendor, sizeof(vendor), "bus/pci/devices/%s/vendor", *n);
        (void)sysfs_read_line(root, cls, sizeof(cls), "bus/pci/devices/%s/class", *n);
        if (strncmp(cls, "0x03", 4) != 0 || (!streq(vendor, "0x10de") && !streq(vendor, "0x1002")))
            continue;
        int r = GROW_ARRAY(inv->gpus, inv->cap_gpus, inv->n_gpus + 1, INVENTORY_MAX_GPUS);
        if (r < 0) {
            if (r == -EFBIG)
                inventory_note(inv, "more than %d GPUs: %s and those after it are not read",
                               INVENTORY_MAX_GPUS, *n);
            break;
        }
        struct gpu *g = &inv->gpus[inv->n_gpus++];
        memset(g, 0, sizeof(*g));
        strscpy(g->pci_addr, *n, sizeof(g->pci_addr));
        strscpy(g->vendor, vendor, sizeof(g->vendor));
        char link[PATH_MAX];
        snprintf(link, sizeof(link), "bus/pci/devices/%s", *n);
        (void)device_path(root, link, g->path, sizeof(g->path));
        g->numa_node = sysfs_read_int(root, &numa, "bus/pci/devices/%s/numa_node", *n) == 0
                       ? (int)numa : -1;
    }
    strv_free(names);
}

void source_pci_scan(const char *root, struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        char link[PATH_MAX];
        snprintf(link, sizeof(link), "class/infiniband/%s/device", r->device);
        if (r->pci_addr[0] && device_path(root, link, r->pci_path, sizeof(r->pci_path))) {
            read_link(root, r->pci_path, &r->pcie);
            read_config(root, r->pci_path, &r->pcie);
        }
    }
    scan_gpus(root, inv);
    int r = 0;
    for (size_t i = 0; i < inv->n_rails && r == 0; i++)
        if (inv->rails[i].pci_path[0])
            r = scan_bridges_on(root, inv->rails[i].pci_path, inv);
    for (size_t i = 0; i < inv->n_gpus && r == 0; i++)
        if (inv->gpus[i].path[0])
            r = scan_bridges_on(root, inv->gpus[i].path, inv);
    if (r == -EFBIG)
        inventory_note(inv, "more than %d PCI bridges on the rails' and GPUs' paths: the "
                       "rest are not read", INVENTORY_MAX_BRIDGES);
    inv->peermem_loaded = sysfs_exists(root, "module/nvidia_peermem");
    inv->nvidia_loaded = sysfs_exists(root, "module/nvidia") || sysfs_exists(root, "module/amdgpu");
}
