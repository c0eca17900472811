/* SPDX-License-Identifier: ISC */
/* The Prometheus text exposition of a report, as `promtool check metrics` wants it: base
 * units (seconds, bytes per second), counters ending in _total, one HELP and TYPE per
 * family, label values escaped. Rails carry node_exporter's infiniband labels (device,
 * port) and netdev, so fabtune's series join node_infiniband_* ones. fabtune.yaml(5)'s
 * METRICS section documents every family. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lldp.h"
#include "macro.h"
#include "metrics.h"
#include "jobs_json.h"
#include "rail_subnet.h"
#include "strutil.h"

static void family(FILE *f, const char *name, const char *type, const char *text)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

static void label_value(FILE *f, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fputc('\\', f);
        if (*v == '\n')
            fputs("\\n", f);
        else
            fputc(*v, f);
    }
}

/* One sample: NAME{K="V",...} VALUE. The label pairs end with NULL; a pair whose value is
 * NULL or "" is left out (Prometheus reads an empty label as an absent one). */
static void sample(FILE *f, const char *name, double value, ...)
{
    va_list ap;
    const char *k, *sep = "{";
    fputs(name, f);
    va_start(ap, value);
    while ((k = va_arg(ap, const char *))) {
        const char *v = va_arg(ap, const char *);
        if (!v || !*v)
            continue;
        fprintf(f, "%s%s=\"", sep, k);
        label_value(f, v);
        fputc('"', f);
        sep = ",";
    }
    va_end(ap);
    fprintf(f, "%s %.9g\n", *sep == ',' ? "}" : "", value);
}

/* A sample of a time in seconds since the epoch, to the microsecond: %.9g would print
 * 1.79635243e+09, ten seconds of resolution. */
static void timestamp_sample(FILE *f, const char *name, usec_t t)
{
    fprintf(f, "%s %llu.%06llu\n", name, (unsigned long long)(t / USEC_PER_SEC),
            (unsigned long long)(t % USEC_PER_SEC));
}

/* A rail's labels: "mlx5_0/1" -> device "mlx5_0", port "1"; the netdev if the inventory
 * has the rail. A name of no rail ("loopback", a cross pair) goes to "target" instead. */
struct rail_labels {
    char device[80], port[16], target[160];
    const char *netdev;
};

static void rail_labels(const struct report *r, const char *name, struct rail_labels *l)
{
    const char *slash = name ? strrchr(name, '/') : NULL;
    memset(l, 0, sizeof(*l));
    if (!name)
        return;
    for (size_t i = 0; i < r->inventory.n_rails; i++) {
        const struct rail *rl = &r->inventory.rails[i];
        if (streq(rl->name, name)) {
            if (rl->netdev.present)
                l->netdev = rl->netdev.name;
            break;
        }
    }
    if (slash && !strstr(name, "<>") && (size_t)(slash - name) < sizeof(l->device)) {
        memcpy(l->device, name, (size_t)(slash - name));
        strscpy(l->port, slash + 1, sizeof(l->port));
    } else {
        strscpy(l->target, name, sizeof(l->target));
    }
}

#define RAIL_LABELS(l) "device", (l).device, "port", (l).port, "netdev", (l).netdev, "target", (l).target

static void node_metrics(FILE *f, const struct report *r)
{
    family(f, "fabtune_build_info", "gauge", "1, labelled with the fabtuned version.");
    sample(f, "fabtune_build_info", 1, "version", PACKAGE_VERSION, NULL);
    family(f, "fabtune_last_check_timestamp_seconds", "gauge",
           "When the last completed check finished, in seconds since the epoch.");
    timestamp_sample(f, "fabtune_last_check_timestamp_seconds", r->finished);
    family(f, "fabtune_last_check_duration_seconds", "gauge", "How long the last check took.");
    sample(f, "fabtune_last_check_duration_seconds",
           r->finished > r->started ? (double)(r->finished - r->started) / 1e6 : 0, NULL);
    family(f, "fabtune_node_verdict", "gauge", "1 for the node's current verdict, 0 for the others.");
    for (enum verdict v = VERDICT_READY; v <= VERDICT_UNKNOWN; v++)
        sample(f, "fabtune_node_verdict", r->verdict == v, "verdict", verdict_to_string(v), NULL);
    family(f, "fabtune_findings", "gauge", "Findings of the last check by severity.");
    for (enum severity s = SEVERITY_OK; s <= SEVERITY_ERROR; s++) {
        size_t n = 0;
        for (size_t i = 0; i < r->findings.n; i++)
            n += r->findings.items[i].severity == s;
        sample(f, "fabtune_findings", (double)n, "severity", severity_to_string(s), NULL);
    }
}

static void rail_metrics(FILE *f, const struct report *r)
{
    const struct inventory *inv = &r->inventory;
    struct rail_labels l;
    size_t ready = 0;
    for (size_t i = 0; i < inv->n_rails; i++)
        ready += report_rail_verdict(r, i) == VERDICT_READY;
    family(f, "fabtune_rails", "gauge", "Rails the policy selects that this node has.");
    sample(f, "fabtune_rails", (double)inv->n_rails, NULL);
    family(f, "fabtune_rails_ready", "gauge", "Rails whose verdict is READY.");
    sample(f, "fabtune_rails_ready", (double)ready, NULL);
    family(f, "fabtune_rail_ready", "gauge", "1 when the rail's verdict is READY.");
    for (size_t i = 0; i < inv->n_rails; i++) {
        rail_labels(r, inv->rails[i].name, &l);
        sample(f, "fabtune_rail_ready", report_rail_verdict(r, i) == VERDICT_READY, RAIL_LABELS(l),
               NULL);
    }
    family(f, "fabtune_rail_rate_bytes_per_second", "gauge", "The port's active rate (absent when unknown).");
    for (size_t i = 0; i < inv->n_rails; i++) {
        if (inv->rails[i].rate_gbps <= 0)
            continue;       /* unknown: a rate of 0 would read as a dead port */
        rail_labels(r, inv->rails[i].name, &l);
        sample(f, "fabtune_rail_rate_bytes_per_second", inv->rails[i].rate_gbps * 1e9 / 8,
               RAIL_LABELS(l), NULL);
    }
    family(f, "fabtune_rail_gid_index", "gauge", "The RoCE GID index the policy's address family and version select.");
    for (size_t i = 0; i < inv->n_rails; i++) {
        if (inv->rails[i].gid_index < 0)
            continue;
        rail_labels(r, inv->rails[i].name, &l);
        sample(f, "fabtune_rail_gid_index", inv->rails[i].gid_index, RAIL_LABELS(l), NULL);
    }
    /* The fleet compares subnets across nodes (FabtuneRailSubnetDiffers). */
    family(f, "fabtune_rail_info", "gauge",
           "1 for each rail with a RoCE v2 IPv4 address, labelled with that address's subnet.");
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct cidr c;
        char subnet[64];
        if (rail_roce_ipv4_subnet(&inv->rails[i], &c) < 0)
            continue;
        rail_labels(r, inv->rails[i].name, &l);
        sample(f, "fabtune_rail_info", 1, RAIL_LABELS(l), "subnet",
               cidr_format(&c, subnet, sizeof(subnet)), NULL);
    }
    /* The fleet compares what rails reach across nodes (fabtune-rules.yml's cabling group):
     * the neighbour the port reaches now (lldp_current), by lldp_switch_name and
     * lldp_port_name, as fabric.cabling names them. */
    family(f, "fabtune_rail_neighbor_info", "gauge",
           "1 for each rail with an LLDP neighbour, labelled with the neighbour's switch and port.");
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct lldp_neighbor *n = inv->rails[i].lldp.known ? lldp_current(&inv->rails[i].lldp) : NULL;
        if (!n)
            continue;
        rail_labels(r, inv->rails[i].name, &l);
        sample(f, "fabtune_rail_neighbor_info", 1, RAIL_LABELS(l), "switch", lldp_switch_name(n),
               "switch_port", lldp_port_name(n), NULL);
    }
    family(f, "fabtune_rail_carrier_changes_total", "counter", "Carrier changes of the rail's netdev since it appeared.");
    for (size_t i = 0; i < inv->n_rails; i++) {
        if (!inv->rails[i].netdev.has_carrier_changes)
            continue;
        rail_labels(r, inv->rails[i].name, &l);
        sample(f, "fabtune_rail_carrier_changes_total", (double)inv->rails[i].netdev.carrier_changes,
               RAIL_LABELS(l), NULL);
    }
    family(f, "fabtune_rail_class_events_per_second", "gauge",
           "Events per second of the rail's counters of one class (loss, congestion, misconfig, starvation, pfc_storm, link, link_down, qp_error), over the last interval.");
    for (size_t i = 0; r->rail_rates && i < inv->n_rails; i++) {
        rail_labels(r, inv->rails[i].name, &l);
        for (enum counter_class c = 0; c < COUNTER_CLASSES; c++)
            if (r->rail_rates[i][c].known)
                sample(f, "fabtune_rail_class_events_per_second", r->rail_rates[i][c].per_second,
                       RAIL_LABELS(l), "class", counter_class_name(c), NULL);
    }
    family(f, "fabtune_rail_class_events_total", "counter",
           "Events the rail's counters of one class counted since their last reset: the sum of the class's counters in the last sample (port_xmit_wait counts ticks). A reset starts it again; a saturated PMA counter adds no more.");
    for (size_t i = 0; r->rail_rates && i < inv->n_rails; i++) {
        rail_labels(r, inv->rails[i].name, &l);
        for (enum counter_class c = 0; c < COUNTER_CLASSES; c++)
            if (r->rail_rates[i][c].present)
                sample(f, "fabtune_rail_class_events_total", (double)r->rail_rates[i][c].total,
                       RAIL_LABELS(l), "class", counter_class_name(c), NULL);
    }
}

/* The fleet compares each rail's DCQCN parameters across nodes (FabtuneCcDigestDiffers):
 * a digest of them (cc.h), and the profile in force; both labels are bounded. */
static void cc_metrics(FILE *f, const struct report *r)
{
    struct rail_labels l;
    char digest[17];
    family(f, "fabtune_rail_cc_info", "gauge",
           "1 for each rail whose DCQCN parameters are exposed, labelled with the policy's "
           "congestion-control profile and a digest of the running parameters.");
    for (size_t i = 0; i < r->inventory.n_rails; i++) {
        const struct rail *rl = &r->inventory.rails[i];
        if (!rl->cc.known)
            continue;
        cc_digest(rl->cc.running, digest);
        rail_labels(r, rl->name, &l);
        sample(f, "fabtune_rail_cc_info", 1, RAIL_LABELS(l), "profile",
               cc_profile_names[r->cc_profile], "digest", digest, NULL);
    }
}

/* The pluggable modules the live source read: identity, and the readings in base units
 * (degrees Celsius, volts, watts, amperes), lanes labelled from 1. No thresholds: the
 * findings of link.module judge against them. */
static void module_lane_family(FILE *f, const struct report *r, const char *name,
                               enum module_quantity q, const char *text)
{
    const struct inventory *inv = &r->inventory;
    struct rail_labels l;
    family(f, name, "gauge", text);
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct module_state *m = &inv->rails[i].module;
        const struct module_reading *rd = q == MODULE_Q_RX_POWER ? m->info.rx_power
                                        : q == MODULE_Q_TX_POWER ? m->info.tx_power
                                                                 : m->info.tx_bias;
        if (!m->known || !m->info.monitored)
            continue;
        rail_labels(r, inv->rails[i].name, &l);
        for (unsigned k = 0; k < m->info.lanes && k < MODULE_LANES_MAX; k++) {
            char lane[8];
            snprintf(lane, sizeof(lane), "%u", k + 1);
            if (rd[k].valid)
                sample(f, name, module_value(&m->info, q, rd[k].raw), RAIL_LABELS(l), "lane",
                       lane, NULL);
        }
    }
}

static void module_metrics(FILE *f, const struct report *r)
{
    const struct inventory *inv = &r->inventory;
    struct rail_labels l;
    family(f, "fabtune_rail_module_info", "gauge",
           "1 for each rail whose pluggable module was read: SFF-8024 identifier, vendor, part and serial numbers, media (DAC, active copper, AOC, optical), monitored (0 for a DAC).");
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct module_state *m = &inv->rails[i].module;
        char id[8];
        if (!m->known)
            continue;
        rail_labels(r, inv->rails[i].name, &l);
        sample(f, "fabtune_rail_module_info", 1, RAIL_LABELS(l), "identifier",
               module_identifier_name(m->info.identifier, id), "vendor", m->info.vendor,
               "part", m->info.part, "serial", m->info.serial, "media",
               module_media_name(m->info.media), "monitored", m->info.monitored ? "1" : "0",
               NULL);
    }
    family(f, "fabtune_rail_module_temperature_celsius", "gauge", "The module's temperature.");
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct module_state *m = &inv->rails[i].module;
        if (!m->known || !m->info.temperature.valid)
            continue;
        rail_labels(r, inv->rails[i].name, &l);
        sample(f, "fabtune_rail_module_temperature_celsius",
               module_value(&m->info, MODULE_Q_TEMPERATURE, m->info.temperature.raw),
               RAIL_LABELS(l), NULL);
    }
    family(f, "fabtune_rail_module_supply_voltage_volts", "gauge", "The module's supply voltage (Vcc).");
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct module_state *m = &inv->rails[i].module;
        if (!m->known || !m->info.vcc.valid)
            continue;
        rail_labels(r, inv->rails[i].name, &l);
        sample(f, "fabtune_rail_module_supply_voltage_volts",
               module_value(&m->info, MODULE_Q_VCC, m->info.vcc.raw), RAIL_LABELS(l), NULL);
    }
    module_lane_family(f, r, "fabtune_rail_module_rx_power_watts", MODULE_Q_RX_POWER,
                       "A lane's received optical power (average or OMA, as the module measures it).");
    module_lane_family(f, r, "fabtune_rail_module_tx_power_watts", MODULE_Q_TX_POWER,
                       "A lane's transmitted optical power.");
    module_lane_family(f, r, "fabtune_rail_module_tx_bias_amperes", MODULE_Q_TX_BIAS,
                       "A lane's laser bias current.");
}

/* The FEC mode and statistics FEC_GET gave (totals since their reset, as counters), and
 * the bit error ratios between the last two samples (link.ber judges them). */
static void fec_metrics(FILE *f, const struct report *r)
{
    static const struct {
        const char *name, *help;
        enum fec_stat stat;
    } stats[] = {
        { "fabtune_rail_fec_corrected_blocks_total", "FEC blocks (codewords) corrected, from ETHTOOL_MSG_FEC_GET's statistics.", FEC_STAT_CORRECTED },
        { "fabtune_rail_fec_uncorrectable_blocks_total", "FEC blocks the FEC could not correct.", FEC_STAT_UNCORRECTABLE },
        { "fabtune_rail_fec_bit_errors_corrected_total", "Bit errors the FEC corrected (ETHTOOL_A_FEC_STAT_CORR_BITS).", FEC_STAT_CORRECTED_BITS },
    };
    const struct inventory *inv = &r->inventory;
    struct rail_labels l;
    family(f, "fabtune_rail_fec_info", "gauge",
           "1 for each rail whose FEC was read, labelled with its active mode (off, rs, baser, llrs, unknown).");
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct fec_state *x = &inv->rails[i].fec;
        if (!x->known)
            continue;
        rail_labels(r, inv->rails[i].name, &l);
        sample(f, "fabtune_rail_fec_info", 1, RAIL_LABELS(l), "mode", fec_mode_name(x->info.active),
               NULL);
    }
    for (size_t k = 0; k < sizeof(stats) / sizeof(stats[0]); k++) {
        family(f, stats[k].name, "counter", stats[k].help);
        for (size_t i = 0; i < inv->n_rails; i++) {
            const struct fec_state *x = &inv->rails[i].fec;
            if (!x->known || !x->info.stats[stats[k].stat].valid)
                continue;
            rail_labels(r, inv->rails[i].name, &l);
            sample(f, stats[k].name, (double)x->info.stats[stats[k].stat].total, RAIL_LABELS(l),
                   NULL);
        }
    }
    for (int post = 0; post < 2; post++) {
        const char *name = post ? "fabtune_rail_post_fec_ber" : "fabtune_rail_pre_fec_ber";
        family(f, name, "gauge", post
               ? "Post-FEC bit error ratio over the last interval: symbol errors FEC left (mlx5), else uncorrectable blocks, over the bits the port's rate carried."
               : "Pre-FEC bit error ratio over the last interval: corrected bits over the bits the port's rate carried.");
        for (size_t i = 0; r->rail_links && i < inv->n_rails; i++) {
            struct link_ber b;
            link_ber_of(r->rail_links[i].link, inv->rails[i].rate_gbps, &b);
            if (post ? !b.post_known : !b.pre_known)
                continue;
            rail_labels(r, inv->rails[i].name, &l);
            sample(f, name, post ? b.post_ber : b.pre_ber, RAIL_LABELS(l), NULL);
        }
    }
    family(f, "fabtune_rail_lane_pre_fec_ber", "gauge",
           "Pre-FEC bit error ratio of one lane over the last interval: its pre-FEC count (FEC_GET per lane, else mlx5's rx_err_lane_N_phy) over one lane's rate: the port's rate over its width on InfiniBand, over FEC_GET's lanes on Ethernet; absent where the lane count is unknown.");
    for (size_t i = 0; r->rail_links && i < inv->n_rails; i++) {
        const struct rail *rail = &inv->rails[i];
        struct lane_ber lb;
        char lane[12];
        link_lane_ber_of(r->rail_links[i].lanes, r->rail_links[i].lanes_phy, rail, &lb);
        rail_labels(r, rail->name, &l);
        for (unsigned k = 0; k < lb.n; k++) {
            if (!lb.known[k])
                continue;
            snprintf(lane, sizeof(lane), "%u", k);
            sample(f, "fabtune_rail_lane_pre_fec_ber", lb.ber[k], RAIL_LABELS(l), "lane", lane,
                   NULL);
        }
    }
}

static int by_check_and_rail(const void *a, const void *b)
{
    const struct finding *x = *(const struct finding *const *)a, *y = *(const struct finding *const *)b;
    int c = strcmp(x->check, y->check);
    return c ? c : strcmp(x->rail ? x->rail : "", y->rail ? y->rail : "");
}

/* One series per check and rail (node-wide checks: no rail labels): the worst severity of
 * its findings, 0 ok, 1 unknown, 2 warning, 3 error. */
static void check_metrics(FILE *f, const struct report *r)
{
    const struct findings *fs = &r->findings;
    family(f, "fabtune_check_severity", "gauge",
           "Worst severity of the check's findings on the rail: 0 ok, 1 unknown, 2 warning, 3 error.");
    if (!fs->n)
        return;
    const struct finding **sorted = calloc(fs->n, sizeof(*sorted));
    if (!sorted)
        return;
    for (size_t i = 0; i < fs->n; i++)
        sorted[i] = &fs->items[i];
    qsort(sorted, fs->n, sizeof(*sorted), by_check_and_rail);
    for (size_t i = 0; i < fs->n;) {
        enum severity worst = sorted[i]->severity;
        size_t j = i + 1;
        for (; j < fs->n && by_check_and_rail(&sorted[i], &sorted[j]) == 0; j++)
            if (sorted[j]->severity > worst)
                worst = sorted[j]->severity;
        struct rail_labels l;
        rail_labels(r, sorted[i]->rail, &l);
        sample(f, "fabtune_check_severity", worst, "check", sorted[i]->check, RAIL_LABELS(l), NULL);
        i = j;
    }
    free(sorted);
}

/* Complete: the contract names the rails, and on RoCE a GID index or an address range. */
static bool nccl_complete(const struct nccl_contract *c)
{
    const char *gid = nccl_contract_get(c, "NCCL_IB_GID_INDEX");
    return c->n && nccl_contract_get(c, "NCCL_IB_HCA") &&
           (!gid || !streq(gid, "-1") || nccl_contract_get(c, "NCCL_IB_ADDR_RANGE"));
}

/* Whether a sysctl is known to be off its wanted value: -1 unknown (no such key here, not
 * managed, not readable), else 0 or 1. */
static int tuning_drift(const struct tuning_key *k)
{
    switch (k->state) {
    case TUNING_STATE_APPLIED:
    case TUNING_STATE_MATCHES:
    case TUNING_STATE_REVERTED:
        return 0;
    case TUNING_STATE_DRIFT:
        return 1;
    case TUNING_STATE_FAILED:           /* a write that failed or did not hold */
        return k->live_known ? 1 : -1;
    case TUNING_STATE_MISSING:
    case TUNING_STATE_NOT_VISIBLE:      /* the host's, in a network namespace not its */
    case TUNING_STATE_UNMANAGED:
        break;
    }
    return -1;
}

static void contract_metrics(FILE *f, const struct report *r)
{
    family(f, "fabtune_nccl_contract_complete", "gauge",
           "1 when the NCCL contract names every rail and, on RoCE, a GID index or an address range; absent on a TCP-only node (rails.expect_count 0) without rails.");
    /* A TCP-only node has no contract to complete: 0 would alert for ever. */
    if (!(r->tcp_only && r->inventory.n_rails == 0))
        sample(f, "fabtune_nccl_contract_complete", nccl_complete(&r->nccl), NULL);
    family(f, "fabtune_nccl_variable_info", "gauge", "1 for each variable of the NCCL contract, with its value.");
    for (size_t i = 0; i < r->nccl.n; i++)
        sample(f, "fabtune_nccl_variable_info", 1, "variable", r->nccl.vars[i].name,
               "value", r->nccl.vars[i].value, NULL);
    family(f, "fabtune_tuning_drift", "gauge",
           "1 when a sysctl of the profile is not at its wanted value, 0 when it is; absent when unknown (no such key here, tuning off, unreadable).");
    for (size_t i = 0; i < r->tuning.n; i++) {
        int drift = tuning_drift(&r->tuning.keys[i]);
        if (drift >= 0)
            sample(f, "fabtune_tuning_drift", drift, "key", r->tuning.keys[i].key, NULL);
    }
}

struct probe_row {
    const char *target, *probe, *peer;      /* peer: NULL for the node's own probes */
    const struct probe_result *lat, *bw;
};

/* A row per transport of a target's or a path's RESULTS. */
static size_t transport_rows(const char *target, const char *peer, const struct probe_result *results,
                             struct probe_row *rows)
{
    for (enum probe_transport k = 0; k < PROBE_TRANSPORT_COUNT; k++)
        rows[k] = (struct probe_row){ target, probe_transport_name(k), peer,
                                      &results[probe_kind_of(k, PROBE_LATENCY)],
                                      &results[probe_kind_of(k, PROBE_BANDWIDTH)] };
    return PROBE_TRANSPORT_COUNT;
}

static size_t probe_rows(const struct report *r, struct probe_row *rows, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < r->probes.n && n + PROBE_TRANSPORT_COUNT <= cap; i++)
        n += transport_rows(r->probes.targets[i].name, NULL, r->probes.targets[i].result, rows + n);
    for (size_t i = 0; i < r->probes.n_cross && n < cap; i++)
        rows[n++] = (struct probe_row){ r->probes.cross[i].name, probe_transport_name(PROBE_RDMA), NULL,
                                        &r->probes.cross[i].lat, &r->probes.cross[i].bw };
    for (size_t i = 0; i < r->probes.n_peers && n + PROBE_TRANSPORT_COUNT <= cap; i++) {
        const struct probe_peer *e = &r->probes.peers[i];
        n += transport_rows(e->rail, e->peer, e->result, rows + n);
    }
    return n;
}

static void probe_metrics(FILE *f, const struct report *r)
{
    if (!r->probed)
        return;
    size_t cap = PROBE_TRANSPORT_COUNT * (r->probes.n + r->probes.n_peers) + r->probes.n_cross;
    struct probe_row *rows = cap ? calloc(cap, sizeof(*rows)) : NULL;
    size_t n = rows ? probe_rows(r, rows, cap) : 0;
    struct rail_labels l;
    static const struct { const char *name, *help; size_t off; } lat[] = {
        { "fabtune_probe_latency_p50_seconds", "Median one-way latency of the last probe run.",
          offsetof(struct stats, p50) },
        { "fabtune_probe_latency_p99_seconds", "99th percentile one-way latency of the last probe run.",
          offsetof(struct stats, p99) },
    };

    family(f, "fabtune_probe_success", "gauge",
           "1 when the probe (test latency or bandwidth) ran and succeeded, 0 when it failed.");
    for (size_t i = 0; i < n; i++) {
        rail_labels(r, rows[i].target, &l);
        if (rows[i].lat->ran)
            sample(f, "fabtune_probe_success", !rows[i].lat->error, RAIL_LABELS(l),
                   "probe", rows[i].probe, "peer", rows[i].peer, "test", "latency", NULL);
        if (rows[i].bw->ran)
            sample(f, "fabtune_probe_success", !rows[i].bw->error, RAIL_LABELS(l),
                   "probe", rows[i].probe, "peer", rows[i].peer, "test", "bandwidth", NULL);
    }
    for (size_t k = 0; k < ARRAY_SIZE(lat); k++) {
        family(f, lat[k].name, "gauge", lat[k].help);
        for (size_t i = 0; i < n; i++) {
            if (!rows[i].lat->ran || rows[i].lat->error)
                continue;
            rail_labels(r, rows[i].target, &l);
            sample(f, lat[k].name, *(const double *)((const char *)&rows[i].lat->latency + lat[k].off),
                   RAIL_LABELS(l), "probe", rows[i].probe, "peer", rows[i].peer, NULL);
        }
    }
    family(f, "fabtune_probe_bandwidth_bytes_per_second", "gauge", "Bandwidth of the last probe run.");
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].bw->ran || rows[i].bw->error)
            continue;
        rail_labels(r, rows[i].target, &l);
        sample(f, "fabtune_probe_bandwidth_bytes_per_second", rows[i].bw->bandwidth, RAIL_LABELS(l),
               "probe", rows[i].probe, "peer", rows[i].peer, NULL);
    }
    /* A deferred stream keeps its last figure: its age says how stale it is. */
    family(f, "fabtune_probe_deferred", "gauge",
           "1 while the bandwidth probe waits for a quiet rail or node (probes.defer); its last "
           "figure is then stale, fabtune_probe_age_seconds old.");
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].lat->ran && !rows[i].bw->deferred[0])
            continue;           /* not run here (RDMA from the host) */
        rail_labels(r, rows[i].target, &l);
        sample(f, "fabtune_probe_deferred", rows[i].bw->deferred[0] != '\0', RAIL_LABELS(l),
               "probe", rows[i].probe, "peer", rows[i].peer, NULL);
    }
    family(f, "fabtune_probe_age_seconds", "gauge",
           "Seconds since the probe (test latency or bandwidth) last ran.");
    for (size_t i = 0; i < n; i++) {
        const struct probe_result *res[] = { rows[i].lat, rows[i].bw };
        static const char *const test[] = { "latency", "bandwidth" };
        rail_labels(r, rows[i].target, &l);
        for (size_t k = 0; k < ARRAY_SIZE(res); k++)
            if (res[k]->ran && res[k]->at)
                sample(f, "fabtune_probe_age_seconds", probe_result_age(res[k]), RAIL_LABELS(l),
                       "probe", rows[i].probe, "peer", rows[i].peer, "test", test[k], NULL);
    }
    free(rows);

    /* The state machine's state and the last run's ratio, apart: a run 16x the baseline
     * reads ratio 16 and regressed 0 until consecutive bad runs make it 1. */
    family(f, "fabtune_probe_regressed", "gauge",
           "The regression state machine: 1 from probes.regression.consecutive bad runs in a row "
           "until as many good runs in a row clear it (the last run's figure is "
           "fabtune_probe_baseline_ratio); absent while learning.");
    for (size_t i = 0; i < r->n_regressions; i++) {
        const struct report_regression *g = &r->regressions[i];
        char size[16];
        if (!g->ready)
            continue;
        snprintf(size, sizeof(size), "%u", g->size);
        rail_labels(r, g->target, &l);
        sample(f, "fabtune_probe_regressed", g->degraded, RAIL_LABELS(l), "probe", g->probe,
               "size", size, "peer", g->peer, NULL);
    }
    family(f, "fabtune_probe_baseline_ratio", "gauge",
           "The last run against the learned baseline: the larger of p50/baseline p50 and "
           "p99/baseline p99 (a run over probes.regression.ratio is a bad run); absent while learning.");
    for (size_t i = 0; i < r->n_regressions; i++) {
        const struct report_regression *g = &r->regressions[i];
        char size[16];
        if (!g->ready || isnan(g->last_ratio))
            continue;
        snprintf(size, sizeof(size), "%u", g->size);
        rail_labels(r, g->target, &l);
        sample(f, "fabtune_probe_baseline_ratio", g->last_ratio, RAIL_LABELS(l), "probe", g->probe,
               "size", size, "peer", g->peer, NULL);
    }
}

/* The jobs' ranks of this node that RAS has behind, missing or dead: one sample each, 1,
 * labelled by job id, rank, rail, state and cause (no pids: bounded by the node's ranks),
 * and per job how many there are (0: in step), so that a rule can count, per node, the
 * jobs with a rank that lags here. */
static void job_metrics(FILE *f, const struct report *r)
{
    if (!r->jobs_watched)
        return;
    family(f, "fabtune_jobs", "gauge", "NCCL jobs on the node (processes mapping libnccl)");
    sample(f, "fabtune_jobs", (double)r->jobs.n, NULL);
    family(f, "fabtune_job_ras_up", "gauge",
           "1 when the job's RAS answered its last query, 0 when it failed or was never asked");
    for (size_t i = 0; i < r->jobs.n; i++) {
        const struct job *j = &r->jobs.jobs[i];
        sample(f, "fabtune_job_ras_up", j->ras.replies && !j->ras.failure_streak ? 1 : 0,
               "job_id", j->id, NULL);
    }
    family(f, "fabtune_job_ranks_failing", "gauge",
           "ranks of the job on this node that RAS has behind, missing or dead");
    for (size_t i = 0; i < r->jobs.n; i++) {
        const struct job *j = &r->jobs.jobs[i];
        size_t n = 0;
        for (size_t k = 0; k < j->ras.n_ranks; k++)
            n += ras_verdict_bad(j->ras.ranks[k].verdict) &&
                 job_rank_here(&r->jobs, j, j->ras.ranks[k].pid, j->ras.ranks[k].host);
        sample(f, "fabtune_job_ranks_failing", (double)n, "job_id", j->id, NULL);
    }
    family(f, "fabtune_job_rank_state", "gauge",
           "1 for each rank of this node behind, missing or dead: its state, its rail, and "
           "whether the rail showed trouble in its window (cause rail) or not (elsewhere)");
    for (size_t i = 0; i < r->jobs.n; i++) {
        const struct job *j = &r->jobs.jobs[i];
        for (size_t k = 0; k < j->ras.n_ranks; k++) {
            const struct ras_track_rank *rk = &j->ras.ranks[k];
            struct rank_place pl;
            char rank[16];
            if (!ras_verdict_bad(rk->verdict) || !job_rank_here(&r->jobs, j, rk->pid, rk->host))
                continue;
            job_rank_place(r, j, rk, &pl);
            snprintf(rank, sizeof(rank), "%d", rk->rank);
            sample(f, "fabtune_job_rank_state", 1, "job_id", j->id, "rank", rank, "rail", pl.rail,
                   "state", ras_verdict_name(rk->verdict), "cause", rank_cause_name(pl.cause), NULL);
        }
    }
}

char *metrics_render(const struct report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    node_metrics(f, r);
    rail_metrics(f, r);
    cc_metrics(f, r);
    module_metrics(f, r);
    fec_metrics(f, r);
    check_metrics(f, r);
    contract_metrics(f, r);
    probe_metrics(f, r);
    job_metrics(f, r);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

json_object *metrics_json(const struct report *r)
{
    _cleanup_free_ char *text = metrics_render(r);
    return text ? json_object_new_string(text) : NULL;
}
