/* SPDX-License-Identifier: ISC */
/* A report's lifetime and its verdicts: report_init() takes what it needs of the policy,
 * the pass fills the sections, report_keep_*() copy what the pass's state says, and
 * report_finish() works out the node's and each rail's verdict once, by findings.h's
 * rules. It reads nothing; rendering is report_json.c's and report_text.c's. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "macro.h"
#include "report.h"
#include "strutil.h"

void report_init(struct report *r, const struct policy *p, const char *policy_source)
{
    memset(r, 0, sizeof(*r));
    strscpy(r->policy_source, policy_source ? policy_source : "", sizeof(r->policy_source));
    r->tuning_mode = p->tuning.mode;
    r->tcp_only = p->rails.expect_count == 0;
    r->gid_family = policy_roce_family(p);
    r->gid_version = p->rails.roce.version;
    r->gid_range = p->rails.roce.subnet;
    r->rx_window = p->checks.module.rx_power_window;
    r->cc_profile = p->rails.cc.profile;
    r->started = now_usec(CLOCK_REALTIME);
    r->verdict = VERDICT_UNKNOWN;
    strscpy(r->verdict_cause, "the check has not finished", sizeof(r->verdict_cause));
}

void report_note_unread(struct report *r, const char *fmt, ...)
{
    char text[sizeof(r->unread[0])];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < r->n_unread; i++)
        if (streq(r->unread[i], text))
            return;
    if (r->n_unread < REPORT_UNREAD_MAX)
        strscpy(r->unread[r->n_unread++], text, sizeof(r->unread[0]));
}

void report_done(struct report *r)
{
    inventory_done(&r->inventory);
    tuning_done(&r->tuning);
    probes_done(&r->probes);
    findings_done(&r->findings);
    free(r->rail_rates);
    free(r->rail_links);
    free(r->rail_verdicts);
    free(r->regressions);
    jobs_done(&r->jobs);
}

static bool links_alloc(struct report *r)
{
    if (!r->rail_links && r->inventory.n_rails)
        r->rail_links = calloc(r->inventory.n_rails, sizeof(*r->rail_links));
    return r->rail_links != NULL;
}

void report_keep_rates(struct report *r, const struct counter_state *st)
{
    free(r->rail_rates);
    r->rail_rates = r->inventory.n_rails ? calloc(r->inventory.n_rails, sizeof(*r->rail_rates)) : NULL;
    if (!r->rail_rates)
        return;
    for (size_t i = 0; i < r->inventory.n_rails; i++) {
        const struct rail_counters *rc = counters_find_const(st, r->inventory.rails[i].name);
        if (rc)
            memcpy(r->rail_rates[i], rc->rates, sizeof(rc->rates));
    }
    if (!links_alloc(r))
        return;
    for (size_t i = 0; i < r->inventory.n_rails; i++) {
        const struct rail_counters *rc = counters_find_const(st, r->inventory.rails[i].name);
        if (rc) {
            r->rail_links[i].symbols = rc->symbols;
            memcpy(r->rail_links[i].link, rc->link, sizeof(rc->link));
            memcpy(r->rail_links[i].lanes, rc->lanes, sizeof(rc->lanes));
            r->rail_links[i].lanes_phy = rc->lanes_phy;
        }
    }
}

void report_keep_links(struct report *r, const struct link_memory *m)
{
    if (!links_alloc(r))
        return;
    for (size_t i = 0; i < r->inventory.n_rails; i++) {
        struct report_link *l = &r->rail_links[i];
        const struct rail_memory *rm = link_memory_find_const(m, r->inventory.rails[i].name);
        l->has_memory = true;
        link_memory_summary(m, r->inventory.rails[i].name, REPORT_LINK_WINDOW, &l->memory);
        l->has_rx_fit = rm && rx_trend_steepest(&rm->rx, m->now_wall, r->rx_window, &l->rx_fit);
    }
}

void report_keep_regressions(struct report *r, const struct baselines *all,
                             const struct probe_run *run)
{
    free(r->regressions);
    r->n_regressions = 0;
    r->regressions = all->n ? calloc(all->n, sizeof(*r->regressions)) : NULL;
    if (!r->regressions)
        return;
    for (size_t i = 0; i < all->n; i++) {
        const struct baseline *b = &all->e[i];
        struct report_regression *g = &r->regressions[r->n_regressions];
        if (run && !baselines_key_probed(run, b->key))
            continue;   /* kept for its return; no run measures it now */
        int n = sscanf(b->key, "%71s %15s %" SCNu32 " @%253s", g->target, g->probe, &g->size, g->peer);
        if (n < 3)
            continue;   /* not a key baselines_fold() writes */
        if (n == 3)
            g->peer[0] = '\0';
        g->ready = b->ready;
        g->degraded = b->degraded;
        g->state = baseline_state(b);
        g->last_ratio = baseline_last_ratio(b);
        r->n_regressions++;
    }
}

static int by_rail_name(const void *a, const void *b, void *inventory)
{
    const struct rail *rails = ((const struct inventory *)inventory)->rails;
    return strcmp(rails[*(const size_t *)a].name, rails[*(const size_t *)b].name);
}

/* The first of the rails sorted by name (order) that is named name, or n. */
static size_t rail_named(const struct inventory *inv, const size_t *order, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(inv->rails[order[mid]].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && streq(inv->rails[order[lo]].name, name) ? lo : n;
}

/* Every rail's verdict in one walk of the findings, each finding's rail found among the
 * rails sorted by name: findings_rail_verdict() for each rail walks them all once a rail. */
static void rail_verdicts(struct report *r)
{
    const struct inventory *inv = &r->inventory;
    size_t n = inv->n_rails;
    free(r->rail_verdicts);
    r->rail_verdicts = NULL;
    if (n == 0)
        return;
    _cleanup_free_ size_t *order = calloc(n, sizeof(*order));
    _cleanup_free_ size_t *count = calloc(n, sizeof(*count));
    _cleanup_free_ enum severity *worst = calloc(n, sizeof(*worst));
    enum verdict *v = calloc(n, sizeof(*v));
    if (!order || !count || !worst || !v) {
        free(v);
        return;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof(*order), by_rail_name, (void *)inv);
    for (size_t i = 0; i < r->findings.n; i++) {
        const struct finding *f = &r->findings.items[i];
        size_t k = f->rail ? rail_named(inv, order, n, f->rail) : n;
        if (k == n)
            continue;
        count[k]++;
        if (f->severity > worst[k])
            worst[k] = f->severity;
    }
    /* Rails of the same name share their findings, as findings_rail_verdict() sees them. */
    for (size_t k = 1; k < n; k++)
        if (streq(inv->rails[order[k]].name, inv->rails[order[k - 1]].name)) {
            count[k] = count[k - 1];
            worst[k] = worst[k - 1];
        }
    for (size_t k = 0; k < n; k++)
        v[order[k]] = findings_verdict_of(worst[k], count[k], r->findings.lost);
    r->rail_verdicts = v;
}

enum verdict report_rail_verdict(const struct report *r, size_t i)
{
    return r->rail_verdicts ? r->rail_verdicts[i]
                            : findings_rail_verdict(&r->findings, r->inventory.rails[i].name);
}

void report_finish(struct report *r)
{
    r->verdict = findings_verdict(&r->findings);
    verdict_cause(&r->findings, r->verdict_cause, sizeof(r->verdict_cause));
    rail_verdicts(r);
    r->finished = now_usec(CLOCK_REALTIME);
}

bool report_latencies_compare(const struct probe_result *results)
{
    const struct probe_result *rdma = &results[PROBE_RDMA_LATENCY], *tcp = &results[PROBE_TCP_LATENCY];
    return rdma->ran && !rdma->error && tcp->ran && !tcp->error;
}
