/* SPDX-License-Identifier: ISC */
/* Tests of the report's caches: the rails' verdicts, worked out once per report, and the
 * replies (pass/reply_cache), rendered once per report and then served from their text;
 * and the verdict's cause (model/verdict_cause) in the text, the JSON and the status; and
 * the journal's alerts (outputs/alerts), folded by the report's rule. */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "alerts.h"
#include "check_run.h"
#include "log.h"
#include "json_text.h"
#include "reply_cache.h"
#include "report.h"
#include "report_json.h"
#include "report_text.h"
#include "verdict_cause.h"

/* The rails' verdicts are worked out once per report, in one walk of the findings, and
 * each is what findings_rail_verdict() says for that rail: rails with no finding, ok,
 * warning and error ones, two rails of one name, findings of rails the inventory does not
 * have and node-wide ones, then a lost finding. health, status and metrics ask for every
 * rail: walking all findings once a rail took ~1 ms a health query on 72 rails. */
START_TEST(test_rail_verdicts_cached)
{
    struct report r;
    uint32_t seed = 12345;
    memset(&r, 0, sizeof(r));
    for (int i = 0; i < 300; i++) {
        char dev[32];
        snprintf(dev, sizeof(dev), "mlx5_%d", i == 299 ? 7 : i);   /* 299 is named as 7 */
        ck_assert_ptr_nonnull(inventory_add_rail(&r.inventory, dev, 1 + (i % 3 == 0)));
    }
    for (int i = 0; i < 3000; i++) {
        seed = seed * 1103515245 + 12345;
        char rail[32];
        unsigned dev = (seed >> 8) % 400, port = 1 + (seed >> 20) % 2;
        enum severity sev = (enum severity)((seed >> 24) % 4);
        snprintf(rail, sizeof(rail), "mlx5_%u/%u", dev, port);
        ck_assert_int_eq(findings_add(&r.findings, "port.state", sev, dev < 350 ? rail : NULL,
                                      NULL, NULL, NULL, "x"), 0);
    }
    report_finish(&r);
    ck_assert_ptr_nonnull(r.rail_verdicts);
    size_t by[VERDICT_UNKNOWN + 1] = { 0 };
    for (size_t i = 0; i < r.inventory.n_rails; i++) {
        enum verdict v = report_rail_verdict(&r, i);
        ck_assert_int_eq(v, findings_rail_verdict(&r.findings, r.inventory.rails[i].name));
        by[v]++;
    }
    for (enum verdict v = VERDICT_READY; v <= VERDICT_UNKNOWN; v++)
        ck_assert_msg(by[v] > 0, "no rail with verdict %s", verdict_to_string(v));
    ck_assert_int_eq(report_rail_verdict(&r, 299), report_rail_verdict(&r, 7));
    r.findings.lost = true;
    report_finish(&r);
    for (size_t i = 0; i < r.inventory.n_rails; i++)
        ck_assert_int_eq(report_rail_verdict(&r, i), VERDICT_UNKNOWN);
    report_done(&r);
}
END_TEST

static int renders;

static json_object *render_counted(const struct report *r)
{
    renders++;
    return json_object_new_string(r->hostname);
}

/* A reply that takes long to render (the metrics: ~15 ms on 72 rails) is rendered once per
 * report and then served serialized, its text kept for the textfile output; without a
 * cache, each time. */
START_TEST(test_reply_rendered_once)
{
    struct report r;
    struct policy p;
    policy_init_defaults(&p);
    memset(&r, 0, sizeof(r));
    report_init(&r, &p, "<built-in>");
    struct reply_cache *c = reply_cache_new();
    ck_assert_ptr_nonnull(c);
    strcpy(r.hostname, "node\"17");
    renders = 0;
    json_object *a = reply_cache_get(c, &r, CACHED_METRICS, render_counted);
    json_object *b = reply_cache_get(c, &r, CACHED_METRICS, render_counted);
    ck_assert_int_eq(renders, 1);
    ck_assert_str_eq(json_object_to_json_string(a), "\"node\\\"17\"");
    ck_assert_str_eq(json_object_to_json_string(b), json_object_to_json_string(a));
    /* The text as rendered, for the textfile output: not rendered again. */
    ck_assert_str_eq(reply_cache_text(c, CACHED_METRICS), "node\"17");
    ck_assert_ptr_null(reply_cache_text(c, CACHED_CHECKS));
    ck_assert_int_eq(renders, 1);
    json_object_put(a);
    json_object_put(b);
    reply_cache_free(c);
    ck_assert_ptr_null(reply_cache_text(NULL, CACHED_METRICS));
    a = reply_cache_get(NULL, &r, CACHED_METRICS, render_counted);
    json_object_put(a);
    a = reply_cache_get(NULL, &r, CACHED_METRICS, render_counted);
    json_object_put(a);
    ck_assert_int_eq(renders, 3);
    report_done(&r);
    policy_done(&p);
}
END_TEST

static void cause_of(const struct findings *fs, char *buf, size_t len)
{
    verdict_cause(fs, buf, len);
}

/* The cause counts the findings of the worst severity and names their checks once each,
 * in the order found, at most VERDICT_CAUSE_IDS of them, then "+N more"; warnings do not
 * count beside errors; a READY node counts its ok and unknown checks; no findings, or a
 * lost one, says so. A short buffer is cut, not overrun. */
START_TEST(test_verdict_cause_words)
{
    struct findings fs = { 0 };
    char buf[256];
    cause_of(&fs, buf, sizeof(buf));
    ck_assert_str_eq(buf, "no check produced data");
    findings_add(&fs, "port.state", SEVERITY_OK, "mlx5_0/1", NULL, NULL, NULL, "ok");
    findings_add(&fs, "qos.pfc", SEVERITY_UNKNOWN, "mlx5_0/1", NULL, NULL, NULL, "not exposed");
    findings_add(&fs, "gid.nccl", SEVERITY_OK, "mlx5_0/1", NULL, NULL, NULL, "ok");
    cause_of(&fs, buf, sizeof(buf));
    ck_assert_str_eq(buf, "2 checks ok, 1 unknown");
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(findings_add(&fs, "tuning.drift", SEVERITY_WARNING, NULL, NULL, NULL,
                                      NULL, "key %d", i), 0);
    }
    ck_assert_int_eq(findings_verdict(&fs), VERDICT_DEGRADED);
    cause_of(&fs, buf, sizeof(buf));
    ck_assert_str_eq(buf, "7 warnings (tuning.drift)");
    findings_add(&fs, "port.state", SEVERITY_ERROR, "mlx5_1/1", NULL, NULL, NULL, "down");
    cause_of(&fs, buf, sizeof(buf));
    ck_assert_str_eq(buf, "1 error (port.state)");
    findings_add(&fs, "gid.roce_v2", SEVERITY_ERROR, "mlx5_1/1", NULL, NULL, NULL, "none");
    findings_add(&fs, "port.state", SEVERITY_ERROR, "mlx5_2/1", NULL, NULL, NULL, "down");
    cause_of(&fs, buf, sizeof(buf));
    ck_assert_str_eq(buf, "3 errors (port.state, gid.roce_v2)");
    const char *more[] = { "netdev.mtu", "qos.trust", "pcie.link", "host.memlock" };
    for (size_t i = 0; i < 4; i++)
        findings_add(&fs, more[i], SEVERITY_ERROR, NULL, NULL, NULL, NULL, "bad");
    cause_of(&fs, buf, sizeof(buf));
    ck_assert_str_eq(buf, "7 errors (port.state, gid.roce_v2, netdev.mtu, qos.trust, +2 more)");
    char small[12];
    cause_of(&fs, small, sizeof(small));
    ck_assert_str_eq(small, "7 errors (p");
    fs.lost = true;
    cause_of(&fs, buf, sizeof(buf));
    ck_assert_str_eq(buf, "a finding was lost (out of memory)");
    findings_done(&fs);
}
END_TEST

/* 65536 findings of 40 checks, every one an error: the cause is worked out in one walk
 * (each id remembered once), not in a walk per finding. */
START_TEST(test_verdict_cause_many)
{
    struct findings fs = { 0 };
    char buf[256], id[32];
    for (int i = 0; i < FINDINGS_MAX; i++) {
        snprintf(id, sizeof(id), "gid.c%d", i % 40);
        ck_assert_int_eq(findings_add(&fs, id, SEVERITY_ERROR, NULL, NULL, NULL, NULL, "x"), 0);
    }
    cause_of(&fs, buf, sizeof(buf));
    ck_assert_str_eq(buf, "65536 errors (gid.c0, gid.c1, gid.c2, gid.c3, +36 more)");
    findings_done(&fs);
}
END_TEST

/* The report's verdict line, its JSON and the status reply carry the cause that
 * report_finish() worked out. */
START_TEST(test_verdict_cause_in_report)
{
    struct report r;
    struct policy p;
    policy_init_defaults(&p);
    report_init(&r, &p, "<built-in>");
    findings_add(&r.findings, "port.state", SEVERITY_OK, NULL, NULL, NULL, NULL, "up");
    for (int i = 0; i < 2; i++)
        findings_add(&r.findings, "tuning.drift", SEVERITY_WARNING, NULL, NULL, NULL, NULL, "d");
    report_finish(&r);
    r.probed = true;    /* the probes' header: Gb/s, the one unit spelling of every table */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    report_print_text(&r, true, f);
    fclose(f);
    ck_assert_msg(strstr(text, "\nverdict: DEGRADED: 2 warnings (tuning.drift)\n"), "%s", text);
    ck_assert_msg(strstr(text, " Gb/s\n") && !strstr(text, "Gbit"), "%s", text);
    /* Two node-wide findings that say the same are two lines (no rails to join; joining
     * them read a NULL rail). */
    const char *row = "warning tuning.drift                              d\n";  /* an empty rail column */
    const char *first = strstr(text, row);
    ck_assert_msg(first && strstr(first + 1, row), "%s", text);
    free(text);
    json_object *j = report_to_json(&r), *v;
    ck_assert(json_object_object_get_ex(j, "verdict_cause", &v));
    ck_assert_str_eq(json_object_get_string(v), "2 warnings (tuning.drift)");
    json_object_put(j);
    struct reply_cache *c = reply_cache_new();
    j = reply_cache_status(c, &r);
    ck_assert(json_object_object_get_ex(j, "verdict_cause", &v));
    ck_assert_str_eq(json_object_to_json_string(v), "\"2 warnings (tuning.drift)\"");
    json_object_put(j);
    reply_cache_free(c);
    report_done(&r);
    policy_done(&p);
}
END_TEST

/* The line of TEXT that holds KEY, copied into LINE. */
static void line_with(const char *text, const char *key, char *line, size_t len)
{
    const char *k = strstr(text, key);
    ck_assert_msg(k, "no '%s' in:\n%s", key, text);
    const char *start = k;
    while (start > text && start[-1] != '\n')
        start--;
    snprintf(line, len, "%.*s", (int)strcspn(start, "\n"), start);
}

/* The column of WORD (its first occurrence after a space or the line's start) in LINE. */
static long column(const char *line, const char *word)
{
    for (const char *p = strstr(line, word); p; p = strstr(p + 1, word))
        if (p == line || p[-1] == ' ')
            return p - line;
    return -1;
}

/* The report's rails table with a bond device of 11 characters (hrn3_bond_0) beside
 * mlx5_0: every column starts where its header does (the RAIL column was 12 wide, and
 * "hrn3_bond_0/1" pushed the rest of its row out of line). */
START_TEST(test_rails_table_aligned)
{
    struct report r;
    struct policy p;
    policy_init_defaults(&p);
    report_init(&r, &p, "<built-in>");
    const char *devs[] = { "mlx5_0", "hrn3_bond_0" }, *nets[] = { "ens1f0np0", "hrn3_bond_0_x" };
    for (size_t i = 0; i < 2; i++) {
        struct rail *rail = inventory_add_rail(&r.inventory, devs[i], 1);
        ck_assert_ptr_nonnull(rail);
        strcpy(rail->netdev.name, nets[i]);
        strcpy(rail->state_name, "ACTIVE");
        rail->netdev.mtu = 9000;
        rail->gid_index = -1;
        findings_add(&r.findings, "port.state", SEVERITY_OK, rail->name, NULL, NULL, NULL, "up");
    }
    report_finish(&r);
    char *text = NULL, head[512], row[512];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    report_print_text(&r, true, f);
    fclose(f);
    line_with(text, "  RAIL ", head, sizeof(head));
    const char *rows[] = { "  mlx5_0/1 ", "  hrn3_bond_0/1 " };
    for (size_t i = 0; i < 2; i++) {
        line_with(text, rows[i], row, sizeof(row));
        ck_assert_msg(column(row, nets[i]) == column(head, "NETDEV"), "%s\n%s", head, row);
        ck_assert_msg(column(row, "ACTIVE") == column(head, "STATE"), "%s\n%s", head, row);
        ck_assert_msg(column(row, "9000/-") == column(head, "MTU"), "%s\n%s", head, row);
        ck_assert_msg(column(row, "READY") == column(head, "VERDICT"), "%s\n%s", head, row);
    }
    free(text);
    report_done(&r);
    policy_done(&p);
}
END_TEST

/* The GID table (fabtunectl gids, --once --gids) with hrn3_bond_0 beside mlx5_0: DEV and
 * NETDEV as wide as their names, the columns after them in line with their headers, and
 * IPv4 blank (as show_gids leaves it) where the GID holds no IPv4 address, never "-". */
START_TEST(test_gid_table_aligned)
{
    json_object *rails = json_tokener_parse(
        "[{\"device\":\"mlx5_0\",\"port\":1,\"link_layer\":\"Ethernet\",\"pick\":1,\"empty\":0,"
        "\"entries\":[{\"index\":0,\"gid\":\"fe80:0000:0000:0000:0000:0000:0000:0001\",\"ipv4\":null,"
        "\"version\":\"v2\",\"netdev\":\"ens1f0np0\",\"nccl\":\"link-local\"},"
        "{\"index\":1,\"gid\":\"0000:0000:0000:0000:0000:ffff:0a00:0001\",\"ipv4\":\"10.0.0.1\","
        "\"version\":\"v2\",\"netdev\":\"ens1f0np0\",\"nccl\":\"pick\"}]},"
        "{\"device\":\"hrn3_bond_0\",\"port\":1,\"link_layer\":\"Ethernet\",\"pick\":1,\"empty\":0,"
        "\"entries\":[{\"index\":1,\"gid\":\"0000:0000:0000:0000:0000:ffff:0a00:0101\",\"ipv4\":\"10.0.1.1\","
        "\"version\":\"v2\",\"netdev\":\"hrn3_bond_0_longer\",\"nccl\":\"pick\"}]}]");
    ck_assert_ptr_nonnull(rails);
    char *text = NULL, head[512], row[512];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gid_table_print(rails, f);
    fclose(f);
    line_with(text, "DEV ", head, sizeof(head));
    const char *keys[] = { "fe80:", ":0a00:0001", ":0a00:0101" };
    for (size_t i = 0; i < 3; i++) {
        line_with(text, keys[i], row, sizeof(row));
        ck_assert_msg(column(row, "1") == column(head, "PORT"), "%s\n%s", head, row);
        ck_assert_msg(column(row, "v2") == column(head, "VER"), "%s\n%s", head, row);
        ck_assert_msg(column(row, i == 2 ? "hrn3_bond_0_longer" : "ens1f0np0") == column(head, "NETDEV"),
                      "%s\n%s", head, row);
        ck_assert_msg(column(row, i == 0 ? "link-local" : "pick") == column(head, "NCCL"),
                      "%s\n%s", head, row);
    }
    line_with(text, "fe80:", row, sizeof(row));
    ck_assert_msg(!strstr(row, " - "), "IPv4 shown as '-': %s", row);
    free(text);
    json_object_put(rails);
}
END_TEST

/* What alerts_update logs for FS (log_struct on stderr: "MESSAGE [FIELD=VALUE ...]"): the
 * records it sent, one a line, in BUF. Returns the count alerts_update said. */
static size_t alerts_logged(struct alerts *a, const struct findings *fs, const struct inventory *inv,
                            usec_t t, char *buf, size_t len)
{
    FILE *tmp = tmpfile();
    ck_assert_ptr_nonnull(tmp);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(dup2(fileno(tmp), STDERR_FILENO), 0);
    size_t sent = alerts_update(a, fs, inv, t, 0);
    fflush(stderr);
    ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, len - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return sent;
}

static size_t count_of(const char *text, const char *word)
{
    size_t n = 0;
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
        n++;
    return n;
}

/* The line of TEXT that holds WORDS, copied to LINE; false when none does. */
static bool alert_line(const char *text, const char *words, char *line, size_t len)
{
    const char *p = strstr(text, words);
    if (!p)
        return false;
    while (p > text && p[-1] != '\n')
        p--;
    snprintf(line, len, "%.*s", (int)strcspn(p, "\n"), p);
    return true;
}

static void add_trust(struct findings *fs, const struct inventory *inv, size_t i, enum severity sev)
{
    char msg[128];
    const struct rail *r = &inv->rails[i];
    snprintf(msg, sizeof(msg), "%s trusts %s", r->netdev.name, sev == SEVERITY_OK ? "dscp" : "pcp, not dscp");
    findings_add(fs, "qos.trust", sev, r->name, "dscp", sev == SEVERITY_OK ? "dscp" : "pcp", NULL, "%s", msg);
}

/* Transitions of one pass that say the same thing on several rails are one journal record
 * naming them, by the report's rule (the rails' netdevs taken out), each rail queryable as
 * its own FABTUNE_RAIL; one alone keeps its own record and text. */
START_TEST(test_alerts_folded)
{
    struct inventory inv = { 0 };
    struct alerts a = { 0 };
    struct findings fs = { 0 };
    char out[16384], line[4096];
    for (int i = 0; i < 8; i++) {
        char dev[16];
        snprintf(dev, sizeof(dev), "mlx5_%d", i);
        struct rail *r = inventory_add_rail(&inv, dev, 1);
        ck_assert_ptr_nonnull(r);
        snprintf(r->netdev.name, sizeof(r->netdev.name), "enp%ds0f0np0", 26 + 16 * i);
    }
    log_set_target(LOG_TARGET_STDERR);

    /* Pass 1: qos.trust fails on rails 0, 3 and 7; port.state on rail 1 alone. */
    for (size_t i = 0; i < 8; i++)
        add_trust(&fs, &inv, i, i == 0 || i == 3 || i == 7 ? SEVERITY_WARNING : SEVERITY_OK);
    findings_add(&fs, "port.state", SEVERITY_ERROR, "mlx5_1/1", "ACTIVE", "DOWN", NULL, "port is DOWN");
    ck_assert_uint_eq(alerts_logged(&a, &fs, &inv, 1000000, out, sizeof(out)), 2);
    ck_assert_uint_eq(count_of(out, "\n"), 2);
    ck_assert_msg(alert_line(out, "raised qos.trust on mlx5_0/1, mlx5_3/1, mlx5_7/1: <netdev> trusts pcp, not dscp [",
                            line, sizeof(line)), "no folded record in:\n%s", out);
    ck_assert_uint_eq(count_of(line, " FABTUNE_RAIL="), 3);
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_RAIL=mlx5_0/1 "));
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_RAIL=mlx5_3/1 "));
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_RAIL=mlx5_7/1 "));
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_RAILS=mlx5_0/1, mlx5_3/1, mlx5_7/1 "));
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_STATE=raised]"));
    /* The single one: today's record, word for word. */
    ck_assert(alert_line(out, "raised port.state", line, sizeof(line)));
    ck_assert_ptr_nonnull(strstr(line, "error: raised port.state mlx5_1/1: port is DOWN [MESSAGE_ID="));
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_RAIL=mlx5_1/1 FABTUNE_SUBJECT= FABTUNE_SEVERITY=error"));
    ck_assert_ptr_null(strstr(line, "FABTUNE_RAILS="));
    findings_done(&fs);

    /* Pass 2: rails 0 and 7 clear, 3 still fails (no transition), port.state holds. */
    for (size_t i = 0; i < 8; i++)
        add_trust(&fs, &inv, i, i == 3 ? SEVERITY_WARNING : SEVERITY_OK);
    findings_add(&fs, "port.state", SEVERITY_ERROR, "mlx5_1/1", "ACTIVE", "DOWN", NULL, "port is DOWN");
    ck_assert_uint_eq(alerts_logged(&a, &fs, &inv, 2000000, out, sizeof(out)), 1);
    ck_assert_uint_eq(count_of(out, "\n"), 1);
    ck_assert_msg(alert_line(out, "cleared qos.trust on mlx5_0/1, mlx5_7/1: <netdev> trusts dscp [", line,
                            sizeof(line)), "no folded clear in:\n%s", out);
    ck_assert_uint_eq(count_of(line, " FABTUNE_RAIL="), 2);
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_RAIL=mlx5_0/1 "));
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_RAIL=mlx5_7/1 "));
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_STATE=cleared]"));
    findings_done(&fs);

    /* Pass 3: all eight fail (rail 3 still: no transition). A value that differs on one
     * rail is different words: its own record. */
    for (size_t i = 0; i < 8; i++)
        add_trust(&fs, &inv, i, SEVERITY_WARNING);
    for (size_t i = 0; i < 8; i++)
        findings_add(&fs, "counters.rx_discards", SEVERITY_WARNING, inv.rails[i].name, NULL, NULL, NULL,
                     "%s drops %d packets a second", inv.rails[i].netdev.name, i == 5 ? 900 : 10);
    ck_assert_uint_eq(alerts_logged(&a, &fs, &inv, 3000000, out, sizeof(out)), 3);
    ck_assert_msg(alert_line(out, "raised qos.trust on mlx5_0/1, mlx5_1/1, mlx5_2/1, mlx5_4/1, mlx5_5/1, "
                            "mlx5_6/1, mlx5_7/1: <netdev> trusts pcp, not dscp [", line, sizeof(line)),
                  "all but rail 3 (no transition) raised:\n%s", out);
    ck_assert_msg(alert_line(out, "raised counters.rx_discards on mlx5_0/1, mlx5_1/1, mlx5_2/1, mlx5_3/1, mlx5_4/1, "
                            "mlx5_6/1, mlx5_7/1: <netdev> drops 10 packets a second [", line, sizeof(line)),
                  "no folded counters record in:\n%s", out);
    ck_assert_uint_eq(count_of(line, " FABTUNE_RAIL="), 7);
    ck_assert(alert_line(out, "raised counters.rx_discards mlx5_5/1: enp106s0f0np0 drops 900 packets a second [",
                        line, sizeof(line)));
    findings_done(&fs);

    /* Pass 4: all eight clear together: "mlx5_0..7/1". */
    for (size_t i = 0; i < 8; i++)
        add_trust(&fs, &inv, i, SEVERITY_OK);
    /* A node-wide finding naming a rail's netdev folds by that rail, as in the report: its
     * subjects differ, so each is given; it has no FABTUNE_RAIL of its own. */
    for (size_t i = 0; i < 2; i++) {
        char key[64];
        snprintf(key, sizeof(key), "net.ipv4.conf.%s.rp_filter", inv.rails[i].netdev.name);
        findings_add(&fs, "tuning.drift", SEVERITY_WARNING, NULL, "0", "1", NULL, "%s is 1", key);
        findings_set_subject(&fs, key);
    }
    ck_assert_uint_eq(alerts_logged(&a, &fs, &inv, 4000000, out, sizeof(out)), 2);
    ck_assert_msg(alert_line(out, "cleared qos.trust on mlx5_0..7/1: <netdev> trusts dscp [", line, sizeof(line)),
                  "%s", out);
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_RAILS=mlx5_0..7/1 "));
    ck_assert_uint_eq(count_of(line, " FABTUNE_RAIL="), 8);
    ck_assert_msg(alert_line(out, "raised tuning.drift on mlx5_0/1, mlx5_1/1: net.ipv4.conf.<netdev>.rp_filter is 1 [",
                             line, sizeof(line)), "%s", out);
    ck_assert_uint_eq(count_of(line, " FABTUNE_RAIL="), 0);
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_SUBJECT=net.ipv4.conf.enp26s0f0np0.rp_filter "));
    ck_assert_ptr_nonnull(strstr(line, " FABTUNE_SUBJECT=net.ipv4.conf.enp42s0f0np0.rp_filter "));
    findings_done(&fs);
    alerts_done(&a);
    inventory_done(&inv);
}
END_TEST

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("caches");
    tcase_add_test(tc, test_rail_verdicts_cached);
    tcase_add_test(tc, test_reply_rendered_once);
    suite_add_tcase(s, tc);
    tc = tcase_create("verdict cause");
    tcase_add_test(tc, test_verdict_cause_words);
    tcase_add_test(tc, test_verdict_cause_many);
    tcase_add_test(tc, test_verdict_cause_in_report);
    suite_add_tcase(s, tc);
    tc = tcase_create("tables");
    tcase_add_test(tc, test_rails_table_aligned);
    tcase_add_test(tc, test_gid_table_aligned);
    suite_add_tcase(s, tc);
    tc = tcase_create("alerts");
    tcase_add_test(tc, test_alerts_folded);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(report_suite());
}
