/* SPDX-License-Identifier: ISC */
/* Findings: a growable list, and the verdict rule over them (the node's, a rail's). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "grow.h"
#include "macro.h"

static char *dup_or_null(const char *s, bool *failed)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *failed = true;
    return d;
}

static void finding_done(struct finding *f)
{
    free(f->check);
    free(f->rail);
    free(f->message);
    free(f->expected);
    free(f->actual);
    free(f->hint);
    free(f->subject);
}

int findings_add(struct findings *fs, const char *check, enum severity sev, const char *rail,
                 const char *expected, const char *actual, const char *hint,
                 const char *fmt, ...)
{
    /* A finding that cannot be recorded could be the error that keeps the node from
     * READY: the verdict becomes UNKNOWN instead of trusting what is left. */
    if (fs->n >= FINDINGS_MAX) {
        fs->lost = true;
        return -ENOBUFS;
    }
    if (GROW_ARRAY(fs->items, fs->cap, fs->n + 1, FINDINGS_MAX) < 0) {
        fs->lost = true;
        return -ENOMEM;         /* the bound is checked above, with its own error */
    }

    bool failed = false;
    struct finding f = {
        .check = dup_or_null(check, &failed),
        .severity = sev,
        .rail = dup_or_null(rail, &failed),
        .expected = dup_or_null(expected, &failed),
        .actual = dup_or_null(actual, &failed),
        .hint = dup_or_null(hint, &failed),
    };
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&f.message, fmt, ap) < 0) {
        f.message = NULL;
        failed = true;
    }
    va_end(ap);
    if (failed) {
        finding_done(&f);
        fs->lost = true;
        return -ENOMEM;
    }
    fs->items[fs->n++] = f;
    return 0;
}

int findings_set_subject(struct findings *fs, const char *subject)
{
    if (fs->n == 0)
        return -EINVAL;
    struct finding *f = &fs->items[fs->n - 1];
    free(f->subject);
    f->subject = strdup(subject);
    if (!f->subject) {
        fs->lost = true;
        return -ENOMEM;
    }
    return 0;
}

int findings_escalate(struct findings *fs, size_t i, const char *why)
{
    char *message;
    if (i >= fs->n)
        return -EINVAL;
    struct finding *f = &fs->items[i];
    if (asprintf(&message, "%s: %s", why, f->message) < 0) {
        fs->lost = true;
        return -ENOMEM;
    }
    free(f->message);
    f->message = message;
    f->severity = SEVERITY_ERROR;
    return 0;
}

void findings_done(struct findings *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        finding_done(&fs->items[i]);
    free(fs->items);
    memset(fs, 0, sizeof(*fs));
}

static enum verdict verdict_over(const struct findings *fs, const char *rail)
{
    enum severity worst = SEVERITY_OK;
    size_t n = 0;
    if (fs->lost)
        return VERDICT_UNKNOWN;
    for (size_t i = 0; i < fs->n; i++) {
        if (rail && (!fs->items[i].rail || !streq(fs->items[i].rail, rail)))
            continue;
        n++;
        if (fs->items[i].severity > worst)
            worst = fs->items[i].severity;
    }
    return findings_verdict_of(worst, n, false);
}

enum verdict findings_verdict(const struct findings *fs)
{
    return verdict_over(fs, NULL);
}

enum verdict findings_rail_verdict(const struct findings *fs, const char *rail)
{
    return verdict_over(fs, rail);
}

const struct finding *findings_first_failing(const struct findings *fs)
{
    for (enum severity s = SEVERITY_ERROR; s >= SEVERITY_WARNING; s--)
        for (size_t i = 0; i < fs->n; i++)
            if (fs->items[i].severity == s)
                return &fs->items[i];
    return NULL;
}

const char *severity_to_string(enum severity s)
{
    static const char *const names[] = { "ok", "unknown", "warning", "error" };
    return names[s];
}

