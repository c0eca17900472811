/* SPDX-License-Identifier: ISC */
/* fabtunectl links: each rail's link from the status reply's rails[].link (the daemon's
 * report, outputs/report_json.c): FEC and BER (not read yet: "-"), symbol errors per
 * hour, link downs in the last day, the module, its temperature and its weakest lane's Rx
 * power against the low warning, and the lane whose Rx power falls fastest over the trend
 * window (rx_power_trend); then the latest flaps, link downs and error bursts. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean_text.h"
#include "client.h"
#include "json_text.h"
#include "macro.h"
#include "timeutil.h"

#define COLUMNS 11
#define CELL 96

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v)
           ? v : NULL;
}

static bool present(json_object *o, const char *key)
{
    json_object *v = get(o, key);
    return v && !json_object_is_type(v, json_type_null);
}

/* "QSFP28 optical FABTUNE OPTICS QSFP28-SR4-100G", "unknown", or "-" (not read). */
static void module_cell(json_object *m, char *buf, size_t len)
{
    if (!m || json_object_is_type(m, json_type_null))
        snprintf(buf, len, "-");
    else if (!json_object_get_boolean(get(m, "known")))
        snprintf(buf, len, "unknown");
    else
        snprintf(buf, len, "%s %s %s %s", json_text(m, "type"), json_text(m, "media"),
                 json_text(m, "vendor"), json_text(m, "part"));
}

static void temperature_cell(json_object *m, char *buf, size_t len)
{
    if (!m || !present(m, "known") || !json_object_get_boolean(get(m, "known")))
        snprintf(buf, len, "-");
    else if (!json_object_get_boolean(get(m, "monitored")))
        snprintf(buf, len, "not monitored");
    else if (!present(m, "temperature_celsius"))
        snprintf(buf, len, "-");
    else if (present(m, "temperature_high_warning_celsius"))
        snprintf(buf, len, "%.1f C (warn %.1f)", json_num(m, "temperature_celsius"),
                 json_num(m, "temperature_high_warning_celsius"));
    else
        snprintf(buf, len, "%.1f C", json_num(m, "temperature_celsius"));
}

/* "lane 3 -12.22 dBm (warn -10.00, -2.22 dB)"; a dark lane (0 mW: no dBm, no margin)
 * "lane 3 0 mW (warn -10.00, no light)"; "(no threshold)" only where the module has none. */
static void rx_cell(json_object *m, char *buf, size_t len)
{
    json_object *w = get(m, "rx_power_weakest");
    if (!m || !present(m, "known") || !json_object_get_boolean(get(m, "known")))
        snprintf(buf, len, "-");
    else if (!json_object_get_boolean(get(m, "monitored")))
        snprintf(buf, len, "not monitored");
    else if (!w || json_object_is_type(w, json_type_null))
        snprintf(buf, len, "-");
    else {
        int n = present(w, "dbm")
                ? snprintf(buf, len, "lane %s %.2f dBm", json_text(w, "lane"), json_num(w, "dbm"))
                : snprintf(buf, len, "lane %s 0 mW", json_text(w, "lane"));
        if (n > 0 && (size_t)n < len && !present(w, "low_warning_dbm"))
            snprintf(buf + n, len - (size_t)n, " (no threshold)");
        else if (n > 0 && (size_t)n < len && !present(w, "margin_db"))
            snprintf(buf + n, len - (size_t)n, " (warn %.2f, no light)",
                     json_num(w, "low_warning_dbm"));
        else if (n > 0 && (size_t)n < len)
            snprintf(buf + n, len - (size_t)n, " (warn %.2f, %+.2f dB)",
                     json_num(w, "low_warning_dbm"), json_num(w, "margin_db"));
    }
}

/* "lane 3 -1.70 dB/24h (60 samples)", or "-" while no lane has enough samples. */
static void trend_cell(json_object *l, char *buf, size_t len)
{
    json_object *t = get(l, "rx_power_trend");
    if (!t || json_object_is_type(t, json_type_null)) {
        snprintf(buf, len, "-");
        return;
    }
    double w = json_num(t, "window_seconds");
    char per[32];
    duration_format(w > 0 ? (usec_t)(w * USEC_PER_SEC + 0.5) : 0, per, sizeof(per));
    snprintf(buf, len, "lane %s %+.2f dB/%s (%s samples)", json_text(t, "lane"),
             json_num(t, "db_per_window"), per, json_text(t, "samples"));
}

/* A count as an integer, a BER in scientific notation, "-" when null. */
static void number_cell(json_object *l, const char *key, bool ber, char *buf, size_t len)
{
    if (!present(l, key))
        snprintf(buf, len, "-");
    else if (ber)
        snprintf(buf, len, "%.1e", json_num(l, key));
    else
        snprintf(buf, len, "%.0f", json_num(l, key));
}

static void print_row(char cells[COLUMNS][CELL], const int *w)
{
    printf("%-*s", w[0], cells[0]);
    for (int c = 1; c < COLUMNS; c++)
        printf("  %-*s", c + 1 < COLUMNS ? w[c] : 0, cells[c]);
    printf("\n");
}

static void render_table(json_object *rails)
{
    static const char *const heads[COLUMNS] = { "RAIL", "NETDEV", "FEC", "PRE-FEC BER",
        "POST-FEC BER", "SYMBOL ERR/H", "DOWNS 24H", "MODULE", "TEMPERATURE", "WEAKEST RX",
        "RX TREND" };
    size_t n = json_object_array_length(rails);
    char (*rows)[COLUMNS][CELL] = calloc(n + 1, sizeof(*rows));
    int w[COLUMNS];
    if (!rows)
        return;
    for (int c = 0; c < COLUMNS; c++)
        snprintf(rows[0][c], CELL, "%s", heads[c]);
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(rails, i), *l = get(r, "link");
        json_object *m = get(l, "module");
        char (*row)[CELL] = rows[i + 1];
        snprintf(row[0], CELL, "%s", json_text(r, "name"));
        snprintf(row[1], CELL, "%s", json_text(get(r, "netdev"), "name"));
        snprintf(row[2], CELL, "%s", json_text(l, "fec_mode"));
        number_cell(l, "pre_fec_ber", true, row[3], CELL);
        number_cell(l, "post_fec_ber", true, row[4], CELL);
        if (present(l, "symbol_errors_saturated") &&
            json_object_get_boolean(get(l, "symbol_errors_saturated")))
            snprintf(row[5], CELL, "saturated");    /* stopped at its maximum: no rate */
        else
            number_cell(l, "symbol_errors_per_hour", false, row[5], CELL);
        number_cell(l, "link_downs_24h", false, row[6], CELL);
        module_cell(m, row[7], CELL);
        temperature_cell(m, row[8], CELL);
        rx_cell(m, row[9], CELL);
        trend_cell(l, row[10], CELL);
    }
    for (int c = 0; c < COLUMNS; c++) {
        w[c] = 0;
        for (size_t i = 0; i <= n; i++)
            w[c] = (int)strlen(rows[i][c]) > w[c] ? (int)strlen(rows[i][c]) : w[c];
    }
    for (size_t i = 0; i <= n; i++)
        print_row(rows[i], w);
    free(rows);
}

/* Rail I's reason under KEY (of its link, or of the link's module), or NULL. */
static const char *reason_of(json_object *rails, size_t i, bool module, const char *key)
{
    json_object *l = get(json_object_array_get_idx(rails, i), "link");
    json_object *o = module ? get(l, "module") : l;
    return present(o, key) ? json_text(o, key) : NULL;
}

/* Why a module, the FEC mode or the BER is unknown: each reason once, after every rail
 * that has it ("mlx5_1/1, mlx5_2/1: FEC unknown: ..."), so no rail's reason is lost and
 * none is said eight times. */
static void render_reason(json_object *rails, bool module, const char *key, const char *what)
{
    size_t n = json_object_array_length(rails);
    for (size_t i = 0; i < n; i++) {
        const char *why = reason_of(rails, i, module, key);
        bool said = false;
        for (size_t j = 0; why && j < i && !said; j++) {
            const char *other = reason_of(rails, j, module, key);
            said = other && streq(other, why);
        }
        if (!why || said)
            continue;
        for (size_t j = i; j < n; j++) {
            const char *other = reason_of(rails, j, module, key);
            if (other && streq(other, why))
                printf("%s%s", j == i ? "" : ", ", json_text(json_object_array_get_idx(rails, j), "name"));
        }
        printf(": %s unknown: %s\n", what, why);
    }
}

static void render_reasons(json_object *rails)
{
    render_reason(rails, true, "unknown_reason", "module");
    render_reason(rails, false, "fec_unknown_reason", "FEC");
    render_reason(rails, false, "ber_unknown_reason", "BER");
}

static const char *event_text(json_object *e, char *buf, size_t len)
{
    const char *kind = json_text(e, "kind");
    if (streq(kind, "flap"))
        snprintf(buf, len, "%s carrier changes on %s", json_text(e, "count"), json_text(e, "what"));
    else if (streq(kind, "link_down"))
        snprintf(buf, len, "%s +%s", json_text(e, "what"), json_text(e, "count"));
    else if (streq(kind, "gone"))
        snprintf(buf, len, "gone from %s for %s s", json_text(e, "what"), json_text(e, "count"));
    else
        snprintf(buf, len, "%s at %s/s", json_text(e, "what"), json_text(e, "count"));
    return buf;
}

static void render_events(json_object *rails)
{
    size_t n = json_object_array_length(rails), shown = 0;
    const char *no_memory = NULL;
    char what[160];
    printf("\nEvents (newest first, per rail):\n");
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(rails, i), *l = get(r, "link");
        json_object *ev = get(l, "events");
        if (!ev || !json_object_is_type(ev, json_type_array)) {
            no_memory = json_text(l, "memory_unknown_reason");
            continue;
        }
        for (size_t k = 0; k < json_object_array_length(ev); k++, shown++) {
            json_object *e = json_object_array_get_idx(ev, k);
            printf("  %-10s %-20s  %-11s  %s\n", json_text(r, "name"), json_text(e, "at"),
                   json_text(e, "kind"), event_text(e, what, sizeof(what)));
        }
    }
    if (no_memory && !shown)
        printf("  none kept (%s)\n", no_memory);
    else if (!shown)
        printf("  no flap, link down or error burst kept\n");
}

json_object *links_json(json_object *data)
{
    json_object *rails = get(data, "rails"), *out = json_object_new_array();
    size_t n = json_object_is_type(rails, json_type_array) ? json_object_array_length(rails) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *rail = json_object_array_get_idx(rails, i), *o = json_object_new_object();
        json_object *link = get(rail, "link");
        json_object_object_add(o, "rail", json_object_get(get(rail, "name")));
        json_object_object_add(o, "netdev", json_object_get(get(get(rail, "netdev"), "name")));
        if (json_object_is_type(link, json_type_object)) {
            json_object_object_foreach(link, key, v)
                json_object_object_add(o, key, json_object_get(v));
        }
        json_object_array_add(out, o);
    }
    return out;
}

void render_links(json_object *data)
{
    json_object *rails = get(data, "rails");
    if (!json_object_is_type(rails, json_type_array) || json_object_array_length(rails) == 0) {
        printf("rails: 0 (%s)\n", json_text(data, "why_no_rails"));
        return;
    }
    render_table(rails);
    render_reasons(rails);
    render_events(rails);
}
