/* SPDX-License-Identifier: ISC */
/* Probe baselines: learned from the first healthy runs, then a per-probe state machine. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "state_file.h"
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

void baselines_fold(struct baselines *all, const struct probe_run *run, const struct policy *p)
{
    for (size_t i = 0; i < run->n; i++) {
        const struct probe_target *t = &run->targets[i];
        const struct { const char *kind; const struct probe_result *res; uint32_t size; } rs[] = {
            { "rdma", &t->rdma_lat, p->probes.rdma.size },
            { "tcp", &t->tcp_lat, p->probes.tcp.size },
        };
        for (size_t k = 0; k < ARRAY_SIZE(rs); k++) {
            char key[352];
            if (!rs[k].res->ran || rs[k].res->error)
                continue;
            snprintf(key, sizeof(key), "%s %s %u", t->name, rs[k].kind, rs[k].size);
            struct baseline *b = baselines_get(all, key);
            if (b)
                baseline_update(b, &rs[k].res->latency, p->probes.regression.baseline_runs,
                                p->probes.regression.ratio, p->probes.regression.consecutive);
        }
    }
    /* Peers: "RAIL PROBE SIZE @PEER", a baseline for each path to each neighbour. */
    for (size_t i = 0; i < run->n_peers; i++) {
        const struct probe_peer *e = &run->peers[i];
        const struct { const char *kind; const struct probe_result *res; uint32_t size; } rs[] = {
            { "rdma", &e->rdma_lat, p->probes.rdma.size },
            { "tcp", &e->tcp_lat, p->probes.tcp.size },
        };
        for (size_t k = 0; k < ARRAY_SIZE(rs); k++) {
            char key[352];
            if (!rs[k].res->ran || rs[k].res->error)
                continue;
            snprintf(key, sizeof(key), "%s %s %u @%s", e->rail, rs[k].kind, rs[k].size, e->peer);
            struct baseline *b = baselines_get(all, key);
            if (b)
                baseline_update(b, &rs[k].res->latency, p->probes.regression.baseline_runs,
                                p->probes.regression.ratio, p->probes.regression.consecutive);
        }
    }
}

struct baseline *baselines_get(struct baselines *all, const char *key)
{
    for (size_t i = 0; i < all->n; i++)
        if (streq(all->e[i].key, key))
            return &all->e[i];
    if (all->n >= BASELINE_MAX_KEYS)
        return NULL;
    if (all->n == all->cap) {
        /* Doubling: a file of many entries loads in linear time, not quadratic. */
        size_t cap = all->cap ? all->cap * 2 : 16;
        cap = cap > BASELINE_MAX_KEYS ? BASELINE_MAX_KEYS : cap;
        struct baseline *n = realloc(all->e, cap * sizeof(*n));
        if (!n)
            return NULL;
        all->e = n;
        all->cap = cap;
    }
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

/* A number from the state file, finite and within [0, max]; 0 otherwise. The file is
 * outside data: 1e300 must not reach a double-to-integer conversion. */
static double get_d(json_object *o, const char *k, double max)
{
    json_object *v;
    double d = json_object_object_get_ex(o, k, &v) ? json_object_get_double(v) : 0;
    return isfinite(d) && d >= 0 && d <= max ? d : 0;
}

static int load_entry(struct baselines *all, const char *key, json_object *o)
{
    struct baseline *b = baselines_get(all, key);
    json_object *v, *l50, *l99;
    if (!b)
        return all->n >= BASELINE_MAX_KEYS ? -EFBIG : -ENOMEM;
    b->ready = json_object_object_get_ex(o, "ready", &v) && json_object_get_boolean(v);
    b->degraded = json_object_object_get_ex(o, "degraded", &v) && json_object_get_boolean(v);
    b->p50 = get_d(o, "p50", 1e12);
    b->p99 = get_d(o, "p99", 1e12);
    b->bad_streak = (uint32_t)get_d(o, "bad_streak", UINT32_MAX);
    b->good_streak = (uint32_t)get_d(o, "good_streak", UINT32_MAX);
    b->last_p50 = get_d(o, "last_p50", 1e12);
    b->last_p99 = get_d(o, "last_p99", 1e12);
    if (b->ready && (b->p50 <= 0 || b->p99 <= 0))
        b->ready = false;       /* no usable baseline: learn it again */
    if (json_object_object_get_ex(o, "learned_p50", &l50) &&
        json_object_object_get_ex(o, "learned_p99", &l99) &&
        json_object_is_type(l50, json_type_array) && json_object_is_type(l99, json_type_array)) {
        size_t n = json_object_array_length(l50);
        for (size_t i = 0; i < n && i < json_object_array_length(l99) && i < BASELINE_MAX_RUNS; i++) {
            double x = json_object_get_double(json_object_array_get_idx(l50, i));
            double y = json_object_get_double(json_object_array_get_idx(l99, i));
            b->learned_p50[i] = isfinite(x) && x > 0 ? x : 0;
            b->learned_p99[i] = isfinite(y) && y > 0 ? y : 0;
            b->n_learned = (uint32_t)i + 1;
        }
    }
    return 0;
}

int baselines_load(const char *state_dir, struct baselines *ret)
{
    json_object *root;
    memset(ret, 0, sizeof(*ret));
    int r = state_file_load(state_dir, BASELINE_FILE, &root);
    if (r < 0 || !root)
        return r;
    json_object_object_foreach(root, key, val) {
        if (json_object_is_type(val, json_type_object) && (r = load_entry(ret, key, val)) < 0)
            break;
    }
    json_object_put(root);
    return r < 0 ? r : 0;
}

static json_object *series(const double *v, uint32_t n)
{
    json_object *a = json_object_new_array();
    for (uint32_t i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_double(v[i]));
    return a;
}

int baselines_save(const char *state_dir, const struct baselines *all)
{
    json_object *root = json_object_new_object();
    for (size_t i = 0; i < all->n; i++) {
        const struct baseline *b = &all->e[i];
        json_object *o = json_object_new_object();
        json_object_object_add(o, "ready", json_object_new_boolean(b->ready));
        json_object_object_add(o, "degraded", json_object_new_boolean(b->degraded));
        json_object_object_add(o, "p50", json_object_new_double(b->p50));
        json_object_object_add(o, "p99", json_object_new_double(b->p99));
        json_object_object_add(o, "bad_streak", json_object_new_int((int)b->bad_streak));
        json_object_object_add(o, "good_streak", json_object_new_int((int)b->good_streak));
        json_object_object_add(o, "last_p50", json_object_new_double(b->last_p50));
        json_object_object_add(o, "last_p99", json_object_new_double(b->last_p99));
        if (!b->ready) {
            json_object_object_add(o, "learned_p50", series(b->learned_p50, b->n_learned));
            json_object_object_add(o, "learned_p99", series(b->learned_p99, b->n_learned));
        }
        json_object_object_add(root, b->key, o);
    }
    int r = state_file_save(state_dir, BASELINE_FILE, root);
    json_object_put(root);
    return r;
}
