/* SPDX-License-Identifier: ISC */
/* The findings in the report's text, one line per problem. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "findings_text.h"
#include "macro.h"

static int cmp_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* The message without a leading "NETDEV: " (a word and a colon): the same problem on
 * several rails differs only there. */
static const char *body(const char *m)
{
    if (!m)
        return "";
    size_t w = strcspn(m, " :");
    return w > 0 && m[w] == ':' && m[w + 1] == ' ' ? m + w + 2 : m;
}

/* Same check, severity and words (message, expected, actual, hint): one problem. A
 * node-wide finding (no rail) is its own. */
static int same_problem(const struct finding *a, const struct finding *b)
{
    int c;
    if ((c = (int)b->severity - (int)a->severity) != 0)
        return c;
    if ((c = strcmp(a->check, b->check)) != 0 || (c = strcmp(body(a->message), body(b->message))) != 0 ||
        (c = cmp_text(a->expected, b->expected)) != 0 || (c = cmp_text(a->actual, b->actual)) != 0 ||
        (c = cmp_text(a->hint, b->hint)) != 0)
        return c;
    if (!a->rail || !b->rail)
        return a->rail == b->rail ? 0 : a->rail ? 1 : -1;
    return 0;
}

static int by_problem(const void *x, const void *y)
{
    const struct finding *a = *(const struct finding *const *)x, *b = *(const struct finding *const *)y;
    int c = same_problem(a, b);
    /* Within one problem, the order the checks found them (rail order). */
    return c ? c : a < b ? -1 : a > b;
}

/* "mlx5_3/1" -> prefix "mlx5_", number 3, port "1". */
static bool split_rail(const char *rail, size_t *prefix_len, long *num, const char **port)
{
    const char *slash = strrchr(rail, '/');
    if (!slash || slash == rail)
        return false;
    const char *d = slash;
    while (d > rail && d[-1] >= '0' && d[-1] <= '9')
        d--;
    if (d == slash || d == rail || slash - d > 6)
        return false;
    *prefix_len = (size_t)(d - rail);
    *num = strtol(d, NULL, 10);
    *port = slash + 1;
    return true;
}

void rails_compact(const char *const *rails, size_t n, char *buf, size_t len)
{
    size_t plen0 = 0, plen;
    long first = 0, num, prev = 0;
    const char *port0 = NULL, *port;
    bool run = n > 1;
    for (size_t i = 0; run && i < n; i++) {
        run = split_rail(rails[i], &plen, &num, &port);
        if (!run)
            break;
        if (i == 0) {
            plen0 = plen, first = num, port0 = port;
        } else {
            run = plen == plen0 && strncmp(rails[i], rails[0], plen) == 0 && streq(port, port0) &&
                  num == prev + 1;
        }
        prev = num;
    }
    if (run) {
        snprintf(buf, len, "%.*s%ld..%ld/%s", (int)plen0, rails[0], first, prev, port0);
        return;
    }
    size_t w = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && w < len; i++)
        w += (size_t)snprintf(buf + w, len - w, "%s%s", i ? ", " : "", rails[i]);
}

static void print_problem(const struct finding *const *group, size_t n, FILE *out)
{
    const struct finding *f = group[0];
    char rails[512] = "";
    if (n > 1) {
        const char *names[64];
        size_t k = 0;
        for (size_t i = 0; i < n && k < ARRAY_SIZE(names); i++)
            names[k++] = group[i]->rail;
        rails_compact(names, k, rails, sizeof(rails));
        fprintf(out, "  %-7s %-22s on %s%s: %s\n", severity_to_string(f->severity), f->check, rails,
                n > k ? ", ..." : "", body(f->message));
    } else {
        fprintf(out, "  %-7s %-22s %s%s%s\n", severity_to_string(f->severity), f->check,
                f->rail ? f->rail : "", f->rail ? ": " : "", f->message);
    }
    if (f->expected || f->actual)
        fprintf(out, "          expected %s, actual %s\n",
                f->expected ? f->expected : "-", f->actual ? f->actual : "-");
    if (f->hint)
        fprintf(out, "          hint: %s\n", f->hint);
}

void findings_print_text(const struct findings *fs, bool grouped, FILE *out)
{
    size_t by[SEVERITY_ERROR + 1] = { 0 };
    for (size_t i = 0; i < fs->n; i++)
        by[fs->items[i].severity]++;
    if (fs->n == 0) {
        fprintf(out, "  none: no check produced data\n");
        return;
    }
    const struct finding **order = calloc(fs->n, sizeof(*order));
    if (!order)
        grouped = false;
    for (size_t i = 0; order && i < fs->n; i++)
        order[i] = &fs->items[i];
    if (grouped)
        qsort(order, fs->n, sizeof(*order), by_problem);
    for (enum severity s = SEVERITY_ERROR; s >= SEVERITY_UNKNOWN; s--) {
        if (s == SEVERITY_UNKNOWN && by[s])
            fprintf(out, "  %zu unknown (data this node's drivers, or a snapshot, do not hold):\n", by[s]);
        for (size_t i = 0; i < fs->n;) {
            const struct finding *f = order ? order[i] : &fs->items[i];
            size_t j = i + 1;
            if (f->severity != s) {
                i++;
                continue;
            }
            /* Node-wide findings are each their own line: there are no rails to name. */
            if (grouped && f->rail)
                while (j < fs->n && same_problem(order[i], order[j]) == 0)
                    j++;
            if (grouped)
                print_problem(&order[i], j - i, out);
            else
                print_problem(&f, 1, out);
            i = j;
        }
    }
    if (by[SEVERITY_OK])
        fprintf(out, "  ok      %zu more check%s passed\n", by[SEVERITY_OK], by[SEVERITY_OK] == 1 ? "" : "s");
    free(order);
}
