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
    int result[OUTPUTS];        /* the write's: 0 or -errno */
    char runtime_dir[256];      /* a file right in it is written through no symlink */
};

/* The paths the policy names; a default under /run/fabtune follows runtime_dir. */
void outputs_plan(struct outputs *o, const struct policy *p, const char *runtime_dir);
/* Refuses, at policy load, an output path no write could reach: its directory (through
 * symlinks, or the nearest that exists) is not writable here, as under fabtuned.service's
 * ProtectSystem=strict outside ReadWritePaths=. 0, or -errno with ERR saying which key. */
int outputs_check(const struct policy *p, const char *runtime_dir, char *err, size_t len);
/* The same for one path of the policy (KEY names it in ERR), and also refused: a path
 * under /proc or /sys, and one whose directory does not exist (the runtime directory,
 * which fabtuned makes, aside). */
int outputs_check_path(const char *key, const char *path, const char *runtime_dir, char *err,
                       size_t len);
/* Renders and writes each planned file from the report, keeping each result; the
 * textfile takes METRICS_TEXT, the metrics as rendered already, if not NULL. */
void outputs_write(struct outputs *o, const struct report *r, const char *metrics_text);
/* "NCCL contract" or "metrics", for the log. */
const char *outputs_what(int output);
