/* SPDX-License-Identifier: ISC */
/* The check-id table (check_ids.h): a new check id is one row here, in fabtuned(8)'s
 * CHECKS list, and under its family's entry in systemd/fabtune.catalog. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check_ids.h"
#include "macro.h"
#include "strutil.h"

static const struct {
    const char *name, *message_id;
} families[CHECK_FAMILY_COUNT] = {
    [CHECK_FAMILY_RAILS] = { "rails", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a01" },
    [CHECK_FAMILY_PORT] = { "port", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a02" },
    [CHECK_FAMILY_NETDEV] = { "netdev", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a03" },
    [CHECK_FAMILY_GID] = { "gid", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a04" },
    [CHECK_FAMILY_QOS] = { "qos", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a05" },
    [CHECK_FAMILY_COUNTERS] = { "counters", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a06" },
    [CHECK_FAMILY_HOST] = { "host", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a07" },
    [CHECK_FAMILY_TUNING] = { "tuning", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a08" },
    [CHECK_FAMILY_PROBE] = { "probe", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a09" },
    [CHECK_FAMILY_FABRIC] = { "fabric", "4b1e0f6a2d5c4e8f9a3b7c1d2e5f6a0a" },
    [CHECK_FAMILY_DIFF] = { "diff", NULL },
};

const struct check_id check_ids[] = {
    { "port.link_layer", CHECK_FAMILY_PORT, { "link_layer" } },
    { "port.state", CHECK_FAMILY_PORT, { "state" } },
    { "port.phys_state", CHECK_FAMILY_PORT, { "phys_state" } },
    { "port.rate", CHECK_FAMILY_PORT, { "rate_bits_per_second" } },
    { "port.mtu", CHECK_FAMILY_PORT, { "active_mtu_bytes" } },
    { "rails.count", CHECK_FAMILY_RAILS, { "driver" } },
    { "rails.firmware", CHECK_FAMILY_DIFF, { "fw_ver" } },
    { "gid.nccl", CHECK_FAMILY_GID, { "gid_index" } },
    { "gid.consistent", CHECK_FAMILY_GID, { "gid_table_size" } },
    { "gid.roce_v2", CHECK_FAMILY_GID, { NULL } },
    { "gid.family", CHECK_FAMILY_GID, { NULL } },
    { "gid.subnet", CHECK_FAMILY_GID, { NULL } },
    { "gid.nccl_legacy", CHECK_FAMILY_GID, { NULL } },
    { "link.module", CHECK_FAMILY_PORT, { "link.module.type", "link.module.media", "link.module.vendor",
                                          "link.module.part" } },
    { "link.fec", CHECK_FAMILY_PORT, { "link.fec_mode" } },
    { "link.ber", CHECK_FAMILY_PORT, { NULL } },
    { "netdev.oper", CHECK_FAMILY_NETDEV, { "netdev.name", "netdev.operstate" } },
    { "netdev.carrier", CHECK_FAMILY_NETDEV, { "netdev.carrier" } },
    { "netdev.mtu", CHECK_FAMILY_NETDEV, { "netdev.mtu_bytes" } },
    { "netdev.flaps", CHECK_FAMILY_NETDEV, { NULL } },
    { "route.egress", CHECK_FAMILY_NETDEV, { NULL } },
    { "route.arp", CHECK_FAMILY_NETDEV, { "routes.arp_ignore", "routes.arp_announce" } },
    { "route.rp_filter", CHECK_FAMILY_NETDEV, { "routes.rp_filter" } },
    { "route.subnets", CHECK_FAMILY_NETDEV, { "routes.subnet", "routes.source_routed" } },
    { "route.neighbor", CHECK_FAMILY_NETDEV, { NULL } },
    { "route.isolation", CHECK_FAMILY_NETDEV, { NULL } },
    { "fabric.neighbor", CHECK_FAMILY_FABRIC, { NULL } },
    { "fabric.cabling", CHECK_FAMILY_FABRIC, { "neighbors.list.0.system_name" } },
    { "fabric.mtu", CHECK_FAMILY_FABRIC, { "neighbors.list.0.max_frame_size" } },
    { "fabric.vlan", CHECK_FAMILY_FABRIC, { "neighbors.list.0.vlans", "neighbors.list.0.pvid" } },
    { "pcie.link", CHECK_FAMILY_HOST, { "pcie.speed_gts", "pcie.width" } },
    { "pcie.mrrs", CHECK_FAMILY_HOST, { "pcie.max_read_request_bytes" } },
    { "pcie.acs", CHECK_FAMILY_HOST, { NULL } },
    { "qos.pfc", CHECK_FAMILY_QOS, { "qos.pfc_priorities", "qos.dcbx" } },
    { "qos.pfc_exclusive", CHECK_FAMILY_QOS, { NULL } },
    { "qos.trust", CHECK_FAMILY_QOS, { "qos.trust" } },
    { "qos.dscp_map", CHECK_FAMILY_QOS, { "qos.app_entries" } },
    { "qos.ecn", CHECK_FAMILY_QOS, { "qos.ecn_np_priorities", "qos.ecn_rp_priorities" } },
    { "qos.cnp", CHECK_FAMILY_QOS, { "qos.cnp_dscp", "qos.cnp_802p_prio" } },
    { "qos.global_pause", CHECK_FAMILY_QOS, { "qos.global_pause_rx", "qos.global_pause_tx" } },
    { "qos.cc", CHECK_FAMILY_QOS, { "cc.running" } },
    { "qos.cc_next_boot", CHECK_FAMILY_QOS, { "cc.next_boot" } },
    { "qos.cc_alike", CHECK_FAMILY_QOS, { NULL } },
    { "gpudirect.affinity", CHECK_FAMILY_HOST, { NULL } },
    { "gpudirect.peermem", CHECK_FAMILY_HOST, { NULL } },
    { "host.iommu", CHECK_FAMILY_HOST, { NULL } },
    { "host.irq_affinity", CHECK_FAMILY_HOST, { NULL } },
    { "host.cpufreq", CHECK_FAMILY_HOST, { NULL } },
    { "host.memlock", CHECK_FAMILY_HOST, { NULL } },
    { "host.state_dir", CHECK_FAMILY_HOST, { NULL } },
    { "counters.loss", CHECK_FAMILY_COUNTERS, { NULL } },
    { "counters.congestion", CHECK_FAMILY_COUNTERS, { NULL } },
    { "counters.misconfig", CHECK_FAMILY_COUNTERS, { NULL } },
    { "counters.starvation", CHECK_FAMILY_COUNTERS, { NULL } },
    { "counters.pfc_storm", CHECK_FAMILY_COUNTERS, { NULL } },
    { "counters.link", CHECK_FAMILY_COUNTERS, { NULL } },
    { "counters.link_down", CHECK_FAMILY_COUNTERS, { NULL } },
    { "counters.qp_error", CHECK_FAMILY_COUNTERS, { NULL } },
    { "counters.sticky", CHECK_FAMILY_COUNTERS, { NULL } },
    { "tuning.drift", CHECK_FAMILY_TUNING, { NULL } },
    { "probe.rdma.latency", CHECK_FAMILY_PROBE, { NULL } },
    { "probe.rdma.bandwidth", CHECK_FAMILY_PROBE, { NULL } },
    { "probe.tcp.latency", CHECK_FAMILY_PROBE, { NULL } },
    { "probe.tcp.bandwidth", CHECK_FAMILY_PROBE, { NULL } },
    { "probe.regression", CHECK_FAMILY_PROBE, { NULL } },
    { "probe.peer", CHECK_FAMILY_PROBE, { NULL } },
    { "probe.peers", CHECK_FAMILY_PROBE, { NULL } },
    { "nccl.contract", CHECK_FAMILY_DIFF, { NULL } },
    { "verdict", CHECK_FAMILY_DIFF, { "verdict" } },
};

const size_t check_ids_count = ARRAY_SIZE(check_ids);

const struct check_id *check_id_find(const char *id)
{
    for (size_t i = 0; i < check_ids_count; i++)
        if (streq(check_ids[i].id, id))
            return &check_ids[i];
    return NULL;
}

bool check_id_matches(const char *id, const char *pattern)
{
    size_t n = strlen(pattern);
    if (n && pattern[n - 1] == '.')
        n--;
    return streq(id, pattern) || (n && strncmp(id, pattern, n) == 0 && id[n] == '.');
}

bool check_id_known(const char *pattern)
{
    for (size_t i = 0; i < check_ids_count; i++)
        if (check_id_matches(check_ids[i].id, pattern))
            return true;
    return false;
}

#define NAMES_MAX 256
#define NAME_LEN 64

/* Adds ID's first LEN bytes to the N NAMES, unless one of them is that already. */
static void add_name(char (*names)[NAME_LEN], size_t *n, const char *id, size_t len)
{
    if (*n >= NAMES_MAX)
        return;
    snprintf(names[*n], NAME_LEN, "%.*s", (int)len, id);
    for (size_t k = 0; k < *n; k++)
        if (streq(names[k], names[*n]))
            return;
    (*n)++;
}

bool check_id_closest(const char *s, char *buf, size_t len)
{
    /* The ids and their dotted prefixes: "probe.rdma.latency", "probe.rdma", "probe". */
    char names[NAMES_MAX][NAME_LEN];
    const char *list[NAMES_MAX];
    size_t n = 0;
    for (size_t i = 0; i < check_ids_count; i++) {
        const char *id = check_ids[i].id;
        for (const char *end = id + strlen(id); end; end = memrchr(id, '.', (size_t)(end - id)))
            add_name(names, &n, id, (size_t)(end - id));
    }
    for (size_t k = 0; k < n; k++)
        list[k] = names[k];
    const char *near = str_closest(s, list, n);
    if (near)
        snprintf(buf, len, "%s", near);
    return near != NULL;
}

const char *check_family_message_id(enum check_family f)
{
    return f < CHECK_FAMILY_COUNT ? families[f].message_id : NULL;
}

const char *check_family_name(enum check_family f)
{
    return f < CHECK_FAMILY_COUNT ? families[f].name : "unknown";
}
