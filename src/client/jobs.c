/* SPDX-License-Identifier: ISC */
/* fabtunectl jobs: the NCCL jobs on the node from the status reply's "jobs" (the daemon's
 * jobs watch, outputs/jobs_json.c): each job, its RAS, and each rank of this node that
 * RAS has behind, missing or dead, with its GPU, its rail, its state, and whether its rail
 * showed trouble in its window (this node's fabric is why) or was clean. */
#include "config.h"

#include <stdio.h>

#include "client.h"
#include "json_text.h"
#include "macro.h"

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v)
           ? v : NULL;
}

static const char *cause_words(const char *cause)
{
    if (streq(cause, "rail"))
        return "this node's rail (it showed trouble in the rank's window)";
    if (streq(cause, "elsewhere"))
        return "not this node's fabric (its rail was clean)";
    return "not judged yet";
}

static void render_ras(json_object *ras)
{
    double replies = json_num(ras, "replies");
    if (get(ras, "enabled") && !json_object_get_boolean(get(ras, "enabled"))) {
        printf("; RAS disabled (NCCL_RAS_ENABLE=0)\n");
        return;
    }
    printf("; RAS %s", json_text(ras, "address"));
    if (replies > 0)
        printf(": NCCL %s, %.0f repl%s (%s)", json_text(ras, "nccl_version"), replies,
               replies == 1 ? "y" : "ies", json_text(ras, "format"));
    if (get(ras, "last_error"))
        printf("; does not answer now: %s", json_text(ras, "last_error"));
    else if (replies == 0)
        printf(": not answered yet");
    printf("\n");
}

static void render_job(json_object *j)
{
    json_object *ranks = get(j, "ranks");
    size_t n = json_object_is_type(ranks, json_type_array) ? json_object_array_length(ranks) : 0;
    double elsewhere = json_num(j, "ranks_failing_elsewhere");
    printf("%s: %.0f process%s here", json_text(j, "name"), json_num(j, "processes"),
           json_num(j, "processes") == 1 ? "" : "es");
    render_ras(get(j, "ras"));
    if (n)
        printf("  %-6s %-4s %-14s %-12s %-10s %-7s %s\n", "RANK", "GPU", "PCI", "RAIL", "STATE",
               "BEHIND", "WHY");
    for (size_t i = 0; i < n; i++) {
        json_object *k = json_object_array_get_idx(ranks, i);
        printf("  %-6s %-4s %-14s %-12s %-10s %-7s %s\n", json_text(k, "rank"), json_text(k, "gpu"),
               json_text(k, "gpu_pci_address"), json_text(k, "rail"), json_text(k, "state"),
               json_text(k, "behind_by"), cause_words(json_text(k, "cause")));
        if (get(k, "gpu_not_placed"))
            printf("         GPU not placed: %s\n", json_text(k, "gpu_not_placed"));
        if (get(k, "error"))
            printf("         error: %s\n", json_text(k, "error"));
    }
    if (!n && json_num(get(j, "ras"), "replies") > 0)
        printf("  no rank of this node lags, is missing or died\n");
    if (elsewhere > 0)
        printf("  %.0f rank%s of the job lag%s or failed on other nodes: not this node's\n",
               elsewhere, elsewhere == 1 ? "" : "s", elsewhere == 1 ? "s" : "");
}

void render_jobs(json_object *data)
{
    json_object *jobs = get(data, "jobs");
    if (!json_object_is_type(jobs, json_type_array)) {
        printf("jobs: not watched (no daemon's jobs watch in this report)\n");
        return;
    }
    size_t n = json_object_array_length(jobs);
    if (n == 0)
        printf("jobs: 0 (no process maps libnccl on this node)\n");
    for (size_t i = 0; i < n; i++)
        render_job(json_object_array_get_idx(jobs, i));
}

json_object *jobs_json(json_object *data)
{
    json_object *jobs = get(data, "jobs");
    return jobs ? json_object_get(jobs) : NULL;
}
