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

bool baseline_update(struct baseline *b, const struct stats *s, uint32_t runs, double ratio,
                     uint32_t consecutive)
{
    if (runs > BASELINE_MAX_RUNS)
        runs = BASELINE_MAX_RUNS;
    b->last_p50 = s->p50;
    b->last_p99 = s->p99;
    if (!b->ready) {
        /* n_learned comes from a state file too: never past the array. */
        if (b->n_learned < BASELINE_MAX_RUNS) {
            b->learned_p50[b->n_learned] = s->p50;
            b->learned_p99[b->n_learned] = s->p99;
            b->n_learned++;
        }
        if (b->n_learned >= runs) {
            /* Medians: one noisy learning run cannot skew the baseline. */
            b->p50 = median(b->learned_p50, b->n_learned);
            b->p99 = median(b->learned_p99, b->n_learned);
            b->ready = true;
        }
        b->last_bad = false;
        return b->degraded;
    }
    b->last_bad = s->p50 > b->p50 * ratio || s->p99 > b->p99 * ratio;
    if (b->last_bad) {
        b->good_streak = 0;
        if (++b->bad_streak >= consecutive)
            b->degraded = true;
    } else {
        b->bad_streak = 0;
        if (++b->good_streak >= consecutive)
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

static uint32_t ping_pong_size(const struct policy *p, enum probe_transport t)
{
    return t == PROBE_RDMA ? p->probes.rdma.size : p->probes.tcp.size;
}

/* A successful latency result into the baseline of KEY. */
static void fold_latency(struct baselines *all, const char *key, const struct probe_result *res,
                         const struct policy *p)
{
    if (!res->ran || res->error)
        return;
    struct baseline *b = baselines_get(all, key);
    if (b)
        baseline_update(b, &res->latency, p->probes.regression.baseline_runs,
                        p->probes.regression.ratio, p->probes.regression.consecutive);
}

void baselines_fold(struct baselines *all, const struct probe_run *run, const struct policy *p)
{
    for (size_t i = 0; i < run->n; i++) {
        const struct probe_target *t = &run->targets[i];
        for (enum probe_transport k = 0; k < PROBE_TRANSPORT_COUNT; k++) {
            char key[352];
            snprintf(key, sizeof(key), "%s %s %u", t->name, probe_transport_name(k),
                     ping_pong_size(p, k));
            fold_latency(all, key, &t->result[probe_kind_of(k, PROBE_LATENCY)], p);
        }
    }
    /* Peers: "RAIL PROBE SIZE @PEER", a baseline for each path to each neighbour. */
    for (size_t i = 0; i < run->n_peers; i++) {
        const struct probe_peer *e = &run->peers[i];
        for (enum probe_transport k = 0; k < PROBE_TRANSPORT_COUNT; k++) {
            char key[352];
            snprintf(key, sizeof(key), "%s %s %u @%s", e->rail, probe_transport_name(k),
                     ping_pong_size(p, k), e->peer);
            fold_latency(all, key, &e->result[probe_kind_of(k, PROBE_LATENCY)], p);
        }
    }
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
