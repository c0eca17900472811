/* SPDX-License-Identifier: ISC */
/* The lossless-fabric contract of each Ethernet rail: PFC on the policy priority (and only
 * there), the trust mode, the DSCP -> priority map, ECN, the CNP marking, global pause.
 * What a driver does not expose is 'unknown' with the reason, never an error. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"

static void format_prios(uint8_t mask, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int p = 0; p < QOS_PRIOS && n < len; p++)
        if (mask & (1u << p))
            n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", p);
    if (!buf[0])
        snprintf(buf, len, "none");
}

static bool pfc_unknown(const struct rail *r, const char *check, const char *expected,
                        struct findings *out)
{
    const struct dcb_state *d = &r->qos.dcb;
    if (d->known && d->has_pfc)
        return false;
    findings_add(out, check, SEVERITY_UNKNOWN, r->name, expected, NULL, NULL,
                 "%s: PFC state unknown: %s", r->netdev.name,
                 d->known ? "the driver reports no IEEE PFC configuration" : d->why);
    return true;
}

static void check_pfc(const struct rail *r, const struct policy *p, struct findings *out)
{
    unsigned prio = p->rails.qos.pfc_priority;
    char want[32], got[32];
    snprintf(want, sizeof(want), "priority %u", prio);
    if (pfc_unknown(r, "qos.pfc", want, out))
        return;
    format_prios(r->qos.dcb.pfc_en, got, sizeof(got));
    if (r->qos.dcb.pfc_en & (1u << prio))
        findings_add(out, "qos.pfc", SEVERITY_OK, r->name, want, got, NULL,
                     "%s: PFC on for priority %u", r->netdev.name, prio);
    else
        findings_add(out, "qos.pfc", SEVERITY_ERROR, r->name, want, got,
                     "RoCE traffic on this priority is lossy: 'dcb pfc set dev NETDEV "
                     "prio-pfc N:on' or the vendor's tool (mlnx_qos --pfc)",
                     "%s: PFC is off for priority %u (on: %s)", r->netdev.name, prio, got);
}

static void check_pfc_exclusive(const struct rail *r, const struct policy *p,
                                struct findings *out)
{
    unsigned prio = p->rails.qos.pfc_priority;
    char want[32], got[32];
    if (!p->rails.qos.pfc_exclusive)
        return;
    snprintf(want, sizeof(want), "only %u", prio);
    if (pfc_unknown(r, "qos.pfc_exclusive", want, out))
        return;
    uint8_t others = r->qos.dcb.pfc_en & (uint8_t)~(1u << prio);
    format_prios(r->qos.dcb.pfc_en, got, sizeof(got));
    if (others == 0)
        findings_add(out, "qos.pfc_exclusive", SEVERITY_OK, r->name, want, got, NULL,
                     "%s: no other priority is lossless", r->netdev.name);
    else
        findings_add(out, "qos.pfc_exclusive", SEVERITY_WARNING, r->name, want, got,
                     "every extra lossless priority shares headroom and can spread pause "
                     "storms: turn PFC off on the others",
                     "%s: PFC is also on for other priorities (on: %s)", r->netdev.name, got);
}

static const char *trust_name(enum qos_trust t)
{
    return t == QOS_TRUST_DSCP ? "dscp" : "pcp";
}

static void check_trust(const struct rail *r, const struct policy *p, struct findings *out)
{
    const struct qos_state *q = &r->qos;
    const char *want = trust_name(p->rails.qos.trust);
    const char *from = q->trust_source == TRUST_FROM_SYSFS ? "qos/trust" : "the DCB APP table";
    if (!q->trust[0])
        findings_add(out, "qos.trust", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s: trust mode unknown: %s", r->netdev.name, q->trust_why);
    else if (streq(q->trust, want))
        findings_add(out, "qos.trust", SEVERITY_OK, r->name, want, q->trust, NULL,
                     "%s trusts %s (from %s)", r->netdev.name, q->trust, from);
    else
        findings_add(out, "qos.trust", SEVERITY_ERROR, r->name, want, q->trust,
                     "the NIC classifies by the wrong field, so RoCE lands on the default "
                     "priority: 'dcb app' / 'mlnx_qos --trust'",
                     "%s trusts %s, not %s (from %s)", r->netdev.name, q->trust, want, from);
}

static void check_dscp_map(const struct rail *r, const struct policy *p, struct findings *out)
{
    const struct qos_state *q = &r->qos;
    unsigned dscp = p->rails.qos.dscp, prio = p->rails.qos.pfc_priority;
    char want[48], got[32];
    if (p->rails.qos.trust != QOS_TRUST_DSCP)
        return;
    snprintf(want, sizeof(want), "DSCP %u -> priority %u", dscp, prio);
    if (!q->dcb.known || !q->dcb.has_app_table) {
        findings_add(out, "qos.dscp_map", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s: DSCP map unknown: %s", r->netdev.name,
                     q->dcb.known ? "the driver reports no APP table" : q->dcb.why);
        return;
    }
    int got_prio = qos_dscp_priority(&q->dcb, dscp);
    if (got_prio < 0) {
        findings_add(out, "qos.dscp_map", SEVERITY_UNKNOWN, r->name, want, NULL,
                     "add it: 'dcb app add dev NETDEV dscp-prio DSCP:PRIO'",
                     "%s: the APP table has no entry for DSCP %u; the device's default map "
                     "applies", r->netdev.name, dscp);
        return;
    }
    snprintf(got, sizeof(got), "priority %d", got_prio);
    if ((unsigned)got_prio == prio)
        findings_add(out, "qos.dscp_map", SEVERITY_OK, r->name, want, got, NULL,
                     "%s maps DSCP %u to priority %u", r->netdev.name, dscp, prio);
    else
        findings_add(out, "qos.dscp_map", SEVERITY_ERROR, r->name, want, got,
                     "RoCE packets marked with this DSCP miss the lossless priority: "
                     "'dcb app replace dev NETDEV dscp-prio DSCP:PRIO'",
                     "%s maps DSCP %u to priority %d, not %u", r->netdev.name, dscp, got_prio, prio);
}

static void check_ecn(const struct rail *r, const struct policy *p, struct findings *out)
{
    const struct qos_state *q = &r->qos;
    unsigned prio = p->rails.qos.pfc_priority;
    enum requirement req = p->rails.qos.ecn;
    char want[48], got[48];
    /* DCQCN off by design (rails.cc.profile off): qos.cc judges the switches off. */
    if (req == REQ_IGNORE || p->rails.cc.profile == CC_PROFILE_OFF)
        return;
    snprintf(want, sizeof(want), "np+rp on priority %u", prio);
    if (!q->ecn_known) {
        findings_add(out, "qos.ecn", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s: ECN state unknown: %s", r->netdev.name, q->ecn_why);
        return;
    }
    bool np = q->ecn_np & (1u << prio), rp = q->ecn_rp & (1u << prio);
    snprintf(got, sizeof(got), "np %s, rp %s", np ? "on" : "off", rp ? "on" : "off");
    if (np && rp)
        findings_add(out, "qos.ecn", SEVERITY_OK, r->name, want, got, NULL,
                     "%s: DCQCN (ECN notification and reaction points) on for priority %u",
                     r->netdev.name, prio);
    else
        findings_add(out, "qos.ecn", req == REQ_REQUIRED ? SEVERITY_ERROR : SEVERITY_WARNING,
                     r->name, want, got,
                     "without DCQCN, congestion turns into PFC pauses: echo 1 > "
                     "/sys/class/net/NETDEV/ecn/roce_np/enable/PRIO (and roce_rp)",
                     "%s: ECN is not fully on for priority %u (%s)", r->netdev.name, prio, got);
}

/* The priority CNPs travel on: by the DSCP map under DSCP trust, else by their 802.1p. */
static int cnp_priority(const struct qos_state *q)
{
    if (streq(q->trust, "dscp") && q->cnp_dscp >= 0 && q->dcb.known)
        return qos_dscp_priority(&q->dcb, (unsigned)q->cnp_dscp);
    if (streq(q->trust, "pcp"))
        return q->cnp_802p_prio;
    return -1;
}

static void check_cnp(const struct rail *r, const struct policy *p, struct findings *out)
{
    const struct qos_state *q = &r->qos;
    /* A congestion-control profile that names the CNP's DSCP takes rails.qos.cnp_dscp's place. */
    int64_t profile_dscp = cc_wanted(p->rails.cc.profile, p->rails.cc.params, CC_CNP_DSCP);
    unsigned want_dscp = profile_dscp != CC_UNKNOWN ? (unsigned)profile_dscp : p->rails.qos.cnp_dscp;
    char want[48], got[48];
    snprintf(want, sizeof(want), "DSCP %u, lossy priority", want_dscp);
    if (q->cnp_dscp < 0) {
        findings_add(out, "qos.cnp", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s: the CNP marking is not exposed (no ecn/roce_np/cnp_dscp)",
                     r->netdev.name);
        return;
    }
    int prio = cnp_priority(q);
    if (prio >= 0)
        snprintf(got, sizeof(got), "DSCP %d, priority %d", q->cnp_dscp, prio);
    else
        snprintf(got, sizeof(got), "DSCP %d", q->cnp_dscp);
    bool lossless = prio >= 0 && q->dcb.known && q->dcb.has_pfc && (q->dcb.pfc_en & (1u << prio));
    if (lossless)
        findings_add(out, "qos.cnp", SEVERITY_ERROR, r->name, want, got,
                     "CNPs on a paused priority arrive late or never, and DCQCN stops "
                     "working: map the CNP DSCP to a strict, lossy priority",
                     "%s: CNPs travel on lossless priority %d", r->netdev.name, prio);
    else if ((unsigned)q->cnp_dscp != want_dscp)
        findings_add(out, "qos.cnp", SEVERITY_WARNING, r->name, want, got,
                     "echo DSCP > /sys/class/net/NETDEV/ecn/roce_np/cnp_dscp; the switch's "
                     "CNP queue expects the policy's value",
                     "%s: CNPs are marked DSCP %d, not %u", r->netdev.name, q->cnp_dscp, want_dscp);
    else
        findings_add(out, "qos.cnp", SEVERITY_OK, r->name, want, got, NULL,
                     "%s: CNPs marked DSCP %d%s", r->netdev.name, q->cnp_dscp,
                     prio >= 0 ? ", on a lossy priority" : "");
}

static void check_global_pause(const struct rail *r, struct findings *out)
{
    const struct qos_state *q = &r->qos;
    char got[32];
    if (q->pause_rx < 0 || q->pause_tx < 0) {
        findings_add(out, "qos.global_pause", SEVERITY_UNKNOWN, r->name, "off", NULL, NULL,
                     "%s: global pause unknown: %s", r->netdev.name, q->pause_why);
        return;
    }
    snprintf(got, sizeof(got), "rx %s, tx %s", q->pause_rx ? "on" : "off", q->pause_tx ? "on" : "off");
    if (!q->pause_rx && !q->pause_tx)
        findings_add(out, "qos.global_pause", SEVERITY_OK, r->name, "off", got, NULL,
                     "%s: 802.3x global pause off", r->netdev.name);
    else
        findings_add(out, "qos.global_pause", SEVERITY_WARNING, r->name, "off", got,
                     "global pause stops every priority at once, and PFC needs it off: "
                     "'ethtool -A NETDEV rx off tx off'",
                     "%s: 802.3x global pause is on (%s)", r->netdev.name, got);
}

void check_qos(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        /* InfiniBand is lossless by credit flow control; a RoCE port without a netdev is
         * already an error of netdev.*. */
        if (!streq(r->link_layer, "Ethernet") || !r->netdev.present)
            continue;
        check_pfc(r, p, out);
        check_pfc_exclusive(r, p, out);
        check_trust(r, p, out);
        check_dscp_map(r, p, out);
        check_ecn(r, p, out);
        check_cnp(r, p, out);
        check_global_pause(r, out);
    }
}
