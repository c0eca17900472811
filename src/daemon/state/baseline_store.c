/* SPDX-License-Identifier: ISC */
/* Probe baselines on disk: STATE_DIR/probe-baselines.json, read back with no more trust than
 * any outside file (numbers bounded, at most BASELINE_MAX_KEYS paths). */
#include "config.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "baseline_store.h"
#include "state_file.h"

/* A number from the state file, finite and within [0, max]; 0 otherwise. The file is
 * outside data: 1e300 must not reach a double-to-integer conversion. */
static double get_d(json_object *o, const char *k, double max)
{
    json_object *v;
    double d = json_object_object_get_ex(o, k, &v) ? json_object_get_double(v) : 0;
    return isfinite(d) && d >= 0 && d <= max ? d : 0;
}

/* A latency from the file: positive, finite and bounded. */
static bool latency_ok(double x)
{
    return isfinite(x) && x > 0 && x <= 1e12;
}

/* The last max values of the array KEY, each a positive finite latency (or, with zero_ok,
 * a CPU wait, which may be 0); others skipped. */
static void load_values(json_object *o, const char *key, double *v, uint32_t *n, uint32_t max,
                        bool zero_ok)
{
    json_object *a;
    *n = 0;
    if (!json_object_object_get_ex(o, key, &a) || !json_object_is_type(a, json_type_array))
        return;
    size_t len = json_object_array_length(a);
    for (size_t i = len > max ? len - max : 0; i < len; i++) {
        double x = json_object_get_double(json_object_array_get_idx(a, i));
        if (latency_ok(x) || (zero_ok && x == 0))
            v[(*n)++] = x;
    }
}

static void load_series(json_object *o, const char *key, double *v, uint32_t *n, uint32_t max)
{
    load_values(o, key, v, n, max, false);
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
    b->bound_p50 = get_d(o, "bound_p50", 1e12);
    b->bound_p99 = get_d(o, "bound_p99", 1e12);
    b->pooled_p99 = get_d(o, "pooled_p99", 1e12);
    /* The last run's judgement, as probe.regression words it after a restart too. */
    b->last_bad = json_object_object_get_ex(o, "last_bad", &v) && json_object_get_boolean(v);
    b->last_unjudged = json_object_object_get_ex(o, "last_unjudged", &v) && json_object_get_boolean(v);
    b->last_excess_wait = get_d(o, "last_excess_wait", 1e6);
    load_series(o, "recent_p99", b->recent_p99, &b->n_recent, BASELINE_RECENT);
    load_series(o, "pool_p99", b->pool_p99, &b->n_pool, BASELINE_POOL);
    load_values(o, "recent_wait", b->recent_wait, &b->n_recent_wait, BASELINE_RECENT, true);
    if (b->ready && (b->p50 <= 0 || b->p99 <= 0))
        b->ready = false;       /* no usable baseline: learn it again */
    if (!b->ready) {
        /* A state is a judgement against a baseline: one being learned has none, and the
         * new baseline must not start regressed by the old one's streak. */
        b->degraded = false;
        b->bad_streak = b->good_streak = 0;
    }
    if (json_object_object_get_ex(o, "learned_p50", &l50) &&
        json_object_object_get_ex(o, "learned_p99", &l99) &&
        json_object_is_type(l50, json_type_array) && json_object_is_type(l99, json_type_array)) {
        size_t n = json_object_array_length(l50);
        for (size_t i = 0; i < n && i < json_object_array_length(l99) && b->n_learned < BASELINE_MAX_RUNS; i++) {
            double x = json_object_get_double(json_object_array_get_idx(l50, i));
            double y = json_object_get_double(json_object_array_get_idx(l99, i));
            /* A run that is no latency is skipped, as in the series: a 0 among the learned
             * runs would pull their median, the baseline, towards 0. */
            if (!latency_ok(x) || !latency_ok(y))
                continue;
            b->learned_p50[b->n_learned] = x;
            b->learned_p99[b->n_learned] = y;
            b->n_learned++;
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
        json_object_object_add(o, "bound_p50", json_object_new_double(b->bound_p50));
        json_object_object_add(o, "bound_p99", json_object_new_double(b->bound_p99));
        json_object_object_add(o, "pooled_p99", json_object_new_double(b->pooled_p99));
        json_object_object_add(o, "last_bad", json_object_new_boolean(b->last_bad));
        json_object_object_add(o, "last_unjudged", json_object_new_boolean(b->last_unjudged));
        json_object_object_add(o, "last_excess_wait", json_object_new_double(b->last_excess_wait));
        json_object_object_add(o, "recent_p99", series(b->recent_p99, b->n_recent));
        json_object_object_add(o, "pool_p99", series(b->pool_p99, b->n_pool));
        json_object_object_add(o, "recent_wait", series(b->recent_wait, b->n_recent_wait));
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
