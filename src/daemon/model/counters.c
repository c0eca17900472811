/* SPDX-License-Identifier: ISC */
/* Counter rates between samples, peaks, the carrier history, and the state that keeps
 * them between passes. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "fec.h"
#include "grow.h"
#include "inventory.h"
#include "macro.h"
#include "strutil.h"

struct rail_counters *counters_find(struct counter_state *st, const char *rail)
{
    for (size_t i = 0; i < st->n; i++)
        if (streq(st->rails[i].rail, rail))
            return &st->rails[i];
    return NULL;
}

const struct rail_counters *counters_find_const(const struct counter_state *st, const char *rail)
{
    return counters_find((struct counter_state *)st, rail);
}

static int rail_add(struct counter_state *st, const char *rail, struct rail_counters **ret)
{
    int r = GROW_ARRAY(st->rails, st->cap, st->n + 1, COUNTER_MAX_RAILS);
    if (r < 0)
        return r;
    struct rail_counters *rc = &st->rails[st->n++];
    memset(rc, 0, sizeof(*rc));
    strscpy(rc->rail, rail, sizeof(rc->rail));
    *ret = rc;
    return 0;
}

/* The counter of that name from that directory: a port counter (counters/) and a driver
 * counter (hw_counters/) may share a name, and are two counters. */
static const struct counter_value *find_value(const struct counter_sample *s, const char *name,
                                              bool pma)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->values[i].pma == pma && streq(s->values[i].name, name))
            return &s->values[i];
    return NULL;
}

static void compute_rates(struct rail_counters *rc, const struct counter_sample *s, usec_t hold,
                          double link_limit)
{
    const struct counter_sample *prev = &rc->last;
    double dt = (double)(s->taken - prev->taken) / (double)USEC_PER_SEC;
    uint64_t top_delta[COUNTER_CLASSES] = { 0 };
    double sum[COUNTER_CLASSES] = { 0 };
    for (size_t i = 0; i < s->n; i++) {
        enum counter_class c = counter_value_class(&s->values[i], s);
        const struct counter_value *old = find_value(prev, s->values[i].name, s->values[i].pma);
        if (c == COUNTER_UNCLASSIFIED || !old)
            continue;
        /* Gone back: reset (perfquery -R, a driver reload) or wrapped within the
         * interval. What it holds now rose since then: a lower bound, never lost. */
        bool reset = s->values[i].value < old->value;
        rc->resets += reset;
        uint64_t delta = s->values[i].value - (reset ? 0 : old->value);
        sum[c] += (double)delta;
        if (delta > top_delta[c]) {
            top_delta[c] = delta;
            strscpy(rc->rates[c].top, s->values[i].name, sizeof(rc->rates[c].top));
        }
    }
    for (int c = 0; c < COUNTER_CLASSES; c++) {
        struct class_rate *r = &rc->rates[c];
        if (!r->present)
            continue;
        r->known = true;
        r->per_second = sum[c] / dt;
        if (c == COUNTER_LINK && r->per_second > link_limit)
            rc->link_over_at = s->taken;
        else if (c == COUNTER_LINK)
            rc->link_under_at = s->taken;
        /* A burst stays visible for the hold time, whatever checks run meanwhile. */
        if (r->per_second >= r->peak || s->taken - r->peak_at > hold) {
            r->peak = r->per_second;
            r->peak_at = s->taken;
            strscpy(r->peak_top, top_delta[c] ? r->top : "", sizeof(r->peak_top));
        }
        if (!top_delta[c])
            r->top[0] = '\0';
    }
}

#define SYMBOL_ERRORS "symbol_error"

static const struct counter_value *symbol_errors(const struct counter_sample *s)
{
    const struct counter_value *v = find_value(s, SYMBOL_ERRORS, true);
    return v && v->pma ? v : NULL;
}

const char *link_rate_counter(enum link_rate r)
{
    static const char *const names[LINK_RATES] = {
        [LINK_RATE_FEC_CORRECTED_BITS] = "fec:corrected_bits",
        [LINK_RATE_FEC_UNCORRECTABLE] = "fec:uncorrectable",
        [LINK_RATE_PHY_CORRECTED_BITS] = "ethtool:rx_corrected_bits_phy",
        [LINK_RATE_PHY_SYMBOL_ERR] = "ethtool:rx_pcs_symbol_err_phy",
    };
    return (unsigned)r < LINK_RATES ? names[r] : "?";
}

static void ber_from(const struct symbol_rate link[LINK_RATES], enum link_rate first,
                     enum link_rate second, double rate_gbps, bool *present,
                     enum link_rate *from, struct symbol_rate *y, bool *known, double *ber)
{
    *from = link[first].present ? first : second;
    *present = link[*from].present;
    *y = link[*from];
    *known = false;
    *ber = 0;
    if (!*present || !y->known)
        return;
    double b = fec_ber(y->per_second, rate_gbps);
    *known = b >= 0;
    *ber = *known ? b : 0;
}

void link_ber_of(const struct symbol_rate link[LINK_RATES], double rate_gbps, struct link_ber *b)
{
    memset(b, 0, sizeof(*b));
    ber_from(link, LINK_RATE_FEC_CORRECTED_BITS, LINK_RATE_PHY_CORRECTED_BITS, rate_gbps,
             &b->pre_present, &b->pre_from, &b->pre, &b->pre_known, &b->pre_ber);
    ber_from(link, LINK_RATE_PHY_SYMBOL_ERR, LINK_RATE_FEC_UNCORRECTABLE, rate_gbps,
             &b->post_present, &b->post_from, &b->post, &b->post_known, &b->post_ber);
}

/* Before the sample becomes the last: the rate of NOW against OLD (the previous sample's),
 * where both have the counter and it is not stopped at its maximum (a PMA counter: its
 * 0/s would say a link is clean whatever it does); one that went back (a reset, a wrap)
 * rose by what it holds now at least. */
static void value_rate(const struct rail_counters *rc, const struct counter_sample *s,
                       const struct counter_value *now, const struct counter_value *old,
                       struct symbol_rate *y)
{
    memset(y, 0, sizeof(*y));
    if (!now)
        return;
    y->present = true;
    y->total = now->value;
    y->saturated = counter_saturated(now);
    if (!old || s->taken <= rc->last.taken || y->saturated)
        return;
    y->known = true;
    y->over = s->taken - rc->last.taken;
    /* A reset within the interval: the count since it is the rise (a lower bound). */
    uint64_t rise = now->value - (now->value < old->value ? 0 : old->value);
    y->per_second = (double)rise / ((double)y->over / (double)USEC_PER_SEC);
}

static void symbol_rate(struct rail_counters *rc, const struct counter_sample *s)
{
    char name[COUNTER_NAME_MAX];
    value_rate(rc, s, symbol_errors(s), rc->have_last ? symbol_errors(&rc->last) : NULL,
               &rc->symbols);
    for (int i = 0; i < LINK_RATES; i++) {
        const char *n = link_rate_counter(i);       /* FEC_GET's and ethtool's: not PMA */
        value_rate(rc, s, find_value(s, n, false),
                   rc->have_last ? find_value(&rc->last, n, false) : NULL, &rc->link[i]);
    }
    /* Per lane, FEC_GET's count where the sample has lane 0's, else the PHY's. */
    bool phy = !find_value(s, link_lane_counter(0, false, name, sizeof(name)), false);
    rc->lanes_phy = phy;
    for (unsigned l = 0; l < LINK_LANES; l++) {
        link_lane_counter(l, phy, name, sizeof(name));
        value_rate(rc, s, find_value(s, name, false),
                   rc->have_last ? find_value(&rc->last, name, false) : NULL, &rc->lanes[l]);
    }
}

const char *link_lane_counter(unsigned lane, bool phy, char *buf, size_t len)
{
    if (phy)
        snprintf(buf, len, "ethtool:rx_err_lane_%u_phy", lane);
    else
        snprintf(buf, len, "fec:corrected_bits:lane%u", lane);
    return buf;
}

static unsigned lanes_counted(const struct symbol_rate lanes[LINK_LANES])
{
    unsigned n = 0;
    while (n < LINK_LANES && lanes[n].present)
        n++;
    return n;
}

double link_lane_gbps(const struct rail *r, const struct symbol_rate lanes[LINK_LANES],
                      bool lanes_phy, const char **why)
{
    unsigned n = lanes_counted(lanes);
    *why = NULL;
    if (!(r->rate_gbps > 0)) {
        *why = "the link's rate is unknown";
        return 0;
    }
    if (streq(r->link_layer, "InfiniBand")) {
        double lane = fec_lane_gbps(r->rate_gbps, r->rate_text);
        if (!(lane > 0))
            *why = "the port's rate names no link width";
        return lane;
    }
    if (streq(r->link_layer, "Ethernet") && n > 0 && !lanes_phy)
        return r->rate_gbps / n;
    *why = streq(r->link_layer, "Ethernet")
        ? "the Ethernet link's lane count is unknown (mlx5's per-lane PHY counts are a fixed "
          "set, and the RDMA port's rate width is no lane count on Ethernet)"
        : "the link's lane count is unknown";
    return 0;
}

void link_lane_ber_of(const struct symbol_rate lanes[LINK_LANES], bool lanes_phy,
                      const struct rail *r, struct lane_ber *b)
{
    memset(b, 0, sizeof(*b));
    b->worst = -1;
    b->n = lanes_counted(lanes);
    if (b->n == 0)
        return;
    b->lane_gbps = link_lane_gbps(r, lanes, lanes_phy, &b->why);
    for (unsigned l = 0; l < b->n && b->lane_gbps > 0; l++) {
        double v = lanes[l].known ? fec_ber(lanes[l].per_second, b->lane_gbps) : -1;
        b->known[l] = v >= 0;
        b->ber[l] = b->known[l] ? v : 0;
        if (b->known[l] && (b->worst < 0 || v > b->ber[b->worst]))
            b->worst = (int)l;
    }
}

static void add_carrier_mark(struct rail_counters *rc, usec_t at, uint64_t changes, usec_t spacing)
{
    if (rc->n_carrier && (changes < rc->carrier[rc->n_carrier - 1].changes ||
                          at < rc->carrier[rc->n_carrier - 1].at))
        rc->n_carrier = 0;      /* the counter restarted: the history no longer adds up */
    /* Keep the latest mark current, but space the kept ones so the history spans the
     * window whatever the sampling rate. */
    if (rc->n_carrier >= 2 && at - rc->carrier[rc->n_carrier - 2].at < spacing)
        rc->n_carrier--;
    if (rc->n_carrier == CARRIER_HISTORY) {
        memmove(rc->carrier, rc->carrier + 1, (CARRIER_HISTORY - 1) * sizeof(rc->carrier[0]));
        rc->n_carrier--;
    }
    rc->carrier[rc->n_carrier++] = (struct carrier_mark){ .at = at, .changes = changes };
}

/* The traffic between the last sample and S, and whether the rail stayed quiet. */
static void traffic_rate(const struct counter_state *st, double busy_bps,
                         struct rail_counters *rc, const struct counter_sample *s)
{
    const struct counter_sample *o = &rc->last;
    if (!s->has_bytes || !rc->have_last || !o->has_bytes || s->taken <= o->taken ||
        s->rx_bytes < o->rx_bytes || s->tx_bytes < o->tx_bytes) {
        rc->traffic_known = false;      /* first sample, a reset, or no byte counters */
        rc->traffic_judged = false;
        rc->quiet_since = 0;
        return;
    }
    uint64_t rx = s->rx_bytes - o->rx_bytes, tx = s->tx_bytes - o->tx_bytes;
    rc->traffic_known = true;
    rc->traffic_bps = (double)(rx > tx ? rx : tx) * 8 / ((double)(s->taken - o->taken) / USEC_PER_SEC);
    if (o->taken <= st->own_traffic_until)
        return;                         /* the daemon's own probes ran within: not judged */
    rc->traffic_judged = true;
    if (rc->traffic_bps >= busy_bps) {
        rc->quiet_since = 0;
        rc->busy_bps = rc->traffic_bps;
    }
    else if (!rc->quiet_since)
        rc->quiet_since = o->taken;
}

struct counter_limits counter_limits_of(const struct policy *p)
{
    return (struct counter_limits) {
        .peak_hold = p->checks.interval,
        .busy_bps = p->probes.defer.busy_gbps * 1e9,
        .link_limit = p->checks.counters.link,
    };
}

int counters_fold(struct counter_state *st, const struct counter_limits *lim,
                  const char *boot_id, const char *rail, const struct counter_sample *s,
                  bool has_carrier, uint64_t carrier_changes, usec_t carrier_window)
{
    if (!streq(st->boot_id, boot_id)) {
        bool rebooted = st->boot_id[0] != '\0';
        for (size_t i = 0; i < st->n; i++) {
            counter_sample_done(&st->rails[i].last);
            st->rails[i].have_last = false;
            st->rails[i].n_carrier = 0;
            /* Another boot's CLOCK_BOOTTIME dates nothing in this one. */
            st->rails[i].link_over_at = st->rails[i].link_under_at = 0;
            for (int c = 0; c < COUNTER_CLASSES; c++) {
                st->rails[i].rates[c].peak = 0;
                st->rails[i].rates[c].peak_at = 0;
                st->rails[i].rates[c].peak_top[0] = '\0';
            }
            if (rebooted)
                snprintf(st->rails[i].note, sizeof(st->rails[i].note),
                         "the node rebooted since the last sample; rates need two from this boot");
        }
        strscpy(st->boot_id, boot_id, sizeof(st->boot_id));
    }
    struct rail_counters *rc = counters_find(st, rail);
    int r = rc ? 0 : rail_add(st, rail, &rc);
    if (r < 0)
        return r;
    /* Two folders sample: the event loop's counters timer and the check passes, whose
     * sample is as old as the pass's start. One older than the latest is stale: taken
     * back, it made the rates and the carrier history go back in time (the history
     * restarted, and a flap before it was lost). */
    if (rc->have_last && s->taken < rc->last.taken)
        return 0;
    for (int c = 0; c < COUNTER_CLASSES; c++) {
        rc->rates[c].present = rc->rates[c].known = false;
        rc->rates[c].per_second = 0;
        rc->rates[c].total = 0;
    }
    for (size_t i = 0; i < s->n; i++) {
        enum counter_class c = counter_value_class(&s->values[i], s);
        if (c == COUNTER_UNCLASSIFIED)
            continue;
        rc->rates[c].present = true;
        rc->rates[c].total += s->values[i].value;
    }
    symbol_rate(rc, s);
    traffic_rate(st, lim->busy_bps, rc, s);
    if (rc->have_last && s->taken > rc->last.taken) {
        compute_rates(rc, s, lim->peak_hold, lim->link_limit);
        rc->note[0] = '\0';
    } else if (rc->have_last) {
        snprintf(rc->note, sizeof(rc->note), "no time passed since the last sample");
    } else if (!rc->note[0]) {
        snprintf(rc->note, sizeof(rc->note), "%s; rates need two",
                 st->snapshot ? "a captured tree is a single sample" : "first sample");
    }
    r = counter_sample_copy(&rc->last, s);
    if (r < 0)
        return r;
    rc->have_last = true;
    if (has_carrier)
        add_carrier_mark(rc, rc->last.taken, carrier_changes, carrier_window / (CARRIER_HISTORY / 2));
    return 0;
}

int64_t counters_carrier_changes(const struct rail_counters *rc, usec_t window, usec_t *span)
{
    if (!rc || rc->n_carrier < 2)
        return -1;
    const struct carrier_mark *latest = &rc->carrier[rc->n_carrier - 1];
    size_t oldest = rc->n_carrier - 1;
    while (oldest > 0 && latest->at - rc->carrier[oldest - 1].at <= window)
        oldest--;
    if (oldest == rc->n_carrier - 1)
        return -1;              /* every earlier mark is older than the window */
    *span = latest->at - rc->carrier[oldest].at;
    return (int64_t)(latest->changes - rc->carrier[oldest].changes);
}

int counters_copy(const struct counter_state *from, struct counter_state *to)
{
    *to = *from;
    to->rails = NULL;
    to->n = to->cap = 0;
    if (!from->n)
        return 0;
    if (!(to->rails = calloc(from->n, sizeof(*to->rails))))
        return -ENOMEM;
    to->cap = from->n;
    for (size_t i = 0; i < from->n; i++, to->n++) {
        to->rails[i] = from->rails[i];
        memset(&to->rails[i].last, 0, sizeof(to->rails[i].last));
        if (counter_sample_copy(&to->rails[i].last, &from->rails[i].last) < 0) {
            counters_done(to);
            return -ENOMEM;
        }
    }
    return 0;
}

void counters_done(struct counter_state *st)
{
    for (size_t i = 0; i < st->n; i++)
        counter_sample_done(&st->rails[i].last);
    free(st->rails);
    memset(st, 0, sizeof(*st));
}

/* Rails that are no longer in the inventory leave the state: it stays the size of the
 * node, whatever an old or hostile state file held. */
static void prune(struct counter_state *st, const struct inventory *inv)
{
    size_t kept = 0;
    for (size_t i = 0; i < st->n; i++) {
        bool present = false;
        for (size_t j = 0; j < inv->n_rails && !present; j++)
            present = streq(st->rails[i].rail, inv->rails[j].name);
        if (present)
            st->rails[kept++] = st->rails[i];
        else
            counter_sample_done(&st->rails[i].last);
    }
    st->n = kept;
}

int counters_fold_inventory(struct counter_state *st, const struct counter_limits *lim,
                            const char *boot_id, const struct inventory *inv,
                            usec_t carrier_window)
{
    prune(st, inv);
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        int err = counters_fold(st, lim, boot_id, r->name, &r->counters, r->netdev.has_carrier_changes,
                                r->netdev.carrier_changes, carrier_window);
        if (err < 0)
            return err;
    }
    return 0;
}
