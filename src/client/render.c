/* SPDX-License-Identifier: ISC */
/* Human tables for fabtunectl's replies; the findings' order and columns, and the text
 * wrapped to a column, that its commands share. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_ids.h"
#include "client.h"
#include "findings_fold.h"
#include "json_text.h"
#include "macro.h"


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

static int wider(int w, const char *s)
{
    int n = (int)strlen(s);
    return n > w ? n : w;
}

void print_wrapped(const char *text, int indent, int width)
{
    const int room = width - indent;
    while ((int)strlen(text) > room) {
        int cut = room;
        while (cut > 0 && text[cut] != ' ')
            cut--;
        if (cut == 0)
            break;
        printf("%.*s\n%*s", cut, text, indent, "");
        text += cut + 1;
    }
    printf("%s\n", text);
}

#define RAIL_WIDTH_MIN 18     /* "mlx5_0/1<>mlx5_1/1", the probes' pair of rails */

int findings_rail_width(json_object *a)
{
    int width = RAIL_WIDTH_MIN;
    for (size_t i = 0; i < count(a); i++) {
        json_object *f = json_object_array_get_idx(a, i);
        if (get(f, "rail"))
            width = wider(width, json_text(f, "rail"));
    }
    return width;
}

static int severity_rank(json_object *f)
{
    static const char *const order[] = { "error", "warning", "unknown", "ok" };
    const char *sev = json_text(f, "severity");
    for (size_t i = 0; i < ARRAY_SIZE(order); i++)
        if (streq(sev, order[i]))
            return (int)i;
    return (int)ARRAY_SIZE(order);
}

struct ranked {
    json_object *finding;
    size_t index;
};

static int by_rank(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    int d = severity_rank(a->finding) - severity_rank(b->finding);
    json_object *ra = get(a->finding, "rail"), *rb = get(b->finding, "rail");
    if (!d && (ra || rb))
        d = !ra ? -1 : !rb ? 1 : rail_name_order(json_object_get_string(ra), json_object_get_string(rb));
    return d ? d : (a->index > b->index) - (a->index < b->index);
}

void findings_sort(json_object *a)
{
    size_t n = count(a);
    struct ranked *r = n ? calloc(n, sizeof(*r)) : NULL;
    if (!r)
        return;         /* out of memory: in the pass's order */
    for (size_t i = 0; i < n; i++)
        r[i] = (struct ranked){ json_object_get(json_object_array_get_idx(a, i)), i };
    qsort(r, n, sizeof(*r), by_rank);
    /* Emptied, then filled in order: each finding lives on by the reference got above,
     * which the array takes back. */
    json_object_array_del_idx(a, 0, n);
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, r[i].finding);
    free(r);
}

bool render_every_finding;

/* KEY's text, or NULL when the finding has none. */
static const char *text_or_null(json_object *o, const char *key)
{
    return get(o, key) ? json_text(o, key) : NULL;
}

void render_findings(json_object *a, json_object *rails, bool details, int rail_width)
{
    size_t n = count(a), n_rails = count(rails);
    struct fold_finding *f = calloc(n ? n : 1, sizeof(*f));
    struct fold_rail *r = calloc(n_rails ? n_rails : 1, sizeof(*r));
    if (!f || !r) {
        free(f);
        free(r);
        printf("  (out of memory: --json lists the findings)\n");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *x = json_object_array_get_idx(a, i);
        f[i] = (struct fold_finding){ json_text(x, "check"), json_text(x, "severity"), text_or_null(x, "rail"),
                                      json_text(x, "message"), text_or_null(x, "expected"),
                                      text_or_null(x, "actual"), text_or_null(x, "hint") };
    }
    for (size_t i = 0; i < n_rails; i++) {
        json_object *x = json_object_array_get_idx(rails, i);
        r[i] = (struct fold_rail){ json_text(x, "name"), text_or_null(get(x, "netdev"), "name") };
    }
    findings_fold_print(f, n, r, n_rails, (details ? FOLD_DETAILS : 0) | FOLD_OK_ROWS |
                        (render_every_finding ? FOLD_EVERY : 0), rail_width, stdout);
    free(f);
    free(r);
}

static void probe_target_rows(json_object *targets);
static void deferred_note(json_object *bw);

/* "streams deferred:" and a line per deferred stream: why it waits, and the last figure's
 * age when it keeps one (stale). Streams that wait for one reason with no figure fold into
 * one line naming their targets (findings_fold.h's rule), unless -v. */
static void deferred_streams(json_object *targets)
{
    static const char *const kinds[] = { "rdma", "tcp" };
    struct waiting {
        const char *target, *kind, *why;
        json_object *bw;
        bool shown;
    } *w = calloc(count(targets) * ARRAY_SIZE(kinds) + 1, sizeof(*w));
    size_t n = 0;
    for (size_t i = 0; w && i < count(targets); i++) {
        json_object *t = json_object_array_get_idx(targets, i);
        for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
            char bk[32];
            snprintf(bk, sizeof(bk), "%s_bandwidth", kinds[k]);
            json_object *bw = get(t, bk);
            if (get(bw, "deferred"))
                w[n++] = (struct waiting){ json_text(t, "target"), kinds[k], json_text(bw, "deferred"), bw, false };
        }
    }
    if (n)
        printf("streams deferred:\n");
    for (size_t i = 0; i < n; i++) {
        if (w[i].shown)
            continue;
        bool figure = json_num(w[i].bw, "bandwidth_bytes_per_second") > 0;
        if (!render_every_finding && !figure) {
            const char *names[64];
            size_t k = 0;
            bool kind_seen[2] = { false, false };
            for (size_t j = i; j < n; j++) {
                if (w[j].shown || json_num(w[j].bw, "bandwidth_bytes_per_second") > 0 || !streq(w[j].why, w[i].why))
                    continue;
                w[j].shown = true;
                kind_seen[streq(w[j].kind, "tcp")] = true;
                if ((k == 0 || !streq(names[k - 1], w[j].target)) && k < ARRAY_SIZE(names))
                    names[k++] = w[j].target;
            }
            char list[640];
            rails_compact(names, k, list, sizeof(list));
            printf("  %s %s%s%s  deferred: %s\n", list, kind_seen[0] ? "rdma" : "",
                   kind_seen[0] && kind_seen[1] ? "+" : "", kind_seen[1] ? "tcp" : "", w[i].why);
            continue;
        }
        w[i].shown = true;
        printf("  %s %s", w[i].target, w[i].kind);
        if (figure)
            printf(" %.3f Gb/s", json_num(w[i].bw, "bandwidth_bytes_per_second") * 8 / 1e9);
        deferred_note(w[i].bw);
        putchar('\n');
    }
    free(w);
}

/* A rail's RoCE GID as "3 10.0.0.1", or "-". */
static void rail_gid(json_object *r, char *buf, size_t len)
{
    if (get(r, "gid_index"))
        snprintf(buf, len, "%s %s", json_text(r, "gid_index"), json_text(r, "roce_address"));
    else
        snprintf(buf, len, "-");
}

/* SECONDS as "42 s", "12 min" or "3.5 h". */
static void span_text(double seconds, char *buf, size_t len)
{
    if (seconds < 0)
        seconds = 0;
    if (seconds < 120)
        snprintf(buf, len, "%.0f s", seconds);
    else if (seconds < 120 * 60)
        snprintf(buf, len, "%.0f min", seconds / 60);
    else
        snprintf(buf, len, "%.1f h", seconds / 3600);
}

/* "last check: 12 s ago; next at 06:10:22 (in 59 min)", from the status reply's times. */
static void check_times(json_object *d)
{
    json_object *last = get(d, "last_check_usec"), *next = get(d, "next_check_usec");
    struct timespec now;
    char ago[32], in[32], at[16] = "";
    if (!last || json_num(d, "last_check_usec") <= 0)
        return;
    clock_gettime(CLOCK_REALTIME, &now);
    double t = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    span_text(t - json_num(d, "last_check_usec") / 1e6, ago, sizeof(ago));
    printf("last check: %s ago", ago);
    if (next) {
        time_t when = (time_t)(json_num(d, "next_check_usec") / 1e6);
        struct tm tm;
        if (localtime_r(&when, &tm))
            strftime(at, sizeof(at), "%H:%M:%S", &tm);
        span_text(json_num(d, "next_check_usec") / 1e6 - t, in, sizeof(in));
        printf("; next at %s (in %s)", at, in);
    }
    json_object *checking = get(d, "checking"), *probing = get(d, "probing");
    if (checking && json_object_get_boolean(checking))
        printf("; a check is running now");
    putchar('\n');
    if (probing && json_object_get_boolean(probing)) {
        printf("probes: running now\n");
    } else if (get(d, "next_probe_usec")) {
        span_text(json_num(d, "next_probe_usec") / 1e6 - t, in, sizeof(in));
        printf("probes: next run in %s\n", in);
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

/* SECONDS since the epoch as "2026-12-07 15:40:01" (local time). */
static void when_text(double seconds, char *buf, size_t len)
{
    time_t t = (time_t)seconds;
    struct tm tm;
    if (!localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
        snprintf(buf, len, "-");
}

/* What runs, as chronyc tracking's header says it: the daemon's version (and this
 * fabtunectl's where they differ), since when, its last reload, its policy with its
 * digest and tuning mode, and its directories. Nothing from a daemon older than the
 * header. */
static void daemon_header(json_object *d)
{
    json_object *dm = get(d, "daemon");
    struct timespec now;
    char since[32], up[32], at[32], ago[32];
    if (!dm)
        return;
    clock_gettime(CLOCK_REALTIME, &now);
    double t = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    printf("fabtuned %s", json_text(dm, "version"));
    if (!streq(json_text(dm, "version"), PACKAGE_VERSION))
        printf(" (this fabtunectl %s)", PACKAGE_VERSION);
    if (json_num(dm, "started_usec") > 0) {
        when_text(json_num(dm, "started_usec") / 1e6, since, sizeof(since));
        span_text(t - json_num(dm, "started_usec") / 1e6, up, sizeof(up));
        printf(", up since %s (%s)", since, up);
    }
    if (get(dm, "last_reload_usec")) {
        when_text(json_num(dm, "last_reload_usec") / 1e6, at, sizeof(at));
        span_text(t - json_num(dm, "last_reload_usec") / 1e6, ago, sizeof(ago));
        printf("; reloaded %s (%s ago)", at, ago);
    } else {
        printf("; not reloaded");
    }
    putchar('\n');
    char digest[16] = "-";
    if (get(dm, "policy_sha256"))
        snprintf(digest, sizeof(digest), "%.12s", json_text(dm, "policy_sha256"));
    printf("policy: %s (sha256 %s), tuning mode %s\n", json_text(dm, "policy"), digest,
           json_text(dm, "tuning_mode"));
    printf("directories: state %s, runtime %s\n", json_text(dm, "state_dir"), json_text(dm, "runtime_dir"));
}

void render_status(json_object *d)
{
    daemon_header(d);
    if (get(d, "verdict_cause"))
        printf("verdict: %s: %s\n", json_text(d, "verdict"), json_text(d, "verdict_cause"));
    else
        printf("verdict: %s\n", json_text(d, "verdict"));
    if (get(d, "reason"))
        printf("  %s\n", json_text(d, "reason"));
    check_times(d);
    if (get(d, "policy_error"))
        printf("policy reload failed (the old policy stays):\n%s\n", json_text(d, "policy_error"));
    if (get(d, "state_dir_error"))
        printf("state directory: %s\n", json_text(d, "state_dir_error"));
    json_object *rails = get(d, "rails"), *probes = get(get(d, "probes"), "targets");
    size_t n = count(rails);
    if (get(d, "why_no_rails"))
        printf("rails: 0 (%s)\n", json_text(d, "why_no_rails"));
    /* Without rails, the probes measured the host's stack on the loopback address. */
    if (n == 0 && count(probes)) {
        printf("probes (no rail: the loopback address):\n");
        probe_target_rows(probes);
    }
    /* RAIL, NETDEV and GID as wide as their longest value (hrn3_bond_0/1, an IPv6 GID). */
    int rail_w = 12, net_w = 15, gid_w = 18;
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(rails, i);
        char gid[64];
        rail_gid(r, gid, sizeof(gid));
        rail_w = wider(rail_w, json_text(r, "name"));
        net_w = wider(net_w, json_text(get(r, "netdev"), "name"));
        gid_w = wider(gid_w, gid);
    }
    if (n)
        printf("%-*s %-*s %-7s %6s %5s %-*s %-4s %-4s %15s %15s %s\n", rail_w, "RAIL", net_w,
               "NETDEV", "STATE", "RATE", "MTU", gid_w, "GID", "PFC", "ECN", "RDMA p50/p99",
               "TCP p50/p99", "VERDICT");
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(rails, i), *nd = get(r, "netdev");
        char gid[64], rdma[32] = "-", tcp[32] = "-", pfc[24], ecn[24];
        prios_text(get(get(r, "qos"), "pfc_priorities"), pfc, sizeof(pfc));
        prios_text(get(get(r, "qos"), "ecn_np_priorities"), ecn, sizeof(ecn));
        rail_gid(r, gid, sizeof(gid));
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
        char mtu[16] = "-";     /* "-" where no netdev MTU is known, never 0 */
        if (json_num(nd, "mtu_bytes") > 0)
            snprintf(mtu, sizeof(mtu), "%.0f", json_num(nd, "mtu_bytes"));
        printf("%-*s %-*s %-7s %5.0fG %5s %-*s %-4s %-4s %15s %15s %s\n", rail_w,
               json_text(r, "name"), net_w, json_text(nd, "name"), json_text(r, "state"),
               json_num(r, "rate_bits_per_second") / 1e9, mtu, gid_w, gid,
               pfc, ecn, rdma, tcp, json_text(r, "verdict"));
    }
    json_object *gpus = get(d, "gpus");
    if (gpus) {
        printf("gpus: %zu", count(gpus));
        for (size_t i = 0; i < count(gpus); i++)
            printf("%s%s numa %s", i ? ", " : " (", json_text(json_object_array_get_idx(gpus, i),
                   "pci_address"), json_text(json_object_array_get_idx(gpus, i), "numa_node"));
        printf("%s\n", count(gpus) ? ")" : "");
    }
    deferred_streams(probes);
    json_object *peers = get(get(d, "probes"), "peers");
    if (count(peers)) {
        size_t failed = 0;
        for (size_t i = 0; i < count(peers); i++)
            failed += get(get(json_object_array_get_idx(peers, i), "tcp_latency"), "error") != NULL;
        printf("peers: %zu path%s probed, %zu failed ('fabtunectl probes' lists them)\n",
               count(peers), PLURAL_S(count(peers)), failed);
    }
    json_object *failing = get(d, "failing");
    if (count(failing)) {
        printf("failing:\n");
        render_findings(failing, rails, false, findings_rail_width(failing));
    }
}

/* After a row's bandwidth: a deferred stream's reason, and its figure's age when it keeps
 * an earlier run's (stale). */
static void deferred_note(json_object *bw)
{
    const char *why = json_text(bw, "deferred");
    if (!why || !*why || streq(why, "-"))
        return;
    if (json_object_get_boolean(get(bw, "stale"))) {
        /* the daemon's age (its boot clock), not this clock less measured_at: the wall
         * clock may have stepped since the run */
        double age = json_num(bw, "age_seconds");
        printf("  stale, %.0f s old; deferred: %s", age > 0 ? age : 0.0, why);
    } else {
        printf("  deferred: %s", why);
    }
}

/* The TARGET rows of a probe run: min, p50, p99 latency and bandwidth per transport. */
static void probe_target_rows(json_object *targets)
{
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
            if (!ls && get(lat, "deferred")) {  /* an intensive ping-pong that waits */
                printf("%-22s %-5s deferred: %s\n", json_text(t, "target"), kinds[k], json_text(lat, "deferred"));
                continue;
            }
            if (!ls) {
                printf("%-22s %-5s failed: %s\n", json_text(t, "target"), kinds[k], json_text(lat, "error"));
                continue;
            }
            printf("%-22s %-5s %10.2f %10.2f %10.2f %12.3f", json_text(t, "target"), kinds[k],
                   json_num(ls, "min") * 1e6, json_num(ls, "p50") * 1e6, json_num(ls, "p99") * 1e6,
                   json_num(get(t, bk), "bandwidth_bytes_per_second") * 8 / 1e9);
            deferred_note(get(t, bk));
            putchar('\n');
        }
    }
}

void render_probes(json_object *d)
{
    json_object *b = get(d, "baselines");
    probe_target_rows(get(get(d, "last_run"), "targets"));
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
            if (!ls && get(lat, "deferred")) {  /* an intensive ping-pong that waits */
                printf("%-30s %-16s %-5s deferred: %s\n", json_text(e, "peer"), json_text(e, "rail"),
                       kinds[k], json_text(lat, "deferred"));
                continue;
            }
            if (!ls) {
                printf("%-30s %-16s %-5s failed: %s\n", json_text(e, "peer"), json_text(e, "rail"),
                       kinds[k], json_text(lat, "error"));
                continue;
            }
            printf("%-30s %-16s %-5s %10.2f %10.2f %10.2f %12.3f", json_text(e, "peer"),
                   json_text(e, "rail"), kinds[k], json_num(ls, "min") * 1e6, json_num(ls, "p50") * 1e6,
                   json_num(ls, "p99") * 1e6, json_num(get(e, bk), "bandwidth_bytes_per_second") * 8 / 1e9);
            deferred_note(get(e, bk));
            putchar('\n');
        }
    }
    json_object *rs = get(d, "responder");
    if (rs)
        printf("\nresponder: %s sessions served, %s refused (not in probes.peers), %s busy, "
               "%s malformed, %s active, %s allowed addresses\n", json_text(rs, "sessions"),
               json_text(rs, "refused"), json_text(rs, "busy"), json_text(rs, "bad_hello"),
               json_text(rs, "active"), json_text(rs, "allowed_addresses"));
    /* STATE is the state machine's, RATIO the last run's against the baseline: a learning
     * baseline has neither ratio nor base ("-"). */
    printf("\n%-30s %-10s %7s %16s %16s\n", "BASELINE", "STATE", "RATIO", "p50 us base/last",
           "p99 us base/last");
    for (size_t i = 0; i < count(b); i++) {
        json_object *x = json_object_array_get_idx(b, i);
        bool based = get(x, "baseline_p50_seconds") != NULL;
        char p50[40], p99[40], base50[16] = "-", base99[16] = "-", ratio[16] = "-";
        if (based) {
            snprintf(base50, sizeof(base50), "%.1f", json_num(x, "baseline_p50_seconds") * 1e6);
            snprintf(base99, sizeof(base99), "%.1f", json_num(x, "baseline_p99_seconds") * 1e6);
        }
        if (get(x, "last_ratio"))
            snprintf(ratio, sizeof(ratio), "%.1fx", json_num(x, "last_ratio"));
        snprintf(p50, sizeof(p50), "%s/%.1f", base50, json_num(x, "last_p50_seconds") * 1e6);
        snprintf(p99, sizeof(p99), "%s/%.1f", base99, json_num(x, "last_p99_seconds") * 1e6);
        printf("%-30s %-10s %7s %16s %16s\n", json_text(x, "key"), json_text(x, "state"), ratio,
               p50, p99);
    }
}

void render_tuning(json_object *d)
{
    int key_w = 30;
    for (size_t i = 0; i < count(d); i++)
        key_w = wider(key_w, json_text(json_object_array_get_idx(d, i), "key"));
    printf("%-*s %-22s %-22s %-22s %-9s %s\n", key_w, "KEY", "WANTED", "LIVE", "ORIGINAL", "STATE",
           "OTHER WRITER");
    for (size_t i = 0; i < count(d); i++) {
        json_object *k = json_object_array_get_idx(d, i);
        printf("%-*s %-22s %-22s %-22s %-9s %s\n", key_w, json_text(k, "key"), json_text(k, "wanted"),
               json_text(k, "live"), json_text(k, "original"), json_text(k, "state"), json_text(k, "writer"));
    }
}

void render_tune(json_object *d, const char *cmd)
{
    json_object *keys, *v;
    if (!json_object_is_type(d, json_type_object) || !json_object_object_get_ex(d, "keys", &keys)) {
        render_tuning(d);
        return;
    }
    render_tuning(keys);
    if (json_object_object_get_ex(d, "verdict", &v))
        printf("verdict after the %s: %s\n", cmd, json_text(d, "verdict"));
    else if (json_object_object_get_ex(d, "check_running_after_seconds", &v))
        printf("the check after the %s is still running after %s s\n", cmd,
               json_text(d, "check_running_after_seconds"));
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
