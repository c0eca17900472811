/* SPDX-License-Identifier: ISC */
/* fabric.neighbor, fabric.cabling, fabric.mtu and fabric.vlan: what each rail's netdev is
 * plugged into, as LLDP tells (model/lldp.h), against the policy's rails.topology and
 * rails.neighbors. */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"

/* An Ethernet frame around an MTU-sized payload: the 14-byte header and the 4-byte FCS
 * (IEEE 802.3 clause 3.2), and a 4-byte 802.1Q tag where the rail is on a VLAN. */
#define ETH_OVERHEAD 18u
#define VLAN_TAG 4u

#define MLX5_LLDP_HINT "; on mlx5 the NIC firmware's own LLDP agent can take the frames " \
    "before the host sees them: mlxconfig -d PCI query | grep LLDP_NB shows it " \
    "(LLDP_NB_RX_MODE_P1, LLDP_NB_TX_MODE_P1, LLDP_NB_DCBX_P1; set them to 0 to give LLDP to lldpd)"

static bool is_mlx5(const struct rail *r)
{
    return streq(r->driver, "mlx5_core");
}

/* How long the rail's carrier has been stable, from the counters' carrier history; false
 * when the history cannot tell (one sample, none, or no change seen). */
static bool link_up_for(const struct counter_state *st, const struct rail *r, usec_t *ret)
{
    const struct rail_counters *rc = st ? counters_find_const(st, r->name) : NULL;
    if (!rc || rc->n_carrier < 2)
        return false;
    const struct carrier_mark *last = &rc->carrier[rc->n_carrier - 1];
    size_t i = rc->n_carrier - 1;
    while (i > 0 && rc->carrier[i - 1].changes == last->changes)
        i--;
    if (i == 0)
        return false;           /* no change within the history: up for longer than it */
    *ret = last->at - rc->carrier[i].at;
    return true;
}

static void check_neighbor(const struct rail *r, const struct counter_state *st,
                           const struct policy *p, struct findings *out)
{
    const struct rail_lldp *l = &r->lldp;
    char bound[32], hint[512];
    if (!l->known) {
        /* The reason says its own fix where lldpd did not answer; a captured tree without
         * lldpd's answers, a rail without a netdev, or lldp: ignore want no lldpd. */
        snprintf(hint, sizeof(hint), "once lldpd answers%s", MLX5_LLDP_HINT);
        findings_add(out, "fabric.neighbor", SEVERITY_UNKNOWN, r->name, NULL, NULL,
                     l->err && is_mlx5(r) ? hint : NULL, "%s", l->why);
        return;
    }
    const struct lldp_neighbor *n = lldp_current(l);
    if (n) {
        enum severity sev = l->n + l->n_dropped > 1 ? SEVERITY_WARNING : SEVERITY_OK;
        findings_add(out, "fabric.neighbor", sev, r->name, "one LLDP neighbour", lldp_switch_name(n),
                     sev == SEVERITY_OK ? NULL : "a recabling leaves the old neighbour until "
                     "its TTL runs out; else more than one LLDP agent answers on the port: a "
                     "hub, a bridge that forwards LLDP, or a second agent on the far side",
                     "%s port %s (seen %u s ago)%s", lldp_switch_name(n), lldp_port_name(n),
                     n->age_s, sev == SEVERITY_OK ? "" : ", and older neighbours");
        return;
    }
    if (r->netdev.carrier == 0 || (r->netdev.operstate[0] && !streq(r->netdev.operstate, "up"))) {
        findings_add(out, "fabric.neighbor", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                     "no LLDP neighbour while %s is down", r->netdev.name);
        return;
    }
    duration_format(p->rails.neighbors.bound, bound, sizeof(bound));
    usec_t up;
    if (link_up_for(st, r, &up) && up < p->rails.neighbors.bound) {
        findings_add(out, "fabric.neighbor", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                     "no LLDP neighbour yet: the link came up %llu s ago, within the %s bound",
                     (unsigned long long)(up / USEC_PER_SEC), bound);
        return;
    }
    snprintf(hint, sizeof(hint), "enable LLDP on the switch port; lldpd sees no frame on %s%s",
             r->netdev.name, is_mlx5(r) ? MLX5_LLDP_HINT : "");
    findings_add(out, "fabric.neighbor",
                 p->rails.neighbors.lldp == REQ_REQUIRED ? SEVERITY_ERROR : SEVERITY_WARNING,
                 r->name, "an LLDP neighbour", "none", hint,
                 "no LLDP neighbour on %s (link up for longer than %s)", r->netdev.name, bound);
}

/* PATTERN with each "{index}" replaced by INDEX, into BUF. */
static const char *expand(const char *pattern, size_t index, char *buf, size_t len)
{
    size_t o = 0;
    for (const char *s = pattern; *s && o + 1 < len;) {
        if (strncmp(s, "{index}", 7) == 0) {
            int n = snprintf(buf + o, len - o, "%zu", index);
            o = n > 0 && (size_t)n < len - o ? o + (size_t)n : len - 1;
            s += 7;
        } else
            buf[o++] = *s++;
    }
    buf[o] = '\0';
    return buf;
}

static bool same_chassis(const struct lldp_neighbor *a, const struct lldp_neighbor *b)
{
    return a->chassis_id[0] && streq(a->chassis_id, b->chassis_id) &&
           streq(a->chassis_subtype, b->chassis_subtype);
}

static bool same_port(const struct lldp_neighbor *a, const struct lldp_neighbor *b)
{
    return same_chassis(a, b) && a->port_id[0] && streq(a->port_id, b->port_id) &&
           streq(a->port_subtype, b->port_subtype);
}

/* Appends to MSG (cut at LEN). */
static void say(char *msg, size_t len, const char *what)
{
    size_t o = strlen(msg);
    if (o + 1 < len)
        snprintf(msg + o, len - o, "%s%s", o ? "; " : "", what);
}

static void check_cabling(const struct inventory *inv, size_t i, const struct policy *p,
                          struct findings *out)
{
    const struct rail *r = &inv->rails[i];
    const struct lldp_neighbor *n = lldp_current(&r->lldp), *on;
    char msg[512] = "", what[256], want[352] = "", pat[160];
    const char *sw = lldp_switch_name(n), *port = lldp_port_name(n);
    for (size_t j = 0; j < inv->n_rails; j++) {
        const struct rail *o = &inv->rails[j];
        if (j == i || !(on = lldp_current(&o->lldp)))
            continue;
        if (same_port(n, on)) {
            snprintf(what, sizeof(what), "%s reaches the same switch port, %s port %s",
                     o->name, sw, port);
            say(msg, sizeof(msg), what);
        } else if (p->rails.topology == TOPOLOGY_DISTINCT_SWITCHES &&
                   same_chassis(n, on)) {
            snprintf(what, sizeof(what), "%s reaches the same switch, %s (rails.topology is "
                     "distinct_switches)", o->name, sw);
            say(msg, sizeof(msg), what);
        }
    }
    const char *sp = p->rails.neighbors.switch_pattern, *pp = p->rails.neighbors.port_pattern;
    if (sp) {
        expand(sp, i, pat, sizeof(pat));
        snprintf(want, sizeof(want), "switch %s", pat);
        if (fnmatch(pat, sw, 0) != 0) {
            snprintf(what, sizeof(what), "switch %s does not match %s", sw, pat);
            say(msg, sizeof(msg), what);
        }
    }
    if (pp) {
        expand(pp, i, pat, sizeof(pat));
        size_t o = strlen(want);
        snprintf(want + o, sizeof(want) - o, "%sport %s", o ? ", " : "", pat);
        if (fnmatch(pat, port, 0) != 0) {
            snprintf(what, sizeof(what), "port %s does not match %s", port, pat);
            say(msg, sizeof(msg), what);
        }
    }
    snprintf(what, sizeof(what), "%s port %s", sw, port);
    if (!msg[0])
        findings_add(out, "fabric.cabling", SEVERITY_OK, r->name, want[0] ? want : NULL, what,
                     NULL, "%s", what);
    else
        findings_add(out, "fabric.cabling", SEVERITY_ERROR, r->name, want[0] ? want : NULL,
                     what, "check the cable at both ends against the cabling plan: a rail "
                     "on the wrong switch sends its traffic across the spine",
                     "%s: %s", what, msg);
}

static void check_mtu(const struct rail *r, const struct policy *p, struct findings *out)
{
    const struct lldp_neighbor *n = lldp_current(&r->lldp);
    char want[64], got[32];
    if (!n->mfs) {
        findings_add(out, "fabric.mtu", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                     "%s does not advertise its maximum frame size (802.3 TLV)",
                     lldp_switch_name(n));
        return;
    }
    if (!r->netdev.mtu) {
        findings_add(out, "fabric.mtu", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                     "the MTU of %s is unknown", r->netdev.name);
        return;
    }
    uint32_t need = r->netdev.mtu + ETH_OVERHEAD + (p->rails.neighbors.vlan ? VLAN_TAG : 0);
    snprintf(want, sizeof(want), ">= %u bytes", need);
    snprintf(got, sizeof(got), "%u bytes", n->mfs);
    if (n->mfs >= need)
        findings_add(out, "fabric.mtu", SEVERITY_OK, r->name, want, got, NULL,
                     "switch port frames up to %u bytes, MTU %u fits", n->mfs, r->netdev.mtu);
    else
        findings_add(out, "fabric.mtu", SEVERITY_ERROR, r->name, want, got,
                     "raise the switch port's MTU, or lower the rail's: the switch drops the "
                     "larger frames, and RDMA retransmits them without an error",
                     "%s port %s frames up to %u bytes, below MTU %u + %u of %s",
                     lldp_switch_name(n), lldp_port_name(n), n->mfs, r->netdev.mtu,
                     need - r->netdev.mtu, r->netdev.name);
}

static void check_vlan(const struct rail *r, const struct policy *p, struct findings *out)
{
    const struct lldp_neighbor *n = lldp_current(&r->lldp);
    uint32_t vid = p->rails.neighbors.vlan;
    char want[32], got[160] = "";
    if (!vid)
        return;
    snprintf(want, sizeof(want), "VLAN %u", vid);
    if (!n->pvid && !n->n_vlans) {
        findings_add(out, "fabric.vlan", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s advertises no VLAN on port %s (802.1 TLVs)", lldp_switch_name(n),
                     lldp_port_name(n));
        return;
    }
    size_t o = 0;
    if (n->pvid)
        o += (size_t)snprintf(got, sizeof(got), "pvid %u", n->pvid);
    for (size_t k = 0; k < n->n_vlans && o < sizeof(got); k++)
        o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%u", o ? " " : "", n->vlans[k]);
    if (lldp_has_vlan(n, (uint16_t)vid))
        findings_add(out, "fabric.vlan", SEVERITY_OK, r->name, want, got, NULL,
                     "VLAN %u is on %s port %s", vid, lldp_switch_name(n), lldp_port_name(n));
    else
        findings_add(out, "fabric.vlan", SEVERITY_ERROR, r->name, want, got,
                     "add the rail's VLAN to the switch port, or fix rails.neighbors.vlan",
                     "VLAN %u is not among %s port %s's VLANs (%s)", vid, lldp_switch_name(n),
                     lldp_port_name(n), got);
}

void check_neighbors(const struct inventory *inv, const struct counter_state *st,
                     const struct policy *p, struct findings *out)
{
    if (p->rails.neighbors.lldp == REQ_IGNORE)
        return;
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        if (!streq(r->link_layer, "Ethernet") && !streq(r->link_layer, "InfiniBand"))
            continue;
        check_neighbor(r, st, p, out);
        if (!lldp_current(&r->lldp))
            continue;
        check_cabling(inv, i, p, out);
        check_mtu(r, p, out);
        check_vlan(r, p, out);
    }
}
