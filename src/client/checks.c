/* SPDX-License-Identifier: ISC */
/* fabtunectl checks: the findings of the last check, filtered by check id and rail, each
 * with its expected and actual values and its hint (as --json has them). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "check_ids.h"
#include "clean_text.h"
#include "client.h"
#include "macro.h"

/* Whether ID is CHECK, or of the family CHECK names ("gid" or "gid.": gid.*). */
static bool check_matches(const char *id, const char *check)
{
    size_t n = strlen(check);
    if (n && check[n - 1] == '.')
        n--;
    return streq(id, check) || (strncmp(id, check, n) == 0 && id[n] == '.');
}

static bool check_known(const char *check)
{
    for (size_t i = 0; i < check_ids_count; i++)
        if (check_matches(check_ids[i].id, check))
            return true;
    return false;
}

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

int ctl_checks(const struct ctl *c, const char *check)
{
    if (check && !check_known(check)) {
        fprintf(stderr, "fabtunectl: checks: no check id or family '%s' (fabtuned(8), CHECKS, "
                "lists them)\nTry 'fabtunectl --help'.\n", check);
        return EXIT_USAGE;
    }
    json_object *args = json_object_new_object(), *reply, *data;
    json_object_object_add(args, "failed", json_object_new_boolean(c->failed));
    int r = ctl_call(c, "checks", args, &reply, &data);
    json_object_put(args);
    if (r)
        return r;
    json_object *shown = json_object_new_array();
    size_t n = json_object_is_type(data, json_type_array) ? json_object_array_length(data) : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(data, i);
        const char *id = field(f, "check");
        if ((check && (!id || !check_matches(id, check))) ||
            (c->rail && !rail_matches(field(f, "rail"), c->rail)))
            continue;
        json_object_array_add(shown, json_object_get(f));
    }
    if (c->json)
        (void)clean_json_write(shown, JSON_C_TO_STRING_PLAIN, stdout);
    else if (json_object_array_length(shown))
        render_findings(shown, true);
    else
        printf("  no %sfinding%s%s%s%s\n", c->failed ? "failing " : "", check ? " of " : "",
               check ? check : "", c->rail ? " on " : "", c->rail ? c->rail : "");
    json_object_put(shown);
    json_object_put(reply);
    return 0;
}
