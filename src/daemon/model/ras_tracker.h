/* SPDX-License-Identifier: ISC */
/* One job's ranks followed from RAS reply to reply (model/ras_status.h): a straggler told
 * from a hang, a missing rank from a dead one. Pure: the caller folds each reply (or the
 * failure of a query) with its time, at RAS intervals of its choosing; every threshold is
 * counted in replies, that is in RAS intervals.
 *
 * RAS counts the collectives each rank has launched. A rank of the lagging minority
 * (ras_status_derive) in one reply may be a race: the counts are gathered while the job
 * runs (ras.rst: "not a cause for concern, as long as the counts increase across repeated
 * queries"). So, per rank:
 *
 *   HEALTHY --behind in a reply--> SUSPECT
 *   SUSPECT --behind in RAS_TRACK_CONFIRM replies, the counts moving--> STRAGGLER
 *   SUSPECT, STRAGGLER --behind, the communicator's counts unchanged over
 *                       RAS_TRACK_FROZEN intervals--> HUNG
 *   HUNG --behind, the counts moving again--> STRAGGLER
 *   any --in step in RAS_TRACK_CLEAR consecutive replies--> HEALTHY (dropped)
 *   any --missing (INCOMPLETE: RAS got no data from it)--> MISSING, at once
 *   any --considered dead, or its process in RAS's DEAD list--> DEAD, at once
 *   any --an error of its own (not "Remote process error", another's echo)--> ERROR
 *
 * A reply in step between two that have the rank behind does not clear it (NCCL 2.28.9's
 * straggler read MISMATCH in 9 of 10 replies). With the default thresholds a straggler is
 * named at its second reply behind and a hang at its third (within three RAS intervals),
 * a missing or dead rank at the first reply that says so. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ras_status.h"
#include "timeutil.h"

#define RAS_TRACK_CONFIRM 2
#define RAS_TRACK_FROZEN 2
#define RAS_TRACK_CLEAR 3
/* Ranks followed at once (those not healthy), and communicators. */
#define RAS_TRACK_MAX_RANKS 4096
#define RAS_TRACK_MAX_COMMS RAS_MAX_COMMS

enum ras_verdict {
    RAS_VERDICT_HEALTHY, RAS_VERDICT_SUSPECT, RAS_VERDICT_STRAGGLER, RAS_VERDICT_HUNG,
    RAS_VERDICT_MISSING, RAS_VERDICT_DEAD, RAS_VERDICT_ERROR,
};

struct ras_track_rank {
    char comm[RAS_HASH_MAX];
    int rank;
    int pid, cuda_dev, nvml_dev;    /* as the last reply that named them said */
    char host[RAS_HOST_MAX];
    enum ras_verdict verdict;
    unsigned behind_seen;           /* replies with it behind since it turned SUSPECT */
    bool moved;                     /* the counts moved while it was behind */
    unsigned in_step;               /* consecutive replies in step */
    uint64_t behind_by;             /* at the last reply that had it behind */
    usec_t since;                   /* when it left HEALTHY: the join's window starts here */
    usec_t changed;                 /* when its verdict last changed */
    char error[RAS_ERROR_MAX];
};

struct ras_track_comm {
    char hash[RAS_HASH_MAX];
    uint32_t top_known;
    uint64_t top[RAS_COLL_TYPES];
    uint64_t sum;                   /* of every count the reply said */
    unsigned frozen;                /* consecutive replies with the same counts */
};

struct ras_tracker {
    unsigned replies;               /* whole STATUS replies folded */
    unsigned failures, failure_streak;
    int last_err;
    char last_why[384];
    usec_t last_reply, last_failure;
    char nccl_version[RAS_VERSION_MAX];
    enum ras_format format;
    bool json_refused;
    unsigned timeouts;              /* the last reply's communication timeouts */
    struct ras_track_comm *comms;
    size_t n_comms, cap_comms;
    struct ras_track_rank *ranks;
    size_t n_ranks, cap_ranks;
};

/* Folds a whole STATUS reply S taken at NOW. -ENOMEM, -EFBIG past the bounds (what fit is
 * kept). */
int ras_tracker_fold(struct ras_tracker *t, const struct ras_status *s, usec_t now);
/* A query that got no whole reply: verdicts stay as they were. */
void ras_tracker_fail(struct ras_tracker *t, int err, const char *why, usec_t now);
void ras_tracker_done(struct ras_tracker *t);
/* The followed rank, or NULL (then it is healthy). */
const struct ras_track_rank *ras_tracker_find(const struct ras_tracker *t, const char *comm,
                                              int rank);
/* STRAGGLER, HUNG, MISSING, DEAD and ERROR: a verdict worth a finding (not SUSPECT). */
bool ras_verdict_bad(enum ras_verdict v);
const char *ras_verdict_name(enum ras_verdict v);     /* "healthy", "straggler", ... */
