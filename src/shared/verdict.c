/* SPDX-License-Identifier: ISC */
/* Verdict names and the health formats' exit codes (fabtunectl(1), EXIT STATUS). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "macro.h"
#include "verdict.h"

static const char *const verdict_names[] = { "READY", "DEGRADED", "NOT_READY", "UNKNOWN" };

const char *verdict_to_string(enum verdict v)
{
    return verdict_names[v];
}

enum verdict verdict_from_string(const char *s)
{
    for (size_t i = 0; s && i < ARRAY_SIZE(verdict_names); i++)
        if (streq(s, verdict_names[i]))
            return (enum verdict)i;
    return VERDICT_UNKNOWN;
}

const char *verdict_nagios_state(enum verdict v)
{
    static const char *const names[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };
    return names[v];
}

int verdict_exit_code(enum verdict v, enum health_format f)
{
    /* Rows: format; columns: READY, DEGRADED, NOT_READY, UNKNOWN. */
    static const int codes[][4] = {
        [HEALTH_NPD] = { 0, 1, 1, 2 },
        [HEALTH_NAGIOS] = { 0, 1, 2, 3 },
        [HEALTH_NHC] = { 0, 0, 1, 1 },
        [HEALTH_SLURM] = { 0, 1, 2, 3 },
    };
    return codes[f][v];
}

int health_format_parse(const char *s, enum health_format *ret)
{
    static const char *const names[] = { "npd", "nagios", "nhc", "slurm" };
    for (size_t i = 0; i < ARRAY_SIZE(names); i++)
        if (streq(s, names[i])) {
            *ret = (enum health_format)i;
            return 0;
        }
    return -EINVAL;
}
