/* SPDX-License-Identifier: ISC */
/* rails.count and the port checks: state, phys_state, link layer, rate, active MTU. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"

/* " (2 GPUs on this node)": a GPU node without rails is the case the error is for. */
static const char *gpus_beside(const struct inventory *inv, char *buf, size_t len)
{
    if (inv->n_gpus == 0)
        return "";
    snprintf(buf, len, " (%zu GPU%s on this node)", inv->n_gpus, PLURAL_S(inv->n_gpus));
    return buf;
}

void check_rails(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    char want[32], got[32], gpus[48];
    uint32_t expect = p->rails.expect_count;
    size_t n = inv->n_rails;

    snprintf(got, sizeof(got), "%zu", n);
    snprintf(want, sizeof(want), "%u", expect);
    for (size_t i = 0; i < inv->n_missing; i++)
        findings_add(out, "rails.count", SEVERITY_ERROR, inv->missing[i], "present", "absent",
                     "check the device name with 'rdma link show'; is the HCA's driver loaded?",
                     "rail %s is in the policy but not on this node", inv->missing[i]);
    if (expect == POLICY_COUNT_UNSET && n == 0)
        findings_add(out, "rails.count", SEVERITY_ERROR, NULL, "at least 1", "0",
                     "a node without RDMA rails cannot run multi-node GPU jobs at speed; check "
                     "the HCAs' drivers ('rdma link show'). For a TCP-only node, set "
                     "'rails: {expect_count: 0}' in the policy",
                     "no rails%s: %s", gpus_beside(inv, gpus, sizeof(gpus)), inv->why_no_rails);
    else if (expect == POLICY_COUNT_UNSET)
        findings_add(out, "rails.count", SEVERITY_OK, NULL, NULL, got, NULL,
                     "%zu rail%s (no count expected)", n, PLURAL_S(n));
    else if (expect == 0 && n == 0)
        findings_add(out, "rails.count", SEVERITY_OK, NULL, want, got, NULL,
                     "no rails, as the policy expects (expect_count: 0, a TCP-only node): %s",
                     inv->why_no_rails);
    else if (expect == 0)
        findings_add(out, "rails.count", SEVERITY_WARNING, NULL, want, got,
                     "expect_count: 0 is for a TCP-only node: set rails.expect_count to this "
                     "node's rail count, or remove it (null: at least one rail)",
                     "%zu rail%s, where the policy expects none (expect_count: 0)", n,
                     PLURAL_S(n));
    else if (n < expect && inv->n_ports_seen > n)
        /* The ports are there, the policy's selection left some out: a VPI port in the
         * other link layer (mlxconfig LINK_TYPE_P1), or rails.select's list. */
        findings_add(out, "rails.count", SEVERITY_ERROR, NULL, want, got,
                     "a VPI port's link layer is set with mlxconfig LINK_TYPE_P1 (1 InfiniBand, "
                     "2 Ethernet); else widen rails.select or rails.link_layer",
                     "%zu of %u expected rail%s: %zu more RDMA port%s not selected (link_layer "
                     "%s)", n, expect, PLURAL_S(expect), inv->n_ports_seen - n,
                     inv->n_ports_seen - n == 1 ? " is" : "s are",
                     link_layer_to_string(p->rails.link_layer));
    else if (n < expect)
        findings_add(out, "rails.count", SEVERITY_ERROR, NULL, want, got,
                     "a missing rail is usually a dead HCA or an unloaded driver",
                     "%zu of %u expected rail%s%s%s", n, expect,
                     PLURAL_S(expect), n ? "" : ": ", n ? "" : inv->why_no_rails);
    else if (n > expect)
        findings_add(out, "rails.count", SEVERITY_WARNING, NULL, want, got,
                     "list the rails in rails.select, or raise rails.expect_count",
                     "%zu rail%s, more than the %u expected", n, PLURAL_S(n), expect);
    else
        findings_add(out, "rails.count", SEVERITY_OK, NULL, want, got, NULL, "%zu rail%s", n, PLURAL_S(n));
}

/* What each physical state the kernel names means (phys_state_to_str in
 * drivers/infiniband/core/sysfs.c: 1 Sleep .. 7 Phy Test; 5 LinkUp is no problem). */
static const char *phys_state_hint(int state)
{
    static const char *const hints[] = {
        [1] = "Sleep: the port is powered down and waits to be woken; check that the "
              "port is enabled on the HCA and on the switch",
        [2] = "Polling: no peer answers; check the cable and the switch port",
        [3] = "Disabled: the netdev or the port is administratively down",
        [4] = "PortConfigurationTraining: the link is training with its peer; if it stays "
              "there, the two ends disagree on speed or width (cable, transceiver, or the "
              "switch port's settings)",
        [6] = "LinkErrorRecovery: the link is retraining after errors; a bad cable, "
              "transceiver or dirty connector (see the link_error_recovery and "
              "symbol_error counters)",
        [7] = "Phy Test: the port is in a physical-layer test mode, set by a diagnostic "
              "tool; end the test or reset the port",
    };
    return state > 0 && state < (int)ARRAY_SIZE(hints) ? hints[state] : NULL;
}

static void check_phys_state(const struct rail *r, struct findings *out)
{
    const char *hint = phys_state_hint(r->phys_state);
    if (r->phys_state == 0)
        findings_add(out, "port.phys_state", SEVERITY_UNKNOWN, r->name, "LinkUp", NULL, NULL,
                     "physical state not exposed");
    else if (r->phys_state == 5)
        findings_add(out, "port.phys_state", SEVERITY_OK, r->name, "LinkUp", r->phys_state_name,
                     NULL, "physical link up");
    else if (!hint)
        findings_add(out, "port.phys_state", SEVERITY_UNKNOWN, r->name, "LinkUp",
                     r->phys_state_name, "the kernel names physical states 1 to 7; this "
                     "value is none of them (the driver's own, or a damaged tree)",
                     "physical state %d (%s) is not one the kernel names", r->phys_state,
                     r->phys_state_name);
    else
        findings_add(out, "port.phys_state", SEVERITY_ERROR, r->name, "LinkUp",
                     r->phys_state_name, hint, "physical state is %s", r->phys_state_name);
}

/* What a port state short of ACTIVE means (ib_port_state, IBTA 7.2: the physical link is
 * up in INIT and ARMED; the subnet manager moves the port on from there). */
static const char *state_hint(const struct rail *r)
{
    bool ib = streq(r->link_layer, "InfiniBand");
    if (r->state == 2 && ib)
        return "INIT: the physical link is up, but no subnet manager has brought the port "
               "up: check that an SM runs on the fabric (sminfo; opensm, or the switch's)";
    if (r->state == 3 && ib)
        return "ARMED: the subnet manager configured the port but never activated it: check "
               "the SM's log and sweep (an SM that stopped half-way, or keeps the port out)";
    return "a DOWN port has lost its link: check the cable, the switch port and "
           "'ip link show' of its netdev";
}

static void check_state(const struct rail *r, struct findings *out)
{
    if (r->state == 0)
        findings_add(out, "port.state", SEVERITY_UNKNOWN, r->name, "ACTIVE", NULL, NULL,
                     "port state not exposed");
    else if (r->state == 4)
        findings_add(out, "port.state", SEVERITY_OK, r->name, "ACTIVE", r->state_name, NULL,
                     "port ACTIVE");
    else
        findings_add(out, "port.state", SEVERITY_ERROR, r->name, "ACTIVE", r->state_name,
                     state_hint(r), "port is %s", r->state_name);

    check_phys_state(r, out);
}

static void check_link_layer(const struct rail *r, const struct policy *p, struct findings *out)
{
    const char *want = p->rails.link_layer == LINK_LAYER_ETHERNET ? "Ethernet"
                     : p->rails.link_layer == LINK_LAYER_INFINIBAND ? "InfiniBand" : NULL;
    if (rail_is_iwarp(r))
        findings_add(out, "port.link_layer", SEVERITY_UNKNOWN, r->name, want, "iWARP",
                     "NCCL's IB transport runs over InfiniBand and RoCE; list the rails in "
                     "rails.select to leave this one out",
                     "an iWARP device (node_type %d: RNIC, link layer %s): fabtune judges "
                     "InfiniBand and RoCE rails only, not its GIDs", r->node_type, r->link_layer);
    else if (!want || streq(want, r->link_layer))
        findings_add(out, "port.link_layer", SEVERITY_OK, r->name, want, r->link_layer, NULL,
                     "link layer %s", r->link_layer);
    else
        findings_add(out, "port.link_layer", SEVERITY_ERROR, r->name, want, r->link_layer,
                     "a VPI HCA's port type is set with mlxconfig LINK_TYPE_P1",
                     "link layer is %s, not %s", r->link_layer, want);
}

static void check_rate(const struct rail *r, const struct policy *p, struct findings *out)
{
    char want[32], got[32];
    snprintf(want, sizeof(want), ">= %u Gb/s", p->rails.min_rate_gbps);
    snprintf(got, sizeof(got), "%g Gb/s", r->rate_gbps);
    if (r->rate_gbps <= 0)
        findings_add(out, "port.rate", SEVERITY_UNKNOWN, r->name,
                     p->rails.min_rate_gbps ? want : NULL, NULL, NULL, "port rate not exposed");
    else if (r->rate_gbps < p->rails.min_rate_gbps)
        findings_add(out, "port.rate", SEVERITY_ERROR, r->name, want, got,
                     "a port below its rate trained down: check the cable, the transceiver "
                     "and the switch port speed", "rate %g Gb/s is below %u Gb/s",
                     r->rate_gbps, p->rails.min_rate_gbps);
    else
        findings_add(out, "port.rate", SEVERITY_OK, r->name, p->rails.min_rate_gbps ? want : NULL,
                     got, NULL, "rate %g Gb/s", r->rate_gbps);
}

static void check_mtu(const struct rail *r, const struct policy *p, struct findings *out)
{
    char want[32], got[32];
    uint32_t min = p->rails.mtu.rdma_active_min;
    snprintf(want, sizeof(want), ">= %u", min);
    snprintf(got, sizeof(got), "%u", r->active_mtu);
    if (r->active_mtu == 0)
        findings_add(out, "port.mtu", SEVERITY_UNKNOWN, r->name,
                     min ? want : NULL, NULL, NULL, "active MTU not known (%s)",
                     "it comes from verbs; a captured tree does not carry it");
    else if (r->active_mtu < min)
        findings_add(out, "port.mtu", SEVERITY_ERROR, r->name, want, got,
                     "RoCE's active MTU follows the netdev MTU: 4096 needs a netdev MTU of at "
                     "least 4200", "active MTU %u is below %u", r->active_mtu, min);
    else
        findings_add(out, "port.mtu", SEVERITY_OK, r->name, min ? want : NULL, got, NULL,
                     "active MTU %u", r->active_mtu);
}

void check_ports(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        check_state(r, out);
        check_link_layer(r, p, out);
        check_rate(r, p, out);
        check_mtu(r, p, out);
    }
}
