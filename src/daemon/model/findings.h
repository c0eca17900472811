/* SPDX-License-Identifier: ISC */
/* Findings: what the checks conclude, and the verdict that follows from them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "verdict.h"

enum severity { SEVERITY_OK, SEVERITY_UNKNOWN, SEVERITY_WARNING, SEVERITY_ERROR };

struct finding {
    char *check;        /* stable id, "tuning.drift" */
    enum severity severity;
    char *rail;         /* "mlx5_0/1", or NULL for node-wide checks */
    char *message;
    char *expected;
    char *actual;
    char *hint;
    char *subject;      /* what the check judged within the rail or node, when there are
                         * several (the sysctl key of tuning.drift); NULL otherwise */
};

/* Findings of one pass: a few per rail, one per bad GID (16 rails of 256 GIDs: 4096) and
 * per peer path: a real node stays far below. */
#define FINDINGS_MAX 65536

struct findings {
    struct finding *items;
    size_t n, cap;
    bool lost;          /* a finding could not be added: every verdict is UNKNOWN */
};

/* Adds a finding; the strings are copied (NULL allowed except check and message). On
 * -ENOMEM, or past FINDINGS_MAX (-ENOBUFS), the set is marked lost. */
int findings_add(struct findings *fs, const char *check, enum severity sev, const char *rail,
                 const char *expected, const char *actual, const char *hint,
                 const char *fmt, ...) __attribute__((format(printf, 8, 9)));
/* Names what the last added finding is about (copied); alerts are keyed by it too. */
int findings_set_subject(struct findings *fs, const char *subject);
/* Makes finding I an error, its message led by WHY ("escalated: ..."). -ENOMEM marks the
 * set lost. */
int findings_escalate(struct findings *fs, size_t i, const char *why);
void findings_done(struct findings *fs);

/* The node's verdict: errors make it NOT_READY, warnings DEGRADED; 'unknown' findings
 * (data a driver does not expose) never block READY. No findings at all is UNKNOWN. */
enum verdict findings_verdict(const struct findings *fs);
/* The rule of both: n findings of worst severity worst, lost if one could not be added. */
static inline enum verdict findings_verdict_of(enum severity worst, size_t n, bool lost)
{
    if (lost || n == 0)
        return VERDICT_UNKNOWN;
    return worst == SEVERITY_ERROR ? VERDICT_NOT_READY
         : worst == SEVERITY_WARNING ? VERDICT_DEGRADED : VERDICT_READY;
}
/* The same rule over one rail's findings. */
enum verdict findings_rail_verdict(const struct findings *fs, const char *rail);
const struct finding *findings_first_failing(const struct findings *fs);

const char *severity_to_string(enum severity s);
