/* SPDX-License-Identifier: ISC */
/* The files a check pass leaves for others: the NCCL contract (env and nccl.conf forms)
 * and the Prometheus textfile. Written atomically and fsynced, in the check worker: a
 * slow disk never holds back a reply. */
#pragma once

#include "policy.h"
#include "report.h"

enum { OUTPUT_NCCL_ENV, OUTPUT_NCCL_CONF, OUTPUT_TEXTFILE, OUTPUTS };

struct outputs {
    char path[OUTPUTS][512];    /* "": not written */
    int result[OUTPUTS];        /* write_file_atomic()'s: 0 or -errno */
};

/* The paths the policy names; a default under /run/fabtune follows runtime_dir. */
void outputs_plan(struct outputs *o, const struct policy *p, const char *runtime_dir);
/* Renders and writes each planned file from the report, keeping each result. */
void outputs_write(struct outputs *o, const struct report *r);
/* "NCCL contract" or "metrics", for the log. */
const char *outputs_what(int output);
