/* SPDX-License-Identifier: ISC */
/* link.fec and link.ber (checks.h): a rail's FEC mode against what its lane rate needs,
 * and its bit error ratios against the FEC's limit. Thresholds are ratios, turned into
 * rates at the link's speed: a PAM4 link corrects bits all the time, so "more than zero"
 * would alarm forever.
 *   - IEEE 802.3 clause 134 (RS(544,514), "KP4"; 50G and 100G PAM4 lanes: 200GBASE-R,
 *     400GBASE-R, and InfiniBand HDR/NDR) corrects a pre-FEC BER up to 2.4e-4 to a frame
 *     loss ratio under 1.7e-12 (802.3bs/cd's target); clause 91 (RS(528,514), "KR4"; 25G
 *     NRZ lanes: 100GBASE-SR4/CR4/KR4, where it is mandatory) to about 5e-5. NVIDIA's
 *     mlxlink documentation reads "Raw BER" against the same limits.
 *   - The effective (post-FEC) BER a link must keep under is 1e-12 (IBTA, InfiniBand
 *     Architecture Specification vol. 2, Physical Layer; NVIDIA's "Effective Physical
 *     BER" limit); at 400 Gb/s that is 0.4 errors a second. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"

static const char fec_hint[] =
    "set RS-FEC on both ends (ethtool --set-fec IF encoding rs), or let autonegotiation "
    "pick it; the switch port must match";
static const char ber_hint[] =
    "a rising pre-FEC BER is a dirty or damaged fibre or connector, a marginal cable or a "
    "failing module: clean or replace it before the FEC runs out";

/* The mode the driver runs: the active one, else the only one configured. */
static enum fec_mode running(const struct fec_info *f)
{
    if (f->active != FEC_MODE_UNKNOWN)
        return f->active;
    if (f->configured_known && !f->autoneg)
        for (int m = FEC_MODE_OFF; m < FEC_MODES; m++)
            if (f->configured == 1u << m)
                return (enum fec_mode)m;
    return FEC_MODE_UNKNOWN;
}

static void check_mode(const struct rail *r, struct findings *out)
{
    const struct fec_state *f = &r->fec;
    double lane = fec_lane_gbps(r->rate_gbps, r->rate_text);
    enum fec_need need = fec_need_of_lane(lane);
    const char *want = need == FEC_NEED_NONE ? "any" : "rs";
    if (!f->known) {
        findings_add(out, "link.fec", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s: FEC unknown: %s", r->netdev.name, f->why);
        return;
    }
    enum fec_mode m = running(&f->info);
    if (m == FEC_MODE_UNKNOWN) {
        findings_add(out, "link.fec", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s: the driver names no active FEC mode", r->netdev.name);
        return;
    }
    if (lane <= 0) {
        findings_add(out, "link.fec", SEVERITY_UNKNOWN, r->name, want, fec_mode_name(m), NULL,
                     "%s: FEC %s; the lane rate is unknown (rate '%s'), so is the mode it needs",
                     r->netdev.name, fec_mode_name(m), r->rate_text);
        return;
    }
    if (need == FEC_NEED_NONE || m == FEC_MODE_RS) {
        findings_add(out, "link.fec", SEVERITY_OK, r->name, want, fec_mode_name(m), NULL,
                     "%s: FEC %s on %g Gb/s lanes (%s needed)", r->netdev.name,
                     fec_mode_name(m), lane, fec_need_text(need));
        return;
    }
    /* PAM4 lanes do not work without RS(544,514): the link errors or does not come up. A
     * 25G lane without RS-FEC is a warning: 100GBASE-LR4 and some short DACs run without. */
    enum severity sev = need == FEC_NEED_RS_KP4 ? SEVERITY_ERROR : SEVERITY_WARNING;
    findings_add(out, "link.fec", sev, r->name, want, fec_mode_name(m), fec_hint,
                 "%s: FEC %s on %g Gb/s lanes, which need %s", r->netdev.name,
                 fec_mode_name(m), lane, fec_need_text(need));
}

static double limit_of(enum fec_need need, const struct policy *p)
{
    return need == FEC_NEED_RS_KP4 ? p->checks.fec.kp4_limit
         : need == FEC_NEED_RS_KR4 ? p->checks.fec.kr4_limit : 0;
}

static const char *count_name(enum link_rate from)
{
    switch (from) {
    case LINK_RATE_FEC_CORRECTED_BITS: return "corrected bits";
    case LINK_RATE_PHY_CORRECTED_BITS: return "corrected bits (rx_corrected_bits_phy)";
    case LINK_RATE_PHY_SYMBOL_ERR: return "symbol errors after FEC (rx_pcs_symbol_err_phy)";
    case LINK_RATE_FEC_UNCORRECTABLE: return "uncorrectable blocks";
    default: return "?";
    }
}

static void check_ber(const struct rail *r, const struct rail_counters *rc,
                      const struct policy *p, struct findings *out)
{
    double lane = fec_lane_gbps(r->rate_gbps, r->rate_text);
    enum fec_need need = fec_need_of_lane(lane);
    bool rs = r->fec.known && running(&r->fec.info) == FEC_MODE_RS;
    double limit = rs ? limit_of(need, p) : 0, warn = limit * p->checks.fec.pre_fec_margin;
    double post_limit = p->checks.fec.post_fec_ber;
    char want[64], got[64];
    struct link_ber b;
    if (limit > 0)
        snprintf(want, sizeof(want), "pre-FEC <= %.2g, post-FEC <= %.2g", warn, post_limit);
    else
        snprintf(want, sizeof(want), "post-FEC <= %.2g", post_limit);
    link_ber_of(rc ? rc->link : (struct symbol_rate[LINK_RATES]){ 0 }, r->rate_gbps, &b);
    if (!b.pre_present && !b.post_present) {
        findings_add(out, "link.ber", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s: no FEC or PHY error counts: %s", r->netdev.name,
                     !r->fec.known && r->fec.why[0] ? r->fec.why
                     : "the driver gives no corrected bits or symbol errors");
        return;
    }
    if (!b.pre_known && !b.post_known) {
        char totals[160] = "";
        int n = 0;
        if (b.pre_present)
            n = snprintf(totals, sizeof(totals), "%llu %s", (unsigned long long)b.pre.total,
                         count_name(b.pre_from));
        if (b.post_present && n >= 0 && (size_t)n < sizeof(totals))
            snprintf(totals + n, sizeof(totals) - (size_t)n, "%s%llu %s", n ? ", " : "",
                     (unsigned long long)b.post.total, count_name(b.post_from));
        findings_add(out, "link.ber", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s: BER unknown: %s; since the counters' reset: %s", r->netdev.name,
                     rc && rc->note[0] ? rc->note : "a rate needs two samples", totals);
        return;
    }
    enum severity sev = SEVERITY_OK;
    char what[480] = "";
    size_t at = 0;
    if (b.pre_known) {
        if (limit > 0 && b.pre_ber > limit)
            sev = SEVERITY_ERROR;
        else if (limit > 0 && b.pre_ber > warn)
            sev = SEVERITY_WARNING;
        at += (size_t)snprintf(what, sizeof(what), "pre-FEC BER %.2e (%.3g %s/s)", b.pre_ber,
                               b.pre.per_second, count_name(b.pre_from));
        if (limit > 0 && at < sizeof(what))
            at += (size_t)snprintf(what + at, sizeof(what) - at, ", %s's limit %.2g, warning "
                                   "from %.2g", need == FEC_NEED_RS_KP4 ? "RS(544,514)"
                                   : "RS(528,514)", limit, warn);
        else if (at < sizeof(what))
            at += (size_t)snprintf(what + at, sizeof(what) - at, ", no limit: FEC %s",
                                   r->fec.known ? fec_mode_name(running(&r->fec.info))
                                                : "unknown");
    }
    /* The worst lane against the same limit: one bad lane hides in the link's mean. */
    struct lane_ber lb;
    link_lane_ber_of(rc ? rc->lanes : (struct symbol_rate[LINK_LANES]){ 0 },
                     rc && rc->lanes_phy, r, &lb);
    if (lb.n > 1 && !(lb.lane_gbps > 0) && at < sizeof(what))
        at += (size_t)snprintf(what + at, sizeof(what) - at, "%slanes' BERs unknown: %s",
                               at ? "; " : "", lb.why);
    if (lb.worst >= 0 && lb.n > 1 && at < sizeof(what)) {
        double w = lb.ber[lb.worst];
        if (limit > 0 && w > limit)
            sev = SEVERITY_ERROR;
        else if (limit > 0 && w > warn && sev < SEVERITY_WARNING)
            sev = SEVERITY_WARNING;
        at += (size_t)snprintf(what + at, sizeof(what) - at, "%slane %d's pre-FEC BER %.2e, "
                               "the worst of %u", at ? "; " : "", lb.worst, w, lb.n);
    }
    if (b.post_known && at < sizeof(what)) {
        double allowed = fec_errors_per_second(post_limit, r->rate_gbps);
        if (b.post_ber > post_limit)
            sev = SEVERITY_ERROR;
        at += (size_t)snprintf(what + at, sizeof(what) - at,
                               "%spost-FEC BER %.2e (%.3g %s/s; %.2g allows %.3g/s at %g Gb/s)",
                               at ? "; " : "", b.post_ber, b.post.per_second,
                               count_name(b.post_from), post_limit, allowed, r->rate_gbps);
    }
    snprintf(got, sizeof(got), "pre-FEC %s, post-FEC %s",
             b.pre_known ? "" : "unknown", b.post_known ? "" : "unknown");
    if (b.pre_known && b.post_known)
        snprintf(got, sizeof(got), "pre-FEC %.2e, post-FEC %.2e", b.pre_ber, b.post_ber);
    else if (b.pre_known)
        snprintf(got, sizeof(got), "pre-FEC %.2e", b.pre_ber);
    else
        snprintf(got, sizeof(got), "post-FEC %.2e", b.post_ber);
    findings_add(out, "link.ber", sev, r->name, want, got, sev == SEVERITY_OK ? NULL : ber_hint,
                 "%s: %s", r->netdev.name, what);
}

void check_fec(const struct inventory *inv, const struct counter_state *st,
               const struct policy *p, struct findings *out)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        if (!r->fec.read)
            continue;
        check_mode(r, out);
        if (st)
            check_ber(r, counters_find_const(st, r->name), p, out);
    }
}
