/* SPDX-License-Identifier: ISC */
/* A report as a human text (what --once prints). Renders only: the verdicts it shows were
 * worked out by report_finish(). */
#include "config.h"

#include <stdio.h>
#include <time.h>
#include <string.h>

#include "findings_text.h"
#include "macro.h"
#include "report_text.h"

/* The rail's RoCE GID as "3 10.0.0.1", or "-". */
static void rail_gid(const struct report *r, const struct rail *rail, char *buf, size_t len)
{
    int idx = rail->gid_index;
    char ip[48];
    if (idx < 0 || (uint32_t)idx >= rail->n_gids || gid_is_zero(rail->gids[idx].raw)) {
        snprintf(buf, len, "-");
        return;
    }
    gid_format(rail->gids[idx].raw, true, ip, sizeof(ip));
    snprintf(buf, len, "%d %s", idx, ip);
}

static int wider(int w, const char *s)
{
    int n = (int)strlen(s);
    return n > w ? n : w;
}

/* The rails' table; RAIL, NETDEV and ROCE GID as wide as their longest value (a bond's
 * hrn3_bond_0/1, an IPv6 GID). */
/* NETDEV/ACTIVE MTU, each "-" where it is not known (no netdev, or a tree without verbs'
 * active MTU), never 0. */
static void mtu_cell(const struct rail *rail, char *buf, size_t len)
{
    char nd[12] = "-", act[12] = "-";
    if (rail->netdev.mtu)
        snprintf(nd, sizeof(nd), "%u", rail->netdev.mtu);
    if (rail->active_mtu)
        snprintf(act, sizeof(act), "%u", rail->active_mtu);
    snprintf(buf, len, "%s/%s", nd, act);
}

static void print_rails(const struct report *r, FILE *out)
{
    const struct inventory *inv = &r->inventory;
    fprintf(out, "rails: %zu (%s)\n", inv->n_rails,
            inv->source == INVENTORY_LIVE ? "live" : "from a captured tree");
    if (inv->n_rails == 0) {
        fprintf(out, "  %s\n\n", inv->why_no_rails);
        return;
    }
    int rail_w = 12, net_w = 16, gid_w = 22;
    char gid[96];
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *rail = &inv->rails[i];
        rail_gid(r, rail, gid, sizeof(gid));
        rail_w = wider(rail_w, rail->name);
        net_w = wider(net_w, rail->netdev.name);
        gid_w = wider(gid_w, gid);
    }
    fprintf(out, "  %-*s %-*s %-8s %-9s %-11s %-*s %s\n", rail_w, "RAIL", net_w, "NETDEV", "STATE",
            "RATE", "MTU", gid_w, "ROCE GID", "VERDICT");
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *rail = &inv->rails[i];
        char rate[16], mtu[24];
        snprintf(rate, sizeof(rate), rail->rate_gbps > 0 ? "%gG" : "-", rail->rate_gbps);
        mtu_cell(rail, mtu, sizeof(mtu));
        rail_gid(r, rail, gid, sizeof(gid));
        fprintf(out, "  %-*s %-*s %-8s %-9s %-11s %-*s %s\n", rail_w, rail->name, net_w,
                rail->netdev.name[0] ? rail->netdev.name : "-",
                rail->state_name[0] ? rail->state_name : "?", rate, mtu, gid_w, gid,
                verdict_to_string(report_rail_verdict(r, i)));
    }
    for (size_t i = 0; i < inv->n_notes; i++)
        fprintf(out, "  note: %s\n", inv->notes[i]);
    fputc('\n', out);
}

/* Beside the rails, always: a GPU node without rails is what rails.count's error is for. */
static void print_gpus(const struct report *r, FILE *out)
{
    const struct inventory *inv = &r->inventory;
    if (inv->n_gpus == 0) {
        fprintf(out, "gpus: 0 (no NVIDIA or AMD display-class PCI function)\n\n");
        return;
    }
    fprintf(out, "gpus: %zu (", inv->n_gpus);
    for (size_t i = 0; i < inv->n_gpus; i++)
        fprintf(out, "%s%s numa %d", i ? ", " : "", inv->gpus[i].pci_addr, inv->gpus[i].numa_node);
    fprintf(out, ")%s\n\n", inv->peermem_loaded ? ", nvidia_peermem loaded" : "");
}

/* Folded (not -v): a key as wanted, or a captured tree's key the capture does not hold,
 * is counted, not listed: the table lists what needs a look. */
enum tuning_fold { TUNING_ROW, TUNING_AS_WANTED, TUNING_NOT_CAPTURED };

static enum tuning_fold tuning_fold_of(const struct report *r, const struct tuning_key *k)
{
    if (k->state == TUNING_STATE_APPLIED || k->state == TUNING_STATE_MATCHES ||
        k->state == TUNING_STATE_UNMANAGED)
        return TUNING_AS_WANTED;
    if (k->state == TUNING_STATE_MISSING && r->inventory.source != INVENTORY_LIVE)
        return TUNING_NOT_CAPTURED;
    return TUNING_ROW;
}

/* The profile's table; KEY as wide as the longest key (net.ipv4.tcp_congestion_control).
 * GROUPED: only the keys that need a look, the others counted. */
static void print_tuning(const struct report *r, bool grouped, FILE *out)
{
    const struct tuning *t = &r->tuning;
    size_t folded[3] = { 0 };
    fprintf(out, "tuning: %s, %zu key%s\n", tuning_mode_to_string(r->tuning_mode), t->n,
            t->n == 1 ? "" : "s");
    if (t->n == 0) {
        fputc('\n', out);
        return;
    }
    for (size_t i = 0; grouped && i < t->n; i++)
        folded[tuning_fold_of(r, &t->keys[i])]++;
    if (folded[TUNING_AS_WANTED] || folded[TUNING_NOT_CAPTURED])
        fprintf(out, "  %zu as wanted, %zu not in the captured procfs%s ('-v' lists each)\n",
                folded[TUNING_AS_WANTED], folded[TUNING_NOT_CAPTURED],
                folded[TUNING_ROW] ? "; the others:" : "");
    if (grouped && !folded[TUNING_ROW]) {
        fputc('\n', out);
        return;
    }
    int key_w = 30;
    for (size_t i = 0; i < t->n; i++)
        key_w = wider(key_w, t->keys[i].key);
    fprintf(out, "  %-*s %-22s %-22s %-22s %-9s %s\n", key_w, "KEY", "WANTED", "LIVE", "ORIGINAL",
            "STATE", "OTHER WRITER");
    for (size_t i = 0; i < t->n; i++) {
        const struct tuning_key *k = &t->keys[i];
        if (grouped && tuning_fold_of(r, k) != TUNING_ROW)
            continue;
        fprintf(out, "  %-*s %-22s %-22s %-22s %-9s %s\n", key_w, k->key, k->wanted,
                k->live_known ? k->live : "-", k->has_original ? k->original : "-",
                tuning_state_to_string(k->state), k->writer[0] ? k->writer : "-");
    }
    fputc('\n', out);
}

static void print_probe_row(const char *name, const char *what, const struct probe_result *lat,
                            const struct probe_result *bw, FILE *out)
{
    if (!lat->ran && lat->deferred[0]) {    /* an intensive ping-pong that waits, never run */
        fprintf(out, "  %-24s %-5s deferred: %s\n", name, what, lat->deferred);
        return;
    }
    if (!lat->ran)
        return;
    if (lat->error) {
        fprintf(out, "  %-24s %-5s failed: %s\n", name, what, lat->error_text);
        return;
    }
    fprintf(out, "  %-24s %-5s %9.2f %9.2f %9.2f %8.2f", name, what, lat->latency.min * 1e6,
            lat->latency.p50 * 1e6, lat->latency.p99 * 1e6, lat->latency.p99 / lat->latency.p50);
    if (bw->ran && !bw->error)
        fprintf(out, " %10.3f", bw->bandwidth * 8 / 1e9);
    else
        fprintf(out, " %10s", bw->ran ? "failed" : "-");
    /* A deferred stream: why, and the age of the figure it keeps (stale, never fresh). */
    if (probe_result_stale(bw))
        fprintf(out, " stale, %.0f s old; deferred: %s", probe_result_age(bw), bw->deferred);
    else if (bw->deferred[0])
        fprintf(out, " deferred: %s", bw->deferred);
    fputc('\n', out);
}

/* A row per transport: its latency, with its bandwidth beside it. */
static void print_probe_rows(const char *name, const struct probe_result *results, FILE *out)
{
    for (enum probe_transport k = 0; k < PROBE_TRANSPORT_COUNT; k++)
        print_probe_row(name, probe_transport_name(k), &results[probe_kind_of(k, PROBE_LATENCY)],
                        &results[probe_kind_of(k, PROBE_BANDWIDTH)], out);
}

static void print_probes(const struct report *r, FILE *out)
{
    const struct probe_run *run = &r->probes;
    if (!r->probed) {
        fprintf(out, "probes: not run (%s)\n\n", r->why_not_probed[0] ? r->why_not_probed : "--no-probes");
        return;
    }
    fprintf(out, "probes: %.2f s, %.3f s CPU (latency one-way, us)\n", run->wall_seconds,
            run->cpu_seconds);
    fprintf(out, "  %-24s %-5s %9s %9s %9s %8s %10s\n", "TARGET", "PROBE", "MIN", "P50", "P99",
            "P99/P50", "Gb/s");
    for (size_t i = 0; i < run->n; i++) {
        const struct probe_target *t = &run->targets[i];
        print_probe_rows(t->name, t->result, out);
        if (report_latencies_compare(t->result))
            fprintf(out, "  %-24s RoCE/TCP p50 %.2f\n", "",
                    t->result[PROBE_RDMA_LATENCY].latency.p50 / t->result[PROBE_TCP_LATENCY].latency.p50);
    }
    for (size_t i = 0; i < run->n_cross; i++)
        print_probe_row(run->cross[i].name, probe_transport_name(PROBE_RDMA), &run->cross[i].lat,
                        &run->cross[i].bw, out);
    for (size_t i = 0; i < run->n_peers; i++) {
        char name[336];
        snprintf(name, sizeof(name), "%s>%s", run->peers[i].rail, run->peers[i].peer);
        print_probe_rows(name, run->peers[i].result, out);
    }
    fputc('\n', out);
}

static void print_nccl(const struct report *r, FILE *out)
{
    fprintf(out, "NCCL contract:\n");
    if (r->nccl.n == 0)
        fprintf(out, "  none (%s)\n", r->nccl.why_empty);
    for (size_t i = 0; i < r->nccl.n; i++)
        fprintf(out, "  %s=%s\n", r->nccl.vars[i].name, r->nccl.vars[i].value);
}

void report_print_text(const struct report *r, bool grouped, FILE *out)
{
    fprintf(out, "fabtune %s on %s (kernel %s)\n", PACKAGE_VERSION, r->hostname, r->kernel);
    fprintf(out, "policy: %s (tuning mode %s)\n\n", r->policy_source,
            tuning_mode_to_string(r->tuning_mode));

    /* What needs a look first, then the tables that give it context. Every finding is in
     * the JSON; the text folds them by cause unless -v (GROUPED false) asks for every
     * line. */
    size_t by[SEVERITY_ERROR + 1] = { 0 };
    for (size_t i = 0; i < r->findings.n; i++)
        by[r->findings.items[i].severity]++;
    fprintf(out, "findings: %zu error%s, %zu warning%s, %zu unknown, %zu ok\n", by[SEVERITY_ERROR],
            PLURAL_S(by[SEVERITY_ERROR]), by[SEVERITY_WARNING], PLURAL_S(by[SEVERITY_WARNING]),
            by[SEVERITY_UNKNOWN], by[SEVERITY_OK]);
    findings_print_text(&r->findings, &r->inventory,
                        grouped ? FOLD_DETAILS | FOLD_UNKNOWN_CAUSES : FOLD_EVERY | FOLD_DETAILS, out);
    fputc('\n', out);

    print_rails(r, out);
    print_gpus(r, out);
    print_tuning(r, grouped, out);
    print_probes(r, out);
    if (r->n_unread) {
        fprintf(out, "could not read (as this user; root reads them):\n");
        for (size_t i = 0; i < r->n_unread; i++)
            fprintf(out, "  %s\n", r->unread[i]);
        fputc('\n', out);
    }
    print_nccl(r, out);
    fprintf(out, "\nverdict: %s: %s\n", verdict_to_string(r->verdict), r->verdict_cause);
}
