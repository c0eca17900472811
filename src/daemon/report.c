/* SPDX-License-Identifier: ISC */
/* Renders a report as a human text or as JSON. Renders only; it decides nothing. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "strutil.h"
#include "dcb_parse.h"
#include "findings_text.h"
#include "report.h"

struct report_cache {
    json_object *status;        /* key -> a value with its text pre-rendered */
    json_object *replies[REPORT_REPLY_COUNT];  /* serialized once, shared by every reply */
    json_object *values[REPORT_REPLY_COUNT];   /* what was rendered */
};

void report_init(struct report *r, const struct policy *p, const char *policy_source)
{
    struct utsname u;
    memset(r, 0, sizeof(*r));
    r->cache = calloc(1, sizeof(*r->cache));
    if (gethostname(r->hostname, sizeof(r->hostname) - 1) < 0)
        snprintf(r->hostname, sizeof(r->hostname), "unknown");
    if (uname(&u) == 0)
        strscpy(r->kernel, u.release, sizeof(r->kernel));
    strscpy(r->policy_source, policy_source ? policy_source : "", sizeof(r->policy_source));
    r->tuning_mode = p->tuning.mode;
    r->gid_family = policy_roce_family(p);
    r->gid_version = p->rails.roce.version;
    r->gid_range = p->rails.roce.subnet;
    r->started = now_usec(CLOCK_REALTIME);
    r->verdict = VERDICT_UNKNOWN;
}

void report_done(struct report *r)
{
    inventory_done(&r->inventory);
    tuning_done(&r->tuning);
    probes_done(&r->probes);
    findings_done(&r->findings);
    free(r->rail_rates);
    free(r->rail_verdicts);
    free(r->regressions);
    if (r->cache) {
        json_object_put(r->cache->status);
        for (size_t i = 0; i < REPORT_REPLY_COUNT; i++) {
            json_object_put(r->cache->replies[i]);
            json_object_put(r->cache->values[i]);
        }
    }
    free(r->cache);
    r->cache = NULL;
}

/* A value that serializes as TEXT, as is (json-c's userdata serializer). */
static json_object *prerendered(json_object *v)
{
    const char *text = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE);
    char *copy = text ? strdup(text) : NULL;
    if (!copy)
        return json_object_get(v);
    json_object *w = json_object_new_object();
    json_object_set_serializer(w, json_object_userdata_to_json_string, copy, json_object_free_userdata);
    return w;
}

json_object *report_reply(const struct report *r, enum report_reply which,
                          json_object *(*render)(const struct report *r))
{
    if (!r->cache)
        return render(r);
    if (!r->cache->replies[which]) {
        r->cache->values[which] = render(r);
        r->cache->replies[which] = r->cache->values[which] ? prerendered(r->cache->values[which]) : NULL;
    }
    return json_object_get(r->cache->replies[which]);
}

const char *report_reply_text(const struct report *r, enum report_reply which)
{
    json_object *v = r->cache ? r->cache->values[which] : NULL;
    return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static json_object *all_findings(const struct report *r)
{
    return report_findings_json(r, false);
}

static json_object *failing_findings(const struct report *r)
{
    return report_findings_json(r, true);
}

json_object *report_checks_reply(const struct report *r, bool failing_only)
{
    return failing_only ? report_reply(r, REPORT_REPLY_CHECKS_FAILED, failing_findings)
                        : report_reply(r, REPORT_REPLY_CHECKS, all_findings);
}

json_object *report_status_json(const struct report *r)
{
    json_object *out = json_object_new_object();
    if (r->cache && !r->cache->status) {
        json_object *full = report_to_json(r), *base = json_object_new_object();
        json_object_object_del(full, "findings");       /* "checks" has them */
        json_object_object_add(full, "failing", report_findings_json(r, true));
        json_object_object_foreach(full, key, value)
            json_object_object_add(base, key, value ? prerendered(value) : NULL);
        json_object_put(full);
        r->cache->status = base;
    }
    if (r->cache && r->cache->status) {
        json_object_object_foreach(r->cache->status, key, value)
            json_object_object_add(out, key, json_object_get(value));
        return out;
    }
    json_object_put(out);       /* no cache: render this reply alone */
    out = report_to_json(r);
    json_object_object_del(out, "findings");
    json_object_object_add(out, "failing", report_findings_json(r, true));
    return out;
}

void report_keep_rates(struct report *r, const struct counter_state *st)
{
    free(r->rail_rates);
    r->rail_rates = r->inventory.n_rails ? calloc(r->inventory.n_rails, sizeof(*r->rail_rates)) : NULL;
    if (!r->rail_rates)
        return;
    for (size_t i = 0; i < r->inventory.n_rails; i++) {
        const struct rail_counters *rc = counters_find_const(st, r->inventory.rails[i].name);
        if (rc)
            memcpy(r->rail_rates[i], rc->rates, sizeof(rc->rates));
    }
}

void report_keep_regressions(struct report *r, const struct baselines *all)
{
    free(r->regressions);
    r->n_regressions = 0;
    r->regressions = all->n ? calloc(all->n, sizeof(*r->regressions)) : NULL;
    if (!r->regressions)
        return;
    for (size_t i = 0; i < all->n; i++) {
        const struct baseline *b = &all->e[i];
        struct report_regression *g = &r->regressions[r->n_regressions];
        int n = sscanf(b->key, "%71s %15s %" SCNu32 " @%253s", g->target, g->probe, &g->size, g->peer);
        if (n < 3)
            continue;   /* not a key baselines_fold() writes */
        if (n == 3)
            g->peer[0] = '\0';
        g->ready = b->ready;
        g->degraded = b->degraded;
        r->n_regressions++;
    }
}

static int by_rail_name(const void *a, const void *b, void *inventory)
{
    const struct rail *rails = ((const struct inventory *)inventory)->rails;
    return strcmp(rails[*(const size_t *)a].name, rails[*(const size_t *)b].name);
}

/* The first of the rails sorted by name (order) that is named name, or n. */
static size_t rail_named(const struct inventory *inv, const size_t *order, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(inv->rails[order[mid]].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && streq(inv->rails[order[lo]].name, name) ? lo : n;
}

/* Every rail's verdict in one walk of the findings, each finding's rail found among the
 * rails sorted by name: findings_rail_verdict() for each rail walks them all once a rail. */
static void rail_verdicts(struct report *r)
{
    const struct inventory *inv = &r->inventory;
    size_t n = inv->n_rails;
    free(r->rail_verdicts);
    r->rail_verdicts = NULL;
    if (n == 0)
        return;
    _cleanup_free_ size_t *order = calloc(n, sizeof(*order));
    _cleanup_free_ size_t *count = calloc(n, sizeof(*count));
    _cleanup_free_ enum severity *worst = calloc(n, sizeof(*worst));
    enum verdict *v = calloc(n, sizeof(*v));
    if (!order || !count || !worst || !v) {
        free(v);
        return;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof(*order), by_rail_name, (void *)inv);
    for (size_t i = 0; i < r->findings.n; i++) {
        const struct finding *f = &r->findings.items[i];
        size_t k = f->rail ? rail_named(inv, order, n, f->rail) : n;
        if (k == n)
            continue;
        count[k]++;
        if (f->severity > worst[k])
            worst[k] = f->severity;
    }
    /* Rails of the same name share their findings, as findings_rail_verdict() sees them. */
    for (size_t k = 1; k < n; k++)
        if (streq(inv->rails[order[k]].name, inv->rails[order[k - 1]].name)) {
            count[k] = count[k - 1];
            worst[k] = worst[k - 1];
        }
    for (size_t k = 0; k < n; k++)
        v[order[k]] = findings_verdict_of(worst[k], count[k], r->findings.lost);
    r->rail_verdicts = v;
}

enum verdict report_rail_verdict(const struct report *r, size_t i)
{
    return r->rail_verdicts ? r->rail_verdicts[i]
                            : findings_rail_verdict(&r->findings, r->inventory.rails[i].name);
}

void report_finish(struct report *r)
{
    r->verdict = findings_verdict(&r->findings);
    rail_verdicts(r);
    r->finished = now_usec(CLOCK_REALTIME);
}

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

static void print_rails(const struct report *r, FILE *out)
{
    const struct inventory *inv = &r->inventory;
    fprintf(out, "rails: %zu (%s)\n", inv->n_rails,
            inv->source == INVENTORY_LIVE ? "live" : "from a sysfs snapshot");
    if (inv->n_rails == 0) {
        fprintf(out, "  %s\n\n", inv->why_no_rails);
        return;
    }
    fprintf(out, "  %-12s %-16s %-8s %-9s %-11s %-22s %s\n", "RAIL", "NETDEV", "STATE", "RATE",
            "MTU", "ROCE GID", "VERDICT");
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *rail = &inv->rails[i];
        char rate[16], mtu[24], gid[96];
        snprintf(rate, sizeof(rate), rail->rate_gbps > 0 ? "%gG" : "-", rail->rate_gbps);
        if (rail->active_mtu)
            snprintf(mtu, sizeof(mtu), "%u/%u", rail->netdev.mtu, rail->active_mtu);
        else
            snprintf(mtu, sizeof(mtu), "%u/-", rail->netdev.mtu);
        rail_gid(r, rail, gid, sizeof(gid));
        fprintf(out, "  %-12s %-16s %-8s %-9s %-11s %-22s %s\n", rail->name,
                rail->netdev.name[0] ? rail->netdev.name : "-",
                rail->state_name[0] ? rail->state_name : "?", rate, mtu, gid,
                verdict_to_string(report_rail_verdict(r, i)));
    }
    for (size_t i = 0; i < inv->n_notes; i++)
        fprintf(out, "  note: %s\n", inv->notes[i]);
    fputc('\n', out);
}

static void print_tuning(const struct report *r, FILE *out)
{
    const struct tuning *t = &r->tuning;
    fprintf(out, "tuning: %s, %zu key%s\n", tuning_mode_to_string(r->tuning_mode), t->n,
            t->n == 1 ? "" : "s");
    if (t->n == 0) {
        fputc('\n', out);
        return;
    }
    fprintf(out, "  %-30s %-22s %-22s %-22s %-9s %s\n", "KEY", "WANTED", "LIVE", "ORIGINAL",
            "STATE", "OTHER WRITER");
    for (size_t i = 0; i < t->n; i++) {
        const struct tuning_key *k = &t->keys[i];
        fprintf(out, "  %-30s %-22s %-22s %-22s %-9s %s\n", k->key, k->wanted,
                k->live_known ? k->live : "-", k->has_original ? k->original : "-",
                tuning_state_to_string(k->state), k->writer[0] ? k->writer : "-");
    }
    fputc('\n', out);
}

static void print_probe_row(const char *name, const char *what, const struct probe_result *lat,
                            const struct probe_result *bw, FILE *out)
{
    if (!lat->ran)
        return;
    if (lat->error) {
        fprintf(out, "  %-24s %-5s failed: %s\n", name, what, lat->error_text);
        return;
    }
    fprintf(out, "  %-24s %-5s %9.2f %9.2f %9.2f %8.2f", name, what, lat->latency.min * 1e6,
            lat->latency.p50 * 1e6, lat->latency.p99 * 1e6, lat->latency.p99 / lat->latency.p50);
    if (bw->ran && !bw->error)
        fprintf(out, " %10.3f\n", bw->bandwidth * 8 / 1e9);
    else
        fprintf(out, " %10s\n", bw->ran ? "failed" : "-");
}

static void print_probes(const struct report *r, FILE *out)
{
    const struct probe_run *run = &r->probes;
    if (!r->probed) {
        fprintf(out, "probes: not run (--no-probes)\n\n");
        return;
    }
    fprintf(out, "probes: %.2f s, %.3f s CPU (latency one-way, us)\n", run->wall_seconds,
            run->cpu_seconds);
    fprintf(out, "  %-24s %-5s %9s %9s %9s %8s %10s\n", "TARGET", "PROBE", "MIN", "P50", "P99",
            "P99/P50", "Gbit/s");
    for (size_t i = 0; i < run->n; i++) {
        const struct probe_target *t = &run->targets[i];
        print_probe_row(t->name, "rdma", &t->rdma_lat, &t->rdma_bw, out);
        print_probe_row(t->name, "tcp", &t->tcp_lat, &t->tcp_bw, out);
        if (t->rdma_lat.ran && !t->rdma_lat.error && t->tcp_lat.ran && !t->tcp_lat.error)
            fprintf(out, "  %-24s RoCE/TCP p50 %.2f\n", "",
                    t->rdma_lat.latency.p50 / t->tcp_lat.latency.p50);
    }
    for (size_t i = 0; i < run->n_cross; i++)
        print_probe_row(run->cross[i].name, "rdma", &run->cross[i].lat, &run->cross[i].bw, out);
    for (size_t i = 0; i < run->n_peers; i++) {
        char name[336];
        snprintf(name, sizeof(name), "%s>%s", run->peers[i].rail, run->peers[i].peer);
        print_probe_row(name, "rdma", &run->peers[i].rdma_lat, &run->peers[i].rdma_bw, out);
        print_probe_row(name, "tcp", &run->peers[i].tcp_lat, &run->peers[i].tcp_bw, out);
    }
    fputc('\n', out);
}

static void print_nccl(const struct report *r, FILE *out)
{
    fprintf(out, "\nNCCL contract:\n");
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
    print_rails(r, out);
    if (r->inventory.n_gpus) {
        fprintf(out, "gpus: %zu (", r->inventory.n_gpus);
        for (size_t i = 0; i < r->inventory.n_gpus; i++)
            fprintf(out, "%s%s numa %d", i ? ", " : "", r->inventory.gpus[i].pci_addr,
                    r->inventory.gpus[i].numa_node);
        fprintf(out, ")%s\n\n", r->inventory.peermem_loaded ? ", nvidia_peermem loaded" : "");
    }
    print_tuning(r, out);
    print_probes(r, out);

    /* Every finding is in the JSON; the text shows what needs a look. */
    fprintf(out, "findings:\n");
    findings_print_text(&r->findings, grouped, out);
    print_nccl(r, out);
    fprintf(out, "\nverdict: %s\n", verdict_to_string(r->verdict));
}

static void add_string(json_object *o, const char *key, const char *value)
{
    json_object_object_add(o, key, value ? json_object_new_string(value) : NULL);
}

static json_object *finding_to_json(const struct finding *f)
{
    json_object *o = json_object_new_object();
    add_string(o, "check", f->check);
    add_string(o, "severity", severity_to_string(f->severity));
    add_string(o, "rail", f->rail);
    add_string(o, "message", f->message);
    add_string(o, "expected", f->expected);
    add_string(o, "actual", f->actual);
    add_string(o, "hint", f->hint);
    if (f->subject)     /* what within the rail or node: a sysctl key, a peer */
        add_string(o, "subject", f->subject);
    return o;
}

static json_object *prios_to_json(bool known, uint8_t mask)
{
    if (!known)
        return NULL;
    json_object *a = json_object_new_array();
    for (int p = 0; p < QOS_PRIOS; p++)
        if (mask & (1u << p))
            json_object_array_add(a, json_object_new_int(p));
    return a;
}

static json_object *int_or_null(int v)
{
    return v < 0 ? NULL : json_object_new_int(v);
}

/* What the QoS sources read (the qos.* findings judge it); null where not exposed. */
static json_object *qos_to_json(const struct qos_state *q)
{
    json_object *o = json_object_new_object();
    char dcbx[64];
    const struct dcb_state *d = &q->dcb;
    add_string(o, "dcb_unavailable", d->known ? NULL : d->why);
    json_object_object_add(o, "pfc_priorities", prios_to_json(d->known && d->has_pfc, d->pfc_en));
    dcb_dcbx_format(d->dcbx, dcbx, sizeof(dcbx));
    add_string(o, "dcbx", d->known ? dcbx : NULL);
    json_object_object_add(o, "app_entries", d->known && d->has_app_table
                           ? json_object_new_int((int)d->n_app) : NULL);
    add_string(o, "trust", q->trust[0] ? q->trust : NULL);
    add_string(o, "trust_source", q->trust_source == TRUST_FROM_SYSFS ? "sysfs"
               : q->trust_source == TRUST_FROM_APP_TABLE ? "app_table" : NULL);
    json_object_object_add(o, "ecn_np_priorities", prios_to_json(q->ecn_known, q->ecn_np));
    json_object_object_add(o, "ecn_rp_priorities", prios_to_json(q->ecn_known, q->ecn_rp));
    json_object_object_add(o, "cnp_dscp", int_or_null(q->cnp_dscp));
    json_object_object_add(o, "cnp_802p_prio", int_or_null(q->cnp_802p_prio));
    json_object_object_add(o, "global_pause_rx", q->pause_rx < 0 ? NULL : json_object_new_boolean(q->pause_rx));
    json_object_object_add(o, "global_pause_tx", q->pause_tx < 0 ? NULL : json_object_new_boolean(q->pause_tx));
    return o;
}

/* The HCA's PCIe link and Max Read Request; null for a software device. */
static json_object *pcie_to_json(const struct pcie_link *l)
{
    if (!l->known && !l->max_read_request)
        return NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "speed_gts", l->known ? json_object_new_double(l->speed_gts) : NULL);
    json_object_object_add(o, "width", l->known ? json_object_new_int((int)l->width) : NULL);
    json_object_object_add(o, "max_speed_gts", l->known ? json_object_new_double(l->max_speed_gts) : NULL);
    json_object_object_add(o, "max_width", l->known ? json_object_new_int((int)l->max_width) : NULL);
    json_object_object_add(o, "max_read_request_bytes", l->max_read_request
                           ? json_object_new_int((int)l->max_read_request) : NULL);
    return o;
}

static json_object *rail_to_json(const struct report *r, size_t i)
{
    const struct rail *rail = &r->inventory.rails[i];
    json_object *o = json_object_new_object(), *nd = json_object_new_object();
    int idx = rail->gid_index;
    char ip[64] = "";

    add_string(o, "name", rail->name);
    add_string(o, "device", rail->device);
    json_object_object_add(o, "port", json_object_new_int((int)rail->port));
    add_string(o, "driver", rail->driver[0] ? rail->driver : NULL);
    add_string(o, "fw_ver", rail->fw_ver[0] ? rail->fw_ver : NULL);
    add_string(o, "node_guid", rail->node_guid[0] ? rail->node_guid : NULL);
    add_string(o, "pci_address", rail->pci_addr[0] ? rail->pci_addr : NULL);
    json_object_object_add(o, "numa_node", json_object_new_int(rail->numa_node));
    add_string(o, "link_layer", rail->link_layer);
    add_string(o, "state", rail->state_name);
    add_string(o, "phys_state", rail->phys_state_name);
    json_object_object_add(o, "rate_bits_per_second",
                           json_object_new_int64((int64_t)(rail->rate_gbps * 1e9)));
    json_object_object_add(o, "active_mtu_bytes", json_object_new_int((int)rail->active_mtu));
    json_object_object_add(o, "gid_index", idx >= 0 ? json_object_new_int(idx) : NULL);
    if (idx >= 0 && (uint32_t)idx < rail->n_gids && !gid_is_zero(rail->gids[idx].raw))
        gid_format(rail->gids[idx].raw, true, ip, sizeof(ip));
    add_string(o, "roce_address", ip[0] ? ip : NULL);
    json_object_object_add(o, "gid_table_size", json_object_new_int((int)rail->n_gids));
    add_string(nd, "name", rail->netdev.name[0] ? rail->netdev.name : NULL);
    json_object_object_add(nd, "present", json_object_new_boolean(rail->netdev.present));
    add_string(nd, "operstate", rail->netdev.operstate);
    json_object_object_add(nd, "carrier", rail->netdev.carrier < 0 ? NULL
                                          : json_object_new_boolean(rail->netdev.carrier));
    json_object_object_add(nd, "mtu_bytes", json_object_new_int((int)rail->netdev.mtu));
    json_object_object_add(nd, "carrier_changes", rail->netdev.has_carrier_changes
                           ? json_object_new_int64((int64_t)rail->netdev.carrier_changes) : NULL);
    json_object_object_add(o, "netdev", nd);
    json_object_object_add(o, "pcie", pcie_to_json(&rail->pcie));
    if (streq(rail->link_layer, "Ethernet"))
        json_object_object_add(o, "qos", qos_to_json(&rail->qos));
    add_string(o, "verdict", verdict_to_string(report_rail_verdict(r, i)));
    return o;
}

json_object *tuning_to_json(const struct tuning *t)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < t->n; i++) {
        const struct tuning_key *k = &t->keys[i];
        json_object *o = json_object_new_object();
        add_string(o, "key", k->key);
        add_string(o, "wanted", k->wanted);
        add_string(o, "live", k->live_known ? k->live : NULL);
        add_string(o, "original", k->has_original ? k->original : NULL);
        add_string(o, "state", tuning_state_to_string(k->state));
        add_string(o, "writer", k->writer[0] ? k->writer : NULL);
        add_string(o, "error", k->error[0] ? k->error : NULL);
        json_object_array_add(a, o);
    }
    return a;
}

static json_object *result_to_json(const struct probe_result *r)
{
    if (!r->ran)
        return NULL;
    json_object *o = json_object_new_object();
    add_string(o, "error", r->error ? r->error_text : NULL);
    if (!r->error && r->latency.n) {
        const struct stats *s = &r->latency;
        json_object *l = json_object_new_object();
        json_object_object_add(l, "samples", json_object_new_int64((int64_t)s->n));
        json_object_object_add(l, "min", json_object_new_double(s->min));
        json_object_object_add(l, "p50", json_object_new_double(s->p50));
        json_object_object_add(l, "p90", json_object_new_double(s->p90));
        json_object_object_add(l, "p99", json_object_new_double(s->p99));
        json_object_object_add(l, "p99_9", json_object_new_double(s->p999));
        json_object_object_add(l, "max", json_object_new_double(s->max));
        json_object_object_add(l, "mean", json_object_new_double(s->mean));
        json_object_object_add(l, "stddev", json_object_new_double(s->stddev));
        json_object_object_add(o, "latency_seconds", l);
    }
    if (!r->error && r->bandwidth > 0)
        json_object_object_add(o, "bandwidth_bytes_per_second", json_object_new_double(r->bandwidth));
    return o;
}

static json_object *probes_to_json(const struct report *r)
{
    const struct probe_run *run = &r->probes;
    if (!r->probed)
        return NULL;
    json_object *o = json_object_new_object(), *targets = json_object_new_array();
    json_object *cross = json_object_new_array();
    json_object_object_add(o, "wall_seconds", json_object_new_double(run->wall_seconds));
    json_object_object_add(o, "cpu_seconds", json_object_new_double(run->cpu_seconds));
    for (size_t i = 0; i < run->n; i++) {
        const struct probe_target *t = &run->targets[i];
        json_object *j = json_object_new_object();
        add_string(j, "target", t->name);
        json_object_object_add(j, "rdma_latency", result_to_json(&t->rdma_lat));
        json_object_object_add(j, "rdma_bandwidth", result_to_json(&t->rdma_bw));
        json_object_object_add(j, "tcp_latency", result_to_json(&t->tcp_lat));
        json_object_object_add(j, "tcp_bandwidth", result_to_json(&t->tcp_bw));
        if (t->rdma_lat.ran && !t->rdma_lat.error && t->tcp_lat.ran && !t->tcp_lat.error) {
            json_object_object_add(j, "roce_tcp_p50_ratio", json_object_new_double(
                t->rdma_lat.latency.p50 / t->tcp_lat.latency.p50));
            json_object_object_add(j, "rdma_jitter_p99_p50", json_object_new_double(
                t->rdma_lat.latency.p99 / t->rdma_lat.latency.p50));
            json_object_object_add(j, "tcp_jitter_p99_p50", json_object_new_double(
                t->tcp_lat.latency.p99 / t->tcp_lat.latency.p50));
        }
        json_object_array_add(targets, j);
    }
    for (size_t i = 0; i < run->n_cross; i++) {
        json_object *j = json_object_new_object();
        add_string(j, "pair", run->cross[i].name);
        json_object_object_add(j, "rdma_latency", result_to_json(&run->cross[i].lat));
        json_object_object_add(j, "rdma_bandwidth", result_to_json(&run->cross[i].bw));
        json_object_array_add(cross, j);
    }
    json_object *peers = json_object_new_array();
    for (size_t i = 0; i < run->n_peers; i++) {
        const struct probe_peer *e = &run->peers[i];
        json_object *j = json_object_new_object();
        add_string(j, "peer", e->peer);
        add_string(j, "rail", e->rail);
        if (*e->addr)
            add_string(j, "address", e->addr);
        json_object_object_add(j, "port", json_object_new_int(e->port));
        json_object_object_add(j, "rdma_latency", result_to_json(&e->rdma_lat));
        json_object_object_add(j, "rdma_bandwidth", result_to_json(&e->rdma_bw));
        json_object_object_add(j, "tcp_latency", result_to_json(&e->tcp_lat));
        json_object_object_add(j, "tcp_bandwidth", result_to_json(&e->tcp_bw));
        json_object_array_add(peers, j);
    }
    json_object_object_add(o, "targets", targets);
    json_object_object_add(o, "cross_rail", cross);
    json_object_object_add(o, "peers", peers);
    return o;
}

static json_object *nccl_to_json(const struct nccl_contract *c)
{
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < c->n; i++)
        add_string(o, c->vars[i].name, c->vars[i].value);
    return o;
}

json_object *report_findings_json(const struct report *r, bool failing_only)
{
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < r->findings.n; i++)
        if (!failing_only || r->findings.items[i].severity == SEVERITY_WARNING ||
            r->findings.items[i].severity == SEVERITY_ERROR)
            json_object_array_add(a, finding_to_json(&r->findings.items[i]));
    return a;
}

json_object *report_tuning_json(const struct report *r)
{
    return tuning_to_json(&r->tuning);
}

json_object *report_probes_json(const struct report *r)
{
    return probes_to_json(r);
}

json_object *report_to_json(const struct report *r)
{
    json_object *o = json_object_new_object();
    json_object *findings = json_object_new_array(), *rails = json_object_new_array();
    json_object *notes = json_object_new_array();

    add_string(o, "version", PACKAGE_VERSION);
    add_string(o, "hostname", r->hostname);
    add_string(o, "kernel", r->kernel);
    add_string(o, "policy", r->policy_source);
    add_string(o, "verdict", verdict_to_string(r->verdict));
    add_string(o, "inventory", r->inventory.source == INVENTORY_LIVE ? "live" : "snapshot");
    for (size_t i = 0; i < r->inventory.n_rails; i++)
        json_object_array_add(rails, rail_to_json(r, i));
    json_object_object_add(o, "rails", rails);
    add_string(o, "why_no_rails", r->inventory.n_rails ? NULL : r->inventory.why_no_rails);
    for (size_t i = 0; i < r->inventory.n_notes; i++)
        json_object_array_add(notes, json_object_new_string(r->inventory.notes[i]));
    json_object_object_add(o, "notes", notes);
    json_object_object_add(o, "nccl", nccl_to_json(&r->nccl));
    json_object *gpus = json_object_new_array();
    for (size_t i = 0; i < r->inventory.n_gpus; i++) {
        const struct gpu *g = &r->inventory.gpus[i];
        json_object *j = json_object_new_object();
        add_string(j, "pci_address", g->pci_addr);
        add_string(j, "vendor", g->vendor);
        add_string(j, "path", g->path);
        json_object_object_add(j, "numa_node", json_object_new_int(g->numa_node));
        json_object_array_add(gpus, j);
    }
    json_object_object_add(o, "gpus", gpus);
    json_object_object_add(o, "tuning", tuning_to_json(&r->tuning));
    json_object_object_add(o, "probes", probes_to_json(r));
    for (size_t i = 0; i < r->findings.n; i++)
        json_object_array_add(findings, finding_to_json(&r->findings.items[i]));
    json_object_object_add(o, "findings", findings);
    return o;
}
