/* SPDX-License-Identifier: ISC */
/* The Prometheus text exposition: fabtune_* names, base units (seconds, bytes, bits). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "metrics.h"

static void help(FILE *f, const char *name, const char *type, const char *text)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

static void probe_metrics(FILE *f, const struct report *r)
{
    if (!r->probed)
        return;
    help(f, "fabtune_probe_latency_seconds", "gauge", "One-way latency of the last probe run.");
    for (size_t i = 0; i < r->probes.n; i++) {
        const struct probe_target *t = &r->probes.targets[i];
        const struct { const char *kind; const struct probe_result *res; } rs[] = {
            { "rdma", &t->rdma_lat }, { "tcp", &t->tcp_lat } };
        for (size_t k = 0; k < 2; k++) {
            if (!rs[k].res->ran || rs[k].res->error)
                continue;
            const double q[] = { rs[k].res->latency.p50, rs[k].res->latency.p99,
                                 rs[k].res->latency.p999 };
            const char *qn[] = { "0.5", "0.99", "0.999" };
            for (size_t j = 0; j < 3; j++)
                fprintf(f, "fabtune_probe_latency_seconds{target=\"%s\",probe=\"%s\",quantile=\"%s\"} %.9g\n",
                        t->name, rs[k].kind, qn[j], q[j]);
        }
    }
    help(f, "fabtune_probe_bandwidth_bytes_per_second", "gauge", "Bandwidth of the last probe run.");
    for (size_t i = 0; i < r->probes.n; i++) {
        const struct probe_target *t = &r->probes.targets[i];
        if (t->rdma_bw.ran && !t->rdma_bw.error)
            fprintf(f, "fabtune_probe_bandwidth_bytes_per_second{target=\"%s\",probe=\"rdma\"} %.9g\n",
                    t->name, t->rdma_bw.bandwidth);
        if (t->tcp_bw.ran && !t->tcp_bw.error)
            fprintf(f, "fabtune_probe_bandwidth_bytes_per_second{target=\"%s\",probe=\"tcp\"} %.9g\n",
                    t->name, t->tcp_bw.bandwidth);
    }
}

char *metrics_render(const struct report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;

    help(f, "fabtune_node_verdict", "gauge", "1 for the node's current verdict, 0 for the others.");
    for (enum verdict v = VERDICT_READY; v <= VERDICT_UNKNOWN; v++)
        fprintf(f, "fabtune_node_verdict{verdict=\"%s\"} %d\n", verdict_to_string(v), r->verdict == v);
    help(f, "fabtune_rails", "gauge", "Rails the policy selects that this node has.");
    fprintf(f, "fabtune_rails %zu\n", r->inventory.n_rails);
    help(f, "fabtune_rail_ready", "gauge", "1 when the rail's verdict is READY.");
    for (size_t i = 0; i < r->inventory.n_rails; i++) {
        const struct rail *rl = &r->inventory.rails[i];
        fprintf(f, "fabtune_rail_ready{rail=\"%s\",netdev=\"%s\"} %d\n", rl->name, rl->netdev.name,
                findings_rail_verdict(&r->findings, rl->name) == VERDICT_READY);
    }
    help(f, "fabtune_rail_rate_bits_per_second", "gauge", "Active port rate.");
    for (size_t i = 0; i < r->inventory.n_rails; i++)
        fprintf(f, "fabtune_rail_rate_bits_per_second{rail=\"%s\"} %.0f\n",
                r->inventory.rails[i].name, r->inventory.rails[i].rate_gbps * 1e9);
    help(f, "fabtune_findings", "gauge", "Findings by severity.");
    for (enum severity s = SEVERITY_OK; s <= SEVERITY_ERROR; s++) {
        size_t n = 0;
        for (size_t i = 0; i < r->findings.n; i++)
            n += r->findings.items[i].severity == s;
        fprintf(f, "fabtune_findings{severity=\"%s\"} %zu\n", severity_to_string(s), n);
    }
    help(f, "fabtune_tuning_drift", "gauge", "1 when a sysctl of the profile is not at its wanted value.");
    for (size_t i = 0; i < r->tuning.n; i++)
        fprintf(f, "fabtune_tuning_drift{key=\"%s\"} %d\n", r->tuning.keys[i].key,
                r->tuning.keys[i].state == TUNING_STATE_DRIFT ||
                r->tuning.keys[i].state == TUNING_STATE_FAILED);
    probe_metrics(f, r);
    fclose(f);
    return buf;
}
