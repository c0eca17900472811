/* SPDX-License-Identifier: ISC */
/* The verdict's cause in words (verdict_cause.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "verdict_cause.h"

/* Appends S to BUF at *AT, cut at LEN. */
static void put(char *buf, size_t len, size_t *at, const char *s)
{
    if (*at >= len)
        return;
    int w = snprintf(buf + *at, len - *at, "%s", s);
    *at = w < 0 ? len : *at + (size_t)w;
}

/* The distinct ids remembered: the check-id table has fewer rows, so every id fits. */
#define SEEN_MAX 256

/* Whether ID is in SEEN; if not, it is added (while there is room). */
static bool seen(const char **seen, size_t *n, const char *id)
{
    for (size_t i = 0; i < *n; i++)
        if (streq(seen[i], id))
            return true;
    if (*n < SEEN_MAX)
        seen[(*n)++] = id;
    return false;
}

void verdict_cause(const struct findings *fs, char *buf, size_t len)
{
    size_t by[SEVERITY_ERROR + 1] = { 0 };
    if (len == 0)
        return;
    buf[0] = '\0';
    if (fs->lost) {
        snprintf(buf, len, "a finding was lost (out of memory)");
        return;
    }
    if (fs->n == 0) {
        snprintf(buf, len, "no check produced data");
        return;
    }
    for (size_t i = 0; i < fs->n; i++)
        by[fs->items[i].severity]++;
    enum severity worst = by[SEVERITY_ERROR] ? SEVERITY_ERROR
                        : by[SEVERITY_WARNING] ? SEVERITY_WARNING : SEVERITY_OK;
    if (worst == SEVERITY_OK) {
        snprintf(buf, len, "%zu check%s ok", by[SEVERITY_OK], PLURAL_S(by[SEVERITY_OK]));
        if (by[SEVERITY_UNKNOWN])
            snprintf(buf + strlen(buf), len - strlen(buf), ", %zu unknown", by[SEVERITY_UNKNOWN]);
        return;
    }
    const char *ids_seen[SEEN_MAX];
    size_t at = 0, ids = 0, n_seen = 0;
    char count[48];
    snprintf(count, sizeof(count), "%zu %s%s (", by[worst], severity_to_string(worst),
             PLURAL_S(by[worst]));
    put(buf, len, &at, count);
    for (size_t i = 0; i < fs->n; i++) {
        const struct finding *f = &fs->items[i];
        if (f->severity != worst || seen(ids_seen, &n_seen, f->check))
            continue;
        if (ids < VERDICT_CAUSE_IDS) {
            put(buf, len, &at, ids ? ", " : "");
            put(buf, len, &at, f->check);
        }
        ids++;
    }
    if (ids > VERDICT_CAUSE_IDS) {
        char more[32];
        snprintf(more, sizeof(more), ", +%zu more", ids - VERDICT_CAUSE_IDS);
        put(buf, len, &at, more);
    }
    put(buf, len, &at, ")");
}
