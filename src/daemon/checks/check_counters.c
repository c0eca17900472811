/* SPDX-License-Identifier: ISC */
/* The counter classes and link flaps of each rail, from the rates and the carrier history
 * the counter state keeps. A class whose counters the driver lacks, or a first sample, is
 * 'unknown' with the reason. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"

static double threshold(const struct policy *p, enum counter_class c)
{
    switch (c) {
    case COUNTER_LOSS: return p->checks.counters.loss;
    case COUNTER_CONGESTION: return p->checks.counters.congestion;
    case COUNTER_MISCONFIG: return p->checks.counters.misconfig;
    case COUNTER_STARVATION: return p->checks.counters.starvation;
    case COUNTER_LINK: return p->checks.counters.link;
    case COUNTER_LINK_DOWN: return p->checks.counters.link_down;
    case COUNTER_QP_ERROR: return p->checks.counters.qp_error;
    default: return p->checks.counters.pfc_storm;
    }
}

static const char *const hints[COUNTER_CLASSES] = {
    [COUNTER_LOSS] = "packets are lost and retransmitted: check PFC on the path, the cable "
                     "and the switch's drop counters",
    [COUNTER_CONGESTION] = "heavy congestion: check the job's traffic pattern and the "
                           "switch's ECN thresholds",
    [COUNTER_MISCONFIG] = "CNPs are ignored or pause frames arrive on a priority without PFC: "
                          "the host and the switch disagree on the QoS contract",
    [COUNTER_STARVATION] = "receive buffers ran out: the consumer is too slow, or PFC "
                           "headroom is too small",
    [COUNTER_PFC_STORM] = "the NIC's pause-storm guard fired: a stuck receiver is pausing "
                          "the fabric; find it before it spreads",
    [COUNTER_LINK] = "physical errors on the wire: reseat or replace the cable or "
                     "transceiver, and read the switch port's counters",
    [COUNTER_LINK_DOWN] = "the link went down: every job on the rail lost its connections; "
                          "check the cable, the transceiver and the switch port's log",
    [COUNTER_QP_ERROR] = "work completions end in error: find the job whose QPs fail "
                         "(rdma resource show qp) before it blames the fabric",
};

/* A saturated counter hides its rise: the PMA's PortCounters stop at all ones. */
static const char saturated_hint[] =
    "reset the port's counters (perfquery -R, or perfquery -R -a for every port) so "
    "that they count again";

static enum severity over_severity(enum counter_class c)
{
    return c == COUNTER_PFC_STORM || c == COUNTER_LINK_DOWN ? SEVERITY_ERROR : SEVERITY_WARNING;
}

/* " (the peak of the last 30s; now 0/s)" while a peak is held above the last rate: a
 * burst between two passes stays judged for the check interval, and is not said to go on. */
static void held_text(const struct class_rate *rate, usec_t hold, char *buf, size_t len)
{
    char span[32];
    buf[0] = '\0';
    if (hold == 0 || !(rate->per_second < rate->peak))
        return;
    duration_format(hold, span, sizeof(span));
    snprintf(buf, len, " (the peak of the last %s; now %.3g/s)", span, rate->per_second);
}

static void check_class(const struct rail *r, const struct rail_counters *rc, enum counter_class c,
                        usec_t hold, const struct policy *p, struct findings *out)
{
    char id[48], want[48], got[48], held[80];
    struct class_totals t;
    const struct class_rate *rate = rc ? &rc->rates[c] : NULL;
    double limit = threshold(p, c);
    snprintf(id, sizeof(id), "counters.%s", counter_class_name(c));
    snprintf(want, sizeof(want), "<= %g/s", limit);
    if (!rate || !rate->present) {
        findings_add(out, id, SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "no %s counters on %s", counter_class_name(c),
                     r->driver[0] ? r->driver : "this driver");
        return;
    }
    /* What the counters hold since their last reset: without a rate (one sample, a
     * snapshot) the only word on the past, and a saturated one hides any rise. */
    counter_class_totals(rc->have_last ? &rc->last : NULL, c, &t);
    if (!rate->known) {
        findings_add(out, id, SEVERITY_UNKNOWN, r->name, want, NULL,
                     t.n_saturated ? saturated_hint : NULL, "%s%s%s",
                     rc->note[0] ? rc->note : "no rate yet",
                     t.text[0] ? "; since the last reset: " : "", t.text);
        return;
    }
    snprintf(got, sizeof(got), "%.3g/s", rate->peak);
    held_text(rate, hold, held, sizeof(held));
    if (rate->peak > limit)
        findings_add(out, id, over_severity(c), r->name, want, got, hints[c],
                     "%s at %.3g/s%s%s%s%s", counter_class_name(c), rate->peak, held,
                     rate->peak_top[0] ? ", mostly " : "", rate->peak_top,
                     t.n_saturated ? " (at least: a counter is saturated)" : "");
    else if (t.n_saturated)
        findings_add(out, id, SEVERITY_UNKNOWN, r->name, want, NULL, saturated_hint,
                     "%s rate unknown: %s stopped at its %u-bit maximum, a rise is not seen; "
                     "since the last reset: %s", counter_class_name(c), t.saturated,
                     t.saturated_width, t.text);
    else
        findings_add(out, id, SEVERITY_OK, r->name, want, got, NULL, "%s at %.3g/s%s%s",
                     counter_class_name(c), rate->peak, held,
                     c == COUNTER_CONGESTION ? " (informational)" : "");
}

static void check_flaps(const struct rail *r, const struct counter_state *st,
                        const struct rail_counters *rc, const struct policy *p,
                        struct findings *out)
{
    char want[64], got[64], window[32];
    usec_t span = 0;
    if (!r->netdev.present)
        return;
    duration_format(p->checks.flaps.window, window, sizeof(window));
    snprintf(want, sizeof(want), "<= %u per %s", p->checks.flaps.max, window);
    if (!r->netdev.has_carrier_changes) {
        findings_add(out, "netdev.flaps", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s reports no carrier_changes", r->netdev.name);
        return;
    }
    int64_t changes = counters_carrier_changes(rc, p->checks.flaps.window, &span);
    if (changes < 0 && st->snapshot) {
        findings_add(out, "netdev.flaps", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s: a captured tree is a single sample (%llu carrier changes since boot)", r->netdev.name,
                     (unsigned long long)r->netdev.carrier_changes);
        return;
    }
    if (changes < 0) {
        findings_add(out, "netdev.flaps", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "%s: no earlier carrier sample inside the %s window yet", r->netdev.name,
                     window);
        return;
    }
    char spanned[32];
    snprintf(spanned, sizeof(spanned), "%.0fs", (double)span / (double)USEC_PER_SEC);
    snprintf(got, sizeof(got), "%lld in %s", (long long)changes, spanned);
    if (changes > p->checks.flaps.max)
        findings_add(out, "netdev.flaps", SEVERITY_WARNING, r->name, want, got,
                     "a flapping link stalls every collective: reseat or replace the cable "
                     "or transceiver, and check the switch port's error counters",
                     "%s: %lld carrier changes in %s", r->netdev.name, (long long)changes, spanned);
    else
        findings_add(out, "netdev.flaps", SEVERITY_OK, r->name, want, got, NULL,
                     "%s: %lld carrier changes in %s", r->netdev.name, (long long)changes, spanned);
}

void check_counters(const struct inventory *inv, const struct counter_state *st,
                    const struct policy *p, struct findings *out)
{
    const struct counter_limits lim = counter_limits_of(p);    /* as the folds had them */
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        const struct rail_counters *rc = counters_find_const(st, r->name);
        check_flaps(r, st, rc, p, out);
        for (int c = 0; c < COUNTER_CLASSES; c++)
            check_class(r, rc, (enum counter_class)c, lim.peak_hold, p, out);
    }
}
