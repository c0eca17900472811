/* SPDX-License-Identifier: ISC */
/* The sysfs source: RDMA ports, GID tables and netdevs from /sys (or a captured tree).
 * Layout (drivers/infiniband/core/sysfs.c): class/infiniband/DEV/{fw_ver,node_guid,node_type,device},
 * ports/N/{state,phys_state,rate,link_layer,gids/I,gid_attrs/types/I,gid_attrs/ndevs/I}. */
#include "config.h"

#include <ctype.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "strutil.h"
#include "source_sysfs.h"
#include "sysfs.h"

#define IB "class/infiniband"

/* "4: ACTIVE" -> 4 and "ACTIVE". */
static void read_numbered(const char *root, int *ret, char *name, size_t len, const char *dev,
                          uint32_t port, const char *file)
{
    char buf[64];
    if (sysfs_read_line(root, buf, sizeof(buf), IB "/%s/ports/%u/%s", dev, port, file) < 0)
        return;
    *ret = atoi(buf);
    const char *colon = strchr(buf, ':');
    strscpy(name, colon ? colon + 1 + (colon[1] == ' ') : buf, len);
}

/* A directory name that is a decimal index in [min, max] ("ports/1", "gids/3"); anything
 * else in a (captured, or hostile) tree is not one, and is skipped. */
static bool parse_index(const char *s, unsigned long min, unsigned long max, unsigned long *ret)
{
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return false;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *ret = v;
    return true;
}

/* A GID attribute (gid_attrs/types/I, gid_attrs/ndevs/I) through its directory, listed once
 * per port; by path where that directory could not be opened, for the same errors. */
static int read_gid_attr(const char *root, const struct rail *r, struct sysfs_dir *d,
                         const char *attr, unsigned long idx, char *buf, size_t len)
{
    char name[24];
    snprintf(name, sizeof(name), "%lu", idx);
    if (d)
        return sysfs_dir_read_line(d, name, buf, len);
    return sysfs_read_line(root, buf, len, IB "/%s/ports/%u/gid_attrs/%s/%s", r->device, r->port,
                           attr, name);
}

/* The attribute directories are opened at the first GID in use: most slots are empty. */
static void open_gid_attrs(const char *root, const struct rail *r, bool *opened,
                           struct sysfs_dir **types, struct sysfs_dir **ndevs)
{
    if (*opened)
        return;
    *opened = true;
    if (sysfs_dir_open(root, types, IB "/%s/ports/%u/gid_attrs/types", r->device, r->port) < 0)
        *types = NULL;
    if (sysfs_dir_open(root, ndevs, IB "/%s/ports/%u/gid_attrs/ndevs", r->device, r->port) < 0)
        *ndevs = NULL;
}

static int read_gids(const char *root, struct rail *r)
{
    _cleanup_(sysfs_dir_freep) struct sysfs_dir *gids = NULL;
    _cleanup_(sysfs_dir_freep) struct sysfs_dir *types = NULL;
    _cleanup_(sysfs_dir_freep) struct sysfs_dir *ndevs = NULL;
    bool attrs_opened = false;
    int err = sysfs_dir_open(root, &gids, IB "/%s/ports/%u/gids", r->device, r->port);
    if (err < 0)
        return err;

    size_t n = sysfs_dir_count(gids);
    uint32_t len = 0;
    unsigned long idx;
    for (size_t i = 0; i < n; i++)
        if (parse_index(sysfs_dir_name(gids, i), 0, 65535, &idx) && idx + 1 > len)
            len = (uint32_t)idx + 1;
    r->gids = calloc(len ? len : 1, sizeof(*r->gids));
    if (!r->gids)
        return -ENOMEM;
    r->n_gids = len;
    for (size_t i = 0; i < n; i++) {
        char buf[64];
        const char *name = sysfs_dir_name(gids, i);
        if (!parse_index(name, 0, len ? len - 1 : 0, &idx) || idx >= len)
            continue;
        struct gid_entry *g = &r->gids[idx];
        /* The file idx names, not NAME: "03" in a captured tree reads gids/3, as ever. */
        char canon[24];
        snprintf(canon, sizeof(canon), "%lu", idx);
        int rd = streq(canon, name) ? sysfs_dir_read_entry(gids, i, buf, sizeof(buf))
                                    : sysfs_dir_read_line(gids, canon, buf, sizeof(buf));
        if (rd < 0 || gid_parse_sysfs(buf, g->raw) < 0)
            continue;
        if (gid_is_zero(g->raw))
            continue;   /* an empty slot: its attributes read as EINVAL */
        open_gid_attrs(root, r, &attrs_opened, &types, &ndevs);
        rd = read_gid_attr(root, r, types, "types", idx, buf, sizeof(buf));
        /* No file is not a read that fails: NCCL's open() fails on the one, not the other. */
        g->type = rd == 0 ? gid_type_parse(buf)
                : rd == -ENOENT ? GID_TYPE_MISSING : GID_TYPE_UNREADABLE;
        (void)read_gid_attr(root, r, ndevs, "ndevs", idx, g->ndev, sizeof(g->ndev));
    }
    return 0;
}

/* The PCI function's netdev of DEV's PORT: its only one, else its PORT-th (device/net/). */
static int function_netdev(const char *root, const char *dev, uint32_t port, char *buf, size_t len)
{
    char **names = NULL;
    size_t n = 0;
    int r = -ENOENT;
    if (sysfs_list(root, &names, &n, IB "/%s/device/net", dev) == 0 && port >= 1 && n >= port) {
        strscpy(buf, names[n == 1 ? 0 : port - 1], len);
        r = 0;
    }
    strv_free(names);
    return r;
}

/* The port's netdev: the one its GIDs name, else the PCI function's only netdev. */
static void find_netdev(const char *root, struct rail *r)
{
    for (uint32_t i = 0; i < r->n_gids; i++)
        if (r->gids[i].ndev[0]) {
            strscpy(r->netdev.name, r->gids[i].ndev, sizeof(r->netdev.name));
            return;
        }
    (void)function_netdev(root, r->device, r->port, r->netdev.name, sizeof(r->netdev.name));
}

int source_sysfs_port_netdev(const char *root, const char *dev, uint32_t port, char *buf, size_t len)
{
    _cleanup_(sysfs_dir_freep) struct sysfs_dir *ndevs = NULL;
    unsigned long idx;
    if (sysfs_dir_open(root, &ndevs, IB "/%s/ports/%u/gid_attrs/ndevs", dev, port) == 0)
        for (size_t i = 0; i < sysfs_dir_count(ndevs); i++) {
            const char *name = sysfs_dir_name(ndevs, i);
            /* An empty slot's file reads EINVAL; an IB port's GIDs name no netdev. */
            if (parse_index(name, 0, 65535, &idx) &&
                sysfs_dir_read_line(ndevs, name, buf, len) == 0 && buf[0])
                return 0;
        }
    buf[0] = '\0';
    return function_netdev(root, dev, port, buf, len);
}

static void fill_device(const char *root, struct rail *r)
{
    char buf[64];
    int64_t numa;

    (void)sysfs_read_line(root, r->fw_ver, sizeof(r->fw_ver), IB "/%s/fw_ver", r->device);
    (void)sysfs_read_line(root, r->node_guid, sizeof(r->node_guid), IB "/%s/node_guid", r->device);
    if (sysfs_read_line(root, buf, sizeof(buf), IB "/%s/node_type", r->device) == 0)
        r->node_type = atoi(buf);       /* "1: CA", "4: RNIC" (iWARP) */
    if (sysfs_link_name(root, buf, sizeof(buf), IB "/%s/device", r->device) == 0 &&
        strchr(buf, ':') && strchr(buf, '.'))
        strscpy(r->pci_addr, buf, sizeof(r->pci_addr));
    if (r->pci_addr[0]) {
        (void)sysfs_read_line(root, r->pci_vendor, sizeof(r->pci_vendor), IB "/%s/device/vendor",
                              r->device);
        (void)sysfs_read_line(root, r->pci_device, sizeof(r->pci_device), IB "/%s/device/device",
                              r->device);
    }
    if (sysfs_link_name(root, buf, sizeof(buf), IB "/%s/device/driver", r->device) == 0)
        strscpy(r->driver, buf, sizeof(r->driver));
    else if (sysfs_exists(root, IB "/%s/parent", r->device) && strncmp(r->device, "rxe", 3) == 0)
        snprintf(r->driver, sizeof(r->driver), "rdma_rxe");
    if (sysfs_read_int(root, &numa, IB "/%s/device/numa_node", r->device) == 0)
        r->numa_node = (int)numa;
}

static void fill_port(const char *root, struct rail *r)
{
    read_numbered(root, &r->state, r->state_name, sizeof(r->state_name), r->device, r->port, "state");
    read_numbered(root, &r->phys_state, r->phys_state_name, sizeof(r->phys_state_name),
                  r->device, r->port, "phys_state");
    if (sysfs_read_line(root, r->rate_text, sizeof(r->rate_text), IB "/%s/ports/%u/rate",
                        r->device, r->port) == 0)
        r->rate_gbps = strtod(r->rate_text, NULL);
    r->has_counters = sysfs_exists(root, IB "/%s/ports/%u/counters", r->device, r->port);
    r->has_hw_counters = sysfs_exists(root, IB "/%s/ports/%u/hw_counters", r->device, r->port);
}

/* A name the kernel could have given a netdev (net/core/dev.c dev_valid_name): no '/',
 * ':' or white space, not "." or "..", shorter than IFNAMSIZ. */
static bool valid_ifname(const char *n, size_t len)
{
    if (len == 0 || len >= IFNAMSIZ || (len == 1 && n[0] == '.') ||
        (len == 2 && n[0] == '.' && n[1] == '.'))
        return false;
    for (size_t i = 0; i < len; i++)
        if (n[i] == '/' || n[i] == ':' || isspace((unsigned char)n[i]) || !isprint((unsigned char)n[i]))
            return false;
    return true;
}

/* A bonding master's slaves and each one's state (inventory.h, struct bond_info). */
static void read_bond(const char *root, struct netdev_info *nd)
{
    struct bond_info *b = &nd->bond;
    char line[4096], mode[64] = "";
    uint64_t v;
    if (sysfs_read_line(root, line, sizeof(line), "class/net/%s/bonding/slaves", nd->name) < 0)
        return;
    b->is_bond = true;
    if (sysfs_read_line(root, mode, sizeof(mode), "class/net/%s/bonding/mode", nd->name) == 0)
        snprintf(b->mode, sizeof(b->mode), "%.*s", (int)strcspn(mode, " "), mode);
    for (const char *p = line; *p;) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t");
        if (len == 0)
            break;
        if (len == 8 && strncmp(p, "++more++", 8) == 0)
            b->more = true;
        else if (!valid_ifname(p, len))
            ;                       /* no netdev has such a name: not a slave */
        else if (b->n_slaves == BOND_SLAVES_MAX)
            b->more = true;
        else {
            struct bond_slave *s = &b->slaves[b->n_slaves++];
            memcpy(s->name, p, len);
            s->name[len] = '\0';
            s->carrier = -1;
            s->present = sysfs_exists(root, "class/net/%s", s->name);
            (void)sysfs_read_line(root, s->operstate, sizeof(s->operstate),
                                  "class/net/%s/operstate", s->name);
            if (sysfs_read_u64(root, &v, "class/net/%s/carrier", s->name) == 0)
                s->carrier = v != 0;
        }
        p += len;
    }
}

void source_sysfs_netdev(const char *root, struct netdev_info *nd)
{
    uint64_t v;
    if (!nd->name[0] || !sysfs_exists(root, "class/net/%s", nd->name))
        return;
    nd->present = true;
    (void)sysfs_read_line(root, nd->operstate, sizeof(nd->operstate), "class/net/%s/operstate",
                          nd->name);
    /* carrier reads as EINVAL while the link is administratively down; a tree without
     * the file (ENOENT) says nothing of the link. */
    int err = sysfs_read_u64(root, &v, "class/net/%s/carrier", nd->name);
    nd->carrier = err == 0 ? (int)(v != 0) : -1;
    nd->carrier_absent = err == -ENOENT;
    if (sysfs_read_u64(root, &v, "class/net/%s/mtu", nd->name) == 0)
        nd->mtu = (uint32_t)v;
    if (sysfs_read_u64(root, &v, "class/net/%s/carrier_changes", nd->name) == 0) {
        nd->has_carrier_changes = true;
        nd->carrier_changes = v;
    }
    read_bond(root, nd);
}

static bool listed(const struct policy *p, const char *dev, uint32_t port, size_t *ret_pos)
{
    for (size_t i = 0; i < p->rails.n_list; i++)
        if (streq(p->rails.list[i].device, dev) && p->rails.list[i].port == port) {
            *ret_pos = i;
            return true;
        }
    return false;
}

static bool link_layer_matches(const struct policy *p, const char *ll)
{
    switch (p->rails.link_layer) {
    case LINK_LAYER_ETHERNET: return streq(ll, "Ethernet");
    case LINK_LAYER_INFINIBAND: return streq(ll, "InfiniBand");
    case LINK_LAYER_ANY: return true;
    }
    return false;
}

static int add_rail(const char *root, struct inventory *inv, const char *dev, uint32_t port,
                    const char *ll)
{
    if (inv->n_rails >= INVENTORY_MAX_RAILS) {
        inventory_note(inv, "more than %d RDMA ports selected: %s/%u and those after it are "
                       "not rails", INVENTORY_MAX_RAILS, dev, port);
        return -EFBIG;
    }
    struct rail *r = inventory_add_rail(inv, dev, port);
    if (!r)
        return -ENOMEM;
    strscpy(r->link_layer, ll, sizeof(r->link_layer));
    fill_device(root, r);
    fill_port(root, r);
    int err = read_gids(root, r);
    if (err < 0 && err != -ENOENT)
        return err;
    r->has_gid_table = err == 0;
    find_netdev(root, r);
    return 0;
}

static int scan_device(const char *root, const struct policy *p, struct inventory *inv,
                       const char *dev)
{
    char **ports = NULL;
    int err = sysfs_list(root, &ports, NULL, IB "/%s/ports", dev);
    if (err < 0)
        return err == -ENOENT ? 0 : err;
    for (char **pp = ports; *pp && err >= 0; pp++) {
        char ll[16] = "";
        unsigned long num;
        size_t pos;
        if (!parse_index(*pp, 1, 255, &num)) {      /* ports are u8, from 1 */
            inventory_note(inv, "%s: ignoring ports/%.32s: not a port number", dev, *pp);
            continue;
        }
        uint32_t port = (uint32_t)num;
        (void)sysfs_read_line(root, ll, sizeof(ll), IB "/%s/ports/%u/link_layer", dev, port);
        inv->n_ports_seen++;
        bool take = p->rails.select == RAIL_SELECT_LIST ? listed(p, dev, port, &pos)
                                                         : link_layer_matches(p, ll);
        if (take)
            err = add_rail(root, inv, dev, port, ll);
    }
    strv_free(ports);
    return err;
}

/* With an explicit list, rails come in the policy's order: it is NCCL_IB_HCA's order. */
static void order_and_find_missing(const struct policy *p, struct inventory *inv)
{
    if (p->rails.select != RAIL_SELECT_LIST)
        return;
    size_t next = 0;
    for (size_t i = 0; i < p->rails.n_list; i++) {
        const struct rail_ref *want = &p->rails.list[i];
        size_t j = next;
        while (j < inv->n_rails && !(streq(inv->rails[j].device, want->device) &&
                                     inv->rails[j].port == want->port))
            j++;
        if (j == inv->n_rails) {
            if (inv->n_missing < ARRAY_SIZE(inv->missing))
                snprintf(inv->missing[inv->n_missing++], sizeof(inv->missing[0]), "%s/%u",
                         want->device, want->port);
            continue;
        }
        struct rail tmp = inv->rails[j];
        memmove(&inv->rails[next + 1], &inv->rails[next], (j - next) * sizeof(tmp));
        inv->rails[next++] = tmp;
    }
}

int source_sysfs_scan(const char *root, const struct policy *p, struct inventory *inv)
{
    char **devs = NULL;
    size_t n = 0;
    bool live = streq(root, "/sys");
    inv->net_class_absent = !sysfs_exists(root, "class/net");
    int err = sysfs_list(root, &devs, &n, IB);
    /* A captured tree is named by what it holds: a snapshot's lies in a scratch directory
     * whose name says nothing. A link loop or a file there is the tree's odd shape. */
    if (err == -ENOENT || err == -ELOOP || err == -ENOTDIR) {
        const char *cause = err != -ENOENT ? errno_text(-err)
                          : live ? "no RDMA driver is loaded" : "no RDMA driver was loaded";
        snprintf(inv->why_no_rails, sizeof(inv->why_no_rails),
                 "no RDMA devices: %s" IB " %s%s (%s)", live ? "/sys/" : "",
                 err == -ENOENT ? "does not exist" : "cannot be listed",
                 live ? "" : " in the captured tree", cause);
        order_and_find_missing(p, inv);
        return 0;
    }
    if (err < 0)
        return err;     /* the caller logs it, once, with the root */

    for (size_t i = 0; i < n && err >= 0; i++)
        err = scan_device(root, p, inv, devs[i]);
    strv_free(devs);
    if (err < 0 && err != -EFBIG)       /* -EFBIG: the rails are full, and noted */
        return err;

    order_and_find_missing(p, inv);
    if (inv->n_rails == 0 && n == 0)
        snprintf(inv->why_no_rails, sizeof(inv->why_no_rails),
                 "no RDMA devices: %s" IB " is empty%s", live ? "/sys/" : "",
                 live ? "" : " in the captured tree");
    else if (inv->n_rails == 0)
        snprintf(inv->why_no_rails, sizeof(inv->why_no_rails),
                 "%zu RDMA port%s found, none selected by the policy (link_layer %s)",
                 inv->n_ports_seen, inv->n_ports_seen == 1 ? "" : "s",
                 link_layer_to_string(p->rails.link_layer));
    return 0;
}
