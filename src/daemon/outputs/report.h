/* SPDX-License-Identifier: ISC */
/* The report of one full check: what --once prints and the daemon serves. */
#pragma once

#include "baseline.h"
#include "counters.h"
#include "findings.h"
#include "inventory.h"
#include "jobs.h"
#include "link_memory.h"
#include "nccl.h"
#include "persistence.h"
#include "policy.h"
#include "probes_runner.h"
#include "timeutil.h"
#include "tuning.h"
#include "verdict_cause.h"

/* A probe's regression state as the pass left it, for the metrics. */
struct report_regression {
    char target[72];
    char probe[16];             /* "rdma", "tcp" */
    uint32_t size;
    char peer[254];             /* the neighbour, for a peer probe's baseline; "" otherwise */
    bool ready;                 /* the baseline is learned */
    bool degraded;              /* the state machine's: regressed or recovering */
    enum baseline_state state;
    double last_ratio;          /* baseline_last_ratio(); NAN while learning */
};

/* A rail's link beside what the inventory holds of it (its module, its netdev): its
 * symbol errors, from the counter state, and its link memory's day (fabtunectl links). */
#define REPORT_LINK_WINDOW (24 * 3600 * USEC_PER_SEC)
struct report_link {
    struct symbol_rate symbols;
    struct symbol_rate link[LINK_RATES];    /* the FEC and PHY counts, for the BER */
    struct symbol_rate lanes[LINK_LANES];   /* each lane's pre-FEC count */
    bool lanes_phy;                         /* ... mlx5's PHY ones (counters.h) */
    bool has_memory;            /* a daemon's or --once's state dir; none for a snapshot */
    struct link_summary memory; /* within REPORT_LINK_WINDOW */
    bool has_rx_fit;            /* its module's steepest Rx power fit (rx_trend.h) */
    struct rx_fit rx_fit;       /* over the report's rx_window */
};

struct report {
    char hostname[256];
    char kernel[128];
    /* Copies, not pointers: the report outlives a reload of the policy it was made with. */
    char policy_source[512];    /* a path, or "<built-in>" */
    enum tuning_mode tuning_mode;
    bool tcp_only;              /* rails.expect_count is 0: no rail, and no NCCL contract, due */
    /* The policy's GID selection, for the GID table's reasons (gid_table.h). */
    int gid_family;
    uint32_t gid_version;
    struct cidr gid_range;
    usec_t rx_window;           /* the Rx power trend's window (checks.module) */
    enum cc_profile cc_profile; /* rails.cc.profile, for the metrics' label */
    usec_t started;             /* CLOCK_REALTIME, when the pass began */
    usec_t finished;            /* CLOCK_REALTIME, when report_finish() ran */
    struct inventory inventory;
    struct findings findings;
    struct nccl_contract nccl;
    struct tuning tuning;
    struct persistence persistence;     /* the daemon's state directory (host.state_dir) */
    /* What this pass could not read as its user (a state file or a sysctl only root may
     * read: fabtuned --once run as a user), each "WHAT: why; what it leaves unknown". */
#define REPORT_UNREAD_MAX 8
    char unread[REPORT_UNREAD_MAX][384];
    size_t n_unread;
    bool probed;
    char why_not_probed[96];    /* without probe results: why (the policy, --no-probes, ...) */
    struct probe_run probes;
    /* Per inventory rail (same index), the counter-class rates of this pass; NULL when
     * the pass folded no counters. */
    struct class_rate (*rail_rates)[COUNTER_CLASSES];
    /* Per inventory rail (same index), its link; NULL when the pass kept no counters. */
    struct report_link *rail_links;
    /* Per inventory rail (same index), its verdict, worked out once by report_finish();
     * NULL before it, or when that had no memory (report_rail_verdict() then works it out
     * on each call). */
    enum verdict *rail_verdicts;
    struct report_regression *regressions;
    size_t n_regressions;
    /* The NCCL jobs the pass judged (the daemon's jobs watch, copied): jobs_watched false
     * where no watch ran (--once, a snapshot). */
    bool jobs_watched;
    struct jobs jobs;
    enum verdict verdict;
    char verdict_cause[256];    /* why, in words (verdict_cause.h); set with the verdict */
};

/* An empty report of a pass with policy P, stamped started; the pass fills in the rest,
 * the host's name and kernel too. */
void report_init(struct report *r, const struct policy *p, const char *policy_source);
void report_done(struct report *r);
/* The verdict of inventory rail i (findings_rail_verdict()'s rule), from the cache of
 * report_finish(): health, status, metrics and the service status ask it for every rail,
 * and walking every finding once per rail took ~1 ms a health query on 72 rails. */
enum verdict report_rail_verdict(const struct report *r, size_t i);
/* Copies each rail's class rates and symbol errors from ST (the rails it has no entry for
 * stay unknown). */
void report_keep_rates(struct report *r, const struct counter_state *st);
/* Copies each rail's link memory summary from M (the rails it has none of: none). */
/* The link memory's day of each rail, and its Rx power trend over the report's rx_window. */
void report_keep_links(struct report *r, const struct link_memory *m);
/* Copies the state of each baseline RUN measures ("TARGET PROBE SIZE" keys;
 * baselines_key_probed), of all where RUN is NULL. */
void report_keep_regressions(struct report *r, const struct baselines *all,
                             const struct probe_run *run);
/* Notes one thing this pass could not read (a repeat or one past REPORT_UNREAD_MAX is
 * dropped). */
void report_note_unread(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets the verdict from the findings; call once every section is in. */
void report_finish(struct report *r);
/* Both latency probes of RESULTS (a target's or a peer's, by kind) succeeded: the text and
 * the JSON show their ratios then. */
bool report_latencies_compare(const struct probe_result *results);
