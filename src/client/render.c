/* SPDX-License-Identifier: ISC */
/* Human tables for fabtunectl's replies. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "client.h"
#include "json_text.h"


static json_object *get(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The length of a, or 0 when the daemon sent something else than an array (json-c's own
 * json_object_array_length() asserts on anything else). */
static size_t count(json_object *a)
{
    return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static void render_findings(json_object *a)
{
    size_t n = count(a);
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(a, i);
        printf("  %-7s %-22s %-14s %s\n", json_text(f, "severity"), json_text(f, "check"),
               get(f, "rail") ? json_text(f, "rail") : "", json_text(f, "message"));
    }
}

/* A priority list as "3" or "3,4"; "off" for an empty one, "-" when not exposed. */
static void prios_text(json_object *a, char *buf, size_t len)
{
    size_t n = 0, len_a = count(a);
    snprintf(buf, len, "%s", a ? "off" : "-");
    for (size_t i = 0; i < len_a && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%d", i ? "," : "",
                              json_object_get_int(json_object_array_get_idx(a, i)));
}

void render_status(json_object *d)
{
    printf("verdict: %s\n", json_text(d, "verdict"));
    if (get(d, "reason"))
        printf("  %s\n", json_text(d, "reason"));
    if (get(d, "policy_error"))
        printf("policy reload failed (the old policy stays):\n%s\n", json_text(d, "policy_error"));
    json_object *rails = get(d, "rails"), *probes = get(get(d, "probes"), "targets");
    size_t n = count(rails);
    if (get(d, "why_no_rails"))
        printf("rails: 0 (%s)\n", json_text(d, "why_no_rails"));
    if (n)
        printf("%-12s %-15s %-7s %6s %5s %-18s %-4s %-4s %15s %15s %s\n", "RAIL", "NETDEV",
               "STATE", "RATE", "MTU", "GID", "PFC", "ECN", "RDMA p50/p99", "TCP p50/p99",
               "VERDICT");
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(rails, i), *nd = get(r, "netdev");
        char gid[48] = "-", rdma[32] = "-", tcp[32] = "-", pfc[24], ecn[24];
        prios_text(get(get(r, "qos"), "pfc_priorities"), pfc, sizeof(pfc));
        prios_text(get(get(r, "qos"), "ecn_np_priorities"), ecn, sizeof(ecn));
        if (get(r, "gid_index"))
            snprintf(gid, sizeof(gid), "%s %s", json_text(r, "gid_index"), json_text(r, "roce_address"));
        for (size_t j = 0; j < count(probes); j++) {
            json_object *t = json_object_array_get_idx(probes, j);
            if (strcmp(json_text(t, "target"), json_text(r, "name")) != 0)
                continue;
            json_object *rl = get(get(t, "rdma_latency"), "latency_seconds");
            json_object *tl = get(get(t, "tcp_latency"), "latency_seconds");
            if (rl)
                snprintf(rdma, sizeof(rdma), "%.1f/%.1fus", json_num(rl, "p50") * 1e6, json_num(rl, "p99") * 1e6);
            if (tl)
                snprintf(tcp, sizeof(tcp), "%.1f/%.1fus", json_num(tl, "p50") * 1e6, json_num(tl, "p99") * 1e6);
        }
        printf("%-12s %-15s %-7s %5.0fG %5.0f %-18s %-4s %-4s %15s %15s %s\n", json_text(r, "name"),
               json_text(nd, "name"), json_text(r, "state"), json_num(r, "rate_bits_per_second") / 1e9,
               json_num(nd, "mtu_bytes"), gid, pfc, ecn, rdma, tcp, json_text(r, "verdict"));
    }
    json_object *peers = get(get(d, "probes"), "peers");
    if (count(peers)) {
        size_t failed = 0;
        for (size_t i = 0; i < count(peers); i++)
            failed += get(get(json_object_array_get_idx(peers, i), "tcp_latency"), "latency_seconds") == NULL;
        printf("peers: %zu paths probed, %zu failed ('fabtunectl probes' lists them)\n",
               count(peers), failed);
    }
    json_object *failing = get(d, "failing");
    if (count(failing)) {
        printf("failing:\n");
        render_findings(failing);
    }
}

void render_checks(json_object *d)
{
    render_findings(d);
}

void render_probes(json_object *d)
{
    json_object *targets = get(get(d, "last_run"), "targets"), *b = get(d, "baselines");
    printf("%-22s %-5s %10s %10s %10s %12s\n", "TARGET", "PROBE", "MIN us", "P50 us", "P99 us",
           "Gb/s");
    for (size_t i = 0; i < count(targets); i++) {
        json_object *t = json_object_array_get_idx(targets, i);
        const char *kinds[] = { "rdma", "tcp" };
        for (size_t k = 0; k < 2; k++) {
            char lk[32], bk[32];
            snprintf(lk, sizeof(lk), "%s_latency", kinds[k]);
            snprintf(bk, sizeof(bk), "%s_bandwidth", kinds[k]);
            json_object *lat = get(t, lk), *ls = get(lat, "latency_seconds");
            if (!lat)
                continue;
            if (!ls) {
                printf("%-22s %-5s failed: %s\n", json_text(t, "target"), kinds[k], json_text(lat, "error"));
                continue;
            }
            printf("%-22s %-5s %10.2f %10.2f %10.2f %12.3f\n", json_text(t, "target"), kinds[k],
                   json_num(ls, "min") * 1e6, json_num(ls, "p50") * 1e6, json_num(ls, "p99") * 1e6,
                   json_num(get(t, bk), "bandwidth_bytes_per_second") * 8 / 1e9);
        }
    }
    json_object *peers = get(get(d, "last_run"), "peers");
    if (count(peers))
        printf("\n%-30s %-16s %-5s %10s %10s %10s %12s\n", "PEER", "FROM", "PROBE", "MIN us",
               "P50 us", "P99 us", "Gb/s");
    for (size_t i = 0; i < count(peers); i++) {
        json_object *e = json_object_array_get_idx(peers, i);
        const char *kinds[] = { "rdma", "tcp" };
        for (size_t k = 0; k < 2; k++) {
            char lk[32], bk[32];
            snprintf(lk, sizeof(lk), "%s_latency", kinds[k]);
            snprintf(bk, sizeof(bk), "%s_bandwidth", kinds[k]);
            json_object *lat = get(e, lk), *ls = get(lat, "latency_seconds");
            if (!lat)
                continue;       /* not run: RDMA needs a rail */
            if (!ls) {
                printf("%-30s %-16s %-5s failed: %s\n", json_text(e, "peer"), json_text(e, "rail"),
                       kinds[k], json_text(lat, "error"));
                continue;
            }
            printf("%-30s %-16s %-5s %10.2f %10.2f %10.2f %12.3f\n", json_text(e, "peer"),
                   json_text(e, "rail"), kinds[k], json_num(ls, "min") * 1e6, json_num(ls, "p50") * 1e6,
                   json_num(ls, "p99") * 1e6, json_num(get(e, bk), "bandwidth_bytes_per_second") * 8 / 1e9);
        }
    }
    json_object *rs = get(d, "responder");
    if (rs)
        printf("\nresponder: %s sessions served, %s refused (not in probes.peers), %s busy, "
               "%s malformed, %s active, %s allowed addresses\n", json_text(rs, "sessions"),
               json_text(rs, "refused"), json_text(rs, "busy"), json_text(rs, "bad_hello"),
               json_text(rs, "active"), json_text(rs, "allowed_addresses"));
    printf("\n%-30s %-9s %14s %14s\n", "BASELINE", "STATE", "p50 base/last", "p99 base/last");
    for (size_t i = 0; i < count(b); i++) {
        json_object *x = json_object_array_get_idx(b, i);
        char p50[32], p99[32];
        snprintf(p50, sizeof(p50), "%.1f/%.1f", json_num(x, "baseline_p50_seconds") * 1e6,
                 json_num(x, "last_p50_seconds") * 1e6);
        snprintf(p99, sizeof(p99), "%.1f/%.1f", json_num(x, "baseline_p99_seconds") * 1e6,
                 json_num(x, "last_p99_seconds") * 1e6);
        printf("%-30s %-9s %14s %14s\n", json_text(x, "key"), json_text(x, "state"), p50, p99);
    }
}

void render_tuning(json_object *d)
{
    printf("%-30s %-22s %-22s %-22s %-9s %s\n", "KEY", "WANTED", "LIVE", "ORIGINAL", "STATE",
           "OTHER WRITER");
    for (size_t i = 0; i < count(d); i++) {
        json_object *k = json_object_array_get_idx(d, i);
        printf("%-30s %-22s %-22s %-22s %-9s %s\n", json_text(k, "key"), json_text(k, "wanted"),
               json_text(k, "live"), json_text(k, "original"), json_text(k, "state"), json_text(k, "writer"));
    }
}

void render_reload(json_object *d)
{
    json_object *v;
    if (json_object_object_get_ex(d, "verdict", &v))
        printf("policy reloaded from %s; verdict %s\n", json_text(d, "policy"), json_text(d, "verdict"));
    else
        printf("policy reloaded from %s; its first check is still running after %s s\n",
               json_text(d, "policy"), json_text(d, "check_running_after_seconds"));
}

void render_probe_now(json_object *d)
{
    (void)d;
    printf("probe run started; 'fabtunectl probes' shows it when done\n");
}

void render_gids(json_object *d)
{
    gid_table_print(d, stdout);
}
