/* SPDX-License-Identifier: ISC */
/* fabtunectl explain: the check-id table's texts (src/shared/check_ids.c), compiled in, so
 * that it works without the daemon: one check explained, a family listed, or every id with
 * its meaning. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_ids.h"
#include "client.h"
#include "macro.h"

#define EXPLAIN_WIDTH 80

static void explain_one(const struct check_id *c)
{
    static const char *const labels[] = { "reads:", "expects:", "fix:" };
    const char *texts[] = { c->reads, c->expects, c->fix };
    printf("%s: ", c->id);
    print_wrapped(c->meaning, (int)strlen(c->id) + 2, EXPLAIN_WIDTH);
    for (size_t i = 0; i < ARRAY_SIZE(labels); i++) {
        printf("  %-9s ", labels[i]);
        print_wrapped(texts[i], 12, EXPLAIN_WIDTH);
    }
    printf("  %-9s %s\n", "see:", c->family == CHECK_FAMILY_DIFF ? "fabtunectl(1), diff"
                                                               : "fabtuned(8), CHECKS");
}

static json_object *row_json(const struct check_id *c)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "check", json_object_new_string(c->id));
    json_object_object_add(o, "meaning", json_object_new_string(c->meaning));
    json_object_object_add(o, "reads", json_object_new_string(c->reads));
    json_object_object_add(o, "expects", json_object_new_string(c->expects));
    json_object_object_add(o, "fix", json_object_new_string(c->fix));
    return o;
}

static int by_id(const void *a, const void *b)
{
    return strcmp((*(const struct check_id *const *)a)->id, (*(const struct check_id *const *)b)->id);
}

/* Every row that PATTERN names (NULL: all), sorted by id, into a new array of *RET_N. */
static const struct check_id **rows_of(const char *pattern, size_t *ret_n)
{
    const struct check_id **rows = calloc(check_ids_count, sizeof(*rows));
    size_t n = 0;
    if (!rows)
        return NULL;
    for (size_t i = 0; i < check_ids_count; i++)
        if (!pattern || check_id_matches(check_ids[i].id, pattern))
            rows[n++] = &check_ids[i];
    qsort(rows, n, sizeof(*rows), by_id);
    *ret_n = n;
    return rows;
}

static void list(const struct check_id **rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        printf("  %-*s ", CHECK_ID_WIDTH, rows[i]->id);
        print_wrapped(rows[i]->meaning, CHECK_ID_WIDTH + 3, EXPLAIN_WIDTH);
    }
}

int ctl_explain(const struct ctl *c, const char *what)
{
    size_t n = 0;
    const struct check_id *one = what ? check_id_find(what) : NULL;
    const struct check_id **rows = one ? NULL : rows_of(what, &n);
    if (!one && !rows) {
        fprintf(stderr, "fabtunectl: explain: out of memory\n");
        return EXIT_SOFTWARE;
    }
    if (!one && n == 0) {
        char near[64];
        free(rows);
        fprintf(stderr, "fabtunectl: explain: no check id or family '%s'", what);
        if (check_id_closest(what, near, sizeof(near)))
            fprintf(stderr, " (did you mean '%s'?)", near);
        fprintf(stderr, "\n'fabtunectl explain' lists them.\n");
        return EXIT_USAGE;
    }
    if (c->json) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < (one ? 1 : n); i++)
            json_object_array_add(a, row_json(one ? one : rows[i]));
        puts(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(a);
    } else if (one) {
        explain_one(one);
    } else {
        list(rows, n);
        if (!what)
            printf("\n'fabtunectl explain CHECK' says what a check reads and expects, and what to "
                   "do; fabtune-checks(7) has them all.\n");
    }
    free(rows);
    return 0;
}
