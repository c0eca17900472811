/* SPDX-License-Identifier: ISC */
/* The daemon: one sd-event loop, its timers and sources, and the latest report. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "alerts.h"
#include "baseline.h"
#include "counters.h"
#include "options.h"
#include "pipeline.h"
#include "policy.h"
#include "probes.h"
#include "report.h"

#define DEBOUNCE_USEC (200 * USEC_PER_MSEC)

struct check_job;
struct control;
struct events;

struct manager {
    sd_event *event;
    const struct options *opts;
    struct policy *policy;
    /* The policy a reload replaced while the check pass in the worker still reads it:
     * freed when that pass is joined. */
    struct policy *retired_policy;
    char policy_source[512];
    char reload_error[2048];    /* the last failed reload: the old policy stays */
    struct report *report;      /* the latest full check; NULL until the first */
    usec_t last_check;          /* CLOCK_REALTIME */
    unsigned checks_done;
    bool ready_sent;
    struct pipeline_shared shared;  /* the counter state and tuning, with the worker */
    struct check_job *check_job;    /* the pass in the worker thread, if one is going */
    bool check_again;           /* asked for while one was going: starts when it ends */
    int check_pipe[2];
    struct alerts alerts;
    struct baselines baselines;
    struct counter_state counters;  /* previous samples, rates, carrier history */
    char boot_id[40];
    struct probe_run probes;    /* the last completed probe run */
    bool have_probes;
    struct probe_run *running;  /* the run the worker thread owns */
    struct probe_job *job;
    int probe_pipe[2];
    sd_event_source *check_io, *probe_io, *check_timer, *probe_timer, *debounce, *counters_timer;
    struct events *events;
    struct control *control;
    int output_errors[3];       /* nccl_env, nccl_conf, textfile: the last write's result */
};

int manager_new(const struct options *o, struct manager **ret);
int manager_run(struct manager *m);
void manager_free(struct manager *m);

/* A full check: inventory, checks, tuning, the contract, then (back on the loop) alerts
 * and outputs. The pass runs in the worker; queries are answered from the last finished
 * report meanwhile. With a pass going, one more starts when it ends. */
int manager_check(struct manager *m);
/* The sequence number (checks_done) of the first pass to start from now on. */
unsigned manager_next_check(const struct manager *m);
/* A tuning transaction for the control socket, under the lock the pass takes: apply
 * resumes enforcement, revert suspends it until the next apply or reload. ret is filled
 * (tuning_done() it); returns tuning_run()'s result. */
int manager_tune(struct manager *m, enum tuning_action a, struct tuning *ret);
/* A check in DEBOUNCE_USEC, folding bursts of events into one. */
void manager_schedule_check(struct manager *m);
/* Reloads the policy file; on error keeps the old one and returns -EINVAL. */
int manager_reload(struct manager *m);
/* Starts a probe run unless one is running (-EBUSY). */
int manager_probe_now(struct manager *m);
