/* SPDX-License-Identifier: ISC */
/* link.module: a rail's pluggable module against its own thresholds (SFF-8636 page 03h,
 * CMIS page 02h). A reading past a warning threshold is a warning, past an alarm an error;
 * a latched flag whose reading is back inside is a warning (the excursion happened since
 * the last read). A lane whose Rx power's fit over the trend window falls faster than the
 * policy's dB per window is a warning (model/rx_trend.h). A DAC has no monitors: "not
 * monitored". One finding per rail, the worst reading named. Only rails whose module a
 * source read (live Ethernet rails) get one. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"

struct worst {
    enum severity sev;
    char what[160];
};

/* A value in the unit people read it in: degC, V, mW (with dBm), mA. */
static void value_text(const struct module_info *info, enum module_quantity q, int32_t raw,
                       char *buf, size_t len)
{
    double v = module_value(info, q, raw);
    if (q == MODULE_Q_TEMPERATURE)
        snprintf(buf, len, "%.2f degC", v);
    else if (q == MODULE_Q_VCC)
        snprintf(buf, len, "%.3f V", v);
    else if (q == MODULE_Q_TX_BIAS)
        snprintf(buf, len, "%.3f mA", v * 1e3);
    else if (v > 0)
        snprintf(buf, len, "%.4f mW (%.2f dBm)", v * 1e3, 10 * log10(v * 1e3));
    else
        snprintf(buf, len, "0 mW");
}

static void note(struct worst *w, enum severity sev, const char *what)
{
    if (sev <= w->sev)
        return;
    w->sev = sev;
    snprintf(w->what, sizeof(w->what), "%s", what);
}

static void judge(const struct module_info *info, enum module_quantity q, int lane,
                  const struct module_reading *r, uint8_t flags, struct worst *w)
{
    const struct module_thresholds *t = &info->thresholds[q];
    char where[32] = "", val[48], lim[48], what[160];
    if (!r->valid)
        return;
    if (lane >= 0)
        snprintf(where, sizeof(where), "lane %d ", lane + 1);
    value_text(info, q, r->raw, val, sizeof(val));
    const char *name = module_quantity_name(q);
    if (!t->valid)
        return;
    static const struct {
        bool high, alarm;
        const char *text;
    } limits[] = {
        { true, true, "above its high alarm" }, { false, true, "below its low alarm" },
        { true, false, "above its high warning" }, { false, false, "below its low warning" },
    };
    for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
        int32_t l = limits[i].high ? (limits[i].alarm ? t->high_alarm : t->high_warn)
                                   : (limits[i].alarm ? t->low_alarm : t->low_warn);
        if (limits[i].high ? r->raw > l : r->raw < l) {
            value_text(info, q, l, lim, sizeof(lim));
            snprintf(what, sizeof(what), "%s%s %s is %s %s", where, name, val, limits[i].text,
                     lim);
            note(w, limits[i].alarm ? SEVERITY_ERROR : SEVERITY_WARNING, what);
            return;
        }
    }
    if (!flags)
        return;
    snprintf(what, sizeof(what), "%s%s latched a threshold %s since the last read (now %s)",
             where, name, flags & (MODULE_FLAG_HIGH_ALARM | MODULE_FLAG_LOW_ALARM) ? "alarm"
                                                                                  : "warning",
             val);
    note(w, SEVERITY_WARNING, what);
}

static void judge_module(const struct module_info *info, struct worst *w)
{
    judge(info, MODULE_Q_TEMPERATURE, -1, &info->temperature,
          info->flags_valid[MODULE_Q_TEMPERATURE] ? info->module_flags[0] : 0, w);
    judge(info, MODULE_Q_VCC, -1, &info->vcc,
          info->flags_valid[MODULE_Q_VCC] ? info->module_flags[1] : 0, w);
    for (unsigned l = 0; l < info->lanes && l < MODULE_LANES_MAX; l++) {
        static const enum module_quantity lane_q[] = { MODULE_Q_RX_POWER, MODULE_Q_TX_BIAS,
                                                       MODULE_Q_TX_POWER };
        const struct module_reading *rd[] = { &info->rx_power[l], &info->tx_bias[l],
                                              &info->tx_power[l] };
        for (size_t k = 0; k < ARRAY_SIZE(lane_q); k++)
            judge(info, lane_q[k], (int)l, rd[k],
                  info->flags_valid[lane_q[k]] ? info->lane_flags[lane_q[k]][l] : 0, w);
    }
}

/* The steepest falling lane of the rail's trend, when it falls past the policy's rate. */
static void judge_trend(const struct rail *r, const struct link_memory *links,
                        const struct policy *p, struct worst *w)
{
    const struct rail_memory *rm = links ? link_memory_find_const(links, r->name) : NULL;
    usec_t window = p->checks.module.rx_power_window;
    double fall = p->checks.module.rx_power_fall;
    struct rx_fit f;
    char span[32], per[32], what[160];
    if (!rm || fall <= 0 || !rx_trend_steepest(&rm->rx, links->now_wall, window, &f) ||
        f.db_per_window > -fall)
        return;
    double h = (double)f.span / (double)USEC_PER_HOUR;
    if (h >= 1)
        snprintf(span, sizeof(span), "%.1f h", h);
    else
        snprintf(span, sizeof(span), "%.0f s", (double)f.span / (double)USEC_PER_SEC);
    snprintf(what, sizeof(what), "lane %u Rx power fell %.2f dB in %s (%.2f dB per %s over "
             "%zu samples), now %.2f dBm", f.lane + 1, f.first_dbm - f.last_dbm, span,
             f.db_per_window, duration_format(window, per, sizeof(per)), f.samples, f.last_dbm);
    note(w, SEVERITY_WARNING, what);
}

static bool any_thresholds(const struct module_info *info)
{
    for (int q = 0; q < MODULE_QUANTITIES; q++)
        if (info->thresholds[q].valid)
            return true;
    return false;
}

static void check_one(const struct rail *r, const struct link_memory *links,
                      const struct policy *p, struct findings *out)
{
    const struct module_state *m = &r->module;
    const struct module_info *info = &m->info;
    char id[8], who[96];
    if (!m->known) {
        findings_add(out, "link.module", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                     "%s: module not read: %s", r->netdev.name, m->why);
        return;
    }
    snprintf(who, sizeof(who), "%s %s %s (%s)", module_identifier_name(info->identifier, id),
             info->vendor, info->part, module_media_name(info->media));
    if (!info->monitored) {
        findings_add(out, "link.module", SEVERITY_OK, r->name, NULL, "not monitored", NULL,
                     "%s: not monitored (%s)", who,
                     info->media == MODULE_MEDIA_DAC ? "passive copper has no monitors"
                                                     : "the module implements no monitor");
        return;
    }
    struct worst w = { .sev = SEVERITY_OK };
    if (any_thresholds(info))
        judge_module(info, &w);
    judge_trend(r, links, p, &w);
    if (!any_thresholds(info) && w.sev == SEVERITY_OK) {
        findings_add(out, "link.module", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                     "%s: the module gives no thresholds to judge its readings by", who);
        return;
    }
    if (w.sev == SEVERITY_OK)
        findings_add(out, "link.module", SEVERITY_OK, r->name, "within the module's thresholds",
                     "within", NULL, "%s: every reading within the module's thresholds", who);
    else
        findings_add(out, "link.module", w.sev, r->name, "within the module's thresholds",
                     w.what,
                     "a falling Rx power is a dirty or damaged fibre or connector, or a failing "
                     "far-end laser; a hot module, its airflow; reseat or replace the module",
                     "%s: %s", who, w.what);
}

void check_module(const struct inventory *inv, const struct link_memory *links,
                  const struct policy *p, struct findings *out)
{
    for (size_t i = 0; i < inv->n_rails; i++)
        if (inv->rails[i].module.read)
            check_one(&inv->rails[i], links, p, out);
}
