/* SPDX-License-Identifier: ISC */
/* The report of one full check: what --once prints and the daemon serves. */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

#include "findings.h"
#include "inventory.h"
#include "nccl.h"
#include "policy.h"
#include "probes.h"
#include "timeutil.h"
#include "tuning.h"

struct report {
    char hostname[256];
    char kernel[128];
    /* Copies, not pointers: the report outlives a reload of the policy it was made with. */
    char policy_source[512];    /* a path, or "<built-in>" */
    enum tuning_mode tuning_mode;
    usec_t started;             /* CLOCK_REALTIME, when the pass began */
    struct inventory inventory;
    struct findings findings;
    struct nccl_contract nccl;
    struct tuning tuning;
    bool probed;
    struct probe_run probes;
    enum verdict verdict;
};

void report_init(struct report *r, const struct policy *p, const char *policy_source);
void report_done(struct report *r);
/* Sets the verdict from the findings; call once every section is in. */
void report_finish(struct report *r);
void report_print_text(const struct report *r, FILE *f);
json_object *report_to_json(const struct report *r);
json_object *report_findings_json(const struct report *r, bool failing_only);
json_object *report_tuning_json(const struct report *r);
/* One tuning transaction's keys, as report_tuning_json() renders a report's. */
json_object *tuning_to_json(const struct tuning *t);
json_object *report_probes_json(const struct report *r);
