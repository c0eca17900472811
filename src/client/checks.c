/* SPDX-License-Identifier: ISC */
/* fabtunectl checks: the findings of the last check, errors first, filtered by check id,
 * rail and severity, each with its expected and actual values and its hint (as --json has
 * them). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check_ids.h"
#include "clean_text.h"
#include "client.h"
#include "macro.h"

/* Whether RAIL is WANT ("mlx5_0/1"), or a port of the device WANT names ("mlx5_0"). */
static bool rail_matches(const char *rail, const char *want)
{
    size_t n = strlen(want);
    return rail && (streq(rail, want) || (strncmp(rail, want, n) == 0 && rail[n] == '/'));
}

static const char *field(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
           ? json_object_get_string(v) : NULL;
}

/* The length of A, or 0 when the daemon sent something else than an array. */
static size_t length(json_object *a)
{
    return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

static bool failing(json_object *f)
{
    const char *sev = field(f, "severity");
    return sev && (streq(sev, "error") || streq(sev, "warning"));
}

/* Whether some finding of ALL, or some rail of the node, is on RAIL (a rail or a device). */
static bool rail_known(const struct ctl *c, json_object *all, const char *rail, char *rails, size_t len)
{
    json_object *reply, *data, *list;
    for (size_t i = 0; i < length(all); i++)
        if (rail_matches(field(json_object_array_get_idx(all, i), "rail"), rail))
            return true;
    snprintf(rails, len, "none");
    if (ctl_call(c, "status", NULL, &reply, &data) != 0)
        return true;        /* said why; the filter then shows nothing */
    bool known = false;
    size_t n = 0;
    if (json_object_object_get_ex(data, "rails", &list) && json_object_is_type(list, json_type_array))
        for (size_t i = 0; i < json_object_array_length(list) && n < len; i++) {
            const char *name = field(json_object_array_get_idx(list, i), "name");
            if (!name)
                continue;
            known |= rail_matches(name, rail);
            n += (size_t)snprintf(rails + n, len - n, "%s%s", n ? ", " : "", name);
        }
    json_object_put(reply);
    return known;
}

static int unknown_check(const char *check)
{
    char near[64];
    fprintf(stderr, "fabtunectl: checks: no check id or family '%s'", check);
    if (check_id_closest(check, near, sizeof(near)))
        fprintf(stderr, " (did you mean '%s'?)", near);
    fprintf(stderr, "\n'fabtunectl explain' lists them.\n");
    return EXIT_USAGE;
}

/* The node's rails (status's), whose netdevs the folding takes out of the words; NULL
 * (no folding by netdev) when status does not answer. *REPLY holds them. */
static json_object *node_rails(const struct ctl *c, json_object **reply)
{
    json_object *data, *list;
    *reply = NULL;
    if (client_request(c->socket, "status", NULL, 2000, reply) < 0)
        return NULL;
    return json_object_object_get_ex(*reply, "data", &data) &&
           json_object_object_get_ex(data, "rails", &list) ? list : NULL;
}

int ctl_checks(const struct ctl *c, const char *check)
{
    char rails[512];
    json_object *status_reply = NULL;
    if (check && !check_id_known(check))
        return unknown_check(check);
    /* All of them, whatever --failed: the columns are as wide in every list. */
    json_object *args = json_object_new_object(), *reply, *data;
    json_object_object_add(args, "failed", json_object_new_boolean(false));
    int r = ctl_call(c, "checks", args, &reply, &data);
    json_object_put(args);
    if (r)
        return r;
    json_object *all = data;
    if (c->rail && !rail_known(c, all, c->rail, rails, sizeof(rails))) {
        fprintf(stderr, "fabtunectl: checks: no rail or device '%s' on this node (rails: %s)\n",
                c->rail, rails);
        json_object_put(reply);
        return EXIT_USAGE;
    }
    findings_sort(all);
    json_object *shown = json_object_new_array();
    for (size_t i = 0; i < length(all); i++) {
        json_object *f = json_object_array_get_idx(all, i);
        const char *id = field(f, "check");
        if ((check && (!id || !check_id_matches(id, check))) ||
            (c->rail && !rail_matches(field(f, "rail"), c->rail)) || (c->failed && !failing(f)))
            continue;
        json_object_array_add(shown, json_object_get(f));
    }
    if (c->json)
        (void)clean_json_write(shown, JSON_C_TO_STRING_PLAIN, stdout);
    else if (json_object_array_length(shown))
        render_findings(shown, node_rails(c, &status_reply), true, findings_rail_width(all));
    else
        printf("  no %sfinding%s%s%s%s\n", c->failed ? "failing " : "", check ? " of " : "",
               check ? check : "", c->rail ? " on " : "", c->rail ? c->rail : "");
    json_object_put(shown);
    json_object_put(reply);
    json_object_put(status_reply);
    return 0;
}
