/* SPDX-License-Identifier: ISC */
/* Probe baselines: learned from the first healthy runs, then a per-probe state machine. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "grow.h"
#include "macro.h"
#include "strutil.h"

static double median(const double *v, size_t n)
{
    double *c = malloc(n * sizeof(*c));
    struct stats s;
    if (!c)
        return v[n / 2];
    memcpy(c, v, n * sizeof(*c));
    stats_compute(c, n, &s);
    free(c);
    return s.p50;
}

/* Appends x to the series v of *n values, at most max: the oldest goes first. */
static void push(double *v, uint32_t *n, uint32_t max, double x)
{
    if (*n >= max) {
        memmove(v, v + 1, (max - 1) * sizeof(*v));
        *n = max - 1;
    }
    v[(*n)++] = x;
}

static double largest(const double *v, uint32_t n)
{
    double m = 0;
    for (uint32_t i = 0; i < n; i++)
        m = fmax(m, v[i]);
    return m;
}

/* A run's bounds and the median p99 of the last runs, its own among them (baseline.h). */
struct judgement {
    double bound_p50, bound_p99, pooled_p99;
};

/* The run's judgement, without recording it: returns bad. */
static bool judge(struct baseline *b, const struct stats *s, const struct baseline_rule *rule,
                  struct judgement *j)
{
    uint32_t k = rule->consecutive < 1 ? 1 : rule->consecutive;
    if (k > BASELINE_POOL)
        k = BASELINE_POOL;
    if (b->n_recent == 0)       /* a state file of before the window: its one figure */
        push(b->recent_p99, &b->n_recent, BASELINE_RECENT, b->p99);
    /* The last k - 1 pooled p99s and this run's. */
    double last[BASELINE_POOL];
    uint32_t n = b->n_pool < k - 1 ? b->n_pool : k - 1;
    memcpy(last, b->pool_p99 + b->n_pool - n, n * sizeof(*last));
    last[n++] = s->p99;
    j->pooled_p99 = median(last, n);
    j->bound_p50 = fmax(b->p50 * rule->ratio, b->p50 + rule->min_excess);
    j->bound_p99 = fmax(largest(b->recent_p99, b->n_recent) * rule->ratio,
                        b->p99 + rule->min_excess);
    return s->p50 > j->bound_p50 || (s->p99 > j->bound_p99 && j->pooled_p99 > j->bound_p99);
}

/* Whether the run's CPU wait beyond the usual could account for each of its figures over
 * the bounds J it was judged by (baseline.h); *excess: that wait. */
static bool wait_explains(const struct baseline *b, const struct stats *s, double cpu_wait,
                          const struct judgement *j, double *excess)
{
    if (isnan(cpu_wait) || b->n_recent_wait == 0 || s->n == 0)
        return false;
    *excess = cpu_wait - median(b->recent_wait, b->n_recent_wait) * (double)s->n;
    double need = 0;
    if (s->p50 > j->bound_p50)
        need = fmax(need, (double)s->n * (s->p50 - b->p50));
    if (s->p99 > j->bound_p99 && j->pooled_p99 > j->bound_p99)
        need = fmax(need, 0.02 * (double)s->n * (s->p99 - b->p50));
    return need > 0 && *excess >= need;
}

/* A healthy run's CPU wait per sample, into the usual (recent_wait), when the kernel gave it. */
static void keep_wait(struct baseline *b, const struct stats *s, double cpu_wait)
{
    if (!isnan(cpu_wait) && s->n > 0)
        push(b->recent_wait, &b->n_recent_wait, BASELINE_RECENT, cpu_wait / (double)s->n);
}

bool baseline_update(struct baseline *b, const struct stats *s, const struct baseline_rule *rule)
{
    return baseline_update_waited(b, s, NAN, rule);
}

bool baseline_update_waited(struct baseline *b, const struct stats *s, double cpu_wait,
                            const struct baseline_rule *rule)
{
    b->last_unjudged = false;
    uint32_t runs = rule->runs > BASELINE_MAX_RUNS ? BASELINE_MAX_RUNS : rule->runs;
    b->last_p50 = s->p50;
    b->last_p99 = s->p99;
    if (!b->ready) {
        /* n_learned comes from a state file too: never past the array. */
        if (b->n_learned < BASELINE_MAX_RUNS) {
            b->learned_p50[b->n_learned] = s->p50;
            b->learned_p99[b->n_learned] = s->p99;
            b->n_learned++;
        }
        push(b->recent_p99, &b->n_recent, BASELINE_RECENT, s->p99);
        push(b->pool_p99, &b->n_pool, BASELINE_POOL, s->p99);
        keep_wait(b, s, cpu_wait);
        if (b->n_learned >= runs) {
            /* Medians: one noisy learning run cannot skew the baseline. */
            b->p50 = median(b->learned_p50, b->n_learned);
            b->p99 = median(b->learned_p99, b->n_learned);
            b->ready = true;
        }
        b->last_bad = false;
        return b->degraded;
    }
    struct judgement j;
    bool bad = judge(b, s, rule, &j);
    double excess;
    if (bad && wait_explains(b, s, cpu_wait, &j, &excess)) {
        /* The node's scheduler, not the path: shown, but no series or streak takes it. */
        b->last_unjudged = true;
        b->last_excess_wait = excess;
        return b->degraded;
    }
    push(b->pool_p99, &b->n_pool, BASELINE_POOL, s->p99);
    b->bound_p50 = j.bound_p50;
    b->bound_p99 = j.bound_p99;
    b->pooled_p99 = j.pooled_p99;
    b->last_bad = bad;
    if (b->last_bad) {
        b->good_streak = 0;
        if (++b->bad_streak >= rule->consecutive)
            b->degraded = true;
    } else {
        /* Only a tail within its bound is the path's noise: a spike that the pool
         * forgave must not raise the bound that the next runs meet. */
        if (s->p99 <= b->bound_p99) {
            push(b->recent_p99, &b->n_recent, BASELINE_RECENT, s->p99);
            keep_wait(b, s, cpu_wait);
        }
        b->bad_streak = 0;
        if (++b->good_streak >= rule->consecutive)
            b->degraded = false;
    }
    return b->degraded;
}

enum baseline_state baseline_state(const struct baseline *b)
{
    if (!b->ready)
        return BASELINE_LEARNING;
    if (b->degraded)
        return b->good_streak > 0 ? BASELINE_RECOVERING : BASELINE_REGRESSED;
    return b->bad_streak > 0 ? BASELINE_SUSPECT : BASELINE_OK;
}

const char *baseline_state_name(enum baseline_state s)
{
    static const char *const names[] = {
        [BASELINE_LEARNING] = "learning", [BASELINE_OK] = "ok", [BASELINE_SUSPECT] = "suspect",
        [BASELINE_REGRESSED] = "regressed", [BASELINE_RECOVERING] = "recovering",
    };
    return (size_t)s < ARRAY_SIZE(names) ? names[s] : "?";
}

double baseline_last_ratio(const struct baseline *b)
{
    if (!b->ready || b->p50 <= 0 || b->p99 <= 0 || (b->last_p50 <= 0 && b->last_p99 <= 0))
        return NAN;
    return fmax(b->last_p50 / b->p50, b->last_p99 / b->p99);
}

/* The size the run's ping-pong had: its plan's, not the policy's now (a reload while the
 * run went may have changed probes.*.size, and the run's figures are of the old size). */
static uint32_t ping_pong_size(const struct probe_run *run, enum probe_transport t)
{
    return t == PROBE_RDMA ? run->rdma.size : run->tcp.size;
}

/* A successful latency result into the baseline of KEY, judged by the transport's rule. */
static void fold_latency(struct baselines *all, const char *key, const struct probe_result *res,
                         const struct policy *p, enum probe_transport t)
{
    if (!res->ran || res->error || res->deferred[0])
        return;                 /* not run, or an earlier run's figure, carried (stale) */
    struct baseline *b = baselines_get(all, key);
    const struct baseline_rule rule = {
        .runs = p->probes.regression.baseline_runs, .ratio = p->probes.regression.ratio,
        .consecutive = p->probes.regression.consecutive,
        .min_excess = (t == PROBE_RDMA ? p->probes.regression.rdma_min_excess_us
                                       : p->probes.regression.tcp_min_excess_us) / 1e6,
    };
    if (b)
        baseline_update_waited(b, &res->latency, res->cpu_wait_seconds, &rule);
}

/* "TARGET PROBE SIZE", or for a path to a neighbour "RAIL PROBE SIZE @PEER" (PEER non-NULL). */
static void baseline_key(const struct probe_run *run, const char *target, const char *peer,
                         enum probe_transport k, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s %u%s%s", target, probe_transport_name(k), ping_pong_size(run, k),
             peer ? " @" : "", peer ? peer : "");
}

void baselines_fold(struct baselines *all, const struct probe_run *run, const struct policy *p)
{
    char key[BASELINE_KEY_MAX];
    for (size_t i = 0; i < run->n; i++) {
        const struct probe_target *t = &run->targets[i];
        for (enum probe_transport k = 0; k < PROBE_TRANSPORT_COUNT; k++) {
            baseline_key(run, t->name, NULL, k, key, sizeof(key));
            fold_latency(all, key, &t->result[probe_kind_of(k, PROBE_LATENCY)], p, k);
        }
    }
    /* A baseline for each path to each neighbour. */
    for (size_t i = 0; i < run->n_peers; i++) {
        const struct probe_peer *e = &run->peers[i];
        for (enum probe_transport k = 0; k < PROBE_TRANSPORT_COUNT; k++) {
            baseline_key(run, e->rail, e->peer, k, key, sizeof(key));
            fold_latency(all, key, &e->result[probe_kind_of(k, PROBE_LATENCY)], p, k);
        }
    }
}

bool baselines_key_probed(const struct probe_run *run, const char *key)
{
    char mine[BASELINE_KEY_MAX];
    for (enum probe_transport k = 0; k < PROBE_TRANSPORT_COUNT; k++) {
        for (size_t i = 0; i < run->n; i++) {
            baseline_key(run, run->targets[i].name, NULL, k, mine, sizeof(mine));
            if (streq(mine, key))
                return true;
        }
        for (size_t i = 0; i < run->n_peers; i++) {
            baseline_key(run, run->peers[i].rail, run->peers[i].peer, k, mine, sizeof(mine));
            if (streq(mine, key))
                return true;
        }
    }
    return false;
}

struct baseline *baselines_get(struct baselines *all, const char *key)
{
    for (size_t i = 0; i < all->n; i++)
        if (streq(all->e[i].key, key))
            return &all->e[i];
    if (GROW_ARRAY(all->e, all->cap, all->n + 1, BASELINE_MAX_KEYS) < 0)
        return NULL;            /* past BASELINE_MAX_KEYS, or out of memory */
    struct baseline *b = &all->e[all->n++];
    memset(b, 0, sizeof(*b));
    strscpy(b->key, key, sizeof(b->key));
    return b;
}

void baselines_done(struct baselines *all)
{
    free(all->e);
    memset(all, 0, sizeof(*all));
}
