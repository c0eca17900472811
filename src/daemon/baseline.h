/* SPDX-License-Identifier: ISC */
/* Probe baselines and the regression state machine, persisted in the state dir. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "probe_run.h"
#include "stats.h"

#define BASELINE_FILE "probe-baselines.json"
#define BASELINE_MAX_RUNS 1000

struct baseline {
    char key[352];              /* "rxe0/1 rdma 8": target, probe, message size; a peer's
                                 * path adds " @PEER" */
    uint32_t n_learned;
    double learned_p50[BASELINE_MAX_RUNS], learned_p99[BASELINE_MAX_RUNS];
    bool ready;                 /* learned from baseline_runs healthy runs */
    double p50, p99;            /* the baseline: medians of the learning runs */
    uint32_t bad_streak, good_streak;
    bool degraded;
    double last_p50, last_p99;
    bool last_bad;
};

/* The paths kept: a node's are rails x probes x sizes x (1 + peers), a few hundred at most;
 * a state file with more is refused (each baseline is 16 KiB). */
#define BASELINE_MAX_KEYS 1024

struct baselines {
    struct baseline *e;
    size_t n, cap;
};

/* Folds one run's statistics in: learning first, then the state machine. A run is bad
 * when its p50 or p99 exceeds the baseline's times ratio; consecutive bad runs degrade
 * the probe, as many good runs in a row clear it. Returns the entry's degraded state. */
bool baseline_update(struct baseline *b, const struct stats *s, uint32_t baseline_runs,
                     double ratio, uint32_t consecutive);

/* Folds a probe run's successful latency results in, one baseline per "TARGET PROBE SIZE"
 * (a failed run is no sample of the fabric's speed). */
void baselines_fold(struct baselines *all, const struct probe_run *run, const struct policy *p);
struct baseline *baselines_get(struct baselines *all, const char *key);  /* adds if absent; NULL
                                                                         * at BASELINE_MAX_KEYS */
int baselines_load(const char *state_dir, struct baselines *ret);       /* empty if absent */
int baselines_save(const char *state_dir, const struct baselines *all);
void baselines_done(struct baselines *all);
