/* SPDX-License-Identifier: ISC */
/* The table of check groups, in the order the report shows them, and the one loop that
 * runs them. */
#include "config.h"

#include "checks.h"
#include "macro.h"

static void run_rails(const struct check_input *in, struct findings *out)
{
    check_rails(in->inventory, in->policy, out);
}

static void run_gone(const struct check_input *in, struct findings *out)
{
    if (in->links)
        check_gone(in->inventory, in->links, in->policy, out);
}

static void run_uniform(const struct check_input *in, struct findings *out)
{
    check_uniform(in->inventory, in->policy, out);
}

static void run_ports(const struct check_input *in, struct findings *out)
{
    check_ports(in->inventory, in->policy, out);
}

static void run_netdevs(const struct check_input *in, struct findings *out)
{
    check_netdevs(in->inventory, in->policy, out);
}

static void run_gids(const struct check_input *in, struct findings *out)
{
    check_gids(in->inventory, in->policy, out);
}

static void run_qos(const struct check_input *in, struct findings *out)
{
    check_qos(in->inventory, in->policy, out);
}

static void run_cc(const struct check_input *in, struct findings *out)
{
    check_cc(in->inventory, in->policy, out);
}

static void run_module(const struct check_input *in, struct findings *out)
{
    check_module(in->inventory, in->links, in->policy, out);
}

static void run_fec(const struct check_input *in, struct findings *out)
{
    check_fec(in->inventory, in->counters, in->policy, out);
}

static void run_routes(const struct check_input *in, struct findings *out)
{
    check_routes(in->inventory, in->policy, out);
}

static void run_neighbors(const struct check_input *in, struct findings *out)
{
    check_neighbors(in->inventory, in->counters, in->policy, out);
}

static void run_host(const struct check_input *in, struct findings *out)
{
    check_host(in->inventory, in->policy, out);
}

static void run_counters(const struct check_input *in, struct findings *out)
{
    if (in->counters)
        check_counters(in->inventory, in->counters, in->policy, out);
}

static void run_link_memory(const struct check_input *in, struct findings *out)
{
    if (in->links)
        check_link_memory(in->inventory, in->links, in->policy, out);
}

static void run_nic(const struct check_input *in, struct findings *out)
{
    if (in->links)
        check_nic(in->inventory, in->links, in->policy, out);
}

static void run_devnodes(const struct check_input *in, struct findings *out)
{
    check_devnodes(in->inventory, in->policy, out);
}

static void run_persistence(const struct check_input *in, struct findings *out)
{
    if (in->persistence)
        check_persistence(in->persistence, out);
}

static void run_tuning(const struct check_input *in, struct findings *out)
{
    if (in->tuning)
        check_tuning(in->tuning, in->policy, out);
}

static void run_probes(const struct check_input *in, struct findings *out)
{
    if (in->probes)
        check_probe_results(in->probes, in->policy, out);
}

static void run_isolation(const struct check_input *in, struct findings *out)
{
    if (in->probes)
        check_isolation(in->probes, out);
}

static void run_regressions(const struct check_input *in, struct findings *out)
{
    if (in->baselines)
        check_regressions(in->baselines, in->probes, in->policy, out);
}

/* The jobs last: a lagging rank's join names the rail findings of this same pass. */
static void run_jobs(const struct check_input *in, struct findings *out)
{
    if (!in->jobs)
        return;
    struct job_join join = { .links = in->links, .fabric = out, .gid_moves = in->gid_moves,
                             .n_gid_moves = in->n_gid_moves, .margin = JOB_JOIN_MARGIN };
    check_jobs(in->inventory, in->jobs, &join, in->policy, out);
}

/* A new group is one row here, at the place its findings take in the report. */
static void (*const groups[])(const struct check_input *in, struct findings *out) = {
    run_rails, run_gone, run_ports, run_netdevs, run_uniform, run_module, run_fec, run_routes, run_neighbors,
    run_gids, run_qos, run_cc, run_host, run_devnodes,
    run_counters, run_link_memory, run_nic, run_persistence, run_tuning, run_probes, run_isolation, run_regressions,
    run_jobs,
};

void checks_run(const struct check_input *in, struct findings *out)
{
    for (size_t i = 0; i < ARRAY_SIZE(groups); i++)
        groups[i](in, out);
}
