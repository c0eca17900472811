/* SPDX-License-Identifier: ISC */
/* The daemon: one sd-event loop, its timers and sources, the check passes and probe runs
 * in their workers, and the latest report. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "baseline.h"
#include "control.h"
#include "instance.h"
#include "options.h"
#include "reply_cache.h"
#include "report.h"
#include "responder.h"
#include "timeutil.h"
#include "tuning_transaction.h"

/* After an event's check, further events within this window fold into one more. */
#define EVENT_WINDOW_USEC (200 * USEC_PER_MSEC)

/* The manager is private to manager.c: the control commands read it through a view and
 * change it through the functions below. */
struct manager;

/* What a query reads, valid until the loop runs again. */
struct manager_view {
    const struct report *report;        /* the last finished check; NULL until the first */
    struct reply_cache *replies;        /* its replies, rendered once (reply_cache.h) */
    const struct baselines *baselines;
    const char *policy_source;
    const char *reload_error;           /* "" unless the last reload failed */
    const char *control_group;
    usec_t last_check;                  /* CLOCK_REALTIME */
    usec_t next_check;                  /* CLOCK_REALTIME, the timer's next pass; 0 unknown */
    /* What runs (status's header): CLOCK_REALTIME; last_reload 0 before any. */
    usec_t started, last_reload;
    usec_t next_probe;                  /* CLOCK_REALTIME, the next probe run; 0 none */
    const char *policy_digest;          /* SHA-256 hex of the policy's bytes */
    enum tuning_mode tuning_mode;
    const char *state_dir, *runtime_dir;
    unsigned checks_done;
    bool checking, probing;             /* a pass, a probe run, in a worker now */
    bool has_responder;                 /* the peer responder runs: its counters */
    struct responder_stats responder;
};


/* answer serves the control socket's requests, with the manager as its userdata. The
 * manager takes over STATE_HOLD (its fd), retrying it before each pass. */
int manager_new(const struct options *o, const struct instance_hold *state_hold,
                control_handler_fn answer, struct manager **ret);
int manager_run(struct manager *m);
void manager_free(struct manager *m);

void manager_view(const struct manager *m, struct manager_view *ret);
/* The sequence number (checks_done) of the first pass to start from now on. */
unsigned manager_next_check(const struct manager *m);
/* A tuning transaction for the control socket, under the lock the pass takes: apply
 * resumes enforcement, revert suspends it until the next apply or reload. ret is filled
 * (tuning_done() it); returns tuning_run()'s result. */
int manager_tune(struct manager *m, enum tuning_action a, struct tuning *ret);
/* fabtunectl forget: RAIL, gone from the inventory, is forgotten by the link memory
 * (link_memory_forget: -ENOENT, -EEXIST), after the pass going ends; a pass follows, which
 * judges and saves it. */
int manager_forget(struct manager *m, const char *rail);
/* Reloads the policy file; on error keeps the old one and returns -EINVAL. */
int manager_reload(struct manager *m);
/* Starts a probe run unless one is running (-EBUSY). Unless FORCE (probe-now), the
 * bandwidth streams wait while a job holds the node or their rail is busy (probes.defer). */
int manager_probe_now(struct manager *m, bool force);
