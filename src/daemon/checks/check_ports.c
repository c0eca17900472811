/* SPDX-License-Identifier: ISC */
/* rails.count and the port checks: state, phys_state, link layer, rate, active MTU. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"

void check_rails(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    char want[32], got[32];
    uint32_t expect = p->rails.expect_count;
    size_t n = inv->n_rails;

    snprintf(got, sizeof(got), "%zu", n);
    snprintf(want, sizeof(want), "%u", expect);
    for (size_t i = 0; i < inv->n_missing; i++)
        findings_add(out, "rails.count", SEVERITY_ERROR, inv->missing[i], "present", "absent",
                     "check the device name with 'rdma link show'; is the HCA's driver loaded?",
                     "rail %s is in the policy but not on this node", inv->missing[i]);
    if (expect == 0 && n == 0)
        findings_add(out, "rails.count", SEVERITY_UNKNOWN, NULL, NULL, "0",
                     "set rails.expect_count to make missing rails an error",
                     "no rails: %s", inv->why_no_rails);
    else if (expect == 0)
        findings_add(out, "rails.count", SEVERITY_OK, NULL, NULL, got, NULL,
                     "%zu rail%s (no count expected)", n, n == 1 ? "" : "s");
    else if (n < expect)
        findings_add(out, "rails.count", SEVERITY_ERROR, NULL, want, got,
                     "a missing rail is usually a dead HCA, an unloaded driver or a port filtered "
                     "out by rails.link_layer", "%zu of %u expected rails%s%s", n, expect,
                     n ? "" : ": ", n ? "" : inv->why_no_rails);
    else if (n > expect)
        findings_add(out, "rails.count", SEVERITY_WARNING, NULL, want, got,
                     "list the rails in rails.select, or raise rails.expect_count",
                     "%zu rails, more than the %u expected", n, expect);
    else
        findings_add(out, "rails.count", SEVERITY_OK, NULL, want, got, NULL, "%zu rails", n);
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
                     "a DOWN port has lost its link: check the cable, the switch port and "
                     "'ip link show' of its netdev", "port is %s", r->state_name);

    if (r->phys_state == 0)
        findings_add(out, "port.phys_state", SEVERITY_UNKNOWN, r->name, "LinkUp", NULL, NULL,
                     "physical state not exposed");
    else if (r->phys_state == 5)
        findings_add(out, "port.phys_state", SEVERITY_OK, r->name, "LinkUp", r->phys_state_name,
                     NULL, "physical link up");
    else
        findings_add(out, "port.phys_state", SEVERITY_ERROR, r->name, "LinkUp",
                     r->phys_state_name, r->phys_state == 3
                     ? "Disabled: the netdev or the port is administratively down"
                     : "Polling: no peer answers; check the cable and the switch port",
                     "physical state is %s", r->phys_state_name);
}

static void check_link_layer(const struct rail *r, const struct policy *p, struct findings *out)
{
    const char *want = p->rails.link_layer == LINK_LAYER_ETHERNET ? "Ethernet"
                     : p->rails.link_layer == LINK_LAYER_INFINIBAND ? "InfiniBand" : NULL;
    if (!want || streq(want, r->link_layer))
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
        findings_add(out, "port.rate", p->rails.min_rate_gbps ? SEVERITY_UNKNOWN : SEVERITY_OK,
                     r->name, want, NULL, NULL, "port rate not exposed");
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
        findings_add(out, "port.mtu", min ? SEVERITY_UNKNOWN : SEVERITY_OK, r->name,
                     min ? want : NULL, NULL, NULL, "active MTU not known (%s)",
                     "it comes from verbs; a sysfs snapshot does not carry it");
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
