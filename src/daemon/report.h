/* SPDX-License-Identifier: ISC */
/* The report of one full check: what --once prints and the daemon serves. */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "baseline.h"
#include "counters.h"
#include "findings.h"
#include "inventory.h"
#include "nccl.h"
#include "policy.h"
#include "probes.h"
#include "timeutil.h"
#include "tuning.h"

/* A probe's regression state as the pass left it, for the metrics. */
struct report_regression {
    char target[72];
    char probe[16];             /* "rdma", "tcp" */
    uint32_t size;
    char peer[254];             /* the neighbour, for a peer probe's baseline; "" otherwise */
    bool ready;                 /* the baseline is learned */
    bool degraded;
};

struct report_cache;

struct report {
    char hostname[256];
    char kernel[128];
    /* Copies, not pointers: the report outlives a reload of the policy it was made with. */
    char policy_source[512];    /* a path, or "<built-in>" */
    enum tuning_mode tuning_mode;
    /* The policy's GID selection, for the GID table's reasons (gid_table.h). */
    int gid_family;
    uint32_t gid_version;
    struct cidr gid_range;
    usec_t started;             /* CLOCK_REALTIME, when the pass began */
    usec_t finished;            /* CLOCK_REALTIME, when report_finish() ran */
    struct inventory inventory;
    struct findings findings;
    struct nccl_contract nccl;
    struct tuning tuning;
    bool probed;
    struct probe_run probes;
    /* Per inventory rail (same index), the counter-class rates of this pass; NULL when
     * the pass folded no counters. */
    struct class_rate (*rail_rates)[COUNTER_CLASSES];
    /* Per inventory rail (same index), its verdict, worked out once by report_finish();
     * NULL before it, or when that had no memory (report_rail_verdict() then works it out
     * on each call). */
    enum verdict *rail_verdicts;
    struct report_regression *regressions;
    size_t n_regressions;
    enum verdict verdict;
    /* What the daemon serves of this report, rendered once on first use (the event
     * loop's thread only); report_init allocates it, NULL if that failed. */
    struct report_cache *cache;
};

void report_init(struct report *r, const struct policy *p, const char *policy_source);
void report_done(struct report *r);
/* The verdict of inventory rail i (findings_rail_verdict()'s rule), from the cache of
 * report_finish(): health, status, metrics and the service status ask it for every rail,
 * and walking every finding once per rail took ~1 ms a health query on 72 rails. */
enum verdict report_rail_verdict(const struct report *r, size_t i);
/* Copies each rail's class rates from ST (the rails it has no entry for stay unknown). */
void report_keep_rates(struct report *r, const struct counter_state *st);
/* Copies each baseline's state ("TARGET PROBE SIZE" keys). */
void report_keep_regressions(struct report *r, const struct baselines *all);
/* Sets the verdict from the findings; call once every section is in. */
void report_finish(struct report *r);
/* GROUPED: one line per problem across rails (findings_text.h); else one per finding. */
void report_print_text(const struct report *r, bool grouped, FILE *f);
json_object *report_to_json(const struct report *r);
/* The status reply's part that only this report decides (the report less its findings,
 * the failing ones), as a new object whose values were serialized once and are shared
 * by every reply; the caller adds the live fields. */
json_object *report_status_json(const struct report *r);
json_object *report_findings_json(const struct report *r, bool failing_only);
/* Other replies the loop serves of one report and that take long to render (on 72 rails:
 * the metrics ~15 ms, the checks ~5 ms), kept serialized once rendered. The pass's worker
 * renders them before it hands the report over, so the loop only copies them out. */
enum report_reply {
    REPORT_REPLY_METRICS, REPORT_REPLY_CHECKS, REPORT_REPLY_CHECKS_FAILED, REPORT_REPLY_COUNT
};
/* A reference to what render(r) returns, rendered on the first call for this report (by
 * the thread that holds the report: the worker, then the loop) and serialized once;
 * rendered each time if there is no cache. */
json_object *report_reply(const struct report *r, enum report_reply which,
                          json_object *(*render)(const struct report *r));
/* The checks reply: every finding, or the failing ones (report_findings_json), cached. */
json_object *report_checks_reply(const struct report *r, bool failing_only);
/* A cached reply that is a JSON string, as text (the metrics, for the textfile output);
 * NULL if it was not rendered. */
const char *report_reply_text(const struct report *r, enum report_reply which);
json_object *report_tuning_json(const struct report *r);
/* One tuning transaction's keys, as report_tuning_json() renders a report's. */
json_object *tuning_to_json(const struct tuning *t);
json_object *report_probes_json(const struct report *r);
