/* SPDX-License-Identifier: ISC */
/* Rx power trends (rx_trend.h): a bounded ring of samples and a least-squares fit per lane. */
#include "config.h"

#include "rx_trend.h"

#include <math.h>
#include <string.h>

#include "macro.h"
#include "strutil.h"

double rx_raw_dbm(uint32_t raw)
{
    return 10.0 * log10((double)raw * 1e-4);        /* 0.1 uW = 1e-4 mW */
}

static void drop_front(struct rx_trend *t, size_t k)
{
    if (k == 0)
        return;
    memmove(t->samples, t->samples + k, (t->n - k) * sizeof(t->samples[0]));
    t->n -= k;
}

/* Keeps the samples dated within (NOW - WINDOW, NOW]. */
static void expire(struct rx_trend *t, usec_t now, usec_t window)
{
    size_t k = 0;
    if (t->n > 0 && t->samples[t->n - 1].wall > now) {
        t->n = 0;                                   /* the clock went back */
        return;
    }
    while (k < t->n && now - t->samples[k].wall > window)
        k++;
    drop_front(t, k);
}

void rx_trend_add(struct rx_trend *t, const struct module_info *info, usec_t now,
                  usec_t window)
{
    struct rx_sample s = { .wall = now };
    if (!streq(t->serial, info->serial)) {
        t->n = 0;
        strscpy(t->serial, info->serial, sizeof(t->serial));
    }
    expire(t, now, window);
    for (unsigned l = 0; l < info->lanes && l < MODULE_LANES_MAX; l++)
        if (info->rx_power[l].valid && info->rx_power[l].raw > 0) {
            s.valid |= (uint8_t)(1u << l);
            s.rx[l] = (uint32_t)info->rx_power[l].raw;
        }
    if (!s.valid)
        return;
    usec_t spacing = window / (RX_TREND_SAMPLES - 1);
    if (t->n > 0 && now - t->samples[t->n - 1].wall < spacing)
        return;
    if (t->n == RX_TREND_SAMPLES)
        drop_front(t, 1);
    t->samples[t->n++] = s;
}

/* Lane L's least-squares line over the samples within WINDOW: false when too few. */
static bool fit_lane(const struct rx_trend *t, unsigned l, usec_t now, usec_t window,
                     struct rx_fit *ret)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, x0 = 0, x1 = 0;
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++) {
        const struct rx_sample *s = &t->samples[i];
        if (!(s->valid & (1u << l)) || s->wall > now || now - s->wall > window)
            continue;
        /* Seconds from the ring's first sample: small numbers keep the sums exact. */
        double x = (double)(s->wall - t->samples[0].wall) / USEC_PER_SEC;
        if (n == 0)
            x0 = x;
        double y = rx_raw_dbm(s->rx[l]);
        sx += x, sy += y, sxx += x * x, sxy += x * y, x1 = x;
        n++;
    }
    double span = x1 - x0;
    if (n < RX_TREND_MIN_SAMPLES || span * USEC_PER_SEC < (double)(window / RX_TREND_MIN_SPAN_DIVISOR))
        return false;
    double d = (double)n * sxx - sx * sx;
    if (d <= 0)
        return false;
    double slope = ((double)n * sxy - sx * sy) / d;         /* dB per second */
    double intercept = (sy - slope * sx) / (double)n;
    *ret = (struct rx_fit){
        .lane = l,
        .samples = n,
        .span = (usec_t)(span * USEC_PER_SEC),
        .db_per_window = slope * ((double)window / USEC_PER_SEC),
        .first_dbm = intercept + slope * x0,
        .last_dbm = intercept + slope * x1,
    };
    return true;
}

bool rx_trend_steepest(const struct rx_trend *t, usec_t now, usec_t window, struct rx_fit *ret)
{
    bool any = false;
    struct rx_fit f;
    for (unsigned l = 0; l < MODULE_LANES_MAX; l++)
        if (fit_lane(t, l, now, window, &f) && (!any || f.db_per_window < ret->db_per_window)) {
            *ret = f;
            any = true;
        }
    return any;
}
