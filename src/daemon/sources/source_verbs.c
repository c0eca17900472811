/* SPDX-License-Identifier: ISC */
/* The verbs source: ibv_query_device_ex, ibv_query_port and ibv_query_gid_table per rail. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "strutil.h"
#include "source_verbs.h"

double verbs_rate_gbps(uint8_t active_width, uint32_t active_speed)
{
    /* IBTA lanes and per-lane data rates, as the kernel's "rate" sysfs file shows them. */
    static const struct { uint32_t code; double gbps; } speeds[] = {
        { 1, 2.5 }, { 2, 5 }, { 4, 10 }, { 8, 10 }, { 16, 14 }, { 32, 25 }, { 64, 50 },
        { 128, 100 }, { 256, 200 },
    };
    static const struct { uint8_t code; int lanes; } widths[] = {
        { 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 },
    };
    double lane = 0;
    int lanes = 0;
    for (size_t i = 0; i < ARRAY_SIZE(speeds); i++)
        if (speeds[i].code == active_speed)
            lane = speeds[i].gbps;
    for (size_t i = 0; i < ARRAY_SIZE(widths); i++)
        if (widths[i].code == active_width)
            lanes = widths[i].lanes;
    return lane * lanes;
}

static const char *phys_state_name(uint8_t s)
{
    static const char *const names[] = {
        "", "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp",
        "LinkErrorRecovery", "PhyTest",
    };
    return s < ARRAY_SIZE(names) ? names[s] : "";
}

static void fill_port(struct ibv_context *ctx, struct rail *r, struct inventory *inv)
{
    struct ibv_port_attr pa;
    int err = ibv_query_port(ctx, (uint8_t)r->port, &pa);   /* the error, not errno */
    if (err) {
        inventory_note(inv, "%s: ibv_query_port failed: %s", r->name,
                       strerror_r(err, (char[128]){ 0 }, 128));
        return;
    }
    if (r->state && r->state != (int)pa.state)
        log_debug("verbs", "%s: state changed between sysfs (%d) and verbs (%d)", r->name,
                  r->state, pa.state);
    log_debug("verbs", "%s: ibv_query_port: state %d, phys_state %d, active_mtu %d", r->name,
              pa.state, pa.phys_state, pa.active_mtu);
    r->state = pa.state;
    strscpy(r->state_name, ibv_port_state_str(pa.state), sizeof(r->state_name));
    for (char *c = r->state_name; *c; c++)
        *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);   /* "active" -> "ACTIVE" */
    r->phys_state = pa.phys_state;
    strscpy(r->phys_state_name, phys_state_name(pa.phys_state), sizeof(r->phys_state_name));
    r->active_mtu = pa.active_mtu >= IBV_MTU_256 && pa.active_mtu <= IBV_MTU_4096
                    ? 128u << pa.active_mtu : 0;
    double rate = verbs_rate_gbps(pa.active_width, pa.active_speed);
    if (rate > 0)
        r->rate_gbps = rate;
    snprintf(r->link_layer, sizeof(r->link_layer), "%s",
             pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand");
}

static enum gid_type from_verbs_type(uint32_t t)
{
    return t == IBV_GID_TYPE_ROCE_V2 ? GID_TYPE_ROCE_V2 : GID_TYPE_IB_ROCE_V1;
}

/* verbs is the primary GID source; sysfs (already read) is the cross-check. */
static void fill_gids(struct ibv_context *ctx, struct rail *r, struct inventory *inv)
{
    size_t max = r->n_gids ? r->n_gids : 256;
    _cleanup_free_ struct ibv_gid_entry *e = calloc(max, sizeof(*e));
    if (!e)
        return;
    ssize_t n = ibv_query_gid_table(ctx, e, max, 0);
    if (n < 0) {
        inventory_note(inv, "%s: ibv_query_gid_table failed: %s", r->name, errno_text((int)-n));
        return;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (e[i].port_num != r->port)
            continue;
        if (e[i].gid_index >= r->n_gids) {
            inventory_note(inv, "%s: verbs GID index %u is beyond the sysfs table", r->name,
                           e[i].gid_index);
            continue;
        }
        struct gid_entry *g = &r->gids[e[i].gid_index];
        enum gid_type t = from_verbs_type(e[i].gid_type);
        /* A types file sysfs lacks stays missing: NCCL reads sysfs, not verbs. */
        bool sysfs_typed = g->type != GID_TYPE_UNREADABLE && g->type != GID_TYPE_MISSING;
        if (memcmp(g->raw, e[i].gid.raw, 16) != 0 || (sysfs_typed && g->type != t))
            inventory_note(inv, "%s: GID %u differs between verbs and sysfs", r->name,
                           e[i].gid_index);
        memcpy(g->raw, e[i].gid.raw, 16);
        if (g->type == GID_TYPE_UNREADABLE)
            g->type = t;
        if (!g->ndev[0] && e[i].ndev_ifindex && !if_indextoname(e[i].ndev_ifindex, g->ndev))
            g->ndev[0] = '\0';
    }
}

static void fill_device(struct ibv_context *ctx, struct rail *r)
{
    struct ibv_device_attr_ex attr;
    if (ibv_query_device_ex(ctx, NULL, &attr))
        return;
    strscpy(r->fw_ver, attr.orig_attr.fw_ver, sizeof(r->fw_ver));
    uint64_t guid = be64toh(attr.orig_attr.node_guid);
    snprintf(r->node_guid, sizeof(r->node_guid), "%04x:%04x:%04x:%04x",
             (unsigned)(guid >> 48) & 0xffff, (unsigned)(guid >> 32) & 0xffff,
             (unsigned)(guid >> 16) & 0xffff, (unsigned)guid & 0xffff);
}

int verbs_open(const char *name, struct ibv_context **ret, char *why, size_t whylen)
{
    int n = 0, r = -ENODEV;
    struct ibv_device **list = ibv_get_device_list(&n);
    if (!list) {
        r = -errno;
        snprintf(why, whylen, "cannot open %s: verbs lists no device (%s)", name,
                 strerror_r(-r, (char[128]){ 0 }, 128));
        return r;
    }
    *ret = NULL;
    snprintf(why, whylen, "cannot open %s: verbs has no such device (no rdma-core provider "
             "for it, or it is gone)", name);
    for (int d = 0; d < n; d++) {
        if (!streq(ibv_get_device_name(list[d]), name))
            continue;
        *ret = ibv_open_device(list[d]);
        r = *ret ? 0 : errno ? -errno : -EIO;
        if (r == -EPERM || r == -EACCES)
            snprintf(why, whylen, "open of /dev/infiniband/%s is denied (%s): a device cgroup "
                     "(systemd DeviceAllow=) or the node's permissions", list[d]->dev_name,
                     r == -EPERM ? "EPERM" : "EACCES");
        else if (r < 0)
            snprintf(why, whylen, "cannot open /dev/infiniband/%s: %s", list[d]->dev_name,
                     strerror_r(-r, (char[128]){ 0 }, 128));
        break;
    }
    ibv_free_device_list(list);
    return r;
}

void source_verbs_scan(struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        struct ibv_context *ctx = NULL;
        char why[256];
        if (verbs_open(r->device, &ctx, why, sizeof(why)) < 0) {
            inventory_note(inv, "%s: %s; using sysfs only", r->name, why);
            continue;
        }
        fill_device(ctx, r);
        fill_port(ctx, r, inv);
        fill_gids(ctx, r, inv);
        ibv_close_device(ctx);
    }
}
