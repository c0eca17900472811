/* SPDX-License-Identifier: ISC */
/* The NCCL jobs of a report (the daemon's jobs watch, report.h) for the status reply's
 * "jobs" (fabtunectl jobs) and the metrics: each job, its RAS, and each rank of this node
 * that RAS has behind, missing or dead, placed on its GPU and rail, with whether its rail
 * showed trouble in the rank's window (the job.ras finding's join). */
#pragma once

#include <json-c/json.h>

#include "report.h"

enum rank_cause {
    RANK_CAUSE_UNKNOWN,         /* not judged (a suspect, no rail, no finding) */
    RANK_CAUSE_RAIL,            /* its rail showed trouble in its window */
    RANK_CAUSE_ELSEWHERE,       /* its rail was clean: compute, or another node */
};

struct rank_place {
    const struct gpu *gpu;      /* NULL: not placed, HOW says why */
    int gpu_index;              /* NVML's index as RAS said it, else CUDA's */
    char rail[INV_NAME_MAX + 8];    /* "" none */
    char how[160];
    enum rank_cause cause;
};

/* Where rank K of job J (a rank of this node) sits, and its cause from R's job.ras. */
void job_rank_place(const struct report *r, const struct job *j, const struct ras_track_rank *k,
                    struct rank_place *ret);
const char *rank_cause_name(enum rank_cause c);     /* "unknown", "rail", "elsewhere" */
/* R's jobs as the status reply's "jobs": NULL (JSON null) where no jobs watch ran. */
json_object *jobs_to_json(const struct report *r);
