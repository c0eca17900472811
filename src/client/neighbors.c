/* SPDX-License-Identifier: ISC */
/* fabtunectl neighbors: what each rail is plugged into, from the daemon's "neighbors"
 * reply (report_neighbors_json(): each rail's name, netdev and the report's "neighbors"
 * object), as one row per LLDP neighbour, columns as wide as their longest value. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "json_text.h"
#include "macro.h"

enum { COL_RAIL, COL_NETDEV, COL_SWITCH, COL_PORT, COL_DESCR, COL_MGMT, COL_VLANS, COL_MFS,
       COL_AGE, COLS };

static const char *const heads[COLS] = { "RAIL", "NETDEV", "SWITCH", "SWITCH PORT",
                                         "PORT DESCRIPTION", "MGMT ADDRESS", "VLANS", "MFS",
                                         "AGE" };

struct row {
    char cell[COLS][160];
    char note[300];             /* in place of the neighbour's columns: why none */
};

static json_object *get(json_object *o, const char *key)
{
    json_object *v;
    return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static size_t count(json_object *a)
{
    return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* An array of strings or numbers as "a,b,c"; "-" when empty. The values go through
 * json_text, so a hostile reply cannot reach the terminal with control characters. */
static void join(json_object *a, char *buf, size_t len)
{
    size_t n = 0;
    snprintf(buf, len, "-");
    for (size_t i = 0; i < count(a) && n < len; i++) {
        json_object *wrap = json_object_new_object();
        json_object_object_add(wrap, "v", json_object_get(json_object_array_get_idx(a, i)));
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "," : "", json_text(wrap, "v"));
        json_object_put(wrap);
    }
}

static void neighbor_row(json_object *rail, json_object *nb, struct row *r)
{
    snprintf(r->cell[COL_RAIL], sizeof(r->cell[0]), "%s", json_text(rail, "name"));
    snprintf(r->cell[COL_NETDEV], sizeof(r->cell[0]), "%s", json_text(rail, "netdev"));
    if (!nb)
        return;
    snprintf(r->cell[COL_SWITCH], sizeof(r->cell[0]), "%s",
             json_text(nb, get(nb, "system_name") ? "system_name" : "chassis_id"));
    /* The port as fabric.cabling and fabtune_rail_neighbor_info name it (model/lldp.c's
     * lldp_port_name()): a MAC says less than the description that lldpd sends beside it. */
    bool mac = get(nb, "port_id_subtype") && !strcmp(json_text(nb, "port_id_subtype"), "mac");
    snprintf(r->cell[COL_PORT], sizeof(r->cell[0]), "%s",
             json_text(nb, (mac && get(nb, "port_description")) || !get(nb, "port_id")
                           ? "port_description" : "port_id"));
    snprintf(r->cell[COL_DESCR], sizeof(r->cell[0]), "%s", json_text(nb, "port_description"));
    join(get(nb, "management_addresses"), r->cell[COL_MGMT], sizeof(r->cell[0]));
    join(get(nb, "vlans"), r->cell[COL_VLANS], sizeof(r->cell[0]));
    if (get(nb, "pvid")) {
        size_t n = strlen(r->cell[COL_VLANS]);
        snprintf(r->cell[COL_VLANS] + n, sizeof(r->cell[0]) - n, " (pvid %s)", json_text(nb, "pvid"));
    }
    snprintf(r->cell[COL_MFS], sizeof(r->cell[0]), "%s", json_text(nb, "max_frame_size"));
    snprintf(r->cell[COL_AGE], sizeof(r->cell[0]), "%.0f s", json_num(nb, "age_seconds"));
}

static void print_row(const char *const cells[COLS], const int width[COLS])
{
    for (int c = 0; c < COLS - 1; c++)
        printf("%-*s  ", width[c], cells[c]);
    printf("%s\n", cells[COLS - 1]);
}

void render_neighbors(json_object *rails)
{
    size_t n_rails = count(rails), n = 0, cap = 0;
    struct row *rows = NULL;
    int width[COLS];
    for (size_t i = 0; i < n_rails; i++)
        cap += 1 + count(get(get(json_object_array_get_idx(rails, i), "neighbors"), "list"));
    if (n_rails == 0) {
        printf("no rails\n");
        return;
    }
    rows = calloc(cap, sizeof(*rows));
    if (!rows) {
        fprintf(stderr, "fabtunectl: neighbors: out of memory\n");
        return;
    }
    for (size_t i = 0; i < n_rails; i++) {
        json_object *rail = json_object_array_get_idx(rails, i), *nbs = get(rail, "neighbors"),
                    *list = get(nbs, "list");
        if (get(nbs, "unknown_reason") || count(list) == 0) {
            neighbor_row(rail, NULL, &rows[n]);
            snprintf(rows[n++].note, sizeof(rows[0].note), "%s",
                     get(nbs, "unknown_reason") ? json_text(nbs, "unknown_reason")
                                                : "no LLDP neighbour");
            continue;
        }
        for (size_t k = 0; k < count(list); k++)
            neighbor_row(rail, json_object_array_get_idx(list, k), &rows[n++]);
    }
    for (int c = 0; c < COLS; c++) {
        width[c] = (int)strlen(heads[c]);
        for (size_t i = 0; i < n; i++)
            if (!rows[i].note[0] || c <= COL_NETDEV)
                if ((int)strlen(rows[i].cell[c]) > width[c])
                    width[c] = (int)strlen(rows[i].cell[c]);
    }
    print_row(heads, width);
    for (size_t i = 0; i < n; i++) {
        if (rows[i].note[0]) {
            printf("%-*s  %-*s  %s\n", width[COL_RAIL], rows[i].cell[COL_RAIL], width[COL_NETDEV],
                   rows[i].cell[COL_NETDEV], rows[i].note);
            continue;
        }
        const char *cells[COLS];
        for (int c = 0; c < COLS; c++)
            cells[c] = rows[i].cell[c];
        print_row(cells, width);
    }
    free(rows);
}
