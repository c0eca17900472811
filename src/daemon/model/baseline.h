/* SPDX-License-Identifier: ISC */
/* Probe baselines and the regression state machine; state/baseline_store.h keeps them on disk. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policy.h"
#include "probe_run.h"
#include "stats.h"

#define BASELINE_FILE "probe-baselines.json"
#define BASELINE_MAX_RUNS 1000
/* The good runs whose largest p99 (times the ratio) bounds the next run's: the path's own
 * tail noise, as it has lately been. */
#define BASELINE_RECENT 50
/* The last runs' p99s pooled with a run's own: probes.regression.consecutive's maximum. */
#define BASELINE_POOL 100
#define BASELINE_KEY_MAX 352

struct baseline {
    char key[BASELINE_KEY_MAX]; /* "rxe0/1 rdma 8": target, probe, message size; a peer's
                                 * path adds " @PEER" */
    uint32_t n_learned;
    double learned_p50[BASELINE_MAX_RUNS], learned_p99[BASELINE_MAX_RUNS];
    bool ready;                 /* learned from baseline_runs healthy runs */
    double p50, p99;            /* the baseline: medians of the learning runs */
    uint32_t bad_streak, good_streak;   /* consecutive bad (good) runs up to the last */
    bool degraded;              /* the state machine's state: regressed (or recovering) */
    double last_p50, last_p99;
    bool last_bad;
    double recent_p99[BASELINE_RECENT]; /* the latest good runs' p99s, oldest first */
    uint32_t n_recent;
    double pool_p99[BASELINE_POOL];     /* the latest runs' p99s, oldest first */
    uint32_t n_pool;
    /* The last judged run's judgement: its p50 against bound_p50; its p99 and pooled_p99 (the
     * median p99 of the last consecutive runs) both against bound_p99. */
    double bound_p50, bound_p99, pooled_p99;
    /* The latest good runs' CPU wait per sample (probe_result.h cpu_wait_seconds over the
     * samples), oldest first: what a healthy run of this path waits for a CPU anyway (a
     * blocking ping-pong's hand-offs between its two threads). */
    double recent_wait[BASELINE_RECENT];
    uint32_t n_recent_wait;
    /* The last run was not judged: it was over its bounds, but by no more than its threads'
     * wait for a CPU beyond the usual (last_excess_wait seconds) could account for. */
    bool last_unjudged;
    double last_excess_wait;
};

/* The state machine's state, with the last run's place in it. Its names (baseline_state_name)
 * are the JSON's "state" (fabtunectl probes) and the words of the probe.regression finding:
 *   learning    no baseline yet;
 *   ok          not regressed, the last run within baseline x ratio;
 *   suspect     not regressed, the last run over: bad_streak of consecutive runs counted;
 *   regressed   consecutive bad runs made it so, the last run over too;
 *   recovering  regressed, the last run within: good_streak of consecutive runs counted.
 * fabtune_probe_regressed is 1 in regressed and recovering, the finding a warning. */
enum baseline_state {
    BASELINE_LEARNING, BASELINE_OK, BASELINE_SUSPECT, BASELINE_REGRESSED, BASELINE_RECOVERING,
};
enum baseline_state baseline_state(const struct baseline *b);
const char *baseline_state_name(enum baseline_state s);
/* The last run against the baseline: the larger of last p50 / baseline p50 and last p99 /
 * baseline p99, the figure a run is judged bad by (bad above the policy's ratio). NAN
 * while learning or without a last run. */
double baseline_last_ratio(const struct baseline *b);

/* The paths kept: a node's are rails x probes x sizes x (1 + peers), a few hundred at most;
 * a state file with more is refused (each baseline is 17 KiB). */
#define BASELINE_MAX_KEYS 1024

struct baselines {
    struct baseline *e;
    size_t n, cap;
};

/* How a run is judged: probes.regression's keys, min_excess in seconds (the transport's). */
struct baseline_rule {
    uint32_t runs;              /* baseline_runs */
    double ratio;
    uint32_t consecutive;
    double min_excess;
};

/* Folds one run's statistics in: learning first, then the state machine. A run is bad
 * when its p50 exceeds max(baseline p50 x ratio, baseline p50 + min_excess), or when both
 * its p99 and the median p99 of the last consecutive runs (its own among them) exceed
 * max(the largest p99 of the last BASELINE_RECENT runs that were within it x ratio,
 * baseline p99 + min_excess): one noisy run's tail is no regression, and a node whose
 * tails are noisy is judged against its own noise (the learning runs', then the good
 * runs' whose p99 was within). Consecutive bad runs degrade the probe, as many good
 * runs in a row clear it. Returns the entry's degraded state. */
bool baseline_update(struct baseline *b, const struct stats *s, const struct baseline_rule *rule);
/* The same, for a run whose threads waited CPU_WAIT seconds for a CPU (NAN: unknown). A run
 * that would be bad is not judged (no streak moves, no series takes it; last_unjudged) when
 * its wait beyond the usual (the median of recent_wait, per sample) could account for every
 * figure over its bound: for the p99, the 1 % slowest samples' round trips each longer by
 * twice (p99 - baseline p50); for the p50, half of them by twice (p50 - baseline p50). A
 * niced probe on a busy node meets this (bench/false-alarms.sh: beside a parallel build,
 * the loopback TCP probe's p99 went from 10 us to 0.6-1.9 ms while its threads waited
 * 55-160 ms instead of 8); a slower path (a delay on the wire, loss) does not, for its
 * threads sleep while they wait for it. */
bool baseline_update_waited(struct baseline *b, const struct stats *s, double cpu_wait,
                            const struct baseline_rule *rule);

/* Whether RUN's plan measures the baseline KEY (one of its targets or peer paths, at its
 * sizes): a baseline it does not (a peer gone from the list, a size changed, a rail gone) is
 * not judged, and its old state is no finding: no run could clear it. */
bool baselines_key_probed(const struct probe_run *run, const char *key);
/* Folds a probe run's successful latency results in, one baseline per "TARGET PROBE SIZE"
 * (a failed run is no sample of the fabric's speed), SIZE the run's own ping-pong size; P
 * gives the judgement's rule. */
void baselines_fold(struct baselines *all, const struct probe_run *run, const struct policy *p);
struct baseline *baselines_get(struct baselines *all, const char *key);  /* adds if absent; NULL
                                                                         * at BASELINE_MAX_KEYS */
void baselines_done(struct baselines *all);
